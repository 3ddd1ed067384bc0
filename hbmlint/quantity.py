"""Quantities with units: the small part of pint hbmlint uses, without pint's start-up.

pint cost a third of a one-file lint in imports alone (its parser and facets build over a
hundred dataclasses) and about 40% of the per-file work in object overhead. hbmlint's units
are all multiplicative (bytes, tokens, sequences, ratios, times, rates), so a quantity is a
magnitude and a container of unit names with exponents, with pint's semantics: magnitudes keep
the unit they were written in, products keep both units (``GiB * percent``), conversions
multiply by the factor pint computes (the same scales cancelled the same way, so the same
floating-point results), and comparisons, sums and conversions across dimensions raise
``DimensionalityError`` with pint's wording. The units come from units.txt, pint's format.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

Number = (int, float)


class DimensionalityError(TypeError):
    """Units of different dimensions where one kind was needed (pint's name and message)."""

    def __init__(self, units1: Any, units2: Any, dim1: Any = "", dim2: Any = "") -> None:
        super().__init__(units1, units2, dim1, dim2)
        self.units1, self.units2, self.dim1, self.dim2 = units1, units2, dim1, dim2

    def __str__(self) -> str:
        if self.dim1 or self.dim2:
            dim1, dim2 = f" ({self.dim1})", f" ({self.dim2})"
        else:
            dim1 = dim2 = ""
        return f"Cannot convert from '{self.units1}'{dim1} to '{self.units2}'{dim2}"


class UndefinedUnitError(KeyError, ValueError):
    """A unit name units.txt does not define."""

    def __str__(self) -> str:
        return f"'{self.args[0]}' is not defined in the unit registry"


# --------------------------------------------------------------------------- definitions


class _Definition:
    __slots__ = ("name", "symbol", "scale", "reference", "dims", "is_base")

    def __init__(
        self,
        name: str,
        symbol: str,
        scale: Any,
        reference: dict[str, Any] | None,
        dims: dict[str, Any],
        is_base: bool,
    ) -> None:
        self.name, self.symbol, self.scale = name, symbol, scale
        self.reference, self.dims, self.is_base = reference, dims, is_base


_UNITS: dict[str, _Definition] = {}  # canonical name -> definition
_ALIASES: dict[str, str] = {}  # name, symbol or alias -> canonical name
_PREFIXES: dict[str, tuple[str, str, Any]] = {}  # name or symbol -> (name, symbol, value)


def _evaluate(text: str) -> tuple[Any, dict[str, Any]]:
    """A definition's right-hand side ("byte / 8", "60 * second", "2**10") as (scale,
    reference units); a division makes the scale a float, as in pint."""

    def walk(node: ast.AST) -> tuple[Any, dict[str, Any]]:
        if isinstance(node, ast.Constant) and isinstance(node.value, Number):
            return node.value, {}
        if isinstance(node, ast.Name):
            return 1, {_ALIASES[node.id]: 1}
        if isinstance(node, ast.BinOp):
            (a, ua), (b, ub) = walk(node.left), walk(node.right)
            if isinstance(node.op, ast.Mult):
                return a * b, _combine(ua, ub, 1)
            if isinstance(node.op, ast.Div):
                return a / b, _combine(ua, ub, -1)
            if isinstance(node.op, ast.Pow) and not ua and not ub:
                return a**b, {}
        raise ValueError(f"units.txt: cannot read '{text}'")

    return walk(ast.parse(text.strip(), mode="eval").body)


def _combine(a: dict[str, Any], b: dict[str, Any], sign: int) -> dict[str, Any]:
    """pint's UnitsContainer product (sign 1) or quotient (sign -1): a's order, then b's new
    names; names whose exponent reaches zero are dropped."""
    out = dict(a)
    for key, value in b.items():
        new = out.get(key, 0) + sign * value
        if new:
            out[key] = new
        else:
            out.pop(key, None)
    return out


def _dims_of(reference: dict[str, Any]) -> dict[str, Any]:
    dims: dict[str, Any] = {}
    for name, exp in reference.items():
        dims = _combine(dims, {d: e * exp for d, e in _UNITS[name].dims.items()}, 1)
    return dims


def _load(text: str) -> None:
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = [p.strip() for p in line.split("=")]
        name, value, aliases = parts[0], parts[1], parts[2:]
        if name.endswith("-"):  # a prefix: "kibi- = 2**10 = Ki-"
            scale, _ = _evaluate(value)
            symbol = aliases[0].rstrip("-") if aliases else name.rstrip("-")
            entry = (name.rstrip("-"), symbol, scale)
            for key in (name, *aliases):
                _PREFIXES[key.rstrip("-")] = entry
            continue
        symbol = aliases[0] if aliases else name
        if value.startswith("["):  # a base unit of its own dimension
            definition = _Definition(name, symbol, 1, None, {value: 1}, True)
        else:
            scale, reference = _evaluate(value)
            definition = _Definition(
                name, symbol, scale, reference or None, _dims_of(reference), False
            )
        _UNITS[name] = definition
        for key in (name, *aliases):
            _ALIASES[key] = name


_load(Path(__file__).with_name("units.txt").read_text(encoding="utf-8"))


def get_name(text: str) -> str:
    """The canonical name of a unit as written: a name, symbol or alias, with a prefix and a
    plural "s" where pint takes them ("GiB" -> "gibibyte", "gigabytes" -> "gigabyte")."""
    return _name(text)


@lru_cache(maxsize=256)
def _name(text: str) -> str:
    if text in _ALIASES:
        return _ALIASES[text]
    for suffix in ("", "s"):
        stem = text[: len(text) - len(suffix)] if suffix else text
        if suffix and not text.endswith(suffix):
            continue
        if suffix and stem in _ALIASES:
            return _ALIASES[stem]
        for key, (prefix, symbol, scale) in _PREFIXES.items():
            rest = stem[len(key) :]
            if stem.startswith(key) and rest in _ALIASES:
                unit = _UNITS[_ALIASES[rest]]
                name = prefix + unit.name
                if name not in _UNITS:
                    _UNITS[name] = _Definition(
                        name, symbol + unit.symbol, scale, {unit.name: 1}, dict(unit.dims), False
                    )
                return name
    raise UndefinedUnitError(text)


# --------------------------------------------------------------------------- units


def _format_items(items: list[tuple[str, Any]], empty: str) -> str:
    """pint's default layout: "gibibyte * percent", "byte / token", "1 / token", "token ** 2"."""

    def term(name: str, exp: Any) -> str:
        return name if exp == 1 else f"{name} ** {exp}"

    positive = [term(n, e) for n, e in items if e > 0]
    negative = [term(n, -e) for n, e in items if e < 0]
    if not positive and not negative:
        return empty
    text = " * ".join(positive) if positive else "1"
    return " / ".join([text, *negative]) if negative else text


class Dimensionality:
    """The dimensions of a unit, e.g. ``[information] / [token]``; empty (false) for ratios."""

    __slots__ = ("_items",)

    def __init__(self, items: dict[str, Any]) -> None:
        self._items = items

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Dimensionality):
            return self._items == other._items
        return NotImplemented

    def __hash__(self) -> int:
        return hash(frozenset(self._items.items()))

    def __bool__(self) -> bool:
        return bool(self._items)

    def __str__(self) -> str:
        return _format_items(list(self._items.items()), "dimensionless")

    def __repr__(self) -> str:
        return f"<Dimensionality('{self}')>"


@lru_cache(maxsize=1024)
def _dimensionality(key: tuple[tuple[str, Any], ...]) -> Dimensionality:
    dims: dict[str, Any] = {}
    for name, exp in key:
        dims = _combine(dims, {d: e * exp for d, e in _UNITS[name].dims.items()}, 1)
    return Dimensionality(dims)


class Unit:
    """A product of unit names with exponents (pint's UnitsContainer), in the order written."""

    __slots__ = ("_items", "_key", "_dimensions")

    def __init__(self, items: dict[str, Any]) -> None:
        self._items = items
        self._key = tuple(items.items())
        self._dimensions: Dimensionality | None = None

    @property
    def dimensionality(self) -> Dimensionality:
        # worked out on first use and kept: a unit's names never change, and the units a run
        # uses most (parse_units') are the same objects throughout
        dimensions = self._dimensions
        if dimensions is None:
            dimensions = self._dimensions = _dimensionality(self._key)
        return dimensions

    @property
    def dimensionless(self) -> bool:
        return not self.dimensionality

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            other = parse_units(other)
        if isinstance(other, Unit):
            return self._items == other._items
        return NotImplemented

    def __hash__(self) -> int:
        return hash(frozenset(self._items.items()))

    def __str__(self) -> str:
        return _format_items(sorted(self._items.items()), "dimensionless")

    def __format__(self, spec: str) -> str:
        if "~" in spec:
            items = sorted((_UNITS[n].symbol, e) for n, e in self._items.items())
            return _format_items(items, "")
        return format(str(self), spec)

    def __repr__(self) -> str:
        return f"<Unit('{self}')>"

    def __reduce__(self) -> tuple:
        return (Unit, (self._items,))

    def __mul__(self, other: Any) -> Any:
        if isinstance(other, Unit):
            return Unit(_combine(self._items, other._items, 1))
        if isinstance(other, Quantity):
            return Quantity(1, self) * other
        if isinstance(other, Number):
            return Quantity(other, self)
        return NotImplemented

    def __rmul__(self, other: Any) -> Any:
        if isinstance(other, Number):
            return Quantity(other, self)
        return NotImplemented

    def __truediv__(self, other: Any) -> Any:
        if isinstance(other, Unit):
            return Unit(_combine(self._items, other._items, -1))
        if isinstance(other, Quantity):
            return Quantity(1, self) / other
        if isinstance(other, Number):
            return Quantity(1 / other, self)
        return NotImplemented

    def __rtruediv__(self, other: Any) -> Any:
        if isinstance(other, Number):
            return Quantity(other, Unit(_combine({}, self._items, -1)))
        return NotImplemented

    def __pow__(self, other: Any) -> Unit:
        return Unit({n: e * other for n, e in self._items.items()} if other else {})


_DIMENSIONLESS = Unit({})
_SPLIT = re.compile(r"\s*(\*\*|\*|/)\s*")


@lru_cache(maxsize=512)
def parse_units(text: str) -> Unit:
    """A unit expression hbmlint writes: "byte", "GiB", "byte / token", "token/sequence",
    "flop / second", "" or "dimensionless"."""
    text = text.strip()
    if text in ("", "dimensionless"):
        return _DIMENSIONLESS
    parts = _SPLIT.split(text)
    items: dict[str, Any] = {}
    sign = 1
    index = 0
    while index < len(parts):
        word = parts[index]
        exp: Any = 1
        if index + 2 < len(parts) and parts[index + 1] == "**":
            exp = float(parts[index + 2]) if "." in parts[index + 2] else int(parts[index + 2])
            index += 2
        if word != "1":
            items = _combine(items, {get_name(word): exp}, sign)
        if index + 1 < len(parts):
            sign = -1 if parts[index + 1] == "/" else 1
        index += 2
    return Unit(items)


def _as_unit(units: Any) -> Unit:
    if isinstance(units, Unit):
        return units
    if isinstance(units, Quantity):
        return units._units
    return parse_units(units)


@lru_cache(maxsize=2048)
def _root_factor(key: tuple[tuple[str, Any], ...]) -> Any:
    """The factor of a unit product to its base units, as pint computes it: the scales of the
    units (and of the units they are defined by) collected in numerator and denominator, equal
    scales cancelled, the rest multiplied in order."""
    if not key:
        return 1
    numerator: dict[Any, Any] = {}
    denominator: dict[Any, Any] = {}

    def recurse(ref: Any, exp: Any) -> None:
        for name, own in ref:
            exp2 = exp * own
            unit = _UNITS[name]
            if unit.is_base:
                continue
            if exp2 < 0:
                denominator[unit.scale] = denominator.get(unit.scale, 0) - exp2
            else:
                numerator[unit.scale] = numerator.get(unit.scale, 0) + exp2
            if unit.reference is not None:
                recurse(tuple(unit.reference.items()), exp2)

    recurse(key, 1)
    for scale in [s for s in numerator if s in denominator]:
        n, d = numerator[scale], denominator[scale]
        if n >= d:
            numerator[scale] = n - d
            del denominator[scale]
        else:
            denominator[scale] = d - n
            del numerator[scale]
    factor: Any = 1
    for scale, exp in numerator.items():
        if exp:
            factor *= scale**exp
    for scale, exp in denominator.items():
        if exp:
            factor *= scale**-exp
    return factor


@lru_cache(maxsize=2048)
def _conversion(src: tuple, dst: tuple) -> Any:
    """The factor from ``src`` to ``dst`` units (pint: the root factor of src / dst)."""
    if _dimensionality(src) != _dimensionality(dst):
        return DimensionalityError(
            Unit(dict(src)), Unit(dict(dst)), _dimensionality(src), _dimensionality(dst)
        )
    return _root_factor(tuple(_combine(dict(src), dict(dst), -1).items()))


# --------------------------------------------------------------------------- quantities


@lru_cache(maxsize=1)  # compiled on first use: only a quantity written as one text needs it
def _quantity_text() -> re.Pattern:
    return re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*?)\s*")


def _quantity(magnitude: Any, units: Unit) -> Quantity:
    """A Quantity of a magnitude and a Unit, without __init__'s parsing (the arithmetic's
    results: tens of thousands a run)."""
    made = object.__new__(Quantity)
    made._magnitude = magnitude
    made._units = units
    return made


def quantity_of(magnitude: Any, units: str) -> Quantity:
    """``Quantity(magnitude, units)`` for a unit expression's text, without __init__'s tests."""
    return _quantity(magnitude, parse_units(units))


def maker(units: str) -> Callable[[Any], Quantity]:
    """A function that makes a Quantity in ``units`` of a plain number, the unit parsed once:
    for code that computes in plain numbers and hands out Quantities at the end (the budget).
    ``maker("byte")(n)`` is ``Quantity(n, "byte")``: the same magnitude, the same unit."""
    unit = parse_units(units)
    new = object.__new__

    def make(magnitude: Any) -> Quantity:  # _quantity's three lines, one call fewer
        made = new(Quantity)
        made._magnitude = magnitude
        made._units = unit
        return made

    return make


def reader(units: str) -> Callable[[Quantity], Any]:
    """A function that reads a Quantity's magnitude in ``units`` (``q.to(units).magnitude``,
    the magnitude itself when ``q`` is in them), the unit parsed once: the way back to plain
    numbers."""
    unit = parse_units(units)
    key = unit._key

    def read(quantity: Quantity) -> Any:
        if quantity._units._key == key:
            return quantity._magnitude
        return quantity._convert(unit)

    return read


class Quantity:
    """A magnitude with units (pint's Quantity, for multiplicative units)."""

    __slots__ = ("_magnitude", "_units")

    def __init__(self, value: Any, units: Any = None) -> None:
        if units is None:
            if isinstance(value, Quantity):
                value, units = value._magnitude, value._units
            elif isinstance(value, str):  # "0.5 GiB"
                match = _quantity_text().fullmatch(value)
                if match is None:
                    raise ValueError(f"'{value}' is not a number with a unit")
                number = match[1]
                value = float(number) if any(c in number for c in ".eE") else int(number)
                units = parse_units(match[2])
            else:
                units = _DIMENSIONLESS
        self._magnitude = value
        self._units = _as_unit(units)

    # -- what it is

    @property
    def magnitude(self) -> Any:
        return self._magnitude

    m = magnitude

    @property
    def units(self) -> Unit:
        return self._units

    u = units

    @property
    def dimensionality(self) -> Dimensionality:
        return self._units.dimensionality

    @property
    def dimensionless(self) -> bool:
        return not self._units.dimensionality

    def to(self, units: Any) -> Quantity:
        target = _as_unit(units)
        if target._key == self._units._key:
            return self  # quantities are never changed in place: the same one serves
        return _quantity(self._convert(target), target)

    def m_as(self, units: Any) -> Any:
        return self._convert(_as_unit(units))

    def to_root_units(self) -> Quantity:
        root: dict[str, Any] = {}
        for name, exp in self._units._key:
            unit = _UNITS[name]
            if unit.is_base:
                root = _combine(root, {name: exp}, 1)
            else:
                root = _combine(root, _base_units(name, exp), 1)
        return Quantity(self._magnitude * _root_factor(self._units._key), Unit(root))

    to_base_units = to_root_units

    def _convert(self, target: Unit) -> Any:
        if target._key == self._units._key:
            return self._magnitude
        factor = _conversion(self._units._key, target._key)
        if isinstance(factor, DimensionalityError):
            raise factor
        return self._magnitude * factor

    def _plain(self) -> Any:
        """The magnitude as a ratio; only for dimensionless quantities."""
        if self.dimensionless:
            return self._convert(_DIMENSIONLESS)
        raise DimensionalityError(self._units, "dimensionless")

    def _root_magnitude(self) -> Any:
        return self._magnitude * _root_factor(self._units._key)

    # -- printing

    def __str__(self) -> str:
        return f"{self._magnitude} {self._units}"

    def __repr__(self) -> str:
        return f"<Quantity({self._magnitude}, '{self._units}')>"

    def __format__(self, spec: str) -> str:
        short = "~" in spec
        spec = spec.replace("~", "")
        number = format(self._magnitude, spec)
        unit = format(self._units, "~") if short else str(self._units)
        return f"{number} {unit}" if unit else number

    def __reduce__(self) -> tuple:
        return (Quantity, (self._magnitude, self._units))

    def __copy__(self) -> Quantity:
        return self  # never changed in place

    def __deepcopy__(self, memo: Any) -> Quantity:
        return self

    # -- numbers

    def __float__(self) -> float:
        return float(self._plain())

    def __int__(self) -> int:
        return int(self._plain())

    def __bool__(self) -> bool:
        return bool(self._magnitude)

    def __hash__(self) -> int:
        root = self.to_root_units()
        if root.dimensionless:
            return hash(root._magnitude)
        return hash((Quantity, root._magnitude, root._units))

    def __abs__(self) -> Quantity:
        return Quantity(abs(self._magnitude), self._units)

    def __neg__(self) -> Quantity:
        return _quantity(-self._magnitude, self._units)

    def __pos__(self) -> Quantity:
        return Quantity(+self._magnitude, self._units)

    def __round__(self, ndigits: int | None = None) -> Quantity:
        return Quantity(round(self._magnitude, ndigits), self._units)

    # -- arithmetic, as pint does it

    def _add_sub(self, other: Any, op: Any) -> Quantity:
        if type(other) is Quantity and other._units._key == self._units._key:
            # the same units (most of a budget's sums): their dimensions are the same too
            return _quantity(op(self._magnitude, other._magnitude), self._units)
        if not isinstance(other, Quantity):
            if not isinstance(other, Number):
                raise TypeError(f"unsupported operand type: {type(other).__name__}")
            if other == 0 or other != other:  # 0 or NaN: no unit needed
                return _quantity(op(self._magnitude, other), self._units)
            if self.dimensionless:
                return _quantity(op(self._convert(_DIMENSIONLESS), other), _DIMENSIONLESS)
            raise DimensionalityError(self._units, "dimensionless")
        if self.dimensionality != other.dimensionality:
            raise DimensionalityError(
                self._units, other._units, self.dimensionality, other.dimensionality
            )
        if self._units._key == other._units._key or self._units == other._units:
            return _quantity(op(self._magnitude, other._magnitude), self._units)
        return _quantity(op(self._magnitude, other._convert(self._units)), self._units)

    def __add__(self, other: Any) -> Quantity:
        if type(other) is Quantity and other._units._key == self._units._key:
            # _add_sub's same-unit case without its tests: the budget's many sums
            return _quantity(self._magnitude + other._magnitude, self._units)
        return self._add_sub(other, operator.add)

    __radd__ = __add__

    def __sub__(self, other: Any) -> Quantity:
        if type(other) is Quantity and other._units._key == self._units._key:
            return _quantity(self._magnitude - other._magnitude, self._units)  # as __add__
        return self._add_sub(other, operator.sub)

    def __rsub__(self, other: Any) -> Quantity:
        return -self._add_sub(other, operator.sub)

    def _mul_div(self, other: Any, op: Any, sign: int) -> Any:
        if isinstance(other, Unit):
            other = Quantity(1, other)
        if isinstance(other, Quantity):
            units = _unit_product(self._units._key, other._units._key, sign)
            return _quantity(op(self._magnitude, other._magnitude), units)
        if not isinstance(other, Number):
            return NotImplemented
        return _quantity(op(self._magnitude, other), self._units)

    def __mul__(self, other: Any) -> Any:
        return self._mul_div(other, operator.mul, 1)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Any:
        if isinstance(self._magnitude, int) or isinstance(getattr(other, "_magnitude", None), int):
            return self._mul_div(other, _truediv_cast_int, -1)
        return self._mul_div(other, operator.truediv, -1)

    def __rtruediv__(self, other: Any) -> Any:
        if not isinstance(other, Number):
            return NotImplemented
        return Quantity(other / self._magnitude, Unit(_combine({}, self._units._items, -1)))

    def __floordiv__(self, other: Any) -> Quantity:
        if isinstance(other, Quantity):
            return Quantity(self._magnitude // other._convert(self._units), _DIMENSIONLESS)
        if self.dimensionless:
            return Quantity(self._convert(_DIMENSIONLESS) // other, _DIMENSIONLESS)
        raise DimensionalityError(self._units, "dimensionless")

    def __rfloordiv__(self, other: Any) -> Quantity:
        if self.dimensionless:
            return Quantity(other // self._convert(_DIMENSIONLESS), _DIMENSIONLESS)
        raise DimensionalityError(self._units, "dimensionless")

    def __mod__(self, other: Any) -> Quantity:
        if not isinstance(other, Quantity):
            other = Quantity(other, _DIMENSIONLESS)
        return Quantity(self._magnitude % other._convert(self._units), self._units)

    def __rmod__(self, other: Any) -> Quantity:
        if self.dimensionless:
            return Quantity(other % self._convert(_DIMENSIONLESS), _DIMENSIONLESS)
        raise DimensionalityError(self._units, "dimensionless")

    def __pow__(self, other: Any) -> Quantity:
        if isinstance(other, Quantity):
            other = other._plain()
        if not isinstance(other, Number):
            return NotImplemented
        if other == 1:
            return self
        if other == 0:
            return Quantity(self._magnitude**0, _DIMENSIONLESS)
        return Quantity(self._magnitude**other, self._units**other)

    def __rpow__(self, other: Any) -> Any:
        if not isinstance(other, Number):
            return NotImplemented
        return other ** self._plain()

    # -- comparisons, as pint does them

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            if other is None or not isinstance(other, Number):
                return False
            if other == 0 or other != other:
                return self._magnitude == other
            if self.dimensionless:
                return self._convert(_DIMENSIONLESS) == other
            return False
        if self._magnitude == 0 and other._magnitude == 0:
            return self.dimensionality == other.dimensionality
        if self._units == other._units:
            return self._magnitude == other._magnitude
        try:
            return self._convert(other._units) == other._magnitude
        except DimensionalityError:
            return False

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def _compare(self, other: Any, op: Any) -> bool:
        if type(other) is Quantity and other._units._key == self._units._key:
            return op(self._magnitude, other._magnitude)
        if not isinstance(other, Quantity):
            if self.dimensionless:
                return op(self._convert(_DIMENSIONLESS), other)
            if isinstance(other, Number) and (other == 0 or other != other):
                return op(self._magnitude, other)
            raise ValueError(f"Cannot compare Quantity and {type(other)}")
        if self._units == other._units:
            return op(self._magnitude, other._magnitude)
        if self.dimensionality != other.dimensionality:
            raise DimensionalityError(
                self._units, other._units, self.dimensionality, other.dimensionality
            )
        return op(self._root_magnitude(), other._root_magnitude())

    # each with _compare's first case (the same units: most of the rules' comparisons) in place

    def __lt__(self, other: Any) -> bool:
        if type(other) is Quantity and other._units._key == self._units._key:
            return self._magnitude < other._magnitude
        return self._compare(other, operator.lt)

    def __le__(self, other: Any) -> bool:
        if type(other) is Quantity and other._units._key == self._units._key:
            return self._magnitude <= other._magnitude
        return self._compare(other, operator.le)

    def __gt__(self, other: Any) -> bool:
        if type(other) is Quantity and other._units._key == self._units._key:
            return self._magnitude > other._magnitude
        return self._compare(other, operator.gt)

    def __ge__(self, other: Any) -> bool:
        if type(other) is Quantity and other._units._key == self._units._key:
            return self._magnitude >= other._magnitude
        return self._compare(other, operator.ge)


@lru_cache(maxsize=1024)
def _unit_product(a: tuple, b: tuple, sign: int) -> Unit:
    """The Unit of a product (sign 1) or quotient (sign -1) of the units of names ``a`` and
    ``b`` (Unit._key): made once, as parse_units makes each Unit once (a Unit never changes)."""
    return Unit(_combine(dict(a), dict(b), sign))


def _truediv_cast_int(a: Any, b: Any) -> Any:
    a = float(a) if isinstance(a, int) else a
    b = float(b) if isinstance(b, int) else b
    return operator.truediv(a, b)


def _base_units(name: str, exp: Any) -> dict[str, Any]:
    unit = _UNITS[name]
    if unit.is_base:
        return {name: exp}
    out: dict[str, Any] = {}
    for ref, own in (unit.reference or {}).items():
        out = _combine(out, _base_units(ref, own * exp), 1)
    return out


def dimensionality_of(text: str) -> Dimensionality:
    """``"[information]"``, ``"[token]/[sequence]"``, ``"[compute] / [time]"`` or ``"[]"``."""
    items: dict[str, Any] = {}
    sign = 1
    for part in _SPLIT.split(text.strip()):
        if part in ("*", "/"):
            sign = -1 if part == "/" else 1
        elif part not in ("", "[]", "1"):
            items = _combine(items, {part: 1}, sign)
    return Dimensionality(items)
