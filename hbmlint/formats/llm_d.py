"""llm-d's ``llm-d-modelservice`` Helm values: ``modelArtifacts`` (``uri: hf://ORG/NAME``,
``name``) and a ``decode`` and a ``prefill`` pool, each with ``parallelism`` (``tensor``,
``data``), ``acceleratorTypes`` (``labelKey`` + ``labelValues``: the node label the pods
require) and ``containers``. A container with ``modelCommand: vllmServe`` (or
``imageDefault``) runs ``vllm serve`` with the model, ``--tensor-parallel-size`` and
``--data-parallel-size`` from ``parallelism`` (``data``, else ``dataLocal`` x ``workers``)
where above 1, then its own ``args`` (llm-d-incubation/llm-d-modelservice
templates/_helpers.tpl); ``modelCommand: custom`` (or none) runs the container's
``command``/``args`` as written, with the chart's ``DP_SIZE``, ``TP_SIZE``, ``DP_SIZE_LOCAL``
(and on a ``multinode`` pool LeaderWorkerSet's ``LWS_*``) in its env. A pool with
``create: false`` is not deployed and not read.

The ``helm template`` output of the chart is plain Kubernetes (Deployments, LeaderWorkerSets)
and is read as such. GPUs: the container's ``nvidia.com/gpu`` limit, else what the chart fills
in (``dataLocal`` x ``tensor`` a pod); a ``multinode: true`` pool is a LeaderWorkerSet whose
one instance spans ``workers`` pods, so their GPUs are counted together.

The chart renders the part of an ``hf://`` URI after the scheme as a template
(``common.tplvalues.render``), so ``hf://{{ .Values.modelArtifacts.name }}`` is read with the
value it names. ``imageDefault`` on the llm-d inference simulator (``llm-d-inference-sim``)
runs no engine and is not read; ``accelerator.type`` other than ``nvidia`` / ``amd`` (Intel
Gaudi and XE, Google TPU, Rebellions ATOM, CPU) runs a vLLM build for that device, which
hbmlint does not budget: an info.
"""

from __future__ import annotations

import re
from typing import Any

from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import vllm
from ..engines.args import Token
from ..spec import Deployment, Label
from ..yamlsrc import Span, YamlDocument
from .build import GpuFacts
from .podspec import (
    Path,
    Reader,
    container_command,
    container_env,
    image_gpu_labels,
    runs_engine,
    value_at,
)

NAME = "llm-d-modelservice"
POOLS = ("decode", "prefill")
# accelerator.type values whose devices hbmlint's catalog holds (the chart's default: nvidia)
GPU_TYPES = ("nvidia", "amd")
_SIMULATOR = "llm-d-inference-sim"
_VALUES_REF = re.compile(r"\{\{-?\s*\.Values\.([A-Za-z0-9_.]+)\s*-?\}\}")


def _pool_containers(data: dict, pool: str) -> list[tuple[int, dict]]:
    items = value_at(data, (pool, "containers"))
    return [
        (i, c)
        for i, c in enumerate(items if isinstance(items, list) else [])
        if isinstance(c, dict)
        and (
            c.get("modelCommand") == "vllmServe"
            or (c.get("modelCommand") == "imageDefault" and _SIMULATOR not in str(c.get("image")))
            or runs_engine(c)
        )
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
        model = _render(data, uri.removeprefix("hf://")).strip('"')
        return [Token("--model", span), Token(model, span)]
    name = value_at(data, ("modelArtifacts", "name"))
    if name is not None:
        span = document.span(("modelArtifacts", "name"))
        return [Token("--model", span), Token(str(name), span)]
    if uri is not None:
        span = document.span(("modelArtifacts", "uri"))
        return [Token("--model", span), Token(str(uri), span)]
    return []


def _render(data: dict, text: str) -> str:
    """``{{ .Values.a.b }}`` replaced by that value of these values, as the chart's
    tplvalues.render does; a reference to nothing (or to a mapping) is left as written."""

    def value(match: re.Match) -> str:
        found = value_at(data, tuple(match.group(1).split(".")))
        return str(found) if isinstance(found, (str, int, float)) else match.group(0)

    return _VALUES_REF.sub(value, text)


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


def _parallelism(reader: Reader, pool: str, name: str) -> dict[str, tuple[int, Span | None]]:
    """The chart's parallelism helpers (templates/_helpers.tpl): tensor, data, dataLocal and
    workers, each derived from the others where the values leave it out, with where it is set."""
    document = reader.document

    def field(key: str) -> tuple[int | None, Span | None]:
        path = (pool, "parallelism", key)
        if value_at(document.data, path) is None:
            return None, None
        return reader.count(path, name), document.span(path)

    tensor, t_span = field("tensor")
    data, d_span = field("data")
    local, l_span = field("dataLocal")
    workers, w_span = field("workers")
    if not data:
        data, d_span = (local * workers, l_span) if local and workers else (local, l_span)
    if not local:
        local, l_span = (data // workers, d_span) if data and workers else (data, d_span)
    if not workers:
        workers, w_span = (data // local, d_span) if data and local else (1, None)
    return {
        "tensor": (tensor or 1, t_span),
        "data": (data or 1, d_span),
        "local": (local or 1, l_span),
        "workers": (workers or 1, w_span),
    }


def _injected(parallel: dict, multinode: bool, where: Span) -> dict[str, Token]:
    """What the chart adds to each container's env (DP_SIZE, TP_SIZE, DP_SIZE_LOCAL), and on a
    multinode pool what LeaderWorkerSet adds (the group is the workers; the leader is index 0)."""
    env = {}
    for key, part in (("DP_SIZE", "data"), ("TP_SIZE", "tensor"), ("DP_SIZE_LOCAL", "local")):
        value, span = parallel[part]
        env[key] = Token(str(value), span or where)
    if multinode:
        workers, span = parallel["workers"]
        runtime = "set by LeaderWorkerSet when the pod starts"
        env["LWS_GROUP_SIZE"] = Token(str(workers), span or where)
        env["LWS_WORKER_INDEX"] = Token("0", span or where)
        env["LWS_LEADER_ADDRESS"] = Token("", span or where, (f"LWS_LEADER_ADDRESS is {runtime}",))
    return env


def to_deployments(
    document: YamlDocument, path: Any, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    data = document.data
    reader = Reader(document, display)
    where = document.span(("modelArtifacts",))
    where = where if isinstance(where, Span) else Span(1, 1)
    multinode = data.get("multinode") is True
    deployments: list[Deployment] = []
    accelerator = value_at(data, ("accelerator", "type"))
    if accelerator is not None and str(accelerator).lower() not in GPU_TYPES:
        reader.findings.append(
            input_diagnostic(
                "HBM014",
                f"accelerator.type {accelerator}: the chart runs vLLM's build for that device, "
                "whose memory hbmlint does not budget (NVIDIA and AMD GPUs only); nothing in this "
                "file was checked",
                display,
                document.span(("accelerator", "type")),
            )
        )
        return [], reader.findings
    for pool in POOLS:
        if not isinstance(data.get(pool), dict) or data[pool].get("create") is False:
            continue
        for index, container in _pool_containers(data, pool):
            cpath: Path = (pool, "containers", index)
            name = pool if index == 0 else f"{pool}/{container.get('name', index)}"
            parallel = _parallelism(reader, pool, name)
            env = container_env(document, cpath)
            env.update(_injected(parallel, multinode, where))  # after the user's: they win
            if container.get("modelCommand") in ("vllmServe", "imageDefault"):
                # what the chart writes: the model, then TP and DP where above 1, then args
                argv = _model_tokens(document)
                for part, flag in (
                    ("tensor", "--tensor-parallel-size"),
                    ("data", "--data-parallel-size"),
                ):
                    value, span = parallel[part]
                    if value > 1:
                        argv += [Token(flag, span or where), Token(str(value), span or where)]
                args = value_at(data, (*cpath, "args"))
                for i, value in enumerate(args if isinstance(args, list) else []):
                    argv.append(Token(str(value), document.span((*cpath, "args", i))))
                command = vllm.parse(argv, document.span(cpath), env)
            else:
                command = container_command(document, cpath, env)
            if command is None:
                continue
            count, count_span = reader.container_gpus(cpath, name)
            if count is None:  # the chart fills the limit in: dataLocal x tensor a pod
                local, tensor = parallel["local"][0], parallel["tensor"][0]
                count = local * tensor
                count_span = parallel["tensor"][1] or parallel["local"][1]
            if multinode and count:
                count *= parallel["workers"][0]  # one instance spans the workers' pods
            labels = _labels(document, pool) + image_gpu_labels(document, cpath)
            if str(accelerator).lower() == "amd":  # the chart asks for amd.com/gpu
                span = document.span(("accelerator", "type"))
                labels.append(Label("amd.com/gpu", "", span))
            gpu = GpuFacts(count=count, count_span=count_span, labels=labels)
            image_span = document.span((*cpath, "image"))
            deployments += reader.build(
                command, name, gpu, where, container.get("image"), image_span
            )
    return deployments, reader.findings
