"""Patterns from public repositories hbmlint had never seen (sweep 10): each fixture under
tests/fixtures/real/ names its source in its first lines; each test says what a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"

PATCH = REAL / "kustomize-patch-command-only" / "patch-vllm.yaml"
BLANK = REAL / "kustomize-base-blank-model" / "llm-infra.yaml"
EMPTY_FLAGS = REAL / "vllm-empty-optional-flag-lws.yaml"
LAUNCH_LINE = REAL / "llmisvc-args-one-launch-line.yaml"
GRPC = REAL / "vllm-grpc-server-deployment.yaml"

COVERED = {
    EMPTY_FLAGS.name,
    GRPC.name,
}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(path: Path, rules, gpu: str | None = None):
    return lint_file(path, path.name, rules, LintOptions(default_gpu=gpu))


def errors(result) -> list[str]:
    return [f"{f.code}: {f.message}" for f in result.diagnostics if f.severity is Severity.ERROR]


def test_an_empty_value_of_an_optional_vllm_flag_leaves_the_default(rules):
    # `--kv-cache-memory-bytes=${KV_CACHE_MEMORY_BYTES-}` with the variable unset: vLLM's
    # optional_type reads '' as None, so the engine starts with its fraction, as budgeted
    result = lint(EMPTY_FLAGS, rules, "L4")
    assert result.diagnostics == []
    [read] = result.deployments
    serving = read.deployment.serving
    assert read.deployment.model.name == "Qwen/Qwen2.5-7B-Instruct"
    assert serving.kv_cache_memory_bytes is None
    assert serving.max_num_seqs is None
    assert serving.max_model_len == 8192
    assert serving.gpu_memory_utilization == 0.85


def test_an_empty_value_of_a_required_vllm_flag_is_still_invalid(rules, tmp_path):
    # --tensor-parallel-size is a plain int in vLLM: int('') makes argparse exit
    text = EMPTY_FLAGS.read_text().replace(
        "--max-model-len 8192", '--tensor-parallel-size "${TP-}"'
    )
    path = tmp_path / "tp.yaml"
    path.write_text(text)
    result = lint(path, rules, "L4")
    assert [f.code for f in result.diagnostics] == ["HBM004"]
    assert "--tensor-parallel-size" in result.diagnostics[0].message


def test_vllm_grpc_server_is_read_as_vllm(rules):
    result = lint(GRPC, rules, "L4")
    [read] = result.deployments
    assert read.deployment.engine == "vllm"
    assert read.deployment.model.name == "Qwen/Qwen2.5-7B-Instruct"
    assert read.deployment.serving.max_num_seqs == 256
    assert read.deployment.serving.max_model_len == 16000
    assert errors(result) == []
