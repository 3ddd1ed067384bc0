"""A rule's ``when`` and ``check`` as one generated function each (exprgen), used once a run has
evaluated them on enough deployments: the same answers and the same errors as the closures
expressions.py compiles, for every built-in rule on every fixture's and example's budget, and
for the odd reads and errors a user's rule can make."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from helpers import evaluation_outcome, tool

from hbmlint import exprgen
from hbmlint import rules as rules_module
from hbmlint.expressions import Lazy, Scope, merged_evaluator, with_base_functions
from hbmlint.exprgen import generated
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import (
    _FLAT_KEYS,
    _Program,
    _scope,
    _tradeoff_base,
    _with_tradeoff,
    forget_scope,
    load_rules,
)
from hbmlint.units import Q

ROOT = Path(__file__).parent.parent
GENERATED = "<hbmlint rule expression>"


def _is_generated(function) -> bool:
    """Compiled by exprgen now, or ahead of time in exprgen_builtin."""
    where = function.__code__.co_filename
    return where == GENERATED or where.endswith("exprgen_builtin.py")


def _budgets() -> list:
    found = []
    paths = sorted([*ROOT.glob("tests/fixtures/**/*.y*ml"), *ROOT.glob("examples/**/*.y*ml")])
    for path in paths:
        for item in lint_file(path, path.name, [], LintOptions()).deployments:
            if item.budget is not None:
                found.append((path, item.budget))
    return found


@pytest.mark.parametrize("ahead", [True, False], ids=["exprgen_builtin", "compiled"])
def test_every_builtin_rule_answers_the_same_on_every_fixture_budget(ahead, monkeypatch):
    if not ahead:  # every function compiled now, as for a user's rule
        monkeypatch.setattr(exprgen, "_builtin_factories", lambda: {})
    exprgen.generated.cache_clear()
    rules = load_rules()[0]
    budgets = _budgets()
    assert len(budgets) > 100
    compared = 0
    for path, budget in budgets:
        for rule in rules:
            program = _Program(rule, None)
            base = _tradeoff_base(program, {})
            for text in (rule.when, rule.check):
                if not text:
                    continue
                fast = generated(text, program.names, _FLAT_KEYS)
                if fast is None:  # one read: left to its closure
                    assert "(" not in text and " " not in text.strip(), text
                    continue
                assert (fast.__code__.co_filename == GENERATED) is not ahead
                slow = merged_evaluator(text, program.names)
                answers = []
                for function in (slow, fast):
                    forget_scope(budget)
                    names, functions = _scope(budget)
                    if base is not None:
                        functions = _with_tradeoff(functions, base)
                    answers.append(evaluation_outcome(function, names, functions, program.own))
                assert answers[0] == answers[1], (path, rule.id, text)
                compared += 1
        forget_scope(budget)
    assert compared > 9_000
    exprgen.generated.cache_clear()


def _raises_key_error(context):
    raise KeyError("missing")


TABLE = {
    "size": lambda c: Q(5, "GiB"),
    "other": lambda c: Q(2, "GiB"),
    "tokens": lambda c: Q(3, "token"),
    "zero": lambda c: 0,
    "name": lambda c: "llama",
    "flag": lambda c: False,
    "broken": _raises_key_error,
    "ratio": lambda c: 1 / c,
}
EXPRESSIONS = [
    "s.size <= s.other",
    "s.size <= s.tokens",  # incompatible units
    "s.size > 0",
    "s.tokens >= 0.0",
    "s.zero < 0",
    "s.name > 0",  # str against int
    "s.broken > 0",  # its function raises KeyError
    "s.ratio > 0",  # its function raises ZeroDivisionError
    "s.nothing > 0",  # not a name of the namespace
    "s.unflat > 0",  # not in ``flat``: read the closure's way
    "t.size > 0",  # no such namespace
    "s.name in ('llama', 'qwen') and not s.flag",
    "'ll' in s.name or s.flag",
    "s.flag or s.name",
    "s.size + s.other * 2 - s.size / 4",
    "s.size + s.tokens",
    "-s.size < s.other",
    "s.size if s.flag else s.tokens",
    "(s.size, s.name)",
    "max(s.size, s.other) == s.size",
    "min(s.size, key=s.size)",  # keywords refused for the documented functions
    "open('x')",  # not a documented function
    "s.size ** 2",
    "share * s.size <= s.other",
    "share.real > 0",
    "share < s.zero < 1",  # a chain: the closure's
    "s.size is s.size",  # an operator the generated code leaves to the closure
    "1e999 > s.zero",
    "s.size >= s.size",
]


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_a_generated_expression_answers_and_fails_as_its_closure(expression):
    params = {"share": 0.5}
    param_names = frozenset(params)
    flat = frozenset(f"s.{name}" for name in TABLE)
    table = {**TABLE, "unflat": lambda c: 7}
    builders = {"s": lambda c: Lazy.over(c, table)}
    flat_table = {f"s.{name}": ("s", build) for name, build in TABLE.items()}
    fast = generated(expression, param_names, flat)
    assert fast is not None
    assert fast.__code__.co_filename == GENERATED  # not a built-in rule's: compiled now
    slow = merged_evaluator(expression, param_names)
    for context in (2, 0):  # 1 / 0 raises
        answers = []
        for function in (slow, fast):
            names = Scope.over(context, builders).with_flat(flat_table)
            functions = with_base_functions({})
            # twice: on a new scope, and on one that has read the names once
            outcome = evaluation_outcome
            answers.append([outcome(function, names, functions, params) for _ in range(2)])
        assert answers[0] == answers[1], expression


def test_what_the_closure_compiler_leaves_to_simpleeval_or_one_read_is_not_generated():
    for expression in ("s._hidden > 0", "[1][0] > 0", "s.size.__class__", "x[0]", "1 +", "s.size"):
        assert generated(expression, frozenset(), frozenset({"s.size"})) is None


def test_a_comparison_of_two_names_is_kept_in_the_scope_as_the_closure_keeps_it():
    table = {"a": lambda c: Q(1, "GiB"), "b": lambda c: Q(2, "GiB")}
    flat_table = {f"s.{n}": ("s", f) for n, f in table.items()}
    names = Scope.over(None, {"s": lambda c: Lazy.over(c, table)}).with_flat(flat_table)
    fast = generated("s.a <= s.b", frozenset(), frozenset(flat_table))
    assert fast(names, {}, None) is True
    assert names._results == {"s.a LtE s.b": True}
    names._results["s.a LtE s.b"] = "kept"
    assert fast(names, {}, None) == "kept"
    assert merged_evaluator("s.a <= s.b")(names, {}, None) == "kept"


def test_nothing_of_the_expression_is_compiled_as_code():
    # a string that would be code, were it pasted in: a literal, compared as a value
    literal = "'\\' + open(\"x\") + \\''"
    expression = f"s.name == {literal}"
    table = {"name": lambda c: ast.literal_eval(literal)}
    flat_table = {"s.name": ("s", table["name"])}
    names = Scope.over(None, {"s": lambda c: Lazy.over(c, table)}).with_flat(flat_table)
    fast = generated(expression, frozenset(), frozenset(flat_table))
    assert fast(names, with_base_functions({}), None) is True
    assert set(fast.__code__.co_names) <= {"type", "_Quantity", "_magnitude", "_units"}


def test_a_run_evaluates_its_rules_with_generated_functions_and_finds_the_same(monkeypatch):
    path = ROOT / "examples" / "llama8b-a10g-full-context.yaml"
    rules = load_rules()[0]
    options = LintOptions(keep_budgets=False)
    monkeypatch.setattr(rules_module, "_STEPS", {})
    monkeypatch.setattr(rules_module, "GENERATE_AFTER", 3)
    found = []
    for _ in range(10):
        result = lint_file(path, path.name, rules, options)
        found.append(result.diagnostics)
    assert all(each == found[0] for each in found)
    [(_, steps, _, uses)] = rules_module._STEPS.values()
    assert uses == [9]
    whens = [p.when for _, p, _ in steps if p.when is not None and " " in p.rule.when.strip()]
    assert whens and all(_is_generated(w) for w in whens)


def test_a_short_run_compiles_nothing(monkeypatch):
    path = ROOT / "examples" / "llama8b-a10g-full-context.yaml"
    rules = load_rules()[0]
    options = LintOptions(keep_budgets=False)
    monkeypatch.setattr(rules_module, "_STEPS", {})
    for _ in range(3):
        lint_file(path, path.name, rules, options)
    [(_, steps, _, _)] = rules_module._STEPS.values()
    for _, program, _ in steps:
        for function in (program.when, program.check):
            assert function is None or not _is_generated(function)


def test_the_builtin_rules_functions_come_compiled_with_the_package(monkeypatch):
    # exprgen_builtin is what tools/write_exprgen_builtin.py writes for the rules as they are
    written = (ROOT / "hbmlint" / "exprgen_builtin.py").read_text(encoding="utf-8")
    writer = tool("write_exprgen_builtin")
    assert written == writer.builtin_module(), "run: python tools/write_exprgen_builtin.py"
    exprgen.generated.cache_clear()
    monkeypatch.setattr(exprgen, "compile", lambda *a: pytest.fail("compiled"), raising=False)
    made = 0
    for rule in load_rules()[0]:
        for text in (rule.when, rule.check):
            if text and (fast := generated(text, frozenset(rule.params), _FLAT_KEYS)):
                assert fast.__code__.co_filename.endswith("exprgen_builtin.py")
                made += 1
    assert made > 60
    exprgen.generated.cache_clear()


def test_a_factory_is_used_only_for_the_source_it_was_written_for(monkeypatch):
    # a factory under another source's key, or one whose globals differ, is not used
    text = "s.size > 0 and s.name == 'llama'"
    flat = frozenset({"s.size", "s.name"})
    source, env = exprgen._written(text, frozenset(), flat)
    wrong = {source: lambda _unknown, **_: pytest.fail("used")}
    monkeypatch.setattr(exprgen, "_builtin_factories", lambda: wrong)
    exprgen.generated.cache_clear()
    fast = generated(text, frozenset(), flat)
    assert fast.__code__.co_filename == GENERATED
    exprgen.generated.cache_clear()


def test_a_program_in_several_rule_lists_switches_once(monkeypatch):
    monkeypatch.setattr(rules_module, "GENERATE_AFTER", 2)
    rule = next(r for r in load_rules()[0] if r.when and " and " in r.when)
    program = _Program(rule, None)
    slow = program.when
    program.generate()
    counting = program.when
    program.generate()  # a second list reaching the count: nothing more
    assert program.when is counting
    budget = _budgets()[0][1]
    names, functions = _scope(budget)
    for _ in range(2):
        assert program.when(names, functions, program.own) == slow(names, functions, program.own)
    assert _is_generated(program.when)
    forget_scope(budget)
