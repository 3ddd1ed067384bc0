"""The memory model against figures computed by hand from the models' config.json values."""

from __future__ import annotations

import pytest
from helpers import manifest

from hbmlint import budget as budget_stage
from hbmlint.formats import native
from hbmlint.resolve import resolve
from hbmlint.yamlsrc import load_documents

GIB = 2**30


def budget_of(spec: str, tmp_path=None):
    from pathlib import Path

    documents, error = load_documents(manifest(spec))
    assert error is None
    deployments, findings = native.to_deployments(documents[0], Path("x.yaml"), "x.yaml")
    assert not findings, findings
    resolved, problems = resolve(deployments[0])
    assert resolved is not None, problems
    return budget_stage.build(resolved)


def per_token(b) -> int:
    return int(b.kv_bytes_per_token.to("byte/token").magnitude)


def as_bytes(q) -> float:
    return float(q.to("byte").magnitude)


# Llama-3.1-8B: 32 layers, 8 KV heads of 128, hidden 4096, MLP 14336, vocab 128256, untied.
LLAMA8B_PARAMS = (
    32 * (2 * 4096 * 32 * 128 + 2 * 4096 * 8 * 128 + 3 * 4096 * 14336 + 2 * 4096)
    + 2 * 128256 * 4096
    + 4096
)
# Llama-3.1-70B: 80 layers, 64 heads, 8 KV heads of 128, hidden 8192, MLP 28672.
LLAMA70B_LINEAR = 80 * (2 * 8192 * 64 * 128 + 2 * 8192 * 8 * 128 + 3 * 8192 * 28672)
LLAMA70B_DENSE = 80 * 2 * 8192 + 8192 + 2 * 128256 * 8192  # norms, embeddings, lm_head
# RoPE's cos/sin cache, a BF16 buffer of 131,072 positions x 128 dims on every GPU (both models)
LLAMA_ROPE = 131072 * 128 * 2


def test_llama8b_bf16_kv_is_128_kib_per_token():
    b = budget_of("""
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
    """)
    assert per_token(b) == 32 * 2 * 8 * 128 * 2 == 131_072


def test_llama70b_tp8_kv_per_gpu_and_replication_beyond_kv_heads():
    tp8 = budget_of("""
        gpu: {type: H100, count: 8}
        model: {name: meta-llama/Llama-3.1-70B-Instruct}
    """)
    assert per_token(tp8) == 40_960
    # 16 ranks share 8 KV heads: each rank still holds a whole head, so no further saving.
    tp16 = tp8.whatif(tensor_parallel=16)
    assert per_token(tp16) == 40_960


def test_weights_per_gpu_by_hand():
    b = budget_of("""
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
    """)
    assert pytest.approx(8.03e9, rel=0.001) == LLAMA8B_PARAMS
    assert as_bytes(b.weights) == pytest.approx(LLAMA8B_PARAMS * 2 + LLAMA_ROPE)
    # vocab-parallel embeddings and TP-split linear layers halve at TP=2 (norms and the RoPE
    # cache replicate)
    tp2 = b.whatif(tensor_parallel=2)
    norms = 32 * 2 * 4096 + 4096
    halved = (LLAMA8B_PARAMS - norms) * 2 / 2
    assert as_bytes(tp2.weights) == pytest.approx(halved + norms * 2 + LLAMA_ROPE)


def test_fp8_quantizes_linear_layers_but_not_embeddings():
    b = budget_of("""
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-70B-Instruct, quantization: fp8}
    """)
    expected = LLAMA70B_LINEAR * 1 + LLAMA70B_DENSE * 2 + LLAMA_ROPE
    assert as_bytes(b.weights) == pytest.approx(expected)
    assert as_bytes(b.weights) / GIB == pytest.approx(67.70, abs=0.01)


def test_motivating_case_by_hand():
    """Llama-3.1-70B FP8 + Llama-3.1-8B BF16 draft on one H100 at 0.95 utilization."""
    b = budget_of("""
        gpu: {type: NVIDIA-H100-80GB-HBM3, count: 1}
        model: {name: meta-llama/Llama-3.1-70B-Instruct, quantization: fp8}
        serving: {max_model_len: 8192, max_num_batched_tokens: 4096, gpu_memory_utilization: 0.95}
        speculative: {method: draft_model, model: meta-llama/Llama-3.1-8B-Instruct}
    """)
    total = as_bytes(b.total)
    assert total / GIB == pytest.approx(79.18, abs=0.01)  # what an "80 GB" H100 reports
    assert as_bytes(b.usable) == pytest.approx(0.95 * total)
    assert as_bytes(b.draft_weights) == pytest.approx(LLAMA8B_PARAMS * 2 + LLAMA_ROPE)
    assert as_bytes(b.weights + b.draft_weights) > as_bytes(b.usable)
    assert int(b.kv_tokens.magnitude) == 0
    # per token: the target's 80 layers and the draft's 32, both BF16 K and V
    assert per_token(b) == 80 * 2 * 8 * 128 * 2 + 32 * 2 * 8 * 128 * 2 == 458_752

    # Without the draft: usable - weights - overhead, in whole blocks of 16 tokens.
    ngram = b.whatif(speculative_method="ngram")
    # activation peak: the larger of the forward pass (4096 tokens x 4 x MLP width x 2 B) and
    # the sampler (1024 sequences, the H100 default, x vocabulary x 14 B, vLLM 0.17 on)
    activation = max(4096 * 4 * 28672 * 2, 1024 * 128256 * 14)
    # CUDA graphs as vLLM's profile charges them: a first capture of 0.25 GiB plus 4.7 MiB for
    # each graph after the first of its mode; 51 capture sizes up to 512 tokens, each with a
    # PIECEWISE graph and (1,024 sequences reach them all) a FULL decode graph
    graphs = 0.25 * GIB + (50 + 50) * 4.7 * 2**20
    overhead = 0.15 * GIB + activation + graphs
    kv = 0.95 * total - (LLAMA70B_LINEAR + LLAMA70B_DENSE * 2 + LLAMA_ROPE) - overhead
    assert as_bytes(ngram.kv_cache) == pytest.approx(kv)
    assert int(ngram.kv_tokens.magnitude) == int(kv // (327_680 * 16)) * 16


def test_overhead_parts_are_separate_lines():
    b = budget_of("""
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving: {max_num_batched_tokens: 8192}
    """)
    # (the newest vLLM, 0.34: what its extensible KV cache keeps free is a line of its own)
    assert set(b.overhead) == {"non_torch", "activation", "cuda_graphs", "margin"}
    # the sampler's fp32 logits (and their copies) for 1024 sequences dominate the activation
    # peak: 14 bytes a logit from vLLM 0.17 (benchmarks/calibration/vllm.yaml) ...
    assert as_bytes(b.overhead["activation"]) == pytest.approx(1024 * 128256 * 14)
    # ... and 39 before (calibrated on llmd-llama31-8b-h100, vLLM 0.11: 4.76 GiB measured)
    older = budget_of("""
        engine_version: "0.11.0"
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving: {max_num_batched_tokens: 8192}
    """)
    assert as_bytes(older.overhead["activation"]) / GIB == pytest.approx(4.76, rel=0.02)
    eager = budget_of("""
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving: {enforce_eager: true}
    """)
    assert "cuda_graphs" not in eager.overhead


def test_defaults_are_assumed_and_said():
    b = budget_of("""
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
    """)
    # the newest vLLM (0.34) with the fraction unset: the extensible KV cache's 1.0
    assert b.settings.memory_fraction == 1.0
    assert "extensible KV cache" in b.assumed["gpu_memory_utilization"]
    assert b.settings.max_model_len == 131072
    assert b.settings.block_size == 16
    assert {"gpu_memory_utilization", "max_model_len", "block_size", "max_num_seqs"} <= set(
        b.assumed
    )
    assert "max_position_embeddings" in b.assumed["max_model_len"]
    old = budget_of("""
        engine_version: "0.8.5"
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving: {gpu_memory_utilization: 0.8, max_model_len: 4096}
    """)
    assert old.settings.memory_fraction == 0.8
    assert "gpu_memory_utilization" not in old.assumed
    assert "max_model_len" not in old.assumed
    older = budget_of("""
        engine_version: "0.11.0"
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
    """)
    assert older.settings.memory_fraction == 0.9
    assert "before 0.21" in older.assumed["gpu_memory_utilization"]
    newer = budget_of("""
        engine_version: "0.33.0"
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
    """)
    assert newer.settings.memory_fraction == 0.92
    assert not newer.settings.extensible_kv_cache
    # before v0.20 CUDA graphs were captured outside vLLM's budget
    assert "cuda_graphs" not in older.overhead


def test_cuda_graphs_enter_vllms_budget_with_0_20():
    # 0.19.x logs the graph estimate but sizes the KV cache without it; 0.20.0 takes it out
    def graphs(version):
        return (
            "cuda_graphs"
            in budget_of(f"""
            engine_version: "{version}"
            gpu: {{type: H100}}
            model: {{name: meta-llama/Llama-3.1-8B-Instruct}}
        """).overhead
        )

    assert [graphs(v) for v in ("0.18.1", "0.19.1", "0.20.0", "0.24.0")] == [
        False,
        False,
        True,
        True,
    ]


def test_kv_capacity_is_whole_blocks_and_concurrency_follows():
    b = budget_of("""
        gpu: {type: L4}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving: {max_model_len: 8192, block_size: 32}
    """)
    tokens = int(b.kv_tokens.magnitude)
    assert tokens % 32 == 0
    assert tokens * 131_072 <= as_bytes(b.kv_cache) < (tokens + 32) * 131_072
    assert b.max_concurrency == pytest.approx(tokens / 8192)


def test_fp8_kv_cache_doubles_capacity():
    b = budget_of("""
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
    """)
    fp8 = b.whatif(kv_cache_dtype="fp8")
    assert per_token(fp8) == per_token(b) // 2
    assert fp8.kv_tokens.magnitude == pytest.approx(2 * b.kv_tokens.magnitude, abs=32)


def test_draft_on_every_rank_with_draft_tp_1():
    spec = """
        gpu: {type: H100, count: 4}
        model: {name: meta-llama/Llama-3.1-70B-Instruct}
        speculative: {method: draft_model, model: meta-llama/Llama-3.2-1B-Instruct,
                      tensor_parallel: %d}
    """
    whole = budget_of(spec % 1)
    split = budget_of(spec % 4)
    assert as_bytes(whole.draft_weights) > 3 * as_bytes(split.draft_weights)
    assert whole.kv_bytes_per_token_draft > split.kv_bytes_per_token_draft


def test_ngram_costs_no_memory():
    b = budget_of("""
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        speculative: {method: ngram, num_speculative_tokens: 3}
    """)
    assert as_bytes(b.draft_weights) == 0
    assert b.kv_bytes_per_token_draft.magnitude == 0


def test_gpu_memory_override_and_decimal_units_print_decimal():
    b = budget_of("""
        gpu: {type: H100, memory: 80 GB}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
    """)
    assert as_bytes(b.total) == 80e9
    assert b.byte_unit == "GB"


def test_sglang_fraction_covers_weights_and_kv_only():
    vllm = budget_of("""
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving: {gpu_memory_utilization: 0.85}
    """)
    sglang = budget_of("""
        engine: sglang
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving: {gpu_memory_utilization: 0.85}
    """)
    # SGLang's mem_fraction_static is weights + KV pool: overhead is not taken from it. It is
    # a share of the memory free when the worker starts: the card less the CUDA context
    # (engines.yaml free_at_start_reserved, 0.4 GiB)
    free = as_bytes(sglang.total) - 0.4 * 2**30
    assert as_bytes(sglang.kv_cache) == pytest.approx(0.85 * free - as_bytes(sglang.weights))
    assert as_bytes(sglang.kv_cache) > as_bytes(vllm.kv_cache)


@pytest.mark.parametrize("running", [62, 400])
def test_sglang_splits_a_hybrid_models_pool_by_mamba_full_memory_ratio(running):
    # Qwen3.5-9B on two RTX 4090s, SGLang 0.5.10, --mem-fraction-static 0.8 (the
    # sglang-dev11582 record of benchmarks/calibration/sglang.yaml: "max_mamba_cache_size: 186,
    # conv_state size: 0.10GB, ssm_state size: 4.38GB", K and V 2.50 GB each): what the
    # weights leave of the fraction goes 0.9 : 1 to the recurrent state and the KV cache, in
    # whole state slots, whatever the running-request limit
    b = budget_of(f"""
        engine: sglang
        engine_version: "0.5.10"
        gpu: {{type: RTX 4090, count: 2}}
        model: {{name: Qwen/Qwen3.5-9B}}
        parallel: {{tensor: 2}}
        serving: {{gpu_memory_utilization: 0.8, max_model_len: 262144, max_num_seqs: {running}}}
    """)
    per_slot = as_bytes(b.kv_state_bytes_per_sequence)
    rest = as_bytes(b.usable) - as_bytes(b.weights)
    state = rest - as_bytes(b.kv_cache)
    assert state == pytest.approx(int(rest * 0.9 / 1.9 / per_slot) * per_slot)
    assert state / per_slot == pytest.approx(186, abs=4)
    assert as_bytes(b.kv_cache) / 2**30 == pytest.approx(5.00, rel=0.03)
    assert f"holds {round(state / per_slot)} request slots" in b.assumed["kv_cache"]


def test_sglang_before_the_ratio_keeps_one_state_slot_per_running_request():
    b = budget_of("""
        engine: sglang
        engine_version: "0.5.2"
        gpu: {type: RTX 4090, count: 2}
        model: {name: Qwen/Qwen3.5-9B}
        parallel: {tensor: 2}
        serving: {gpu_memory_utilization: 0.8, max_model_len: 262144, max_num_seqs: 62}
    """)
    state = as_bytes(b.usable) - as_bytes(b.weights) - as_bytes(b.kv_cache)
    assert state == pytest.approx(62 * as_bytes(b.kv_state_bytes_per_sequence))


def test_pipeline_parallel_splits_layers():
    pp1 = budget_of("""
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
    """)
    pp2 = pp1.whatif(pipeline_parallel=2)
    assert per_token(pp2) == per_token(pp1) // 2
