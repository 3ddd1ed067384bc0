"""Rule expressions as one generated Python function each, for a budget's scope.

expressions.py compiles an expression into a tree of closures, one Python call a node on every
evaluation; a rule's ``when`` and ``check`` are evaluated on every deployment, and those calls
were most of what evaluating them cost. Here the same, already validated tree (parse() and the
closure compiler accepted it) is written out as the source of one function, in which names are
read from the scope by subscript, and comparisons, ``and``/``or``/``not`` and plain arithmetic
are Python's own operators, and compiled with compile().

Nothing of the expression's text is ever compiled: the source is made only of this module's own
words. A name or attribute the expression reads is a string literal written with repr() (a
scope key, never an identifier), every other constant and every operator or function that is not
Python's own is passed in as a global of the generated code, and any node this module does not
write out itself calls the closure expressions.py built for it.

The function gives the same value and raises the same errors as the closure, in the same order,
for the one kind of names it is called with: a budget's rule scope (rules._scope). It reads in
one subscript only the "space.name" entries that such a scope always has (``flat``), which is
what the closure does first; every other read is the closure's own.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import simpleeval

from . import expressions
from .expressions import OPERATORS, _attribute, called_function
from .quantity import Quantity

Compiled = expressions.Compiled

# Operators simpleeval evaluates with Python's own operator (the same function of the operator
# module): written as the operator itself. Anything else (hbmlint's guarded +, *, **, %, <<,
# simpleeval's >>) is called, passed in as a global.
_BINARY = {
    operator.sub: "-",
    operator.truediv: "/",
    operator.floordiv: "//",
    operator.xor: "^",
    operator.or_: "|",
    operator.and_: "&",
}
_UNARY = {operator.not_: "not ", operator.neg: "-", operator.pos: "+", operator.invert: "~"}
_COMPARE = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.In: "in",
    ast.NotIn: "not in",
}
_VERSUS_ZERO = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


class _Writer:
    """The source of one expression's function, and the globals it reads."""

    def __init__(self, expression: str, param_names: frozenset[str], flat: frozenset[str]) -> None:
        self.expression = expression
        self.param_names = param_names
        self.flat = flat
        self.env: dict[str, Any] = {}
        self.count = 0

    def name(self, prefix: str, value: Any) -> str:
        """A new global of the generated code holding ``value``."""
        self.count += 1
        key = f"_{prefix}{self.count}"
        self.env[key] = value
        return key

    def local(self) -> str:
        """A new local variable of the generated code (an assignment expression's)."""
        self.count += 1
        return f"_v{self.count}"

    def closure(self, node: ast.AST) -> str:
        """A call of the closure expressions.py builds for ``node``."""
        built = expressions._build(node, self.expression, self.param_names)
        return f"{self.name('s', built)}(names, functions, params)"

    def constant(self, value: Any) -> str:
        """A constant: a literal where repr() writes one, else a global holding it."""
        kind = type(value)
        if kind in (str, int, bool) or value is None:
            return repr(value)  # a literal of an equal value (repr of a str is always one)
        if kind is float and math.isfinite(value):
            return repr(value)  # floats' repr reads back as the same float
        return self.name("c", value)

    def write(self, node: ast.AST) -> str:
        kind = type(node)
        if kind is ast.Constant:
            return self.constant(node.value)  # type: ignore[attr-defined]
        if kind is ast.Name:
            key = node.id  # type: ignore[attr-defined]
            if key in self.param_names:
                return f"params[{key!r}]"
            return self.closure(node)  # a bare name: the closure's reading of it
        if kind is ast.Attribute:
            return self.attribute(node)
        if kind is ast.BinOp:
            binary = OPERATORS[type(node.op)]  # type: ignore[attr-defined]
            left = self.write(node.left)  # type: ignore[attr-defined]
            right = self.write(node.right)  # type: ignore[attr-defined]
            if binary in _BINARY:
                return f"({left} {_BINARY[binary]} {right})"
            return f"{self.name('f', binary)}({left}, {right})"
        if kind is ast.UnaryOp:
            unary = OPERATORS[type(node.op)]  # type: ignore[attr-defined]
            operand = self.write(node.operand)  # type: ignore[attr-defined]
            if unary in _UNARY:
                return f"({_UNARY[unary]}{operand})"
            return f"{self.name('f', unary)}({operand})"
        if kind is ast.BoolOp:
            joint = " and " if type(node.op) is ast.And else " or "  # type: ignore[attr-defined]
            return "(" + joint.join(self.write(v) for v in node.values) + ")"  # type: ignore[attr-defined]
        if kind is ast.Compare:
            return self.compare(node)
        if kind is ast.IfExp:
            test = self.write(node.test)  # type: ignore[attr-defined]
            body = self.write(node.body)  # type: ignore[attr-defined]
            orelse = self.write(node.orelse)  # type: ignore[attr-defined]
            return f"({body} if {test} else {orelse})"
        if kind is ast.Tuple:
            if expressions._is_constant(node):
                return self.name("c", expressions._constant_value(node))
            return "(" + "".join(f"{self.write(e)}, " for e in node.elts) + ")"  # type: ignore[attr-defined]
        if kind is ast.Call:
            return self.call(node)
        return self.closure(node)

    def attribute(self, node: Any) -> str:
        inner = node.value
        if type(inner) is ast.Name and inner.id not in self.param_names:
            key = f"{inner.id}.{node.attr}"
            if key in self.flat:
                # an entry the scope always has (``flat``), read as the closure reads it first
                return f"names[{key!r}]"
            return self.closure(node)  # one it may lack: the closure reads it another way
        return f"_attribute({self.write(inner)}, {node.attr!r}, _expression)"

    def compare(self, node: Any) -> str:
        kind = type(node.ops[0])
        if len(node.ops) != 1 or kind not in _COMPARE:
            return self.closure(node)
        if OPERATORS.get(kind) is not simpleeval.DEFAULT_OPERATORS.get(kind):
            return self.closure(node)  # an operator of hbmlint's own: the closure calls it
        symbol = _COMPARE[kind]
        right_node = node.comparators[0]
        left = self.write(node.left)
        if expressions._is_constant(right_node):
            value = expressions._constant_value(right_node)
            right = self.write(right_node)  # a literal, or the constant tuple as a global
            if kind in _VERSUS_ZERO and type(value) in (int, float) and value == 0:
                # what the closure answers for a quantity with a dimension: its magnitude
                held = self.local()
                return (
                    f"({held}._magnitude {symbol} {right} if type({held} := {left}) is _Quantity"
                    f" and {held}._units._dimensions else {held} {symbol} {right})"
                )
            return f"({left} {symbol} {right})"
        right = self.write(right_node)
        one = f"({left} {symbol} {right})"
        first = expressions._name_read(node.left, self.param_names)
        second = expressions._name_read(right_node, self.param_names)
        if first is None or second is None:
            return one
        # two of the scope's names: worked out once a scope and kept (_shared_comparison);
        # an error is not kept, nor anything where the scope keeps nothing (_results None)
        key = repr(f"{first} {kind.__name__} {second}")
        return (
            f"({one} if (_kept := names._results) is None else _kept[{key}] if {key} in _kept"
            f" else _kept.setdefault({key}, {one}))"
        )

    def call(self, node: Any) -> str:
        # the function found (and refused) before its arguments are worked out, as the
        # closure does; keyword names are written as strings, in a dictionary
        called = node.func.id
        found = f"_function(functions, {called!r}, {bool(node.keywords)})"
        arguments = [self.write(a) for a in node.args]
        if node.keywords:
            pairs = ", ".join(f"{k.arg!r}: {self.write(k.value)}" for k in node.keywords)
            arguments.append(f"**{{{pairs}}}")
        return f"{found}({', '.join(arguments)})"


@lru_cache(maxsize=4096)
def generated(
    expression: str, param_names: frozenset[str], flat: frozenset[str]
) -> Compiled | None:
    """``expression``'s function, called as its closure is (``(names, functions, params)``,
    functions merged by with_base_functions, the parameters in ``param_names`` as ``params``),
    but only with a budget's scope made by Scope.over and ``with_flat`` (what rules._outcomes
    evaluates rules against), whose "space.name" entries named in ``flat`` it always answers:
    raising, if at all, only what working the name out raises (the closure would call the same
    function again, another way, and raise that again). None where the closure compiler leaves
    the expression to simpleeval, or it does not parse, or it is one read (a name, a constant).
    A built-in rule's function comes already compiled, from exprgen_builtin (see there)."""
    written = _written(expression, param_names, flat)
    if written is None:
        return None
    source, env = written
    env.update(_Quantity=Quantity, _function=called_function, _attribute=_attribute)
    env["_expression"] = expression
    factory = _builtin_factories().get(source)
    if factory is not None:
        try:
            return factory(**env)  # type: ignore[no-any-return]
        except TypeError:  # not the globals it was written with: compiled below
            pass
    env["__builtins__"] = {"type": type}
    code = compile(source, "<hbmlint rule expression>", "eval")
    made: Callable[..., Any] = eval(code, env)  # noqa: S307 - written here, no user text
    return made


def _written(
    expression: str, param_names: frozenset[str], flat: frozenset[str], one_read: bool = False
) -> tuple[str, dict[str, Any]] | None:
    """The source of ``expression``'s function (a lambda), and the values of the globals it
    reads that are the expression's own (all but _Quantity, _function, _attribute,
    _expression and type); None where none is generated (see ``generated``). ``one_read``:
    written for an expression that is one read too (tools/write_exprgen_builtin.py, where
    compiling costs a run nothing)."""
    try:
        slow = expressions._compiled(expression, param_names)
    except expressions.ExpressionError:
        return None
    if slow is None:
        return None
    tree = expressions.parse(expression)
    if not one_read and type(tree) in (ast.Constant, ast.Name, ast.Attribute):
        return None  # one read: its closure is one call too, and compiling would gain nothing
    writer = _Writer(expression, param_names, flat)
    body = writer.write(tree)
    return f"lambda names, functions, params: {body}", writer.env


@lru_cache(maxsize=1)
def _builtin_factories() -> dict[str, Callable[..., Compiled]]:
    """exprgen_builtin's factories by their function's source: imported when first needed
    (Python keeps its bytecode, so a run compiles none of the built-in rules' expressions)."""
    try:
        from . import exprgen_builtin
    except ImportError:  # not there: every expression is compiled
        return {}
    return exprgen_builtin.FACTORIES
