"""KAITO ``Workspace`` and ``InferenceSet`` (``kaito.sh``; an InferenceSet's ``spec.template``
holds a Workspace's ``resource`` and ``inference``, and its replicas are whole Workspaces):
``inference.preset.name`` names the model (KAITO's preset names, or a Hugging Face id),
``resource.instanceType`` the Azure VM size (its GPUs from catalog/instance_types.yaml),
``resource.count`` the nodes, ``resource.partition`` (BYO nodes, 2026) ``count`` whole GPUs
(``mode: accelerator``) or a MIG slice (``mode: mig``, ``profile``), and
``inference.config`` a ConfigMap whose ``inference_config.yaml`` holds a ``vllm:`` map that
KAITO appends to the engine's flags (kaito-project/kaito
presets/workspace/inference/vllm/inference_api.py), read when the ConfigMap is in the same file.

What KAITO decides when the file does not: the tensor parallelism is the VM's GPU count (the
controller shards the model over the node's GPUs), and the context length is fitted to the GPU
at start-up (``max_probe_steps``), so without ``max-model-len`` in the config hbmlint checks
only that the weights fit with room for one KV block, and says so (an info); the memory
fraction is the share of the card free at start-up, at most 0.95. Each is in the budget's
``assumed`` list with KAITO named. The
``transformers`` runtime (annotation ``kaito.sh/runtime``) is not budgeted: an info. A
Workspace with ``inference.template`` (a pod template of its own) is read by the embedded
pod-spec fallback.
"""

from __future__ import annotations

from typing import Any

import yaml

from ..catalog.labels import MIG_PROFILE
from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import vllm
from ..engines.args import Token
from ..spec import Deployment, Label
from ..yamlsrc import Span, YamlDocument, key_in_block, load_documents, load_plain
from .build import GpuFacts, build
from .kubernetes import document_name
from .podspec import Reader, tree_object, value_at

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
    "llama-3.3-70b-instruct": "meta-llama/Llama-3.3-70B-Instruct",
    "deepseek-r1-0528": "deepseek-ai/DeepSeek-R1-0528",
    "deepseek-v3-0324": "deepseek-ai/DeepSeek-V3-0324",
    "ministral-3-3b-instruct": "mistralai/Ministral-3-3B-Instruct-2512",
    "ministral-3-8b-instruct": "mistralai/Ministral-3-8B-Instruct-2512",
    "ministral-3-14b-instruct": "mistralai/Ministral-3-14B-Instruct-2512",
    "mistral-large-3-675b-instruct": "mistralai/Mistral-Large-3-675B-Instruct-2512",
    "gemma-3-4b-instruct": "google/gemma-3-4b-it",
    "gemma-3-27b-instruct": "google/gemma-3-27b-it",
    "gpt-oss-20b": "openai/gpt-oss-20b",
    "gpt-oss-120b": "openai/gpt-oss-120b",
}
CONFIG_KEY = "inference_config.yaml"


# KAITO's memory fraction when the config sets none: the share of the card free at start-up,
# capped at 0.95 (presets/workspace/inference/vllm/inference_api.py
# get_max_gpu_memory_utilization); on a card nothing else uses, the cap.
MEMORY_FRACTION = 0.95
# Where each kind keeps the Workspace's `resource` and `inference`: an InferenceSet's
# controller creates Workspaces from spec.template (api/v1beta1/inferenceset_types.go).
_BASES = {"Workspace": (), "InferenceSet": ("spec", "template")}


def detect(data: Any) -> bool:
    if not (
        isinstance(data, dict)
        and str(data.get("apiVersion", "")).startswith("kaito.sh/")
        and isinstance(data.get("kind"), str)  # a list or a map is no key of _BASES
    ):
        return False
    if data["kind"] == _MULTI_ROLE:
        return isinstance(value_at(data, ("spec", "roles")), list)
    return data["kind"] in _BASES and isinstance(
        value_at(data, (*_BASES[data["kind"]], "inference", "preset")), dict
    )


# KAITO's MultiRoleInference (kaito.sh/v1alpha1, 2026): one InferenceSet a role (prefill,
# decode) of spec.model on the role's instanceType, its node count KAITO's estimate from the
# model (pkg/controllers/multiroleinference), which the file does not hold
_MULTI_ROLE = "MultiRoleInference"
KINDS = (*_BASES, _MULTI_ROLE)  # the kinds detect reads (formats.DETECTED_KINDS)


def _multi_role(document: YamlDocument, display: str) -> list[Diagnostic]:
    """The info for a MultiRoleInference: read, not budgeted (KAITO sizes each role's nodes)."""
    data = document.data
    reader = Reader(document, display)
    name, _ = document_name(document, reader, _MULTI_ROLE)
    model = value_at(data, ("spec", "model", "name"))
    where = ("spec", "model", "name") if model is not None else ("spec", "roles")
    return [
        *reader.findings,
        input_diagnostic(
            "HBM014",
            f"a KAITO MultiRoleInference{' of ' + str(model) if model else ''}: KAITO runs each "
            "role on as many nodes of its instanceType as its estimate of the model needs, a "
            "count this file does not hold, so nothing in it was checked",
            display,
            document.span(where),
            name,
            [
                "Lint the InferenceSets KAITO creates for the roles "
                "(`kubectl get inferencesets -o yaml | hbmlint -`)"
            ],
        ),
    ]


def _config_flags(
    document: YamlDocument, name: str, reader: Reader, reference: Span
) -> tuple[list[Token], set[str]] | None:
    """The ``vllm:`` settings of the ConfigMap ``name`` as flags and the settings it names
    (dashed): from the same file, each at its line in the block; from another file of the run,
    at ``reference`` (the workspace's ``config:``); None when no file linted holds it."""
    documents, _ = load_documents(document.text)
    for other in documents:
        data = other.data
        if not isinstance(data, dict) or data.get("kind") != "ConfigMap":
            continue
        if value_at(data, ("metadata", "name")) != name:
            continue
        block = other.span(("data", CONFIG_KEY))
        text = value_at(data, ("data", CONFIG_KEY))
        return _parse_config(text, name, reader, document.text, block, True)
    elsewhere = tree_object("ConfigMap", name)
    if elsewhere is None:
        return None
    return _parse_config(elsewhere.get(CONFIG_KEY), name, reader, "", reference, False)


def _parse_config(
    text: Any, name: str, reader: Reader, file_text: str, block: Span, here: bool
) -> tuple[list[Token], set[str]]:
    """The ``vllm:`` map of an ``inference_config.yaml`` as flags; ``here``: the block is in
    ``file_text`` (each flag at its own line), else every flag is at ``block``."""
    try:
        parsed = load_plain(str(text or "")) or {}
    except yaml.YAMLError:
        reader.findings.append(
            input_diagnostic(
                "HBM004",
                f"{CONFIG_KEY} in ConfigMap '{name}' is not YAML KAITO can read",
                reader.display,
                block,
            )
        )
        return [], set()
    settings = parsed.get("vllm") if isinstance(parsed, dict) else None
    settings = settings if isinstance(settings, dict) else {}
    lines = file_text.splitlines()
    tokens: list[Token] = []
    for key, value in settings.items():
        span = key_in_block(lines, block, str(key)) if here else block
        if isinstance(value, bool):
            value = str(value).lower()
        tokens += [Token(f"--{key}", span), Token(str(value), span)]
    return tokens, {str(k).replace("_", "-") for k in settings}


def to_deployments(
    document: YamlDocument, path: Any, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    data = document.data
    kind = str(data.get("kind"))
    if kind == _MULTI_ROLE:
        return [], _multi_role(document, display)
    reader = Reader(document, display)
    name, where = document_name(document, reader, kind)
    base = _BASES[kind]
    runtime_path = ("metadata", "annotations", "kaito.sh/runtime")
    runtime = value_at(data, runtime_path)
    if runtime is not None and str(runtime).lower() != "vllm":
        reader.findings.append(
            input_diagnostic(
                "HBM014",
                f"kaito.sh/runtime {runtime}: KAITO serves this preset with Hugging Face "
                "transformers, which hbmlint does not budget; this workspace is not checked",
                display,
                document.span(runtime_path),
                name,
            )
        )
        return [], reader.findings
    preset_path = (*base, "inference", "preset", "name")
    preset = value_at(data, preset_path)
    preset_span = document.span(preset_path)
    argv: list[Token] = []
    assumed: dict[str, str] = {}
    if preset is not None:
        model = PRESETS.get(str(preset).lower(), str(preset))
        argv += [Token("--model", preset_span), Token(model, preset_span)]
    instance_path = (*base, "resource", "instanceType")
    instance = value_at(data, instance_path)
    gpu = GpuFacts()
    per_node = None
    if instance is not None:
        span = document.span(instance_path)
        gpu.labels = [Label("node.kubernetes.io/instance-type", str(instance), span)]
        from ..catalog.labels import instance_types

        shape = instance_types().get(str(instance).lower())
        if shape is not None and shape.get("count"):  # a Nebius platform gives no count
            per_node = int(shape["count"])
            gpu.count, gpu.count_span = per_node, span
            # KAITO shards the model over the node's GPUs unless the config says otherwise
            argv += [Token("--tensor-parallel-size", span), Token(str(per_node), span)]
    partition_path = (*base, "resource", "partition")
    mode = value_at(data, (*partition_path, "mode"))
    accelerators = None
    if str(mode).lower() == "accelerator":
        # KAITO (v0.10, 2026, BYO nodes): Count whole GPUs of the matching node, its vLLM
        # parallelism sized to them (pkg/workspace/inference/preset_inferences.go getGPUConfig
        # -> sku.ScaleGPUConfigToCount; pkg/model/interface.go configureParallelism)
        count_path = (*partition_path, "count")
        accelerators = reader.count(count_path, name)
        if accelerators:
            span = document.span(count_path)
            per_node = accelerators
            gpu.count, gpu.count_span = per_node, span
            argv += [Token("--tensor-parallel-size", span), Token(str(per_node), span)]
    elif str(mode).lower() == "mig":
        # KAITO (v0.10, 2026, BYO nodes): one MIG slice of the profile, a GPU of the slice's
        # memory (pkg/utils/common.go GetMIGGPUConfig, GPUCount 1); "tensor parallelism across
        # partitions is not supported" (api/v1beta1/workspace_types.go PartitionSpec)
        profile_path = (*partition_path, "profile")
        profile = value_at(data, profile_path)
        span = document.span(profile_path) if profile is not None else document.span(partition_path)
        if profile is not None and MIG_PROFILE.fullmatch(str(profile).strip()):
            gpu.labels = [*gpu.labels, Label("nvidia.com/mig", str(profile).strip(), span)]
        gpu.count, gpu.count_span = 1, span
        per_node = None
        assumed["tensor_parallel"] = (
            "1 (a KAITO MIG partition: one slice, no tensor parallelism across slices)"
        )
    nodes_path = (*base, "resource", "count")
    nodes = reader.count(nodes_path, name)
    if nodes and nodes > 1 and per_node is not None:
        # several nodes form one instance: KAITO runs one pipeline stage a node, each sharded
        # over the node's GPUs (pkg/model/interface.go configureParallelism)
        span = document.span(nodes_path)
        gpu.count, gpu.count_span = per_node * nodes, span
        argv += [Token("--pipeline-parallel-size", span), Token(str(nodes), span)]
        assumed["pipeline_parallel"] = (
            f"{nodes} (KAITO runs one pipeline stage on each of resource.count nodes; newer "
            "KAITO estimates the node count from the model and may choose another)"
        )
    elif nodes and nodes > 1:
        gpu.count = None  # several nodes form one instance: the parallelism decides
    config_path = (*base, "inference", "config")
    config = value_at(data, config_path)
    named: set[str] = set()
    if config is not None:
        found = _config_flags(document, str(config), reader, document.span(config_path))
        if found is None:
            reader.findings.append(
                input_diagnostic(
                    "HBM011",
                    f"the vLLM settings are in ConfigMap '{config}', which is not in this file nor "
                    "in the others linted with it; KAITO's defaults are checked instead",
                    display,
                    document.span(config_path),
                    name,
                    ["Lint the ConfigMap's file with this one to check its settings"],
                )
            )
        else:
            tokens, named = found
            argv += tokens  # appended after KAITO's own flags: they win
    if per_node is not None and "tensor-parallel-size" not in named:
        whose = "partition.count GPUs" if accelerators else "VM's GPUs"
        assumed["tensor_parallel"] = f"{per_node} (KAITO shards the model over the {whose})"
        if per_node > 1 and not (nodes and nodes > 1):
            assumed["tensor_parallel"] += (
                "; KAITO from v0.8 runs one replica a GPU instead (data parallel, TP 1) when "
                "the model's files take under half of one GPU"
            )
    fraction = "gpu-memory-utilization" not in named
    if fraction:
        assumed["gpu_memory_utilization"] = (
            f"{MEMORY_FRACTION} (KAITO: the share of the card free at start-up, at most "
            f"{MEMORY_FRACTION})"
        )
    if "max-model-len" not in named and preset is not None:
        # KAITO fits the context to the GPU at start-up; check the weights with one block
        argv += [Token("--max-model-len", preset_span), Token("16", preset_span)]
        assumed["max_model_len"] = (
            "16 (one KV block: KAITO fits the context length to the GPU at start-up)"
        )
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
    command = vllm.parse(argv, document.key_span((*base, "inference")), {})
    deployment, findings = build(
        command, name=name, display=display, document=document.index, gpu=gpu, where=where
    )
    reader.findings.extend(findings)
    if deployment is None:
        return [], reader.findings
    if fraction:  # KAITO's value, not the engine's; no line of the file sets it
        deployment.serving.gpu_memory_utilization = MEMORY_FRACTION
    deployment.assumed.update(assumed)
    return [deployment], reader.findings
