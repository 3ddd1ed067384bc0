"""Kthena ModelBooster (formats/kthena.py): the engine command kthena's controller builds from the
backend (vLLM, one engine per prefill and decode worker for vLLMDisaggregated), the worker's
config as flags written the way Go prints them, and the worker's GPUs. Before this reader a
ModelBooster passed in silence: no word in it names an engine command."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_formats_orchestrators import codes, read, write

from hbmlint.diagnostics import Severity
from hbmlint.formats.kthena import go_value
from hbmlint.lint import lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
COVERED = {"kthena-modelbooster-pd.yaml", "kthena-modelbooster-ascend.yaml"}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def test_prefill_and_decode_workers_are_two_engines_and_the_long_context_fails(rules):
    path = REAL / "kthena-modelbooster-pd.yaml"
    result = lint_file(path, path.name, rules)
    assert read(result) == [
        ("llama-pd/prefill", "vllm", "meta-llama/Llama-3.1-8B-Instruct", 1, None, 1),
        ("llama-pd/decode", "vllm", "meta-llama/Llama-3.1-8B-Instruct", 1, None, 1),
    ]
    prefill, decode = (item.deployment for item in result.deployments)
    assert (prefill.serving.max_model_len, decode.serving.max_model_len) == (8192, 131072)
    assert prefill.engine_version == "0.10.1"
    assert {item.budget.resolved.gpu.name for item in result.deployments} == {"L4-24GB"}
    # an 8B model in 16-bit on one L4 holds ~30k tokens of KV: the decode engine's 131,072
    # tokens do not fit one sequence, and vLLM refuses to start; the prefill engine's 8,192 do
    [error] = [f for f in result.diagnostics if f.severity is Severity.ERROR]
    assert (error.code, error.deployment) == ("HBM102", "llama-pd/decode")
    line = path.read_text().splitlines()[error.span.line - 1]
    assert line.strip() == "max_model_len: 131072"


def test_an_ascend_worker_is_an_info_not_a_budget(rules):
    path = REAL / "kthena-modelbooster-ascend.yaml"
    result = lint_file(path, path.name, rules)
    assert result.deployments == []
    [info] = result.diagnostics
    assert (info.code, info.severity) == ("HBM014", Severity.INFO)
    assert "Ascend" in info.message


@pytest.mark.parametrize("kind", ["SGLang", "MindIE", "MindIEDisaggregated"])
def test_backend_types_kthena_builds_no_workload_for_are_an_info(tmp_path, rules, kind):
    path = write(
        tmp_path,
        "booster.yaml",
        f"""
        apiVersion: workload.serving.volcano.sh/v1alpha1
        kind: ModelBooster
        metadata: {{name: other}}
        spec:
          backend:
            name: other
            type: {kind}
            modelURI: hf://Qwen/Qwen2.5-7B-Instruct
            workers:
              - type: server
                resources: {{limits: {{nvidia.com/gpu: "1"}}}}
        """,
    )
    result = lint_file(path, path.name, rules)
    assert result.deployments == []
    [info] = codes(result, "HBM014")
    assert info.severity is Severity.INFO and kind in info.message


def test_a_server_of_several_pods_is_one_engine_over_all_their_gpus(tmp_path, rules):
    path = write(
        tmp_path,
        "multinode.yaml",
        """
        apiVersion: workload.serving.volcano.sh/v1alpha1
        kind: ModelBooster
        metadata: {name: big}
        spec:
          backend:
            name: big
            type: vLLM
            modelURI: hf://meta-llama/Llama-3.1-70B-Instruct
            workers:
              - type: server
                image: vllm/vllm-openai:v0.10.1
                pods: 2
                resources: {limits: {nvidia.com/gpu: "4"}}
                config: {tensor-parallel-size: 4, pipeline-parallel-size: 2}
        """,
    )
    result = lint_file(path, path.name, rules)
    assert read(result) == [("big", "vllm", "meta-llama/Llama-3.1-70B-Instruct", 4, 2, 8)]
    assert codes(result, "HBM007") == []  # 2 pods x 4 GPUs = TP x PP


def test_a_prefill_worker_of_several_pods_is_still_one_pod_engine(tmp_path, rules):
    """kthena's disaggregated template gives a prefill or decode role no worker pods: its engine
    runs on one pod's GPUs, so TP 2 on one GPU a pod cannot start."""
    path = write(
        tmp_path,
        "pd.yaml",
        """
        apiVersion: workload.serving.volcano.sh/v1alpha1
        kind: ModelBooster
        metadata: {name: pd}
        spec:
          backend:
            name: pd
            type: vLLMDisaggregated
            modelURI: hf://meta-llama/Llama-3.1-8B-Instruct
            workers:
              - type: prefill
                pods: 2
                resources: {limits: {nvidia.com/gpu: "1"}}
                config: {tensor-parallel-size: 2}
        """,
    )
    result = lint_file(path, path.name, rules)
    assert [d.deployment.gpu.count for d in result.deployments] == [1]
    [mismatch] = codes(result, "HBM007")
    assert mismatch.severity is Severity.ERROR


@pytest.mark.parametrize(
    ("value", "printed"),
    [
        (131072, "131072"),
        (999999, "999999"),
        (1000000, "1e+06"),  # a million reaches vLLM as 1e+06
        (1234567, "1.234567e+06"),
        (0.9, "0.9"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (-2.5, "-2.5"),
        (True, "true"),
        ("", ""),
        ({"kv_role": "kv_both", "kv_connector": "X"}, "map[kv_connector:X kv_role:kv_both]"),
        ([1, "a"], "[1 a]"),
    ],
)
def test_config_values_are_written_as_go_prints_them(value, printed):
    assert go_value(value) == printed
