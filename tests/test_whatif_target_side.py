"""A what-if that changes only the drafter's settings takes its base budget's target side
(budget._target_side: the GPU's memory, the target's weights and their notes, the KV dtype's
bytes and layout, the NVLink group; from the DP-attention split) instead of working it out
again: the side and the split read none of those settings, and the what-if's figures and
notes are compute()'s."""

from __future__ import annotations

import dataclasses

import pytest
from helpers import recorded_builds

from hbmlint import budget as budget_stage
from hbmlint import dp_attention

# what-ifs of the drafter alone (the rules' and the speculative table's), and of the target
DRAFTER = [
    {"speculative_method": "none"},
    {"speculative_method": "ngram", "num_speculative_tokens": 3},
    {"speculative_method": "none", "num_speculative_tokens": 0},
    {"draft_quantization": "fp8"},
    {"draft_kv_cache_dtype": "fp8"},
    {"draft_offload": True},
    {"draft_tensor_parallel": 1},
]
TARGET = [{"tensor_parallel": 8}, {"kv_cache_dtype": "fp8"}, {"quantization": "fp8"}]
FIELDS = [f.name for f in dataclasses.fields(budget_stage.Budget)] + ["overhead_total"]


@pytest.fixture(scope="module")
def resolved_deployments() -> list:
    return [resolved for resolved, budget in recorded_builds()]


class _Reading:
    """Settings that note every name read of them."""

    def __init__(self, settings: budget_stage.Settings, read: set[str]) -> None:
        self._settings, self._read = settings, read

    def __getattr__(self, name: str):
        self._read.add(name)
        return getattr(self._settings, name)


def test_the_side_reads_only_its_settings(resolved_deployments):
    read: set[str] = set()
    for resolved in resolved_deployments:
        base = budget_stage.build(resolved, False)
        s = _Reading(base.settings, read)
        split = dp_attention.sharding(
            base.resolved.target,
            s.engine,
            s.engine_version,
            s.tensor_parallel,
            s.attention_data_parallel,
            s.whole_parts,
        )
        # with pipeline stages budgeted one by one, the side of the stage that binds
        stages = budget_stage._pipeline_stages(base.resolved, s, split)
        sides = [budget_stage._target_side(base.resolved, s, split, i) for i in range(stages)]
        sides = sides or [budget_stage._target_side(base.resolved, s, split)]
        assert base.__dict__["_target_side"] in sides
    assert read <= set(budget_stage._SIDE_SETTINGS)
    assert not read & {f for change in DRAFTER for f in change}


def _same(found, expected) -> None:
    for name in FIELDS:
        a, b = getattr(found, name), getattr(expected, name)
        assert a == b, name
        if name not in ("resolved", "settings"):
            assert repr(a) == repr(b), name


def test_a_drafter_whatif_takes_the_base_side(resolved_deployments):
    shared = 0
    for resolved in resolved_deployments[::2]:
        for notes in (True, False):
            base = budget_stage.build(resolved, notes)
            kept = base.__dict__["_target_side"]
            for changes in DRAFTER + TARGET:
                settings = budget_stage._changed(base.settings, changes)
                try:
                    expected = budget_stage.compute(base.resolved, settings, dict(base.assumed))
                except Exception as exc:  # a what-if the deployment cannot take: the same
                    with pytest.raises(type(exc)):
                        base.whatif(**changes)
                    continue
                found = base.whatif(**changes)
                _same(found, expected)
                assert found.assumed == expected.assumed
                side = found.__dict__["_target_side"]
                assert side == expected.__dict__["_target_side"]
                # (with pipeline stages, which one binds is worked out again: above)
                if changes in DRAFTER and base.settings.pipeline_parallel <= 1:
                    assert side is kept  # not worked out again
                    shared += 1
                elif side != kept:
                    assert side is not kept
    assert shared > 300


def test_without_the_caller_changes_the_side_is_worked_out(resolved_deployments):
    base = budget_stage.build(resolved_deployments[0], False)
    settings = budget_stage._changed(base.settings, {"draft_offload": True})
    found = budget_stage.compute_from(base, base.resolved, settings)
    assert found.__dict__["_target_side"] is not base.__dict__["_target_side"]
    assert found.__dict__["_target_side"] == base.__dict__["_target_side"]
    other = dataclasses.replace(base.resolved)  # another deployment's: not base's side
    found = budget_stage.compute_from(base, other, settings, {"draft_offload": True})
    assert found.__dict__["_target_side"] is not base.__dict__["_target_side"]
