"""trtllm-serve's options by their long names (NVIDIA/TensorRT-LLM tensorrt_llm/commands/serve.py:
--tensor_parallel_size is --tp_size, --pipeline_parallel_size --pp_size,
--moe_expert_parallel_size --ep_size, --free_gpu_memory_fraction
--kv_cache_free_gpu_memory_fraction). hbmlint knew the short names only: Llama 3.1 70B at
--tensor_parallel_size 4 was budgeted whole on one H100, a false HBM101 error."""

from __future__ import annotations

import pytest

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

COMPOSE = """\
services:
  trt:
    image: nvcr.io/nvidia/tensorrt-llm/release:1.2.0
    command: trtllm-serve serve meta-llama/Llama-3.1-70B-Instruct --max_seq_len 8192 FLAGS
    deploy:
      resources:
        reservations:
          devices: [{driver: nvidia, count: 4, capabilities: [gpu]}]
"""


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


@pytest.mark.parametrize(
    "flags",
    [
        "--tensor_parallel_size 4 --free_gpu_memory_fraction 0.8",
        "--tp_size 4 --kv_cache_free_gpu_memory_fraction 0.8",
        "--tensor_parallel_size 2 --pipeline_parallel_size 2 --free_gpu_memory_fraction 0.8",
    ],
)
def test_long_and_short_names_read_alike(tmp_path, rules, flags):
    path = tmp_path / "compose.yaml"
    path.write_text(COMPOSE.replace("FLAGS", flags))
    result = lint_file(path, "compose.yaml", rules, LintOptions(default_gpu="H100"))
    assert result.diagnostics == []
    deployment = result.deployments[0].deployment
    assert deployment.parallel.tensor * (deployment.parallel.pipeline or 1) == 4
    assert deployment.serving.gpu_memory_utilization == 0.8
