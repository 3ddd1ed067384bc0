"""Kubernetes workloads that run an engine: Deployment, StatefulSet, Pod, Job, CronJob,
LeaderWorkerSet, and the pod template of anything with ``spec.template.spec.containers``.

Each container that runs vLLM, SGLang or TGI becomes one Deployment. The GPU count is the
container's ``nvidia.com/gpu`` (or ``amd.com/gpu``) limit, times the pods of one engine instance
(LeaderWorkerSet ``size``, ``--nnodes``); the GPU type comes from the node labels the pod selects
(nodeSelector, required node affinity): GPU product labels, GKE and Karpenter labels, or cloud
instance types mapped through instance_types.yaml.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Any

import yaml

from .. import catalog
from ..diagnostics import Diagnostic
from ..engines import image_version, read_invocation
from ..engines.args import placeholder
from ..spec import Deployment
from ..units import parse_quantity
from ..yamlsrc import Span, YamlDocument
from .build import GpuFacts, build
from .podspec import (
    GPU_MEMORY_LABELS,
    GPU_TYPE_LABELS,
    INSTANCE_TYPE_LABELS,
    Path,
    Reader,
    container_argv,
    container_env,
    containers,
    node_labels,
    pod_specs,
    runs_engine,
)

NAME = "kubernetes"


def detect(data: Any) -> bool:
    if not (isinstance(data, dict) and "kind" in data and "apiVersion" in data):
        return False
    return any(
        runs_engine(container)
        for pod_path, _ in pod_specs(data)
        for _, container in containers(data, pod_path)
    )


@cache
def instance_types() -> dict[str, dict]:
    text = files("hbmlint.formats").joinpath("instance_types.yaml").read_text(encoding="utf-8")
    table = yaml.safe_load(text)["instance_types"]
    return {str(k).lower(): v for k, v in table.items()}


def gpu_from_labels(labels: list[tuple[str, str, Span]]) -> GpuFacts:
    """The GPU type (or memory) the pod's node labels name. Where several are allowed (``In``
    with many values), the one with the least memory: the budget must hold on every node."""
    candidates: list[tuple[str, Span]] = []
    by_label = {key: (value, span) for key, value, span in labels}
    for key, value, span in labels:
        if key in GPU_TYPE_LABELS:
            candidates.append((value, span))
        elif key in INSTANCE_TYPE_LABELS and value.lower() in instance_types():
            candidates.append((instance_types()[value.lower()]["gpu"], span))
    family = by_label.get("karpenter.k8s.aws/instance-family")
    size = by_label.get("karpenter.k8s.aws/instance-size")
    if family and size:
        sku = f"{family[0]}.{size[0]}".lower()
        if sku in instance_types():
            candidates.append((instance_types()[sku]["gpu"], family[1]))
    known = [(catalog.find_gpu(name), name, span) for name, span in candidates]
    known = [k for k in known if k[0] is not None]
    if known:
        _, name, span = min(known, key=lambda k: k[0].memory)
        return GpuFacts(type=name, type_span=span)
    facts = GpuFacts()
    if candidates:
        facts.type, facts.type_span = candidates[0]
    memories = []
    for key, value, span in labels:
        if key in GPU_MEMORY_LABELS and value.strip().isdecimal():
            memories.append((int(value), span))
    if memories:
        mib, span = min(memories)
        facts.memory, facts.memory_span = parse_quantity(f"{mib} MiB", "[information]"), span
    return facts


def document_name(document: YamlDocument, reader: Reader, kind: str) -> tuple[str, Span]:
    """A Kubernetes object's name and where it is written (its start when it has none); a
    templated name (`{{ .Release.Name }}`) is reported as "render first"."""
    data = document.data
    metadata = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    name = str(metadata.get("name") or f"{data.get('kind', kind)}[{document.index}]")
    span = document.span(("metadata", "name")) if metadata.get("name") else document.span(())
    if placeholder(name):
        reader.render_first(name, span, None)
    return name, span


def to_deployments(
    document: YamlDocument, path: Any, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    data = document.data
    reader = Reader(document, display)
    base_name, doc_span = document_name(document, reader, "workload")
    deployments: list[Deployment] = []
    pods = pod_specs(data)
    engine_containers = [
        (pod_path, role, i, c)
        for pod_path, role in pods
        for i, c in containers(data, pod_path)
        if runs_engine(c)
    ]
    for pod_path, role, index, container in engine_containers:
        if role == "worker" and any(r == "leader" for _, r, _, _ in engine_containers):
            continue  # LWS workers join the leader's engine (Ray): the leader is the instance
        cpath = (*pod_path, "containers", index)
        name = base_name
        if len(engine_containers) > 1 and role != "worker":
            name = f"{base_name}/{container.get('name', index)}"
        env = container_env(document, cpath)
        image = container.get("image") if "command" not in container else None
        command = read_invocation(
            container_argv(document, cpath),
            env,
            document.text,
            image=image,
            image_span=document.span((*cpath, "image")),
        )
        if command is None:
            continue
        model = command.values.get("model.name")
        if isinstance(model, str) and placeholder(model):
            reader.render_first(model, command.locations["model.name"], name)
            continue
        gpu = _gpu_facts(reader, data, pods, pod_path, cpath, role, name, command.nodes)
        version = image_version(container.get("image"))
        deployment, findings = build(
            command,
            name=name,
            display=display,
            document=document.index,
            gpu=gpu,
            where=doc_span,
            engine_version=(version, document.span((*cpath, "image"))) if version else None,
        )
        reader.findings.extend(findings)
        if deployment is not None:
            deployments.append(deployment)
    return deployments, reader.findings


def _gpu_facts(
    reader: Reader,
    data: dict,
    pods: list[tuple[Path, str]],
    pod_path: Path,
    cpath: Path,
    role: str,
    name: str,
    nodes: int | None,
) -> GpuFacts:
    per_pod, count_span = reader.container_gpus(cpath, name)
    terms = (
        *pod_path,
        "affinity",
        "nodeAffinity",
        "requiredDuringSchedulingIgnoredDuringExecution",
        "nodeSelectorTerms",
    )
    gpu = gpu_from_labels(node_labels(reader.document, (*pod_path, "nodeSelector"), terms))
    gpu.count, gpu.count_span = per_pod, count_span
    if per_pod is None:
        return gpu
    if data.get("kind") == "LeaderWorkerSet":
        size = reader.count(("spec", "leaderWorkerTemplate", "size"), name)
        size = 1 if size is None else size
        worker_path = next((p for p, r in pods if r == "worker"), pod_path)
        worker_gpus = sum(
            reader.container_gpus((*worker_path, "containers", i), name)[0] or 0
            for i, _ in containers(data, worker_path)
        )
        if role != "leader":
            worker_gpus = per_pod  # no leader template: every pod is a copy of this one
        gpu.count = per_pod + (size - 1) * worker_gpus
    elif nodes and nodes > 1:
        gpu.count = per_pod * nodes  # one instance spans --nnodes pods, each with these GPUs
    return gpu
