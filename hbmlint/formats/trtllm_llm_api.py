"""A TensorRT-LLM LLM API argument file with its model in it: the ``model.yaml`` of Triton's
TensorRT-LLM ``llmapi`` backend (triton-inference-server/tensorrtllm_backend
all_models/llmapi/tensorrt_llm/1/model.py @ dbae4e8: ``get_model_config('model.yaml',
exclude_keys=["triton_config"])`` is laid over ``{}`` by ``update_llm_args_with_extra_dict``
and handed to ``LLM(**args)``, the PyTorch backend's where ``backend: pytorch``), or any
``LLM(**yaml)`` file that names its ``model``.

Its keys are the LLM API's (``tensor_parallel_size``, ``max_batch_size``, ``max_seq_len``,
``kv_cache_config``, ``speculative_config`` with ``decoding_type``), read as for an
``--extra_llm_api_options`` file. It is told from a vLLM ``--config`` file (which also has a
string ``model`` and ``tensor_parallel_size``) by a key only TensorRT-LLM has: vLLM turns each
key into a flag and refuses one it does not know, and its ``speculative_config`` names the
drafter with ``method``, never ``decoding_type``. Like a vLLM config file it names no GPU.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic
from ..engines import trtllm
from ..spec import Deployment
from ..yamlsrc import YamlDocument
from .vllm_config import config_deployment

NAME = "trtllm-llm-api"

# TensorRT-LLM LLM API keys no vLLM flag is named after (tensorrt_llm/llmapi/llm_args.py
# TorchLlmArgs / TrtLlmArgs), and Triton's own section of model.yaml
_OWN_KEYS = frozenset(
    (
        "triton_config",
        "kv_cache_config",
        "max_seq_len",
        "max_batch_size",
        "max_num_tokens",
        "moe_expert_parallel_size",
        "enable_attention_dp",
        "cuda_graph_config",
        "pytorch_backend_config",
        "build_config",
    )
)
# the LLM API's ``backend`` values (llm_args.py: "pytorch", "tensorrt", "_autodeploy")
_BACKENDS = frozenset(("pytorch", "tensorrt", "_autodeploy"))


def detect(data: Any) -> bool:
    if not isinstance(data, dict) or "apiVersion" in data or "kind" in data:
        return False
    if not isinstance(data.get("model"), str):
        return False
    if any(key in data for key in _OWN_KEYS):
        return True
    if str(data.get("backend", "")).strip().lower() in _BACKENDS:
        return True
    speculative = data.get("speculative_config")
    return isinstance(speculative, Mapping) and "decoding_type" in speculative


def to_deployments(
    document: YamlDocument, path: Path, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    command = trtllm.parse_llm_api(document.data, document.span(()), document.span)
    return config_deployment(command, document, path, display, "model.yaml")
