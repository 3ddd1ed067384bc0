"""Issue 18 (speed), session 23: kv.tokens_displaced_by_state_slots (every deployment's rules
read it) answers a shared zero for a model without recurrent state or a deployment without a
drafter, without making Quantities to test or return; and kv_uncertainty keeps one memo. These
tests hold both to what the full computation gives on every fixture and example, what-ifs with
and without a drafter included."""

from __future__ import annotations

import pytest
from helpers import recorded_builds

from hbmlint.rules import _Facts
from hbmlint.units import Q


@pytest.fixture(scope="module")
def budgets():
    return [budget for _, budget in recorded_builds(keep_budgets=True)]


def reference(budget):
    """state_slot_tokens as written before the shared zero."""
    facts = _Facts(budget)
    s = budget.settings
    recurrent = bool((budget.kv_state_bytes_per_sequence or Q(0, "byte")).magnitude)
    if not recurrent or s.num_speculative_tokens <= 0 or not budget.has_drafter:
        return Q(0, "token")
    ngram = budget.whatif(speculative_method="ngram").kv_tokens
    without = facts.tokens_without_draft
    return max(min(without() - ngram, without() - budget.kv_tokens), Q(0, "token"))


def variants(budget):
    yield budget
    yield budget.whatif(speculative_method="none")
    yield budget.whatif(speculative_method="ngram")


def test_state_slot_tokens_match_the_full_computation(budgets):
    recurrent = zero = 0
    for budget in budgets:
        for b in variants(budget):
            got, want = _Facts(b).state_slot_tokens(), reference(b)
            assert got == want and str(got.units) == str(want.units) == "token"
            assert type(got.magnitude) is type(want.magnitude)
            zero += got.magnitude == 0
            recurrent += bool(b.kv_state_bytes_per_sequence)
    assert zero and recurrent  # both paths are taken


def test_a_zero_state_or_none_gives_zero_tokens(budgets):
    b = budgets[0].whatif(speculative_method="ngram", num_speculative_tokens=4)
    for state in (None, Q(0, "byte"), Q(0.0, "GiB")):
        b.__dict__["kv_state_bytes_per_sequence"] = state
        got = _Facts(b).state_slot_tokens()
        assert got == Q(0, "token") and got.magnitude == 0


def test_kv_uncertainty_is_worked_out_once_each_way(budgets):
    for budget in budgets[:20]:
        up, down = budget.kv_uncertainty(up=True), budget.kv_uncertainty(up=False)
        assert budget.kv_uncertainty(up=True) is up
        assert budget.kv_uncertainty(up=False) is down
        assert up == budget._uncertainty(True) and down == budget._uncertainty(False)
