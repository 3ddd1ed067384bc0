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
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import image_version, vllm
from ..engines.args import RENDER_HINT, Token, placeholder
from ..spec import Deployment
from ..yamlsrc import YamlDocument
from .build import GpuFacts, build
from .podspec import node_labels

NAME = "production-stack"
_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"

# vllmConfig keys in the order the chart's deployment template emits them, with their flags
# (the chart writes --gpu_memory_utilization with underscores; vLLM reads both).
_VLLM_CONFIG = (
    ("maxModelLen", "--max-model-len"),
    ("dtype", "--dtype"),
    ("tensorParallelSize", "--tensor-parallel-size"),
    ("pipelineParallelSize", "--pipeline-parallel-size"),
    ("maxNumSeqs", "--max-num-seqs"),
    ("gpuMemoryUtilization", "--gpu_memory_utilization"),
)


def _has_spec(data: Any) -> bool:
    spec = data.get("servingEngineSpec") if isinstance(data, dict) else None
    return isinstance(spec, dict) and isinstance(spec.get("modelSpec"), list)


def _base(data: Any) -> tuple:
    """Where the chart's values start: the document itself, or the key of an umbrella chart's
    values that passes them to production-stack as a subchart (``vllm-stack:`` in
    k0rdent/catalog apps/vllm/example/values.yaml)."""
    if _has_spec(data):
        return ()
    if isinstance(data, dict):
        for key, value in data.items():
            if _has_spec(value):
                return (key,)
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
    spec = document.data[base[0]] if base else document.data
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
        argv = [Token(str(url), document.span((*mpath, "modelURL")))]
        config = (
            model_spec.get("vllmConfig") if isinstance(model_spec.get("vllmConfig"), dict) else {}
        )
        cpath = (*mpath, "vllmConfig")
        for key, flag in _VLLM_CONFIG:
            if config.get(key) is not None:
                argv += [
                    Token(flag, document.key_span((*cpath, key))),
                    Token(str(config[key]), document.span((*cpath, key))),
                ]
        extra = config.get("extraArgs")
        if isinstance(extra, list):
            argv += [
                Token(str(v), document.span((*cpath, "extraArgs", j))) for j, v in enumerate(extra)
            ]
        command = vllm.parse(argv, document.span((*mpath, "modelURL")))
        count, count_span = _request_gpu(document, mpath, model_spec, findings, display)
        count = _ray_cluster_gpus(document, mpath, model_spec, count, findings, display)
        labels = _node_labels(document, mpath, model_spec)
        gpu = GpuFacts(count=count, count_span=count_span, labels=labels)
        tag = model_spec.get("tag")
        version = image_version(f"vllm/vllm-openai:{tag}") if tag is not None else None
        deployment, found = build(
            command,
            name=name,
            display=display,
            document=document.index,
            gpu=gpu,
            where=document.span((*mpath, "name")) if "name" in model_spec else document.span(mpath),
            engine_version=(version, document.span((*mpath, "tag"))) if version else None,
        )
        findings.extend(found)
        if deployment is not None:
            deployments.append(deployment)
    return deployments, findings


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
    ray = model_spec.get("raySpec")
    if not isinstance(ray, dict) or "headNode" not in ray and ray.get("enabled") is not True:
        return per_worker
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
    elif ray.get("enabled") is not True:
        return per_worker
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
