"""hbmlint's units, and helpers to parse and print quantities.

Every memory figure in hbmlint is a Quantity (hbmlint/quantity.py: pint's semantics for the
multiplicative units hbmlint has, without pint's start-up) from the manifest to the report.
The units are defined in units.txt: bytes have their own dimension, and ``token`` (a KV-cache
slot) and ``sequence`` (one request) are units too.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any

from .quantity import (
    Quantity,
    UndefinedUnitError,
    dimensionality_of,
    get_name,
    maker,
    quantity_of,
    reader,
)


def Q(value: Any, unit: str | None = None) -> Quantity:
    """Build a quantity."""
    if type(unit) is str:  # a number and a unit's name: most of the quantities a run builds
        return quantity_of(value, unit)
    return Quantity(value, unit) if unit is not None else Quantity(value)


@lru_cache(maxsize=32)
def dimensionality(name: str) -> Any:
    """The dimensionality for ``"[information]"``, ``"[token]/[sequence]"`` or ``"[]"``."""
    return dimensionality_of(name)


def is_quantity(value: Any) -> bool:
    return isinstance(value, Quantity)


# The budget computes in plain numbers of canonical units (bytes, tokens, bytes per token) and
# makes Quantities of them where rules and reports read them: these make them, and in_bytes
# (``q.to("byte").magnitude``) and in_bytes_per_token take them back to plain numbers.
bytes_quantity = maker("byte")
tokens_quantity = maker("token")
bytes_per_token_quantity = maker("byte / token")
in_bytes = reader("byte")
in_bytes_per_token = reader("byte / token")


class UnitError(ValueError):
    """A value that is not a quantity of the expected dimension."""


# The grammar of a quantity, our own rather than pint's expression parser (which evaluates
# powers and products: "80 GiB^9^9^9" would never end): a number, then optionally one unit name
# or a ratio of two ("byte/token"), or "%". Names are looked up in the registry, prefixes
# included; nothing is evaluated.
MAX_QUANTITY_TEXT = 64
_NUMBER = r"[-+]?(?:\d[\d_]{0,39}(?:\.\d{0,40})?|\.\d{1,40})(?:[eE][-+]?\d{1,4})?"
_NAME = r"[A-Za-z\u00b5]{1,32}"
_QUANTITY = re.compile(
    rf"\s*(?P<number>{_NUMBER})\s*(?:(?P<percent>%)|(?P<unit>{_NAME})"
    rf"(?:\s*/\s*(?P<per>{_NAME}))?)?\s*"
)


def shown(value: Any) -> str:
    """A rejected value as an error message quotes it: never in full when it is long."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"an integer of {value.bit_length():,} bits"
    text = value if isinstance(value, str) else repr(value)
    return f"'{text}'" if len(text) <= 40 else f"'{text[:37]}...'"


def _unit_name(name: str) -> str:
    try:
        return get_name(name)
    except (UndefinedUnitError, AttributeError, ValueError, KeyError) as exc:
        raise UnitError(f"'{name}' is not a unit hbmlint knows") from exc


@lru_cache(maxsize=512)
def _parse_cached(text: str) -> tuple[float, str]:
    """(number, canonical unit expression) of a quantity's text; UnitError otherwise."""
    match = _QUANTITY.fullmatch(text) if len(text) <= MAX_QUANTITY_TEXT else None
    if not match:
        raise UnitError(
            f"{shown(text)} is not a number followed by a unit (such as '80 GiB', '10 percent')"
        )
    number = float(match["number"].replace("_", ""))
    if match["percent"]:
        return number, "percent"
    if not match["unit"]:
        return number, ""
    unit = _unit_name(match["unit"])
    if match["per"]:
        unit = f"{unit} / {_unit_name(match['per'])}"
    return number, unit


def parse_quantity(value: Any, dimension: str, default_unit: str | None = None) -> Quantity:
    """Parse ``"80 GiB"``, ``"10 percent"`` or a bare number into a quantity of ``dimension``.

    ``dimension`` is a dimensionality such as ``"[information]"`` or ``"[]"``. A bare number
    takes ``default_unit``; without one it is an error for dimensioned quantities, so that
    ``memory: 80`` is never silently read as 80 bytes.
    """
    if isinstance(value, bool):
        raise UnitError(f"expected a quantity, got the boolean {value!r}")
    if is_quantity(value):
        quantity = value
    elif isinstance(value, (int, float)):
        if default_unit is None and dimension != "[]":
            example = f"{value:g} GiB" if abs(value) < 1e15 else "80 GiB"
            raise UnitError(
                f"{shown(value)} has no unit; write it with one, for example '{example}'"
            )
        quantity = Q(value, default_unit or "dimensionless")
    elif isinstance(value, str):
        number, unit = _parse_cached(value)
        if not unit:
            if default_unit is None and dimension != "[]":
                raise UnitError(
                    f"{shown(value)} has no unit; write it with one, for example '{number:g} GiB'"
                )
            unit = default_unit or "dimensionless"
        quantity = Q(number, unit)
    else:
        raise UnitError(f"expected a quantity such as '80 GiB', got {type(value).__name__}")
    if not math.isfinite(float(quantity.magnitude)):
        raise UnitError(f"{shown(value)} is not a finite number")
    if quantity.dimensionality != dimensionality(dimension):
        raise UnitError(
            f"{shown(value)} is measured in {quantity.units:~} ({quantity.dimensionality}), "
            f"not in a unit of {_DIMENSION_WORDS.get(dimension, dimension)}"
        )
    return quantity


_DIMENSION_WORDS = {"[information]": "memory (bytes)", "[]": "a ratio", "[token]": "tokens"}

# Decimal byte units a user may write; when an input uses one, output keeps decimal units.
DECIMAL_BYTE_UNITS = {"kB", "KB", "MB", "GB", "TB", "kilobyte", "megabyte", "gigabyte", "terabyte"}


def bytes_of(quantity: Quantity) -> int:
    """A byte quantity as an integer number of bytes (for JSON output)."""
    return int(round(float(quantity.to("byte").magnitude)))


def format_bytes(quantity: Quantity, unit: str = "GiB") -> str:
    """``"67.66 GiB"``; negative values keep their sign."""
    return f"{float(quantity.to(unit).magnitude):,.2f} {unit}"


def format_quantity(value: Any, spec: str = "", byte_unit: str = "GiB") -> str:
    """Print any value a rule template can produce, in the units a reader expects.

    Bytes print in ``byte_unit``, ratios as percent when ``spec`` is ``%`` (or their unit is
    percent), tokens and sequences as integers, other numbers plainly.
    """
    if isinstance(value, Quantity):
        kind = _printed_as(value)
        if kind == "bytes":
            return format_bytes(value, byte_unit)
        if kind == "bytes/token":
            return f"{float(in_bytes_per_token(value)):,.0f} bytes/token"
        if kind == "tokens":
            return f"{math.floor(float(_in_tokens(value)) + 1e-9):,} tokens"
        if kind == "sequences":
            return f"{float(_in_sequences(value)):,.2f} sequences"
        if kind == "tokens/sequence":
            per_sequence = math.floor(float(_in_tokens_per_sequence(value)) + 1e-9)
            return f"{per_sequence:,} tokens per sequence"
        if kind == "ratio":
            ratio = float(_in_ratio(value))
            if spec == "%" or str(value.units) == "percent":
                return f"{ratio * 100:.1f}%"
            return _format_number(ratio, spec)
        return f"{value:~.4g}"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        if spec == "%":
            return f"{value * 100:.1f}%"
        return _format_number(value, spec)
    return "" if value is None else str(value)


# How format_quantity prints a quantity, by its unit's names (which decide its dimensionality):
# worked out once per unit, not by comparing the dimensionality with each kind's in turn on
# every message a finding writes. A run prints a handful of units.
_PRINTED_AS: dict[tuple, str] = {}
_KINDS = (
    ("[information]", "bytes"),
    ("[information]/[token]", "bytes/token"),
    ("[token]", "tokens"),
    ("[sequence]", "sequences"),
    ("[token]/[sequence]", "tokens/sequence"),
)
_in_tokens = reader("token")
_in_sequences = reader("sequence")
_in_tokens_per_sequence = reader("token/sequence")
_in_ratio = reader("dimensionless")


def _printed_as(quantity: Quantity) -> str:
    key = quantity._units._key
    kind = _PRINTED_AS.get(key)
    if kind is None:
        dim = quantity.dimensionality
        kind = next((k for name, k in _KINDS if dim == dimensionality(name)), None)
        if kind is None:
            kind = "other" if dim else "ratio"
        if len(_PRINTED_AS) >= 256:  # units made by a user's rules: never many, but bounded
            _PRINTED_AS.clear()
        _PRINTED_AS[key] = kind
    return kind


def _format_number(value: float, spec: str) -> str:
    if spec and spec != "%":
        return format(value, spec)
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.2f}"
