"""Speculative decoding: every method's HBM cost, pinned on hand-computed cases, and the (1 + k)
verification tokens in the budget."""

from __future__ import annotations

import pytest
from helpers import budget_of

from hbmlint.lint import lint_file
from hbmlint.units import Q


def as_bytes(q) -> float:
    return float(q.to("byte").magnitude)


def rope_bytes(arch, dtype_bytes: int = 2) -> int:
    """The RoPE cos/sin buffer the memory model counts with a model's weights (fidelity model:
    positions x rotary dims in the model dtype); 0 where it is not counted."""
    return getattr(arch, "rotary_positions", 0) * getattr(arch, "rotary_dim", 0) * dtype_bytes


def test_draft_model_llama8b_with_1b_draft_at_tp2_draft_tp1(write):
    b = budget_of(
        write,
        """
        gpu: {type: H100, count: 2}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        parallel: {tensor: 2}
        speculative: {method: draft_model, model: meta-llama/Llama-3.2-1B-Instruct,
                      tensor_parallel: 1, num_speculative_tokens: 4}
        """,
    )
    # Llama-3.2-1B whole on each of the 2 ranks: 16 layers x (attention 10,485,760 + MLP
    # 50,331,648 + norms 4,096) + tied embedding 262,668,288 + final norm 2,048
    # = 1,235,814,400 parameters x 2 bytes.
    assert as_bytes(b.draft_weights) == 1_235_814_400 * 2 + rope_bytes(b.resolved.draft)
    # its KV for every token the target holds, unsplit: 16 layers x 2 x 8 heads x 64 x 2 bytes
    assert b.kv_bytes_per_token_draft == Q(32_768, "byte / token")
    # the target's share at TP 2: 32 layers x 2 x 4 heads x 128 x 2 bytes
    assert b.kv_bytes_per_token_target == Q(65_536, "byte / token")
    # capacity: what is left, in whole blocks of 16 tokens at 98,304 bytes a token
    left = as_bytes(b.usable - b.weights - b.draft_weights - b.overhead_total)
    assert b.kv_tokens.magnitude == (left // (98_304 * 16)) * 16
    # the same draft split over both ranks holds half the weights (the embedding is split
    # over the vocabulary) and half the KV heads
    split = b.whatif(draft_tensor_parallel=2)
    assert split.kv_bytes_per_token_draft == Q(16_384, "byte / token")
    assert as_bytes(split.draft_weights) < 0.55 * as_bytes(b.draft_weights)


def test_eagle3_head_for_a_70b_target(write):
    b = budget_of(
        write,
        """
        gpu: {type: H200}
        model: {name: meta-llama/Llama-3.3-70B-Instruct}
        speculative: {method: eagle3, model: lmsys/sglang-EAGLE3-LLaMA3.3-Instruct-70B,
                      num_speculative_tokens: 3}
        """,
    )
    h = 8192
    attention = 2 * h * h + 2 * (2 * h * 1024) + h * h  # q, k, v read 2h: [embedding; fused]
    mlp = 3 * h * 28_672
    norms = 4 * h  # input, hidden and post-attention norms, and the final norm
    fc = 3 * h * h  # fuses the target's low, middle and high hidden states
    lm_head = 32_000 * h  # the reduced draft vocabulary; the embedding is the target's
    params = attention + mlp + norms + fc + lm_head
    assert params == 1_403_027_456
    # (no RoPE buffer of its own: heads share the target's)
    assert as_bytes(b.draft_weights) == params * 2
    # one decoder layer of KV: 2 x 8 heads x 128 x 2 bytes, beside the target's 80 layers
    assert b.kv_bytes_per_token_draft == Q(4_096, "byte / token")
    assert b.kv_bytes_per_token_target == Q(327_680, "byte / token")


def test_eagle1_head_shares_the_lm_head(write):
    b = budget_of(
        write,
        """
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        speculative: {method: eagle, model: yuhuili/EAGLE-LLaMA3.1-Instruct-8B,
                      num_speculative_tokens: 3}
        """,
    )
    h = 4096
    layer = 2 * h * h + 2 * h * 1024 + 3 * h * 14_336 + 2 * h + h  # layer, its norms, final
    fc = 2 * h * h
    expected = (layer + fc) * 2  # float16 head; embeddings, lm_head and RoPE are the target's
    assert as_bytes(b.draft_weights) == expected


def test_medusa_heads_are_weights_only(write):
    b = budget_of(
        write,
        """
        gpu: {type: A100-80GB}
        model: {name: HuggingFaceH4/zephyr-7b-beta}
        speculative: {method: medusa, model: FasterDecoding/medusa-1.0-zephyr-7b-beta,
                      num_speculative_tokens: 3}
        """,
    )
    # 3 heads on the target's hidden state: a 4096 x 4096 residual block with bias and an
    # lm_head over the 32,000-token vocabulary each, in bfloat16; no attention, no KV
    per_head = (4096 * 4096 + 4096) + 4096 * 32_000
    assert as_bytes(b.draft_weights) == 3 * per_head * 2 == 887_119_872
    assert b.kv_bytes_per_token_draft.magnitude == 0


@pytest.mark.parametrize("method", ["ngram", "prompt_lookup", "suffix", "lookahead"])
def test_weightless_drafters_cost_zero_bytes(write, method):
    spec = """
        engine_version: "0.11.0"
        gpu: {type: L4}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving: {max_model_len: 8192}
        speculative: {method: %s, num_speculative_tokens: 3}
    """
    b = budget_of(write, spec % method)
    none = budget_of(write, spec.replace("method: %s, num_speculative_tokens: 3", "method: none"))
    assert as_bytes(b.draft_weights) == 0
    assert b.kv_bytes_per_token_draft.magnitude == 0
    # k = 3 stays below the sampler's own peak of vLLM 0.11 (39 bytes a logit)
    assert b.kv_tokens == none.kv_tokens


def test_mtp_layers_come_from_the_target_checkpoint(write):
    spec = """
        gpu: {type: H200, count: 8}
        model: {name: deepseek-ai/DeepSeek-V3}
        serving: {max_model_len: 32768, kv_cache_dtype: fp8}
        speculative: {method: %s}
    """
    off = budget_of(write, spec % "none")
    on = budget_of(write, spec % "mtp")
    # one MLA + MoE layer (about 11.7 B parameters, FP8 experts split over 8 ranks) with
    # embeddings and lm_head shared: about 1.5 GiB a GPU, loaded only when MTP is on
    assert as_bytes(off.draft_weights) == 0
    assert 1.2 < as_bytes(on.draft_weights) / 2**30 < 1.9
    # its KV: one latent layer of 512 + 64 values in fp8, whole on every rank
    assert on.kv_bytes_per_token_draft == Q(576, "byte / token")
    assert on.kv_tokens < off.kv_tokens


def test_early_exit_costs_no_weights_and_a_little_kv(write):
    b = budget_of(
        write,
        """
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        speculative: {method: layerskip, num_speculative_tokens: 4}
        """,
    )
    assert b.settings.speculative_method == "early_exit"  # the alias
    assert as_bytes(b.draft_weights) == 0
    # the exit layer's query cache: one hidden vector (4096 x 2 bytes) per token
    assert b.kv_bytes_per_token_draft == Q(8_192, "byte / token")
    assert b.kv_bytes_per_token_draft < 0.07 * b.kv_bytes_per_token_target


def test_offloaded_draft_holds_no_hbm_for_weights_but_keeps_its_kv(write):
    spec = """
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-70B-Instruct, quantization: fp8}
        serving: {max_model_len: 8192, gpu_memory_utilization: 0.95}
        speculative: {method: draft_model, model: meta-llama/Llama-3.1-8B-Instruct,
                      num_speculative_tokens: 4, tensor_parallel: 1%s}
    """
    resident = budget_of(write, spec % "")
    offloaded = budget_of(write, spec % ", offload: true")
    assert as_bytes(offloaded.draft_weights) == 0
    assert offloaded.draft_host_weights == resident.draft_weights
    assert offloaded.kv_bytes_per_token_draft == resident.kv_bytes_per_token_draft
    assert as_bytes(offloaded.weights) < as_bytes(offloaded.usable)  # now it starts


def test_draft_kv_dtype_and_quantization_follow_the_drafts_own_settings(write):
    spec = """
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        speculative: {method: draft_model, model: meta-llama/Llama-3.2-1B-Instruct,
                      num_speculative_tokens: 4%s}
    """
    plain = budget_of(write, spec % "")
    fp8_kv = budget_of(write, spec % ", kv_cache_dtype: fp8")
    fp8_weights = budget_of(write, spec % ", quantization: fp8")
    assert fp8_kv.kv_bytes_per_token_draft * 2 == plain.kv_bytes_per_token_draft
    assert fp8_kv.kv_bytes_per_token_target == plain.kv_bytes_per_token_target  # target's own
    assert fp8_kv.kv_tokens > plain.kv_tokens
    assert as_bytes(fp8_weights.draft_weights) < 0.7 * as_bytes(plain.draft_weights)
    assert fp8_weights.weights == plain.weights


def test_verification_tokens_count_in_the_batch_and_the_sampler_peak(write):
    spec = """
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving: {max_num_seqs: 256, max_num_batched_tokens: 2048}
        speculative: {method: ngram, num_speculative_tokens: %d}
    """
    small, large = budget_of(write, spec % 3), budget_of(write, spec % 8)
    assert small.verify_tokens == 256 * 4
    assert large.verify_tokens == 256 * 9
    # vLLM's profile gives each request one draft token whatever k: the rejection sampler
    # holds two rows of bf16 logits a request on top of the plain sampler's 14 bytes a logit,
    # 256 x 128,256 x 18 bytes for k = 3 and k = 8 alike
    assert as_bytes(large.overhead["activation"]) == pytest.approx(256 * 128_256 * 18)
    assert small.overhead["activation"] == large.overhead["activation"]


def test_argv_speculative_config_reads_the_drafts_kv_dtype_and_context(write):
    path = write(
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: spec}
        spec:
          template:
            spec:
              nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
              containers:
              - name: vllm
                image: vllm/vllm-openai:v0.11.0
                command: [vllm, serve, meta-llama/Llama-3.1-8B-Instruct]
                args:
                - --speculative-config
                - >-
                  {"method": "draft_model", "model": "meta-llama/Llama-3.2-1B-Instruct",
                  "num_speculative_tokens": 4, "kv_cache_dtype": "fp8", "max_model_len": 4096}
                resources: {limits: {nvidia.com/gpu: "1"}}
        """
    )
    [item] = lint_file(path, path.name, []).deployments
    spec = item.deployment.speculative
    assert spec.kv_cache_dtype == "fp8" and spec.max_model_len == 4096
    assert item.budget.kv_bytes_per_token_draft == Q(16_384, "byte / token")


# ------------------------------------------------------------- heads as engines load them


def eagle_budget(write, method: str, head: str, version: str | None):
    release = f"engine: vllm\nengine_version: '{version}'\n" if version else "engine: vllm\n"
    return budget_of(
        write,
        release
        + f"""
        gpu: {{type: H100, count: 1}}
        model: {{name: meta-llama/Llama-3.1-8B-Instruct}}
        serving: {{max_model_len: 8192}}
        speculative: {{method: {method}, model: {head}, num_speculative_tokens: 3}}
        """.replace("\n        ", "\n"),
    )


@pytest.mark.parametrize(
    ("version", "embedding_loaded"),
    [("0.8.5", True), ("0.10.1", False), ("0.12.0", False), (None, False)],
)
def test_a_head_that_stores_the_embedding_counts_it_only_where_the_engine_loads_it(
    write, version, embedding_loaded
):
    # SafeAILab's EAGLE-1 head stores a frozen copy of Llama 3's embedding (catalog `stores`):
    # vLLM loaded it before 0.9.1, shared the target's from 0.9.1, and from 0.12 shares it
    # when equal (a copy of the target's shape is taken as equal; the budget says so)
    b = eagle_budget(write, "eagle", "yuhuili/EAGLE-LLaMA3.1-Instruct-8B", version)
    embedding = 128_256 * 4096 * 2
    layers = eagle_budget(write, "eagle", "yuhuili/EAGLE-LLaMA3.1-Instruct-8B", "0.10.1")
    extra = as_bytes(b.draft_weights) - as_bytes(layers.draft_weights)
    assert extra == (embedding if embedding_loaded else 0)
    note = b.assumed["draft_weights"]
    assert ("counted" in note and "not counted" not in note) == embedding_loaded
    if version in (None, "0.12.0"):
        assert "0.98 GiB more per GPU" in note  # what a head with its own would cost


def test_qwen35_mtp_layer_weighs_what_vllm_loaded(write):
    # nvidia/Qwen3.6-27B-NVFP4 on vLLM 0.23.1rc1 (DGX Spark): "Model loading took 19.78 GiB"
    # without MTP and 20.57 GiB with it, the same settings otherwise
    # (benchmarks/calibration/speculative.yaml): the MTP layer, left in bfloat16, 0.79 GiB.
    # Qwen3.6-27B has Qwen3.5-27B's shape; its gated attention makes q_proj twice as wide.
    b = budget_of(
        write,
        """
        gpu: {type: H100, count: 1}
        model: {name: Qwen/Qwen3.5-27B}
        serving: {max_model_len: 8192}
        speculative: {method: mtp, num_speculative_tokens: 2}
        """,
    )
    assert as_bytes(b.draft_weights) / 2**30 == pytest.approx(0.79, abs=0.01)


def test_qwen35_9b_mtp_layer_weighs_what_vllm_020_loaded(write):
    # Qwen/Qwen3.5-9B on one RTX 5090, vLLM 0.20.0: "Model loading took 17.66 GiB" without
    # --speculative-config and 18.12 GiB with MTP, the same command otherwise
    # (vllm-0200-qwen35-9b-rtx5090-mtp1, a validation record): 0.46 GiB, rounded
    b = budget_of(
        write,
        """
        gpu: {type: RTX 5090, count: 1}
        engine_version: "0.20.0"
        model: {name: Qwen/Qwen3.5-9B}
        serving: {max_model_len: 4096, gpu_memory_utilization: 0.85}
        speculative: {method: mtp, num_speculative_tokens: 1}
        """,
    )
    assert as_bytes(b.draft_weights) / 2**30 == pytest.approx(0.46, abs=0.015)


def test_eagle3_head_without_an_embedding_of_its_own(write):
    # AngelSlim/Qwen3-4B_eagle3 on vLLM 0.28 (one RTX 4090): 7.97 GiB loaded with the head,
    # 7.56 without (vllm-028-qwen3-4b-eagle3-4090-wsl): a layer of 2 x 2560 inputs, the fc of
    # 3 x 2560 and a 32,000-row lm_head, on the target's embedding
    b = budget_of(
        write,
        """
        gpu: {type: RTX 4090, count: 1}
        engine_version: "0.28.0"
        model: {name: Qwen/Qwen3-4B}
        serving: {max_model_len: 4096, gpu_memory_utilization: 0.9, max_num_seqs: 64}
        speculative: {method: eagle3, model: AngelSlim/Qwen3-4B_eagle3, num_speculative_tokens: 3}
        """,
    )
    assert as_bytes(b.draft_weights) / 2**30 == pytest.approx(0.41, abs=0.01)


def test_mtp_layers_a_quantized_export_leaves_in_16_bits_are_counted_so():
    # ModelOpt NVFP4 exports of Qwen3.5/3.6 list `ignore: ["mtp*"]`: the MTP layer stays in
    # bfloat16 while the target's MLPs are 4-bit (the 0.79 GiB vLLM loads for it)
    from dataclasses import replace

    from hbmlint import catalog
    from hbmlint.budget import mtp_cost

    fmt, parts, _ = catalog.checkpoint_format(
        {"quant_method": "modelopt", "quant_algo": "NVFP4", "ignore": ["lm_head", "mtp*"]}
    )
    assert "mtp" in parts
    entry = catalog.find_model("Qwen/Qwen3.5-27B")
    arch = catalog.architecture_from_config(entry["config"], "q", "test")
    dense, _ = mtp_cost(arch, 1, None, "bfloat16", 1)
    quantized = replace(arch, weight_format=fmt, quantization="nvfp4")
    four_bit, _ = mtp_cost(quantized, 1, "nvfp4", "bfloat16", 1)
    kept, _ = mtp_cost(replace(quantized, unquantized=parts), 1, "nvfp4", "bfloat16", 1)
    assert four_bit < 0.5 * dense
    assert kept == dense


def test_sglang_draft_worker_loads_the_heads_stored_embedding(write):
    # SGLang's draft worker loads what the head stores before it sets the target's embedding on
    # it; its log counts the copy: "Load weight end. type=LlamaForCausalLMEagle3, ... mem
    # usage=1.77 GB" for this head on the docs CI (benchmarks/calibration/sglang.yaml)
    b = budget_of(
        write,
        """
        engine: sglang
        engine_version: 0.4.4
        gpu: {type: H100, count: 1}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving: {max_model_len: 8192}
        speculative: {method: eagle3, model: jamesliu1/sglang-EAGLE3-Llama-3.1-Instruct-8B,
                      num_speculative_tokens: 5}
        """,
    )
    assert as_bytes(b.draft_weights) / 2**30 == pytest.approx(1.77, abs=0.01)
    assert "own embed_tokens counted" in b.assumed["draft_weights"]


# --------------------------------------- SGLang's EAGLE-1 lm_head and the FR-Spec token map

FRSPEC_POD = """\
apiVersion: v1
kind: Pod
metadata: {{name: frspec}}
spec:
  nodeSelector: {{nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}}
  containers:
  - name: sglang
    image: lmsysorg/sglang:v0.4.4
    args: [python3, -m, sglang.launch_server, --model-path, meta-llama/Meta-Llama-3-8B-Instruct,
      --speculative-algorithm, EAGLE, --speculative-draft-model-path,
      {head}, --speculative-num-steps, "5",
      --mem-fraction-static, "0.7", --dtype, float16{extra}]
    resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""


def sglang_eagle_pod(write, extra: str = "", head: str = "lmsys/sglang-EAGLE-LLaMA3-Instruct-8B"):
    path = write(FRSPEC_POD.format(extra=extra, head=head))
    result = lint_file(path, path.name, [])
    [item] = result.deployments
    assert item.budget is not None, result.diagnostics
    return item.budget


def test_sglang_token_map_sizes_the_eagle_heads_lm_head_at_the_hot_vocabulary(write):
    # SGLang's docs CI, FR-Spec cell (benchmarks/calibration/sglang.yaml): "Load weight end.
    # type=LlamaForCausalLMEagle, dtype=torch.float16, ... mem usage=1.70 GB" with
    # --speculative-token-map thunlp/LLaMA3-Instruct-8B-FR-Spec/freq_32768.pt: the layer, fc and
    # embedding, and an lm_head of 32,768 rows (0.25 GiB), not of the 128,256-token vocabulary
    mapped = sglang_eagle_pod(
        write, ", --speculative-token-map, thunlp/LLaMA3-Instruct-8B-FR-Spec/freq_32768.pt"
    )
    assert as_bytes(mapped.draft_weights) / 2**30 == pytest.approx(1.70, abs=0.01)
    assert "32,768 tokens, 0.25 GiB" in mapped.assumed["draft_weights"]
    assert "freq_32768.pt" in mapped.assumed["speculative.hot_vocab_size"]
    # without a map the head builds an lm_head over the whole vocabulary before it takes the
    # target's: 128,256 x 4,096 x 2 B more than the 32,768-row one
    whole = sglang_eagle_pod(write)
    extra = as_bytes(whole.draft_weights) - as_bytes(mapped.draft_weights)
    assert extra == (128_256 - 32_768) * 4096 * 2
    assert "whole vocabulary (128,256 tokens" in whole.assumed["draft_weights"]


def test_sglang_token_map_of_unknown_size_counts_the_whole_vocabulary(write):
    b = sglang_eagle_pod(write, ", --speculative-token-map, /maps/hot_tokens.pt")
    whole = sglang_eagle_pod(write)
    assert b.draft_weights == whole.draft_weights
    assert "size is not known" in b.assumed["draft_weights"]
    assert "speculative.hot_vocab_size" not in b.assumed


def test_native_hot_vocab_size_and_eagle3_ignoring_the_map(write):
    spec = """
        engine: sglang
        engine_version: 0.4.4
        gpu: {{type: H100, count: 1}}
        model: {{name: meta-llama/Llama-3.1-8B-Instruct}}
        serving: {{max_model_len: 8192}}
        speculative: {{method: {method}, model: {head}, num_speculative_tokens: 5,
                      hot_vocab_size: 16384}}
        """
    eagle = budget_of(write, spec.format(method="eagle", head="yuhuili/EAGLE-LLaMA3.1-Instruct-8B"))
    assert "16,384 tokens, 0.12 GiB" in eagle.assumed["draft_weights"]
    # EAGLE-3 heads carry their own draft vocabulary; SGLang warns and ignores the map
    eagle3 = budget_of(
        write,
        spec.format(method="eagle3", head="jamesliu1/sglang-EAGLE3-Llama-3.1-Instruct-8B"),
    )
    assert as_bytes(eagle3.draft_weights) / 2**30 == pytest.approx(1.77, abs=0.01)
    assert "ignores --speculative-token-map" in eagle3.assumed["draft_weights"]


@pytest.mark.parametrize(
    ("path", "size"),
    [
        ("thunlp/LLaMA3-Instruct-8B-FR-Spec/freq_32768.pt", 32768),
        ("/models/fr-spec/freq_8192.pt", 8192),
        ("/maps/hot_tokens.pt", None),
        ("/maps/v2/", None),
    ],
)
def test_token_map_size_is_read_from_the_file_name_only_where_it_gives_one(path, size):
    from hbmlint.engines.sglang import token_map_vocab

    assert token_map_vocab(path) == size


def test_sglang_counts_the_embedding_it_builds_a_head_that_stores_none(write, tmp_path):
    # SGLang's EAGLE-3 head class builds embed_tokens (vocab x hidden) whatever the checkpoint
    # holds (llama_eagle3.py); a head known only by its config.json gets it counted there,
    # where on vLLM it uses the target's
    import json

    head = {
        "architectures": ["LlamaForCausalLMEagle3"],
        "model_type": "llama",
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "num_hidden_layers": 1,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "vocab_size": 128256,
        "draft_vocab_size": 32000,
        "max_position_embeddings": 2048,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
    }
    (tmp_path / "head").mkdir()
    (tmp_path / "head" / "config.json").write_text(json.dumps(head))
    spec = """
        engine: {engine}
        gpu: {{type: H100, count: 1}}
        model: {{name: meta-llama/Llama-3.1-8B-Instruct}}
        serving: {{max_model_len: 8192}}
        speculative: {{method: eagle3, config: head/config.json, num_speculative_tokens: 3}}
        """
    vllm = budget_of(write, spec.format(engine="vllm"))
    sglang = budget_of(write, spec.format(engine="sglang"))
    assert as_bytes(sglang.draft_weights) - as_bytes(vllm.draft_weights) == 128_256 * 4096 * 2
    assert "own embed_tokens counted (0.98 GiB per GPU)" in sglang.assumed["draft_weights"]


def test_sglang_mtp_draft_counts_the_embedding_and_lm_head_it_builds(write):
    # SGLang's MTP (NextN) draft builds an embed_tokens and an lm_head of its own and takes the
    # target's only after the KV pool is sized. sgl-project/sglang#32468 (v0.5.19, a
    # Qwen3.5-27B-shaped AutoRound INT4 model at TP 2): "Load weight end.
    # type=Qwen3_5ForCausalLMMTP, quant=auto-round, bits=4, mem usage=2.57 GB", 2 x 124,160 x
    # 5,120 x 2 B of it the two tensors. vLLM shares the target's: no such bytes there.
    spec = """
        engine: {engine}
        gpu: {{type: RTX-3090, count: 2}}
        model: {{name: Qwen/Qwen3.5-27B, quantization: int4}}
        parallel: {{tensor: 2}}
        serving: {{max_model_len: 8192}}
        speculative: {{method: mtp, num_speculative_tokens: 4}}
        """
    sglang = budget_of(write, spec.format(engine="sglang"))
    vllm = budget_of(write, spec.format(engine="vllm"))
    tensors = 2 * 248_320 * 5120 * 2 / 2
    assert as_bytes(sglang.draft_weights) - as_bytes(vllm.draft_weights) == tensors
    assert as_bytes(sglang.draft_weights) / 2**30 == pytest.approx(2.57, abs=0.03)
    assert "own embed_tokens and lm_head counted (2.37 GiB" in sglang.assumed["draft_weights"]
