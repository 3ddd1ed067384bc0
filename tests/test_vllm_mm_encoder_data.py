"""vLLM's --mm-encoder-tp-mode data (71 lines of the swept vLLM manifests): "hosting the full
weights on each TP rank" of the vision tower, each rank encoding part of the batch
(vllm-project/vllm@v0.33.0 vllm/config/multimodal.py), for the towers whose model class sets
supports_encoder_tp_data; others fall back to splitting the weights. hbmlint split every tower
over TP, so each GPU held less than vLLM loads."""

from __future__ import annotations

import pytest
from helpers import vllm_compose

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

GIB = 2**30


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def weights(tmp_path, rules, model: str, flags: str = "", version: str = "v0.33.0") -> float:
    command = f"vllm serve {model} -tp 8 --max-model-len 32768 {flags}"
    path = vllm_compose(tmp_path, command, version)
    path.write_text(path.read_text().replace("count: 1,", "count: 8,"))
    result = lint_file(
        path, "compose.yaml", rules, LintOptions(keep_budgets=True, default_gpu="H200")
    )
    assert [d for d in result.diagnostics if d.severity.name == "ERROR"] == []
    return result.deployments[0].budget.weights.to("byte").magnitude


def test_qwen3_vl_holds_its_whole_tower_on_each_gpu_in_data_mode(tmp_path, rules):
    """Qwen3-VL's tower and merger, 573,396,480 parameters in BF16: 1/8 of them on each GPU at
    TP 8 when split, all of them in data mode, 0.93 GiB more a GPU."""
    model = "Qwen/Qwen3-VL-235B-A22B-Instruct"
    split = weights(tmp_path, rules, model)
    data = weights(tmp_path, rules, model, "--mm-encoder-tp-mode data")
    assert data - split == pytest.approx(573_396_480 * 2 * 7 / 8)
    assert weights(tmp_path, rules, model, "--mm-encoder-tp-mode=weights") == split


def test_the_old_switch_reads_the_same(tmp_path, rules):
    model = "Qwen/Qwen3-VL-8B-Instruct"
    new = weights(tmp_path, rules, model, "--mm-encoder-tp-mode data")
    old = weights(tmp_path, rules, model, "--enable-multimodal-encoder-data-parallel", "v0.12.0")
    assert new == old > weights(tmp_path, rules, model)


def test_a_tower_without_data_parallel_support_stays_split(tmp_path, rules):
    # Gemma 3's class does not set supports_encoder_tp_data: vLLM falls back to weights mode
    model = "google/gemma-3-27b-it"
    assert weights(tmp_path, rules, model, "--mm-encoder-tp-mode data") == weights(
        tmp_path, rules, model
    )


def test_a_mode_vllm_does_not_have_is_refused(tmp_path, rules):
    path = vllm_compose(
        tmp_path, "vllm serve Qwen/Qwen3-VL-8B-Instruct --mm-encoder-tp-mode dp", "v0.33.0"
    )
    result = lint_file(path, "compose.yaml", rules, LintOptions(default_gpu="H200"))
    [error] = [d for d in result.diagnostics if d.code == "HBM004"]
    assert "'dp' is not weights or data" in error.message
