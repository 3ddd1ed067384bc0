"""vLLM's hybrid allocator groups a model's layers by kind into groups of one size and pads a
kind's last group (vllm/v1/core/kv_cache_utils.py, "Add 8 padding layers, may waste at most
15.38%" for Gemma 3 27B): its "Maximum concurrency" counts the padded groups, while its start-up
check sums the layers themselves. hbmlint's concurrency follows the first, its KV tokens (what
HBM102 compares with max_model_len) the second."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

MANIFEST = """\
apiVersion: hbmlint/v1
kind: ServingManifest
metadata:
  name: gemma
spec:
  engine: vllm
  engine_version: "0.19.0"
  gpu: {{type: H100-SXM-80GB, count: 1}}
  model: {{name: {model}}}
  serving:
    max_model_len: 8192
    gpu_memory_utilization: 0.95
"""


def _budget(tmp_path: Path, model: str):
    path = tmp_path / "m.yaml"
    path.write_text(MANIFEST.format(model=model))
    rules, _ = load_rules()
    result = lint_file(path, path.name, rules, LintOptions(keep_budgets=True))
    [item] = result.deployments
    return item.budget


def test_gemma3_27b_concurrency_counts_the_padded_window_groups(tmp_path):
    # 52 window layers and 10 full ones: groups of 10, the window kind's sixth group padded by
    # 8. The llm-d-planner log of this deployment (vLLM 0.19.0, H100) says 4.46x; without the
    # padding hbmlint said 5.27x
    budget = _budget(tmp_path, "google/gemma-3-27b-it")
    assert budget.kv_group_padding > 1.1
    assert budget.max_concurrency == pytest.approx(4.46, rel=0.08)
    # the KV tokens are the unpadded layers' (vLLM's start-up check), the concurrency is not
    unpadded = budget.kv_tokens.magnitude / 8192
    assert budget.max_concurrency == pytest.approx(unpadded / budget.kv_group_padding)
    # a what-if (the fixes' figures) pads the same groups
    fp8 = budget.whatif(kv_cache_dtype="fp8")
    assert fp8.kv_group_padding == pytest.approx(budget.kv_group_padding)
    assert fp8.max_concurrency == pytest.approx(
        fp8.kv_tokens.magnitude / 8192 / fp8.kv_group_padding
    )


def test_a_model_whose_kinds_divide_evenly_is_not_padded(tmp_path):
    # Gemma 3 12B: 40 window layers and 8 full ones, five groups of 8 with none padded
    budget = _budget(tmp_path, "google/gemma-3-12b-it")
    assert budget.kv_group_padding == 1.0
    assert budget.max_concurrency == pytest.approx(budget.kv_tokens.magnitude / 8192)
