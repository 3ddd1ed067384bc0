"""llm-d's ``llm-d-modelservice`` Helm values: ``modelArtifacts`` (``uri: hf://ORG/NAME``,
``name``) and a ``decode`` and a ``prefill`` pool, each with ``parallelism`` (``tensor``,
``data``), ``acceleratorTypes`` (``labelKey`` + ``labelValues``: the node label the pods
require) and ``containers``. A container with ``modelCommand: vllmServe`` runs ``vllm serve``
with the model, ``--tensor-parallel-size`` from ``parallelism.tensor`` and then its own
``args`` (llm-d-incubation/llm-d-modelservice templates/_helpers.tpl); ``modelCommand:
custom`` (or none) runs the container's ``command``/``args`` as written. A pool with
``create: false`` is not deployed and not read.

The ``helm template`` output of the chart is plain Kubernetes (Deployments, LeaderWorkerSets)
and is read as such. GPUs: the container's ``nvidia.com/gpu`` limit; where the values leave it
out the chart sizes it from the parallelism, so the count is left to the parallelism; a
``multinode: true`` pool spans pods, so the count is left to the parallelism too.
"""

from __future__ import annotations

from typing import Any

from ..diagnostics import Diagnostic
from ..engines import image_version, vllm
from ..engines.args import Token
from ..spec import Deployment, Label
from ..yamlsrc import Span, YamlDocument
from .build import GpuFacts, build
from .podspec import (
    Path,
    Reader,
    container_command,
    container_env,
    runs_engine,
    value_at,
)

NAME = "llm-d-modelservice"
POOLS = ("decode", "prefill")


def _pool_containers(data: dict, pool: str) -> list[tuple[int, dict]]:
    items = value_at(data, (pool, "containers"))
    return [
        (i, c)
        for i, c in enumerate(items if isinstance(items, list) else [])
        if isinstance(c, dict) and (c.get("modelCommand") == "vllmServe" or runs_engine(c))
    ]


def detect(data: Any) -> bool:
    if not isinstance(data, dict) or "apiVersion" in data or "kind" in data:
        return False
    if not isinstance(data.get("modelArtifacts"), dict):
        return False
    return any(_pool_containers(data, pool) for pool in POOLS if isinstance(data.get(pool), dict))


def _model_tokens(document: YamlDocument) -> list[Token]:
    """``vllm serve MODEL``: the Hub id of an ``hf://`` URI, else the artifacts' ``name``."""
    data = document.data
    uri = value_at(data, ("modelArtifacts", "uri"))
    if isinstance(uri, str) and uri.startswith("hf://"):
        span = document.span(("modelArtifacts", "uri"))
        return [Token("--model", span), Token(uri.removeprefix("hf://"), span)]
    name = value_at(data, ("modelArtifacts", "name"))
    if name is not None:
        span = document.span(("modelArtifacts", "name"))
        return [Token("--model", span), Token(str(name), span)]
    if uri is not None:
        span = document.span(("modelArtifacts", "uri"))
        return [Token("--model", span), Token(str(uri), span)]
    return []


def _labels(document: YamlDocument, pool: str) -> list[Label]:
    data = document.data
    key = value_at(data, (pool, "acceleratorTypes", "labelKey"))
    values = value_at(data, (pool, "acceleratorTypes", "labelValues"))
    found = []
    if key is not None and isinstance(values, list):
        for i, value in enumerate(values):
            span = document.span((pool, "acceleratorTypes", "labelValues", i))
            found.append(Label(str(key), str(value), span))
    selector = value_at(data, (pool, "nodeSelector"))
    if isinstance(selector, dict):
        for k, v in selector.items():
            found.append(Label(str(k), str(v), document.span((pool, "nodeSelector", k))))
    return found


def to_deployments(
    document: YamlDocument, path: Any, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    data = document.data
    reader = Reader(document, display)
    where = document.span(("modelArtifacts",))
    deployments: list[Deployment] = []
    for pool in POOLS:
        if not isinstance(data.get(pool), dict) or data[pool].get("create") is False:
            continue
        for index, container in _pool_containers(data, pool):
            cpath: Path = (pool, "containers", index)
            name = pool if index == 0 else f"{pool}/{container.get('name', index)}"
            env = container_env(document, cpath)
            if container.get("modelCommand") == "vllmServe":
                argv = _model_tokens(document)
                tensor = (pool, "parallelism", "tensor")
                if value_at(data, tensor) is not None:
                    span = document.span(tensor)
                    argv += [
                        Token("--tensor-parallel-size", span),
                        Token(str(value_at(data, tensor)), span),
                    ]
                args = value_at(data, (*cpath, "args"))
                for i, value in enumerate(args if isinstance(args, list) else []):
                    argv.append(Token(str(value), document.span((*cpath, "args", i))))
                command = vllm.parse(argv, document.span(cpath), env)
            else:
                command = container_command(document, cpath, env)
            if command is None:
                continue
            count, count_span = reader.container_gpus(cpath, name)
            if data.get("multinode") is True:
                count, count_span = None, None  # pods of one instance: the parallelism decides
            gpu = GpuFacts(count=count, count_span=count_span, labels=_labels(document, pool))
            version = image_version(container.get("image"))
            deployment, findings = build(
                command,
                name=name,
                display=display,
                document=document.index,
                gpu=gpu,
                where=where if isinstance(where, Span) else Span(1, 1),
                engine_version=(version, document.span((*cpath, "image"))) if version else None,
            )
            reader.findings.extend(findings)
            if deployment is not None:
                deployments.append(deployment)
    return deployments, reader.findings
