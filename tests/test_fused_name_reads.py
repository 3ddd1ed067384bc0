"""Issue 18 (speed), session 21: a comparison of a namespace's name with a constant
(``model.kv_heads > 0``, ``model.quantization == "fp8"``, ``gpu.vendor in (...)``) and ``not``
of one do the budget's scope's lookup in their own closure, calling the name's closure only
where that lookup misses or the names are not a scope. These tests hold every such closure to
the one that calls the read (the same values, the same errors with the same messages) over
scopes, plain mappings, namespaces and missing names, and the findings on the fixtures and
examples to what the unfused closures give."""

from __future__ import annotations

import pytest
from helpers import manifest_findings

from hbmlint import expressions
from hbmlint.expressions import Lazy, Scope, _build, _compiled, parse
from hbmlint.rules import builtin_rule_files, load_rules
from hbmlint.units import Q

EXPRESSIONS = [
    "s.x > 0",
    "s.x >= 0",
    "s.x < 0",
    "s.x <= 0",
    "s.x > 0.0",
    "s.x < -0.0",
    "s.x == 0",
    "s.x != 0",
    "s.x > 3",
    "s.x <= 2.5",
    's.x == "fp8"',
    's.x != "none"',
    's.x in ("awq", "gptq")',
    's.x not in ("awq", "gptq")',
    "s.x in (1, 2)",
    "not s.x",
    "not s.missing",
    "s.missing > 0",
    "nothing.x > 0",
    "p.x > 0",
]

VALUES = [
    0,
    3,
    -1.5,
    0.0,
    float("nan"),
    True,
    None,
    "fp8",
    "awq",
    "",
    Q(0, "byte"),
    Q(-2, "GiB"),
    Q(5, "token"),
    Q(0.5, "dimensionless"),
    Q(3, "percent"),
    (1, 2),
]


def _unfused(expression: str, param_names: frozenset[str]):
    real = expressions._fused_read
    expressions._fused_read = lambda operand: None
    try:
        return _build(parse(expression), expression, param_names)
    finally:
        expressions._fused_read = real


def _outcome(run):
    try:
        value = run()
    except Exception as exc:  # noqa: BLE001 - compared as they are
        return ("error", type(exc).__name__, str(exc))
    return ("value", type(value).__name__, repr(value))


def _names(value):
    scope = Scope.over(value, {"s": lambda v: Lazy({"x": v})})
    yield "scope", scope
    flat = Scope.over(value, {"s": lambda v: Lazy({"x": v})}).with_flat({"s.x": ("s", lambda v: v)})
    yield "flat scope", flat
    filled = Scope.over(value, {}).with_flat({})
    dict.__setitem__(filled, "s.x", value)
    yield "filled scope", filled
    yield "mapping", {"s": Lazy({"x": value})}
    yield "object", {"s": type("S", (), {"x": value})()}
    yield "lazy over", {"s": Lazy.over(value, {"x": lambda v: v})}


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_a_fused_read_answers_as_the_read_does(expression):
    params = frozenset({"p"})
    fused = _compiled(expression, params)
    plain = _unfused(expression, params)
    assert fused is not None and plain is not None
    for value in VALUES:
        for kind, names in _names(value):
            one = _outcome(lambda names=names: fused(names, {}, {"p": Lazy({"x": 1})}))
            again = _outcome(lambda names=names: plain(names, {}, {"p": Lazy({"x": 1})}))
            assert one == again, (expression, value, kind)


def test_the_conditions_rules_write_are_fused():
    for expression in ("s.x > 0", 's.x == "fp8"', 's.x in ("a", "b")', "not s.x", "s.x < 0.0"):
        assert _compiled(expression).__name__ == "fused", expression
    assert _compiled("s.x > s.y").__name__ != "fused"  # two names: shared, as before
    assert _compiled("p.x > 0", frozenset({"p"})).__name__ != "fused"  # a parameter's
    assert _compiled("(s.x + 1) > 0").__name__ != "fused"


def test_findings_read_as_with_the_reads_called(monkeypatch):
    rules, _ = load_rules(builtin_rule_files())
    ids = {rule.id for rule in rules}

    def findings():
        for cache in (expressions._compiled, expressions.evaluator, expressions.template_plan):
            cache.cache_clear()
        for rule in rules:
            rule.__dict__.pop("_program", None)
        return manifest_findings(rules, ids | {"HBM009"})

    fused = findings()
    monkeypatch.setattr(expressions, "_fused_read", lambda operand: None)
    assert findings() == fused
    monkeypatch.undo()
    findings()  # leave the caches as the fused closures fill them
    assert any(code.startswith("HBM3") for _, code, _, _, _ in fused)
