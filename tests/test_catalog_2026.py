"""catalog: models served in late 2026 (Gemma 4, Kimi-K2.5, Qwen3.8), checked by hand from their
config.json fields and against engine logs."""

from __future__ import annotations

import pytest
from catalog_entry import architecture

from hbmlint import catalog
from hbmlint.catalog.variants import variant

GIB = 2**30


def test_gemma4_26b_full_attention_layers_cache_their_own_head_shape():
    arch = architecture("google/gemma-4-26B-A4B-it")
    layout = arch.kv_layout(1, 1, 2)
    # 5 full-attention layers: K and V of 2 global KV heads of 512 (num_global_key_value_heads,
    # global_head_dim), bf16
    assert layout.full_per_token == 5 * 2 * 2 * 512 * 2 == 20_480
    # 25 sliding layers of 1024 tokens: K and V of 8 heads of 256
    assert layout.windows == ((1024, 25 * 2 * 8 * 256 * 2),)
    # at TP 2 the 8 local heads split, the 2 global heads split
    assert arch.kv_layout(2, 1, 2).full_per_token == 5 * 2 * 1 * 512 * 2


def test_gemma4_26b_counts_its_dense_mlp_beside_the_experts():
    arch = architecture("google/gemma-4-26B-A4B-it")
    h = 2816
    embed = 262_144 * h  # tied
    sliding = h * 16 * 256 + 2 * h * 8 * 256 + 16 * 256 * h  # q, k and v, o
    full = h * 16 * 512 + 2 * h * 2 * 512 + 16 * 512 * h
    per_layer = 3 * h * 2112 + 128 * 3 * h * 704 + h * 128 + 2 * h  # MLP, experts, router, norms
    text = embed + 25 * sliding + 5 * full + 30 * per_layer + h
    assert arch.parameters - arch.vision_params == text
    assert arch.experts_per_token == 8  # top_k_experts


def test_nvidia_gemma4_26b_nvfp4_keeps_the_dense_mlp_in_bf16():
    # NVIDIA's export ignores every layer's mlp, router and self_attn: only the experts are FP4
    exported = architecture("nvidia/Gemma-4-26B-A4B-NVFP4")
    uniform = variant("RedHatAI/gemma-4-26B-A4B-it-NVFP4")
    assert uniform is not None
    named = catalog.architecture_from_config(uniform.config, uniform.name, uniform.source)
    dense_mlp_gib = 30 * 3 * 2816 * 2112 * (2 - 0.5625) / GIB
    sliding = 2816 * 16 * 256 * 2 + 2 * 2816 * 8 * 256  # q and o, k and v
    full = 2816 * 16 * 512 * 2 + 2 * 2816 * 2 * 512
    attention_gib = (25 * sliding + 5 * full) * (2 - 0.5625) / GIB
    gap = (
        exported.weight_bytes_per_rank(1, 1, exported.quantization).m
        - named.weight_bytes_per_rank(1, 1, named.quantization).m
    ) / GIB
    assert gap == pytest.approx(dense_mlp_gib + attention_gib, rel=1e-3)


def test_redhat_gemma4_26b_nvfp4_read_from_its_name_is_near_what_vllm_loaded():
    # benchmarks/calibration/speculative.yaml vllm-0192-gemma4-26b-a4b-nvfp4-eagle3: vLLM
    # 0.19.2rc1 "Model loading took 15.77 GiB" without the drafter, one GPU
    found = variant("RedHatAI/gemma-4-26B-A4B-it-NVFP4")
    assert found is not None and found.base == "google/gemma-4-26B-A4B-it"
    arch = catalog.architecture_from_config(found.config, found.name, found.source)
    weights = arch.weight_bytes_per_rank(1, 1, arch.quantization).m / GIB
    assert weights == pytest.approx(15.77, rel=0.05)


def test_gemma4_31b_is_dense_with_wider_global_heads():
    arch = architecture("google/gemma-4-31B-it")
    assert not arch.is_moe
    layout = arch.kv_layout(1, 1, 2)
    assert layout.full_per_token == 10 * 2 * 4 * 512 * 2
    assert layout.windows == ((1024, 50 * 2 * 16 * 256 * 2),)


def test_kimi_k25_reads_the_int4_experts_from_text_config():
    k25 = architecture("moonshotai/Kimi-K2.5")
    thinking = architecture("moonshotai/Kimi-K2-Thinking")
    assert k25.quantization == "int4"
    # the same text model; K2.5 adds its MoonViT tower and projector (0.47B in BF16) over 8 ranks
    gap = k25.weight_bytes_per_rank(8, 1, "int4").m - thinking.weight_bytes_per_rank(8, 1, "int4").m
    assert gap == pytest.approx(k25.vision_params * 2 / 8, rel=1e-6)
    # MLA: one 512 + 64 latent per layer on every rank, 61 layers, bf16
    assert k25.kv_layout(8, 1, 2).full_per_token == 61 * 576 * 2
    assert not any("vision tower" in note for note in k25.approximations)


def test_a_name_suffix_is_not_stacked_on_a_model_quantized_in_text_config():
    assert variant("someone/Kimi-K2.5-NVFP4") is None


def test_qwen38_27b_bf16_is_what_vllm_loaded_on_one_gpu():
    # benchmarks/calibration/speculative.yaml vllm-dev0816-qwen38-27b-rocm-mtp1: "Model loading
    # took 51.1 GiB" without the MTP layer
    arch = architecture("Qwen/Qwen3.8-27B")
    assert arch.weight_bytes_per_rank(1, 1, None).m / GIB == pytest.approx(51.1, rel=0.01)


def test_qwen2_vl_tower_is_as_wide_as_embed_dim_and_projects_to_hidden_size():
    # vision_config: embed_dim 1280 is the tower's width, hidden_size 3584 what its merger
    # projects to (transformers' Qwen2VLVisionConfig); the MLP is fc1/fc2 of 4 x 1280
    arch = architecture("Qwen/Qwen2-VL-7B-Instruct")
    width, inner = 1280, 4 * 1280
    layer = 4 * width * width + 2 * width * inner + 4 * width  # qkv, proj, fc1, fc2, norms
    patch = 3 * 2 * 14 * 14 * width
    merger = (4 * width) * (4 * width) + (4 * width) * 3584
    assert arch.vision_params == 32 * layer + patch + merger


def test_nemotron3_ultra_reads_its_named_layers_and_a_latent_moe():
    arch = architecture("nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16")
    assert arch.num_layers == 108  # num_hidden_layers is null: the layers_block_type list
    assert (arch.mixers.count("state"), arch.mixers.count("full")) == (48, 12)
    h, latent = 8192, 2048
    # a MoE layer: 512 ReLU^2 experts (up, down) of 5120 in the 2048 latent, the two latent
    # projections, one shared expert of 10240 on the hidden size, the router
    moe = 512 * 2 * latent * 5120 + 2 * h * latent + 2 * h * 10240 + h * 512
    mamba_inner, groups, state, heads = 256 * 64, 8, 128, 256
    conv = mamba_inner + 2 * groups * state
    mamba = h * (2 * mamba_inner + 2 * groups * state + heads) + conv * 4 + mamba_inner * h
    attention = 2 * h * 64 * 128 + 2 * h * 2 * 128
    layers = 48 * moe + 48 * mamba + 12 * attention + 108 * 2 * h
    assert arch.parameters == layers + 2 * 131_072 * h + h
    assert arch.parameters == pytest.approx(550e9, rel=0.01)  # the 550B of its name


def test_an_fp8_block_upload_of_an_nvidia_bf16_master_is_read_from_its_name():
    found = variant("RedHatAI/NVIDIA-Nemotron-3-Ultra-550B-A55B-FP8-block")
    assert found is not None and found.base == "nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16"
    arch = catalog.architecture_from_config(found.config, found.name, found.source)
    bf16 = architecture("nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16")
    # the linear layers at one byte plus an fp32 scale per 128 x 128 block: about half of BF16
    ratio = arch.weight_bytes_per_rank(8, 1, arch.quantization).m / (
        bf16.weight_bytes_per_rank(8, 1, None).m
    )
    assert 0.5 < ratio < 0.52


def test_kimi_linear_keeps_a_kda_state_per_sequence_and_an_mla_latent_per_token():
    arch = architecture("moonshotai/Kimi-Linear-48B-A3B-Instruct")
    assert (arch.mixers.count("state"), arch.mixers.count("full")) == (20, 7)
    assert arch.mixers[3] == "full" and arch.mixers[26] == "full"  # layers 4 and 27, 1-based
    layout = arch.kv_layout(2, 1, 2)
    # MLA layers: the 512 latent and 64 rope dims in bf16, whole on each rank
    assert layout.full_per_token == 7 * (512 + 64) * 2
    # KDA layers (vLLM kda_state_shape / kda_state_dtype): conv windows of 3 for q, k and v,
    # 32 x 128 wide, in bf16, and a 128 x 128 float32 state per head, split over TP 2
    conv = 3 * 3 * 32 * 128 * 2
    recurrent = 32 * 128 * 128 * 4
    assert layout.state_per_sequence == 20 * (conv + recurrent) // 2
    # a KDA layer's weights: q, k, v, o of 2304 x 4096; f and g gates through 128; beta per
    # head; the conv kernels; dt_bias, A_log and the output norm
    h, proj, dim = 2304, 4096, 128
    kda = 4 * h * proj + 2 * h * dim + 2 * dim * proj + h * 32 + 3 * 4 * proj + proj + 32 + dim
    assert arch.state_mixer_params == kda


# Gemma 4 E2B's text_config as three public copies of its config.json give it (code-search file
# ids 59897965653, 53141176458, 53939116010); the catalog's google/gemma-4-E2B-it holds the same
GEMMA4_E2B = {
    "architectures": ["Gemma4ForConditionalGeneration"],
    "model_type": "gemma4",
    "tie_word_embeddings": True,
    "text_config": {
        "model_type": "gemma4_text",
        "hidden_size": 1536,
        "intermediate_size": 6144,
        "num_hidden_layers": 35,
        "num_attention_heads": 8,
        "num_key_value_heads": 1,
        "head_dim": 256,
        "global_head_dim": 512,
        "attention_k_eq_v": False,
        "vocab_size": 262144,
        "max_position_embeddings": 131072,
        "sliding_window": 512,
        "layer_types": (["sliding_attention"] * 4 + ["full_attention"]) * 7,
        "enable_moe_block": False,
        "hidden_activation": "gelu_pytorch_tanh",
        "hidden_size_per_layer_input": 256,
        "vocab_size_per_layer_input": 262144,
        "num_kv_shared_layers": 20,
        "use_double_wide_mlp": True,
        "tie_word_embeddings": True,
        "dtype": "bfloat16",
    },
}


def test_gemma4_e2b_kv_shared_layers_keep_no_cache_and_per_layer_embeddings_count():
    arch = catalog.architecture_from_config(GEMMA4_E2B, "google/gemma-4-E2B-it", "test")
    layout = arch.kv_layout(1, 1, 2)
    # only the first 15 layers keep KV (vLLM gemma4.py kv_sharing_target_layer_name): 3 full
    # layers of one 512-wide head, 12 sliding layers of one 256-wide head, K and V in bf16
    assert layout.full_per_token == 3 * 2 * 1 * 512 * 2
    assert layout.windows == ((512, 12 * 2 * 1 * 256 * 2),)
    h, ple, layers = 1536, 256, 35
    sliding = h * 8 * 256 * 2 + 2 * h * 1 * 256  # q and o, k and v
    full = h * 8 * 512 * 2 + 2 * h * 1 * 512
    mlp = 3 * h * 6144
    per_layer = 2 * h + 2 * h * ple  # norms; the PLE gate and projection
    text = 28 * sliding + 7 * full + 15 * mlp + 20 * 2 * mlp + layers * per_layer
    text += 262144 * h + 262144 * layers * ple + h * layers * ple + h  # embeddings, PLE, norm
    assert arch.parameters == text


def test_nemotron3_super_fp8_on_one_h100_is_a_weights_refusal_offline(tmp_path):
    """Nemotron 3 Super was an HBM015 warning offline; its 120.7B parameters in FP8 (113.5 GiB)
    do not fit one 80 GB H100, and NVFP4 (64.8 GiB) fits one B200."""
    from test_catalog import _codes, _vllm_deployment

    fp8 = _codes(
        _vllm_deployment(
            tmp_path, "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8", "NVIDIA-H100-80GB-HBM3", 8192
        )
    )
    assert "HBM015" not in fp8
    assert "weights need 113.5" in fp8["HBM101"]
    nvfp4 = _codes(
        _vllm_deployment(
            tmp_path, "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4", "NVIDIA-B200", 8192
        )
    )
    assert "HBM015" not in nvfp4 and "HBM101" not in nvfp4


@pytest.mark.parametrize(
    "model",
    [
        "deepseek-ai/DeepSeek-V4-Pro",
        "sgl-project/DeepSeek-V4-Pro-FP8",
        "deepseek-ai/DeepSeek-V4-Flash",
    ],
)
def test_deepseek_v4_says_its_budget_is_not_checked_instead_of_sending_to_the_hub(tmp_path, model):
    """V4's compressed sparse attention and FP4 experts are not modelled: read as a plain model
    its 128 heads of 512 would give 189 GiB of weights a GPU at TP 8 where SGLang loaded 125.65
    (InferenceX issue #2128), a false refusal. Offline it was HBM015 ('run models pull'); now a
    warning that says why nothing is checked, and no budget finding."""
    from format_helpers import findings
    from test_catalog import _vllm_deployment

    found = findings(_vllm_deployment(tmp_path, model, "NVIDIA-H200", 65536))
    codes = {f["code"]: f for f in found}
    assert "HBM015" not in codes
    assert codes["HBM006"]["severity"] == "warning"
    assert "compressed sparse attention" in codes["HBM006"]["message"]
    assert not any(f["code"].startswith(("HBM1", "HBM2")) for f in found)


# Models real manifests of sweeps 5-9 named that were HBM015 offline ("the Hub cannot be reached")
@pytest.mark.parametrize(
    "model",
    [
        "google/gemma-1.1-2b-it",
        "google/gemma-1.1-7b-it",
        "google/codegemma-1.1-2b",
        "google/codegemma-1.1-7b-it",
        "lmsys/vicuna-13b-v1.5",
        "h2oai/h2ogpt-4096-llama2-7b-chat",
        "Intel/neural-chat-7b-v3-3",
        "EleutherAI/pythia-70m",
        "microsoft/phi-2",
        "deepseek-ai/DeepSeek-V2-Lite",
        "amd/Llama-3.1-70B-Instruct-FP8-KV",
        "Qwen/Qwen3.5-4b",
        "tiiuae/falcon-7b-instruct",
        "Qwen/Qwen1.5-110B-Chat",
        "QuantTrio/Qwen3.5-4B-AWQ",
    ],
)
def test_models_real_manifests_name_are_budgeted_offline(tmp_path, model):
    from test_catalog import _codes, _vllm_deployment

    codes = _codes(_vllm_deployment(tmp_path, model, "NVIDIA-H200", 2048))
    assert "HBM015" not in codes and "HBM006" not in codes


def test_deepseek_coder_v2_is_deepseek_v2s_236b_shape_and_its_fp8_upload_is_read_from_its_name():
    found = variant("neuralmagic/DeepSeek-Coder-V2-Instruct-FP8")
    assert found is not None and found.base == "deepseek-ai/DeepSeek-Coder-V2-Instruct"
    coder = catalog.architecture_from_config(found.config, found.name, found.source)
    assert coder.parameters == pytest.approx(236e9, rel=0.01)  # DeepSeek's published 236B
    assert coder.quantization == "fp8" and coder.is_mla and coder.num_experts == 160


def test_vicuna_13b_in_float16_on_one_l4_is_a_weights_refusal_offline(tmp_path):
    """Vicuna 13B v1.5 is Llama-2-13b (13.0B parameters in float16: 24.2 GiB), more than a 24 GB
    L4 holds; it was an HBM015 warning offline."""
    from test_catalog import _codes, _vllm_deployment

    codes = _codes(_vllm_deployment(tmp_path, "lmsys/vicuna-13b-v1.5", "NVIDIA-L4", 4096))
    assert "HBM015" not in codes
    assert "weights need 24.2" in codes["HBM101"]


def test_minimax_m3_dense_layers_are_dense_intermediate_size_wide_and_its_index_cache_is_noted():
    arch = architecture("MiniMaxAI/MiniMax-M3")
    assert arch.ffns[:4] == ("dense", "dense", "dense", "moe")
    h = 6144
    # the three dense layers' MLP is 12,288 wide (dense_intermediate_size); read as the experts'
    # 3,072 they would lose 3 x 3 x h x 9,216 parameters
    assert arch._ffn_parts("dense")[1] == 3 * h * 12288
    assert arch.parameters == pytest.approx(428e9, rel=0.01)  # its model card: ~428B
    assert any("Sparse Attention" in note for note in arch.approximations)


def test_minimax_m3_mxfp8_upload_is_read_from_its_name_at_8_25_bits():
    found = variant("MiniMaxAI/MiniMax-M3-MXFP8")
    assert found is not None and found.base == "MiniMaxAI/MiniMax-M3"
    mx = catalog.architecture_from_config(found.config, found.name, found.source)
    bf16 = architecture("MiniMaxAI/MiniMax-M3")
    # FP8 and one 8-bit exponent per 32 values: 1.03125 bytes a parameter of the linear layers
    linear = bf16.parameters - 2 * 200064 * 6144
    saved = bf16.weight_bytes_per_rank(1, 1, None).m - mx.weight_bytes_per_rank(1, 1, "mxfp8").m
    assert saved == pytest.approx(linear * (2 - 1.03125), rel=0.01)


def test_llama4_chunked_layers_keep_one_chunk_and_every_fourth_layer_is_global():
    """Llama 4 Scout: 36 layers of chunked local attention over 8,192 tokens (attention_chunk_size)
    and 12 global NoPE layers, every fourth (transformers' default no_rope_layers)."""
    scout = architecture("meta-llama/Llama-4-Scout-17B-16E-Instruct")
    layout = scout.kv_layout(1, 1, 2)
    per_layer = 2 * 8 * 128 * 2  # K and V of 8 KV heads of 128, bf16
    assert layout.full_per_token == 12 * per_layer
    assert layout.windows == ((8192, 36 * per_layer),)
    assert [scout.mixer(i) for i in range(4)] == ["sliding", "sliding", "sliding", "full"]


def _scout(tmp_path, name: str, engine: str) -> dict:
    from format_helpers import budgets, write

    model = "meta-llama/Llama-4-Scout-17B-16E-Instruct"
    if engine.startswith("vllm"):
        image, command = f"vllm/vllm-openai:{engine[4:]}", "vllm serve"
        args = f"{model} --tensor-parallel-size 8 --max-model-len 1000000"
    else:
        image, command = "lmsysorg/sglang:v0.5.9", "python3 -m sglang.launch_server"
        args = f"--model-path {model} --tp 8 --context-length 1000000"
    path = write(
        tmp_path,
        name,
        f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: scout}}
spec:
  template:
    spec:
      nodeSelector: {{nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}}
      containers:
      - name: server
        image: {image}
        command: ["sh", "-c", "{command} {args}"]
        resources: {{limits: {{nvidia.com/gpu: "8"}}}}
""",
    )
    return budgets(path)[0]


def test_vllm_keeps_llama4_chunked_layers_to_a_chunk_from_0_14_only(tmp_path):
    """vLLM turns its hybrid KV cache manager off for chunked local attention unless
    VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE is 1, the default from 0.14.0 (envs.py,
    "0" in the 0.13.0 wheel). At TP 8 each GPU keeps one of the 8 KV heads: 512 bytes a token
    and layer; before 0.14 all 48 layers hold the context, from 0.14 the 12 global ones do and
    the 36 chunked layers a chunk, so four times the tokens fit."""
    old = _scout(tmp_path, "old.yaml", "vllmv0.13.0")
    new = _scout(tmp_path, "new.yaml", "vllmv0.17.0")
    assert old["kv_bytes_per_token"] == 48 * 512
    assert 12 * 512 <= new["kv_bytes_per_token"] < 13 * 512  # plus the chunks' share
    assert new["kv_cache_tokens"] > 3.5 * old["kv_cache_tokens"]


def test_sglang_keeps_every_llama4_layer_whole_without_hybrid_kvcache_ratio(tmp_path):
    sglang = _scout(tmp_path, "sglang.yaml", "sglang")
    assert sglang["engine"] == "sglang"
    assert sglang["kv_bytes_per_token"] == 48 * 512


def test_falcon_kv_heads_are_read_as_vllm_reads_them():
    """vLLM falcon.py: num_kv_heads under new_decoder_architecture (Falcon-40B: 8 of 128 heads),
    one KV head under multi_query (FalconConfig's default; Falcon-7B), else one per head. Read
    as a plain config, Falcon-7B's 71 heads would each keep K and V: 71 times its KV cache."""
    falcon7 = architecture("tiiuae/falcon-7b-instruct")
    assert falcon7.num_kv_heads == 1
    assert falcon7.kv_bytes_per_token_per_rank(1, 1, 2).m == 32 * 2 * 64 * 2
    shape = {"model_type": "falcon", "hidden_size": 8192, "num_hidden_layers": 60}
    shape |= {"num_attention_heads": 128, "vocab_size": 65024}
    forty = {**shape, "new_decoder_architecture": True, "num_kv_heads": 8}
    assert catalog.architecture_from_config(forty, "f40", "test").num_kv_heads == 8
    plain = {**shape, "multi_query": False}
    assert catalog.architecture_from_config(plain, "mha", "test").num_kv_heads == 128


def test_kimi_k3_weights_add_up_to_its_published_size_and_checkpoint():
    arch = architecture("moonshotai/Kimi-K3")
    h, proj = 7168, 96 * 128
    # KDA with a full-rank output gate: q, k, v, g and o of 7168 x 12288 (not Kimi Linear's
    # low-rank g pair); f through 128, beta per head, conv kernels, dt_bias, A_log, o_norm
    kda = 5 * h * proj + h * 128 + 128 * proj + h * 96 + 3 * 4 * proj + proj + 96 + 128
    assert arch.state_mixer_params == kda
    # the routed experts run in the 3584-wide latent: 896 x 3 x 3584 x 3072 a layer
    experts, shared, router = arch._ffn_parts("moe")
    assert experts == 896 * 3 * 3584 * 3072 and shared == 3 * h * 2 * 3072
    assert arch.parameters == pytest.approx(2.8e12, rel=0.01)  # "2.8T"
    # MXFP4 on the experts only (0.53125 bytes each): the 1.45 TB expert set of K3's loaders,
    # and with the rest in BF16 the ~1.56 TB upload
    assert 92 * experts * 0.53125 == pytest.approx(1.45e12, rel=0.01)
    total = arch.weight_bytes_per_rank(1, 1, arch.quantization).m
    assert total == pytest.approx(1.56e12, rel=0.005)
    assert {"attention", "shared_experts", "dense_mlp", "latent_projections"} <= arch.unquantized


def test_kimi_k3_caches_an_mla_latent_on_24_layers_and_a_kda_state_on_69():
    arch = architecture("moonshotai/Kimi-K3")
    layout = arch.kv_layout(8, 1, 2)
    assert layout.full_per_token == 24 * (512 + 64) * 2  # whole on every rank
    # per sequence and rank at TP 8: 12 of the 96 heads' conv windows (bf16) and 128 x 128
    # float32 states; aiconfigurator's KimiK3Model puts one slot at "~54 MB/rank" at TP 8
    per_layer = (3 * 3 * 12 * 128 * 2) + 12 * 128 * 128 * 4
    assert layout.state_per_sequence == 69 * per_layer
    assert layout.state_per_sequence / 2**20 == pytest.approx(54, abs=0.5)


@pytest.mark.parametrize(
    ("gpu", "refused"),
    [("NVIDIA-B300", False), ("NVIDIA-B200", True), ("NVIDIA-H200", True)],
)
def test_kimi_k3_at_tp8_fits_eight_b300_but_not_eight_b200(tmp_path, gpu, refused):
    """191 GiB of weights a GPU at TP 8: InferenceX's K3 recipes say the checkpoint 'does not
    fit one 8xB200 node' and run B200 at TP 8 x PP 2 (srt-slurm-recipes/vllm/kimi-k3/agentic/
    agg-b200-tp8pp2-agentic.yaml); aiconfigurator's K3 anchors run on 8 x B300 at TP 8."""
    from format_helpers import findings

    path = tmp_path / "k3.yaml"
    path.write_text(
        f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: k3}}
spec:
  template:
    spec:
      nodeSelector: {{nvidia.com/gpu.product: {gpu}}}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.24.0
        args: ["--model", "moonshotai/Kimi-K3", "--tensor-parallel-size", "8",
               "--max-model-len", "131072", "--trust-remote-code"]
        resources: {{limits: {{nvidia.com/gpu: "8"}}}}
""",
        encoding="utf-8",
    )
    codes = {f["code"]: f for f in findings(path)}
    assert "HBM015" not in codes  # budgeted offline from the catalog
    assert ("HBM101" in codes) is refused
    if refused:
        assert "191.09 GiB per GPU" in codes["HBM101"]["message"]


def test_qwen3_omni_is_budgeted_as_its_thinker_with_both_towers():
    """The engines load the thinker alone (text model, vision and audio towers): 31.72B is the
    Instruct checkpoint's 35,259,818,545 parameters less its talker (3.32B) and code2wav."""
    arch = architecture("Qwen/Qwen3-Omni-30B-A3B-Instruct")
    assert arch.num_layers == 48 and arch.num_experts == 128 and arch.model_type.startswith("qwen3")
    assert arch.parameters == pytest.approx(31.72e9, rel=0.001)
    # the audio encoder (32 layers of 1280, ffn 5120, a conv stem and two projections, ~0.65B)
    # is counted with the vision tower
    d, ffn = 1280, 5120
    audio_layers = 32 * (4 * (d * d + d) + 2 * d * ffn + ffn + d + 4 * d)
    assert arch.vision_params > audio_layers + 0.5e9  # and a 27-layer ViT with DeepStack mergers
    for name in ("Qwen/Qwen3-Omni-30B-A3B-Thinking", "Qwen/Qwen3-Omni-30B-A3B-Captioner"):
        assert catalog.find_model(name)["id"] == "Qwen/Qwen3-Omni-30B-A3B-Instruct"


def test_qwen3_omni_kv_matches_sglangs_pool_at_tp4():
    """SGLang PR #15909 (Qwen3-Omni-30B-A3B-Instruct, TP 4): 2,090,351 tokens, K 23.92 GB and
    V 23.92 GB a rank (GiB in value; benchmarks/calibration/sglang.yaml's header)."""
    layout = architecture("Qwen/Qwen3-Omni-30B-A3B-Instruct").kv_layout(4, 1, 2)
    assert layout.full_per_token == 48 * 2 * 1 * 128 * 2  # 4 KV heads over 4 ranks
    assert layout.full_per_token * 2_090_351 / GIB == pytest.approx(23.92 * 2, abs=0.01)
