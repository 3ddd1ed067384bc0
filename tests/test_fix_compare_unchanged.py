"""Fix verification compares the edited file's deployment with the unedited one with the
changes made. It used to build both plain forms whole; it now builds them only for the fields
the changes touch, comparing each other field first by its own equality (an edit leaves most
of a deployment as it was) and in plain form where that says no. The answer must be the one
the plain forms give: here over every fix of the fixtures, the examples and 300 generated files,
and for deployments read back with each of their fields changed in turn."""

from __future__ import annotations

import copy
import dataclasses
import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO

from hbmlint import fixes, lint
from hbmlint.diagnostics import Edit
from hbmlint.fixes import FixContext, _comparable, _with_field
from hbmlint.rewrite import WEIGHTLESS
from hbmlint.rules import load_rules
from hbmlint.spec import (
    DRAFT_ONLY_FIELDS,
    Deployment,
    GpuSpec,
    Label,
    ModelRef,
    ParallelSpec,
    ServingSpec,
    SpeculativeSpec,
    WorkloadSpec,
)
from hbmlint.yamlsrc import Span, YamlDocument


def _in_plain_form(context: FixContext, edits: list[Edit], changes: dict[str, Any]) -> bool:
    """What reads_as answered when it compared the plain forms whole."""
    before = context._before
    after = context._nth(fixes.apply_edits(context.text, context._source, edits), edits)
    if before is None or after is None:
        return False
    expected = before
    for path, value in changes.items():
        expected = _with_field(expected, path, value)
    return expected == _comparable(after)


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _corpus(directory: Path, monkeypatch) -> list[Path]:
    """speed.py's corpus: its first 300 files."""
    name = "hbmlint_speed_benchmark"
    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / "speed.py")
    assert spec is not None and spec.loader is not None
    speed = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, speed)  # its dataclasses look their module up
    spec.loader.exec_module(speed)
    return speed.generate(directory, 300)


def test_every_fix_is_judged_as_the_plain_forms_judge_it(rules, monkeypatch, tmp_path):
    checked = []
    reads_as = FixContext.reads_as

    def both(self, edits, changes, file):
        answer = reads_as(self, edits, changes, file)
        assert answer == _in_plain_form(self, edits, changes)
        checked.append(answer)
        for path, value in changes.items():  # a change the edits do not make: refused
            other = {**changes, path: f"not {value}"}
            assert reads_as(self, edits, other, file) == _in_plain_form(self, edits, other)
            assert not reads_as(self, edits, other, file)
        return answer

    monkeypatch.setattr(FixContext, "reads_as", both)
    paths = [
        path
        for folder in (REPO / "tests" / "fixtures", REPO / "examples")
        for path in sorted(folder.rglob("*"))
        if path.suffix in (".yaml", ".yml")
    ]
    for path in [*paths, *_corpus(tmp_path, monkeypatch)]:
        lint.lint_file(path, path.name, rules)
    assert len(checked) > 50 and any(checked)


# --- a deployment read back with one field changed ----------------------------------------


def _deployment() -> Deployment:
    return Deployment(
        name="d",
        file="f.yaml",
        engine_version="0.9.0",
        gpu=GpuSpec(type="H100", count=2, labels=[Label("gpu", "h100", Span(3, 5, 3, 9))]),
        model=ModelRef(name="Qwen/Qwen3-8B", dtype="bfloat16"),
        parallel=ParallelSpec(tensor=2, whole_parts=("dp_lm_head",)),
        serving=ServingSpec(max_model_len=8192, kv_cache_dtype="auto", human_readable=("a",)),
        speculative=SpeculativeSpec(
            method="draft_model", model=ModelRef(name="Qwen/Qwen3-0.6B"), num_speculative_tokens=4
        ),
        workload=WorkloadSpec(concurrency=8),
        locations={"serving.max_model_len": Span(7, 3)},
        hints=[Label("model", "x", Span(2, 2))],
        assumed={"serving.gpu_memory_utilization": "the chart's default"},
        unread={"serving.max_num_seqs": Span(9, 9, 9, 12)},
    )


def _variants(value: Any, where: str) -> list[tuple[str, Any]]:
    """``value`` with one of its leaves changed, each way, with where."""
    found: list[tuple[str, Any]] = []
    if isinstance(value, Span):
        found.append((where, Span(value.line + 1, value.column)))
    elif dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            for inner, changed in _variants(getattr(value, f.name), f"{where}.{f.name}"):
                copied = copy.copy(value)
                setattr(copied, f.name, changed)
                found.append((inner, copied))
    elif isinstance(value, (list, tuple)):
        found.append((f"{where}+", type(value)([*value, value[0] if value else "x"])))
        found.append(
            (
                f"{where}:{type(value).__name__}",
                list(value) if type(value) is tuple else tuple(value),
            )
        )
        for i, item in enumerate(value):
            for inner, changed in _variants(item, f"{where}[{i}]"):
                items = list(value)
                items[i] = changed
                found.append((inner, type(value)(items)))
    elif isinstance(value, dict):
        found.append((f"{where}+", {**value, "extra": "x"}))
        for key, item in value.items():
            for inner, changed in _variants(item, f"{where}[{key}]"):
                found.append((inner, {**value, key: changed}))
    elif isinstance(value, bool) or value is None:
        found.append((where, not value if value is not None else 1))
    elif isinstance(value, (int, float)):
        found += [
            (where, value + 1),
            (f"{where}~float", float(value)),
            (f"{where}~nan", float("nan")),
        ]
    elif isinstance(value, str):
        found.append((where, value + "!"))
    return found


def _context(before: Deployment, after: Deployment) -> FixContext:
    text = "spec:\n  serving:\n    max_model_len: 8192\n"
    document = YamlDocument(data={"spec": {"serving": {"max_model_len": 8192}}}, index=0)
    return FixContext(text, document, lambda edited: [after], 0, before)


def _changed(deployment: Deployment, changes: dict[str, Any]) -> Deployment:
    """``deployment`` with ``changes`` made, as a reader would read the edited file."""
    changed = copy.deepcopy(deployment)
    for path, value in changes.items():
        *parts, last = fixes._ATTRIBUTES.get(path, tuple(path.split(".")))
        target = changed
        for part in parts:
            target = getattr(target, part)
        setattr(target, last, value)
        if path == "speculative.method" and value in WEIGHTLESS:
            for name in DRAFT_ONLY_FIELDS:
                setattr(changed.speculative, name, None)
    return changed


EDITS = [Edit("f.yaml", 3, 20, 3, 24, "4096")]
CHANGES = [
    {},
    {"serving.max_model_len": 4096},
    {"speculative.quantization": "fp8"},
    {"speculative.method": "ngram"},
    {"serving.kv_cache_dtype": "fp8", "parallel.tensor": 4},
]


@pytest.mark.parametrize("changes", CHANGES, ids=str)
def test_a_deployment_read_back_with_any_field_changed(changes):
    before = _deployment()
    changed = _changed(before, changes)
    assert _context(before, changed).reads_as(EDITS, changes, "f.yaml")
    variants = _variants(changed, "deployment")
    assert len(variants) > 100
    answers = set()
    for where, after in variants:
        context = _context(before, after)
        answer = context.reads_as(EDITS, changes, "f.yaml")
        assert answer == _in_plain_form(_context(before, after), EDITS, changes), where
        answers.add(answer)
    assert answers == {False, True}  # positions only: the same settings
    # a position alone is no change, nor a field the check leaves out
    same = copy.deepcopy(before)
    same.gpu.labels[0] = Label("gpu", "h100", Span(1, 1))
    same.unread = {"serving.max_num_seqs": Span(1, 1)}
    same.locations, same.hints = {}, []
    assert _context(before, same).reads_as(EDITS, {}, "f.yaml")


@pytest.mark.parametrize(
    "kind", [GpuSpec, ModelRef, ParallelSpec, ServingSpec, SpeculativeSpec, WorkloadSpec, Label]
)
def test_the_settings_records_compare_every_field(kind):
    """reads_as takes two equal records for equal plain forms: their equality must see every
    field."""
    assert {GpuSpec, ModelRef, ParallelSpec, ServingSpec} <= fixes._SETTINGS_RECORDS
    base = kind(**{f.name: "v" for f in dataclasses.fields(kind)})
    for f in dataclasses.fields(kind):
        assert f.compare
        assert base != dataclasses.replace(base, **{f.name: "w"}), f.name
