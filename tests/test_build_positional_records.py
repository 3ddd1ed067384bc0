"""formats.build.build makes the Deployment and its records with positional arguments (a class
called with keywords first makes a dict of them): over every fixture and example, each
deployment it builds equals the one the keyword calls made, field by field, and the records
keep the field order and the plain defaults it relies on."""

from __future__ import annotations

import dataclasses
import sys

from helpers import MANIFESTS

from hbmlint import lint
from hbmlint.formats import FORMATS
from hbmlint.formats import build as build_module
from hbmlint.rules import builtin_rule_files, load_rules
from hbmlint.spec import (
    Deployment,
    GpuSpec,
    ModelRef,
    ParallelSpec,
    ServingSpec,
    SpeculativeSpec,
)

_MODEL_FIELDS = ("name", "dtype", "quantization", "quantization_method")


def _names(record: type) -> list[str]:
    return [f.name for f in dataclasses.fields(record)]


def test_the_records_keep_the_order_build_passes():
    assert _names(Deployment) == [
        *("name", "file", "document", "engine", "engine_version", "gpu", "model"),
        *("parallel", "serving", "speculative", "workload", "locations", "source_format"),
        *("hints", "assumed", "unread", "writer", "placement"),
    ]
    assert _names(GpuSpec) == ["type", "memory", "count", "count_why", "labels", "pods"]
    for record in (ModelRef, ParallelSpec, ServingSpec):
        for spec_field in dataclasses.fields(record):
            assert spec_field.default_factory is dataclasses.MISSING, spec_field.name
            assert spec_field.default is not dataclasses.MISSING, spec_field.name


def _by_keywords(command, kwargs: dict, made: Deployment) -> Deployment:
    """The deployment as build() made it with keyword calls, from the same command and
    arguments (the locations, drafter and notes, which it works out as before, taken from
    ``made``)."""
    sections: dict[str, dict] = {"model": {}, "parallel": {}, "serving": {}}
    for path, value in command.values.items():
        section, _, name = path.partition(".")
        if section == "model" and name not in _MODEL_FIELDS:
            continue
        if section in sections and name in _names(
            {"model": ModelRef, "parallel": ParallelSpec, "serving": ServingSpec}[section]
        ):
            sections[section][name] = value
    gpu = kwargs["gpu"]
    if command.launches > 1 and gpu.count:
        gpu = dataclasses.replace(gpu, count=None, count_span=None)
    engine_version = kwargs.get("engine_version")
    image = kwargs.get("image")
    vendor = build_module._vendor_release(image) if isinstance(image, str) else None
    if vendor is not None and vendor[0] != command.engine:
        engine_version = None
    return Deployment(
        name=kwargs["name"],
        file=kwargs["display"],
        document=kwargs["document"],
        engine=command.engine,
        engine_version=engine_version[0] if engine_version else None,
        gpu=GpuSpec(
            type=gpu.type,
            memory=gpu.memory,
            count=gpu.count,
            labels=list(gpu.labels),
            count_why=gpu.count_why,
            pods=gpu.pods,
        ),
        model=ModelRef(**sections["model"], served_name=build_module._served_name(command.items)),
        parallel=ParallelSpec(**sections["parallel"]),
        serving=ServingSpec(**sections["serving"]),
        speculative=made.speculative,
        locations=made.locations,
        hints=list(kwargs.get("hints") or []),
        writer=made.writer,
        unread={path: span for path, span in command.unread.items() if path != "model.name"},
        assumed=made.assumed,
    )


def test_every_deployment_equals_the_keyword_one(monkeypatch):
    real = build_module.build
    checked = []

    def checking(command, **kwargs):
        made, findings = real(command, **kwargs)
        if made is not None:
            assert "" in made.locations and isinstance(made.speculative, SpeculativeSpec)
            assert all(type(text) is str for text in made.assumed.values())
            assert made.gpu.labels is not kwargs["gpu"].labels  # a copy, as before
            assert made.source_format is None and made.workload is None
            assert made.writer.engine == command.engine
            assert made.writer.items == list(command.items)
            expected = _by_keywords(command, kwargs, made)
            for spec_field in dataclasses.fields(Deployment):
                name = spec_field.name
                assert getattr(made, name) == getattr(expected, name), name
            checked.append(made)
        return made, findings

    list(FORMATS)  # every format module imported, each with its name for build
    for module in list(sys.modules.values()):
        name = getattr(module, "__name__", "")
        if name.startswith("hbmlint.formats") and vars(module).get("build") is real:
            monkeypatch.setattr(module, "build", checking)
    rules, _ = load_rules(builtin_rule_files())
    for path in MANIFESTS:
        lint.lint_file(path, path.name, rules, lint.LintOptions())
    assert len(checked) > 100
    # some deployment sets a field of each record from its command
    assert any(d.serving != ServingSpec() for d in checked)
    assert any(d.parallel != ParallelSpec() for d in checked)
    assert any(d.model.quantization for d in checked)
    assert any(d.model.served_name for d in checked)
    assert any(d.gpu.count for d in checked) and any(d.gpu.labels for d in checked)
    assert any(d.engine_version for d in checked)
