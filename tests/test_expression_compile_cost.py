"""Compiling a rule expression costs less than it did (the depth check skips children that can
raise nothing; each node kind's closures are built by a function of their own) and refuses and
compiles exactly what it did: the first problem the check finds, and each closure's answers."""

from __future__ import annotations

import ast
import random

import pytest

from hbmlint import expressions
from hbmlint.expressions import MAX_DEPTH, ExpressionError, _check_tree, parse, template_fields
from hbmlint.rules import load_rules


def reference_check(tree: ast.AST) -> None:
    """The depth check as it was: every child visited, in ast.iter_child_nodes' order."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ExpressionError(f"expression nests deeper than {MAX_DEPTH} levels")
        if isinstance(node, (ast.JoinedStr, ast.FormattedValue)):
            raise ExpressionError("f-strings are not supported (use a message template)")
        depth += 1
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, ast.AST):
                stack.append((value, depth))
            elif isinstance(value, list):
                stack.extend([(item, depth) for item in value if isinstance(item, ast.AST)])


def outcome(check, text: str) -> str:
    try:
        check(ast.parse(text.strip(), mode="eval").body)
    except ExpressionError as exc:
        return str(exc)
    return "ok"


def nested(depth: int, leaf: str, wrap: str) -> str:
    text = leaf
    for _ in range(depth):
        text = wrap.format(text)
    return text


LEAVES = ["x", "1", "a.b", "f'{x}'", "(1, y)", "not z", "'s'"]
WRAPS = ["({} + 1)", "-({})", "f({})", "({}).b", "({} if c else 2)", "({} < 3)", "({}, x)", "[{}]"]


@pytest.mark.parametrize("leaf", LEAVES)
@pytest.mark.parametrize("wrap", WRAPS)
def test_the_check_finds_what_it_found_around_the_deepest_level(leaf, wrap):
    for depth in range(MAX_DEPTH - 25, MAX_DEPTH + 3):
        text = nested(depth, leaf, wrap)
        assert outcome(_check_tree, text) == outcome(reference_check, text), text


def test_the_check_finds_the_same_first_problem_in_random_expressions():
    rng = random.Random(19)
    for _ in range(400):
        text = rng.choice(LEAVES)
        for _ in range(rng.randrange(MAX_DEPTH - 8, MAX_DEPTH + 4)):
            text = rng.choice(WRAPS).format(text)
            if rng.random() < 0.1:
                text = f"({text}) and {rng.choice(LEAVES)}"
        assert outcome(_check_tree, text) == outcome(reference_check, text), text


def builtin_expressions() -> list[tuple[str, frozenset[str]]]:
    rules, problems = load_rules()
    assert not problems
    found = []
    for rule in rules:
        names = frozenset(rule.params)
        texts = [rule.when, rule.check]
        for wording in rule.messages:
            texts += [wording.when, *(e for e, _ in template_fields(wording.text))]
        for fix in rule.fixes:
            texts += [fix.when, *fix.set.values(), *(e for e, _ in template_fields(fix.text))]
        found += [(t, frozenset(n for n in names if n in t)) for t in texts if t]
    return list(dict.fromkeys(found))


def test_every_builtin_expression_passes_both_checks():
    for text, _ in builtin_expressions():
        assert outcome(_check_tree, text) == outcome(reference_check, text) == "ok"


def test_every_builtin_expression_compiles_to_the_node_kinds_builders():
    # each of them is compiled (none left to simpleeval), through one builder a node kind
    for text, names in builtin_expressions():
        assert expressions._compiled(text, names) is not None, text
    assert set(expressions._BUILDERS) == {
        ast.Constant,
        ast.Name,
        ast.Attribute,
        ast.BinOp,
        ast.UnaryOp,
        ast.BoolOp,
        ast.Compare,
        ast.IfExp,
        ast.Tuple,
        ast.Call,
    }


@pytest.mark.parametrize(
    "text",
    [
        "a and b",
        "a or b",
        "a and b and c",
        "a or b or c",
        "a and b and c and d",
        "a or b or c or d",
        "not a",
        "-a",
        "a if b else c",
        "(a, b, 1)",
        "('x', 'y')",
        "max(a, b)",
        "a + b * c",
        "a < b < c",
        "ns.v >= a",
    ],
)
def test_the_closures_answer_what_simpleeval_answers(text):
    class Space:
        v = 2

    functions = expressions.with_base_functions({})
    compiled = expressions._compiled(text, frozenset())
    assert compiled is not None
    for values in [(0, 1, 2, 3), (1, 0, 3, 0), (2, 2, 0, 1), (0, 0, 0, 0), (3, 1, 1, 5)]:
        names = dict(zip("abcd", values, strict=True), ns=Space())
        simple = expressions._Evaluator(operators=expressions.OPERATORS)
        simple.names, simple.functions = names, functions
        assert compiled(names, functions, None) == simple.eval(text, previously_parsed=parse(text))
