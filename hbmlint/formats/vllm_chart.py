"""Values for vLLM's own Helm chart (vllm-project/vllm examples/online_serving/chart-helm).

The chart's deployment template runs ``image.command`` as the container's command with
``image.env`` as its environment, takes ``resources`` as they are, and, when GPUs are requested,
requires a node whose ``nvidia.com/gpu.product`` is one of ``gpuModels`` (the budget is made for
the one with the least memory). The chart's own placeholder ``TYPE_GPU_USED`` names no GPU.
Values that run no engine command (no ``image.command``) start the image's entrypoint with no
model, and are left alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic
from ..engines import image_version, names_engine, read_invocation
from ..spec import Deployment, Label
from ..yamlsrc import YamlDocument
from .build import GpuFacts, build
from .podspec import Reader, container_argv, container_env, node_labels

NAME = "vllm-helm-chart"
_PLACEHOLDER_GPU = "TYPE_GPU_USED"  # the chart's default gpuModels entry


def detect(data: Any) -> bool:
    if not isinstance(data, dict) or "apiVersion" in data or "kind" in data:
        return False
    image = data.get("image")
    if not isinstance(image, dict) or image.get("command") is None:
        return False
    command = image["command"]
    text = " ".join(map(str, command)) if isinstance(command, list) else str(command)
    return names_engine(text)


def to_deployments(
    document: YamlDocument, path: Path, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    data = document.data
    reader = Reader(document, display)
    name = Path(display).stem
    command = read_invocation(
        container_argv(document, ("image",)),
        container_env(document, ("image",)),
        document.text,
    )
    if command is None:
        return [], []
    if reader.other_accelerator((), name):
        # `resources` asks for an Intel GPU, a TPU (dtandersen/charts vllm-xe: gpu.intel.com/xe)
        return [], reader.findings
    labels = node_labels(document, ("nodeSelector",), None)
    models = data.get("gpuModels")
    for i, model in enumerate(models if isinstance(models, list) else []):
        if model is not None and str(model) != _PLACEHOLDER_GPU:
            span = document.span(("gpuModels", i))
            labels.append(Label("nvidia.com/gpu.product", str(model), span))
    count, count_span = reader.container_gpus((), name)
    gpu = GpuFacts(count=count, count_span=count_span, labels=labels)
    image = data["image"]
    version = None
    if image.get("repository") and image.get("tag") is not None:
        version = image_version(f"{image['repository']}:{image['tag']}")
    deployment, findings = build(
        command,
        name=name,
        display=display,
        document=document.index,
        gpu=gpu,
        where=document.key_span(("image", "command")),
        engine_version=(version, document.span(("image", "tag"))) if version else None,
    )
    reader.findings.extend(findings)
    return ([deployment] if deployment else []), reader.findings
