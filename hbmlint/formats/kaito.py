"""KAITO ``Workspace`` (``kaito.sh``): ``inference.preset.name`` names the model (KAITO's preset
names, or a Hugging Face id), ``resource.instanceType`` the Azure VM size (its GPUs from
catalog/instance_types.yaml), ``resource.count`` the nodes, and ``inference.config`` a
ConfigMap whose ``inference_config.yaml`` holds a ``vllm:`` map that KAITO appends to the
engine's flags (kaito-project/kaito presets/workspace/inference/vllm/inference_api.py), read
when the ConfigMap is in the same file.

What KAITO decides when the file does not: the tensor parallelism is the VM's GPU count (the
controller shards the model over the node's GPUs), and the context length is fitted to the GPU
at start-up (``max_probe_steps``), so without ``max-model-len`` in the config hbmlint checks
only that the weights fit with room for one KV block, and says so (an info). The
``transformers`` runtime (annotation ``kaito.sh/runtime``) is not budgeted: an info. A
Workspace with ``inference.template`` (a pod template of its own) is read by the embedded
pod-spec fallback.
"""

from __future__ import annotations

from typing import Any

import yaml

from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import vllm
from ..engines.args import Token
from ..spec import Deployment, Label
from ..yamlsrc import Span, YamlDocument, load_documents
from .build import GpuFacts, build
from .kubernetes import document_name
from .podspec import Reader, value_at

NAME = "kaito"

# KAITO's preset names -> the Hugging Face repositories they load, from
# kaito-project/kaito presets/workspace/models/supported_models.yaml (each entry's `version`).
PRESETS = {
    "llama-3.1-8b-instruct": "meta-llama/Llama-3.1-8B-Instruct",
    "falcon-7b": "tiiuae/falcon-7b",
    "falcon-7b-instruct": "tiiuae/falcon-7b-instruct",
    "falcon-40b": "tiiuae/falcon-40b",
    "falcon-40b-instruct": "tiiuae/falcon-40b-instruct",
    "mistral-7b": "mistralai/Mistral-7B-v0.3",
    "mistral-7b-instruct": "mistralai/Mistral-7B-Instruct-v0.3",
    "phi-2": "microsoft/phi-2",
    "phi-3-mini-4k-instruct": "microsoft/Phi-3-mini-4k-instruct",
    "phi-3-mini-128k-instruct": "microsoft/Phi-3-mini-128k-instruct",
    "phi-3-medium-4k-instruct": "microsoft/Phi-3-medium-4k-instruct",
    "phi-3-medium-128k-instruct": "microsoft/Phi-3-medium-128k-instruct",
    "phi-3.5-mini-instruct": "microsoft/Phi-3.5-mini-instruct",
    "phi-4-mini-instruct": "microsoft/Phi-4-mini-instruct",
    "phi-4": "microsoft/phi-4",
    "qwen2.5-coder-7b-instruct": "Qwen/Qwen2.5-Coder-7B-Instruct",
    "qwen2.5-coder-32b-instruct": "Qwen/Qwen2.5-Coder-32B-Instruct",
    "deepseek-r1-distill-qwen-14b": "deepseek-ai/DeepSeek-R1-Distill-Qwen-14B",
    "deepseek-r1-distill-llama-8b": "deepseek-ai/DeepSeek-R1-Distill-Llama-8B",
}
CONFIG_KEY = "inference_config.yaml"


def detect(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and str(data.get("apiVersion", "")).startswith("kaito.sh/")
        and data.get("kind") == "Workspace"
        and isinstance(value_at(data, ("inference", "preset")), dict)
    )


def _config_flags(
    document: YamlDocument, name: str, reader: Reader
) -> tuple[list[Token], bool] | None:
    """The ``vllm:`` settings of the ConfigMap ``name`` in the same file as flags, each at its
    line in the block, and whether it sets max-model-len; None when the ConfigMap is not here."""
    documents, _ = load_documents(document.text)
    for other in documents:
        data = other.data
        if not isinstance(data, dict) or data.get("kind") != "ConfigMap":
            continue
        if value_at(data, ("metadata", "name")) != name:
            continue
        text = value_at(data, ("data", CONFIG_KEY))
        block = other.span(("data", CONFIG_KEY))
        try:
            parsed = yaml.safe_load(str(text or "")) or {}
        except yaml.YAMLError:
            reader.findings.append(
                input_diagnostic(
                    "HBM004",
                    f"{CONFIG_KEY} in ConfigMap '{name}' is not YAML KAITO can read",
                    reader.display,
                    block,
                )
            )
            return [], False
        settings = parsed.get("vllm") if isinstance(parsed, dict) else None
        lines = document.text.splitlines()
        tokens: list[Token] = []
        for key, value in (settings if isinstance(settings, dict) else {}).items():
            span = _line_of(lines, block, str(key))
            if isinstance(value, bool):
                value = str(value).lower()
            tokens += [Token(f"--{key}", span), Token(str(value), span)]
        sets_len = isinstance(settings, dict) and any(
            str(k).replace("_", "-") == "max-model-len" for k in settings
        )
        return tokens, sets_len
    return None


def _line_of(lines: list[str], block: Span, key: str) -> Span:
    """Where ``key:`` is written inside the config block (its start when not found)."""
    for number in range(block.line, min(len(lines), block.line + 500) + 1):
        line = lines[number - 1]
        if line.strip().startswith(f"{key}:"):
            return Span(number, line.index(key) + 1)
    return block


def to_deployments(
    document: YamlDocument, path: Any, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    data = document.data
    reader = Reader(document, display)
    name, where = document_name(document, reader, "Workspace")
    runtime = value_at(data, ("metadata", "annotations", "kaito.sh/runtime"))
    if runtime is not None and str(runtime).lower() != "vllm":
        reader.findings.append(
            input_diagnostic(
                "HBM014",
                f"kaito.sh/runtime {runtime}: KAITO serves this preset with Hugging Face "
                "transformers, which hbmlint does not budget; this workspace is not checked",
                display,
                document.span(("metadata", "annotations", "kaito.sh/runtime")),
                name,
            )
        )
        return [], reader.findings
    preset_path = ("inference", "preset", "name")
    preset = value_at(data, preset_path)
    preset_span = document.span(preset_path)
    argv: list[Token] = []
    if preset is not None:
        model = PRESETS.get(str(preset).lower(), str(preset))
        argv += [Token("--model", preset_span), Token(model, preset_span)]
    instance = value_at(data, ("resource", "instanceType"))
    gpu = GpuFacts()
    per_node = None
    if instance is not None:
        span = document.span(("resource", "instanceType"))
        gpu.labels = [Label("node.kubernetes.io/instance-type", str(instance), span)]
        from ..catalog.labels import instance_types

        shape = instance_types().get(str(instance).lower())
        if shape is not None:
            per_node = int(shape["count"])
            gpu.count, gpu.count_span = per_node, span
            # KAITO shards the model over the node's GPUs unless the config says otherwise
            argv += [Token("--tensor-parallel-size", span), Token(str(per_node), span)]
    nodes = reader.count(("resource", "count"), name)
    if nodes and nodes > 1 and gpu.count:
        gpu.count = None  # several nodes form one instance: the parallelism decides
    config = value_at(data, ("inference", "config"))
    sets_len = False
    if config is not None:
        found = _config_flags(document, str(config), reader)
        if found is None:
            reader.findings.append(
                input_diagnostic(
                    "HBM011",
                    f"the vLLM settings are in ConfigMap '{config}', which is not in this file; "
                    "KAITO's defaults are checked instead",
                    display,
                    document.span(("inference", "config")),
                    name,
                    ["Put the ConfigMap in the same file (---) to check its settings"],
                )
            )
        else:
            tokens, sets_len = found
            argv += tokens  # appended after KAITO's own flags: they win
    if not sets_len and preset is not None:
        # KAITO fits the context to the GPU at start-up; check the weights with one block
        argv += [Token("--max-model-len", preset_span), Token("16", preset_span)]
        reader.findings.append(
            input_diagnostic(
                "HBM011",
                "KAITO fits the context length to the GPU when the server starts, so hbmlint "
                "checks only that the weights fit with room for one KV block of 16 tokens",
                display,
                preset_span,
                name,
                ["Set max-model-len under vllm: in the inference config to check a length"],
            )
        )
    command = vllm.parse(argv, document.key_span(("inference",)), {})
    deployment, findings = build(
        command, name=name, display=display, document=document.index, gpu=gpu, where=where
    )
    reader.findings.extend(findings)
    return ([deployment] if deployment else []), reader.findings
