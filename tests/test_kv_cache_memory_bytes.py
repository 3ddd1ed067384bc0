"""vLLM's --kv-cache-memory-bytes: the engine skips its memory profiling and allocates exactly
that KV cache per GPU, whatever gpu_memory_utilization says; hbmlint budgets the same, refuses
a KV cache that cannot fit beside the weights (HBM106) and warns where the overhead no longer
fits (HBM107)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
GIB = 2**30

L4 = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: qwen}
spec:
  template:
    spec:
      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.18.0
        args: ["--model", "Qwen/Qwen3-8B", "--max-model-len", "MML",
               "--kv-cache-memory-bytes", "KV"]
        resources: {limits: {nvidia.com/gpu: 1}}
"""


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint_l4(tmp_path: Path, rules, kv: str, mml: str = "8192"):
    path = tmp_path / "qwen.yaml"
    path.write_text(L4.replace("KV", kv).replace("MML", mml))
    return lint_file(path, "qwen.yaml", rules, LintOptions(keep_budgets=True))


def test_the_kv_cache_is_the_bytes_set_not_the_fraction(rules):
    """A DGX Spark run at gpu_memory_utilization 0.7 with 16 GiB of KV cache set: the budget
    holds 16 GiB of KV cache, not what 0.7 of 121.69 GiB would leave (about 41 GiB)."""
    name = "vllm-kv-cache-memory-bytes-gb10.yaml"
    result = lint_file(REAL / name, name, rules, LintOptions(keep_budgets=True, default_gpu="GB10"))
    assert [d.code for d in result.diagnostics] == []
    budget = result.deployments[0].budget
    assert budget.kv_cache.to("byte").magnitude == 17179869184
    per_block = budget.kv_bytes_per_token.to("byte / token").magnitude * 16
    assert budget.kv_tokens.magnitude == (17179869184 // per_block) * 16
    assert budget.kv_uncertainty(up=True).magnitude == 0  # nothing estimated


def test_a_kv_cache_that_cannot_fit_beside_the_weights_is_an_error(tmp_path, rules):
    result = lint_l4(tmp_path, rules, "12G")
    [error] = [d for d in result.diagnostics if d.severity.name == "ERROR"]
    assert error.code == "HBM106"
    assert "12.00 GiB of KV cache per GPU, and the weights take 15.27 GiB" in error.message
    assert "more than the L4-24GB's 22.16 GiB" in error.message
    assert error.span.line == 12  # the line that writes --kv-cache-memory-bytes


def test_a_kv_cache_that_leaves_no_room_for_the_overhead_is_a_warning(tmp_path, rules):
    result = lint_l4(tmp_path, rules, "6500M")  # 6.05 GiB: fits beside the weights, not overhead
    assert [(d.code, d.severity.name) for d in result.diagnostics] == [("HBM107", "WARNING")]


def test_a_kv_cache_that_fits_is_clean_and_sized_exactly(tmp_path, rules):
    result = lint_l4(tmp_path, rules, "4G")
    assert result.diagnostics == []
    assert result.deployments[0].budget.kv_tokens.magnitude == 4 * GIB // (147_456 * 16) * 16


def test_one_sequence_is_checked_against_the_bytes_set_without_a_band(tmp_path, rules):
    """4 GiB holds 29,120 tokens of Qwen3-8B: a 29,120-token sequence fits (no 'may refuse'
    band: the size is not an estimate), a 32,768-token one does not."""
    assert lint_l4(tmp_path, rules, "4G", "29120").diagnostics == []
    [error] = lint_l4(tmp_path, rules, "4G", "32768").diagnostics
    assert error.code == "HBM102"


def test_a_tebibyte_suffix_is_read_as_vllm_reads_it(tmp_path, rules):
    # vllm/utils/argparse_utils.py human_readable_int (v0.33.0) takes t (10**12) and T (2**40):
    # far more than an L4 holds, so the KV cache cannot fit (it was an HBM004 "not a number")
    result = lint_l4(tmp_path, rules, "1T")
    assert [d.code for d in result.diagnostics if d.severity.name == "ERROR"] == ["HBM106"]
    assert "1,024.00 GiB of KV cache per GPU" in result.diagnostics[0].message
