"""Issue 18 (speed), session 20: a compiled expression reads ``kv.tokens`` from a budget's scope
in one lookup, ``scope["kv.tokens"]``, worked out on the first read with the function the ``kv``
namespace uses (without building the namespace) and kept under that key. These tests hold the
one-lookup reads to the namespaces' values (the same objects, whichever is read first), keep
errors and other kinds of names as they were, and the findings on the fixtures and examples to
what reading through the namespaces gives."""

from __future__ import annotations

import pytest
import simpleeval
from helpers import MANIFESTS

from hbmlint import lint
from hbmlint import rules as rules_module
from hbmlint.expressions import Lazy, Scope, _compiled, evaluate
from hbmlint.rules import _FLAT, _NAMESPACES, _SPACES, _Facts, builtin_rule_files, load_rules


@pytest.fixture(scope="module")
def budgets():
    rules, _ = load_rules(builtin_rule_files())
    found = []
    real = lint.evaluate_rules

    def keep(rules, budget, *args, **kwargs):
        found.append(budget)
        return real(rules, budget, *args, **kwargs)

    lint.evaluate_rules = keep
    try:
        for path in MANIFESTS[::3]:
            lint.lint_file(path, path.name, rules, lint.LintOptions())
    finally:
        lint.evaluate_rules = real
    assert len(found) > 20
    return found


def _value(read):
    try:
        return ("value", read())
    except Exception as exc:  # noqa: BLE001 - compared as they are
        return ("error", type(exc).__name__, str(exc))


def _same(a, b):
    if a[0] != b[0]:
        return False
    if a[0] == "error":
        return a == b
    x, y = a[1], b[1]
    return x is y or x == y or (x != x and y != y)  # NaN  # noqa: PLR0124


def test_every_flat_name_is_the_namespace_value(budgets):
    assert set(_FLAT) == {
        f"{space}.{name}"
        for space, table in _NAMESPACES.items()
        if space not in ("workload", "overhead")
        for name in table
    }
    for budget in budgets:
        flat = Scope.over(_Facts(budget), _SPACES).with_flat(_FLAT)
        spaces = Scope.over(_Facts(budget), _SPACES).with_flat(_FLAT)
        for key in _FLAT:
            space, name = key.split(".")
            one = _value(lambda key=key, flat=flat: flat[key])
            other = _value(
                lambda space=space, name=name, spaces=spaces: getattr(spaces[space], name)
            )
            assert _same(one, other), (budget.deployment.name, key, one, other)


def test_a_value_is_worked_out_once_whichever_way_it_is_read_first(budgets):
    budget = (
        next(b for b in budgets if b.has_drafter)
        if any(b.has_drafter for b in budgets)
        else budgets[0]
    )
    scope = Scope.over(_Facts(budget), _SPACES).with_flat(_FLAT)
    tokens = scope["kv.tokens_high"]
    assert "kv" not in scope  # the namespace was not built for it
    assert scope["kv"].tokens_high is tokens  # made later, it holds the value read
    weights = scope["weights"].total  # the namespace first
    assert scope["weights.total"] is weights


def test_workload_and_overhead_read_through_their_namespaces(budgets):
    for budget in budgets:
        scope = Scope.over(_Facts(budget), _SPACES).with_flat(_FLAT)
        declared = budget.deployment.workload is not None
        assert scope["workload.declared"] is declared
        assert scope["overhead.total"] is scope["overhead"].total
        if not declared:
            with pytest.raises(KeyError):
                scope["workload.concurrency"]  # noqa: B018 - an undeclared workload has none


def test_a_name_no_namespace_has_reads_as_before(budgets):
    budget = budgets[0]
    functions = rules_module.rule_functions(budget)
    for expression, error in [
        ("kv.no_such_name > 0", simpleeval.AttributeDoesNotExist),
        ("nothing.tokens > 0", simpleeval.NameNotDefined),
    ]:
        fresh = Scope.over(_Facts(budget), _SPACES).with_flat(_FLAT)
        plain = Scope.over(_Facts(budget), _SPACES)  # no flat names: the namespaces' way
        with pytest.raises(Exception) as one:
            _compiled(expression)(fresh, functions, None)
        with pytest.raises(Exception) as other:
            _compiled(expression)(plain, functions, None)
        assert type(one.value) is type(other.value) is error
        assert str(one.value) == str(other.value)
    for key in ("kv.", "kv._values", "kv.tokens.x", "no.such", "nothing"):
        with pytest.raises(KeyError):
            Scope.over(_Facts(budget), _SPACES).with_flat(_FLAT)[key]


def test_names_that_are_not_a_scope_and_the_complete_names():
    names = {"kv": Lazy({"tokens": 7}), "kv.tokens": "not read: a plain mapping's own key"}
    assert evaluate("kv.tokens + 1", names, {}) == 8
    parent = Scope({"kv": Lazy({"tokens": 3})})
    assert evaluate("kv.tokens * 2", Scope({"x": 1}, parent=parent), {}) == 6


def test_the_complete_names_hold_no_flat_keys(budgets):
    scope = Scope.over(_Facts(budgets[0]), _SPACES).with_flat(_FLAT)
    scope["kv.tokens"]  # noqa: B018
    complete = scope.complete()
    assert "kv" in complete and not any("." in key for key in complete)
    assert complete["kv"].tokens is scope["kv.tokens"]


def test_findings_read_as_through_the_namespaces(monkeypatch):
    rules, _ = load_rules(builtin_rule_files())
    ids = {rule.id for rule in rules}

    def findings():
        found = []
        for path in MANIFESTS:
            result = lint.lint_file(path, path.name, rules, lint.LintOptions())
            found += [
                (path.name, d.code, d.message, [str(f) for f in d.fixes])
                for d in result.diagnostics
                if d.code in ids  # the rules' findings (not the readers', run-dependent)
            ]
        return found

    flat = findings()
    monkeypatch.setattr(rules_module, "_FLAT", None)  # every read through the namespaces
    assert findings() == flat
    assert any(code.startswith("HBM1") for _, code, _, _ in flat)
