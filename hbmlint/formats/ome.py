"""OME (sgl-project/ome, ``ome.io``): an ``InferenceService`` names a base model
(``spec.model.name``: a ``ClusterBaseModel`` / ``BaseModel``) and a runtime (``spec.runtime.name``:
a ``ClusterServingRuntime`` / ``ServingRuntime``); the engine command line is in the runtime.

What OME's controller does, and hbmlint with it (pkg/controller/v1beta1/inferenceservice):

- the runtime's ``engineConfig`` (and ``decoderConfig`` for a prefill/decode pair) is merged
  with the service's ``engine`` (``decoder``): the service's fields win, its runner ``args`` are
  appended to the runtime's (utils/merging.go MergeEngineSpec, MergeRuntimeContainers);
- ``MODEL_PATH`` is the base model's ``storage.path``, where OME's agent puts the model; hbmlint
  reads the model from the base model's ``storageUri`` (``hf://ORG/NAME``), at its line;
- ``PARALLELISM_SIZE`` is the GPUs of one pod x (1 leader + ``worker.size`` workers)
  (components/engine.go setParallelismEnvVarForEngine), and a leader/worker runtime is a
  LeaderWorkerSet (``LWS_GROUP_SIZE``, ``LWS_WORKER_INDEX`` 0 on the leader).

Runtimes and base models are read from the same file or from any other file of the run (lint's
pre-pass; values from another file are placed at the service's reference to them). A runtime
alone is a template: read with each service that uses it, an info when none in the run does. A
service that names no runtime gets the one OME picks for the model's architecture and size,
which hbmlint cannot know: an info. GPUs come from the runner's resources and the node labels
the service or runtime requires.
"""

from __future__ import annotations

import json
from typing import Any

from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import read_invocation
from ..engines.args import Token
from ..spec import Deployment
from ..yamlsrc import Span, YamlDocument, load_documents
from .build import GpuFacts
from .kubernetes import document_name
from .multihost import engine_gpus
from .podspec import (
    Elsewhere,
    Path,
    Reader,
    container_env,
    metadata_labels,
    node_labels,
    runs_engine,
    tree_kind,
    value_at,
)

NAME = "ome"
GROUP = "ome.io/"
RUNTIME_KINDS = ("ServingRuntime", "ClusterServingRuntime")
MODEL_KINDS = ("BaseModel", "ClusterBaseModel")
# (the service's component, the runtime's config for it)
COMPONENTS = (("engine", "engineConfig"), ("decoder", "decoderConfig"))
# tree_objects' keys: OME's kinds share names with KServe's, so they carry the group
_TREE = "ome.io/"
USED_BY = "ome.io/InferenceService runtime"
_MODEL_WORDS = ("$(MODEL_PATH)", "${MODEL_PATH}", "$MODEL_PATH")
_AFFINITY = ("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")


def _is_ome(data: Any) -> bool:
    return isinstance(data, dict) and str(data.get("apiVersion", "")).startswith(GROUP)


def detect(data: Any) -> bool:
    return (
        _is_ome(data)
        and data.get("kind") in ("InferenceService", *RUNTIME_KINDS)
        and isinstance(data.get("spec"), dict)
    )


def _name(data: dict) -> str:
    return str(value_at(data, ("metadata", "name")) or "")


def _runtime_used(data: dict) -> str | None:
    """The runtime an OME InferenceService names, "" when it names none, None for no service."""
    if not _is_ome(data) or data.get("kind") != "InferenceService":
        return None
    return str(value_at(data, ("spec", "runtime", "name")) or "")


def tree_objects(text: str) -> dict[tuple[str, str], dict[str, str]]:
    """For the run's pre-pass: the runtimes and base models a file defines (as JSON), and the
    runtimes its services name."""
    found: dict[tuple[str, str], dict[str, str]] = {}
    documents, _ = load_documents(text)
    for document in documents:
        data = document.data
        if not _is_ome(data):
            continue
        if data.get("kind") in (*RUNTIME_KINDS, *MODEL_KINDS) and _name(data):
            found[(_TREE + str(data["kind"]), _name(data))] = {"json": json.dumps(data)}
        used = _runtime_used(data)
        if used:
            found[(USED_BY, used)] = {}
    return found


def read_elsewhere(data: Any) -> bool:
    """A runtime a service of the run uses is checked with that service."""
    if not _is_ome(data) or data.get("kind") not in RUNTIME_KINDS:
        return False
    return _name(data) in {name for name, _ in tree_kind(USED_BY)}


def _find(document: YamlDocument, kinds: tuple[str, ...], name: str, at: Span) -> Any:
    """The object ``name`` of one of ``kinds``: from this file, else from another file of the
    run (an Elsewhere document, every value at ``at``); None when the run has none."""
    documents, _ = load_documents(document.text)
    for other in documents:
        if _is_ome(other.data) and other.data.get("kind") in kinds and _name(other.data) == name:
            return other
    for kind in kinds:  # the namespace's first, then the cluster's, as OME looks them up
        for found, values in tree_kind(_TREE + kind):
            if found == name:
                try:
                    return Elsewhere(json.loads(values.get("json", "")), at)
                except ValueError:
                    return None
    return None


def to_deployments(
    document: YamlDocument, path: Any, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    data = document.data
    reader = Reader(document, display)
    kind = str(data.get("kind"))
    name, where = document_name(document, reader, kind)
    if kind in RUNTIME_KINDS:
        _runtime_alone(reader, name, where)
        return [], reader.findings
    return _service(reader, name, where), reader.findings


def _runner_paths(config: Path) -> list[Path]:
    """Where a component config keeps its runner: alone, or on a leader (multi-node)."""
    return [(*config, "runner"), (*config, "leader", "runner")]


def _runtime_alone(reader: Reader, name: str, where: Span) -> None:
    data = reader.document.data
    if _name(data) in {n for n, _ in tree_kind(USED_BY)}:
        return  # checked with the service that uses it
    documents, _ = load_documents(reader.document.text)
    if any(_runtime_used(d.data) == _name(data) for d in documents):
        return
    runners = [
        value_at(data, ("spec", *runner))
        for _, config in COMPONENTS
        for runner in _runner_paths((config,))
    ]
    if not any(isinstance(r, dict) and runs_engine(r) for r in runners):
        return
    reader.findings.append(
        input_diagnostic(
            "HBM014",
            f"{data.get('kind')} '{name}' is a template: OME runs it for each InferenceService "
            "that names it, with that service's base model and GPUs; no InferenceService in the "
            "files linted uses it, so nothing in it was checked",
            reader.display,
            where,
            name,
            ["Lint it together with the InferenceService that uses it (its file, or a folder)"],
        )
    )


def _service(reader: Reader, name: str, where: Span) -> list[Deployment]:
    document, data = reader.document, reader.document.data
    runtime_name = _runtime_used(data)
    if not runtime_name:
        if value_at(data, ("spec", "predictor")) is None and not _own_runner(data):
            reader.findings.append(
                input_diagnostic(
                    "HBM014",
                    "this InferenceService names no runtime: OME picks one for the base model's "
                    "architecture and size when it is applied, so hbmlint cannot know its "
                    "engine command; nothing in it was checked",
                    reader.display,
                    document.key_span(("spec",)),
                    name,
                    ["Name the runtime in spec.runtime.name and lint its file with this one"],
                )
            )
        return []
    at = document.span(("spec", "runtime", "name"))
    runtime = _find(document, RUNTIME_KINDS, runtime_name, at)
    if runtime is None:
        reader.findings.append(
            input_diagnostic(
                "HBM014",
                f"the engine command line of this InferenceService is in runtime "
                f"'{runtime_name}', which is neither in this file nor in the others linted with "
                "it; nothing in it was checked",
                reader.display,
                at,
                name,
                ["Lint the runtime's file with this one (for example config/runtimes/...)"],
            )
        )
        return []
    model_env = _model_path(reader, name)
    components = [
        (component, config)
        for component, config in COMPONENTS
        if isinstance(value_at(runtime.data, ("spec", config)), dict)
        or isinstance(value_at(data, ("spec", component)), dict)
    ]
    found: list[Deployment] = []
    for component, config in components:
        if component == "decoder" and not isinstance(value_at(data, ("spec", "decoder")), dict):
            continue  # a runtime's decoder runs only for a service that asks for one
        shown = name if len(components) == 1 else f"{name}/{component}"
        found += _component(reader, runtime, component, config, shown, where, model_env)
    return found


def _own_runner(data: dict) -> bool:
    return any(
        isinstance(value_at(data, ("spec", component, "runner")), dict)
        for component, _ in COMPONENTS
    )


def _model_path(reader: Reader, name: str) -> Token:
    """``MODEL_PATH`` as OME sets it, standing for the base model: its ``hf://`` storage URI
    where it has one (the model hbmlint can identify), else its path or URI."""
    document = reader.document
    model = value_at(document.data, ("spec", "model", "name"))
    at = document.span(("spec", "model", "name"))
    if not model:
        origin = "MODEL_PATH is set from spec.model, which this service does not give"
        return Token("", document.key_span(("spec",)), (origin,))
    base = _find(document, MODEL_KINDS, str(model), at)
    if base is None:
        origin = (
            f"MODEL_PATH is the storage path of base model '{model}' (ClusterBaseModel or "
            "BaseModel), which is neither in this file nor in the others linted with it"
        )
        return Token("", at, (origin,))
    for key in ("storageUri", "path"):
        value = value_at(base.data, ("spec", "storage", key))
        if value:
            return Token(str(value), base.span(("spec", "storage", key)))
    return Token("", at, (f"MODEL_PATH: base model '{model}' gives no spec.storage",))


def _words(document: YamlDocument, path: Path, key: str) -> list[Token]:
    """A container's ``command`` or ``args`` as words, each at its line."""
    value = value_at(document.data, (*path, key))
    if isinstance(value, list):
        return [
            Token("" if v is None else str(v), document.span((*path, key, i)))
            for i, v in enumerate(value)
        ]
    return [Token(str(value), document.span((*path, key)))] if value is not None else []


def _component(
    reader: Reader,
    runtime: YamlDocument,
    component: str,
    config: str,
    name: str,
    where: Span,
    model_env: Token,
) -> list[Deployment]:
    document, data = reader.document, reader.document.data
    base: Path = ("spec", config)
    own: Path = ("spec", component)
    # a leader (multi-node) runner where the runtime or the service has one, else the runner
    leader = isinstance(value_at(runtime.data, (*base, "leader", "runner")), dict) or isinstance(
        value_at(data, (*own, "leader", "runner")), dict
    )
    sub: Path = ("leader", "runner") if leader else ("runner",)
    rpath, spath = (*base, *sub), (*own, *sub)
    runner = value_at(runtime.data, rpath)
    mine = value_at(data, spath)
    runner = runner if isinstance(runner, dict) else {}
    mine = mine if isinstance(mine, dict) else {}
    if not runner and not mine:
        return []
    # the service's command where it sets one; args: the runtime's, then the service's
    argv = _words(document, spath, "command") if "command" in mine else []
    argv = argv or _words(runtime, rpath, "command")
    argv += _words(runtime, rpath, "args") + _words(document, spath, "args")
    # the workers of one engine instance: the service's size, else the runtime's
    size, size_span = 0, None
    for holder, wpath in (
        (document, (*own, "worker", "size")),
        (runtime, (*base, "worker", "size")),
    ):
        if value_at(holder.data, wpath) is not None:
            size = Reader(holder, reader.display).count(wpath, name) or 0
            size_span = holder.span(wpath)
            break
    per_pod, count_span = reader.container_gpus(spath, name)
    if per_pod is None:
        per_pod, count_span = Reader(runtime, reader.display).container_gpus(rpath, name)
    span = count_span or where
    env: dict[str, Token] = {"MODEL_PATH": model_env}
    if per_pod:
        env["PARALLELISM_SIZE"] = Token(str(per_pod * (1 + size)), span)
    if leader:  # a LeaderWorkerSet of 1 leader and `size` workers; the engine runs on the leader
        group = size_span or span
        env["LWS_GROUP_SIZE"] = Token(str(1 + size), group)
        env["LWS_WORKER_INDEX"] = Token("0", group)
        env["LWS_LEADER_ADDRESS"] = Token(
            "", group, ("LWS_LEADER_ADDRESS is set by LeaderWorkerSet when the pod starts",)
        )
    env.update(container_env(runtime, rpath))
    env.update(container_env(document, spath))
    # the model's own word, at the base model's line (or saying where it is to be found)
    argv = _model_words(argv, env["MODEL_PATH"])
    # a script's words are found in the file that holds them (elsewhere: at the reference)
    text = "" if isinstance(runtime, Elsewhere) else document.text
    if "image" in mine:
        image, image_span = mine.get("image"), document.span((*spath, "image"))
    else:
        image, image_span = runner.get("image"), runtime.span((*rpath, "image"))
    entry = image if "command" not in mine and "command" not in runner else None
    command = read_invocation(argv, env, text, image=entry, image_span=image_span)
    if command is None:
        return []
    labels = []
    for holder, pod in (
        (runtime, base),
        (runtime, (*base, "leader")),
        (document, own),
        (document, (*own, "leader")),
    ):
        terms = (*pod, *_AFFINITY, "nodeSelectorTerms")
        labels += node_labels(holder, (*pod, "nodeSelector"), terms)
    gpu = GpuFacts(count=per_pod, count_span=count_span, labels=labels)
    if per_pod:
        gpu.count = engine_gpus(command, per_pod, per_pod * (1 + size))
    hints = metadata_labels(document, ("metadata",))
    return reader.build(command, name, gpu, where, image, image_span, hints)


def _model_words(argv: list[Token], model: Token) -> list[Token]:
    """``$(MODEL_PATH)`` as the model's own word (``--model-path X`` as one word), so the model
    is located at the base model's line rather than at the runtime's flag."""
    out: list[Token] = []
    for token in argv:
        if token.text not in _MODEL_WORDS:
            out.append(token)
        elif out and out[-1].text.startswith("--") and "=" not in out[-1].text:
            flag = out.pop()
            out.append(Token(f"{flag.text}={model.text}", model.span, model.unresolved))
        else:
            out.append(model)
    return out
