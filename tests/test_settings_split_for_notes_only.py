"""settings_for works out the DP-attention split (dp_attention.sharding) for its note alone:
a budget built without notes asks for it once, in compute, and the note written later is the
one build writes at once."""

from __future__ import annotations

import sys

import pytest
from helpers import recorded_builds

from hbmlint import budget as budget_stage
from hbmlint import dp_attention


@pytest.fixture(scope="module")
def resolved_deployments() -> list:
    return [resolved for resolved, budget in recorded_builds(keep_budgets=True)]


def test_a_budget_without_notes_asks_for_the_split_once(resolved_deployments, monkeypatch):
    callers = []
    sharding = dp_attention.sharding

    def counting(*args, **kwargs):
        callers.append(sys._getframe(1).f_code.co_name)
        return sharding(*args, **kwargs)

    monkeypatch.setattr(dp_attention, "sharding", counting)
    for resolved in resolved_deployments:
        budget_stage.build(resolved, notes=False)
    assert "compute" in callers
    assert "_settings_for" not in callers
    callers.clear()
    budget_stage.build(resolved_deployments[0])
    assert "_settings_for" in callers  # the note's


def test_the_split_notes_are_the_same_either_way(resolved_deployments):
    split_notes = 0
    for resolved in resolved_deployments:
        written = budget_stage.build(resolved).assumed
        later = budget_stage.build(resolved, notes=False).assumed
        assert later.get("sharding") == written.get("sharding")
        split_notes += "sharding" in written
    assert split_notes > 0
