"""vLLM --performance-mode throughput (0.17 and later) doubles the max_num_seqs and
max_num_batched_tokens defaults it fills in; hbmlint ignored the flag and budgeted the plain
defaults, so the profile run's activations (and the sequences a workload may run) were too
small."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import vllm_compose

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
FIXTURE = "vllm-performance-mode-throughput-l4.yaml"

QWEN3_8B = "vllm serve Qwen/Qwen3-8B --max-model-len 32768"


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def budget_of(tmp_path: Path, rules, flags: str, version: str = "v0.19.0", gpu: str = "H100"):
    path = vllm_compose(tmp_path, f"{QWEN3_8B} {flags}", version)
    result = lint_file(path, "compose.yaml", rules, LintOptions(keep_budgets=True, default_gpu=gpu))
    assert [d for d in result.diagnostics if d.code == "HBM004"] == []
    return result.deployments[0].budget


def gib(quantity) -> float:
    return round(float(quantity.to("GiB").magnitude), 2)


def test_the_real_preset_doubles_the_batch_defaults(rules):
    """Qwen2.5-7B on an L4: 512 sequences and 4,096 batched tokens, not 256 and 2,048; the
    sampler's profile pass over 512 sequences doubles the activations (0.51 to 1.02 GiB)."""
    options = LintOptions(keep_budgets=True, default_gpu="L4")
    result = lint_file(REAL / FIXTURE, FIXTURE, rules, options)
    assert result.diagnostics == []
    budget = result.deployments[0].budget
    assert (budget.settings.max_num_seqs, budget.settings.max_num_batched_tokens) == (512, 4096)
    assert "--performance-mode throughput" in budget.assumed["max_num_seqs"]
    assert gib(budget.overhead["activation"]) == 1.02
    assert gib(budget.kv_cache) == 4.59


@pytest.mark.parametrize(
    ("flags", "version", "seqs", "batched"),
    [
        ("--performance-mode throughput", "v0.19.0", 2048, 16384),  # an H100's 1024 and 8192
        ("--performance-mode=throughput", "latest", 2048, 16384),
        ("--performance-mode throughput --max-num-seqs 64", "v0.19.0", 64, 16384),
        ("--performance-mode throughput --max-num-batched-tokens 4096", "v0.19.0", 2048, 4096),
        ("--performance-mode interactivity", "v0.19.0", 1024, 8192),
        ("--performance-mode balanced", "v0.19.0", 1024, 8192),
        ("", "v0.19.0", 1024, 8192),
        # the flag came in 0.17.0 (0.16.0's argparse refuses it)
        ("--performance-mode throughput", "v0.16.0", 1024, 8192),
    ],
)
def test_the_defaults_each_mode_fills_in(tmp_path, rules, flags, version, seqs, batched):
    settings = budget_of(tmp_path, rules, flags, version).settings
    assert (settings.max_num_seqs, settings.max_num_batched_tokens) == (seqs, batched)


def test_throughput_mode_leaves_less_kv_cache(tmp_path, rules):
    balanced = budget_of(tmp_path, rules, "")
    throughput = budget_of(tmp_path, rules, "--performance-mode throughput")
    assert gib(balanced.kv_cache) - gib(throughput.kv_cache) == pytest.approx(2.03, abs=0.01)


def test_an_unknown_mode_is_a_bad_value(tmp_path, rules):
    path = vllm_compose(tmp_path, f"{QWEN3_8B} --performance-mode Throughput", "v0.19.0")
    result = lint_file(path, "compose.yaml", rules, LintOptions(default_gpu="H100"))
    [bad] = [d for d in result.diagnostics if d.code == "HBM004"]
    assert "'Throughput' is not balanced, interactivity or throughput" in bad.message
