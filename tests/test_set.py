"""`--set KEY=VALUE`: what-if without editing, on lint and budget, for every format."""

from __future__ import annotations

import pytest
from helpers import EXAMPLES

NGRAM = EXAMPLES / "llama8b-l4-ngram.yaml"  # Llama 8B on one L4, max_model_len 16384
DRAFT = EXAMPLES / "llama70b-fp8-h100-8b-draft.yaml"  # HBM101: weights exceed one H100


def test_lint_set_turns_an_error_into_a_clean_run(cli):
    assert cli(DRAFT).exit_code == 1
    run = cli(DRAFT, "--set", "speculative.method=ngram")
    assert run.exit_code == 0, run.output
    run = cli(DRAFT, "--set", "parallel.tensor=2", "--format", "json")
    assert "HBM101" not in {f["code"] for f in run.json()}


def test_budget_shows_before_and_after(cli):
    run = cli(
        "budget",
        NGRAM,
        "--set",
        "parallel.tensor=2",
        "--set",
        "gpu.type=H200",
        "--set",
        "serving.max_model_len=32k",
    )
    assert run.exit_code == 0
    out = run.output
    before = out.index("llama8b-l4-ngram.yaml [as written]: llama8b-l4-ngram")
    label = "[--set parallel.tensor=2 gpu.type=H200 serving.max_model_len=32k]"
    after = out.index(f"llama8b-l4-ngram.yaml {label}: llama8b-l4-ngram")
    assert before < after
    assert "vllm on 1 x L4-24GB" in out[before:after]
    assert "vllm on 2 x H200-SXM-141GB" in out[after:]
    assert "sequences of 32,000 tokens" in out[after:]  # 32k is vLLM's 32,000
    assert "sequences of 16,384 tokens" in out[before:after]
    change = out.splitlines()[-1]
    assert change.startswith("  change per GPU: weights 14.99 -> 7.51 GiB; KV cache 4.72 -> ")
    assert "KV capacity 38,688 -> " in change


def test_budget_json_before_and_after(cli):
    run = cli("budget", NGRAM, "--format", "json", "--set", "serving.max_model_len=8192")
    data = run.json()
    assert data["set"] == {"serving.max_model_len": "8192"}
    assert data["before"][0]["max_model_len"] == 16384
    assert data["after"][0]["max_model_len"] == 8192
    assert data["after"][0]["kv_cache_tokens"] == data["before"][0]["kv_cache_tokens"]


@pytest.mark.parametrize("output_format", ["svg", "html"])
def test_budget_pictures_before_and_after(cli, output_format):
    run = cli("budget", NGRAM, "--format", output_format, "--set", "gpu.type=H200")
    assert run.exit_code == 0
    assert "[as written]" in run.output and "[--set gpu.type=H200]" in run.output
    assert run.output.count("<svg ") == (1 if output_format == "svg" else 2)


def test_every_format_takes_the_overrides(cli):
    """The examples hold every format hbmlint reads (native, Kubernetes, KServe, Compose,
    production-stack values, vLLM config, LWS): each deployment is budgeted as set."""
    run = cli(
        "budget",
        EXAMPLES,
        "--gpu",
        "H100",
        "--format",
        "json",
        "--set",
        "parallel.tensor=2",
        "--set",
        "gpu.type=H200",
    )
    after = run.json()["after"]
    formats = {item["file"].split("/")[-1] for item in after}
    assert {
        "compose-vllm.yaml",
        "k8s-llama70b-l4-draft.yaml",
        "vllm-config-qwen3-32b.yaml",
        "kserve-llmisvc-llama8b-draft-a10g.yaml",
        "production-stack-values.yaml",
    } <= formats
    for item in after:
        assert "error" not in item, item
        assert item["gpu"] == "H200-SXM-141GB" and item["tensor_parallel"] == 2, item


@pytest.mark.parametrize(
    ("setting", "why"),
    [
        ("nope=1", "unknown key 'nope'"),
        ("parallel.tensor", "write KEY=VALUE"),
        ("parallel.tensor=zero", "is not a whole number"),
        ("speculative.method=telepathy", "is not one of"),
        ("serving.gpu_memory_utilization=1.5", "is not a fraction"),
    ],
)
@pytest.mark.parametrize("command", ["lint", "budget"])
def test_a_bad_setting_is_a_usage_error(cli, command, setting, why):
    run = cli(command, NGRAM, "--set", setting)
    assert run.exit_code == 2
    assert why in run.stderr
    assert "Traceback" not in run.stderr
