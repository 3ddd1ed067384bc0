"""The format examples say, in their header comments, what hbmlint finds in them; check it."""

from __future__ import annotations

from format_helpers import budgets, findings, line_of
from helpers import EXAMPLES


def codes(name: str, *options: str) -> list[str]:
    return [f["code"] for f in findings(EXAMPLES / name, *options)]


def test_kubernetes_deployment_with_a_draft_model():
    path = EXAMPLES / "k8s-llama70b-l4-draft.yaml"
    found = findings(path)
    assert [(f["code"], f["line"]) for f in found] == [
        ("HBM101", line_of(path, "--model=$(MODEL_ID)")),
        ("HBM201", line_of(path, '"num_speculative_tokens": 5')),
    ]


def test_lws_tp_times_pp_across_two_nodes_fits():
    path = EXAMPLES / "lws-llama405b-tp8-pp2.yaml"
    assert codes("lws-llama405b-tp8-pp2.yaml") == ["HBM011"]
    [budget] = budgets(path)
    assert (budget["gpu"], budget["gpu_count"]) == ("H100-SXM-80GB", 16)
    assert (budget["tensor_parallel"], budget["pipeline_parallel"]) == (8, 2)


def test_vllm_config_file_needs_a_gpu_and_then_finds_the_context_too_long():
    assert codes("vllm-config-qwen3-32b.yaml") == ["HBM005"]
    assert codes("vllm-config-qwen3-32b.yaml", "--gpu", "H100") == ["HBM102"]


def test_compose_with_legacy_flags():
    assert codes("compose-vllm.yaml") == ["HBM010"] * 3 + ["HBM005"]
    assert codes("compose-vllm.yaml", "--gpu", "L4") == ["HBM102"] + ["HBM010"] * 3


def test_production_stack_values_extra_args_win():
    path = EXAMPLES / "production-stack-values.yaml"
    [finding] = findings(path)
    assert finding["deployment"] == "llama3-8b" and finding["line"] == line_of(
        path, "maxModelLen: 32768"
    )
    llama, qwen = budgets(path)
    assert llama["usable_bytes"] < 0.81 * llama["total_bytes"]  # 0.8 from extraArgs
    assert qwen["gpu"] == "L40S-48GB" and qwen["kv_cache_tokens"] > 32768


def test_kserve_llm_inference_service_with_a_draft_model():
    path = EXAMPLES / "kserve-llmisvc-llama8b-draft-a10g.yaml"
    found = {(f["code"], f["line"]) for f in findings(path)}
    assert ("HBM201", line_of(path, "uri: hf://meta-llama/Llama-3.2-1B-Instruct")) in found
    assert ("HBM102", line_of(path, 'value: "--max-model-len 32768')) in found
    [budget] = budgets(path)
    assert (budget["gpu"], budget["gpu_count"]) == ("A10G-24GB", 1)
    assert budget["draft_weights_bytes"] > 0 and budget["kv_cache_tokens"] < 32768
