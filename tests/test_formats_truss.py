"""Baseten Truss config.yaml (formats/truss.py): the engine's own server started by
docker_server.start_command, on resources.accelerator's GPUs. The fixtures under
tests/fixtures/real/ name the public repositories whose pattern they reproduce; before this
reader each got only "runs an engine, but no command line it can read" (HBM014), or, for the
TensorRT-LLM builder, nothing at all."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_lint import codes, errors, line_of

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
SGLANG = REAL / "truss-sglang-eagle-h100.yaml"
WEIGHTS = REAL / "truss-vllm-weights-mount-b200.yaml"
CACHE = REAL / "truss-model-cache-a100.yaml"
MIG = REAL / "truss-h100-mig.yaml"
TRTLLM = REAL / "truss-trtllm-builder.yaml"

COVERED = {p.name for p in (SGLANG, WEIGHTS, CACHE, MIG, TRTLLM)}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _read(path: Path, rules):
    result = lint_file(path, path.name, rules, LintOptions(keep_budgets=True))
    return result, [item.deployment for item in result.deployments], result.deployments


def test_an_sh_c_start_command_is_read_with_the_accelerators_type_and_count(rules):
    result, [deployment], [linted] = _read(SGLANG, rules)
    assert deployment.engine == "sglang"
    assert deployment.engine_version == "0.4.9"  # base_image's tag
    assert deployment.model.name == "zai-org/GLM-4.5-Air-FP8"
    assert deployment.parallel.tensor == 4
    assert (deployment.gpu.type, deployment.gpu.count) == ("H100-SXM-80GB", 4)
    assert deployment.speculative.method != "none"  # EAGLE on the model's own MTP layer
    assert linted.budget.resolved.gpu.name == "H100-SXM-80GB"
    assert codes(result, "HBM014") == [] and errors(result) == []
    # each setting is located at its flag inside the quoted script of the start command
    where = deployment.location("serving.gpu_memory_utilization")
    line = SGLANG.read_text().splitlines()[where.line - 1]
    assert where.line == line_of(SGLANG, "start_command: sh -c")
    assert line[where.column - 1 :].startswith("--mem-fraction-static 0.7")


def test_a_model_mounted_by_weights_is_the_repository_downloaded_into_it(rules):
    result, [deployment], [linted] = _read(WEIGHTS, rules)
    assert deployment.model.name == "/models/Qwen3.5-397B-A17B"
    budget = linted.budget
    assert budget.resolved.target.name == "Qwen/Qwen3.5-397B-A17B"
    assert "download of Qwen/Qwen3.5-397B-A17B" in budget.resolved.assumed["model"]
    assert (budget.resolved.gpu.name, deployment.gpu.count) == ("B200-180GB", 8)
    assert errors(result) == [] and codes(result, "HBM006") == []


def test_truss_a100_is_the_80_gb_card_and_the_model_cache_folder_names_the_model(rules):
    # a 32B model in bfloat16 (61 GiB) fits the 80 GB A100 Truss means, not a 40 GB one
    result, [deployment], [linted] = _read(CACHE, rules)
    budget = linted.budget
    assert budget.resolved.gpu.name == "A100-SXM4-80GB"
    assert budget.resolved.target.name == "Qwen/Qwen2.5-32B-Instruct"
    assert deployment.serving.max_model_len == 16384  # $MAX_LEN from environment_variables
    assert errors(result) == []
    on_40 = CACHE.read_text().replace("accelerator: A100\n", "accelerator: A100_40GB\n")
    forty = CACHE.parent / "truss-a100-40.yaml"
    try:
        forty.write_text(on_40)
        small = lint_file(forty, forty.name, rules, LintOptions())
    finally:
        forty.unlink()
    [short] = [f for f in small.diagnostics if f.code == "HBM101"]
    assert short.span.line == line_of(CACHE, "start_command: sh -c")


def test_h100_40gb_is_a_mig_slice_of_an_h100(rules):
    result, _, [linted] = _read(MIG, rules)
    gpu = linted.budget.resolved.gpu
    assert gpu.name == "H100-SXM-80GB MIG 3g.40gb"
    assert 39 < gpu.memory.to("GiB").magnitude < 40
    assert errors(result) == []


def test_the_tensorrt_llm_builder_is_said_to_be_unread_not_passed_in_silence(rules):
    result, deployments, _ = _read(TRTLLM, rules)
    assert deployments == []
    [unread] = codes(result, "HBM014")
    assert "TensorRT-LLM engine builder" in unread.message
    assert unread.span.line == line_of(TRTLLM, "trt_llm:")
    assert errors(result) == []
