"""The rule expression language: a small, safe subset of Python expressions over the budget.

Evaluated by simpleeval (never Python's eval): arithmetic, comparisons, ``and``/``or``/``not``,
attribute access to the budget's names, and calls to the documented functions only; no
imports, no underscore attributes, no method calls. Message templates embed expressions in
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


def _power(a: Any, b: Any) -> Any:
    exponent = b.magnitude if is_quantity(b) else b
    if abs(exponent) > 100:
        raise ExpressionError(f"exponent {exponent} is too large")
    base = a.magnitude if is_quantity(a) else a
    if isinstance(base, (int, float)) and abs(base) > 1e12 and abs(exponent) > 2:
        raise ExpressionError("power is too large")
    return a**b


OPERATORS = {**simpleeval.DEFAULT_OPERATORS, ast.Mult: _multiply, ast.Add: _add, ast.Pow: _power}


class _Evaluator(simpleeval.SimpleEval):
    def _eval_call(self, node: ast.Call) -> Any:
        # Only the functions we document may be called: no methods of the objects in scope.
        if not isinstance(node.func, ast.Name) or node.func.id not in self.functions:
            raise simpleeval.FeatureNotAvailable("only the documented functions can be called")
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


@lru_cache(maxsize=2048)
def parse(expression: str) -> ast.AST:
    """Parse once; rules are evaluated against many deployments."""
    try:
        return ast.parse(expression.strip(), mode="eval").body
    except SyntaxError as exc:
        raise ExpressionError(f"invalid expression '{expression}': {exc.msg}") from exc


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
    except Exception as exc:  # simpleeval, pint and arithmetic errors alike
        raise ExpressionError(f"'{expression}': {type(exc).__name__}: {exc}") from exc
    finally:
        _IDLE.append(evaluator)


_FIELD = re.compile(r"\{([^{}]+)\}")
_FORMAT_SPEC = re.compile(r"^[%.,\w]*$")


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
        value = evaluate(expression, names, functions)
        try:
            return format_quantity(value, spec, byte_unit)
        except (ValueError, TypeError) as exc:
            raise ExpressionError(f"'{match.group(0)}': cannot format: {exc}") from exc

    return _FIELD.sub(substitute, template).strip()
