"""Architecture weights, KV layouts, parameter counts and roofline shapes add one figure per
layer, in layer order (a float sum, whose result depends on the order). sum_in_order and
repeated_sum give that sum's float without the additions where every figure is a whole number
(then every partial sum is exact): the same float, to the last bit, as reduce over the layers,
for every catalog model, shape and format, and for figures that are not whole numbers.
"""

from __future__ import annotations

import math
import operator
import random
from functools import reduce
from itertools import repeat

import pytest
from helpers import catalog_architectures

from hbmlint import roofline
from hbmlint.catalog import architecture
from hbmlint.catalog.architecture import Architecture, repeated_sum, sum_in_order


def by_reduce(runs: list) -> float:
    sequence: list = []
    for parts, count in runs:
        sequence += list(parts) * count
    return reduce(operator.add, sequence, 0.0)


def repeated_by_reduce(value: float, count: int) -> float:
    return reduce(operator.add, repeat(value, count), 0.0)


def same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return a == b and type(a) is type(b) and math.copysign(1, a) == math.copysign(1, b)


FIGURES = [
    0,
    0.0,
    -0.0,
    1,
    3.0,
    0.5,
    1e-3,
    7 / 3,
    2**52 + 1.0,
    2**53,
    2**53 + 1,
    2**60,
    float(2**60),
    -1,
    -2.0,
    math.inf,
    math.nan,
    True,
]


def test_sum_in_order_is_the_ordered_sum_of_every_kind_of_figure():
    rng = random.Random(18)
    for _ in range(3000):
        choices = FIGURES + [rng.randrange(1 << 40), float(rng.randrange(1 << 50))]
        runs = [
            (tuple(rng.choice(choices) for _ in range(rng.randrange(5))), rng.randrange(6))
            for _ in range(rng.randrange(4))
        ]
        assert same(sum_in_order(runs), by_reduce(runs)), runs


def test_large_whole_totals_take_the_additions():
    # each part is whole, but a total past 2**53 rounds on the way: the loop's float
    # (2**53 + 1 is no float: each 1 added to 2**53 is lost, where the exact 2**53 + 3
    # would round to 2**53 + 4)
    runs = [((2.0**53, 1.0, 1.0, 1.0), 1)]
    assert sum_in_order(runs) == by_reduce(runs) == 2.0**53
    assert float(2**53 + 3) != 2.0**53


def test_repeated_sum_is_the_ordered_sum():
    for value in FIGURES + [0.1, 123456789.0, 2.5e15, 4096]:
        for count in (0, 1, 2, 3, 80, 1001):
            assert same(repeated_sum(value, count), repeated_by_reduce(value, count)), (
                value,
                count,
            )


ARCHITECTURES = catalog_architectures()
FORMATS = [None, "fp8", "awq", "gptq", "int4", "nvfp4", "mxfp4", "bitsandbytes-nf4"]


def figures(arch: Architecture) -> list:
    """Weights for several shapes and formats, KV layouts, parameters and roofline shapes,
    worked out afresh (no memo kept between calls)."""
    out: list = [Architecture.parameters.func(arch)]
    for tp, pp in ((1, 1), (2, 1), (8, 1), (3, 2), (4, 7)):
        for fmt in FORMATS:
            out.append(arch._weight_bytes(tp, pp, fmt, None, 1))
        if arch.is_moe:
            out.append(arch._weight_bytes(tp, pp, "fp8", "float16", 4, 3))
        for kv_bytes in (2, 1, 0.5, 1.3):
            out.append(arch._kv_layout(tp, pp, kv_bytes, ""))
        out.append(roofline._shape(arch, tp, pp, 2))
    return out


def test_catalog_figures_are_the_ordered_sums(monkeypatch):
    assert len(ARCHITECTURES) > 100
    fast = [figures(arch) for arch in ARCHITECTURES]
    monkeypatch.setattr(architecture, "sum_in_order", by_reduce)
    monkeypatch.setattr(architecture, "repeated_sum", repeated_by_reduce)
    monkeypatch.setattr(roofline, "repeated_sum", repeated_by_reduce)
    for arch, found in zip(ARCHITECTURES, fast, strict=True):
        slow = figures(arch)
        assert all(
            same(a, b) if isinstance(a, float) else a == b for a, b in zip(found, slow, strict=True)
        ), arch.name


def test_weights_take_the_additions_where_a_part_is_not_whole():
    # a 4-bit format with a scale per group of 128: parts with fractions, summed in order
    arch = next(a for a in ARCHITECTURES if a.num_layers >= 30 and not a.mixers)
    seen = []

    def spy(runs):
        runs = list(runs)
        seen.append(all(float(p).is_integer() for parts, _ in runs for p in parts))
        return by_reduce(runs)

    weights = arch._weight_bytes(3, 1, "gptq", None, 1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(architecture, "sum_in_order", spy)
        assert same(arch._weight_bytes(3, 1, "gptq", None, 1), weights)
    assert seen == [False]


def test_layer_runs_are_worked_out_once_a_stage():
    for arch in ARCHITECTURES:
        first = arch._layer_runs(arch.num_layers)
        assert arch._layer_runs(arch.num_layers) is first
        assert first == arch._find_layer_runs(arch.num_layers)
