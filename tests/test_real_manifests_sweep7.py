"""Patterns from public repositories hbmlint had never seen (sweep 7): each fixture under
tests/fixtures/real/ names its source in its first lines; each test says what a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(name: str, rules, gpu: str | None = None):
    return lint_file(REAL / name, name, rules, LintOptions(default_gpu=gpu))


def line_of(name: str, needle: str) -> int:
    lines = (REAL / name).read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if needle in line)


@pytest.mark.parametrize("gpu", [None, "H100"])
def test_an_llm_inference_service_on_the_llm_d_simulator_is_an_info(rules, gpu):
    # the simulator loads no model: no "names no GPU type" warning, and no budget even where
    # --gpu names one
    name = "kserve-llmisvc-simulator.yaml"
    result = lint(name, rules, gpu)
    assert result.deployments == []
    [info] = result.diagnostics
    assert (info.code, info.severity.name) == ("HBM014", "INFO")
    assert "inference simulator" in info.message
    assert info.span.line == line_of(name, "name: prefix-routing-sim")


def test_engines_started_in_a_loop_share_the_pods_gpus(rules):
    # 8 single-GPU workers on 8 GPUs: no "7 GPUs idle" warning; each budgeted on its own GPU
    name = "pod-engine-per-gpu-loop.yaml"
    result = lint(name, rules)
    by_name = {d.deployment.name: d for d in result.deployments}
    loop = by_name["workers-per-gpu"]
    assert loop.deployment.model.name == "Qwen/Qwen3-8B"
    assert loop.budget is not None and loop.deployment.parallel.tensor == 1
    findings = [f for f in result.diagnostics if f.deployment == "workers-per-gpu"]
    assert [f.code for f in findings if f.severity.name != "INFO"] == []
    [shared] = [f for f in findings if "more than once" in f.message]
    assert shared.code == "HBM011" and "8 GPUs" in shared.message
    assert shared.span.line == line_of(name, "dynamo.vllm $FLAGS --disaggregation-mode prefill")


@pytest.mark.parametrize("name", ["one-of-two", "restart-loop"])
def test_engine_lines_in_an_if_or_a_restart_loop_are_one_engine(rules, name):
    # the alternatives of an `if`, or a foreground engine restarted by a `while` loop, run one
    # engine at a time: its 2 GPUs with TP 1 leave one idle
    result = lint("pod-engine-per-gpu-loop.yaml", rules)
    findings = [f for f in result.diagnostics if f.deployment == name]
    assert [f.code for f in findings] == ["HBM007"]
    assert "leaves 1 idle" in findings[0].message


@pytest.mark.parametrize("gpu", ["H100", "H200"])
def test_sglang_dp_attention_spreads_experts_over_the_tp_group_only(rules, gpu):
    # DP attention's 8 ranks are the TP group's 8 GPUs: each holds 1/8 of the experts, as the
    # prefill worker without DP attention does (they were spread over 64 ranks: 13.6 GiB a GPU
    # for DeepSeek-R1 instead of 80, and no error on 8 H100). Its attention-TP group is one GPU:
    # the MLA projections and the embedding whole on each, 10 GiB more (test_dp_attention.py)
    name = "dynamo-sglang-dp-attention-ep.yaml"
    result = lint(name, rules, gpu)
    weights = {
        d.deployment.name.rsplit("/", 1)[-1]: d.budget.weights.to("GiB").magnitude
        for d in result.deployments
    }
    assert 9.9 < weights["decode"] - weights["prefill"] < 10.2
    assert weights["prefill"] > 70
    errors = sorted((f.code, f.span.line) for f in result.diagnostics if f.severity.name == "ERROR")
    if gpu == "H100":  # 80 GiB of FP8 weights a GPU do not fit 75% of an H100: both refuse
        lines = (REAL / name).read_text().splitlines()
        models = [i for i, line in enumerate(lines, 1) if line.endswith("- --model-path")]
        assert errors == [("HBM101", line) for line in models]
    else:
        assert errors == []


def test_eplb_redundant_experts_are_weights_on_every_expert_parallel_rank(rules):
    # 256 experts + 32 redundant copies over 16 ranks: 18 experts a GPU, not 16 (about 4.8 GiB
    # more of DeepSeek-R1's FP8 experts); without --enable-eplb vLLM makes no copies
    name = "dynamo-vllm-wide-ep-eplb.yaml"
    result = lint(name, rules)
    by_role = {d.deployment.name.rsplit("/", 1)[-1]: d for d in result.deployments}
    decode, prefill = by_role["decode"], by_role["prefill"]
    assert decode.deployment.parallel.redundant_experts == 32
    assert (
        decode.deployment.locations["parallel.redundant_experts"].line
        == line_of(name, "--enable-eplb \\") + 1
    )
    assert prefill.deployment.parallel.redundant_experts is None
    extra = (decode.budget.weights - prefill.budget.weights).to("GiB").magnitude
    assert 4.3 < extra < 5.3
    assert [f.code for f in result.diagnostics if f.severity.name == "ERROR"] == []


COVERED = {
    "kserve-llmisvc-simulator.yaml",
    "pod-engine-per-gpu-loop.yaml",
    "dynamo-sglang-dp-attention-ep.yaml",
    "compose-entrypoint-list-config-file.yaml",
    "dynamo-vllm-wide-ep-eplb.yaml",
}


@pytest.mark.parametrize("gpu", [None, "L4"])
def test_a_compose_entrypoint_list_is_read_and_a_config_file_is_not_guessed(rules, gpu):
    # `entrypoint: [vllm, serve, ...]` is an engine command (the whole file was an HBM014 info);
    # settings a --config file may hold are not taken as vLLM's defaults (TP 1 of a 30B model
    # on one L4 would be a false HBM101 where the file says TP 2)
    name = "compose-entrypoint-list-config-file.yaml"
    result = lint(name, rules, gpu)
    [embedder] = result.deployments
    deployment = embedder.deployment
    assert (deployment.name, deployment.model.name) == ("embedder", "Qwen/Qwen3-8B")
    assert (deployment.parallel.tensor, deployment.gpu.count) == (2, 2)
    assert deployment.serving.max_model_len == 16384
    assert [f.code for f in result.diagnostics if f.severity.name == "ERROR"] == []
    config = [f for f in result.diagnostics if "--config /app/config.yaml" in f.message]
    assert [(f.code, f.severity.name) for f in config] == [("HBM011", "INFO")]
    assert "tensor-parallel-size" in config[0].message
    assert config[0].span.line == line_of(name, '"--config", "/app/config.yaml"')
    assert "HBM014" not in [f.code for f in result.diagnostics]


def test_a_config_file_does_not_hide_what_the_command_line_sets(rules, tmp_path):
    # every budget setting on the command line: the file can change none of them; budgeted
    text = (REAL / "compose-entrypoint-list-config-file.yaml").read_text()
    text = text.replace(
        '"--config", "/app/config.yaml"]',
        '"--tensor-parallel-size", "1", "--pipeline-parallel-size", "1", "--max-model-len", '
        '"8192", "--gpu-memory-utilization", "0.9", "--config", "/app/config.yaml"]',
    )
    (tmp_path / "compose.yaml").write_text(text)
    result = lint_file(tmp_path / "compose.yaml", "compose.yaml", rules)
    assert sorted(d.deployment.name for d in result.deployments) == ["embedder", "qwen-moe"]
    assert [f for f in result.diagnostics if "--config" in f.message] == []
