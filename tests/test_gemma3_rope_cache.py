"""Gemma 3's global layers scale RoPE linearly (x8 over 131,072 positions): vLLM builds their
cos/sin cache over the scaled length and counts it in "Model loading took" (llm-d-planner's
vLLM 0.19.0 logs of gemma-3-4b/12b/27b-it, benchmarks/calibration/vllm.yaml), SGLang's logged
weights hold no such cache, and vLLM does not raise the longest max_model_len by the factor."""

from __future__ import annotations

import pytest
from catalog_entry import architecture
from helpers import manifest

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _weights_gib(tmp_path, rules, engine: str, length: int = 8192):
    path = tmp_path / f"{engine}.yaml"
    path.write_text(
        manifest(f"""
            engine: {engine}
            gpu: {{type: H100}}
            model: {{name: google/gemma-3-4b-it}}
            serving: {{max_model_len: {length}}}
        """)
    )
    result = lint_file(path, path.name, rules, LintOptions(keep_budgets=True))
    [item] = result.deployments
    return result, float(item.budget.weights.to("GiB").magnitude)


def test_vllm_counts_the_scaled_cache_and_sglang_does_not(tmp_path, rules):
    arch = architecture("google/gemma-3-4b-it")
    assert arch.rotary_positions == 131072
    assert arch.rotary_extra_positions == 7 * 131072
    _, vllm = _weights_gib(tmp_path, rules, "vllm")
    _, sglang = _weights_gib(tmp_path, rules, "sglang")
    # vLLM 0.19.0 logged 8.58 GiB; the cache of 1,048,576 x 256 bf16 values is 0.5 GiB
    assert vllm == pytest.approx(8.58, rel=0.02)
    # SGLang's log (sgl-project/sglang PR 4826, H200) 8.13 GiB, its cache in float32 unscaled
    assert sglang == pytest.approx(8.13, rel=0.02)


def test_the_longest_length_stays_the_models_own(tmp_path, rules):
    result, _ = _weights_gib(tmp_path, rules, "vllm", length=262144)
    [too_long] = [f for f in result.diagnostics if f.code == "HBM303"]
    assert "131,072" in too_long.message
