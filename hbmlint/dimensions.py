"""Units of rule expressions, checked when a rule loads.

A rule that compares bytes with tokens, adds a plain number to a byte count, or compares a
token count with a literal like 8192 fails on every deployment it is evaluated against (or,
for ``==``, never trips). Each name a rule may use has a unit in hbmlint/names.yaml, so the
unit of every sub-expression is known before any manifest is read: this module walks the
expression once and reports the first mismatch, with the part of the expression that holds it.

It follows hbmlint.quantity's semantics (pint's): sums, differences, orderings and ``min`` /
``max`` need one dimension on both sides, a plain number goes with a ratio or with zero only,
products and quotients combine dimensions. Anything it cannot know (a tuple, the speculative
table of ``tradeoff()``, a name it does not declare) is left alone: a rule is refused only for
a mismatch that is certain.
"""

from __future__ import annotations

import ast
from typing import Any

from .expressions import parse
from .quantity import Dimensionality, Quantity, _combine
from .records import dataclass
from .units import dimensionality

# names.yaml units whose values are quantities; every other unit is a plain value (count,
# sequences, ratio and capability are numbers, text a string, boolean a bool)
_QUANTITY_UNITS = {
    "bytes": "[information]",
    "bytes/token": "[information] / [token]",
    "tokens": "[token]",
}
_WORDS = {
    "[information]": "bytes",
    "[token]": "tokens",
    "[information] / [token]": "bytes per token",
    "[time]": "a time",
}


class UnitMismatch(Exception):
    """An expression that mixes units; the message says where."""


@dataclass(frozen=True)
class _Kind:
    """What an expression evaluates to, as far as units go."""

    what: str  # quantity, number, text, namespace, budget, unknown
    dims: Dimensionality | None = None  # a quantity's
    space: str = ""  # a namespace's name
    zero: bool = False  # the literal 0 (which pint lets stand for any unit)

    @property
    def dimensioned(self) -> bool:
        return self.what == "quantity" and bool(self.dims)

    def words(self) -> str:
        if self.what == "quantity":
            if not self.dims:
                return "a ratio"
            return _WORDS.get(str(self.dims), str(self.dims))
        if self.what == "number":
            return "a plain number"
        return self.what


_UNKNOWN = _Kind("unknown")
_NUMBER = _Kind("number")
_TEXT = _Kind("text")
_BUDGET = _Kind("budget")  # whatif(...): the same namespaces as the budget's


def kind_of_unit(unit: str) -> _Kind:
    """The kind of a name whose names.yaml unit is ``unit``."""
    if unit in _QUANTITY_UNITS:
        return _Kind("quantity", dimensionality(_QUANTITY_UNITS[unit]))
    return _TEXT if unit == "text" else _NUMBER


def kind_of_value(value: Any) -> _Kind:
    """The kind of a rule parameter's value (a number, a bool, or a quantity)."""
    if isinstance(value, Quantity):
        return _Kind("quantity", value.dimensionality, zero=value.magnitude == 0)
    if isinstance(value, str):
        return _TEXT
    if isinstance(value, (bool, int, float)):
        return _Kind("number", zero=value == 0)
    return _UNKNOWN


def check(expression: str, declared: dict[str, Any], params: dict[str, Any] | None = None) -> None:
    """Raise UnitMismatch where ``expression`` mixes units. ``declared``: names.yaml's content;
    ``params``: the rule's parameters, parsed."""
    _Checker(declared, params or {}).kind(parse(expression))


class _Checker:
    def __init__(self, declared: dict[str, Any], params: dict[str, Any]) -> None:
        self.spaces = declared["namespaces"]
        self.functions = declared["functions"]
        self.params = {name: kind_of_value(value) for name, value in params.items()}

    def kind(self, node: ast.AST) -> _Kind:  # noqa: C901 - one branch a node kind
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, str):
                return _TEXT
            if isinstance(value, (bool, int, float)):
                return _Kind("number", zero=value == 0 and not isinstance(value, bool))
            return _UNKNOWN
        if isinstance(node, ast.Name):
            if node.id in self.params:
                return self.params[node.id]
            if node.id in self.spaces:
                return _Kind("namespace", space=node.id)
            return _UNKNOWN
        if isinstance(node, ast.Attribute):
            base = self.kind(node.value)
            if base.what == "namespace":
                entry = self.spaces[base.space].get(node.attr)
                return kind_of_unit(entry["unit"]) if entry else _UNKNOWN
            if base.what == "budget" and node.attr in self.spaces:
                return _Kind("namespace", space=node.attr)
            return _UNKNOWN
        if isinstance(node, ast.Call):
            arguments = [self.kind(a) for a in node.args]
            for keyword in node.keywords:
                self.kind(keyword.value)
            name = node.func.id if isinstance(node.func, ast.Name) else ""
            if name == "whatif":
                return _BUDGET
            if name in ("min", "max") and arguments:
                for other in arguments[1:]:
                    self._same(arguments[0], other, node, f"{name}() of")
                return arguments[0] if arguments[0].what == "quantity" else _UNKNOWN
            if name in ("abs", "floor", "ceil") and len(arguments) == 1:
                return arguments[0]
            if name == "engine_at_least":
                return _NUMBER
            return _UNKNOWN
        if isinstance(node, ast.BinOp):
            return self._binary(node)
        if isinstance(node, ast.UnaryOp):
            operand = self.kind(node.operand)
            return _NUMBER if isinstance(node.op, ast.Not) else operand
        if isinstance(node, ast.BoolOp):
            kinds = [self.kind(value) for value in node.values]
            return kinds[0] if all(k == kinds[0] for k in kinds) else _UNKNOWN
        if isinstance(node, ast.Compare):
            left = self.kind(node.left)
            for operation, comparator in zip(node.ops, node.comparators, strict=True):
                right = self.kind(comparator)
                if not isinstance(operation, (ast.In, ast.NotIn, ast.Is, ast.IsNot)):
                    self._same(left, right, node, "compares")
                left = right
            return _NUMBER
        if isinstance(node, ast.IfExp):
            self.kind(node.test)
            body, orelse = self.kind(node.body), self.kind(node.orelse)
            return body if body == orelse else _UNKNOWN
        for child in ast.iter_child_nodes(node):  # tuples and the like: their parts still count
            self.kind(child)
        return _UNKNOWN

    def _binary(self, node: ast.BinOp) -> _Kind:
        left, right = self.kind(node.left), self.kind(node.right)
        if "unknown" in (left.what, right.what) or "text" in (left.what, right.what):
            return _UNKNOWN  # "%.1f" % x, or a value we cannot know
        if isinstance(node.op, (ast.Add, ast.Sub)):
            self._same(left, right, node, "adds" if isinstance(node.op, ast.Add) else "subtracts")
            return left if left.what == "quantity" and not left.zero else right
        if isinstance(node.op, (ast.Mult, ast.Div)):
            if left.what == "quantity" and right.what == "quantity":
                sign = 1 if isinstance(node.op, ast.Mult) else -1
                dims = _product(left.dims, right.dims, sign)
                return _Kind("quantity", dims)
            if right.what == "quantity":
                if isinstance(node.op, ast.Mult):
                    return right
                return _Kind("quantity", _product(Dimensionality({}), right.dims, -1))
            return left
        if isinstance(node.op, (ast.FloorDiv, ast.Mod)):
            if left.what == "quantity" and right.what == "quantity":
                self._same(left, right, node, "divides")
                return (
                    _Kind("quantity", Dimensionality({}))
                    if isinstance(node.op, ast.FloorDiv)
                    else left
                )
            if left.dimensioned or right.dimensioned:
                word = "divides" if isinstance(node.op, ast.FloorDiv) else "takes the remainder of"
                raise UnitMismatch(
                    f"{word} {left.words()} by {right.words()} in '{ast.unparse(node)}'"
                )
            return _NUMBER
        if isinstance(node.op, ast.Pow):
            if right.dimensioned:
                raise UnitMismatch(f"an exponent in {right.words()} in '{ast.unparse(node)}'")
            if left.dimensioned and not isinstance(node.right, ast.Constant):
                return _UNKNOWN
            if left.dimensioned:
                exponent = node.right.value  # type: ignore[attr-defined]
                items = {d: e * exponent for d, e in _items(left.dims).items()}
                return _Kind("quantity", Dimensionality(items))
            return left
        return _UNKNOWN

    def _same(self, left: _Kind, right: _Kind, node: ast.AST, verb: str) -> None:
        """Both sides of a sum, a comparison or a min/max must be of one dimension."""
        numeric = ("quantity", "number")
        if left.what not in numeric or right.what not in numeric:
            return
        if left.what == right.what == "quantity":
            if left.dims == right.dims or left.zero or right.zero:
                return
        elif not (left.dimensioned or right.dimensioned):
            return  # numbers and ratios
        elif left.zero or right.zero:
            return  # 0 stands for any unit
        raise UnitMismatch(f"{verb} {left.words()} with {right.words()} in '{ast.unparse(node)}'")


def _items(dims: Dimensionality | None) -> dict[str, Any]:
    return dict(getattr(dims, "_items", None) or {})


def _product(a: Dimensionality | None, b: Dimensionality | None, sign: int) -> Dimensionality:
    """The dimensions of a product (sign 1) or quotient (sign -1), as quantity.py combines
    units."""
    return Dimensionality(_combine(_items(a), _items(b), sign))
