"""The rule expression language: a small, safe subset of Python expressions over the budget.

Evaluated by simpleeval (never Python's eval): arithmetic, comparisons, ``and``/``or``/``not``,
``in`` a tuple of literals (``x in ("awq", "gptq")``), attribute access to the budget's names,
and calls to the documented functions only; no imports, no underscore attributes, no method
calls. Message templates embed expressions in
braces, with an optional format after a colon: ``{draft.weights / gpu.usable:%}``.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

import simpleeval

from .units import format_quantity, is_quantity


class ExpressionError(Exception):
    """An expression that cannot be parsed or evaluated."""


MAX_SEQUENCE_LENGTH = 10_000
# Bounds on the expression itself: the longest built-in rule expression is under 300
# characters and nests a few levels.
MAX_EXPRESSION_LENGTH = 2_000
MAX_DEPTH = 40
MAX_FORMAT_WIDTH = 100  # widths and precisions in %-formats and message format specs


def _guard_size(value: Any) -> Any:
    if isinstance(value, (str, list, tuple)) and len(value) > MAX_SEQUENCE_LENGTH:
        raise ExpressionError("expression builds a value that is too long")
    return value


def _multiply(a: Any, b: Any) -> Any:
    # simpleeval's own guard calls len() on anything with __len__, which pint quantities have
    # but refuse for scalars; guard only the types that can actually grow.
    for sequence, count in ((a, b), (b, a)):
        if (
            isinstance(sequence, (str, list, tuple))
            and isinstance(count, int)
            and (count * len(sequence) > MAX_SEQUENCE_LENGTH)
        ):
            raise ExpressionError("expression builds a value that is too long")
    return a * b


def _add(a: Any, b: Any) -> Any:
    return _guard_size(a + b)


_PERCENT_FIELD = re.compile(r"%[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")


def _modulo(a: Any, b: Any) -> Any:
    """``"%5.1f" % x`` with bounded widths ("%999999999d" would build a gigabyte string)."""
    if isinstance(a, str):
        for width, precision in _PERCENT_FIELD.findall(a):
            for number in (width, precision):
                if number == "*" or (number and int(number) > MAX_FORMAT_WIDTH):
                    raise ExpressionError(f"a %-format width or precision over {MAX_FORMAT_WIDTH}")
        return _guard_size(a % b)
    return a % b


def _left_shift(a: Any, b: Any) -> Any:
    if isinstance(b, int) and b > 64:
        raise ExpressionError(f"shift by {b} is too large")
    return a << b


def _power(a: Any, b: Any) -> Any:
    exponent = b.magnitude if is_quantity(b) else b
    if abs(exponent) > 100:
        raise ExpressionError(f"exponent {exponent} is too large")
    base = a.magnitude if is_quantity(a) else a
    if isinstance(base, (int, float)) and abs(base) > 1e12 and abs(exponent) > 2:
        raise ExpressionError("power is too large")
    return a**b


OPERATORS = {
    **simpleeval.DEFAULT_OPERATORS,
    ast.Mult: _multiply,
    ast.Add: _add,
    ast.Pow: _power,
    ast.Mod: _modulo,
    ast.LShift: _left_shift,
}


class _Evaluator(simpleeval.SimpleEval):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # a tuple literal, for membership: quant in ("awq", "awq_marlin")
        self.nodes[ast.Tuple] = self._eval_tuple

    def _eval_tuple(self, node: ast.Tuple) -> tuple:
        return tuple(self._eval(element) for element in node.elts)

    def _eval_call(self, node: ast.Call) -> Any:
        # Only the functions we document may be called: no methods of the objects in scope.
        if not isinstance(node.func, ast.Name) or node.func.id not in self.functions:
            raise simpleeval.FeatureNotAvailable("only the documented functions can be called")
        if node.keywords and node.func.id in BASE_FUNCTIONS:
            # min(..., key=f) would call f, and f could be a method of a value in scope
            raise simpleeval.FeatureNotAvailable(f"{node.func.id}() takes no keyword arguments")
        return super()._eval_call(node)


class Lazy:
    """A namespace whose values may be computed on first access (a whatif budget, say)."""

    def __init__(self, values: Mapping[str, Any]):
        self._values = dict(values)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name not in self._values:
            raise AttributeError(name)
        value = self._values[name]
        if callable(value) and not isinstance(value, Lazy):
            value = value()
            self._values[name] = value
        return value

    def __repr__(self) -> str:
        return f"Lazy({sorted(self._values)})"


def _floor(value: Any) -> Any:
    if is_quantity(value):
        return math.floor(value.magnitude) * value.units
    return math.floor(value)


def _ceil(value: Any) -> Any:
    if is_quantity(value):
        return math.ceil(value.magnitude) * value.units
    return math.ceil(value)


BASE_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "min": min,
    "max": max,
    "abs": abs,
    "floor": _floor,
    "ceil": _ceil,
}


def _shown(expression: str) -> str:
    text = " ".join(expression.split())
    return f"'{text}'" if len(text) <= 80 else f"'{text[:77]}...'"


def _check_tree(tree: ast.AST) -> None:
    """Depth and node kinds, without recursion (the tree may be deep: that is what we check)."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ExpressionError(f"expression nests deeper than {MAX_DEPTH} levels")
        if isinstance(node, (ast.JoinedStr, ast.FormattedValue)):
            raise ExpressionError("f-strings are not supported (use a message template)")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


@lru_cache(maxsize=2048)
def parse(expression: str) -> ast.AST:
    """Parse once; rules are evaluated against many deployments. Bounded: a long or deeply
    nested expression is refused before or while parsing, never a crash."""
    if not isinstance(expression, str):
        raise ExpressionError("an expression must be a string")
    if len(expression) > MAX_EXPRESSION_LENGTH:
        raise ExpressionError(
            f"expression is {len(expression):,} characters, over the limit of "
            f"{MAX_EXPRESSION_LENGTH:,}"
        )
    try:
        tree = ast.parse(expression.strip(), mode="eval").body
    except SyntaxError as exc:
        raise ExpressionError(f"invalid expression {_shown(expression)}: {exc.msg}") from exc
    except (RecursionError, MemoryError, ValueError) as exc:
        raise ExpressionError(
            f"invalid expression {_shown(expression)}: {type(exc).__name__}"
        ) from None
    _check_tree(tree)
    return tree


_IDLE: list[_Evaluator] = []


def evaluate(expression: str, names: Mapping[str, Any], functions: Mapping[str, Any]) -> Any:
    # Evaluators are reused, re-pointed at each scope (building one costs more than most
    # evaluations); a nested evaluation, should a function ever make one, takes another.
    evaluator = _IDLE.pop() if _IDLE else _Evaluator(operators=OPERATORS)
    evaluator.names = dict(names)
    evaluator.functions = {**BASE_FUNCTIONS, **functions}
    try:
        return evaluator.eval(expression, previously_parsed=parse(expression))
    except ExpressionError:
        raise
    except Exception as exc:  # simpleeval, pint and arithmetic errors alike, memory too
        detail = " ".join(str(exc).split())
        detail = detail if len(detail) <= 200 else detail[:197] + "..."
        raise ExpressionError(f"{_shown(expression)}: {type(exc).__name__}: {detail}") from None
    finally:
        _IDLE.append(evaluator)


_FIELD = re.compile(r"\{([^{}]+)\}")
_FORMAT_SPEC = re.compile(r"^[%.,\w]*$")


_SPEC_NUMBER = re.compile(r"\d+")


def check_spec(spec: str) -> None:
    """A message format spec's widths and precisions are bounded (``{x:999999999}`` would
    build a gigabyte string)."""
    if any(int(n) > MAX_FORMAT_WIDTH for n in _SPEC_NUMBER.findall(spec)):
        raise ExpressionError(
            f"format '{spec[:20]}' has a width or precision over {MAX_FORMAT_WIDTH}"
        )


def check_template(template: str) -> None:
    """Every field of a message template has a bounded format (the expressions are parsed
    separately, with ``parse``)."""
    for _, spec in template_fields(template):
        check_spec(spec)


def template_fields(template: str) -> list[tuple[str, str]]:
    """The ``(expression, format)`` pairs of a message template."""
    out = []
    for match in _FIELD.finditer(template):
        inner = match.group(1)
        expression, spec = inner, ""
        if ":" in inner:
            head, _, tail = inner.rpartition(":")
            if _FORMAT_SPEC.match(tail.strip()) and head.count("(") == head.count(")"):
                expression, spec = head, tail.strip()
        out.append((expression, spec))
    return out


def render(
    template: str,
    names: Mapping[str, Any],
    functions: Mapping[str, Any],
    byte_unit: str = "GiB",
) -> str:
    """Fill a message template, printing every value in the unit a reader expects."""

    def substitute(match: re.Match) -> str:
        [(expression, spec)] = template_fields(match.group(0))
        check_spec(spec)
        value = evaluate(expression, names, functions)
        try:
            return format_quantity(value, spec, byte_unit)
        except (ValueError, TypeError) as exc:
            raise ExpressionError(f"'{match.group(0)}': cannot format: {exc}") from exc

    return _FIELD.sub(substitute, template).strip()
