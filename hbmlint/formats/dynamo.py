"""NVIDIA Dynamo ``DynamoGraphDeployment``: each service under ``spec.services``
(``nvidia.com/v1alpha1``) or component under ``spec.components`` (``nvidia.com/v1beta1``, a
list of ``name``/``type``/``podTemplate``) whose main container runs a Dynamo worker
(``python3 -m dynamo.vllm`` or ``dynamo.sglang``, plain or in an ``sh -c`` script) is one
deployment; the worker takes its engine's own flags (ai-dynamo/dynamo
components/src/dynamo/vllm/args.py passes them to vLLM's parser; dynamo.sglang to SGLang's).
Aggregated and disaggregated graphs alike: a prefill and a decode worker are two deployments.
``dynamo.trtllm`` workers are an info (TensorRT-LLM is not budgeted). The frontend and other
services run no engine and are not read.

GPUs: the service's ``resources.limits.gpu`` (Dynamo's own resources, one pod; in v1beta1 the
container's ``nvidia.com/gpu`` limit) times ``multinode.nodeCount``; the type from the
``extraPodSpec`` (v1beta1: ``podTemplate.spec``) nodeSelector / node affinity.
Samples: ai-dynamo/dynamo examples/backends/vllm/deploy/{agg,disagg,disagg-multinode}.yaml.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import sglang, vllm
from ..engines.args import EngineCommand, Token
from ..engines.shell import Locator, expand_k8s, shell_script, split_script
from ..spec import Deployment
from ..yamlsrc import YamlDocument
from .build import GpuFacts
from .kubernetes import document_name
from .podspec import Path, Reader, container_argv, container_env, node_labels, value_at

NAME = "dynamo"

WORKERS: dict[str, ModuleType | None] = {
    "dynamo.vllm": vllm,
    "dynamo.sglang": sglang,
    "dynamo.trtllm": None,  # TensorRT-LLM: not an engine hbmlint budgets
}
_AFFINITY = ("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")


def detect(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and data.get("kind") == "DynamoGraphDeployment"
        and (
            isinstance(value_at(data, ("spec", "services")), dict)
            or isinstance(value_at(data, ("spec", "components")), list)
        )
    )


def _workers(document: YamlDocument) -> list[tuple[str, Path, Path, Path, list[Path]]]:
    """Each service or component: (name, its path, pod spec path, main container path, where
    its GPU count may be, first found wins)."""
    data = document.data
    found = []
    services = value_at(data, ("spec", "services"))
    if isinstance(services, dict):  # v1alpha1: a map of services, extraPodSpec.mainContainer
        for service, spec in services.items():
            if isinstance(spec, dict):
                spath: Path = ("spec", "services", service)
                pod: Path = (*spath, "extraPodSpec")
                gpus = [(*spath, "resources", s, "gpu") for s in ("limits", "requests")]
                found.append((str(service), spath, pod, (*pod, "mainContainer"), gpus))
    components = value_at(data, ("spec", "components"))
    if isinstance(components, list):  # v1beta1: a list of components with a podTemplate
        for i, spec in enumerate(components):
            if not isinstance(spec, dict):
                continue
            spath = ("spec", "components", i)
            pod = (*spath, "podTemplate", "spec")
            containers = value_at(data, (*pod, "containers"))
            if not isinstance(containers, list) or not containers:
                continue
            # The main container is named "main" in Dynamo's samples; else the first one.
            index = next(
                (
                    j
                    for j, c in enumerate(containers)
                    if isinstance(c, dict) and c.get("name") == "main"
                ),
                0,
            )
            cpath: Path = (*pod, "containers", index)
            gpus = [
                *[(*cpath, "resources", s, "nvidia.com/gpu") for s in ("limits", "requests")],
                *[(*spath, "resources", s, "gpu") for s in ("limits", "requests")],
            ]
            found.append((str(spec.get("name", i)), spath, pod, cpath, gpus))
    return found


def _commands(document: YamlDocument, cpath: Path, env: dict[str, Token]) -> list[list[Token]]:
    argv = container_argv(document, cpath)
    env_text = {k: t.text for k, t in env.items() if t.readable}
    script = shell_script(argv)
    if script is None:
        return [[expand_k8s(t, env_text) for t in argv]]
    token, _ = script
    return split_script(token.text, env_text, Locator(document.text, token.span), token.span)


def _worker(
    commands: list[list[Token]], env: dict[str, Token]
) -> tuple[str, EngineCommand | None, Token] | None:
    """The Dynamo worker module a command runs, and its engine command (None for TRT-LLM)."""
    for command in commands:
        for i, token in enumerate(command):
            if token.text in WORKERS:
                module = WORKERS[token.text]
                parsed = module.parse(command[i + 1 :], token.span, env) if module else None
                return token.text, parsed, token
    return None


def to_deployments(
    document: YamlDocument, path: Any, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    data = document.data
    reader = Reader(document, display)
    base, where = document_name(document, reader, "DynamoGraphDeployment")
    deployments: list[Deployment] = []
    for service, spath, pod, cpath, gpu_paths in _workers(document):
        if not isinstance(value_at(data, cpath), dict):
            continue
        name = f"{base}/{service}"
        env = container_env(document, cpath)
        found = _worker(_commands(document, cpath, env), env)
        if found is None:
            continue
        worker, command, token = found
        if command is None:
            reader.findings.append(
                input_diagnostic(
                    "HBM014",
                    f"{worker} runs TensorRT-LLM, which hbmlint does not budget; this worker is "
                    "not checked",
                    display,
                    token.span,
                    name,
                )
            )
            continue
        gpu = GpuFacts(
            labels=node_labels(
                document, (*pod, "nodeSelector"), (*pod, *_AFFINITY, "nodeSelectorTerms")
            )
        )
        for where_gpu in gpu_paths:
            if value_at(data, where_gpu) is not None:
                gpu.count = reader.count(where_gpu, name)
                gpu.count_span = document.span(where_gpu)
                break
        nodes = reader.count((*spath, "multinode", "nodeCount"), name)
        if gpu.count and nodes and nodes > 1:
            gpu.count *= nodes  # one worker spans nodeCount pods, each with these GPUs
        deployments += reader.build(command, name, gpu, where)
    return deployments, reader.findings
