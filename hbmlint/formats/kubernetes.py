"""Kubernetes workloads that run an engine: Deployment, StatefulSet, Pod, Job, CronJob,
LeaderWorkerSet, and the pod template of anything with ``spec.template.spec.containers``.

Each container that runs vLLM, SGLang or TGI becomes one Deployment. The GPU count is the
container's ``nvidia.com/gpu`` (or ``amd.com/gpu``) limit, times the pods of one engine instance
(LeaderWorkerSet ``size``, ``--nnodes``); the GPU type comes from the node labels the pod selects
(nodeSelector, required node affinity): GPU product labels, GKE and Karpenter labels, or cloud
instance types mapped through instance_types.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from importlib.resources import files
from typing import Any

import yaml

from .. import catalog
from ..diagnostics import Diagnostic, input_diagnostic
from ..spec import Deployment
from ..units import parse_quantity
from ..yamlsrc import Span, YamlDocument
from .args import RENDER_HINT, Token, placeholder
from .build import GpuFacts, build
from .engines import ENGINE_WORDS, image_engine, image_version, read_invocation

NAME = "kubernetes"

GPU_RESOURCES = ("nvidia.com/gpu", "amd.com/gpu")
# Labels whose value names a GPU (catalog names and aliases cover their spellings).
GPU_TYPE_LABELS = (
    "nvidia.com/gpu.product",
    "cloud.google.com/gke-accelerator",
    "karpenter.k8s.aws/instance-gpu-name",
    "eks.amazonaws.com/instance-gpu-name",
)
INSTANCE_TYPE_LABELS = ("node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type")
# Memory per GPU in MiB. Used only when no GPU type is known: a type gives the memory the
# device really reports to the engine, which is less than the label's total.
GPU_MEMORY_LABELS = ("nvidia.com/gpu.memory", "karpenter.k8s.aws/instance-gpu-memory")

Path = tuple[Any, ...]


def _get(data: Any, path: Path) -> Any:
    for key in path:
        if isinstance(data, dict):
            data = data.get(key)
        elif isinstance(data, list) and isinstance(key, int) and key < len(data):
            data = data[key]
        else:
            return None
    return data


def pod_specs(data: dict) -> list[tuple[Path, str]]:
    """Paths of the pod specs in a workload, with their role (``leader``/``worker``/``pod``)."""
    kind = data.get("kind")
    if kind == "Pod":
        return [(("spec",), "pod")]
    if kind == "LeaderWorkerSet":
        base = ("spec", "leaderWorkerTemplate")
        found = []
        if isinstance(_get(data, (*base, "leaderTemplate", "spec")), dict):
            found.append(((*base, "leaderTemplate", "spec"), "leader"))
        if isinstance(_get(data, (*base, "workerTemplate", "spec")), dict):
            found.append(((*base, "workerTemplate", "spec"), "worker"))
        return found
    if kind == "CronJob":
        return [(("spec", "jobTemplate", "spec", "template", "spec"), "pod")]
    return [(("spec", "template", "spec"), "pod")]


def containers(data: dict, pod_path: Path) -> Iterator[tuple[int, dict]]:
    items = _get(data, (*pod_path, "containers"))
    if isinstance(items, list):
        for i, container in enumerate(items):
            if isinstance(container, dict):
                yield i, container


def _words(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value]
    return [str(value)] if value is not None else []


def runs_engine(container: dict) -> bool:
    text = " ".join(_words(container.get("command")) + _words(container.get("args")))
    if any(word in text for word in ENGINE_WORDS):
        return True
    return "command" not in container and image_engine(container.get("image")) is not None


def detect(data: Any) -> bool:
    if not (isinstance(data, dict) and "kind" in data and "apiVersion" in data):
        return False
    return any(
        runs_engine(container)
        for pod_path, _ in pod_specs(data)
        for _, container in containers(data, pod_path)
    )


def container_env(document: YamlDocument, path: Path) -> dict[str, Token]:
    """The container's literal env values (``valueFrom`` cannot be read statically)."""
    env: dict[str, Token] = {}
    items = _get(document.data, (*path, "env"))
    for i, item in enumerate(items if isinstance(items, list) else []):
        if isinstance(item, dict) and "name" in item and "value" in item:
            value = item["value"]
            text = "" if value is None else str(value)
            env[str(item["name"])] = Token(text, document.span((*path, "env", i, "value")))
    return env


def container_argv(document: YamlDocument, path: Path) -> list[Token]:
    argv = []
    for key in ("command", "args"):
        value = _get(document.data, (*path, key))
        if isinstance(value, list):
            argv += [
                Token("" if v is None else str(v), document.span((*path, key, i)))
                for i, v in enumerate(value)
            ]
        elif value is not None:
            argv.append(Token(str(value), document.span((*path, key))))
    return argv


class Reader:
    """Collects findings for one document, reporting "render first" only once."""

    def __init__(self, document: YamlDocument, display: str):
        self.document = document
        self.display = display
        self.findings: list[Diagnostic] = []
        self.render_reported = False

    def render_first(self, value: str, span: Span, name: str | None) -> None:
        if not self.render_reported:
            self.render_reported = True
            self.findings.append(
                input_diagnostic(
                    "HBM012",
                    f"'{placeholder(value)}' is a template placeholder: this document is not a "
                    "manifest until it is rendered",
                    self.display,
                    span,
                    name,
                    [RENDER_HINT],
                )
            )

    def count(self, path: Path, name: str | None) -> int | None:
        """A whole-number field (a GPU limit, an LWS size), or None with a finding."""
        value = _get(self.document.data, path)
        if value is None:
            return None
        span = self.document.span(path)
        if placeholder(value):
            self.render_first(str(value), span, name)
            return None
        try:
            number = int(str(value).strip())
            if number < 0:
                raise ValueError
        except ValueError:
            field = ".".join(str(p) for p in path[-2:])
            self.findings.append(
                input_diagnostic(
                    "HBM004", f"{field}: '{value}' is not a whole number", self.display, span, name
                )
            )
            return None
        return number

    def container_gpus(self, path: Path, name: str | None) -> tuple[int | None, Span | None]:
        for section in ("limits", "requests"):
            for resource in GPU_RESOURCES:
                where = (*path, "resources", section, resource)
                if _get(self.document.data, where) is not None:
                    return self.count(where, name), self.document.span(where)
        return None, None


@cache
def instance_types() -> dict[str, dict]:
    text = files("hbmlint.formats").joinpath("instance_types.yaml").read_text(encoding="utf-8")
    table = yaml.safe_load(text)["instance_types"]
    return {str(k).lower(): v for k, v in table.items()}


def node_labels(
    document: YamlDocument, selector_path: Path | None, terms_path: Path | None
) -> list[tuple[str, str, Span]]:
    """(label, value, where) for every node label required: a nodeSelector map's entries and the
    ``In`` expressions of node-selector terms (each of their values)."""
    data = document.data
    found = []
    selector = _get(data, selector_path) if selector_path else None
    if isinstance(selector, dict):
        for key, value in selector.items():
            found.append((str(key), str(value), document.span((*selector_path, key))))
    if terms_path is None:
        return found
    terms = _get(data, terms_path)
    for t, term in enumerate(terms if isinstance(terms, list) else []):
        expressions = term.get("matchExpressions") if isinstance(term, dict) else None
        for e, expr in enumerate(expressions if isinstance(expressions, list) else []):
            if not isinstance(expr, dict) or expr.get("operator") != "In":
                continue
            values = expr.get("values")
            for v, value in enumerate(values if isinstance(values, list) else []):
                where = (*terms_path, t, "matchExpressions", e, "values", v)
                found.append((str(expr.get("key")), str(value), document.span(where)))
    return found


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
