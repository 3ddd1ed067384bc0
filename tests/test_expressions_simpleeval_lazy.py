"""Issue 18 (speed): simpleeval (and random, which it imports) is imported when an expression is
first parsed, evaluated by simpleeval or refused, not with hbmlint.expressions: the built-in
rules' generated functions read hbmlint's own operators from OWN_OPERATORS, so a clean lint
never imports it. OPERATORS and _Evaluator are what they were, made on first use."""

from __future__ import annotations

import ast
import subprocess
import sys

import simpleeval
from helpers import imported_by_clean_lints

from hbmlint import expressions


def test_operators_are_simpleevals_with_hbmlints_own():
    expected = {
        **simpleeval.DEFAULT_OPERATORS,
        ast.Mult: expressions._multiply,
        ast.Add: expressions._add,
        ast.Pow: expressions._power,
        ast.Mod: expressions._modulo,
        ast.LShift: expressions._left_shift,
    }
    assert list(expressions.OPERATORS.items()) == list(expected.items())
    assert expressions.OPERATORS is expressions.OPERATORS
    assert all(expressions.OPERATORS[k] is v for k, v in expressions.OWN_OPERATORS.items())


def test_the_evaluator_is_simpleevals_with_tuples_and_documented_calls_only():
    cls = expressions._Evaluator
    assert cls is expressions._Evaluator and issubclass(cls, simpleeval.SimpleEval)
    evaluator = cls(operators=expressions.OPERATORS)
    evaluator.names, evaluator.functions = {"q": "awq"}, dict(expressions.BASE_FUNCTIONS)
    assert evaluator.eval('q in ("awq", "gptq")') is True
    for text in ("q.upper()", "max(1, 2, key=abs)"):
        try:
            evaluator.eval(text)
        except simpleeval.FeatureNotAvailable:
            continue
        raise AssertionError(text)


def test_native_comparisons_are_those_simpleeval_has():
    native = {
        op
        for op in (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq, ast.In, ast.NotIn)
        if expressions.OPERATORS.get(op) is simpleeval.DEFAULT_OPERATORS.get(op)
    }
    assert set(expressions._NATIVE_COMPARISONS) == native


def _probe(tmp_path, code: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    return done.stdout + done.stderr


def test_the_generated_modules_import_no_simpleeval(tmp_path):
    code = (
        "import sys, hbmlint.exprgen_builtin, hbmlint.exprgen_findings\n"
        "print('simpleeval' in sys.modules, 'random' in sys.modules)\n"
    )
    assert _probe(tmp_path, code).split() == ["False", "False"]


def test_a_clean_lint_imports_no_simpleeval(tmp_path):
    assert imported_by_clean_lints(tmp_path, "simpleeval", "random") == [[False, False]] * 2
