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


def test_nf4_quantized_on_load_is_double_quantized(budget):
    # TGI quantizes with compress_statistics=True: 0.516 bytes a linear parameter, not the
    # 0.5625 of an NF4 checkpoint saved without double quantization; Llama 3 70B's 68.5B
    # linear parameters at TP 2 with its 2.1B embedding and lm_head parameters in bfloat16
    # come to about 18.4 GiB a GPU, where 0.5625 gave 19.9
    weights = budget.weights.to("GiB").magnitude
    assert 18.2 < weights < 18.6
    assert budget.settings.quantization == "bitsandbytes-nf4"
