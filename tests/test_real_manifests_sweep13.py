"""Patterns from public repositories hbmlint had never seen (sweep 13): each fixture under
tests/fixtures/real/ names its source in its first lines; each test says what a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_lint import codes, errors, lint

from hbmlint.diagnostics import Severity
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"

SGLANG_CONFIG = REAL / "dynamo-sglang-config-file.yaml"
SWEEP = REAL / "srt-slurm-sweep-placeholders.yaml"
RAY_HEAD = REAL / "k8s-vllm-ray-head-pipeline.yaml"
BLOCK_PLACEHOLDER = REAL / "dgd-envsubst-block-placeholder.yaml"
FOLDED = REAL / "dgd-folded-scalar-backslash.yaml"
ELIDED = REAL / "shell-sglang-elided-command.sh"

COVERED = {
    SGLANG_CONFIG.name,
    SWEEP.name,
    RAY_HEAD.name,
    BLOCK_PLACEHOLDER.name,
    FOLDED.name,
    ELIDED.name,
}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def line_of(path: Path, text: str, start: int = 0) -> int:
    lines = path.read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if n > start and text in line)


def test_sglang_settings_from_a_mounted_config_map_are_read(rules):
    # was HBM003 "the sglang command names no model": the model is in the --config file, a key
    # of the ConfigMap the worker mounts at /etc/sglang
    result = lint(SGLANG_CONFIG, rules)
    assert errors(result) == []
    [found] = result.deployments
    deployment = found.deployment
    assert deployment.model.name == "zai-org/GLM-5.2-FP8"
    assert deployment.parallel.tensor == 8
    assert deployment.serving.max_model_len == 250000
    assert deployment.locations["model.name"].line == line_of(SGLANG_CONFIG, "model-path:")
    assert deployment.locations["parallel.tensor"].line == line_of(SGLANG_CONFIG, "tensor-parallel")


def test_a_config_file_hbmlint_cannot_see_is_no_missing_model(rules, tmp_path):
    text = SGLANG_CONFIG.read_text().replace("mountPath: /etc/sglang", "mountPath: /opt/other")
    path = tmp_path / "deploy.yaml"
    path.write_text(text)
    result = lint(path, rules)
    assert errors(result) == []
    assert result.deployments == []
    [note] = codes(result, "HBM011")
    assert "--config /etc/sglang/agg.yaml" in note.message


def test_a_model_beside_an_unseen_config_file_leaves_the_parallelism_to_it(rules, tmp_path):
    # the model on the command line, TP 8 in a file hbmlint cannot see: not budgeted at TP 1
    text = SGLANG_CONFIG.read_text().replace(
        "                - --config\n",
        "                - --model-path\n                - zai-org/GLM-5.2-FP8\n"
        "                - --config\n",
    )
    path = tmp_path / "deploy.yaml"
    path.write_text(text.replace("mountPath: /etc/sglang", "mountPath: /opt/other"))
    result = lint(path, rules)
    assert errors(result) == []
    assert result.deployments == []
    messages = " ".join(f.message for f in codes(result, "HBM011"))
    assert "tp-size" in messages and "not budgeted" in messages


def test_sweep_parameters_are_values_of_each_job_not_malformed_numbers(rules):
    # was HBM004 "--max-total-tokens: '{max_total_tokens}' is not a whole number" (an error)
    result = lint(SWEEP, rules)
    assert errors(result) == []
    assert codes(result, "HBM004") == []
    lines = sorted(f.span.line for f in codes(result, "HBM011"))
    assert lines == [
        line_of(SWEEP, "max-total-tokens"),
        line_of(SWEEP, "chunked-prefill-size"),
        line_of(SWEEP, "chunked-prefill-size", line_of(SWEEP, "chunked-prefill-size")),
    ]
    assert {f.deployment.name for f in result.deployments} == {
        "example-sweep/prefill",
        "example-sweep/decode",
    }


def test_a_pod_that_starts_a_ray_cluster_may_place_ranks_on_other_nodes(rules):
    # was HBM007 "1 GPU requested but tensor x pipeline parallelism is 1 x 2 = 2" (an error)
    result = lint(RAY_HEAD, rules)
    assert errors(result) == []
    assert codes(result, "HBM007") == []
    [note] = codes(result, "HBM011")
    assert "Ray cluster" in note.message
    [found] = result.deployments
    assert found.deployment.parallel.pipeline == 2


def test_without_a_ray_cluster_too_few_gpus_still_refuse(rules, tmp_path):
    text = RAY_HEAD.read_text().replace("ray start --head --port=6379 --block & ", "")
    path = tmp_path / "deploy.yaml"
    path.write_text(text)
    result = lint(path, rules)
    [short] = codes(result, "HBM007")
    assert short.severity is Severity.ERROR


def test_a_block_placeholder_line_is_a_template_to_render_not_broken_yaml(rules):
    # was HBM002 "YAML syntax error" (an error) for a template a script fills in
    result = lint(BLOCK_PLACEHOLDER, rules)
    assert errors(result) == []
    [render] = codes(result, "HBM012")
    assert render.severity is Severity.WARNING
    assert render.span.line == line_of(BLOCK_PLACEHOLDER, "${FRONTEND_IMAGE_PULL_SECRETS_BLOCK}", 5)


def test_backslashes_in_a_folded_scalar_make_flags_the_engine_refuses(rules):
    # was HBM006 "model ' --model' is not in hbmlint's catalog" (a warning, and a misread)
    result = lint(FOLDED, rules)
    refused = codes(result, "HBM004")
    assert [f.severity for f in refused] == [Severity.ERROR, Severity.ERROR]
    assert all("' --model'" in f.message and "folded" in f.message for f in refused)
    assert [f.span.line for f in refused] == [
        line_of(FOLDED, "--model $MODEL_PATH"),
        line_of(FOLDED, "--model $MODEL_PATH", line_of(FOLDED, "--model $MODEL_PATH")),
    ]
    assert not [f for f in result.diagnostics if "' --model'" in f.message and f.code == "HBM006"]
    # the flags are read as the author meant them: the decode worker is budgeted on its model
    [found] = result.deployments
    assert found.deployment.model.name == "Qwen/Qwen3-VL-32B-Instruct-FP8"
    assert found.deployment.serving.max_model_len == 32768


def test_a_literal_block_keeps_the_continuations(rules, tmp_path):
    path = tmp_path / "deploy.yaml"
    path.write_text(FOLDED.read_text().replace("- >-", "- |-"))
    result = lint(path, rules)
    assert codes(result, "HBM004") == []


def test_dynamo_encode_worker_holds_no_language_model_to_budget(rules):
    result = lint(FOLDED, rules, gpu="L4")
    [encode] = [f for f in codes(result, "HBM011") if "encode" in f.message]
    assert encode.span.line == line_of(FOLDED, "--disaggregation-mode encode")
    assert [d.deployment.name for d in result.deployments] == [
        "qwen3-vl-32b-fp8-vllm-disagg/VllmDecodeWorker"
    ]


def test_an_elided_command_line_is_unknown_not_missing_its_model(rules):
    # was HBM003 "the sglang command names no model" (an error) for notes with "..."
    result = lint(ELIDED, rules)
    assert errors(result) == []
    [note] = codes(result, "HBM011")
    assert note.span.line == line_of(ELIDED, "  ...")
