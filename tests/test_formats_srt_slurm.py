"""srt-slurm recipes (NVIDIA/srt-slurm srtctl; SemiAnalysisAI/InferenceX's multi-node benchmarks):
each worker of a recipe is read as the engine command srtctl writes for it, on the recipe's GPU
type and the worker's GPUs. Before, every recipe was an HBM014 "not read" info."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
SGLANG = REAL / "srt-slurm-sglang-disagg.yaml"
VLLM = REAL / "srt-slurm-vllm-agg-identity.yaml"
TRTLLM = REAL / "srt-slurm-trtllm-disagg-mtp.yaml"
COVERED = {SGLANG.name, VLLM.name, TRTLLM.name}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(path: Path, rules, **options):
    return lint_file(path, path.name, rules, LintOptions(**options))


def test_prefill_and_decode_workers_are_budgeted_on_their_own_gpus(rules):
    # the cluster's model directory 'dsr1', named in the configuration as teams do
    result = lint(SGLANG, rules, model_paths=(("dsr1", "deepseek-ai/DeepSeek-R1"),))
    # nothing about the budget (a flag the newest SGLang renamed may be a warning of its own)
    assert [d.code for d in result.diagnostics if d.code != "HBM010"] == []
    read = {r.deployment.name.rsplit("/", 1)[-1]: r for r in result.deployments}
    assert sorted(read) == ["decode", "prefill"]
    prefill, decode = read["prefill"], read["decode"]
    assert prefill.budget.resolved.gpu.name.startswith("B200")
    assert prefill.deployment.gpu.count == 4  # gpus_per_prefill
    assert prefill.deployment.parallel.tensor == 4
    assert decode.deployment.gpu.count == 8  # 1 decode node of 8 GPUs for 1 worker
    assert decode.deployment.parallel.tensor == 8
    assert decode.deployment.serving.max_model_len == 2200  # context-length
    # EAGLE (DeepSeek's MTP layer) on the decode worker only
    assert (decode.deployment.speculative.method, prefill.deployment.speculative.method) == (
        "mtp",
        "none",
    )
    assert decode.deployment.location("parallel.tensor").line == 46  # its key in the recipe


def test_a_model_directory_hbmlint_cannot_name_is_a_warning_at_the_model(rules, tmp_path):
    # the recipe's served-model-name (deepseek-ai/DeepSeek-R1) is a guess at the alias 'dsr1'
    result = lint(SGLANG, rules)
    assert [d.code for d in result.diagnostics if d.code != "HBM010"] == []
    assert all("a guess" in r.budget.assumed["model"] for r in result.deployments)
    # without one, nothing names the directory
    path = tmp_path / SGLANG.name
    path.write_text(SGLANG.read_text().replace("served-model-name", "served-name-unused"))
    result = lint(path, rules)
    unknown = [d for d in result.diagnostics if d.code == "HBM006"]
    assert [(d.code, d.severity, d.span.line) for d in unknown] == [
        ("HBM006", Severity.WARNING, 22),  # at each worker's config
        ("HBM006", Severity.WARNING, 37),
    ]
    assert "model-paths: {dsr1: ORG/NAME}" in unknown[0].message


def test_identity_model_repo_names_the_model_directory(rules):
    result = lint(VLLM, rules)
    assert result.diagnostics == []
    [read] = result.deployments
    assert read.deployment.model.name == "moonshotai/Kimi-K3"
    assert read.deployment.location("model").line == 13  # identity.model.repo
    assert "identity.model.repo" in read.budget.assumed["model"]
    assert read.budget.resolved.gpu.name.startswith("H200")
    assert read.deployment.gpu.count == 32  # gpus_per_agg: TP 8 x DP 4
    assert read.deployment.engine_version == "0.31.0"  # identity.container.image's tag


def test_a_trtllm_recipe_is_read_as_the_dynamo_worker_srtctl_runs(rules):
    """srtctl writes each mode's trtllm_config to a file and runs `python3 -m dynamo.trtllm
    --model-path MODEL --extra-engine-args FILE`: the options are TensorRT-LLM's LLM API
    settings (was an HBM014 "not read" info, nothing checked)."""
    result = lint(TRTLLM, rules)
    prefill, decode = (d.deployment for d in result.deployments)
    assert (prefill.engine, prefill.parallel.tensor, prefill.gpu.count) == ("trtllm", 2, 2)
    assert (decode.parallel.tensor, decode.gpu.count) == (16, 16)
    assert (decode.speculative.method, decode.speculative.num_speculative_tokens) == ("mtp", 3)
    assert decode.serving.gpu_memory_utilization == 0.9
    assert decode.locations["parallel.tensor"].line == 39
    assert [d for d in result.diagnostics if d.severity != Severity.INFO] == []


def test_a_trtllm_recipe_s_swept_value_is_unread_not_refused(rules, tmp_path):
    path = tmp_path / "sweep.yaml"
    path.write_text(
        TRTLLM.read_text()
        .replace("tensor_parallel_size: 16", "tensor_parallel_size: {tp}")  # YAML: a mapping
        .replace("tensor_parallel_size: 2", 'tensor_parallel_size: "{tp}"')
        + "sweep:\n  tp: [8, 16]\n"
    )
    result = lint(path, rules)
    assert [d.code for d in result.diagnostics if d.severity == Severity.ERROR] == []
    unread = [d for d in result.diagnostics if d.code == "HBM011"]
    assert len(unread) == 2 and all("cannot read" in d.message for d in unread)
