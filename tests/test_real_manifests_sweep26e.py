"""Patterns from public repositories hbmlint had never seen (sweep 26, part E): each test names
its source and says what a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"

SWEEP26E = {
    "kaito-workspace-accelerator-partition.yaml",
}
COVERED = SWEEP26E


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _lint(path: Path, rules, gpu: str | None = None, **options):
    return lint_file(
        path, path.name, rules, LintOptions(default_gpu=gpu, keep_budgets=True, **options)
    )


def _codes(result) -> list[tuple[str, Severity]]:
    return [(f.code, f.severity) for f in result.diagnostics]


def _line(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


# --- KAITO's accelerator partition: Count whole GPUs ---------------------------------------------
# kaito-project/kaito examples/inference/kaito_workspace_accelerator.yaml @ 98ad8a9d (2026-08-02):
# `resource.partition: {mode: accelerator, count: 2}` on BYO nodes. KAITO scales the node's GPU
# config to the Count GPUs (pkg/workspace/inference/preset_inferences.go getGPUConfig ->
# sku.ScaleGPUConfigToCount) and sets vLLM's tensor-parallel-size to them when the model does not
# fit half of one GPU (pkg/model/interface.go configureParallelism). hbmlint budgeted 1 GPU at TP 1:
# a 32B preset on L40S was a false HBM101 error whose fix was what KAITO already does.
ACCELERATOR = REAL / "kaito-workspace-accelerator-partition.yaml"


def test_an_accelerator_partition_is_count_gpus_with_tensor_parallelism(rules):
    [item] = _lint(ACCELERATOR, rules, gpu="L4").deployments
    settings = item.budget.settings
    assert (settings.tensor_parallel, settings.pipeline_parallel) == (2, 1)
    assert "partition.count" in item.budget.assumed["tensor_parallel"]


def test_a_32b_preset_over_two_l40s_is_no_error(rules, tmp_path):
    path = tmp_path / "workspace.yaml"
    path.write_text(
        ACCELERATOR.read_text().replace("llama-3.1-8b-instruct", "qwen2.5-coder-32b-instruct")
    )
    result = _lint(path, rules, gpu="L40S")
    assert _codes(result) == [("HBM011", Severity.INFO)]  # the context KAITO fits at start
    # one GPU is still too few for it: the count read is what makes it fit
    one = tmp_path / "one.yaml"
    one.write_text(path.read_text().replace("count: 2", "count: 1"))
    [weights] = [f for f in _lint(one, rules, gpu="L40S").diagnostics if f.code == "HBM101"]
    assert weights.severity is Severity.ERROR
    assert weights.span.line == _line(one, "name: qwen2.5-coder-32b-instruct")


def test_without_a_gpu_the_warning_points_at_the_partition(rules):
    result = _lint(ACCELERATOR, rules)
    [unknown] = [f for f in result.diagnostics if f.code == "HBM005"]
    assert unknown.severity is Severity.WARNING
    assert unknown.span.line == _line(ACCELERATOR, "count: 2")
