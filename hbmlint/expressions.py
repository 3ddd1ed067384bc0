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
import operator
import re
import warnings
from collections.abc import Callable, Mapping
from functools import cache, lru_cache
from types import ModuleType
from typing import Any

from .lazyre import LazyPattern
from .quantity import Quantity
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


_PERCENT_FIELD = LazyPattern(r"%[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")


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


# hbmlint's own operators, in place of simpleeval's: the generated modules read them here
OWN_OPERATORS = {
    ast.Mult: _multiply,
    ast.Add: _add,
    ast.Pow: _power,
    ast.Mod: _modulo,
    ast.LShift: _left_shift,
}

_SIMPLEEVAL: ModuleType | None = None


def _simpleeval() -> ModuleType:
    """simpleeval, imported when first needed: to parse an expression, evaluate one the
    closures leave to it, or refuse something. Its import (random's with it) costs more than
    linting a file (~5M instructions), and the built-in rules' generated functions over a
    clean manifest never need it."""
    global _SIMPLEEVAL
    if _SIMPLEEVAL is None:
        import simpleeval

        _SIMPLEEVAL = simpleeval
    return _SIMPLEEVAL


@cache
def _operators() -> dict[type, Callable[..., Any]]:
    """OPERATORS: simpleeval's, with hbmlint's own in place of its Mult, Add, Pow, Mod and
    LShift."""
    return {**_simpleeval().DEFAULT_OPERATORS, **OWN_OPERATORS}


@cache
def _evaluator_class() -> type:
    """_Evaluator: simpleeval's evaluator as rule expressions use it."""
    simpleeval = _simpleeval()

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

    return _Evaluator


def __getattr__(name: str) -> Any:
    """OPERATORS and _Evaluator, made when first asked for (both need simpleeval)."""
    if name == "OPERATORS":
        return _operators()
    if name == "_Evaluator":
        return _evaluator_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Lazy:
    """A namespace whose values may be computed on first access (a whatif budget, say)."""

    def __init__(self, values: Mapping[str, Any]):
        self._values = values = dict(values)
        # Values known now are plain attributes (Python finds them without calling
        # __getattr__, which rules would otherwise call tens of thousands of times a run).
        self.__dict__.update(
            {
                name: value
                for name, value in values.items()
                if (not callable(value) or type(value) is Lazy) and name[:1] != "_"
            }
        )

    @classmethod
    def of(
        cls, known: dict[str, Any], thunks: Mapping[str, Callable[[], Any]] | None = None
    ) -> Lazy:
        """A namespace of values known now and thunks, taken as they are: Lazy() tests each
        value (callable? a name with an underscore?), which cost most of building a budget's
        ten namespaces. ``known`` becomes the namespace's own (pass a new dict); no name
        begins with an underscore."""
        made = cls.__new__(cls)
        values = {**known, **thunks} if thunks else dict(known)
        made.__dict__ = known
        known["_values"] = values
        return made

    @classmethod
    def over(cls, context: Any, table: Mapping[str, Callable[[Any], Any]]) -> Lazy:
        """A namespace whose values are ``table[name](context)``, each worked out when first
        read and kept on this namespace (the table, shared by every namespace made from it, is
        not written to): a budget's rules read about a third of its names. ``table`` holds
        hbmlint's own functions; no name begins with an underscore."""
        made = cls.__new__(cls)
        made.__dict__ = {"_values": table, "_context": context}
        return made

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name not in self._values:
            raise AttributeError(name)
        value = self._values[name]
        if "_context" in self.__dict__:  # made by over(): the table's function gives it
            value = self.__dict__[name] = value(self._context)
        elif callable(value) and not isinstance(value, Lazy):
            value = value()
            self._values[name] = value
            self.__dict__[name] = value
        return value

    def __repr__(self) -> str:
        return f"Lazy({sorted(self._values)})"


class Scope(dict):
    """The names expressions see. A budget's scope (``Scope.over``) builds each name on first
    use from one table of builders shared by every budget, called with the budget's context (a
    rule reads two or three namespaces). A scope with a ``parent`` adds its own names (a rule's
    parameters) over the parent's, which it reads through without copying them.

    A budget's scope also answers ``scope["kv.tokens"]``, a namespace's name, which compiled
    expressions read in one lookup (see _name_attribute): worked out once, kept under that key,
    and the same value the namespace gives (one is read through the other)."""

    __slots__ = ("_builders", "_parent", "_context", "_results", "_flat")

    def __init__(self, values: Mapping[str, Any] | None = None, parent: Scope | None = None):
        super().__init__(values or ())
        self._builders: Mapping[str, Callable[[Any], Any]] = {}
        self._parent = parent
        self._context: Any = None
        self._results: dict[str, Any] | None = None
        self._flat: Mapping[str, tuple[str, Callable[[Any], Any]]] | None = None

    @classmethod
    def over(cls, context: Any, builders: Mapping[str, Callable[[Any], Any]]) -> Scope:
        """A scope whose names are ``builders[name](context)``, each built when first read
        (made without __init__'s call: a scope is made for every budget a run lints)."""
        made = dict.__new__(cls)
        made._builders = builders
        made._parent = None
        made._context = context
        # comparisons of two of its names, worked out once (_shared_comparison)
        made._results = {}
        made._flat = None
        return made

    def with_flat(self, flat: Mapping[str, tuple[str, Callable[[Any], Any]]]) -> Scope:
        """This scope (made by ``over``), reading ``scope["space.name"]`` with ``flat``: for
        each such name, ``space`` and the function of the context that the namespace
        ``builders[space](context)`` (a Lazy.over of its table) works the name out with, so
        that the namespace need not be built for it."""
        self._flat = flat
        return self

    def fill(self, builds: tuple[tuple[str, Callable[[Any], Any]], ...]) -> None:
        """Work out these "space.name" entries of a new scope (made by ``over``, no name read
        yet) now, each with the function ``flat`` has for it, in one pass: names that every
        evaluation reads, each of which would otherwise cost a lookup that misses and a call of
        __missing__. One whose function raises is left out, to be read (and raise) where an
        expression reads it, as before."""
        context = self._context
        for key, build in builds:
            try:
                value = build(context)
            except Exception:  # noqa: BLE001 - raised again where it is read
                continue
            self[key] = value

    def __missing__(self, key: str) -> Any:
        flat = self._flat
        if flat is not None:
            found = flat.get(key)
            if found is not None:  # "space.name" of a namespace that is its table
                space, build = found
                if space in self:  # the namespace is made: the value it holds, or works out
                    value = _lazy_value(self[space], key[len(space) + 1 :])
                else:
                    value = build(self._context)
                self[key] = value
                return value
        if self._parent is not None:
            return self._parent[key]  # built, and kept, by the parent
        builders = self._builders
        if key in builders:
            value = self[key] = builders[key](self._context)
            if flat is not None and type(value) is Lazy and "_context" in value.__dict__:
                _hold_read(self, key, value)
            return value
        space, dot, attr = key.partition(".")
        if not dot or space not in builders or attr[:1] == "_" or "." in attr:
            raise KeyError(key)  # no such name
        value = self[key] = _lazy_value(self[space], attr)  # workload.declared, say
        return value

    def complete(self) -> dict[str, Any]:
        """Every name, built (what simpleeval, which copies its names, is given)."""
        if self._parent is not None:
            every = self._parent.complete()
        else:
            every = {key: self[key] for key in self._builders}
        # not the "space.name" entries: names an expression reads are single words
        every.update((key, value) for key, value in self.items() if "." not in key)
        return every


def _hold_read(scope: Scope, space: str, namespace: Lazy) -> None:
    """A namespace made after some of its names were read as "space.name" holds those values,
    not ones worked out again (where its first name is read that way, so may the others)."""
    known = namespace.__dict__
    table = known["_values"]
    prefix = space + "."
    if prefix + next(iter(table), "") not in scope._flat:  # type: ignore[operator]
        return
    for name in table:
        read = dict.get(scope, prefix + name, _UNSET)
        if read is not _UNSET:
            known[name] = read


def _lazy_value(namespace: Any, attr: str) -> Any:
    """``namespace.attr`` for a Lazy namespace that has that name (worked out and kept as
    Lazy.__getattr__ does); KeyError for anything else, which the caller reads the usual way
    (an error, an object of another kind)."""
    if type(namespace) is Lazy:
        known = namespace.__dict__
        if attr in known:
            return known[attr]
        if attr in known["_values"]:
            return getattr(namespace, attr)
    raise KeyError(attr)


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
    # ast.iter_child_nodes' children in its order, read without its two generators (half of
    # the cost of parsing a rule expression went to them). A child that can raise nothing is
    # not visited: a node with no fields (an operator, a context), a constant or a name (whose
    # context is one level below it) above the deepest level allowed; the others are visited
    # in the same order as before, so the first problem found is the same.
    node_type = ast.AST
    quiet = _QUIET_NODES
    shallow = MAX_DEPTH - 1
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
            if isinstance(value, node_type):
                if depth > shallow or not (type(value) in quiet or not value._fields):
                    stack.append((value, depth))
            elif isinstance(value, list):
                stack.extend(
                    [
                        (item, depth)
                        for item in value
                        if isinstance(item, node_type)
                        and (depth > shallow or not (type(item) in quiet or not item._fields))
                    ]
                )


# Nodes whose subtree is at most one level deep and holds no f-string: a constant, a name
_QUIET_NODES = frozenset({ast.Constant, ast.Name})


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
        with warnings.catch_warnings():
            # Python's own warnings about the text ("invalid decimal literal" for 1else) would
            # print on stderr beside the finding that says what is wrong with the rule
            warnings.simplefilter("ignore")
            tree = ast.parse(expression.strip(), mode="eval").body
    except SyntaxError as exc:
        raise ExpressionError(f"invalid expression {_shown(expression)}: {exc.msg}") from exc
    except (RecursionError, MemoryError, ValueError) as exc:
        raise ExpressionError(
            f"invalid expression {_shown(expression)}: {type(exc).__name__}"
        ) from None
    _check_tree(tree)
    return tree


_IDLE: list[Any] = []  # _Evaluators
_MERGED = object()
# the documented functions with the mark, merged once: every budget's scope starts from them
_BASE_MERGED = {**BASE_FUNCTIONS, "": _MERGED}


def with_base_functions(functions: Mapping[str, Any]) -> dict[str, Any]:
    """``functions`` merged with the documented ones, marked so that evaluate() uses them as
    they are (a scope evaluated thousands of times is merged once)."""
    return {**_BASE_MERGED, **functions}  # (no caller's function is named "")


def evaluate(expression: str, names: Mapping[str, Any], functions: Mapping[str, Any]) -> Any:
    return evaluator(expression)(names, functions, None)


Evaluator = Callable[[Mapping[str, Any], Mapping[str, Any], Mapping[str, Any] | None], Any]


@lru_cache(maxsize=4096)
def evaluator(expression: str, param_names: frozenset[str] = frozenset()) -> Evaluator:
    """``evaluate`` for one expression, worked out once: call it with ``(names, functions,
    params)``. ``params`` (a rule's parameters, the names in ``param_names``) are seen over
    ``names`` without a scope built to hold both; None when ``param_names`` is empty. Raises
    ExpressionError as evaluate does, when called (never here)."""
    found: list[Compiled | None] = []  # the compiled function, or None for simpleeval

    def run(
        names: Mapping[str, Any], functions: Mapping[str, Any], params: Mapping[str, Any] | None
    ) -> Any:
        # the documented functions, then the caller's (a rule's scope holds them merged)
        every = functions if functions.get("") is _MERGED else {**BASE_FUNCTIONS, **functions}
        evaluator = None
        try:
            if not found:  # a parse error is not kept: it is raised again on every call
                found.append(_compiled(expression, param_names))
            compiled = found[0]
            if compiled is not None:
                return compiled(names, every, params)
            if params:
                names = (
                    Scope(params, parent=names) if isinstance(names, Scope) else {**names, **params}
                )
            # Evaluators are reused, re-pointed at each scope (building one costs more than
            # most evaluations); a nested evaluation, should a function make one, takes another.
            evaluator = _IDLE.pop() if _IDLE else _evaluator_class()(operators=_operators())
            evaluator.names = names.complete() if isinstance(names, Scope) else dict(names)
            evaluator.functions = every
            return evaluator.eval(expression, previously_parsed=parse(expression))
        except ExpressionError:
            raise
        except Exception as exc:  # simpleeval, unit and arithmetic errors alike, memory too
            raise evaluation_error(expression, exc) from None
        finally:
            if evaluator is not None:
                _IDLE.append(evaluator)

    return run


def parameter_evaluator(expression: str, param_names: frozenset[str]) -> Evaluator:
    """``evaluator(expression, param_names)`` keyed only on the parameters whose names the
    expression's text holds (every one it reads, and perhaps one that is part of a longer
    name, which changes nothing): most of a rule's message and fix expressions read none,
    and share the evaluator, and the compiled closure, of the same text without them."""
    return evaluator(expression, held_parameters(expression, param_names))


def held_parameters(expression: str, param_names: frozenset[str]) -> frozenset[str]:
    """The parameters whose names ``expression``'s text holds: what parameter_evaluator keys
    on (and the generated findings' functions are written for)."""
    return frozenset(n for n in param_names if n in expression)


def evaluation_error(expression: str, exc: Exception) -> ExpressionError:
    """What evaluating ``expression`` raises for an error while working it out."""
    detail = " ".join(str(exc).split())
    detail = detail if len(detail) <= 200 else detail[:197] + "..."
    return ExpressionError(f"{_shown(expression)}: {type(exc).__name__}: {detail}")


def merged_evaluator(expression: str, param_names: frozenset[str] = frozenset()) -> Evaluator:
    """The fastest way to evaluate ``expression`` with functions merged by
    ``with_base_functions``: its compiled closure, which raises the expression's errors
    unwrapped (the caller passes them to ``evaluation_error``, ExpressionError as it is), or
    where it has none (simpleeval's, or a parse error) ``evaluator``'s function."""
    try:
        compiled = _compiled(expression, param_names)
    except ExpressionError:
        compiled = None
    return compiled if compiled is not None else evaluator(expression, param_names)


# --- expressions compiled once ----------------------------------------------------------------
#
# Walking simpleeval's tree costs a dozen Python calls a node on every evaluation, and rules are
# evaluated tens of thousands of times a run. An expression made only of the nodes rules use
# (names, attributes, constants, arithmetic, comparisons, and/or/not, if-else, tuples, calls of
# the documented functions) is compiled once into nested closures that do what simpleeval does
# for those nodes, with the same operators, the same refusals and the same errors. Anything else
# (subscripts, comprehensions, refused attributes) is left to simpleeval, which refuses it or
# evaluates it as before. (Generating Python source for compile() instead ran the built-in
# rules about 15% faster but cost ten times as much to build: 30 ms for a one-file lint.)


class _NotCompiled(Exception):
    """A node the compiler leaves to simpleeval."""


Compiled = Callable[[Mapping[str, Any], Mapping[str, Any], Mapping[str, Any] | None], Any]


@lru_cache(maxsize=4096)
def _compiled(expression: str, param_names: frozenset[str] = frozenset()) -> Compiled | None:
    tree = parse(expression)
    try:
        return _build(tree, expression, param_names)
    except _NotCompiled:
        return None


def _name(key: str, expression: str) -> Compiled:
    def name(names: Any, functions: Any, params: Any) -> Any:
        try:
            return names[key]
        except (TypeError, KeyError):
            return _not_in_names(key, functions, expression)

    return name


def _not_in_names(key: str, functions: Mapping[str, Any], expression: str) -> Any:
    """A name the names do not hold: a function, or not defined."""
    if key in functions:
        return functions[key]
    raise _simpleeval().NameNotDefined(key, expression)


def _attribute(value: Any, attr: str, expression: str) -> Any:
    """``value.attr`` as simpleeval reads it."""
    if type(value) is Lazy:  # a namespace of the budget's: its known values are plain
        known = value.__dict__
        if attr in known:
            return known[attr]
    try:
        item = getattr(value, attr)
    except (AttributeError, TypeError):
        try:
            item = value[attr]
        except (KeyError, TypeError):
            raise _simpleeval().AttributeDoesNotExist(attr, expression) from None
    if isinstance(item, ModuleType):
        raise _simpleeval().FeatureNotAvailable("Sorry, modules are not allowed")
    if callable(item) and item in _simpleeval().DISALLOW_FUNCTIONS:
        raise _simpleeval().FeatureNotAvailable("This function is forbidden")
    return item


def _is_constant(node: ast.AST) -> bool:
    """A literal, or a tuple of literals (``("awq", "gptq")``), whose value never changes."""
    if type(node) is ast.Tuple:
        return all(type(element) is ast.Constant for element in node.elts)
    return type(node) is ast.Constant


def _constant_value(node: ast.AST) -> Any:
    if type(node) is ast.Tuple:
        return tuple(element.value for element in node.elts)  # type: ignore[attr-defined]
    return node.value  # type: ignore[attr-defined]


# A comparison written as Python writes it, in place of a call of OPERATORS' function for it,
# where that function is the one simpleeval has, not one of OWN_OPERATORS (operator.lt,
# ``lambda x, y: op.contains(y, x)``, ...): the same values, and the same errors, without a
# call on every evaluation. For each operator: the closure for a constant right-hand side, and
# for a computed one.
# fmt: off
_NATIVE_COMPARISONS: dict[type, tuple[Callable[[Compiled, Any], Compiled], Callable[..., Compiled]]]
_NATIVE_COMPARISONS = {
    operation: pair
    for operation, pair in {
        ast.Lt: (
            lambda a, c: lambda n, f, p: a(n, f, p) < c,
            lambda a, b: lambda n, f, p: a(n, f, p) < b(n, f, p)),
        ast.LtE: (
            lambda a, c: lambda n, f, p: a(n, f, p) <= c,
            lambda a, b: lambda n, f, p: a(n, f, p) <= b(n, f, p)),
        ast.Gt: (
            lambda a, c: lambda n, f, p: a(n, f, p) > c,
            lambda a, b: lambda n, f, p: a(n, f, p) > b(n, f, p)),
        ast.GtE: (
            lambda a, c: lambda n, f, p: a(n, f, p) >= c,
            lambda a, b: lambda n, f, p: a(n, f, p) >= b(n, f, p)),
        ast.Eq: (
            lambda a, c: lambda n, f, p: a(n, f, p) == c,
            lambda a, b: lambda n, f, p: a(n, f, p) == b(n, f, p)),
        ast.NotEq: (
            lambda a, c: lambda n, f, p: a(n, f, p) != c,
            lambda a, b: lambda n, f, p: a(n, f, p) != b(n, f, p)),
        ast.In: (
            lambda a, c: lambda n, f, p: a(n, f, p) in c,
            lambda a, b: lambda n, f, p: a(n, f, p) in b(n, f, p)),
        ast.NotIn: (
            lambda a, c: lambda n, f, p: a(n, f, p) not in c,
            lambda a, b: lambda n, f, p: a(n, f, p) not in b(n, f, p)),
    }.items()
    if operation not in OWN_OPERATORS
}
# fmt: on


# ``quantity < 0`` and the like, for a quantity whose unit has a dimension (known once worked
# out): what Quantity's comparison with a plain zero answers, its magnitude against the zero,
# without its four calls to get there (rules test a size or a token count against 0 on every
# deployment). Any other value, and a dimensionless or not yet known unit, compares as written.
_VERSUS_ZERO: dict[type, Callable[[Compiled, Any], Compiled]] = {
    ast.Lt: lambda a, c: (
        lambda n, f, p: (
            v._magnitude < c
            if type(v := a(n, f, p)) is Quantity and v._units._dimensions
            else v < c
        )
    ),
    ast.LtE: lambda a, c: (
        lambda n, f, p: (
            v._magnitude <= c
            if type(v := a(n, f, p)) is Quantity and v._units._dimensions
            else v <= c
        )
    ),
    ast.Gt: lambda a, c: (
        lambda n, f, p: (
            v._magnitude > c
            if type(v := a(n, f, p)) is Quantity and v._units._dimensions
            else v > c
        )
    ),
    ast.GtE: lambda a, c: (
        lambda n, f, p: (
            v._magnitude >= c
            if type(v := a(n, f, p)) is Quantity and v._units._dimensions
            else v >= c
        )
    ),
}


def _comparison(node: ast.AST, first: Compiled, step: tuple[Any, Compiled]) -> Compiled:
    """``a < b``: one comparison (most of them, many with a constant)."""
    test, second = step
    right = node.comparators[0]  # type: ignore[attr-defined]
    native = _NATIVE_COMPARISONS.get(type(node.ops[0]))  # type: ignore[attr-defined]
    if _is_constant(right):
        constant = _constant_value(right)
        zero = type(constant) in (int, float) and constant == 0
        kind = type(node.ops[0])  # type: ignore[attr-defined]
        read = _fused_read(first)
        if native is not None and zero and kind in _VERSUS_ZERO:
            if read is not None:
                return _fused_versus_zero(read, _RICH_TESTS[kind], constant)
            return _VERSUS_ZERO[kind](first, constant)
        if native is not None and read is not None:
            if kind in _RICH_TESTS:
                return _fused_test(read, _RICH_TESTS[kind], constant)
            return _fused_membership(read, constant, negated=kind is ast.NotIn)
        if native is not None:
            return native[0](first, constant)
        return lambda names, functions, params: test(first(names, functions, params), constant)
    if native is not None:
        return native[1](first, second)
    return lambda names, functions, params: test(
        first(names, functions, params), second(names, functions, params)
    )


def _name_read(node: ast.AST, param_names: frozenset[str]) -> str | None:
    """``namespace.name`` where ``node`` reads a name of the scope's namespaces (kv.tokens),
    not a rule's parameter; None for any other node."""
    if type(node) is not ast.Attribute or type(node.value) is not ast.Name:  # type: ignore[attr-defined]
        return None
    if node.value.id in param_names:  # type: ignore[attr-defined]
        return None
    return f"{node.value.id}.{node.attr}"  # type: ignore[attr-defined]


def _shared_comparison(compare: Compiled, key: str) -> Compiled:
    """``compare``, a comparison of two of the scope's names (``weights.total <= gpu.usable``:
    seven of a vLLM deployment's rules test that one), worked out once for a budget's scope and
    kept in it (Scope._results, keyed on the comparison's names and operator). That is enough:
    a scope's names never change once read, and the comparison reads nothing else (no
    parameter, no function). An error is not kept: each rule that evaluates the comparison
    raises it again, with its own expression's text, as before."""

    def shared(names: Any, functions: Any, params: Any) -> Any:
        if type(names) is Scope and (results := names._results) is not None:
            found = results.get(key, _UNSET)
            if found is _UNSET:
                found = results[key] = compare(names, functions, params)
            return found
        return compare(names, functions, params)

    return shared


_UNSET = object()


def _build(node: ast.AST, expression: str, param_names: frozenset[str]) -> Compiled:
    builder = _BUILDERS.get(type(node))
    if builder is None:
        raise _NotCompiled
    return builder(node, expression, param_names)


# One builder a node kind, each a function of its own: a closure captures only its own kind's
# variables (one function for every kind made a cell for each variable of every kind on each
# call, which cost about as much as parsing the expression).


def _build_constant(node: Any, expression: str, param_names: frozenset[str]) -> Compiled:
    value = node.value
    if hasattr(value, "__len__") and len(value) > _simpleeval().MAX_STRING_LENGTH:
        raise _NotCompiled
    return lambda names, functions, params: value


def _build_name(node: Any, expression: str, param_names: frozenset[str]) -> Compiled:
    key = node.id
    if key in param_names:  # a rule's parameter, always given with the names
        return lambda names, functions, params: params[key]
    return _name(key, expression)


def _build_attribute(node: Any, expression: str, param_names: frozenset[str]) -> Compiled:
    attr = node.attr
    simpleeval = _simpleeval()
    refused = any(attr.startswith(prefix) for prefix in simpleeval.DISALLOW_PREFIXES)
    if refused or attr in simpleeval.DISALLOW_METHODS:
        raise _NotCompiled
    inner = node.value
    if type(inner) is ast.Name and inner.id not in param_names:
        # a namespace's name (kv.tokens: most of what rules read), looked up in place
        return _name_attribute(inner.id, attr, expression)
    base = _build(inner, expression, param_names)
    return lambda names, functions, params: _attribute(
        base(names, functions, params), attr, expression
    )


def _name_attribute(key: str, attr: str, expression: str) -> Compiled:
    flat = f"{key}.{attr}"

    def name_attribute(names: Any, functions: Any, params: Any) -> Any:
        if type(names) is Scope:
            # a budget's scope: one lookup, and on the first read the value worked out and
            # kept (Scope.__missing__); KeyError where it has no such name, read below
            try:
                return names[flat]
            except KeyError:
                pass
        return rest(names, functions, params)

    def rest(names: Any, functions: Any, params: Any) -> Any:
        """The read where the names are not a budget's scope, or it has no such name."""
        try:
            value = names[key]
        except (TypeError, KeyError):
            value = _not_in_names(key, functions, expression)
        if type(value) is Lazy:
            known = value.__dict__
            if attr in known:
                return known[attr]
            if "_context" in known and attr in known["_values"]:
                # a value of Lazy.over's table, worked out on this first read (what
                # __getattr__ would do, without the two calls to reach it)
                found = known[attr] = known["_values"][attr](known["_context"])
                return found
        return _attribute(value, attr, expression)

    # what an operation on this read inlines (_fused_read): the scope's key, and the rest
    name_attribute.flat_read = (flat, rest)  # type: ignore[attr-defined]
    return name_attribute


# An operation whose operand reads a namespace's name (``model.kv_heads > 0``, ``not
# model.mla``: most of what rules' conditions test) does the budget's scope's one lookup itself,
# and calls the read's closure only where that lookup misses or the names are of another kind:
# the same value and the same errors, without a call for every read. (A call of a closure is a
# third of the cost of such a test.)


def _fused_read(operand: Compiled) -> tuple[str, Compiled] | None:
    """(scope key, the rest of the read) where ``operand`` is _name_attribute's closure."""
    return getattr(operand, "flat_read", None)


def _fused_test(read: tuple[str, Compiled], test: Callable[[Any, Any], Any], c: Any) -> Compiled:
    """``test(name, c)``: a comparison with a constant, ``test`` its operator's function."""
    flat, rest = read

    def fused(names: Any, functions: Any, params: Any) -> Any:
        if type(names) is Scope:
            try:
                value = names[flat]
            except KeyError:
                value = rest(names, functions, params)
        else:
            value = rest(names, functions, params)
        return test(value, c)

    return fused


def _fused_versus_zero(
    read: tuple[str, Compiled], test: Callable[[Any, Any], Any], zero: Any
) -> Compiled:
    """``name < 0`` and the like (``zero`` the constant as written), as _VERSUS_ZERO answers
    them: a quantity with a dimension by its magnitude."""

    def versus_zero(value: Any, zero: Any) -> Any:
        if type(value) is Quantity and value._units._dimensions:
            return test(value._magnitude, zero)
        return test(value, zero)

    return _fused_test(read, versus_zero, zero)


def _fused_membership(read: tuple[str, Compiled], c: Any, negated: bool) -> Compiled:
    """``name in c`` (``name not in c``) for a constant ``c``."""
    if negated:
        return _fused_test(read, lambda value, c: value not in c, c)
    return _fused_test(read, lambda value, c: value in c, c)


def _fused_not(read: tuple[str, Compiled]) -> Compiled:
    """``not name``."""
    flat, rest = read

    def fused(names: Any, functions: Any, params: Any) -> Any:
        if type(names) is Scope:
            try:
                return not names[flat]
            except KeyError:
                pass
        return not rest(names, functions, params)

    return fused


# the rich comparisons' functions, for a comparison of a read with a constant: what Python's
# operator does, called from the fused closure (the same result and errors as ``a < c``)
_RICH_TESTS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}


def _build_binary(node: Any, expression: str, param_names: frozenset[str]) -> Compiled:
    binary = _operators().get(type(node.op))
    if binary is None:
        raise _NotCompiled
    left = _build(node.left, expression, param_names)
    right = _build(node.right, expression, param_names)
    return lambda names, functions, params: binary(
        left(names, functions, params), right(names, functions, params)
    )


def _build_unary(node: Any, expression: str, param_names: frozenset[str]) -> Compiled:
    unary = _operators().get(type(node.op))
    if unary is None:
        raise _NotCompiled
    operand = _build(node.operand, expression, param_names)
    if unary is operator.not_:  # `not x` as Python writes it: the same, without a call
        read = _fused_read(operand)
        if read is not None:
            return _fused_not(read)
        return lambda names, functions, params: not operand(names, functions, params)
    return lambda names, functions, params: unary(operand(names, functions, params))


def _build_boolean(node: Any, expression: str, param_names: frozenset[str]) -> Compiled:
    values = [_build(value, expression, param_names) for value in node.values]
    both = isinstance(node.op, ast.And)
    # two or three operands (most of what rules write) as Python writes them: the same
    # values (the first false one, or the last) without a loop on every evaluation
    if len(values) == 2:
        return _both_of_two(*values) if both else _either_of_two(*values)
    if len(values) == 3:
        return _all_of_three(*values) if both else _any_of_three(*values)
    if both:

        def all_of(names: Any, functions: Any, params: Any) -> Any:
            result: Any = False
            for value in values:
                result = value(names, functions, params)
                if not result:
                    break
            return result

        return all_of

    def any_of(names: Any, functions: Any, params: Any) -> Any:
        result: Any = False
        for value in values:
            result = value(names, functions, params)
            if result:
                break
        return result

    return any_of


def _both_of_two(a: Compiled, b: Compiled) -> Compiled:
    return lambda names, functions, params: (
        a(names, functions, params) and b(names, functions, params)
    )


def _either_of_two(a: Compiled, b: Compiled) -> Compiled:
    return lambda names, functions, params: (
        a(names, functions, params) or b(names, functions, params)
    )


def _all_of_three(a: Compiled, b: Compiled, c: Compiled) -> Compiled:
    return lambda names, functions, params: (
        a(names, functions, params) and b(names, functions, params) and c(names, functions, params)
    )


def _any_of_three(a: Compiled, b: Compiled, c: Compiled) -> Compiled:
    return lambda names, functions, params: (
        a(names, functions, params) or b(names, functions, params) or c(names, functions, params)
    )


def _build_compare(node: Any, expression: str, param_names: frozenset[str]) -> Compiled:
    first = _build(node.left, expression, param_names)
    steps = []
    operators = _operators()
    for operation, comparator in zip(node.ops, node.comparators, strict=True):
        if type(operation) not in operators:
            raise _NotCompiled
        steps.append((operators[type(operation)], _build(comparator, expression, param_names)))
    if len(steps) == 1:  # a < b: most comparisons, many of them with a constant
        one = _comparison(node, first, steps[0])
        left = _name_read(node.left, param_names)
        right = _name_read(node.comparators[0], param_names)
        if left is None or right is None:
            return one
        operation = type(node.ops[0]).__name__
        return _shared_comparison(one, f"{left} {operation} {right}")

    def compare(names: Any, functions: Any, params: Any) -> Any:
        right = first(names, functions, params)
        result: Any = True
        for test, comparator in steps:
            if not result:
                break
            left = right
            right = comparator(names, functions, params)
            result = test(left, right)
        return result

    return compare


def _build_if(node: Any, expression: str, param_names: frozenset[str]) -> Compiled:
    test = _build(node.test, expression, param_names)
    body = _build(node.body, expression, param_names)
    orelse = _build(node.orelse, expression, param_names)
    return lambda names, functions, params: (
        body(names, functions, params)
        if test(names, functions, params)
        else orelse(names, functions, params)
    )


def _build_tuple(node: Any, expression: str, param_names: frozenset[str]) -> Compiled:
    elements = [_build(element, expression, param_names) for element in node.elts]
    if _is_constant(node):  # ("awq", "gptq"): the same tuple on every evaluation
        constant = _constant_value(node)
        return lambda names, functions, params: constant
    return lambda names, functions, params: tuple(
        element(names, functions, params) for element in elements
    )


def _build_call(node: Any, expression: str, param_names: frozenset[str]) -> Compiled:
    func = node.func
    if not isinstance(func, ast.Name):
        raise _NotCompiled
    if any(isinstance(a, ast.Starred) for a in node.args):
        raise _NotCompiled
    if any(k.arg is None for k in node.keywords):
        raise _NotCompiled
    called = func.id
    arguments = [_build(a, expression, param_names) for a in node.args]
    keywords = [(k.arg, _build(k.value, expression, param_names)) for k in node.keywords]

    def call(names: Any, functions: Any, params: Any) -> Any:
        return called_function(functions, called, bool(keywords))(
            *(argument(names, functions, params) for argument in arguments),
            **{key: value(names, functions, params) for key, value in keywords},
        )

    return call


def called_function(functions: Mapping[str, Any], called: str, keywords: bool) -> Any:
    """The documented function a call names (``keywords``: the call passes some), refused as
    simpleeval refuses it; found before its arguments are worked out."""
    simpleeval = _SIMPLEEVAL or _simpleeval()  # (the global: generated functions call this)
    if called not in functions:
        raise simpleeval.FeatureNotAvailable("only the documented functions can be called")
    if keywords and called in BASE_FUNCTIONS:
        raise simpleeval.FeatureNotAvailable(f"{called}() takes no keyword arguments")
    function = functions[called]
    if function in simpleeval.DISALLOW_FUNCTIONS:
        raise simpleeval.FeatureNotAvailable("This function is forbidden")
    return function


_BUILDERS: dict[type, Callable[[Any, str, frozenset[str]], Compiled]] = {
    ast.Constant: _build_constant,
    ast.Name: _build_name,
    ast.Attribute: _build_attribute,
    ast.BinOp: _build_binary,
    ast.UnaryOp: _build_unary,
    ast.BoolOp: _build_boolean,
    ast.Compare: _build_compare,
    ast.IfExp: _build_if,
    ast.Tuple: _build_tuple,
    ast.Call: _build_call,
}


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
    return render_plan(template_plan(template), names, functions, None, byte_unit)


# A template's fields, each with the text before it, and the text after the last field. A
# field is (text before it, the field as written, its format, what is wrong with that format
# or None, its expression's evaluator).
Field = tuple[str, str, str, "str | None", Evaluator]
Plan = tuple[tuple[Field, ...], str]


@lru_cache(maxsize=1024)
def template_plan(template: str, param_names: frozenset[str] = frozenset()) -> Plan:
    """A template split into its fields once (rules render the same few templates again and
    again): each field's format checked and its expression's evaluator found here, not on
    every rendering. ``param_names``: as for ``evaluator``, the rule's parameters, passed to
    render_plan as ``params``. Keyed on the template's text and those names: the plan holds
    nothing else, so one plan serves every rule and deployment with them."""
    pieces: list[Field] = []
    start = 0
    for match in _FIELD.finditer(template):
        [(expression, spec)] = template_fields(match.group(0))
        try:
            check_spec(spec)
            problem = None
        except ExpressionError as exc:  # raised where the field is rendered, as before
            problem = str(exc)
        run = parameter_evaluator(expression, param_names)
        pieces.append((template[start : match.start()], match.group(0), spec, problem, run))
        start = match.end()
    return tuple(pieces), template[start:]


def render_plan(
    plan: Plan,
    names: Mapping[str, Any],
    functions: Mapping[str, Any],
    params: Mapping[str, Any] | None = None,
    byte_unit: str = "GiB",
) -> str:
    """``render`` for a template's plan (``template_plan``), with a rule's ``params`` seen
    over ``names`` when the plan was made for their names."""
    pieces, tail = plan
    out = []
    for text, field, spec, problem, run in pieces:  # left to right, as re.sub fills them
        out.append(text)
        if problem is not None:
            raise ExpressionError(problem)
        value = run(names, functions, params)
        try:
            out.append(format_quantity(value, spec, byte_unit))
        except (ValueError, TypeError) as exc:
            raise ExpressionError(f"'{field}': cannot format: {exc}") from exc
    out.append(tail)
    return "".join(out).strip()
