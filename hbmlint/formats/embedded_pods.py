"""The fallback for any object that embeds a Kubernetes pod spec where no format above looks:
a ``containers`` list (and native sidecars, ``initContainers`` with ``restartPolicy: Always``;
other init containers run before the engine and are not one) anywhere in the document, whose
container runs an engine. So a custom resource that carries pod templates (Alibaba's
RoleBasedGroup ``roles[].template`` / ``standalonePattern.template``, OME runtimes, a JobSet, a
new operator's CRD) is read on day one, as a Kubernetes workload would be.

Registered last: a document an earlier format recognises is never read twice. KServe's
``ServingRuntime`` / ``ClusterServingRuntime`` are templates (KServe fills ``{{.Name}}`` in
when an InferenceService uses them), read by kserve.py with their service, never alone.

GPUs: the container's ``nvidia.com/gpu`` limit, times ``--nnodes``, or times the ``size`` of a
leader/worker pattern that holds the pod. Where the engine's parallelism needs more GPUs than
that and this reader cannot know how many pods form one engine instance, the count is left to
the parallelism and an info says so (never a guessed count, never a false error).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..diagnostics import Diagnostic, input_diagnostic
from ..engines.args import Token
from ..spec import Deployment
from ..yamlsrc import YamlDocument
from .build import GpuFacts
from .kubernetes import document_name
from .podspec import (
    GPU_RESOURCES,
    Path,
    Reader,
    container_command,
    container_env,
    image_gpu_labels,
    metadata_labels,
    mig_resources,
    node_labels,
    runs_engine,
    serving_containers,
    value_at,
)

NAME = "embedded-pod-spec"

# Templates, not workloads: linted through the service that uses them (kserve.py).
TEMPLATE_KINDS = ("ServingRuntime", "ClusterServingRuntime", "LLMInferenceServiceConfig")
_AFFINITY = ("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
_MAX_DEPTH = 12  # pod specs sit a few levels down; this bounds the walk on hostile input


def pod_spec_paths(data: Any, path: Path = (), depth: int = 0) -> Iterator[Path]:
    """Every mapping under ``data`` that has a ``containers`` list (a pod spec), outermost first."""
    if depth > _MAX_DEPTH:
        return
    if isinstance(data, dict):
        if path and data.get("kind") in TEMPLATE_KINDS:
            return  # a runtime wrapped in another object (an OpenShift Template's objects)
        if isinstance(data.get("containers"), list):
            yield path
        for key, value in data.items():
            if key in ("containers", "initContainers", "metadata", "status"):
                continue
            yield from pod_spec_paths(value, (*path, key), depth + 1)
    elif isinstance(data, list):
        for i, item in enumerate(data):
            yield from pod_spec_paths(item, (*path, i), depth + 1)


def engine_containers(data: Any) -> list[tuple[Path, Path, dict]]:
    """Each engine container: its pod spec's path, its own path under it, the container."""
    return [
        (pod, key, c)
        for pod in pod_spec_paths(data)
        for key, c in serving_containers(data, pod)
        # a container with its own command, or an image (a RoleBasedGroup templateRef patch
        # gives the command and leaves the image to the template)
        if ("image" in c or "command" in c) and runs_engine(c)
    ]


def detect(data: Any) -> bool:
    if not isinstance(data, dict) or data.get("kind") in TEMPLATE_KINDS:
        return False
    return bool(engine_containers(data))


def _role_name(data: Any, pod: Path) -> str | None:
    """The name of the nearest list item holding the pod spec (an RBG role, a service entry)."""
    for end in range(len(pod), 0, -1):
        if isinstance(pod[end - 1], int):
            item = value_at(data, pod[:end])
            if isinstance(item, dict) and isinstance(item.get("name"), str):
                return item["name"]
    return None


def _names(data: Any, base: str, found: list[tuple[Path, Path, dict]]) -> list[str]:
    """Each engine container's deployment name: the object's, its role's, and the container's
    where one pod (or a role-less object) has several. Two pod templates that would share a
    name (kthena's entryTemplate and workerTemplate, llmaz's leaderTemplate and
    workerTemplate) are told apart by their template's key."""
    names = []
    for pod, key, container in found:
        parts = [base]
        role = _role_name(data, pod)
        if role:
            parts.append(role)
        if sum(1 for other, _, _ in found if other == pod) > 1 or (len(found) > 1 and not role):
            parts.append(str(container.get("name", key[1])))
        names.append("/".join(dict.fromkeys(parts)))
    shared = {name for name in names if names.count(name) > 1}
    for i, (pod, _, _) in enumerate(found):
        if names[i] in shared:
            template = next((k for k in reversed(pod) if isinstance(k, str) and k != "spec"), "")
            names[i] += "/" + (str(template).removesuffix("Template") or str(i))
    return names


def _group_size(reader: Reader, pod: Path, name: str) -> tuple[int | None, Any]:
    """The ``size`` of a leader/worker pattern holding the pod (RBG ``leaderWorkerPattern`` /
    ``leaderWorkerSet``): the pods of one engine instance, and where it is written."""
    data = reader.document.data
    for end in range(len(pod), -1, -1):  # the pattern holds the pod, or sits beside its template
        holder = value_at(data, pod[:end])
        for key, value in holder.items() if isinstance(holder, dict) else ():
            if "leaderworker" in str(key).lower() and isinstance(value, dict) and "size" in value:
                where = (*pod[:end], key, "size")
                return reader.count(where, name), reader.document.span(where)
    return None, None


def _entry_and_workers(reader: Reader, pod: Path, name: str) -> int | None:
    """The pods of one engine instance of a role with an entry pod and ``workerReplicas``
    workers (Kthena's ModelServing ``roles[]``: ``entryTemplate``, ``workerTemplate``; its
    examples/model-serving/multi-node.yaml): 1 + workerReplicas, where the entry pod is this one
    and each worker asks for as many GPUs as it does; None otherwise (the count stays unread)."""
    data = reader.document.data
    if len(pod) < 2 or pod[-2:] != ("entryTemplate", "spec"):
        return None
    role = value_at(data, pod[:-2])
    if not isinstance(role, dict) or "workerReplicas" not in role:
        return None
    workers = reader.count((*pod[:-2], "workerReplicas"), name)
    if workers is None:
        return None
    if workers and _pod_gpus(role.get("workerTemplate")) != _pod_gpus(role.get("entryTemplate")):
        return None  # workers of another size: not one count a pod
    return 1 + workers


def _pod_gpus(template: Any) -> list[Any]:
    """The GPU limits of a pod template's containers, as written (to compare two templates)."""
    spec = template.get("spec") if isinstance(template, dict) else None
    containers = spec.get("containers") if isinstance(spec, dict) else None
    return [
        value_at(c, ("resources", "limits", resource))
        for c in (containers if isinstance(containers, list) else [])
        for resource in GPU_RESOURCES
    ]


def _injected(size: int | None, span: Any) -> dict[str, Token]:
    """What a leader/worker controller puts in every container's env: the group size as the
    file fixes it (RBG: RBG_LWP_GROUP_SIZE, older RBG_GROUP_SIZE; LWS: LWS_GROUP_SIZE, see
    sgl-project/rbg docs reference/variables.md); addresses and indexes exist only at run time."""
    if size is None:
        return {}
    runtime = "set by the controller when the pod starts"
    env = {}
    for prefix in ("RBG_LWP_", "RBG_", "LWS_"):
        env[prefix + "GROUP_SIZE"] = Token(str(size), span)
        for var in ("LEADER_ADDRESS", "WORKER_INDEX"):
            env[prefix + var] = Token("", span, (f"{prefix}{var} is {runtime}",))
    return env


def to_deployments(
    document: YamlDocument, path: Any, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    data = document.data
    reader = Reader(document, display)
    base, where = document_name(document, reader, str(data.get("kind") or "object"))
    found = engine_containers(data)
    deployments: list[Deployment] = []
    for (pod, key, container), name in zip(found, _names(data, base, found), strict=True):
        cpath = (*pod, *key)
        size, size_span = _group_size(reader, pod, name)
        command = container_command(
            document, cpath, container_env(document, cpath, _injected(size, size_span))
        )
        if command is None or reader.other_accelerator(cpath, name):
            continue
        per_pod, count_span = reader.container_gpus(cpath, name)
        labels = node_labels(
            document, (*pod, "nodeSelector"), (*pod, *_AFFINITY, "nodeSelectorTerms")
        )
        labels += [label for label, _ in mig_resources(document, cpath)]
        labels += image_gpu_labels(document, cpath)
        gpu = GpuFacts(count=per_pod, count_span=count_span, labels=labels)
        if per_pod:
            pods = command.nodes or size or _entry_and_workers(reader, pod, name) or 1
            gpu.count = per_pod * pods
            v = command.values
            need = (v.get("parallel.tensor") or 1) * (v.get("parallel.pipeline") or 1)
            if need > gpu.count and pods == 1:
                reader.findings.append(
                    input_diagnostic(
                        "HBM011",
                        f"the engine's parallelism needs {need} GPUs and this pod requests "
                        f"{per_pod}; how many pods of this {data.get('kind', 'object')} form "
                        "one engine instance is not something hbmlint can read here, so the GPU "
                        f"count is taken as {need}",
                        display,
                        count_span or where,
                        name,
                    )
                )
                gpu.count = None
        template_meta = (*pod[:-1], "metadata") if pod and pod[-1] == "spec" else ("metadata",)
        hints = metadata_labels(document, ("metadata",), template_meta)
        image_span = document.span((*cpath, "image"))
        deployments += reader.build(
            command, name, gpu, where, container.get("image"), image_span, hints
        )
    return deployments, reader.findings
