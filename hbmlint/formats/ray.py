"""KubeRay's RayCluster, RayService and RayJob, and AIBrix's RayClusterFleet (a RayCluster
template): engines started in the cluster's containers (``vllm serve`` in the head's command,
often after ``ray start``), in a RayJob's ``entrypoint``, and the Ray Serve LLM configs of a
RayService's ``serveConfigV2`` (read by ray_serve_llm.py).

One engine started in the head with tensor x pipeline parallelism beyond the head pod's GPUs
spans the cluster over Ray: its GPUs are the head's plus every worker pod's (``replicas`` x
``numOfHosts``, ``maxReplicas`` when the cluster autoscales). The GPU type comes from the node
labels the GPU pods select, or Serve LLM's ``accelerator_type``.
Samples: ray-project/kuberay ray-operator/config/samples/ (ray-service.llm-serve.yaml,
vllm/ray-service.vllm.yaml); vllm-project/aibrix samples/distributed/fleet-two-node.yaml.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import image_version, read_invocation
from ..engines.args import Token, placeholder
from ..spec import Deployment
from ..yamlsrc import YamlDocument
from . import ray_serve_llm
from .build import GpuFacts, build
from .kubernetes import document_name
from .multihost import engine_gpus
from .podspec import (
    Path as DataPath,
)
from .podspec import (
    Reader,
    container_command,
    container_env,
    containers,
    image_gpu_labels,
    metadata_labels,
    node_labels,
    runs_engine,
    value_at,
)

NAME = "ray"

# kind -> where the RayCluster spec sits in it
_CLUSTER_SPEC: dict[str, DataPath] = {
    "RayCluster": ("spec",),
    "RayService": ("spec", "rayClusterConfig"),
    "RayJob": ("spec", "rayClusterSpec"),
    "RayClusterFleet": ("spec", "template", "spec"),  # AIBrix
}
_GROUPS = ("ray.io/", "orchestration.aibrix.ai/")
_MENTIONS = ("vllm", "sglang", "text-generation", "llm_configs")


def detect(data: Any) -> bool:
    if not isinstance(data, dict) or not isinstance(data.get("kind"), str):
        return False
    if data["kind"] not in _CLUSTER_SPEC:
        return False
    if not str(data.get("apiVersion", "")).startswith(_GROUPS):
        return False
    return _mentions(data)


def _mentions(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_mentions(k) or _mentions(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_mentions(v) for v in value)
    return isinstance(value, str) and any(word in value.lower() for word in _MENTIONS)


class _Cluster:
    """The pods of one RayCluster spec: their GPUs and the node labels they select."""

    def __init__(self, reader: Reader, spec: DataPath):
        self.reader = reader
        data = reader.document.data
        self.autoscaling = value_at(data, (*spec, "enableInTreeAutoscaling")) is True
        self.head = (*spec, "headGroupSpec", "template", "spec")
        self.pods: list[tuple[DataPath, str, int]] = [(self.head, "head", 1)]
        groups = value_at(data, (*spec, "workerGroupSpecs"))
        for g, group in enumerate(groups if isinstance(groups, list) else []):
            if isinstance(group, dict):
                path = (*spec, "workerGroupSpecs", g)
                self.pods.append(((*path, "template", "spec"), "worker", self._pods(path, group)))

    def _pods(self, path: DataPath, group: dict) -> int:
        hosts = self.reader.count((*path, "numOfHosts"), None) or 1
        if self.autoscaling and "maxReplicas" in group:
            replicas = self.reader.count((*path, "maxReplicas"), None)
        elif "replicas" in group:
            replicas = self.reader.count((*path, "replicas"), None)
        else:
            replicas = self.reader.count((*path, "minReplicas"), None)
        return (1 if replicas is None else replicas) * hosts

    def pod_gpus(self, pod: DataPath) -> tuple[int | None, Any]:
        total, span = None, None
        for i, _ in containers(self.reader.document.data, pod):
            count, where = self.reader.container_gpus((*pod, "containers", i), None)
            if count is not None:
                total, span = (total or 0) + count, span or where
        return total, span

    def total_gpus(self) -> tuple[int | None, Any]:
        """Every GPU of the cluster, and where the first GPU-bearing group asks for them."""
        total, span = 0, None
        for pod, _, pods in self.pods:
            count, where = self.pod_gpus(pod)
            if count:
                total += count * pods
                span = span or where
        return (total or None), span

    def gpu_type(self, only: DataPath | None = None) -> GpuFacts:
        """The node labels the GPU-bearing pods require (resolve picks the GPU from them)."""
        labels = []
        for pod, _, _ in self.pods:
            if (only is None or pod == only) and (self.pod_gpus(pod)[0] or pod == only):
                terms = (
                    *pod,
                    "affinity",
                    "nodeAffinity",
                    "requiredDuringSchedulingIgnoredDuringExecution",
                    "nodeSelectorTerms",
                )
                labels += node_labels(self.reader.document, (*pod, "nodeSelector"), terms)
                # an amd.com/gpu request or a ROCm image: the pods run on AMD GPUs
                for i, _ in containers(self.reader.document.data, pod):
                    labels += image_gpu_labels(self.reader.document, (*pod, "containers", i))
        return GpuFacts(labels=labels)


def to_deployments(
    document: YamlDocument, path: Path, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    data = document.data
    reader = Reader(document, display)
    base_name, doc_span = document_name(document, reader, "RayCluster")
    cluster = _Cluster(reader, _CLUSTER_SPEC[data["kind"]])
    # the workload's own labels and annotations (and a fleet's template's) may name the model
    hints = metadata_labels(document, ("metadata",), ("spec", "template", "metadata"))
    total, total_span = cluster.total_gpus()
    deployments: list[Deployment] = []

    for pod, role, _ in cluster.pods:
        for index, container in containers(data, pod):
            if not runs_engine(container):
                continue
            cpath = (*pod, "containers", index)
            command = container_command(document, cpath, container_env(document, cpath))
            if command is None:
                continue
            model = command.values.get("model.name")
            if isinstance(model, str) and placeholder(model):
                reader.render_first(model, command.locations["model.name"], base_name)
                continue
            own, own_span = reader.container_gpus(cpath, base_name)
            gpu = cluster.gpu_type(pod)
            spans = role == "head" and own is not None and total and total > own
            count = engine_gpus(command, own, total if role == "head" else None)
            gpu.count = count
            gpu.count_span = total_span if spans and count == total else own_span
            if spans and count == total and not gpu.labels:
                gpu = _with_count(cluster.gpu_type(), count, gpu.count_span)
            version = image_version(container.get("image"))
            deployment, findings = build(
                command,
                name=base_name if role == "head" else f"{base_name}/{container.get('name', index)}",
                display=display,
                document=document.index,
                gpu=gpu,
                where=doc_span,
                hints=hints,
                engine_version=(version, document.span((*cpath, "image"))) if version else None,
            )
            reader.findings.extend(findings)
            if deployment is not None:
                deployments.append(deployment)

    entrypoint = value_at(data, ("spec", "entrypoint")) if data["kind"] == "RayJob" else None
    if isinstance(entrypoint, str):
        where = document.span(("spec", "entrypoint"))
        script = [Token("sh", where), Token("-c", where), Token(entrypoint, where)]
        command = read_invocation(script, {}, document.text)
        if command is not None:
            head, _ = cluster.pod_gpus(cluster.head)
            gpu = _with_count(cluster.gpu_type(), engine_gpus(command, head, total), total_span)
            deployment, findings = build(
                command,
                name=base_name,
                display=display,
                document=document.index,
                gpu=gpu,
                where=doc_span,
                hints=hints,
            )
            reader.findings.extend(findings)
            if deployment is not None:
                deployments.append(deployment)

    serve = value_at(data, ("spec", "serveConfigV2")) if data["kind"] == "RayService" else None
    if serve is not None:
        gpu = _with_count(cluster.gpu_type(), None, total_span)
        if isinstance(serve, str):
            inner, problems = ray_serve_llm.embedded(document, ("spec", "serveConfigV2"), display)
            reader.findings.extend(problems)
            if inner is not None:
                found, findings = ray_serve_llm.read_serve_config(
                    inner, (), display, base_name, document.index, gpu, total
                )
                deployments += found
                reader.findings.extend(findings)
        elif isinstance(serve, dict):
            found, findings = ray_serve_llm.read_serve_config(
                document, ("spec", "serveConfigV2"), display, base_name, document.index, gpu, total
            )
            deployments += found
            reader.findings.extend(findings)

    if not deployments and not reader.findings:
        # it mentions an engine (that is how it was recognised) but starts none hbmlint reads
        reader.findings.append(
            input_diagnostic(
                "HBM014",
                f"this {data['kind']} mentions an inference engine, but hbmlint finds no engine "
                "command it can read in it (containers' command/args"
                + (", the entrypoint" if data["kind"] == "RayJob" else "")
                + (", serveConfigV2's llm_configs" if data["kind"] == "RayService" else "")
                + "); it was not checked",
                display,
                doc_span,
                base_name,
            )
        )
    return deployments, reader.findings


def _with_count(gpu: GpuFacts, count: int | None, span: Any) -> GpuFacts:
    gpu.count, gpu.count_span = count, span
    return gpu
