"""vLLM's CUDA graph memory in the budget (0.20 and later) follows the graphs the engine
captures: the capture sizes (max_num_seqs, speculative tokens, --max-cudagraph-capture-size,
cudagraph_capture_sizes) and the cudagraph mode. It was a flat 0.5 GiB whatever the command."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import vllm_compose

from hbmlint import cudagraphs
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

QWEN3_8B = "vllm serve Qwen/Qwen3-8B --max-model-len 8192"


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def budget_of(tmp_path: Path, rules, flags: str, version: str = "v0.24.0"):
    path = vllm_compose(tmp_path, f"{QWEN3_8B} {flags}", version)
    result = lint_file(
        path, "compose.yaml", rules, LintOptions(keep_budgets=True, default_gpu="L4")
    )
    assert [d for d in result.diagnostics if d.code.startswith("HBM0")] == []
    return result.deployments[0].budget


def graphs_gib(budget) -> float:
    return float(budget.overhead["cuda_graphs"].to("GiB").magnitude)


@pytest.mark.parametrize(
    ("max_num_seqs", "batched", "k", "logged"),
    [
        # "Profiling CUDA graph memory: PIECEWISE=51 (largest=512), FULL=35 (largest=256)": the
        # defaults on a small GPU (Qwen3.5-4B on vLLM 0.22.0, benchmarks/calibration/vllm.yaml)
        (256, 8192, 0, (51, 35, 512)),
        # "PIECEWISE=9 (largest=64), FULL=5 (largest=32)": max_num_seqs 8 and MTP with 3 tokens
        # (a Qwen3.6-35B-A3B log on vLLM 0.22.0)
        (8, 32768, 3, (9, 5, 64)),
        # "PIECEWISE=15 (largest=112), FULL=8 (largest=56)": the same with DFlash, 6 tokens
        (8, 32768, 6, (15, 8, 112)),
        # "PIECEWISE=19, FULL=11": max_num_seqs 64 (a vLLM Windows build's log)
        (64, 2048, 0, (19, 11, 128)),
    ],
)
def test_graph_counts_match_what_the_engine_logs(max_num_seqs, batched, k, logged):
    sizes = cudagraphs.capture_sizes(max_num_seqs, batched, k)
    counts = cudagraphs.graph_counts(sizes, None, max_num_seqs, k)
    assert (counts.mixed, counts.decode, counts.largest) == logged


def test_modes_capture_their_own_graphs():
    sizes = cudagraphs.capture_sizes(256, 2048)
    assert cudagraphs.graph_counts(sizes, "PIECEWISE", 256).decode == 0
    assert cudagraphs.graph_counts(sizes, "FULL_DECODE_ONLY", 256).mixed == 0
    assert cudagraphs.graph_counts(sizes, "NONE", 256).mixed == 0


def test_small_capture_size_charges_less_than_the_default(tmp_path, rules):
    default = budget_of(tmp_path, rules, "")
    small = budget_of(tmp_path, rules, "--max-cudagraph-capture-size 8")
    listed = budget_of(tmp_path, rules, """-cc '{"cudagraph_capture_sizes": [1, 2, 4, 8]}'""")
    # 51 + 35 graphs at 4.7 MiB after a 0.25 GiB first capture, against 4 + 4
    assert graphs_gib(default) == pytest.approx(0.25 + 84 * 4.7 / 1024)
    assert graphs_gib(small) == pytest.approx(0.25 + 6 * 4.7 / 1024)
    assert graphs_gib(listed) == graphs_gib(small)
    assert small.kv_cache > default.kv_cache


def test_piecewise_only_and_speculation_change_the_graphs(tmp_path, rules):
    default = budget_of(tmp_path, rules, "")
    piecewise = budget_of(tmp_path, rules, "-O1")
    ngram = budget_of(
        tmp_path,
        rules,
        """--speculative-config '{"method": "ngram", "num_speculative_tokens": 1}'""",
    )
    assert graphs_gib(piecewise) < graphs_gib(default)
    # one draft token: decode batches of 2 tokens a request, FULL graphs up to 512 tokens
    assert graphs_gib(ngram) > graphs_gib(default)


def test_before_020_the_graphs_stay_out_of_the_budget(tmp_path, rules):
    assert "cuda_graphs" not in budget_of(tmp_path, rules, "", version="v0.19.1").overhead
