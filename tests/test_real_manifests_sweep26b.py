"""Speculative decoding as real deployments write it (sweep 26, report B): each test names its
source and says what a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"

COVERED = {
    "triton-llmapi-eagle3/tensorrt_llm/1/model.yaml",
}


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


# --- §1: Triton's TensorRT-LLM llmapi model.yaml ------------------------------------------------
# A Triton + TensorRT-LLM LLM API guide's EAGLE-3 model.yaml (top-level model, backend: pytorch,
# speculative_config with decoding_type) was read as a vLLM --config file: error HBM004 "vLLM
# refuses it", though no vLLM runs there. It is TensorRT-LLM's LLM(**args), budgeted as such.
TRITON = REAL / "triton-llmapi-eagle3" / "tensorrt_llm" / "1" / "model.yaml"


def test_a_triton_llmapi_model_yaml_is_tensorrt_llm_with_its_eagle3_head(rules):
    result = _lint(TRITON, rules, gpu="H100")
    assert not [f for f in result.diagnostics if f.severity is Severity.ERROR]
    assert "HBM004" not in [code for code, _ in _codes(result)]
    [item] = result.deployments
    assert item.deployment.engine == "trtllm"
    assert item.deployment.source_format == "trtllm-llm-api"
    assert item.deployment.name == "tensorrt_llm"  # Triton names the model after its folder
    spec = item.deployment.speculative
    assert (spec.method, spec.model.name, spec.num_speculative_tokens) == (
        "eagle3",
        "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B",
        3,
    )
    assert item.budget.draft_weights.to("GiB").magnitude == pytest.approx(1.77, abs=0.01)
    # what is left: the head covers 2,048 tokens, the target 131,072 (a warning at its line)
    [(code, severity, line)] = [(f.code, f.severity, f.span.line) for f in result.diagnostics]
    assert (code, severity, line) == ("HBM207", Severity.WARNING, 15)


def test_a_vllm_config_with_a_method_is_still_a_vllm_config(rules, tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(
        "model: meta-llama/Llama-3.1-8B-Instruct\ntensor_parallel_size: 1\n"
        "speculative_config: {method: eagle3, model: yuhuili/EAGLE3-LLaMA3.1-Instruct-8B,"
        " num_speculative_tokens: 3}\n"
    )
    [item] = _lint(path, rules, gpu="H100").deployments
    assert item.deployment.engine == "vllm"


@pytest.mark.parametrize(
    "marker",
    ["backend: pytorch", "triton_config: {max_batch_size: 0}", "max_batch_size: 64"],
)
def test_a_key_only_tensorrt_llm_has_makes_it_tensorrt_llm(rules, tmp_path, marker):
    path = tmp_path / "llm.yaml"
    path.write_text(f"model: Qwen/Qwen3-8B\ntensor_parallel_size: 1\n{marker}\n")
    result = _lint(path, rules, gpu="H100")
    [item] = result.deployments
    assert item.deployment.engine == "trtllm"
    assert not [f for f in result.diagnostics if f.severity is Severity.ERROR]
