"""The hbmlint ServingManifest (apiVersion hbmlint/v1), validated by its JSON Schema
(schemas/manifest.schema.json)."""

from __future__ import annotations

import weakref
from dataclasses import MISSING, fields
from functools import cache
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic, input_diagnostic
from ..schema import validate
from ..spec import (
    METHOD_ALIASES,
    Deployment,
    GpuSpec,
    ModelRef,
    ParallelSpec,
    ServingSpec,
    SpeculativeSpec,
    WorkloadSpec,
)
from ..units import UnitError, parse_quantity
from ..yamlsrc import YamlDocument

NAME = "hbmlint"
# the project's own spelling of TensorRT-LLM, which the schema also takes
_ENGINE_NAMES = {"tensorrt-llm": "trtllm", "tensorrt_llm": "trtllm"}


def detect(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and str(data.get("apiVersion", "")).startswith("hbmlint/")
        and data.get("kind") == "ServingManifest"
    )


def to_deployments(
    document: YamlDocument, path: Path, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    _fill_kept()
    findings = validate(document, "manifest", display)
    if findings:
        return [], findings
    data = document.data
    spec = data["spec"]
    name = (data.get("metadata") or {}).get("name") or f"{Path(display).stem}[{document.index}]"
    locations = _Locations(document, ("metadata", "name") if "metadata" in data else ())

    gpu = spec.get("gpu", {})
    memory = None
    if "memory" in gpu:
        try:
            memory = parse_quantity(gpu["memory"], "[information]")
        except UnitError as exc:
            findings.append(
                input_diagnostic(
                    "HBM004", f"gpu.memory: {exc}", display, document.span("spec.gpu.memory"), name
                )
            )
        else:
            if memory.magnitude <= 0:
                findings.append(
                    input_diagnostic(
                        "HBM004",
                        f"gpu.memory: {gpu['memory']} must be more than zero",
                        display,
                        document.span("spec.gpu.memory"),
                        name,
                    )
                )
                memory = None
    if findings:
        return [], findings

    serving = spec.get("serving", {})
    parallel = spec.get("parallel", {})
    speculative = spec.get("speculative")
    workload = spec.get("workload")
    # the records' fields in their order, not by name: a class called with keywords first
    # makes a dict of them (about half of making a Deployment)
    deployment = Deployment(
        str(name),  # name
        display,  # file
        document.index,  # document
        _ENGINE_NAMES.get(spec.get("engine", "vllm"), spec.get("engine", "vllm")),  # engine
        spec.get("engine_version"),  # engine_version
        GpuSpec(gpu.get("type"), memory, gpu.get("count")),  # gpu
        _model_ref(spec["model"], path),  # model
        ParallelSpec(parallel.get("tensor"), parallel.get("pipeline")),  # parallel
        _serving(serving),  # serving
        _speculative(speculative, path),  # speculative
        WorkloadSpec(**workload) if workload else None,  # workload
        locations,  # locations
    )
    deployment.writer = _FieldWriter()  # fixes edit spec.<field> in place
    drafter = deployment.speculative
    if drafter.token_map and not drafter.hot_vocab_size:
        from ..engines.sglang import token_map_assumption, token_map_vocab

        if token_map_vocab(drafter.token_map):
            drafter.hot_vocab_size = token_map_vocab(drafter.token_map)
            note = token_map_assumption(drafter.token_map)
            deployment.assumed["speculative.hot_vocab_size"] = note
    return [deployment], []


def _field_locations(document: YamlDocument, name_path: tuple) -> dict[str, Any]:
    """Where each field under ``spec`` is written, by its field name, and "" the manifest's
    name (at ``name_path``). A scalar field points at its value; a mapping such as
    `workload:` at its key's line."""
    locations: dict[str, Any] = {}
    for key, span in document.field_spans("spec"):
        field = _FIELD_NAMES.get(key) or _field_name(key)  # known paths without a call
        locations[field] = span
    locations[""] = document.span(name_path)
    return locations


class _Locations(dict):
    """A manifest deployment's ``locations`` (_field_locations), recorded from the document
    when the dict is first used: only a finding at a field, or a fix, asks where one is, and
    most deployments have none (the spans of every field were a third of reading a manifest).
    Every method and operator fills it first, so it reads as that dict in every way; a copy
    or a pickle of it is that plain dict. (The document's spans do not change once it is read:
    a later fill records what reading it would have.)"""

    __slots__ = ("_document", "_name_path", "__weakref__")

    def __init__(self, document: YamlDocument, name_path: tuple) -> None:
        self._document: YamlDocument | None = document
        self._name_path = name_path
        _UNFILLED.append(weakref.ref(self))

    def _filled(self) -> _Locations:
        document = self._document
        if document is not None:
            self._document = None  # first, so the fill's own use of the dict does not recurse
            dict.update(self, _field_locations(document, self._name_path))
        return self

    def __reduce__(self) -> tuple:
        return dict, (dict.copy(self._filled()),)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _Locations):
            other._filled()  # dict's comparison reads the other's entries directly
        return dict.__eq__(self._filled(), other)

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # type: ignore[assignment]


# The dicts made since the last manifest was read. A plain lint drops each deployment's
# locations once its rules have run (lint._thin); one that keeps its results (a budget view)
# would keep every document alive with them: those still held are filled when the next
# manifest is read, so at most one file's documents are kept for them.
_UNFILLED: list[weakref.ref] = []


def _fill_kept() -> None:
    for ref in _UNFILLED:
        kept = ref()
        if kept is not None:
            kept._filled()
    _UNFILLED.clear()


def _filling(name: str) -> Any:
    """dict's method ``name``, on the dict filled first."""
    method = getattr(dict, name)

    def filled(self: _Locations, *args: Any, **kwargs: Any) -> Any:
        return method(self._filled(), *args, **kwargs)

    filled.__name__ = filled.__qualname__ = name
    return filled


for _name in (
    *("__contains__", "__getitem__", "__setitem__", "__delitem__", "__iter__", "__reversed__"),
    *("__len__", "__or__", "__ror__", "__ior__", "__repr__", "__sizeof__"),
    *("clear", "copy", "get", "items", "keys", "pop", "popitem", "setdefault", "update", "values"),
):
    setattr(_Locations, _name, _filling(_name))


# every ServingSpec field None (the manifest's own default), not the dataclass's defaults
_SERVING_UNSET = dict.fromkeys(ServingSpec.__dataclass_fields__)
# the fields whose dataclass default is not None (an empty tuple): given as None with the fields
# the manifest gives (naming all three dozen fields a call cost more than the rest of reading
# the section)
_SERVING_NOT_NONE = tuple(
    name
    for name, spec_field in ServingSpec.__dataclass_fields__.items()
    if spec_field.default is not None or spec_field.default_factory is not MISSING
)


_SERVING_NONE = dict.fromkeys(_SERVING_NOT_NONE)


def _serving(serving: dict) -> ServingSpec:
    """The serving settings: each field the manifest gives, None for every other one."""
    if serving.keys() <= _SERVING_UNSET.keys():  # every key a field (a valid manifest's)
        return ServingSpec(**{**_SERVING_NONE, **serving})
    given = {key: value for key, value in serving.items() if key in _SERVING_UNSET}
    return ServingSpec(**{**_SERVING_NONE, **given})


# field names by the path of their value, for every manifest of a run: a valid manifest's paths
# under spec are the schema's (additionalProperties: false), a few dozen; bounded all the same
_FIELD_NAMES: dict[tuple, str] = {}


def _field_name(path: tuple) -> str:
    """``spec.serving.max_model_len``'s field name, ``serving.max_model_len``."""
    name = _FIELD_NAMES.get(path)
    if name is None:
        name = ".".join(map(str, path[1:]))
        if len(_FIELD_NAMES) < 4096:
            _FIELD_NAMES[path] = name
    return name


class _FieldWriter:
    """rewrite.FieldWriter, imported when a fix is written: rewrite.py imports the engines'
    argument readers, which a run over hbmlint's own manifests otherwise never needs."""

    def __getattr__(self, name: str) -> Any:
        return getattr(_field_writer()(), name)


@cache
def _field_writer() -> type:
    """rewrite.FieldWriter, imported once: an import in a function costs every call."""
    from ..rewrite import FieldWriter

    return FieldWriter


def _model_ref(entry: dict, manifest: Path) -> ModelRef:
    config = entry.get("config")
    return ModelRef(
        entry.get("name") if "name" in entry else entry.get("model"),
        # beside the manifest; its folder found only for a config (pathlib's parent is a new
        # path object, every manifest)
        (manifest.parent / config) if config else None,
        entry.get("dtype"),
        entry.get("quantization"),
    )


# the drafter's fields after its method and model, each as the manifest writes it (None where it
# does not), in the record's order
_SPECULATIVE_AS_WRITTEN = tuple(spec_field.name for spec_field in fields(SpeculativeSpec))[2:]


def _speculative(entry: dict | None, manifest: Path) -> SpeculativeSpec:
    if not entry:
        return SpeculativeSpec()
    has_model = "model" in entry or "config" in entry
    return SpeculativeSpec(
        METHOD_ALIASES.get(entry["method"], entry["method"]),
        _model_ref(entry, manifest) if has_model else None,
        *map(entry.get, _SPECULATIVE_AS_WRITTEN),
    )
