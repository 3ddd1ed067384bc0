"""Kubernetes workloads that run an engine: Deployment, StatefulSet, Pod, Job, CronJob,
LeaderWorkerSet, and the pod template of anything with ``spec.template.spec.containers``.

Each container that runs vLLM, SGLang or TGI becomes one Deployment. The GPU count is the
container's ``nvidia.com/gpu`` (or ``amd.com/gpu``) limit, times the pods of one engine instance
(LeaderWorkerSet ``size``, ``--nnodes``); the GPU type comes from the node labels the pod selects
(nodeSelector, required node affinity), which this reader passes on with their lines for resolve
to read (catalog/labels.yaml), with the workload's own labels and annotations (a model label
such as ai.gke.io/model, hbmlint.io/model).
"""

from __future__ import annotations

import os
from typing import Any

from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import image_version
from ..engines.args import Token, placeholder
from ..spec import Deployment
from ..yamlsrc import Span, YamlDocument
from . import accelerators
from .build import GpuFacts, build, on_ray_cluster
from .podspec import (
    Path,
    Reader,
    container_argv,
    container_command,
    container_env,
    containers,
    image_gpu_labels,
    metadata_labels,
    mig_resources,
    node_labels,
    pod_specs,
    runs_engine,
    serving_containers,
    value_at,
    vgpu_memory,
)

NAME = "kubernetes"


# The pod specs and engine containers detect() found in the data it was last given, for
# to_deployments of the same data, which lint calls next: the containers are found once, not
# once to detect the format and again to read it. Taken once, by the data's identity (lint
# reads a document as detect saw it; any other data is searched again).
_detected: tuple[Any, list[tuple[Path, str]], list[tuple[Path, str, Path, dict]]] | None = None


def detect(data: Any) -> bool:
    global _detected
    if not (isinstance(data, dict) and "kind" in data and "apiVersion" in data):
        return False
    pods = pod_specs(data)
    found = _engine_containers(data, pods)
    _detected = (data, pods, found) if found else None
    return bool(found)


def _engine_containers(
    data: dict, pods: list[tuple[Path, str]]
) -> list[tuple[Path, str, Path, dict]]:
    """(pod path, role, path under the pod, container) of each serving container that runs
    an engine."""
    return [
        (pod_path, role, key, c)
        for pod_path, role in pods
        for key, c in serving_containers(data, pod_path)
        if runs_engine(c)
    ]


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
    global _detected
    data = document.data
    detected, _detected = _detected, None
    if detected is not None and detected[0] is data:
        _, pods, engine_containers = detected
    else:
        pods = pod_specs(data)
        engine_containers = _engine_containers(data, pods)
    reader = Reader(document, display)
    base_name, doc_span = document_name(document, reader, "workload")
    deployments: list[Deployment] = []
    for pod_path, role, key, container in engine_containers:
        if role == "worker" and any(r == "leader" for _, r, _, _ in engine_containers):
            continue  # LWS workers join the leader's engine (Ray): the leader is the instance
        cpath = (*pod_path, *key)
        name = base_name
        if len(engine_containers) > 1 and role != "worker":
            name = f"{base_name}/{container.get('name', key[1])}"
        # ``container`` is the one at cpath (found by detect or above in this same data): the
        # readers take it rather than each finding it again
        env = container_env(document, cpath, _injected(document, role), container)
        argv = container_argv(document, cpath, container)
        command = container_command(document, cpath, env, argv, container)
        if command is None:
            from .dynamo import trtllm_worker  # dynamo.py imports this module

            command = trtllm_worker(document, path, pod_path, cpath, env, reader, name)
        if command is None:
            continue
        version = image_version(container.get("image"))
        release = (version, document.span((*cpath, "image"))) if version else None
        elsewhere = reader.other_accelerator(cpath, name, container, command, env)
        if elsewhere and accelerators.in_command(command) is None:
            continue
        if elsewhere:
            # `--device cpu` on vLLM's own image: not budgeted, but whatever the device, a
            # flag the release removed (--device itself, from 0.10) makes it refuse to start
            gpu = GpuFacts()
        else:
            gpu = _gpu_facts(
                reader, data, pods, pod_path, cpath, role, name, command.nodes, container
            )
            if data.get("kind") != "LeaderWorkerSet":  # an LWS group's GPUs are counted above
                gpu, notes = on_ray_cluster(gpu, command, argv, display, name)
                reader.findings.extend(notes)
        deployment, findings = build(
            command,
            name=name,
            display=display,
            document=document.index,
            gpu=gpu,
            where=doc_span,
            engine_version=release,
            hints=metadata_labels(document, ("metadata",), (*pod_path[:-1], "metadata")),
            image=container.get("image"),
        )
        if elsewhere:
            deployment, findings = None, [f for f in findings if f.code == "HBM010"]
        reader.findings.extend(findings)
        if deployment is not None:
            deployments.append(deployment)
    if any(finding.code == "HBM003" for finding in reader.findings):
        reader.findings = _unless_a_patch(reader.findings, path, display)
    return deployments, reader.findings


def _unless_a_patch(findings: list[Diagnostic], path: Any, display: str) -> list[Diagnostic]:
    """A kustomize patch without the engine's model is no error: kustomize merges the patch
    into its base, which holds what the patch leaves out (formats/kustomize.py); each "names no
    model" becomes a note that this file is checked only as kustomize builds it."""
    from .kustomize import listed_by

    listed = listed_by(path) if path else None
    if listed is None or listed[2] != "patch":
        return findings
    kustomization, span, _ = listed
    where = f"{os.path.join(os.path.dirname(display), kustomization.name)}:{span.line}"
    kept = []
    for finding in findings:
        if finding.code != "HBM003":
            kept.append(finding)
            continue
        kept.append(
            input_diagnostic(
                "HBM014",
                f"this is a kustomize patch ({where} names it): kustomize merges it into the "
                "object of its base, which gives what the patch leaves out (here the engine's "
                "model); nothing in it was checked alone",
                display,
                finding.span,
                finding.deployment,
                fixes=[
                    "Lint what the overlay builds: `kubectl kustomize DIR | hbmlint -` "
                    "(or `kustomize build DIR | hbmlint -`)"
                ],
            )
        )
    return kept


def _injected(document: YamlDocument, role: str) -> dict[str, Token]:
    """What LeaderWorkerSet adds to every container's env (kubernetes-sigs/lws,
    api/leaderworkerset/v1 constants): the group size as the manifest fixes it; the leader's
    address and the pod's index only exist when the pod runs."""
    if document.data.get("kind") != "LeaderWorkerSet":
        return {}
    path = ("spec", "leaderWorkerTemplate", "size")
    size = value_at(document.data, path)
    span = document.span(path)
    runtime = "set by LeaderWorkerSet when the pod starts"
    env = {
        "LWS_LEADER_ADDRESS": Token("", span, (f"LWS_LEADER_ADDRESS is {runtime}",)),
        "LWS_WORKER_INDEX": Token(
            "0" if role == "leader" else "",
            span,
            () if role == "leader" else (f"LWS_WORKER_INDEX is {runtime}",),
        ),
    }
    if size is None:
        env["LWS_GROUP_SIZE"] = Token("1", span)  # LWS defaults size to 1
    elif placeholder(size) is None:
        env["LWS_GROUP_SIZE"] = Token(str(size), span)
    return env


def _gpu_facts(
    reader: Reader,
    data: dict,
    pods: list[tuple[Path, str]],
    pod_path: Path,
    cpath: Path,
    role: str,
    name: str,
    nodes: int | None,
    container: Any = None,
) -> GpuFacts:
    per_pod, count_span = reader.container_gpus(cpath, name, container)
    terms = (
        *pod_path,
        "affinity",
        "nodeAffinity",
        "requiredDuringSchedulingIgnoredDuringExecution",
        "nodeSelectorTerms",
    )
    labels = node_labels(reader.document, (*pod_path, "nodeSelector"), terms)
    labels += [label for label, _ in mig_resources(reader.document, cpath, container)]
    labels += image_gpu_labels(reader.document, cpath, container)
    labels += vgpu_memory(reader.document, cpath, container)
    gpu = GpuFacts(count=per_pod, count_span=count_span, labels=labels)
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
        gpu.pods = nodes
    return gpu
