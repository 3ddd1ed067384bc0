"""Issue 18 (speed), session 23: workload.declared, the first name HBM103's and HBM209's `when`
read, is worked out into a budget's scope when it is made (rules._ALONE), without building the
workload namespace (most deployments declare none) and without the two lookups that missed.
These tests hold the filled value to what reading through the namespace gives, the other
workload names to what they were, and the findings on the fixtures and examples to what
reading every name on demand gives."""

from __future__ import annotations

import pytest
from helpers import manifest_findings, recorded_builds

from hbmlint import rules as rules_module
from hbmlint.expressions import Scope
from hbmlint.rules import (
    _ALONE,
    _FLAT,
    _SPACES,
    _Facts,
    _prefill_for,
    _steps_for,
    builtin_rule_files,
    load_rules,
)


@pytest.fixture(scope="module")
def rules():
    return load_rules(builtin_rule_files())[0]


@pytest.fixture(scope="module")
def budgets():
    return [budget for _, budget in recorded_builds(keep_budgets=True)]


def test_the_built_in_rules_fill_workload_declared(rules, budgets):
    for budget in budgets[:40]:
        _, prefill = _steps_for(rules, budget.settings, {}, None)
        assert [key for key, _ in prefill[2]] == ["workload.declared"]
        assert all(_ALONE[key] is build for key, build in prefill[2])
        assert all(key in _FLAT for key, _ in prefill[1])
    assert _prefill_for([])[2] == ()


def test_a_filled_workload_declared_is_the_namespace_value(rules, budgets):
    declared = undeclared = 0
    for budget in budgets:
        _, prefill = _steps_for(rules, budget.settings, {}, None)
        filled = Scope.over(_Facts(budget), _SPACES).with_flat(_FLAT)
        filled.fill(prefill[2])
        assert dict.__contains__(filled, "workload.declared")
        assert not dict.__contains__(filled, "workload")  # its namespace is not built
        lazy = Scope.over(_Facts(budget), _SPACES).with_flat(_FLAT)
        assert filled["workload.declared"] is lazy["workload.declared"]
        assert filled["workload"].declared is lazy["workload"].declared is lazy["workload.declared"]
        if lazy["workload.declared"]:
            declared += 1
            assert filled["workload.tokens_needed"] == lazy["workload.tokens_needed"]
        else:
            undeclared += 1
            with pytest.raises(KeyError):
                filled["workload.concurrency"]  # noqa: B018 - an undeclared workload has none
    assert declared and undeclared


def test_the_findings_are_those_read_on_demand(rules, monkeypatch):
    ids = {rule.id for rule in rules}  # the rules' findings (notes of a run's own are said once)

    def findings():
        return manifest_findings(rules, ids)

    filled = findings()
    real = _prefill_for
    monkeypatch.setattr(rules_module, "_prefill_for", lambda steps: real(steps)[:2])
    assert findings() == filled
    assert any(code in ("HBM103", "HBM209") for _, code, _, _, _ in filled)
    monkeypatch.undo()
    rules_module._STEPS.clear()
