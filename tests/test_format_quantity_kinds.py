"""format_quantity picks how to print a quantity by its unit, worked out once per unit
(units._printed_as), where it compared the quantity's dimensionality with each kind's in turn
on every call: the same text for every unit, magnitude and spec, the first time and after."""

from __future__ import annotations

import math

import pytest

from hbmlint import units
from hbmlint.units import Q, dimensionality, format_bytes, format_quantity


def by_comparison(value, spec: str = "", byte_unit: str = "GiB") -> str:
    """format_quantity as it was written before the per-unit memo (quantities only)."""
    dim = value.dimensionality
    if dim == dimensionality("[information]"):
        return format_bytes(value, byte_unit)
    if dim == dimensionality("[information]/[token]"):
        return f"{float(value.to('byte/token').magnitude):,.0f} bytes/token"
    if dim == dimensionality("[token]"):
        return f"{math.floor(float(value.to('token').magnitude) + 1e-9):,} tokens"
    if dim == dimensionality("[sequence]"):
        return f"{float(value.to('sequence').magnitude):,.2f} sequences"
    if dim == dimensionality("[token]/[sequence]"):
        per_sequence = math.floor(float(value.to("token/sequence").magnitude) + 1e-9)
        return f"{per_sequence:,} tokens per sequence"
    if not dim:
        ratio = float(value.to("dimensionless").magnitude)
        if spec == "%" or str(value.units) == "percent":
            return f"{ratio * 100:.1f}%"
        return units._format_number(ratio, spec)
    return f"{value:~.4g}"


UNITS = [
    "byte",
    "GiB",
    "GB",
    "MiB",
    "byte / token",
    "KiB / token",
    "token",
    "kilotoken",
    "sequence",
    "token / sequence",
    "percent",
    "dimensionless",
    "",
    "token / byte",
    "second",
    "byte / second",
    "GiB * percent",
    "token ** 2",
]
MAGNITUDES = [0, 1, 7, 1.5, -3.25, 123456789, 0.004, 2**40 + 0.5, 99.99999999999]


@pytest.mark.parametrize("unit", UNITS)
def test_each_unit_prints_as_the_comparisons_printed_it(unit):
    units._PRINTED_AS.clear()
    for _ in range(2):  # worked out, then remembered
        for magnitude in MAGNITUDES:
            value = Q(magnitude, unit)
            for spec in ("", "%", ".3f"):
                for byte_unit in ("GiB", "GB"):
                    expected = by_comparison(value, spec, byte_unit)
                    assert format_quantity(value, spec, byte_unit) == expected


def test_products_and_quotients_of_quantities_print_by_their_own_units():
    units._PRINTED_AS.clear()
    values = [
        Q(80, "GiB") * Q(90, "percent"),
        Q(80, "GiB") / Q(4096, "token"),
        Q(4096, "token") / Q(2, "sequence"),
        Q(10, "GiB") / Q(5, "GiB"),
        Q(3, "token") * Q(2, "token"),
    ]
    for value in values * 2:
        assert format_quantity(value) == by_comparison(value)


def test_other_values_print_as_before():
    assert format_quantity(True) == "yes"
    assert format_quantity(0.25, "%") == "25.0%"
    assert format_quantity(1234) == "1,234"
    assert format_quantity(None) == ""
    assert format_quantity("text") == "text"


def test_the_memo_is_bounded():
    units._PRINTED_AS.clear()
    for power in range(1, 300):
        value = Q(1, f"token ** {power}")
        assert format_quantity(value) == by_comparison(value)
    assert len(units._PRINTED_AS) <= 256
