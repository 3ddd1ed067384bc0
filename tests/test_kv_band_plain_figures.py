"""A budget's KV band (kv_uncertainty, kv_tokens_if) reads the plain numbers compute made its
figures of (the budget's _plain), not the figures through their readers: the same bytes and
tokens, to the last bit, as from the figures of a budget made another way."""

from __future__ import annotations

import dataclasses

import pytest
from helpers import recorded_builds


@pytest.fixture(scope="module")
def budgets() -> list:
    return [budget for resolved, budget in recorded_builds(keep_budgets=True)]


def _band(b) -> list:
    low, high = b.kv_uncertainty(up=False), b.kv_uncertainty(up=True)
    return [
        low,
        high,
        b.kv_tokens_if(b.kv_cache - low),
        b.kv_tokens_if(b.kv_cache + high),
        b.kv_tokens_if(b.kv_cache),
    ]


def test_the_band_from_plain_numbers_is_the_band_from_the_figures(budgets):
    checked = 0
    for base in budgets:
        for b in (base, base.whatif(speculative_method="none"), base.whatif(kv_cache_dtype="fp8")):
            assert "_plain" in b.__dict__
            # dataclasses.replace makes a budget of the same figures without compute's numbers
            other = dataclasses.replace(b)
            assert "_plain" not in other.__dict__
            found, expected = _band(b), _band(other)
            assert found == expected
            assert [repr(v) for v in found] == [repr(v) for v in expected]
            checked += 1
    assert checked > 300
