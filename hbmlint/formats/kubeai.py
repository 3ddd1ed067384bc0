"""KubeAI ``Model`` (``kubeai.org/v1``): the controller runs vLLM with ``--model`` (the ``url``
without ``hf://``) and ``--served-model-name``, then the model's ``args``, on pods with the GPUs
its ``resourceProfile`` (``PROFILE:COUNT``) names; ``env`` is the container's environment
(substratusai/kubeai internal/modelcontroller/engine_vllm.go, docs/reference/kubernetes-api.md).

Resource profiles are defined in the KubeAI Helm chart's values (``resourceProfiles``); the
shipped names are mapped to GPUs below. A profile a cluster defines itself names no GPU hbmlint
knows: the budget then needs ``--gpu`` (a warning says so), the count still comes from the
suffix. A profile named for an accelerator that is not a GPU (Intel Gaudi, Google TPU, AWS
Neuron) is an info, never budgeted on a ``--gpu``. Engines other than vLLM (OLlama,
FasterWhisper, Infinity) are not budgeted: an info.
"""

from __future__ import annotations

from typing import Any

from ..catalog import devices, released_by
from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import vllm
from ..engines.args import Token
from ..spec import Deployment
from ..yamlsrc import YamlDocument
from .build import GpuFacts
from .kubernetes import document_name
from .podspec import Reader, metadata_labels, value_at

NAME = "kubeai"

# KubeAI's chart values (charts/kubeai/values.yaml, resourceProfiles): each profile's node
# selector (nvidia.com/gpu.family + gpu.memory) -> the GPU in hbmlint's catalog.
PROFILES = {
    "nvidia-gpu-t4": "T4-16GB",
    "nvidia-gpu-l4": "L4",
    "nvidia-gpu-l40s": "L40S-48GB",
    "nvidia-gpu-h100": "H100",
    "nvidia-gpu-gh200": "GH200",
    "nvidia-gpu-a100-80gb": "A100-80GB",
    "nvidia-gpu-a100-40gb": "A100-40GB",
    "nvidia-gpu-rtx4090-24gb": "RTX-4090",
    "nvidia-gpu-a16": None,  # not in the catalog: --gpu
    "nvidia-gpu-rtx4070-8gb": None,  # not in the catalog: --gpu
    "amd-gpu-mi300x": "MI300X",
}


# The vLLM image the chart runs when a Model sets no spec.image: modelServers.VLLM.images in
# the KubeAI chart installed. Which chart a cluster runs is not in the file; every chart so far
# names a vLLM no newer than the newest's, vllm/vllm-openai:v0.11.2 (kubeai-project/kubeai
# charts/kubeai/values.yaml at 0d7de2910d63cb1d48786f3133a34b670c0c5024; v0.10.2 from chart
# 0.22.0, v0.8.x before; its AMD image rocm7.0.0_vllm_0.11.1), so such a Model runs at most
# that release: a flag vLLM removed later still starts there.
CHART_IMAGES = "modelServers.VLLM.images"
CHART_NEWEST_VLLM = "0.11.2"
CHART_NEWEST_VLLM_OUT = "2025-11-20"  # release_dates.yaml


def detect(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and str(data.get("apiVersion", "")).startswith("kubeai.org/")
        and data.get("kind") == "Model"
        and isinstance(data.get("spec"), dict)
    )


def _profile(reader: Reader, name: str) -> GpuFacts | None:
    """The GPUs of ``resourceProfile: NAME:COUNT``; None for a CPU profile."""
    document = reader.document
    path = ("spec", "resourceProfile")
    value = value_at(document.data, path)
    if value is None:
        return GpuFacts()
    span = document.span(path)
    profile, _, count_text = str(value).partition(":")
    if profile.startswith("cpu"):
        return None
    try:
        count = int(count_text or "1")
    except ValueError:
        reader.findings.append(
            input_diagnostic(
                "HBM004",
                f"resourceProfile '{value}': the count after ':' is not a whole number",
                reader.display,
                span,
                name,
            )
        )
        return GpuFacts()
    return GpuFacts(type=PROFILES.get(profile), type_span=span, count=count, count_span=span)


def to_deployments(
    document: YamlDocument, path: Any, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    data = document.data
    reader = Reader(document, display)
    name, where = document_name(document, reader, "Model")
    engine = value_at(data, ("spec", "engine"))
    if str(engine).lower() != "vllm":
        if engine is not None:
            reader.findings.append(
                input_diagnostic(
                    "HBM014",
                    f"engine {engine}: hbmlint budgets vLLM, SGLang and TGI; this model is not "
                    "checked",
                    display,
                    document.span(("spec", "engine")),
                    name,
                )
            )
        return [], reader.findings
    argv: list[Token] = []
    url = value_at(data, ("spec", "url"))
    if url is not None:
        model = str(url).removeprefix("hf://")  # KubeAI passes the Hub id; other URLs load a path
        span = document.span(("spec", "url"))
        argv += [Token("--model", span), Token(model, span)]
    args = value_at(data, ("spec", "args"))
    for i, value in enumerate(args if isinstance(args, list) else []):
        argv.append(Token(str(value), document.span(("spec", "args", i))))
    env_map = value_at(data, ("spec", "env"))
    env = {
        str(k): Token(str(v), document.span(("spec", "env", k)))
        for k, v in (env_map.items() if isinstance(env_map, dict) else ())
    }
    profile = str(value_at(data, ("spec", "resourceProfile")) or "").partition(":")[0]
    # OPEA's KubeAI values define gaudi-for-text-generation with habana.ai/gaudi limits
    device = devices.not_a_gpu(profile)
    if device is not None:
        # a GPU given with --gpu (or default-gpu) is for manifests that name none; this one
        # names its device, and budgeting it on a GPU would make up the memory it has
        reader.findings.append(
            input_diagnostic(
                "HBM014",
                f"resourceProfile '{profile}' runs vLLM's build for {device}, whose memory "
                "hbmlint does not budget (NVIDIA and AMD GPUs only); this model is not checked",
                display,
                document.span(("spec", "resourceProfile")),
                name,
            )
        )
        return [], reader.findings
    gpu = _profile(reader, name)
    if gpu is None:
        reader.findings.append(
            input_diagnostic(
                "HBM014",
                "a CPU resource profile: vLLM runs without a GPU here, there is no HBM to budget",
                display,
                document.span(("spec", "resourceProfile")),
                name,
            )
        )
        return [], reader.findings
    command = vllm.parse(argv, document.key_span(("spec",)), env)
    image = value_at(data, ("spec", "image"))
    hints = metadata_labels(document, ("metadata",))
    chart_release = None
    if image is None and command.engine == "vllm":
        chart_release = released_by(
            "vllm",
            CHART_NEWEST_VLLM_OUT,
            at_most=True,
            day_is=f"when vllm/vllm-openai:v{CHART_NEWEST_VLLM}, the newest chart's, was out",
        )
    image_span = document.span(("spec", "image"))
    found = reader.build(command, name, gpu, where, image, image_span, hints, chart_release)
    for deployment in found:
        if chart_release is not None and deployment.engine_version == chart_release:
            deployment.assumed["engine_version"] = (
                f"{deployment.engine_version}: the Model sets no spec.image, so KubeAI runs the "
                f"image its chart names ({CHART_IMAGES}; v{CHART_NEWEST_VLLM} in the newest "
                "chart, older releases in older ones), which this file cannot tell; set "
                "spec.image to check that release"
            )
    return found, reader.findings
