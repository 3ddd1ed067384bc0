"""A what-if's figures (whatif(), compute_from) are made Quantities when first read: the same
values, units and notes compute() gives at once, and a figure nobody reads is never made."""

from __future__ import annotations

import dataclasses
import pickle

import pytest
from helpers import recorded_builds

from hbmlint import budget as budget_stage

WHATIFS = [
    {"speculative_method": "none"},
    {"speculative_method": "ngram"},
    {"kv_cache_dtype": "fp8"},
    {"tensor_parallel": 8},
    {"draft_quantization": "fp8"},
    {"draft_offload": True},
    {"max_model_len": 2048, "max_num_seqs": 8},
]
FIELDS = [f.name for f in dataclasses.fields(budget_stage.Budget)] + ["overhead_total"]


@pytest.fixture(scope="module")
def resolved_deployments() -> list:
    return [resolved for resolved, budget in recorded_builds()]


# what the budget was made from, compared by equality only: a frozenset's repr inside them may
# list its items in another order after a pickling round trip
_INPUTS = {"resolved", "settings"}


def _same(found, expected) -> None:
    for name in FIELDS:
        a, b = getattr(found, name), getattr(expected, name)
        assert a == b, name
        if name not in _INPUTS:
            assert repr(a) == repr(b), name  # the same units and the same number type


def test_a_whatif_reads_the_figures_compute_gives(resolved_deployments):
    checked = 0
    for resolved in resolved_deployments[::2]:
        for notes in (True, False):
            base = budget_stage.build(resolved, notes)
            for changes in WHATIFS:
                try:
                    settings = budget_stage._changed(base.settings, changes)
                    expected = budget_stage.compute(base.resolved, settings, dict(base.assumed))
                except Exception as exc:  # a what-if the deployment cannot take: the same
                    with pytest.raises(type(exc)):
                        base.whatif(**changes)
                    continue
                found = base.whatif(**changes)
                assert isinstance(found, budget_stage.Budget)
                _same(found, expected)
                assert found.assumed == expected.assumed
                checked += 1
    assert checked > 300


def test_a_figure_nobody_reads_is_not_made(resolved_deployments):
    base = budget_stage.build(resolved_deployments[0])
    found = base.whatif(speculative_method="none")
    assert "kv_tokens" not in found.__dict__
    assert "weights" not in found.__dict__
    tokens = found.kv_tokens
    assert found.__dict__["kv_tokens"] is tokens  # made once, then read as any attribute
    assert found.kv_tokens is tokens
    assert "weights" not in found.__dict__


def test_a_whatif_pickles_replaces_and_prints_as_a_budget(resolved_deployments):
    base = budget_stage.build(resolved_deployments[1])
    found = base.whatif(kv_cache_dtype="fp8")
    expected = budget_stage.compute(
        base.resolved,
        budget_stage._changed(base.settings, {"kv_cache_dtype": "fp8"}),
        dict(base.assumed),
    )
    again = pickle.loads(pickle.dumps(found))
    _same(again, expected)
    copied = dataclasses.replace(found, byte_unit="GB")
    _same(dataclasses.replace(copied, byte_unit=expected.byte_unit), expected)
    assert copied.overhead_total == expected.overhead_total
    assert repr(found).replace("_WhatIfBudget(", "Budget(", 1) == repr(expected)
    with pytest.raises(AttributeError):
        found.no_such  # noqa: B018
