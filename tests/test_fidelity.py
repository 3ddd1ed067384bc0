"""Fidelity: each architecture family against figures worked out by hand from its config.json,
and the calibration benchmark against the engines' own startup logs."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import REPO, SHARED, manifest

from hbmlint import budget as budget_stage
from hbmlint import catalog
from hbmlint.diagnostics import Severity
from hbmlint.formats import native
from hbmlint.resolve import resolve
from hbmlint.spec import Deployment, GpuSpec, ModelRef, ServingSpec
from hbmlint.yamlsrc import load_documents

GIB = 2**30


def budget_of(spec: str):
    documents, error = load_documents(manifest(spec))
    assert error is None
    deployments, findings = native.to_deployments(documents[0], Path("x.yaml"), "x.yaml")
    assert not findings, findings
    resolved, problems = resolve(deployments[0])
    assert resolved is not None, problems
    return budget_stage.build(resolved), problems


def arch(model_id: str) -> catalog.Architecture:
    entry = catalog.find_model(model_id)
    assert entry is not None, model_id
    return catalog.architecture_from_config(entry["config"], entry["id"], entry["source"])


def per_token(arch_: catalog.Architecture, tp: int, kv_bytes: float = 2, dtype: str = "") -> int:
    return arch_.kv_layout(tp, 1, kv_bytes, dtype).full_per_token


# ------------------------------------------------------------------------------ MLA


@pytest.mark.parametrize("tp", [1, 8, 16])
def test_deepseek_v3_mla_kv_is_the_latent_on_every_rank(tp):
    # 61 layers x (kv_lora_rank 512 + qk_rope_head_dim 64) x 2 bytes, not divided by TP
    assert per_token(arch("deepseek-ai/DeepSeek-V3"), tp) == 61 * 576 * 2 == 70_272


def test_fp8_ds_mla_is_656_bytes_per_token_and_layer():
    assert per_token(arch("deepseek-ai/DeepSeek-V3"), 8, 1, "fp8_ds_mla") == 61 * 656 == 40_016


def test_kimi_k2_thinking_kv_matches_the_recipe_log():
    # recipes-kimi-k2-thinking-8xh200-tp8: 46.80 GiB held 715,072 tokens = 70,272 B a token
    b, _ = budget_of("""
        gpu: {type: H200, count: 8}
        model: {name: moonshotai/Kimi-K2-Thinking}
        serving: {gpu_memory_utilization: 0.9}
    """)
    assert b.kv_bytes_per_token.magnitude == 70_272
    assert round(46.80 * GIB / 70_272) == pytest.approx(715_072, rel=0.001)


# ------------------------------------------------------------------------------ dense GQA


def test_llama_70b_kv_replicates_beyond_its_kv_heads():
    llama = arch("meta-llama/Llama-3.1-70B-Instruct")
    assert per_token(llama, 8) == per_token(llama, 16) == 80 * 2 * 1 * 128 * 2 == 40_960


def test_qwen3_uses_its_explicit_head_dim():
    # Qwen3-32B: hidden 5120 / 64 heads would be 80; head_dim is 128
    assert per_token(arch("Qwen/Qwen3-32B"), 1) == 64 * 2 * 8 * 128 * 2


# ------------------------------------------------------------------------------ windows


def test_gemma3_window_layers_keep_the_window_plus_a_batch():
    gemma = arch("google/gemma-3-27b-it")
    # 62 layers, every 6th global: 10 full, 52 with a 1024-token window; 16 KV heads of 128
    assert gemma.mixers.count("full") == 10 and gemma.mixers.count("sliding") == 52
    layer = 2 * 16 * 128 * 2
    layout = gemma.kv_layout(1, 1, 2)
    assert layout.full_per_token == 10 * layer
    assert layout.windows == ((1024, 52 * layer),)
    # one 131,072-token request with 2,048 batched tokens: windows keep 1023 + 2048 tokens,
    # in blocks of 16 (192 blocks), plus one block
    expected = 10 * layer * 131_072 + 52 * layer * (math.ceil(3071 / 16) + 1) * 16
    assert layout.request_bytes(131_072, 2048, 16) == expected
    # without the hybrid manager (vLLM V0) every layer keeps the whole context
    assert layout.request_bytes(131_072, 2048, 16, hybrid=False) == 62 * layer * 131_072


@pytest.mark.parametrize(
    ("release", "batches"),
    [
        # from 0.26 a window layer keeps the tokens in flight: two batches with async
        # scheduling, on by default (the newest is assumed where no release is named)
        ("", 2),
        ('engine_version: "0.26.0"', 2),
        # before, one batch
        ('engine_version: "0.25.0"', 1),
    ],
)
def test_gpt_oss_half_the_layers_hold_128_tokens(release, batches):
    b, findings = budget_of(f"""
        gpu: {{type: H100}}
        model: {{name: openai/gpt-oss-120b}}
        serving: {{max_model_len: 131072, max_num_batched_tokens: 8192}}
        {release}
    """)
    layer = 2 * 8 * 64 * 2  # 8 KV heads of 64, bf16
    window_tokens = (math.ceil((127 + batches * 8192) / 16) + 1) * 16
    expected = 18 * layer * 131_072 + 18 * layer * window_tokens
    assert b.kv_bytes_per_sequence.magnitude == expected
    # the capacity vLLM reports: full-length requests that fit, times max_model_len
    sequences = b.kv_cache.magnitude / expected
    assert b.kv_tokens.magnitude == pytest.approx(sequences * 131_072, abs=16)
    assert not [f for f in findings if f.code == "HBM008"]


# ------------------------------------------------------------------------------ MoE


def test_mixtral_total_weights_count_every_expert():
    mixtral = arch("mistralai/Mixtral-8x7B-Instruct-v0.1")
    layer = 2 * 4096 * 4096 + 2 * 4096 * 1024 + 8 * 3 * 4096 * 14336 + 4096 * 8 + 2 * 4096
    params = 32 * layer + 2 * 32000 * 4096 + 4096
    assert mixtral.parameters == params
    weights = mixtral.weight_bytes_per_rank(1, 1, None)
    rope = 32768 * 128 * 2  # the RoPE cos/sin cache: max_position_embeddings x head_dim, BF16
    assert weights.magnitude == params * 2 + rope
    # calibration mi300x-mixtral-8x7b-tp1: "Loading model weights took 86.9985 GB"
    assert weights.magnitude / GIB == pytest.approx(86.9985, rel=0.001)


def test_expert_parallelism_places_whole_experts():
    qwen = arch("Qwen/Qwen3-30B-A3B")
    experts_per_layer = 128 * 3 * 2048 * 768
    tp4 = qwen.weight_bytes_per_rank(4, 1, None).magnitude
    # EP over 8 ranks (TP 4 x DP 2): each rank holds 16 of the 128 experts, not a quarter
    ep8 = qwen.weight_bytes_per_rank(4, 1, None, expert_parallel=8).magnitude
    assert tp4 - ep8 == pytest.approx(48 * experts_per_layer * 2 * (1 / 4 - 16 / 128))


def test_mxfp4_experts_padded_and_attention_left_in_bf16():
    oss = arch("openai/gpt-oss-120b")
    assert oss.quantization == "mxfp4" and "attention" in oss.unquantized
    # llmd-gpt-oss-120b-h100 and vllm#33155: "Model loading took 64.38 GiB"
    assert oss.weight_bytes_per_rank(1, 1, "mxfp4").magnitude / GIB == pytest.approx(
        64.38, rel=0.01
    )


# ------------------------------------------------------------------------------ formats


@pytest.mark.parametrize(
    "fmt, group, expected",
    [("awq", 128, 0.5 + 2.5 / 128), ("awq", 64, 0.5 + 2.5 / 64), ("gptq", 32, 0.5 + 2.5 / 32)],
)
def test_group_wise_int4_carries_its_scales_and_zeros(fmt, group, expected):
    config = {"quant_method": fmt, "bits": 4, "group_size": group}
    weight_format, _, _ = catalog.checkpoint_format(config)
    assert weight_format.bytes_per_param == pytest.approx(expected)


def test_nvfp4_mxfp4_and_bnb_bytes_per_parameter():
    assert catalog.weight_format_bytes("nvfp4") == 0.5625
    assert catalog.weight_format_bytes("mxfp4") == 0.53125
    assert catalog.weight_format_bytes("bitsandbytes") == 0.5625


def test_w8a8_keeps_embeddings_and_lm_head_in_bf16():
    w8a8 = arch("neuralmagic/Meta-Llama-3.1-70B-Instruct-quantized.w8a8")
    linear = 80 * (2 * 8192 * 64 * 128 + 2 * 8192 * 8 * 128 + 3 * 8192 * 28672)
    dense = 80 * 2 * 8192 + 8192 + 2 * 128256 * 8192
    rope = 131072 * 128 * 2
    assert w8a8.weight_bytes_per_rank(1, 1, "w8a8").magnitude == linear + dense * 2 + rope


def test_checkpoint_kv_scheme_makes_auto_fp8():
    b, _ = budget_of("""
        gpu: {type: H100, count: 2}
        model: {name: nvidia/Llama-3.1-70B-Instruct-FP8}
    """)
    assert b.settings.kv_cache_dtype == "fp8"
    assert "kv_cache_dtype" in b.assumed and "quantization" in b.assumed


# ------------------------------------------------------------------------------ state, vision


def test_qwen35_linear_attention_state_per_sequence():
    qwen = arch("Qwen/Qwen3.5-35B-A3B")
    assert qwen.mixers.count("state") == 30
    conv = 3 * (2 * 16 * 128 + 32 * 128)  # (kernel - 1) x (2 x key dim + value dim)
    ssm = 32 * 128 * 128  # value heads x key dim x value dim, in float32 (mamba_ssm_dtype)
    assert qwen.kv_layout(1, 1, 2).state_per_sequence == 30 * (conv * 2 + ssm * 4)
    assert qwen.kv_layout(2, 1, 2).state_per_sequence == 30 * (conv * 2 + ssm * 4) // 2


def test_vision_tower_weights_count():
    vl = arch("Qwen/Qwen2.5-VL-7B-Instruct")
    text_only = catalog.architecture_from_config(
        {k: v for k, v in catalog.find_model(vl.name)["config"].items() if k != "vision_config"},
        "text",
        "test",
    )
    assert vl.vision_params == pytest.approx(0.68e9, rel=0.03)  # 8.29B card - 7.61B text
    assert vl.weight_bytes_per_rank(1, 1, None).magnitude == pytest.approx(
        text_only.weight_bytes_per_rank(1, 1, None).magnitude + vl.vision_params * 2
    )


def test_rope_cache_is_a_buffer_of_positions_by_rotary_dims():
    # vLLM's get_rope builds a cos/sin cache in the model dtype at load ("Model loading took")
    llama = arch("meta-llama/Llama-3.2-1B-Instruct")
    assert (llama.rotary_positions, llama.rotary_dim) == (131_072, 64)
    without = replace(llama, rotary_positions=0)
    extra = llama.weight_bytes_per_rank(2, 1, None).magnitude
    extra -= without.weight_bytes_per_rank(2, 1, None).magnitude
    assert extra == 131_072 * 64 * 2  # whole on every rank
    deepseek = arch("deepseek-ai/DeepSeek-V3")  # MLA: only the 64-wide rope part rotates
    assert (deepseek.rotary_positions, deepseek.rotary_dim) == (163_840, 64)
    yarn = {**catalog.find_model("Qwen/Qwen3-8B")["config"], "partial_rotary_factor": 0.5}
    yarn["rope_scaling"] = {
        "rope_type": "yarn",
        "factor": 4.0,
        "original_max_position_embeddings": 32768,
    }
    qwen = catalog.architecture_from_config(yarn, "yarn", "test")
    assert (qwen.rotary_positions, qwen.rotary_dim) == (131_072, 64)


def test_vision_profile_holds_pixels_and_image_embeddings():
    # unsloth-qwen25-vl-7b-bnb-t4: V0, max_num_seqs 1, a 16,384-token profile sequence filled
    # by one largest image: 16,384 tokens = 65,536 patches of 3 x 2 x 14 x 14 fp32 pixels
    b, _ = budget_of("""
        engine_version: "0.9.2 (V0 engine)"
        gpu: {type: T4}
        model: {name: unsloth/qwen2.5-vl-7b-instruct-unsloth-bnb-4bit, dtype: float16}
        serving: {max_model_len: 16384, max_num_seqs: 1, gpu_memory_utilization: 0.77}
    """)
    forward = 16384 * 4 * 18944 * 2
    pixels = 65536 * 3 * 2 * 14 * 14 * 4
    embeddings = 16384 * 3584 * 2
    assert b.overhead["activation"].magnitude == pytest.approx(forward + pixels + embeddings)
    assert (forward + pixels + embeddings) / GIB == pytest.approx(2.71, abs=0.01)  # measured


def test_vllm_018_profiles_one_full_size_image_whatever_max_model_len():
    # vllm-0181-qwen35-35b-a3b-a100-eager-mml1024: 0.18.1 logs "Encoder cache will be
    # initialized with a budget of 16384 tokens, and profiled with 1 image items of the maximum
    # feature size" at max_model_len 1,024, and the same 6.96 GiB of KV cache as at 43,878: one
    # 16,384-token image (65,536 patches of 3 x 2 x 16 x 16 fp32 pixels) through the 4,304-wide
    # encoder MLP at the factor fitted on 0.18 (held from 0.17)
    def activation(version: str, length: int) -> float:
        b, _ = budget_of(f"""
            engine_version: "{version}"
            gpu: {{type: A100-80GB}}
            model: {{name: Qwen/Qwen3.5-35B-A3B}}
            serving: {{max_model_len: {length}, max_num_seqs: 1, gpu_memory_utilization: 0.94,
                      enforce_eager: true}}
        """)
        return b.overhead["activation"].magnitude

    factor = catalog.engine_defaults("vllm")["overhead_since"]["0.17"]["vision_mlp_factor"]
    full = 65536 * factor * 4304 * 2 + 65536 * 3 * 2 * 16 * 16 * 4
    assert activation("0.18.1", 1024) == pytest.approx(full)
    assert activation("0.18.1", 43878) == pytest.approx(full)
    assert full / GIB == pytest.approx(0.94 * 79.15 - 65.53 - 6.96 - 0.15, abs=0.05)  # logged
    # before 0.18 the dummy image stays capped at max_model_len tokens
    assert activation("0.17.1", 1024) < full / 4


def test_v0_cross_attention_profile_gives_every_sequence_an_image():
    # vllm-pr12126 (and vllm#9163): the V0 encoder-decoder runner profiles max_num_seqs dummy
    # sequences, each with a 4-tile 560 px image: 128 x 4 x 40 x 40 patches through the
    # 5120-wide MLP of the vision encoder
    b, _ = budget_of("""
        engine_version: "0.7.0"
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.2-11B-Vision}
        serving: {max_model_len: 65536, max_num_seqs: 128, gpu_memory_utilization: 0.9}
    """)
    patches = 128 * 4 * 40 * 40
    expected = patches * 4 * 5120 * 2 + patches * 3 * 14 * 14 * 4
    assert b.overhead["activation"].magnitude == pytest.approx(expected)


# ------------------------------------------------------------------------------ versions


def test_v0_engine_defaults_and_the_assumptions_said():
    b, _ = budget_of("""
        engine_version: "0.6.4"
        gpu: {type: RTX-3090}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving: {max_model_len: 20000}
    """)
    s = b.settings
    assert s.legacy_engine and s.memory_fraction == 0.9
    # no chunked prefill below 32k context: a prefill batch holds a whole max_model_len
    assert (s.max_num_seqs, s.max_num_batched_tokens) == (256, 20000)
    assert "cuda_graphs" not in b.overhead  # outside the budget before 0.20
    assert "V0" in b.assumed["max_num_batched_tokens"]
    newest, _ = budget_of("""
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
    """)
    assert (
        "engine_version" in newest.assumed and newest.settings.memory_fraction == 1.0
    )  # 0.34: extensible KV cache


# ------------------------------------------------------------------------------ HF cache


def test_model_in_the_local_hugging_face_cache_is_read_without_network(tmp_path, monkeypatch):
    snapshot = tmp_path / "hub" / "models--acme--tiny-llm" / "snapshots" / "0123abc"
    snapshot.mkdir(parents=True)
    config = {
        "model_type": "llama",
        "hidden_size": 1024,
        "intermediate_size": 4096,
        "num_hidden_layers": 4,
        "num_attention_heads": 16,
        "num_key_value_heads": 4,
        "vocab_size": 32000,
        "torch_dtype": "bfloat16",
    }
    (snapshot / "config.json").write_text(json.dumps(config), encoding="utf-8")
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    deployment = Deployment(
        name="cached",
        file="x.yaml",
        gpu=GpuSpec(type="L4"),
        model=ModelRef(name="acme/tiny-llm"),
        serving=ServingSpec(max_model_len=4096),
    )
    resolved, findings = resolve(deployment)
    assert resolved is not None, findings
    assert resolved.target.source == str(snapshot / "config.json")
    assert budget_stage.build(resolved).kv_bytes_per_token.magnitude == 4 * 2 * 4 * 64 * 2


def test_unknown_model_says_how_to_point_at_a_config(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    deployment = Deployment(name="x", file="x.yaml", gpu=GpuSpec(type="L4"))
    deployment.model = ModelRef(name="acme/not-anywhere")
    resolved, findings = resolve(deployment)
    assert resolved is None
    # not in the catalog nor the cache, and the Hub is offline in the tests: a warning
    assert findings[0].code == "HBM015" and "model.config" in findings[0].message
    assert findings[0].severity == Severity.WARNING


# ------------------------------------------------------------------------------ calibration

LOGS = SHARED / "calibration" / "engine-logs.yaml"


@pytest.mark.skipif(
    not LOGS.exists(), reason=f"{LOGS} is absent (../shared beside the clone, as in CI)"
)
def test_calibration_benchmark_meets_the_issue_targets():
    spec = importlib.util.spec_from_file_location("accuracy", REPO / "benchmarks" / "accuracy.py")
    accuracy = importlib.util.module_from_spec(spec)
    sys.modules["accuracy"] = accuracy  # dataclasses look their module up there
    spec.loader.exec_module(accuracy)
    import yaml

    records = yaml.safe_load(LOGS.read_text(encoding="utf-8"))
    outcomes = [o for r in records if not isinstance(o := accuracy.evaluate(r), str)]
    totals = accuracy.summary(outcomes)
    assert len(outcomes) >= 25
    assert totals["weights"]["median_abs_error"] <= 0.02
    assert totals["kv_bytes"]["median_abs_error"] <= 0.05
    assert totals["kv_tokens"]["within_10pct"] >= 0.8
    assert totals["weights"]["worst_abs_error"] <= 0.05
    assert totals["kv_bytes"]["within_10pct"] >= 0.8
    # the KV layout alone (tokens in the bytes the engine measured) is near exact
    assert totals["layout_tokens"]["median_abs_error"] <= 0.01


def test_vllm_018_pages_gated_deltanet_state_with_attention_blocks():
    # vllm-0181-qwen35-35b-a3b-a100-eager-*: "Setting attention block size to 1056 tokens",
    # "Padding mamba page size by 0.76%"; 345 blocks of 10 layers in 4 groups (1 attention, 3
    # gated delta-net) give "Maximum concurrency" 345 / (ceil(len / 1056) + 3): 86.25x at
    # 1,024 tokens, 18.16x at 16,384, 7.67x at 43,878
    layout = arch("Qwen/Qwen3.5-35B-A3B").kv_layout(1, 1, 2)
    assert (layout.full_layers, layout.state_layers) == (10, 30)
    assert layout.state_per_layer / (1056 * layout.attention_per_token_layer) == pytest.approx(
        1 / 1.0076, abs=1e-4
    )
    page_group = 1056 * layout.attention_per_token_layer * 10
    blocks = 345
    for length, logged in ((1024, 86.25), (16384, 18.16), (43878, 7.67)):
        per_request = layout.paged_request_bytes(length)
        assert blocks * page_group / per_request == pytest.approx(logged, abs=0.005)
    # an FP8 KV cache halves the attention page: blocks of 2,096 tokens (the kv-fp8 record)
    fp8 = arch("Qwen/Qwen3.5-35B-A3B").kv_layout(1, 1, 1)
    assert fp8.paged_request_bytes(2096) == 4 * 2096 * fp8.attention_per_token_layer * 10
    # a model without state layers is paged per token as before
    assert arch("Qwen/Qwen3-8B").kv_layout(1, 1, 2).paged_request_bytes(4096) is None
