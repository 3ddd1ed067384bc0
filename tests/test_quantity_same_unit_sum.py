"""A Quantity sum or difference of the same unit, done in __add__/__sub__ themselves rather than
through _add_sub: the same magnitude, its type and unit as _add_sub's; other operands go the
long way as before."""

from __future__ import annotations

import operator

import pytest

from hbmlint.quantity import Quantity
from hbmlint.units import Q


def exactly(a, b) -> bool:
    return (
        a.magnitude == b.magnitude
        and type(a.magnitude) is type(b.magnitude)
        and str(a.units) == str(b.units)
    )


@pytest.mark.parametrize(
    "a, b",
    [
        (Q(3, "byte"), Q(4, "byte")),
        (Q(3, "byte"), Q(0.25, "byte")),
        (Q(1.5, "GiB"), Q(2.25, "GiB")),
        (Q(7, "token"), Q(-2, "token")),
        (Q(1, "GiB"), Q(512, "MiB")),  # other units: the long way
    ],
)
def test_a_quantity_sum_and_difference_are_add_subs(a, b):
    for op, name in ((operator.add, "__add__"), (operator.sub, "__sub__")):
        fast = getattr(a, name)(b)
        slow = a._add_sub(b, op)
        assert type(fast) is Quantity
        assert exactly(fast, slow)
    assert exactly(b.__radd__(a), b._add_sub(a, operator.add))
    assert exactly(sum([a, a], Q(0, str(a.units))), (Q(0, str(a.units)) + a) + a)


def test_a_number_and_a_quantity_still_go_the_long_way():
    assert exactly(0 + Q(3, "byte"), Q(3, "byte"))
    assert exactly(Q(3, "byte") - 0, Q(3, "byte"))
    with pytest.raises(TypeError):
        Q(3, "byte") + "x"
