"""vLLM's hybrid models (attention beside gated delta-net or Mamba layers) keep more than one
state page per request: 1 + the speculative tokens without prefix caching, 2 + them in mamba
cache mode "align", one per block in "all" (MambaSpec.max_memory_usage_bytes). hbmlint counted
one page whatever the drafter and the prefix caching, so a Qwen3.5 / 3.6 deployment with its MTP
drafter (the configuration its model card recommends) got a per-request cost, and a
concurrency, off by up to twice at short contexts. From 0.28 prefix caching is on by default for
these models, in "align"."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import vllm_compose

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

QWEN35 = "vllm serve Qwen/Qwen3.5-35B-A3B --max-model-len 8192"
MTP3 = """--speculative-config '{"method": "mtp", "num_speculative_tokens": 3}'"""
# Qwen3.5-35B-A3B with a bfloat16 KV cache, as vLLM 0.18.1 logs it: "Setting attention block
# size to 1056 tokens", 10 full-attention layers (2 KV heads of 256: K and V, 2 bytes: 2,048
# bytes a token a layer) and 30 gated delta-net layers, grouped by 10: one attention group and
# three state groups, each page 1,056 tokens of 10 layers
PAGE_GROUP = 1056 * 2 * 256 * 2 * 2 * 10
ATTENTION_PAGES = 8  # ceil(8,192 / 1,056)


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(tmp_path: Path, rules, command: str, version: str, gpu: str = "H100"):
    path = vllm_compose(tmp_path, command, version)
    return lint_file(path, "compose.yaml", rules, LintOptions(keep_budgets=True, default_gpu=gpu))


def budget_of(tmp_path: Path, rules, command: str, version: str, gpu: str = "H100"):
    result = lint(tmp_path, rules, command, version, gpu)
    assert [d for d in result.diagnostics if d.code == "HBM004"] == []
    return result.deployments[0].budget


def target_pages(budget) -> float:
    """The target's pages one request holds (the drafter's own KV taken out)."""
    draft = budget.kv_bytes_per_token_draft.to("byte / token").magnitude
    own = budget.kv_bytes_per_sequence.to("byte").magnitude - draft * budget.settings.max_model_len
    return own / PAGE_GROUP


@pytest.mark.parametrize(
    ("flags", "version", "state_pages"),
    [
        ("", "v0.19.0", 1),  # the 0.18.1 / 0.19.0 logs' "Maximum concurrency"
        (MTP3, "v0.19.0", 1 + 3),  # one page for each speculative token
        (f"{MTP3} --enable-prefix-caching", "v0.19.0", 2 + 3),  # "align" for gated delta-net
        (f"{MTP3} --enable-prefix-caching --mamba-cache-mode all", "v0.19.0", 2 + 3),
        (MTP3, "v0.27.1", 1 + 3),  # prefix caching still opt-in for hybrid models
        (MTP3, "latest", 2 + 3),  # 0.28: on by default, in "align"
        (f"{MTP3} --no-enable-prefix-caching", "latest", 1 + 3),
        ("", "latest", 2),
    ],
)
def test_state_pages_a_request_holds(tmp_path, rules, flags, version, state_pages):
    budget = budget_of(tmp_path, rules, f"{QWEN35} {flags}", version)
    assert target_pages(budget) == pytest.approx(ATTENTION_PAGES + 3 * state_pages)


def test_the_budget_says_which_mode_it_assumed(tmp_path, rules):
    default = budget_of(tmp_path, rules, f"{QWEN35} {MTP3}", "latest")
    note = default.assumed["kv_cache"]
    assert "prefix caching (vLLM's default) in mamba cache mode 'align'" in note
    assert "5 state pages per request" in note
    written = budget_of(tmp_path, rules, f"{QWEN35} --enable-prefix-caching", "v0.19.0")
    assert "vLLM's default" not in written.assumed["kv_cache"]
    plain = budget_of(tmp_path, rules, f"{QWEN35} {MTP3}", "v0.19.0")
    assert "mamba cache mode" not in plain.assumed.get("kv_cache", "")


def test_mtp_on_a_hybrid_model_costs_concurrency(tmp_path, rules):
    """The user-visible effect: at 8,192 tokens the MTP drafter's state pages nearly halve the
    requests the KV cache holds (8 + 3 pages a request without it, 8 + 12 with it)."""
    without = budget_of(tmp_path, rules, QWEN35, "v0.19.0")
    with_mtp = budget_of(tmp_path, rules, f"{QWEN35} {MTP3}", "v0.19.0")
    per_request = without.kv_bytes_per_sequence.to("byte").magnitude
    per_request_mtp = with_mtp.kv_bytes_per_sequence.to("byte").magnitude
    assert per_request_mtp / per_request > 20 / 11


def test_the_mtp_layer_joins_the_attention_group(tmp_path, rules):
    """vLLM groups the MTP drafter's attention layer with the target's: 11 attention layers
    beside 30 state layers make groups of 11 (three state groups of 33 slots, 3 of them
    padding), so every page of a request is a page of 11 layers, not 10 plus the drafter's
    KV per token. The 0.20.0 runs of Qwen3.5-9B logged 22.8% fewer KV tokens with MTP than
    without (benchmarks/calibration/speculative.yaml, vllm-0200-qwen35-9b-rtx5090-mtp1)."""
    with_mtp = budget_of(tmp_path, rules, f"{QWEN35} {MTP3}", "v0.19.0")
    page_group_of_11 = PAGE_GROUP // 10 * 11
    per_request = with_mtp.kv_bytes_per_sequence.to("byte").magnitude
    assert per_request == (ATTENTION_PAGES + 3 * (1 + 3)) * page_group_of_11
    # the drafter's share of a token is more than its one layer's K and V (2,048 bytes)
    draft = with_mtp.kv_bytes_per_token_draft.to("byte / token").magnitude
    assert draft > 2048


def test_all_mode_keeps_a_state_page_per_block(tmp_path, rules):
    """Nemotron-H declares SupportsMambaPrefixCaching: with prefix caching on (before 0.28 and
    without a drafter) vLLM picks "all", a state page for every block of the request, so one
    131,072-token request costs several times the "none" layout's."""
    nano = "vllm serve nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 --max-model-len 131072"
    none = budget_of(tmp_path, rules, nano, "v0.19.0")
    every_block = budget_of(tmp_path, rules, f"{nano} --enable-prefix-caching", "v0.19.0")
    assert "mamba cache mode 'all'" in every_block.assumed["kv_cache"]
    ratio = (
        every_block.kv_bytes_per_sequence.to("byte").magnitude
        / none.kv_bytes_per_sequence.to("byte").magnitude
    )
    assert ratio > 3
    # with a drafter, 0.20 and later pick "align" instead (vllm-project/vllm#40454)
    ngram = """--speculative-config '{"method": "ngram", "num_speculative_tokens": 4}'"""
    align = budget_of(tmp_path, rules, f"{nano} --enable-prefix-caching {ngram}", "v0.20.0")
    assert "mamba cache mode 'align': 6 state pages" in align.assumed["kv_cache"]


def test_an_unknown_mode_is_a_bad_value(tmp_path, rules):
    result = lint(tmp_path, rules, f"{QWEN35} --mamba-cache-mode aligned", "v0.19.0")
    [bad] = [d for d in result.diagnostics if d.code == "HBM004"]
    assert "'aligned' is not none, align or all" in bad.message
