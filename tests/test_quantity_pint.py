"""hbmlint/quantity.py against pint, the library whose semantics it keeps.

A lint no longer imports pint (its start-up was a third of a one-file lint), so quantity.py
does the arithmetic for hbmlint's multiplicative units. pint stays the reference: loaded with
the same units.txt, it must agree on every unit's dimension and scale, on the products and
ratios the budget and the rules form, and on which conversions are refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint import quantity
from hbmlint.units import Q

pint = pytest.importorskip("pint", reason="pint is the reference; pip install '.[test]'")

UNITS_TXT = Path(quantity.__file__).with_name("units.txt")


@pytest.fixture(scope="module")
def ureg():
    return pint.UnitRegistry(str(UNITS_TXT))


# every unit a manifest, a rule or the catalogs write, prefixed and compound forms included
UNITS = [
    "byte",
    "B",
    "bit",
    "KiB",
    "MiB",
    "GiB",
    "TiB",
    "kB",
    "KB",
    "MB",
    "GB",
    "TB",
    "percent",
    "ratio",
    "token",
    "sequence",
    "second",
    "ms",
    "us",
    "minute",
    "hour",
    "TFLOPS",
    "TOPS",
    "GB / second",
    "byte / token",
    "token / sequence",
    "GiB / token",
    "hertz",
]


@pytest.mark.parametrize("unit", UNITS)
def test_each_unit_has_pints_dimension_and_scale(ureg, unit):
    ours = Q(1.0, unit)
    theirs = ureg.Quantity(1.0, unit)
    assert str(ours.dimensionality) == str(theirs.dimensionality)
    assert ours.to_root_units().magnitude == pytest.approx(
        theirs.to_root_units().magnitude, rel=1e-12
    )


@pytest.mark.parametrize(
    ("left", "op", "right", "target"),
    [
        ((80, "GiB"), "*", (90, "percent"), "byte"),
        ((79.18, "GiB"), "*", (0.9, "ratio"), "GiB"),
        ((131072, "byte / token"), "*", (32768, "token"), "GiB"),
        ((4.34, "GiB"), "/", (131072, "byte / token"), "token"),
        ((3.35, "TB / second"), "*", (2, "second"), "GB"),
        ((989.4, "TFLOPS"), "*", (1, "ms"), "flop"),
        ((16, "GiB"), "/", (3.35, "TB / second"), "ms"),
        ((40000, "token"), "/", (8192, "token"), "ratio"),
    ],
)
def test_products_and_ratios_match_pint(ureg, left, op, right, target):
    def apply(a, b):
        return a * b if op == "*" else a / b

    ours = apply(Q(*left), Q(*right))
    theirs = apply(ureg.Quantity(*left), ureg.Quantity(*right))
    assert str(ours.dimensionality) == str(theirs.dimensionality)
    assert ours.to(target).magnitude == pytest.approx(theirs.to(target).magnitude, rel=1e-12)


@pytest.mark.parametrize(("value", "target"), [((80, "GiB"), "token"), ((10, "percent"), "byte")])
def test_both_refuse_the_same_conversions(ureg, value, target):
    with pytest.raises(pint.DimensionalityError):
        ureg.Quantity(*value).to(target)
    with pytest.raises(quantity.DimensionalityError):
        Q(*value).to(target)
