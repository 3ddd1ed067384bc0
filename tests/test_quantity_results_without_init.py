"""Quantity arithmetic makes its results without Quantity.__init__ (whose unit parsing a
result never needs), and a product's or quotient's Unit once per pair of units
(quantity._unit_product): the same magnitudes and units, to the last bit, as the Unit made of
the two units' names each time; units.Q of a unit's text is made the same way."""

from __future__ import annotations

import operator

import pytest

from hbmlint import quantity
from hbmlint.quantity import Quantity, Unit, _combine
from hbmlint.units import Q

UNITS = ["byte", "GiB", "token", "byte / token", "token / sequence", "percent", "", "second"]
MAGNITUDES = [0, 3, 2.5, -7, 1e-9, 2**45]


@pytest.fixture
def no_init(monkeypatch):
    """Quantity.__init__ refused: a result made through it fails the test."""

    def refuse(self, *args, **kwargs):
        raise AssertionError("Quantity.__init__ called")

    monkeypatch.setattr(Quantity, "__init__", refuse)


@pytest.mark.parametrize("left", UNITS)
def test_products_and_quotients_have_the_units_of_the_names_combined(left):
    for right in UNITS:
        for a in MAGNITUDES:
            for b in MAGNITUDES:
                x, y = Q(a, left), Q(b, right)
                for op, sign in ((operator.mul, 1), (operator.truediv, -1)):
                    if op is operator.truediv and b == 0:
                        continue
                    made = op(x, y)
                    units = Unit(_combine(x.units._items, y.units._items, sign))
                    assert made.units == units and made.units._key == units._key
                    expected = b if op is operator.mul else None
                    if expected is not None:
                        assert made.magnitude == a * b
                    else:
                        assert made.magnitude == float(a) / float(b)


def test_the_same_product_is_the_same_unit():
    first = (Q(2, "GiB") / Q(3, "token")).units
    again = (Q(5, "GiB") / Q(7, "token")).units
    assert first is again
    assert first == Unit({"gibibyte": 1, "token": -1})
    assert (Q(1, "token") * Q(1, "token")).units is (Q(2, "token") * Q(3, "token")).units


def test_arithmetic_results_are_made_without_init(no_init):
    gib, tokens = Q(80, "GiB"), Q(4096, "token")
    results = [
        gib * 2,
        2 * gib,
        gib / 4,
        gib * Q(90, "percent"),
        gib / tokens,
        gib + 0,
        gib - 0,
        Q(0.5, "") + 1,
        Q(1, "GiB") + Q(512, "MiB"),
        Q(1, "GiB") - Q(512, "MiB"),
    ]
    assert [r.magnitude for r in results] == [
        160,
        160,
        20.0,
        7200,
        80 / 4096,
        80,
        80,
        1.5,
        1.5,
        0.5,
    ]
    assert str(results[4].units) == "gibibyte / token"
    assert type(Q(3, "byte")) is Quantity and Q(3, "byte").units == quantity.parse_units("byte")


def test_sums_across_units_keep_the_left_unit():
    total = Q(1, "GiB") + Q(512, "MiB")
    assert total.units == quantity.parse_units("GiB") and total.magnitude == 1.5
    with pytest.raises(quantity.DimensionalityError):
        Q(1, "GiB") + Q(1, "token")
