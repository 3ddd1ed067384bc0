"""Helm values for vLLM's production-stack chart (``servingEngineSpec.modelSpec[]``).

The chart renders each model as ``vllm serve MODEL_URL`` followed by flags from ``vllmConfig``
(in the template's order) and then ``vllmConfig.extraArgs`` verbatim, so a flag in ``extraArgs``
overrides the same setting in ``vllmConfig`` (vLLM keeps the last). ``requestGPU`` is the GPU
count; ``affinity`` (or, without it, ``nodeSelectorTerms``) may name the GPU type. ``extraArgs``
anywhere else than under ``vllmConfig`` is ignored by the chart, and reported. A model with
``enabled: false`` (or the whole engine with ``enableEngine: false``) is not deployed by the
chart (the chart's own values.yaml ships such an example) and not read. With ``raySpec.enabled``
the chart runs one RayCluster per model: a head pod with ``raySpec.headNode.requestGPU`` GPUs and
``replicaCount`` worker pods with ``requestGPU`` each (helm/templates/ray-cluster.yaml), and
vLLM's parallelism spans all of them.

The flags are the templates' (vllm-project/production-stack at a6c01db, 2026-08, and their
history): ``enableLoRA`` is ``--enable-lora``; under ``vllmConfig`` (when it is not empty)
``enableChunkedPrefill`` where set, ``enablePrefixCaching`` (the Deployment template writes
``--no-enable-prefix-caching`` when it is not true), ``maxModelLen``, ``dtype``,
``tensorParallelSize``, ``pipelineParallelSize`` (only the RayCluster template reads it),
``maxNumSeqs``, ``gpuMemoryUtilization``, ``maxLoras``, ``runner``, ``convert``, then
``extraArgs``. No release of the chart reads any other ``vllmConfig`` key, nor these keys one
level up in the model's own spec: such a setting never reaches vLLM, and is reported.
``requestGPUType`` names the device-plugin resource the pod asks for (``amd.com/gpu``, a MIG
slice ``nvidia.com/mig-1g.10gb``; ``nvidia.com/gpu`` by default).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import image_version, vllm
from ..engines.args import RENDER_HINT, Token, placeholder
from ..spec import VGPU_MEMORY, VGPU_PERCENT, Deployment, Label
from ..yamlsrc import YamlDocument
from . import accelerators
from .build import GpuFacts, build
from .podspec import node_labels, value_at

NAME = "production-stack"
_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"

# vllmConfig keys with a value, in the order the chart's templates emit them after the switches
# (enableChunkedPrefill, enablePrefixCaching), with their flags (the Deployment template writes
# --gpu_memory_utilization and --max_loras with underscores; vLLM reads both spellings).
# pipelineParallelSize only reaches vLLM through the RayCluster template.
_VLLM_CONFIG = (
    ("maxModelLen", "--max-model-len"),
    ("dtype", "--dtype"),
    ("tensorParallelSize", "--tensor-parallel-size"),
    ("pipelineParallelSize", "--pipeline-parallel-size"),
    ("maxNumSeqs", "--max-num-seqs"),
    ("gpuMemoryUtilization", "--gpu_memory_utilization"),
    ("maxLoras", "--max_loras"),
    ("runner", "--runner"),
    ("convert", "--convert"),
)
_SWITCHES = ("enableChunkedPrefill", "enablePrefixCaching")
# every vllmConfig key some release of the chart reads (v0/v1 pick the LMCache connector,
# prometheusMultiprocDir an env var): any other key never reaches vLLM
_READ_NAMES = ", ".join((*_SWITCHES, *(key for key, _ in _VLLM_CONFIG)))
_READ_KEYS = frozenset(
    (*(key for key, _ in _VLLM_CONFIG), *_SWITCHES, "extraArgs", "v0", "v1")
    + ("prometheusMultiprocDir",)
)


def _has_spec(data: Any) -> bool:
    spec = data.get("servingEngineSpec") if isinstance(data, dict) else None
    return isinstance(spec, dict) and isinstance(spec.get("modelSpec"), list)


# Where a GitOps object holds a chart's values inline: a Flux HelmRelease's spec.values
# (helm.toolkit.fluxcd.io/v2, fluxcd.io/flux/components/helm/helmreleases "Values"), an Argo CD
# Application's spec.source.helm.valuesObject (argo-cd.readthedocs.io "Helm", "Values")
_INLINE_VALUES = (("spec", "values"), ("spec", "source", "helm", "valuesObject"))


def _base(data: Any) -> tuple:
    """Where the chart's values start: the document itself, the key of an umbrella chart's
    values that passes them to production-stack as a subchart (``vllm-stack:`` in
    k0rdent/catalog apps/vllm/example/values.yaml), or a GitOps object's inline values
    (a Flux HelmRelease of vllm-stack in dapperdivers/dapper-cluster)."""
    if _has_spec(data):
        return ()
    if not isinstance(data, dict):
        return ()
    for key, value in data.items():
        if _has_spec(value):
            return (key,)
    if isinstance(data.get("spec"), dict):
        for path in _INLINE_VALUES:
            values = value_at(data, path)
            if _has_spec(values):
                return path
            if isinstance(values, dict):
                for key, value in values.items():
                    if _has_spec(value):
                        return (*path, key)
    return ()


def detect(data: Any) -> bool:
    return _has_spec(data) or (isinstance(data, dict) and _base(data) != ())


def to_deployments(
    document: YamlDocument, path: Path, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    deployments: list[Deployment] = []
    findings: list[Diagnostic] = []
    rendered_reported = False
    base = _base(document.data)
    off = _disabled(document.data, base) if base else None
    if off is not None:
        # an umbrella chart's subchart switched off by its condition (vllm.enabled: false)
        findings.append(
            input_diagnostic(
                "HBM014",
                f"{'.'.join(map(str, off))}.enabled is false: Helm renders nothing of these "
                "values (the subchart's condition), so the engines they describe were not "
                "checked",
                display,
                document.span((*off, "enabled")),
            )
        )
        return deployments, findings
    spec = value_at(document.data, base) if base else document.data
    findings += _ignored_extra_args(document, (*base, "servingEngineSpec"), None, display)
    if spec["servingEngineSpec"].get("enableEngine") is False:
        return deployments, findings  # the chart renders no engine at all
    for i, model_spec in enumerate(spec["servingEngineSpec"]["modelSpec"]):
        if not isinstance(model_spec, dict) or model_spec.get("enabled") is False:
            continue  # the chart skips a model with enabled: false
        mpath = (*base, "servingEngineSpec", "modelSpec", i)
        name = str(model_spec.get("name") or f"modelSpec[{i}]")
        findings += _ignored_extra_args(document, mpath, name, display)
        url = model_spec.get("modelURL")
        if url is None:
            continue
        if placeholder(url):
            if not rendered_reported:
                rendered_reported = True
                findings.append(
                    input_diagnostic(
                        "HBM012",
                        f"modelURL '{url}' is a placeholder: fill it in (or render the values) "
                        "before linting",
                        display,
                        document.span((*mpath, "modelURL")),
                        name,
                        [RENDER_HINT],
                    )
                )
            continue
        on_ray = _runs_on_ray(model_spec)
        findings += _settings_not_read(document, mpath, model_spec, on_ray, name, display)
        command = vllm.parse(
            _argv(document, mpath, model_spec, on_ray), document.span((*mpath, "modelURL"))
        )
        resource = _gpu_resource(document, mpath, model_spec, name, display, findings)
        if resource is None:
            continue  # an accelerator hbmlint does not budget: the info says so
        count, count_span = _request_gpu(document, mpath, model_spec, findings, display)
        other = accelerators.in_command(command)
        if other is not None and not count and not resource:
            # `--device=cpu` with no GPU asked for (requestGPU 0: the chart requests none)
            findings.append(accelerators.not_budgeted(other, display, name))
            continue
        if _asks_none(model_spec) and not resource and not on_ray:
            # requestGPU: 0 asks for none: the pod sees a GPU only where the node's runtime
            # gives every container them all, so no one GPU's memory can be budgeted
            findings.append(
                input_diagnostic(
                    "HBM014",
                    "requestGPU: 0 asks the chart for no GPU, so the pod gets one only where the "
                    "node's container runtime exposes its GPUs to every container; this "
                    "deployment is not budgeted",
                    display,
                    count_span or document.span(mpath),
                    name,
                    ["Set requestGPU to the GPUs the engine needs (1 for one GPU)"],
                )
            )
            continue
        count = _ray_cluster_gpus(document, mpath, model_spec, count, findings, display)
        labels = _node_labels(document, mpath, model_spec) + resource
        gpu = GpuFacts(count=count, count_span=count_span, labels=labels)
        tag = model_spec.get("tag")
        repository = model_spec.get("repository") or "vllm/vllm-openai"
        # the tag is the release of the repository it tags (LMCache's images carry LMCache's)
        version = image_version(f"{repository}:{tag}") if tag is not None else None
        deployment, found = build(
            command,
            name=name,
            display=display,
            document=document.index,
            gpu=gpu,
            where=document.span((*mpath, "name")) if "name" in model_spec else document.span(mpath),
            engine_version=(version, document.span((*mpath, "tag"))) if version else None,
            image=f"{repository}:{tag}",
        )
        findings.extend(found)
        if deployment is not None:
            deployments.append(deployment)
    return deployments, findings


# keys the chart reads on a modelSpec entry itself (vllm-project/production-stack
# helm/values.yaml's modelSpec: hf_token, env, requestGPU, nodeSelectorTerms...), which a
# vllmConfig cannot hold
_MODEL_SPEC_KEYS = frozenset(
    ("hf_token", "env", "requestGPU", "requestCPU", "requestMemory", "nodeSelectorTerms")
    + ("pvcStorage", "replicaCount", "modelURL", "repository", "tag")
)


def _asks_none(model_spec: dict) -> bool:
    """Whether the entry sets requestGPU to zero (the chart then requests no GPU)."""
    try:
        return float(str(model_spec.get("requestGPU"))) == 0
    except ValueError:
        return False


def _disabled(data: Any, base: Path) -> Path | None:
    """Where the values a subchart reads (under ``base``, an umbrella chart's ``vllm:``) are
    switched off by its condition (``enabled: false`` there): Helm renders none of them. None
    where they are not."""
    for depth in range(1, len(base) + 1):
        holder = value_at(data, base[:depth])
        if isinstance(holder, dict) and holder.get("enabled") is False:
            return base[:depth]
    return None


def _go_true(value: Any) -> bool:
    """Whether a Go template's ``if`` takes ``value`` as true: the string "false" is."""
    return value is not None and value is not False and value != 0 and value not in ("", [], {})


def _runs_on_ray(model_spec: dict) -> bool:
    """Whether the chart runs the model as a RayCluster (helm/templates/ray-cluster.yaml):
    ``raySpec.enabled: true``, or a raySpec without ``enabled`` (charts before vllm-stack
    0.1.11; _ray_cluster_gpus warns about it)."""
    ray = model_spec.get("raySpec")
    return isinstance(ray, dict) and (
        ray.get("enabled") is True or ("enabled" not in ray and "headNode" in ray)
    )


def _argv(document: YamlDocument, mpath: tuple, model_spec: dict, on_ray: bool) -> list[Token]:
    """The words the chart puts after ``vllm serve``, each at the value it comes from."""
    argv = [Token(str(model_spec["modelURL"]), document.span((*mpath, "modelURL")))]
    if _go_true(model_spec.get("enableLoRA")):
        argv.append(Token("--enable-lora", document.span((*mpath, "enableLoRA"))))
    config = model_spec.get("vllmConfig")
    if not isinstance(config, dict) or not config:
        return argv  # the templates' `with vllmConfig` writes nothing for an empty one
    cpath = (*mpath, "vllmConfig")
    if "enableChunkedPrefill" in config:
        on = _go_true(config["enableChunkedPrefill"])
        span = document.span((*cpath, "enableChunkedPrefill"))
        argv.append(
            Token("--enable-chunked-prefill" if on else "--no-enable-chunked-prefill", span)
        )
    if _go_true(config.get("enablePrefixCaching")):
        argv.append(
            Token("--enable-prefix-caching", document.span((*cpath, "enablePrefixCaching")))
        )
    elif not on_ray:  # the Deployment template turns it off; the RayCluster's leaves vLLM's
        at = (*cpath, "enablePrefixCaching") if "enablePrefixCaching" in config else cpath
        argv.append(Token("--no-enable-prefix-caching", document.key_span(at)))
    for key, flag in _VLLM_CONFIG:
        if config.get(key) is not None and (on_ray or key != "pipelineParallelSize"):
            argv += [
                Token(flag, document.key_span((*cpath, key))),
                Token(str(config[key]), document.span((*cpath, key))),
            ]
    extra = config.get("extraArgs")
    if isinstance(extra, list):
        argv += [
            Token(str(v), document.span((*cpath, "extraArgs", j))) for j, v in enumerate(extra)
        ]
    return argv


def _settings_not_read(
    document: YamlDocument,
    mpath: tuple,
    model_spec: dict,
    on_ray: bool,
    name: str,
    display: str,
) -> list[Diagnostic]:
    """HBM016 for each vLLM setting of the model the chart never passes on: a vllmConfig key no
    template reads, one written beside vllmConfig instead of in it, and pipelineParallelSize
    outside a RayCluster. A warning: vLLM starts without it, which is not what was written."""
    found: list[Diagnostic] = []
    here = f"modelSpec[{mpath[-1]}]"
    config = model_spec.get("vllmConfig")
    config = config if isinstance(config, dict) else {}
    for key in config:
        if not isinstance(key, str) or key in _READ_KEYS:
            continue
        flag = "--" + key.lstrip("-")
        fix = f'Pass it as a flag: extraArgs: ["{flag}", "{config[key]}"] under vllmConfig'
        if key in _MODEL_SPEC_KEYS:
            # a key of the model's own entry, written one level too deep
            fix = f"Move {key} up one level, beside vllmConfig: the chart reads {here}.{key}"
        found.append(
            input_diagnostic(
                "HBM016",
                f"{here}.vllmConfig.{key} is not a setting the production-stack chart passes to "
                f"vLLM (it reads {_READ_NAMES} and extraArgs): it never reaches the engine and "
                "hbmlint does not read it",
                display,
                document.key_span((*mpath, "vllmConfig", key)),
                name,
                [fix],
            )
        )
    for key in model_spec:
        if isinstance(key, str) and key in _READ_KEYS and key != "extraArgs":
            found.append(
                input_diagnostic(
                    "HBM016",
                    f"{here}.{key} is ignored by the production-stack chart, which reads it "
                    f"from vllmConfig: vLLM starts without it",
                    display,
                    document.key_span((*mpath, key)),
                    name,
                    [f"Move {key} under vllmConfig:"],
                )
            )
    if not on_ray and config.get("pipelineParallelSize") is not None:
        found.append(
            input_diagnostic(
                "HBM016",
                f"{here}.vllmConfig.pipelineParallelSize is passed to vLLM only when the model "
                "runs as a Ray cluster (raySpec with enabled: true); the chart's Deployment "
                "template does not read it, so vLLM starts without pipeline parallelism",
                display,
                document.key_span((*mpath, "vllmConfig", "pipelineParallelSize")),
                name,
                [
                    "Use tensorParallelSize to split the model over the pod's GPUs, or run it "
                    "across pods with raySpec (enabled: true)"
                ],
            )
        )
    return found


def _gpu_resource(
    document: YamlDocument,
    mpath: tuple,
    model_spec: dict,
    name: str,
    display: str,
    findings: list[Diagnostic],
) -> list[Label] | None:
    """What ``requestGPUType`` says of the device: an AMD GPU or a MIG slice as the label
    resolve reads (podspec reads the same resources from a pod), nothing for NVIDIA's default;
    None (and an info) for an accelerator hbmlint does not budget. With them, the HAMi vGPU
    share the chart asks for (helm/templates/_helpers.tpl chart.resources: requestGPUMem as
    nvidia.com/gpumem, requestGPUMemPercentage as nvidia.com/gpumem-percentage)."""
    shares = [
        Label(resource_name, str(model_spec[key]), document.span((*mpath, key)))
        for key, resource_name in (
            ("requestGPUMem", VGPU_MEMORY),
            ("requestGPUMemPercentage", VGPU_PERCENT),
        )
        if model_spec.get(key) is not None
    ][:1]
    kind = model_spec.get("requestGPUType")
    if not isinstance(kind, str) or not kind.strip():
        return shares
    kind = kind.strip()
    span = document.span((*mpath, "requestGPUType"))
    if kind == "amd.com/gpu":
        return [Label("amd.com/gpu", str(model_spec.get("requestGPU")), span), *shares]
    if kind.startswith("nvidia.com/mig-"):
        return [Label("nvidia.com/mig", kind[len("nvidia.com/mig-") :], span), *shares]
    device = accelerators.RESOURCES.get(kind)
    if device is None:
        return shares
    findings.append(
        input_diagnostic(
            "HBM014",
            f"requestGPUType {kind}: the pod runs the engine's build for {device}, whose memory "
            "hbmlint does not budget (NVIDIA and AMD GPUs only); this model is not checked",
            display,
            span,
            name,
        )
    )
    return None


def _node_labels(document: YamlDocument, mpath: tuple, model_spec: dict) -> list:
    """The node labels the chart makes the pod require: ``affinity`` (node affinity) when it is
    set, else ``nodeSelectorTerms``; neither when ``nodeName`` pins a node (the template's
    order)."""
    affinity = model_spec.get("affinity")
    if isinstance(affinity, dict) and affinity:
        terms = (*mpath, "affinity", "nodeAffinity", _REQUIRED, "nodeSelectorTerms")
        return node_labels(document, None, terms)
    if model_spec.get("nodeName"):
        return []
    return node_labels(document, None, (*mpath, "nodeSelectorTerms"))


def _ignored_extra_args(
    document: YamlDocument, path: tuple, name: str | None, display: str
) -> list[Diagnostic]:
    """``extraArgs`` where the chart does not look for it: its deployment template passes only
    ``modelSpec[].vllmConfig.extraArgs`` to vLLM (helm/templates/deployment-vllm-multi.yaml),
    so flags written elsewhere never reach the engine. A warning: the engine starts, without
    them."""
    data = document.data
    for key in path:
        data = data[key]
    if not isinstance(data, dict) or "extraArgs" not in data:
        return []
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
    return [
        input_diagnostic(
            "HBM016",
            f"{where}.extraArgs is ignored by the production-stack chart, which passes only "
            "modelSpec[].vllmConfig.extraArgs to vLLM: these flags never reach the engine "
            "and hbmlint does not read them",
            display,
            document.key_span((*path, "extraArgs")),
            name,
            ["Move the list under vllmConfig: (vllmConfig.extraArgs)"],
        )
    ]


def _ray_cluster_gpus(
    document: YamlDocument,
    mpath: tuple,
    model_spec: dict,
    per_worker: int | None,
    findings: list,
    display: str,
) -> int | None:
    """The GPUs of the RayCluster the chart runs for a model with ``raySpec.enabled``: the
    head's ``requestGPU`` plus ``replicaCount`` workers of ``requestGPU`` each; ``per_worker``
    unchanged without a Ray cluster."""
    if not _runs_on_ray(model_spec):
        return per_worker
    ray = model_spec["raySpec"]
    if "enabled" not in ray:
        # the chart's version decides: before vllm-stack 0.1.11 (vllm-project/production-stack
        # #886, 2026-04) raySpec alone runs the RayCluster; from it, only raySpec.enabled: true
        # does, and the model is a plain Deployment of requestGPU GPUs. Budgeted as the older
        # chart runs it (its tutorials' values files, values-15-*, were written so), with a warning
        findings.append(
            input_diagnostic(
                "HBM016",
                "raySpec has no `enabled: true`: production-stack charts from vllm-stack "
                "0.1.11 ignore it and run this model as a plain Deployment of requestGPU "
                "GPUs; older charts run the RayCluster, which is what hbmlint budgets",
                display,
                document.key_span((*mpath, "raySpec")),
                None,
                ["Add `enabled: true` under raySpec (charts from vllm-stack 0.1.11 need it)"],
            )
        )
    head = ray.get("headNode") if isinstance(ray.get("headNode"), dict) else {}
    head_gpus, _ = _request_gpu(document, (*mpath, "raySpec", "headNode"), head, findings, display)
    replicas = model_spec.get("replicaCount", 1)
    try:
        workers = int(str(replicas))
    except ValueError:
        return None  # a templated count: the parallelism decides
    return (head_gpus or 0) + workers * (per_worker or 0) or None


def _request_gpu(
    document: YamlDocument, mpath: tuple, model_spec: dict, findings: list, display: str
) -> tuple[int | None, Any]:
    if "requestGPU" not in model_spec:
        return None, None
    value = model_spec["requestGPU"]
    span = document.span((*mpath, "requestGPU"))
    try:
        number = float(str(value))
        if not math.isfinite(number):  # float() takes "inf" and "nan"; no GPU count is
            raise ValueError(value)
    except ValueError:
        findings.append(
            input_diagnostic(
                "HBM004", f"requestGPU: '{value}' is not a number", display, span, None
            )
        )
        return None, span
    # a fraction of a GPU (shared card): the replica still sees one card's memory
    return (int(number) if number >= 1 and number == int(number) else None), span
