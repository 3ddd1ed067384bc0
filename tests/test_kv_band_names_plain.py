"""The rules' KV band names (kv.tokens_high/low, kv.state_blocks_high/low) and kv.max_concurrency
are worked out from the plain numbers compute kept (Budget.kv_band_tokens, kv_band_blocks, the
max_concurrency property), without the Quantity sums and quotient they were read from: the same
values, to the last bit, on every fixture's and example's budget and its what-ifs, and on a
budget made another way (dataclasses.replace, no plain numbers)."""

from __future__ import annotations

import dataclasses

import pytest
from helpers import recorded_builds

from hbmlint.rules import _FLAT, _Facts


@pytest.fixture(scope="module")
def budgets() -> list:
    return [budget for resolved, budget in recorded_builds(keep_budgets=True)]


def _as_the_quantities_give_them(b) -> list:
    """The names as they were read: each edge a Quantity sum, the concurrency a quotient."""
    low, high = b.kv_cache - b.kv_uncertainty(up=False), b.kv_cache + b.kv_uncertainty(up=True)
    return [
        b.kv_tokens_if(low),
        b.kv_tokens_if(high),
        b.state_blocks_if(low),
        b.state_blocks_if(high),
        # over vLLM's padding of its layer groups (1 for most models)
        float((b.kv_tokens / b.max_model_len).to("dimensionless").magnitude) / b.kv_group_padding,
    ]


def _as_read_now(b) -> list:
    return [
        b.kv_band_tokens(False),
        b.kv_band_tokens(True),
        b.kv_band_blocks(False),
        b.kv_band_blocks(True),
        b.max_concurrency,
    ]


def _names(b) -> list:
    facts = _Facts(b)
    keys = ("tokens_low", "tokens_high", "state_blocks_low", "state_blocks_high")
    return [_FLAT[f"kv.{key}"][1](facts) for key in (*keys, "max_concurrency")]


def test_the_band_names_are_the_quantities_values(budgets):
    checked = hybrid = 0
    for base in budgets:
        whatifs = (base.whatif(speculative_method="none"), base.whatif(kv_cache_dtype="fp8"))
        for b in (base, *whatifs):
            for budget in (b, dataclasses.replace(b)):
                expected = _as_the_quantities_give_them(budget)
                for found in (_as_read_now(budget), _names(budget)):
                    assert found == expected
                    assert [repr(v) for v in found] == [repr(v) for v in expected]
                    assert [type(v) for v in found] == [type(v) for v in expected]
                checked += 1
                hybrid += bool(expected[3])
    assert checked > 600
    assert hybrid > 0  # some budgets have vLLM's hybrid pool: their blocks are counted


def test_a_budget_without_plain_numbers_reads_its_figures(budgets):
    base = next(b for b in budgets if b.kv_pages is not None)
    other = dataclasses.replace(base, kv_cache=base.kv_cache.to("GiB"))
    assert "_plain" not in other.__dict__
    assert _as_read_now(other) == _as_the_quantities_give_them(other)


def test_the_names_made_with_the_unit_makers_are_the_quantities_q_made(budgets):
    # tokens_quantity(n) and bytes_quantity(n) for what Q(n, "token") and Q(n, "byte") made
    from hbmlint.units import Q

    made = {
        "model.max_length": lambda c: Q(c.target.max_length or 0, "token"),
        "serving.kv_cache_memory_bytes": lambda c: Q(c.s.kv_cache_memory_bytes or 0, "byte"),
        "draft.max_model_len": lambda c: Q(c.draft_context() or c.s.max_model_len, "token"),
        "speculative.verify_tokens": lambda c: Q(c.budget.verify_tokens, "token"),
        "kv.shortfall": lambda c: max(-c.budget.kv_cache, Q(0, "byte")),
    }
    for budget in budgets:
        facts = _Facts(budget)
        for key, reference in made.items():
            found, expected = _FLAT[key][1](facts), reference(facts)
            assert found == expected and repr(found) == repr(expected)
            assert found.units == expected.units and type(found.magnitude) is type(
                expected.magnitude
            )
