"""Issue 18 (speed), session 26: a rule whose `when` tests a prefilled name first (``draft.present
and ...``, ``serving.max_model_len_set and ...``) is skipped where that name's value is false,
by one pass over the steps' gates (rules._past_gates), without calling its `when`: of a vLLM
deployment's 35 rules, 11 or so. These tests hold the gates to the `when`s they stand for, the
outcomes to those of calling every `when` (findings, and errors where a gate's name raises),
and the switch to the moment every `when` has its generated function."""

from __future__ import annotations

import pytest
from helpers import recorded_builds

from hbmlint import rules as rules_module
from hbmlint.expressions import ExpressionError, parse
from hbmlint.lint import _tradeoff_params
from hbmlint.rules import (
    _Facts,
    _gate,
    _outcomes,
    _prefill_for,
    _Program,
    _with_gates,
    builtin_rule_files,
    forget_scope,
    load_rules,
    rules_for,
)


@pytest.mark.parametrize(
    ("when", "gate"),
    [
        ("draft.present", "draft.present"),
        ("draft.present and weights.total <= gpu.usable", "draft.present"),
        ("draft.present and a.b and c.d", "draft.present"),
        ("draft.present or kv.tokens > 0", None),
        ("not draft.present and kv.tokens > 0", None),
        ("kv.tokens > 0 and draft.present", None),
        ("share and draft.present", None),  # a parameter
        ("share.x and draft.present", None),  # a parameter's attribute
        ("whatif(k=1).draft.present and kv.tokens > 0", None),
    ],
)
def test_a_gate_is_a_when_or_its_first_operand_a_name_read(when, gate):
    assert _gate(parse(when), frozenset({"share"})) == gate


@pytest.fixture(scope="module")
def builds() -> list:
    return recorded_builds()


def _steps(rules, settings):
    tradeoff = _tradeoff_params(rules, _Options())
    steps = []
    for rule in rules_for(rules, settings):
        program = _Program(rule, None)
        steps.append((rule, program, rules_module._tradeoff_base(program, tradeoff)))
    return steps


class _Options:
    rule_params: dict = {}


def _said(outcomes) -> list:
    return [
        (rule.id, str(found) if isinstance(found, ExpressionError) else found)
        for rule, found in outcomes
    ]


def _both(steps, resolved, build) -> tuple[list, list]:
    prefill = _prefill_for(steps)
    gated = _with_gates(steps, prefill)
    assert gated[:3] == prefill and gated[3]
    found = []
    for each in (prefill, gated):
        budget = build(resolved)
        found.append(_said(_outcomes(steps, budget, each)))
        forget_scope(budget)
    return found[0], found[1]


def test_the_outcomes_past_the_gates_are_those_of_every_when(builds):
    from hbmlint import budget as budget_stage

    rules, _ = load_rules(builtin_rule_files())
    outcomes = skipped = 0
    for resolved, budget in builds:
        steps = _steps(rules, budget.settings)
        every, gated = _both(steps, resolved, budget_stage.build)
        assert gated == every
        outcomes += len(every)
        names = rules_module._scope(budget, _prefill_for(steps))[0]
        keys, pick, _ = _with_gates(steps, _prefill_for(steps))[3]
        skipped += sum(not value for value in pick((*(names[k] for k in keys), True)))
        forget_scope(budget)
    assert outcomes > 20 and skipped > 100


def test_a_gate_whose_name_raises_leaves_every_when_to_raise_as_before(builds, monkeypatch):
    from hbmlint import budget as budget_stage

    def broken(self):
        raise ZeroDivisionError("no draft")

    monkeypatch.setattr(_Facts, "has_draft", broken)
    monkeypatch.setitem(rules_module._NAMESPACES["draft"], "present", broken)
    monkeypatch.setitem(rules_module._FLAT, "draft.present", ("draft", broken))
    rules, _ = load_rules(builtin_rule_files())
    resolved, budget = builds[0]
    steps = _steps(rules, budget.settings)
    every, gated = _both(steps, resolved, budget_stage.build)
    assert gated == every
    failed = [rule for rule, found in every if "no draft" in str(found)]
    assert {"HBM201", "HBM202", "HBM207"} <= set(failed)


def test_the_gates_apply_once_every_when_is_generated(builds, monkeypatch):
    from hbmlint import budget as budget_stage

    monkeypatch.setattr(rules_module, "_STEPS", {})
    monkeypatch.setattr(rules_module, "GENERATE_AFTER", 2)
    rules, _ = load_rules(builtin_rule_files())
    resolved, _ = builds[0]
    params: dict = {}
    gated = []
    for _ in range(6):
        budget = budget_stage.build(resolved)
        rules_module.evaluate_rules(rules, budget, params, None)
        [(_, steps, prefill, uses)] = rules_module._STEPS.values()
        gated.append(len(prefill) > 3 and bool(prefill[3]))
        forget_scope(budget)
    assert gated == [False, False, False, False, True, True]
    for _, program, _ in steps:
        if program.when is not None and " " in program.rule.when.strip():
            assert "hbmlint rule expression" in program.when.__code__.co_filename or (
                program.when.__code__.co_filename.endswith("exprgen_builtin.py")
            )
