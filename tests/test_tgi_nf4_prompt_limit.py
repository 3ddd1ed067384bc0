"""TGI 2.x's warm-up and its on-load NF4 weights, read from Google's GKE sample of Llama 3 70B on
two L4s (tests/fixtures/real/tgi-21-llama3-70b-nf4-2xl4.yaml)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
GKE_NF4 = REAL / "tgi-21-llama3-70b-nf4-2xl4.yaml"
COVERED = {GKE_NF4.name}


@pytest.fixture(scope="module")
def budget():
    rules, _ = load_rules()
    [read] = lint_file(GKE_NF4, GKE_NF4.name, rules, LintOptions()).deployments
    return read.budget


def test_the_warm_up_prefill_follows_the_prompt_limit_the_manifest_sets(budget):
    # TGI 2.0-2.4.0: --max-batch-prefill-tokens defaults to max_input_tokens + 50
    # (launcher/src/main.rs), so MAX_INPUT_TOKENS=2048 warms up with 2,098 tokens, not the
    # 4,145 of the default prompt limit (4,095)
    assert budget.settings.max_num_batched_tokens == 2098
    assert "max_input_tokens + 50" in budget.assumed["max_num_batched_tokens"]


def test_nf4_quantized_on_load_is_double_quantized_head_included(budget):
    # TGI quantizes with compress_statistics=True: 0.516 bytes a linear parameter, not the
    # 0.5625 of an NF4 checkpoint saved without double quantization; and TGI 2.1 builds the LM
    # head with --quantize too (TensorParallelHead.load). Llama 3 70B's 68.5B linear parameters
    # and its 1.05B-parameter head in NF4 at TP 2, the 1.05B embedding in bfloat16: about 17.7
    # GiB a GPU (18.4 with the head in bfloat16, 19.9 at 0.5625)
    weights = budget.weights.to("GiB").magnitude
    assert 17.5 < weights < 17.9
    assert budget.settings.quantization == "bitsandbytes-nf4"
    assert "LM head in bitsandbytes-nf4" in budget.assumed["weights"]


def test_the_gke_sample_is_a_doubt_not_a_refusal():
    # With the head in NF4 the warm-up (the weights, 2.0 GiB of prefill logits, 1.1 GiB
    # non-torch and the warm-up batch's 8,192 KV slots) fits the L4 with about 0.13 GiB to
    # spare: no error promising a refusal for Google's published sample, but a warning, as
    # 0.13 GiB is less than the overhead estimate's uncertainty
    rules, _ = load_rules()
    result = lint_file(GKE_NF4, GKE_NF4.name, rules, LintOptions())
    codes = {d.code for d in result.diagnostics}
    assert "HBM102" not in codes
    [doubt] = [d for d in result.diagnostics if d.code == "HBM105"]
    assert "warm-up batch fits with less to spare" in doubt.message


def test_the_doubt_names_the_warm_up_batch_as_what_to_shrink():
    # What may not fit is TGI's warm-up batch, not a max_model_len sequence: the advice names
    # --max-batch-prefill-tokens (no lower than --max-input-tokens, which TGI's launcher
    # refuses), not the max_model_len advice given where the cache itself is what is short
    rules, _ = load_rules()
    result = lint_file(GKE_NF4, GKE_NF4.name, rules, LintOptions())
    [doubt] = [d for d in result.diagnostics if d.code == "HBM105"]
    advice = " ".join(fix.message for fix in doubt.fixes)
    assert "warm-up batch (2,098 prefill tokens)" in advice
    assert "--max-batch-prefill-tokens" in advice and "--max-input-tokens" in advice
    assert "no shorter max_model_len is safe" not in advice
