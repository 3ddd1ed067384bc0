"""vLLM 0.20+ refuses to start a hybrid model whose pool holds fewer state blocks than
max_num_seqs (HBM109). The case: vllm-project/recipes#551, Qwen/Qwen3.6-27B-FP8 on one H100 at
--gpu-memory-utilization 0.95 with the default max_num_seqs 1024: "max_num_seqs (1024) exceeds
available Mamba cache blocks (856)"; the recipe then set --max-num-seqs 512 and served."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import manifest

from hbmlint.lint import lint_file
from hbmlint.rules import load_rules


@pytest.fixture(scope="module")
def rules():
    loaded, problems = load_rules()
    assert not problems
    return loaded


def lint(tmp_path: Path, rules, serving: str, version: str = "0.25.1"):
    path = tmp_path / "deploy.yaml"
    path.write_text(
        manifest(f"""
            engine: vllm
            engine_version: "{version}"
            gpu: {{type: H100}}
            model: {{name: Qwen/Qwen3.6-27B-FP8}}
            serving: {{gpu_memory_utilization: 0.95{serving}}}
        """)
    )
    return lint_file(path, path.name, rules).diagnostics


def test_the_default_max_num_seqs_is_refused_with_the_blocks_the_engine_found(tmp_path, rules):
    [finding] = [d for d in lint(tmp_path, rules, "") if d.code == "HBM109"]
    assert finding.severity.name == "ERROR"
    assert "vLLM's default max_num_seqs is 1,024" in finding.message
    found = re.search(r"holds about ([\d,]+) state blocks", finding.message)[1]
    blocks = int(found.replace(",", ""))
    assert abs(blocks - 856) / 856 < 0.10  # the engine's own count, within the KV estimate
    # no count is edited in: one near the estimate's low edge can still be above the engine's
    assert "the engine's error names the exact count" in "\n".join(finding.fixes)


def test_the_recipes_fix_and_eager_mode_start_clean(tmp_path, rules):
    assert not [d for d in lint(tmp_path, rules, ", max_num_seqs: 512") if d.code == "HBM109"]
    eager = ", enforce_eager: true"
    assert not [d for d in lint(tmp_path, rules, eager) if d.code == "HBM109"]


def test_releases_before_0_20_make_no_such_check(tmp_path, rules):
    assert not [d for d in lint(tmp_path, rules, "", version="0.19.0") if d.code == "HBM109"]
