"""Issue 18 (speed), session 21: the names that a run's rules read on every deployment whatever
the values (the first names of each rule's ``when``, or of its ``check`` where it has none) are
worked out into a budget's scope in one pass when the scope is made, not each through a lookup
that misses and a call of Scope.__missing__. These tests hold the analysis to what evaluation
reads, a name whose function raises to the error it raised before, and the findings on the
fixtures and examples to what reading every name on demand gives."""

from __future__ import annotations

import pytest
from helpers import MANIFESTS, manifest_findings

from hbmlint import lint
from hbmlint import rules as rules_module
from hbmlint.expressions import Scope, parse
from hbmlint.rules import (
    _FLAT,
    _SPACES,
    _Facts,
    _first_reads,
    _prefill_for,
    _steps_for,
    builtin_rule_files,
    load_rules,
)


class _Settings:
    def __init__(self, engine: str) -> None:
        self.engine = engine
        self.engine_version = None


@pytest.mark.parametrize(
    ("expression", "reads"),
    [
        ("kv.tokens > 0 and gpu.total > 0", ["kv.tokens"]),
        ("not model.mla or model.kv_heads > 0", ["model.mla"]),
        ("weights.total + kv.bytes <= gpu.total", ["weights.total", "kv.bytes", "gpu.total"]),
        ("a.x < b.y < c.z", ["a.x", "b.y"]),
        ("share * gpu.usable >= draft.weights", ["gpu.usable", "draft.weights"]),
        ("kv.tokens if draft.present else kv.bytes", ["draft.present"]),
        ("abs(draft.vocab_size - model.vocab_size) <= 3", []),
        ("tradeoff().gain > 1", []),
        ("whatif(quantization='fp8').kv.tokens > kv.tokens", ["kv.tokens"]),
        ("(kv.tokens > 0) == (gpu.count > 1)", ["kv.tokens", "gpu.count"]),
    ],
)
def test_the_names_read_whatever_the_values(expression, reads):
    assert _first_reads(parse(expression), frozenset({"share"})) == reads


def test_the_built_in_rules_prefill_their_first_names_only():
    rules, _ = load_rules(builtin_rule_files())
    _, prefill = _steps_for(rules, _Settings("vllm"), {}, None)
    assert prefill[0] is _FLAT
    names = [key for key, _ in prefill[1]]
    assert names[:2] == ["weights.in_fraction", "gpu.usable"]  # HBM101's check, the first step
    assert "kv.tokens_displaced_by_state_slots" in names  # HBM210's when
    # read only where the weights fit (HBM102's and HBM105's when): left to be read on demand
    assert "kv.tokens_high" not in names and "kv.tokens_low" not in names
    assert all(_FLAT[key][1] is build for key, build in prefill[1])
    assert len(names) == len(set(names))


def test_a_filled_scope_holds_what_reading_on_demand_gives():
    rules, _ = load_rules(builtin_rule_files())
    budgets = []
    real = lint.evaluate_rules

    def keep(rules, budget, *args, **kwargs):
        budgets.append(budget)
        return real(rules, budget, *args, **kwargs)

    lint.evaluate_rules = keep
    try:
        for path in MANIFESTS[::4]:
            lint.lint_file(path, path.name, rules, lint.LintOptions())
    finally:
        lint.evaluate_rules = real
    assert len(budgets) > 10
    for budget in budgets:
        _, prefill = _steps_for(rules, budget.settings, {}, None)
        filled = Scope.over(_Facts(budget), _SPACES).with_flat(_FLAT)
        filled.fill(prefill[1])
        lazy = Scope.over(_Facts(budget), _SPACES).with_flat(_FLAT)
        for key, _ in prefill[1]:
            assert dict.__contains__(filled, key)
            value = lazy[key]
            assert filled[key] == value or (value != value and filled[key] != filled[key])  # noqa: PLR0124


def test_a_name_whose_function_raises_is_left_to_raise_where_it_is_read():
    def broken(context):
        raise ZeroDivisionError("no blocks")

    flat = {"s.bad": ("s", broken), "s.good": ("s", lambda context: context * 2)}
    scope = Scope.over(21, {"s": lambda context: None}).with_flat(flat)
    scope.fill((("s.bad", broken), ("s.good", flat["s.good"][1])))
    assert not dict.__contains__(scope, "s.bad")
    assert dict.__getitem__(scope, "s.good") == 42
    with pytest.raises(ZeroDivisionError, match="no blocks"):
        scope["s.bad"]  # noqa: B018 - read on demand: raises as it did


def test_a_scope_made_for_evaluate_rules_holds_the_prefill_before_any_rule_reads(monkeypatch):
    rules, _ = load_rules(builtin_rule_files())
    seen = []
    real_outcomes = rules_module._outcomes

    def spy(steps, budget, prefill=None):
        if any(rule.id == "HBM102" for rule, _, _ in steps):  # every rule (not the GPU-free)
            names, _ = rules_module._scope(budget, prefill)
            seen.append({key for key in names if "." in key})
        return real_outcomes(steps, budget, prefill)

    monkeypatch.setattr(rules_module, "_outcomes", spy)
    for path in MANIFESTS:
        lint.lint_file(path, path.name, rules, lint.LintOptions())
        if seen:
            break
    assert seen and {"weights.in_fraction", "gpu.usable", "draft.present"} <= seen[0]


def test_findings_read_as_with_every_name_on_demand(monkeypatch):
    rules, _ = load_rules(builtin_rule_files())
    ids = {rule.id for rule in rules}

    def findings():
        return manifest_findings(rules, ids | {"HBM009"})

    prefilled = findings()
    monkeypatch.setattr(rules_module, "_prefill_for", lambda steps: (_FLAT, ()))
    assert findings() == prefilled
    assert any(code.startswith("HBM1") for _, code, _, _, _ in prefilled)
    monkeypatch.undo()
    rules_module._STEPS.clear()
    assert _prefill_for([])[1] == ()
