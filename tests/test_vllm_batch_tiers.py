"""vLLM's batch defaults by card, as newer releases fill them in (engine/arg_utils.py
get_batch_defaults): from 0.28 a card of 160 GiB or more (B200, MI300X) takes 16,384 batched
tokens, not 8,192; from 0.33 a GB10 (DGX Spark) stays on the small tier, 256 sequences and
2,048 tokens, though its 121.69 GiB would make it large. hbmlint had two tiers for every
release, so it profiled too few tokens on a B200 and four times the sequences on a GB10."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import vllm_compose

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

QWEN3_8B = "vllm serve Qwen/Qwen3-8B --max-model-len 32768"


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def settings(tmp_path: Path, rules, gpu: str, version: str, flags: str = ""):
    path = vllm_compose(tmp_path, f"{QWEN3_8B} {flags}", version)
    options = LintOptions(keep_budgets=True, default_gpu=gpu)
    result = lint_file(path, "compose.yaml", rules, options)
    return result.deployments[0].budget.settings


@pytest.mark.parametrize(
    ("gpu", "version", "seqs", "batched"),
    [
        ("B200", "v0.27.1", 1024, 8192),
        ("B200", "v0.28.0", 1024, 16384),
        ("B200", "latest", 1024, 16384),
        ("H200", "v0.28.0", 1024, 8192),  # 141 GiB: below the new tier
        ("GB10", "v0.32.0", 1024, 8192),
        ("GB10", "v0.33.0", 256, 2048),
        ("GB10", "latest", 256, 2048),
        ("A100-SXM4-80GB", "latest", 256, 2048),
        ("L4", "latest", 256, 2048),
    ],
)
def test_the_defaults_by_card_and_release(tmp_path, rules, gpu, version, seqs, batched):
    s = settings(tmp_path, rules, gpu, version)
    assert (s.max_num_seqs, s.max_num_batched_tokens) == (seqs, batched)


def test_set_values_are_taken_as_written(tmp_path, rules):
    s = settings(
        tmp_path, rules, "GB10", "latest", "--max-num-seqs 64 --max-num-batched-tokens 8192"
    )
    assert (s.max_num_seqs, s.max_num_batched_tokens) == (64, 8192)


def test_throughput_mode_doubles_the_new_tiers(tmp_path, rules):
    s = settings(tmp_path, rules, "B200", "latest", "--performance-mode throughput")
    assert (s.max_num_seqs, s.max_num_batched_tokens) == (2048, 32768)
