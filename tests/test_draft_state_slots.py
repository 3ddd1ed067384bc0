"""What a drafter takes from the KV cache of a model with recurrent state (Mamba, gated
delta-net): its own weights and KV (HBM202, what an n-gram drafter in its place gives back) apart
from the state slots of the draft tokens, which any drafter needs, an n-gram one too (HBM210).

Fixtures (tests/fixtures/drafters/, each naming its source): Qwen3-Next's model-card MTP command
for SGLang on a v0.5.10 image, the same with 128 running requests, and a public vLLM launch
script of Qwen3.6-27B with MTP on two GPUs."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_lint import codes, errors, line_of, lint

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import budget_names, load_rules

DRAFTERS = Path(__file__).parent / "fixtures" / "drafters"
EXAMPLES = Path(__file__).parent.parent / "examples"


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def budget_of(path: Path, gpu: str | None = None):
    [item] = lint_file(path, path.name, [], LintOptions(default_gpu=gpu)).deployments
    return item.budget


def tokens(b) -> int:
    return int(b.kv_tokens.to("token").magnitude)


def figures(b) -> tuple[int, int, int]:
    kv = budget_names(b)["kv"]
    return (
        int(kv.tokens_displaced_by_draft.magnitude),
        int(kv.tokens_displaced_by_state_slots.magnitude),
        int(kv.tokens_without_draft.magnitude),
    )


def test_sglang_0_5_10_takes_the_draft_states_out_of_the_kv_cache_not_the_drafter(rules):
    path = DRAFTERS / "sglang-qwen3-next-mtp.yaml"
    b = budget_of(path)
    ngram = tokens(b.whatif(speculative_method="ngram"))
    none = tokens(b.whatif(speculative_method="none"))
    own, state, without = figures(b)
    # this release sizes the KV pool on the target's cells, the MTP layer outside it: an n-gram
    # drafter in its place gives back nothing; the 4 draft states of 48 requests cost the rest
    assert own == ngram - tokens(b) == 0
    assert state == none - ngram > 0
    assert without == none
    # 13% of the cache: neither rule trips
    assert state / without < 0.25
    result = lint(path, rules)
    assert not codes(result, "HBM202") and not codes(result, "HBM210")


def test_many_running_requests_trip_the_state_rule_not_the_drafters(rules):
    path = DRAFTERS / "sglang-qwen3-next-mtp-128-running.yaml"
    b = budget_of(path)
    own, state, without = figures(b)
    assert own == 0
    assert state == without - tokens(b)
    result = lint(path, rules)
    assert errors(result) == []
    # hbmlint said the drafter displaced these tokens and offered an n-gram drafter that frees none
    assert not codes(result, "HBM202")
    [finding] = codes(result, "HBM210")
    assert finding.span.line == line_of(path, "--speculative-algo")
    assert f"takes {state:,} tokens of KV cache, {state / without:.1%}" in finding.message
    one, none = (fix.message for fix in finding.fixes)
    assert f"{tokens(b):,} tokens -> {tokens(b.whatif(num_speculative_tokens=1)):,} tokens" in one
    assert f"the KV cache holds {without:,} tokens" in none


def test_vllm_pages_no_draft_states_without_speculation():
    path = DRAFTERS / "vllm-qwen36-27b-autoround-mtp.sh"
    b = budget_of(path, "RTX-3090")
    none = b.whatif(speculative_method="none")
    # prefix caching on: mamba cache mode "align", 2 + 3 state pages a request with MTP, 2 without
    assert "'align': 5 state pages per request" in b.assumed["kv_cache"]
    assert "'align': 2 state pages per request" in none.assumed["kv_cache"]
    own, state, without = figures(b)
    ngram = tokens(b.whatif(speculative_method="ngram"))
    assert own == ngram - tokens(b) > 0  # the MTP layer's weights and KV, what n-gram frees
    assert state == tokens(none) - ngram > own  # 3 more state pages a request cost more
    assert without == tokens(none)


def test_a_model_without_recurrent_state_keeps_its_figures():
    # Llama-3.1-70B FP8 with an 8B draft (examples/): the drafter takes all it displaces
    b = budget_of(EXAMPLES / "llama70b-fp8-h100-8b-draft.yaml")
    own, state, without = figures(b)
    assert state == 0
    assert own == without - tokens(b)
