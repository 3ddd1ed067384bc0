"""Patterns from public repositories hbmlint had never seen (sweep 23, session 36): each test
names its source and says what a user sees."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
TRITON = REAL / "triton-vllm-backend" / "vllm_model" / "1" / "model.json"

COVERED: set[str] = set()


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _lint(path: Path, rules, gpu: str | None = None):
    return lint_file(path, path.name, rules, LintOptions(default_gpu=gpu, keep_budgets=True))


# --- Triton's vLLM backend: <model>/<version>/model.json ----------------------------------------
# triton-inference-server/vllm_backend docs/llama_multi_lora_tutorial.md writes its switches as
# strings ("enforce_eager": "true"). The backend hands the file to AsyncEngineArgs(**json)
# (src/model.py), not to vLLM's argument parser, so the engine starts. hbmlint read it as a
# --config file: "--enforce-eager true" was an HBM004 error, and the "true" after
# --disable-log-requests was taken for the model.


def test_a_triton_model_json_reads_string_switches_as_booleans(rules):
    result = _lint(TRITON, rules, gpu="A100-40GB")
    assert [d.code for d in result.diagnostics if d.severity.name == "ERROR"] == []
    [item] = result.deployments
    deployment = item.deployment
    assert deployment.name == "vllm_model"  # Triton's model folder
    assert deployment.model.name == "/vllm_workspace/weights/backbone/llama-7b-hf"
    assert deployment.parallel.tensor == 2
    assert deployment.serving.enforce_eager is True


def test_the_same_json_as_a_vllm_config_file_is_still_refused(rules, tmp_path):
    # vllm serve --config turns every key into a command-line word: "true" after the switch
    # is left over, and vLLM's parser stops
    config = tmp_path / "engine.json"
    shutil.copy(TRITON, config)
    result = _lint(config, rules, gpu="A100-40GB")
    refused = [d for d in result.diagnostics if d.code == "HBM004"]
    assert refused and "--enforce-eager true" in refused[0].message
