"""catalog: models and names of 2026 deployments (Kimi-K2.6 under its own name, AWQ uploads of
FP8 masters), each linted as a manifest names it and checked against the checkpoint's size
(the tests run with HF_HUB_OFFLINE=1: conftest.py)."""

from __future__ import annotations

import pytest
from catalog_entry import architecture, stored_bytes

from hbmlint import catalog
from hbmlint.catalog.variants import variant
from hbmlint.lint import lint_paths
from hbmlint.rules import load_rules

GIB = 2**30


def _deployment(tmp_path, model: str, gpu: str, gpus: int, *args: str):
    """A Kubernetes Deployment serving ``model`` with vLLM 0.11.0 at tensor parallel ``gpus``."""
    words = ", ".join(
        f'"{w}"' for w in ("--model", model, "--tensor-parallel-size", str(gpus), *args)
    )
    path = tmp_path / "deployment.yaml"
    path.write_text(
        f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: llm}}
spec:
  template:
    spec:
      nodeSelector: {{nvidia.com/gpu.product: {gpu}}}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.11.0
        args: [{words}]
        resources: {{limits: {{nvidia.com/gpu: "{gpus}"}}}}
""",
        encoding="utf-8",
    )
    return path


def _lint(path):
    rules, _ = load_rules()
    [result] = lint_paths([str(path)], rules)
    return result


def test_kimi_k26_is_budgeted_under_its_own_name_with_k25s_int4_experts(tmp_path):
    result = _lint(
        _deployment(tmp_path, "moonshotai/Kimi-K2.6", "NVIDIA-B200", 8, "--max-model-len", "65536")
    )
    codes = {d.code for d in result.diagnostics}
    assert "HBM015" not in codes and "HBM101" not in codes
    [deployment] = result.deployments
    budget = deployment.budget
    # the budget names the model the manifest named, not K2.5
    assert budget.resolved.target.name == "moonshotai/Kimi-K2.6"
    # moonshotai/Kimi-K2.6 @ 7eb5002f: 64 safetensors shards, 595,177,988,208 bytes (a public
    # download script's pinned total, code search file id 68396752512); hbmlint's arithmetic for
    # the whole checkpoint is within 3% of it, and one of 8 ranks holds an eighth of the sharded
    # part plus the replicated MoonViT tower
    whole = stored_bytes(architecture("moonshotai/Kimi-K2.6").weight_bytes_per_rank(1, 1, "int4"))
    assert whole == pytest.approx(595_177_988_208, rel=0.03)
    per_gpu = budget.weights.to("byte").magnitude
    assert per_gpu == pytest.approx(595_177_988_208 / 8, rel=0.06)
    # MLA: one 512 + 64 latent of bf16 per layer, 61 layers (kv_lora_rank, qk_rope_head_dim)
    assert architecture("moonshotai/Kimi-K2.6").kv_layout(8, 1, 2).full_per_token == 61 * 576 * 2
    # the same fields as K2.5: nothing else changes
    k25 = catalog.find_model("moonshotai/Kimi-K2.5")
    assert catalog.find_model("moonshotai/Kimi-K2.6")["config"] == k25["config"]


def _spark_pair(tmp_path, model: str, utilization: str):
    """eugr/spark-vllm-docker's minimax-m2.7-awq recipe as issue #396 ran it: 2 DGX Sparks (one
    GB10 each), TP 2, max_model_len 196608, written as a Deployment of vLLM 0.29."""
    return (
        _deployment(
            tmp_path,
            model,
            "NVIDIA-GB10",
            2,
            "--max-model-len",
            "196608",
            "--gpu-memory-utilization",
            utilization,
        )
        .read_text(encoding="utf-8")
        .replace("v0.11.0", "v0.29.0")
    )


@pytest.mark.parametrize(
    "name", ["cyankiwi/MiniMax-M2.7-AWQ-4bit", "cyankiwi/MiniMax-M2.5-AWQ-4bit"]
)
def test_an_awq_upload_of_an_fp8_master_reads_as_the_master_with_awq_weights(name):
    found = variant(name)
    assert found is not None and found.weights == "AWQ 4-bit"
    assert found.base == name.replace("cyankiwi/", "MiniMaxAI/").removesuffix("-AWQ-4bit")
    # the master's FP8 blocks are not the upload's: AWQ alone, in 16 bits elsewhere
    assert found.config["quantization_config"]["quant_method"] == "awq"
    assert found.config["torch_dtype"] == "float16"


def test_a_4bit_or_fp4_name_on_a_model_already_quantized_is_still_not_guessed():
    # re-quantizing a 4-bit master (Kimi-K2.5's INT4 experts, gpt-oss's MXFP4), or an FP4/FP8 name
    # on an FP8 master from a publisher whose kept layers are unknown: still no model
    for name in (
        "someone/Kimi-K2.5-AWQ",
        "someone/gpt-oss-120b-GPTQ-Int4",
        "someone/MiniMax-M2.5-NVFP4",
        "someone/MiniMax-M2.5-AWQ-8bit",
        "someone/DeepSeek-R1-NVFP4",
    ):
        assert variant(name) is None, name


def test_minimax_m27_awq_on_two_dgx_sparks_is_budgeted_offline(tmp_path):
    path = tmp_path / "deployment.yaml"
    path.write_text(_spark_pair(tmp_path, "cyankiwi/MiniMax-M2.7-AWQ-4bit", "0.8"), "utf-8")
    result = _lint(path)
    assert "HBM015" not in {d.code for d in result.diagnostics}  # was "cannot be reached"
    [deployment] = result.deployments
    budget = deployment.budget
    assert budget.assumed["model"].startswith(
        "MiniMaxAI/MiniMax-M2.7 with AWQ 4-bit weights, read from the name"
    )
    # the checkpoint: "Download AWQ weights to both nodes (~120 GB)" (a public DGX Spark
    # deployment guide for cyankiwi/MiniMax-M2.7-AWQ-4bit, code search file id 66448524850);
    # hbmlint's whole-model arithmetic is 120.7 GB, so one of two ranks holds about 60 GB
    per_gpu = budget.weights.to("byte").magnitude
    assert per_gpu == pytest.approx(120e9 / 2, rel=0.05)
    # KV: 62 layers x 4 of 8 KV heads a rank x 128 x K and V x 2 bytes; the log gives
    # 23.25 GiB for 196,608 tokens, 126,976 bytes a token
    assert budget.kv_bytes_per_token_target.to("byte / token").magnitude == 62 * 4 * 128 * 2 * 2
    assert 23.25 * GIB / 196_608 == 62 * 4 * 128 * 2 * 2
    # 0.85 instead of 0.80 gave vLLM 0.29.1 28.74 - 22.5 = 6.24 GiB more KV cache (the issue's
    # two runs); the budget's share grows by 0.05 x 121.69 GiB = 6.08 GiB. Not reached: the KV
    # cache itself (hbmlint 37.5 GiB at 0.80 where vLLM logged 22.5 GiB and refused 196,608
    # tokens; it charged 5.1 GiB for CUDA graphs on GB10, hbmlint 0.71 GiB)
    path.write_text(_spark_pair(tmp_path, "cyankiwi/MiniMax-M2.7-AWQ-4bit", "0.85"), "utf-8")
    [higher] = _lint(path).deployments
    grown = (higher.budget.kv_cache - budget.kv_cache).to("GiB").magnitude
    assert grown == pytest.approx(6.24, abs=0.2)
