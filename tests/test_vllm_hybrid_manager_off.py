"""vLLM --disable-hybrid-kv-cache-manager turns every sliding-window layer into a full-attention
one (v1/core/kv_cache_utils.py unify_hybrid_kv_cache_specs: "we do not enable any optimizations
for saving KV cache memory (e.g., dropping the KV cache outside the sliding window)"). hbmlint
read the flag as a plain switch and kept the windows, so a Gemma 3 deployment with the manager
off (as KV-connector setups write it) was budgeted at a fifth of its real per-token KV."""

from __future__ import annotations

import pytest
from helpers import vllm_compose

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

GEMMA3 = "vllm serve google/gemma-3-27b-it --max-model-len 131072"
# google/gemma-3-27b-it config.json: 62 layers, 16 KV heads of 128; K and V in bfloat16
EVERY_LAYER_PER_TOKEN = 62 * 16 * 128 * 2 * 2


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(tmp_path, rules, flags: str):
    path = vllm_compose(tmp_path, f"{GEMMA3} {flags}", "v0.19.0")
    options = LintOptions(keep_budgets=True, default_gpu="H100")
    return lint_file(path, "compose.yaml", rules, options)


def test_window_layers_keep_the_whole_context_without_the_manager(tmp_path, rules):
    result = lint(tmp_path, rules, "--disable-hybrid-kv-cache-manager")
    budget = result.deployments[0].budget
    per_token = budget.kv_bytes_per_token_target.to("byte / token").magnitude
    assert per_token == pytest.approx(EVERY_LAYER_PER_TOKEN)
    assert "--disable-hybrid-kv-cache-manager" in budget.assumed["kv_cache"]
    # 16.5 GiB of KV holds about 35k such tokens: one 131,072-token request does not fit, and
    # vLLM refuses to start ("To serve at least one request with the models's max seq len")
    assert [d.code for d in result.diagnostics if d.severity.name == "ERROR"] == ["HBM102"]


def test_with_the_manager_the_windows_are_kept(tmp_path, rules):
    for flags in ("", "--no-disable-hybrid-kv-cache-manager"):
        result = lint(tmp_path, rules, flags)
        budget = result.deployments[0].budget
        per_token = budget.kv_bytes_per_token_target.to("byte / token").magnitude
        assert per_token < EVERY_LAYER_PER_TOKEN / 4
        assert result.diagnostics == []
