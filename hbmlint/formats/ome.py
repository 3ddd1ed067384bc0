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
service that names no runtime gets the one OME picks among the runtimes of the run for its base
model (pkg/runtimeselector: not disabled, a format with ``autoSelect``, the model's format,
framework, architecture and quantization, ``modelSizeRange`` holding ``modelParameterSize``;
the highest priority, then the range nearest the size), read at the service's ``model.name``;
where the run holds no such runtime, or several rank alike, an info names them, never a guess.
GPUs come from the runner's resources and the node labels the service or runtime requires.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
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
    image_gpu_labels,
    metadata_labels,
    node_labels,
    object_elsewhere,
    object_name,
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
AUTO = "ome.io/InferenceService auto"  # a service naming no runtime: its base model
_MODEL_WORDS = ("$(MODEL_PATH)", "${MODEL_PATH}", "$MODEL_PATH")
_AFFINITY = (
    "affinity",
    "nodeAffinity",
    "requiredDuringSchedulingIgnoredDuringExecution",
)


def _is_ome(data: Any) -> bool:
    return isinstance(data, dict) and str(data.get("apiVersion", "")).startswith(GROUP)


def detect(data: Any) -> bool:
    return (
        _is_ome(data)
        and data.get("kind") in ("InferenceService", *RUNTIME_KINDS)
        and isinstance(data.get("spec"), dict)
    )


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
        if data.get("kind") in (*RUNTIME_KINDS, *MODEL_KINDS) and object_name(data):
            # default=str: a date YAML read (version: 2024-05-01) is kept as its text
            found[(_TREE + str(data["kind"]), object_name(data))] = {
                "json": json.dumps(data, default=str)
            }
        used = _runtime_used(data)
        if used:
            found[(USED_BY, used)] = {}
        elif used == "" and object_name(data):
            model = value_at(data, ("spec", "model", "name"))
            found[(AUTO, object_name(data))] = {"model": str(model or "")}
    return found


def read_elsewhere(data: Any) -> bool:
    """A runtime a service of the run uses (by name, or as OME picks it) is checked with that
    service."""
    if not _is_ome(data) or data.get("kind") not in RUNTIME_KINDS:
        return False
    return object_name(data) in {name for name, _ in tree_kind(USED_BY)} or _auto_selected(data)


# ---------------------------------------------------------------- OME's runtime selection


def _size(text: Any) -> float:
    """A parameter count as OME parses it (``32B``, ``500M``, ``1.5T``); 0 when unreadable."""
    text = str(text or "").strip()
    scale = {"T": 1e12, "B": 1e9, "M": 1e6}.get(text[-1:], 1.0)
    try:
        return float(text.rstrip("TBM")) * scale
    except ValueError:
        return 0.0


def _versions_match(runtime: dict, model: dict) -> bool:
    """OME's version check: both given and equal (``operator: Equal``, the default), or the
    model's at least the runtime's (``GreaterThan(OrEqual)``); one given alone does not match."""
    want, have = runtime.get("version"), model.get("version")
    if want is None or have is None:
        return want is None and have is None
    if str(runtime.get("operator") or "Equal") == "Equal":
        return str(want).lstrip("v") == str(have).lstrip("v")
    try:
        a = tuple(int(p) for p in str(want).lstrip("v").split("."))
        b = tuple(int(p) for p in str(have).lstrip("v").split("."))
    except ValueError:
        return False
    return len(a) == len(b) and (b > a if runtime.get("operator") == "GreaterThan" else b >= a)


def _format_matches(fmt: dict, model: dict) -> bool:
    """pkg/runtimeselector matcher.go compareSupportedModelFormats."""
    for key in ("modelArchitecture", "quantization"):
        if (fmt.get(key) is None) != (model.get(key) is None) or fmt.get(key) != model.get(key):
            return False
    mine, theirs = fmt.get("modelFormat"), model.get("modelFormat")
    if not isinstance(mine, dict) or not isinstance(theirs, dict):
        return False
    if mine.get("name") != theirs.get("name") or not _versions_match(mine, theirs):
        return False
    mine, theirs = fmt.get("modelFramework"), model.get("modelFramework")
    if isinstance(mine, dict) and isinstance(theirs, dict):
        return mine.get("name") == theirs.get("name") and _versions_match(mine, theirs)
    return mine is None and theirs is None


# pkg/runtimeselector types.go DefaultConfig: weights of a format and a framework match
_FORMAT_WEIGHT, _FRAMEWORK_WEIGHT, _PRIORITY = 10, 5, 1


def _number(value: Any, default: float) -> float:
    """A priority or weight as the CRD's integer field holds it; the default where the file
    writes something else (the API server would refuse it; here it only ranks runtimes)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    return number if math.isfinite(number) else default


def _score(fmt: dict, model: dict) -> float:
    """scorer.go CalculateFormatScore: the weights of the format and framework matches times
    the format's priority; 0 when either is named and does not match."""
    priority = _number(fmt.get("priority") or _PRIORITY, _PRIORITY)
    score = 0.0
    mine, theirs = fmt.get("modelFormat"), model.get("modelFormat")
    if isinstance(mine, dict):
        theirs = theirs if isinstance(theirs, dict) else {}
        if mine.get("name") != theirs.get("name"):
            return 0.0
        both = mine.get("version") is not None and theirs.get("version") is not None
        if both and not _versions_match(mine, theirs):
            return 0.0
        score += _number(mine.get("weight") or _FORMAT_WEIGHT, _FORMAT_WEIGHT) * priority
    mine, theirs = fmt.get("modelFramework"), model.get("modelFramework")
    if isinstance(mine, dict) and isinstance(theirs, dict):
        if mine.get("name") != theirs.get("name"):
            return 0.0
        both = mine.get("version") is not None and theirs.get("version") is not None
        if both and not _versions_match(mine, theirs):
            return 0.0
        score += _number(mine.get("weight") or _FRAMEWORK_WEIGHT, _FRAMEWORK_WEIGHT) * priority
    elif mine is not None or theirs is not None:
        return 0.0
    return score


def _rank(runtime: dict, model: dict) -> tuple[float, float, int] | None:
    """How OME ranks a runtime for ``model`` (higher first: score, nearness of the size range,
    namespaced before cluster-wide); None when it cannot pick it (disabled, no auto-selected
    format, no compatible format, outside its sizes, a score of 0)."""
    spec = runtime.get("spec") if isinstance(runtime.get("spec"), dict) else {}
    formats = [f for f in spec.get("supportedModelFormats") or () if isinstance(f, dict)]
    if spec.get("disabled") is True or not any(f.get("autoSelect") is True for f in formats):
        return None
    if not any(_format_matches(f, model) for f in formats):
        return None
    size, sizes = model.get("modelParameterSize"), spec.get("modelSizeRange")
    distance = 0.0
    if size is not None and isinstance(sizes, dict):
        low, high, have = _size(sizes.get("min")), _size(sizes.get("max")), _size(size)
        if not low <= have <= high:
            return None
        distance = abs(low - have) + abs(high - have)
    scores = [_score(f, model) for f in formats if f.get("autoSelect") is not False]
    score = max(scores, default=0.0)
    if score <= 0:
        return None
    return score, -distance, int(runtime.get("kind") == "ServingRuntime")


def _run_runtimes(document: YamlDocument | None) -> list[tuple[str, dict, Any]]:
    """Every runtime of the run: (name, object, the document here or None), this file's first."""
    found: list[tuple[str, dict, Any]] = []
    seen = set()
    if document is not None:
        documents, _ = load_documents(document.text)
        for other in documents:
            if _is_ome(other.data) and other.data.get("kind") in RUNTIME_KINDS:
                found.append((object_name(other.data), other.data, other))
                seen.add(object_name(other.data))
    for kind in RUNTIME_KINDS:
        for name, values in tree_kind(_TREE + kind):
            data = _parsed(values.get("json", ""))
            if name not in seen and data is not None:
                found.append((name, data, None))
    return found


@lru_cache(maxsize=4096)
def _parsed(text: str) -> dict | None:
    """An object of another file of the run, parsed once however often it is looked at (the
    caller must not change it)."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def select_runtime(model: dict, document: YamlDocument | None) -> tuple[list[str], Any]:
    """The runtimes OME ranks first for base model spec ``model`` (several when they tie), and
    the chosen one's (name, object, document) when exactly one ranks first, else None."""
    return _select(model, _run_runtimes(document))


def _select(
    model: dict, runtimes: list[tuple[str, dict, Any]]
) -> tuple[list[str], tuple[str, dict, Any] | None]:
    """The runtimes ranked first for ``model`` and OME's pick among them (the name earliest in
    order, selector.go sortMatches), or ([], None) when none can serve it."""
    ranked = []
    for name, data, here in runtimes:
        rank = _rank(data, model)
        if rank is not None:
            ranked.append((rank, name, data, here))
    if not ranked:
        return [], None
    ranked.sort(key=lambda item: (tuple(-r for r in item[0]), item[1]))
    best = ranked[0][0]
    return [name for rank, name, _, _ in ranked if rank == best], ranked[0][1:]


def _auto_selected(runtime: dict) -> bool:
    """Whether OME picks ``runtime`` for some service of the run that names none."""
    models = tuple(sorted({values.get("model", "") for _, values in tree_kind(AUTO)}))
    if not models:
        return False
    runtimes = tuple(
        sorted(
            values.get("json", "")
            for kind in RUNTIME_KINDS
            for _, values in tree_kind(_TREE + kind)
        )
    )
    bases = tuple(
        sorted(
            (name, values.get("json", ""))
            for kind in MODEL_KINDS
            for name, values in tree_kind(_TREE + kind)
            if name in models
        )
    )
    return object_name(runtime) in _picked(runtimes, bases)


@lru_cache(maxsize=8)
def _picked(runtimes: tuple[str, ...], bases: tuple[tuple[str, str], ...]) -> frozenset[str]:
    """The runtimes OME picks for these base models among these runtimes (each as JSON)."""
    found = [(object_name(d), d, None) for d in map(_parsed, runtimes) if d is not None]
    picked = set()
    for _, text in bases:
        spec = (_parsed(text) or {}).get("spec")
        if isinstance(spec, dict):
            _, chosen = _select(spec, found)
            if chosen is not None:
                picked.add(chosen[0])
    return frozenset(picked)


def _find(document: YamlDocument, kinds: tuple[str, ...], name: str, at: Span) -> Any:
    """The object ``name`` of one of ``kinds``: from this file, else from another file of the
    run (an Elsewhere document, every value at ``at``); None when the run has none."""
    documents, _ = load_documents(document.text)
    for other in documents:
        if (
            _is_ome(other.data)
            and other.data.get("kind") in kinds
            and object_name(other.data) == name
        ):
            return other
    # the namespace's first, then the cluster's, as OME looks them up
    return object_elsewhere(kinds, name, at, _TREE)


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
    if object_name(data) in {n for n, _ in tree_kind(USED_BY)}:
        return  # checked with the service that uses it
    documents, _ = load_documents(reader.document.text)
    if any(_runtime_used(d.data) == object_name(data) for d in documents) or _auto_selected(data):
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
    runtime: Any = None
    picked = None
    if not runtime_name:
        if value_at(data, ("spec", "predictor")) is not None or _own_runner(data):
            return []
        auto = _auto_runtime(reader, name)
        if auto is None:
            return []
        runtime, picked = auto
    else:
        at = document.span(("spec", "runtime", "name"))
        runtime = _find(document, RUNTIME_KINDS, runtime_name, at)
        if runtime is None:
            reader.findings.append(
                input_diagnostic(
                    "HBM014",
                    f"the engine command line of this InferenceService is in runtime "
                    f"'{runtime_name}', which is neither in this file nor in the others linted "
                    "with it; nothing in it was checked",
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
    for deployment in found if picked else ():
        deployment.assumed["runtime"] = picked
    return found


def _auto_runtime(reader: Reader, name: str) -> tuple[Any, str] | None:
    """The runtime OME picks for a service that names none, as a document (another file's
    values at the service's ``model.name``); None, with an info saying why, when the run does
    not decide it."""
    document = reader.document
    model = value_at(document.data, ("spec", "model", "name"))
    at = document.span(("spec", "model", "name")) if model else document.key_span(("spec",))
    base = _find(document, MODEL_KINDS, str(model), at) if model else None
    spec = value_at(base.data, ("spec",)) if base is not None else None
    names, chosen = select_runtime(spec, document) if isinstance(spec, dict) else ([], None)
    if chosen is not None:
        picked, data, here = chosen
        others = sorted(n for n in names if n != picked)
        note = (
            f"{picked} (the runtime OME's selector picks for base model '{model}' by format, "
            "architecture and size range"
            + (f"; before {', '.join(others)}, which rank alike, by name)" if others else ")")
        )
        return (here if here is not None else Elsewhere(data, at)), note
    if not isinstance(spec, dict):
        why = (
            f"its base model '{model}' is neither in this file nor in the others linted with it"
            if model
            else "it names no base model (spec.model.name)"
        )
    elif not spec.get("modelFormat") or not spec.get("modelArchitecture"):
        why = (
            f"base model '{model}' gives no modelFormat or modelArchitecture (OME's model agent "
            "fills them in from the checkpoint it downloads)"
        )
    else:
        why = "no runtime of the files linted can serve its base model"
    reader.findings.append(
        input_diagnostic(
            "HBM014",
            "this InferenceService names no runtime: OME picks one for the base model's "
            f"format, architecture and size when it is applied, and {why}, so hbmlint cannot "
            "know its engine command; nothing in it was checked",
            reader.display,
            at,
            name,
            [
                "Name the runtime in spec.runtime.name, or lint the runtimes and base models "
                "with this file (config/runtimes, config/models)"
            ],
        )
    )
    return None


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
    gpus_from: tuple[YamlDocument, Path] = (document, spath)
    if per_pod is None:
        per_pod, count_span = Reader(runtime, reader.display).container_gpus(rpath, name)
        gpus_from = (runtime, rpath)
    span = count_span or where
    env: dict[str, Token] = {"MODEL_PATH": model_env}
    if per_pod:
        env["PARALLELISM_SIZE"] = Token(str(per_pod * (1 + size)), span)
    if leader:  # a LeaderWorkerSet of 1 leader and `size` workers; the engine runs on the leader
        group = size_span or span
        env["LWS_GROUP_SIZE"] = Token(str(1 + size), group)
        env["LWS_WORKER_INDEX"] = Token("0", group)
        env["LWS_LEADER_ADDRESS"] = Token(
            "",
            group,
            ("LWS_LEADER_ADDRESS is set by LeaderWorkerSet when the pod starts",),
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
    # an amd.com/gpu request runs on an AMD GPU: not budgeted on a default GPU of NVIDIA's
    labels += image_gpu_labels(*gpus_from)
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
