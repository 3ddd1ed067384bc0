"""Patterns from public repositories hbmlint had never seen (sweep 15): each fixture under
tests/fixtures/real/ names its source in its first lines; each test says what a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_lint import codes, errors, line_of, lint

from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"

SGLANG_MTP = REAL / "sglang-mtp-pool-below-context-job.yaml"

COVERED = {SGLANG_MTP.name}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def test_sglang_drafter_short_of_the_context_starts_in_the_tradeoff_too(rules):
    # was HBM208 "as set: MTP layers: does not start ... the current setting does not start"
    # beside HBM104's "the server starts and refuses requests longer than the pool": SGLang
    # makes no start-up check of one context-length request (rules/HBM102's description); a
    # vLLM drafter short of one sequence still "does not start" (test_speculative_rules.py)
    result = lint(SGLANG_MTP, rules)
    assert errors(result) == []
    [pool] = codes(result, "HBM104")
    assert pool.span.line == line_of(SGLANG_MTP, "--context-length")
    [tradeoff] = codes(result, "HBM208")
    assert "does not start" not in tradeoff.message
    assert "as set: MTP layers: starts but holds no max_model_len sequence" in tradeoff.message
    [fix] = [f.message for f in tradeoff.fixes]
    assert fix.endswith("the current setting starts but holds no max_model_len sequence.")
