"""A GPU name that stands for two memory sizes (a bare "V100": 16 or 32 GB; "A100": 40 or
80 GB) is budgeted as the smaller part, but a refusal is an error only when the larger part
refuses too. The pattern is a public AIBrix benchmark Deployment (vllm-project/aibrix,
benchmarks/scenarios/autoscaling/deepseek-llm-7b-chat/deploy.yaml): DeepSeek-LLM-7B in FP16 on
a Volcano Engine node labelled only `gpu-name: Tesla-V100`, used for autoscaling benchmarks,
so it started; on a 16 GB V100 it could not have."""

from __future__ import annotations

import pytest
from test_startup_rules import findings, lint

from hbmlint.diagnostics import Severity
from hbmlint.rules import load_rules


@pytest.fixture(scope="module")
def rules():
    loaded, problems = load_rules()
    assert not problems
    return loaded


def on_vke(gpu_name: str, model: str = "deepseek-ai/deepseek-llm-7b-chat") -> str:
    return "\n".join(
        [
            "apiVersion: apps/v1",
            "kind: Deployment",
            "metadata: {name: deepseek-llm-7b-chat}",
            "spec:",
            "  selector: {matchLabels: {app: llm}}",
            "  template:",
            "    metadata: {labels: {app: llm}}",
            "    spec:",
            "      containers:",
            "      - name: vllm",
            "        image: vllm/vllm-openai:v0.6.2",
            "        command: [vllm, serve, --model, " + model + ", --dtype, half]",
            "        resources:",
            "          limits: {nvidia.com/gpu: 1}",
            "      affinity:",
            "        nodeAffinity:",
            "          requiredDuringSchedulingIgnoredDuringExecution:",
            "            nodeSelectorTerms:",
            "            - matchExpressions:",
            "              - key: machine.cluster.vke.volcengine.com/gpu-name",
            "                operator: In",
            f"                values: [{gpu_name}]",
            "",
        ]
    )


def test_a_refusal_only_the_smaller_part_makes_is_a_warning(tmp_path, rules):
    result = lint(tmp_path, rules, on_vke("Tesla-V100"))
    [finding] = findings(result, "HBM102")
    assert finding.severity == Severity.WARNING
    assert "V100-SXM2-16GB" in finding.message and "V100-SXM2-32GB" in finding.message
    assert "does not say its memory size" in finding.message
    assert not [d for d in result.diagnostics if d.severity == Severity.ERROR]


def test_a_name_that_says_its_size_keeps_the_error(tmp_path, rules):
    result = lint(tmp_path, rules, on_vke("Tesla-V100-SXM2-16GB"))
    [finding] = findings(result, "HBM102")
    assert finding.severity == Severity.ERROR
    assert "does not say" not in finding.message


def test_a_refusal_both_parts_make_stays_an_error(tmp_path, rules):
    text = on_vke("Tesla-V100", model="Qwen/Qwen2.5-32B-Instruct")  # 65 GB of weights
    result = lint(tmp_path, rules, text)
    [finding] = findings(result, "HBM101")
    assert finding.severity == Severity.ERROR
    assert "V100-SXM2-32GB" not in finding.message
