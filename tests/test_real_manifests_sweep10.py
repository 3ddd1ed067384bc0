"""Patterns from public repositories hbmlint had never seen (sweep 10): each fixture under
tests/fixtures/real/ names its source in its first lines; each test says what a user sees."""

from __future__ import annotations

import shutil
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
    "kustomize-patch-command-only/patch-vllm.yaml",
    "kustomize-patch-command-only/kustomization.yaml",
    "kustomize-base-blank-model/llm-infra.yaml",
    "kustomize-base-blank-model/kustomization.yaml",
    EMPTY_FLAGS.name,
    LAUNCH_LINE.name,
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


def test_a_kustomize_patch_without_args_is_not_a_deployment_without_a_model(rules):
    # llm-d's guides patch a base Deployment with `command: ["vllm", "serve"]` only: the args,
    # with the model, are the base's, so no "names no model" error; the note says which
    # kustomization names the patch and how to lint what it builds
    result = lint(PATCH, rules)
    assert errors(result) == []
    [note] = result.diagnostics
    assert note.code == "HBM014" and note.severity is Severity.INFO
    assert "kustomize patch" in note.message
    assert "kustomization.yaml:10" in note.message
    assert note.span.line == 14  # the command it could not complete
    assert any("kustomize build" in fix for fix in note.fixes)


def test_the_same_file_without_its_kustomization_still_names_no_model(rules, tmp_path):
    alone = tmp_path / PATCH.name
    shutil.copy(PATCH, alone)
    result = lint(alone, rules)
    # `vllm serve` with no model starts on vLLM's default model (the positional is optional):
    # a warning that says so, not an error
    assert errors(result) == []
    [finding] = [f for f in result.diagnostics if f.code == "HBM003"]
    assert finding.severity is Severity.WARNING
    assert "default model, Qwen/Qwen3-0.6B" in finding.message


def test_a_model_left_blank_in_a_kustomize_base_is_a_note(rules):
    # opendatahub-io/llm-d-playbooks: `uri: ''` in the base, filled in by each overlay's patch
    result = lint(BLANK, rules)
    assert errors(result) == []
    [note] = result.diagnostics
    assert note.code == "HBM014"
    assert "left blank" in note.message and "kustomization.yaml:8" in note.message
    assert note.span.line == 12


def test_a_blank_model_outside_kustomize_is_an_error_that_says_so(rules, tmp_path):
    alone = tmp_path / BLANK.name
    shutil.copy(BLANK, alone)
    result = lint(alone, rules)
    assert errors(result) == [
        "HBM003: spec.model.uri is empty: KServe has no model to download and the engine none "
        "to load; set it (hf://ORG/NAME)"
    ]


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


def test_an_llmisvc_launch_line_in_one_arg_is_a_warning_and_its_flags_are_read(rules):
    # args: ["python3 -m vllm.entrypoints.openai.api_server --model=/mnt/models ..."] under
    # KServe's own `vllm serve /mnt/models`: a warning that vLLM gets the launcher's words, and
    # the budget of what the line means (the model is spec.model, not the line's text)
    result = lint(LAUNCH_LINE, rules)
    [warning] = result.diagnostics
    assert warning.code == "HBM013" and warning.severity is Severity.WARNING
    assert "python3 -m vllm.entrypoints.openai.api_server" in warning.message
    [read] = result.deployments
    assert read.deployment.model.name == "Qwen/Qwen2.5-3B-Instruct"
    assert read.deployment.serving.max_model_len == 2048
    assert read.deployment.serving.gpu_memory_utilization == 0.75
    assert read.deployment.gpu.count == 1
    assert read.budget is not None  # the T4 of the node selector


def test_vllm_grpc_server_is_read_as_vllm(rules):
    result = lint(GRPC, rules, "L4")
    [read] = result.deployments
    assert read.deployment.engine == "vllm"
    assert read.deployment.model.name == "Qwen/Qwen2.5-7B-Instruct"
    assert read.deployment.serving.max_num_seqs == 256
    assert read.deployment.serving.max_model_len == 16000
    assert errors(result) == []


RAYSPEC = REAL / "production-stack-rayspec-no-enabled.yaml"
COVERED.add(RAYSPEC.name)


def test_a_rayspec_without_enabled_is_budgeted_as_the_older_chart_runs_it(rules, tmp_path):
    # before vllm-stack 0.1.11 raySpec alone runs a RayCluster (head + replicaCount workers:
    # 2 GPUs for PP 2); from it, raySpec needs `enabled: true`. No "1 GPU for PP 2" error that
    # only one chart version would hit: a warning that names the switch, and the Ray budget
    result = lint(RAYSPEC, rules, "L4")
    assert errors(result) == []
    [warning] = [f for f in result.diagnostics if f.code == "HBM016"]
    assert "enabled: true" in warning.message and warning.span.line == 20
    [read] = result.deployments
    assert read.deployment.gpu.count == 2
    assert read.deployment.parallel.pipeline == 2
    # with the switch written, nothing to warn about, the same budget
    enabled = tmp_path / "enabled.yaml"
    enabled.write_text(
        RAYSPEC.read_text().replace("    raySpec:\n", "    raySpec:\n      enabled: true\n")
    )
    result = lint(enabled, rules, "L4")
    assert [f for f in result.diagnostics if f.code == "HBM016"] == []
    assert result.deployments[0].deployment.gpu.count == 2
