"""quantity.py's comparisons against pint's (the reference it keeps): the ones rules write
(``kv.tokens < serving.max_model_len``, ``weights.total > gpu.usable``, ``draft.weights > 0``,
a ratio against a number), the same unit or another of the same kind, and a comparison across
kinds refused."""

from __future__ import annotations

import operator
from pathlib import Path

import pytest

from hbmlint import quantity
from hbmlint.units import Q

pint = pytest.importorskip("pint", reason="pint is the reference; pip install '.[test]'")


@pytest.fixture(scope="module")
def ureg():
    return pint.UnitRegistry(str(Path(quantity.__file__).with_name("units.txt")))


OPS = [operator.lt, operator.le, operator.gt, operator.ge]
PAIRS = [
    ((4096, "token"), (4096, "token")),
    ((32768, "token"), (4096, "token")),
    ((79.1, "GiB"), (80, "GiB")),
    ((80, "GiB"), (85.9, "GB")),  # another unit of the same kind: compared in bytes
    ((85899345920, "byte"), (80, "GiB")),
    ((90, "percent"), (0.9, "ratio")),
    ((0, "byte"), (1, "byte")),
]


@pytest.mark.parametrize(("left", "right"), PAIRS)
@pytest.mark.parametrize("op", OPS)
def test_comparisons_match_pint(ureg, left, right, op):
    assert op(Q(*left), Q(*right)) == op(ureg.Quantity(*left), ureg.Quantity(*right))
    assert op(Q(*right), Q(*left)) == op(ureg.Quantity(*right), ureg.Quantity(*left))


@pytest.mark.parametrize("op", OPS)
def test_a_quantity_against_a_number_matches_pint(ureg, op):
    for value, number in (((3, "byte"), 0), ((0, "token"), 0), ((95, "percent"), 0.9)):
        assert op(Q(*value), number) == op(ureg.Quantity(*value), number)


@pytest.mark.parametrize("op", OPS)
def test_across_kinds_both_refuse(ureg, op):
    with pytest.raises(pint.DimensionalityError):
        op(ureg.Quantity(80, "GiB"), ureg.Quantity(4096, "token"))
    with pytest.raises(quantity.DimensionalityError):
        op(Q(80, "GiB"), Q(4096, "token"))
    with pytest.raises(ValueError):  # a memory figure against a bare number other than 0
        op(Q(80, "GiB"), 5)
