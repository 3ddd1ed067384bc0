"""Issue 18 (speed): a built-in rule's ``when`` and ``check`` are not parsed when a run starts
evaluating them: exprgen_builtin.PROGRAMS holds, by the expression's text and the rule's
parameters' names, the generated function, the first reads and the gate that parsing would
give (tools/write_exprgen_builtin.py writes it; test_exprgen.py says when it is stale). These
tests hold that table to what parsing gives, and a lint with it to a lint without it."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import MANIFESTS, evaluation_outcome, manifest_findings, recorded_builds, tool

from hbmlint import expressions, exprgen, exprgen_builtin
from hbmlint import rules as rules_module
from hbmlint.expressions import merged_evaluator, parameter_evaluator, parse
from hbmlint.rules import (
    _FLAT_KEYS,
    GENERATE_AFTER,
    _builtin_function,
    _builtin_program,
    _first_reads,
    _gate,
    _Program,
    _scope,
    forget_scope,
    load_rules,
)

ROOT = Path(__file__).parent.parent


def _expressions() -> list[tuple[str, frozenset[str]]]:
    found = []
    for rule in load_rules()[0]:
        names = frozenset(rule.params)
        found += [(text, names) for text in (rule.when, rule.check) if text]
    return found


def _same(a, b) -> bool:
    """Equal values, or functions of the same code whose cells hold the same (a closure of
    expressions.py made again for the table is another object doing the same)."""
    if callable(a) and hasattr(a, "__code__"):
        if a.__code__ is not b.__code__:
            return False
        pairs = zip(a.__closure__ or (), b.__closure__ or (), strict=True)
        return all(_same(x.cell_contents, y.cell_contents) for x, y in pairs)
    return a is b or a == b


def test_most_builtin_expressions_are_held_with_what_parsing_gives():
    held = 0
    for text, names in _expressions():
        built = _builtin_program(text, names)
        if built is None:
            continue
        held += 1
        tree = parse(text)
        assert list(built[2]) == _first_reads(tree, names), text
        assert built[3] == _gate(tree, names), text
        fast = _builtin_function(text, names)
        assert fast.__code__.co_filename.endswith("exprgen_builtin.py")
        if " " in text.strip():  # one that exprgen generates: the very same function
            made = exprgen.generated(text, names, _FLAT_KEYS)
            assert _same(made, fast), text
    assert held == len(_expressions())  # every one: none is parsed


def test_a_one_read_answers_as_its_closure():
    # (exprgen generates no function for a read alone: the others are compared in test_exprgen)
    reads = [(t, n) for t, n in _expressions() if " " not in t.strip() and _builtin_program(t, n)]
    assert len(reads) >= 8
    budgets = [budget for _, budget in recorded_builds()][:60]
    for text, names in reads:
        fast = _builtin_function(text, names)
        slow = merged_evaluator(text, names)
        params = dict.fromkeys(names, 1)
        for budget in budgets:
            names_, functions = _scope(budget)
            assert fast(names_, functions, params) == slow(names_, functions, params), text
            forget_scope(budget)


def test_a_builtin_program_parses_nothing(monkeypatch):
    def refused(*args):
        pytest.fail("parsed")

    rules = load_rules()[0]
    whole = [
        r
        for r in rules
        if all(_builtin_program(t, frozenset(r.params)) for t in (r.when, r.check) if t)
    ]
    assert len(whole) > 30
    monkeypatch.setattr(expressions, "parse", refused)
    monkeypatch.setattr(rules_module, "parse", refused)
    monkeypatch.setattr(expressions, "_compiled", refused)
    for rule in whole:
        program = _Program(rule, None)
        steps = [(rule, program, None)]
        rules_module._with_gates(steps, rules_module._prefill_for(steps))


def test_the_function_takes_the_slot_after_the_count():
    rule = next(r for r in load_rules()[0] if r.when and " and " in r.when and r.check)
    program = _Program(rule, None)
    fast = _builtin_function(rule.when, program.names)
    assert fast is not None and program.when.__name__ == "counting"
    program.generate()  # nothing more to generate
    budget = recorded_builds()[0][1]
    names, functions = _scope(budget)
    for _ in range(GENERATE_AFTER):
        program.when(names, functions, program.own)
    assert program.when.__code__ is fast.__code__
    forget_scope(budget)


def test_a_users_rule_of_the_same_text_with_other_parameters_is_parsed():
    text, names = next((t, n) for t, n in _expressions() if _builtin_program(t, n))
    assert _builtin_program(text, names | {"extra"}) is None
    assert _builtin_program(text + " ", names) is None


def test_a_table_written_for_other_flat_names_is_not_used(monkeypatch):
    monkeypatch.setattr(exprgen_builtin, "FLAT", frozenset())
    rules_module._builtin_programs.cache_clear()
    try:
        assert all(_builtin_program(t, n) is None for t, n in _expressions())
    finally:
        rules_module._builtin_programs.cache_clear()


def test_findings_are_the_same_without_the_table(monkeypatch):
    codes = {rule.id for rule in load_rules()[0]}
    assert MANIFESTS
    with_table = manifest_findings(load_rules()[0], codes)
    monkeypatch.setattr(rules_module, "_builtin_programs", lambda: ({}, {}))
    without = manifest_findings(load_rules()[0], codes)
    assert with_table == without
    assert len(with_table) > 20


# --- the wordings' and fixes' expressions (exprgen_findings) -----------------------------------


def test_the_findings_functions_come_written_for_the_rules_as_they_are():
    written = (ROOT / "hbmlint" / "exprgen_findings.py").read_text(encoding="utf-8")
    assert written == tool("write_exprgen_builtin").findings_module(), (
        "run: python tools/write_exprgen_builtin.py"
    )


def test_each_findings_function_answers_and_fails_as_the_evaluator():
    table = rules_module._finding_functions()
    assert len(table) > 120
    rules = {rule.id: rule for rule in load_rules()[0]}
    budgets = [budget for _, budget in recorded_builds()][::3]
    assert len(budgets) > 30
    compared = 0
    for rule in rules.values():
        program = _Program(rule, None)
        texts = {t for t, n in table if n == {x for x in program.names if x in t}}
        for text in texts:
            fast = program.finding_evaluator(text)
            slow = parameter_evaluator(text, program.names)
            assert fast is not slow
            for budget in budgets:
                answers = []
                for function in (slow, fast):
                    forget_scope(budget)
                    names, functions = _scope(budget)
                    answers.append(evaluation_outcome(function, names, functions, program.own))
                assert answers[0] == answers[1], (rule.id, text)
                compared += 1
    forget_scope(budgets[0])
    assert compared > 3_000


def test_a_parameter_named_as_a_namespace_the_text_reads_is_not_held():
    rule = next(r for r in load_rules()[0] if r.fixes and r.fixes[0].set)
    text = next(iter(rule.fixes[0].set.values()))
    space = text.split(".")[0].strip("( ")
    assert space.isidentifier() and f"{space}." in text
    program = _Program(rule, {space: 1})  # a user's configuration shadowing the namespace
    assert program.finding_evaluator(text) is parameter_evaluator(text, program.names)
    assert _Program(rule, None).finding_evaluator(text).__name__ == "guarded"


def test_findings_are_the_same_without_the_findings_functions(monkeypatch):
    codes = {rule.id for rule in load_rules()[0]}
    with_table = manifest_findings(load_rules()[0], codes)
    monkeypatch.setattr(rules_module, "_finding_functions", lambda: {})
    without = manifest_findings(load_rules()[0], codes)
    assert with_table == without
    assert sum(bool(fixes) for *_, fixes in with_table) > 10
