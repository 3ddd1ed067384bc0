"""catalog: towers and models added in sessions 12 and 14 (MoonViT, and models real manifests name
or teams deploy), each checked against a published figure."""

from __future__ import annotations

import pytest
from catalog_entry import architecture, vllm_deployment

from hbmlint import catalog
from hbmlint.catalog.variants import variant

GIB = 2**30


def test_kimi_k25_moonvit_encoder_is_the_400m_of_its_model_card():
    # Kimi-K2.5's model card: "Parameters of Vision Encoder: 400M" (a copy at haimaker.ai/models/
    # moonshotai/kimi-k2.5). The tower: 27 LayerNorm blocks of 1152 (wqkv, wo with biases, an MLP
    # of 4304), a 14 x 14 patch embedding and a 64 x 64 position grid
    width, inter = 1152, 4304
    block = 4 * width * width + 4 * width + 2 * width * inter + inter + width + 4 * width
    encoder = 27 * block + 3 * 14 * 14 * width + width + 64 * 64 * width + 2 * width
    assert encoder == pytest.approx(400e6, rel=0.05)
    # the patch merger: a LayerNorm, then 4608 -> 4608 -> 7168 with biases
    projector = 2 * width + 4608 * 4608 + 4608 + 4608 * 7168 + 7168
    assert architecture("moonshotai/Kimi-K2.5").vision_params == encoder + projector


def test_kimi_k3_moonvit3d_is_counted_without_biases_and_with_a_wider_qkv():
    # lablup/mlxcel issue #1342: 27 RMSNorm blocks, a fused wqkv over a 1536-wide qkv space,
    # a learned 64 x 64 position grid, patchmergerv2 Linear(4096, 4096) -> Linear(4096, 7168)
    # -> RMSNorm; the config says attn_bias, linear_bias and patch_embed_proj_bias false
    width, qkv, inter = 1024, 1536, 4096
    block = 3 * width * qkv + qkv * width + 2 * width * inter + 2 * width
    encoder = 27 * block + 3 * 14 * 14 * width + 64 * 64 * width + width
    projector = 4096 * 4096 + 4096 * 7168 + 7168
    arch = architecture("moonshotai/Kimi-K3")
    assert arch.vision_params == encoder + projector
    # "MoonViT-V2 - 401M param vision encoder" (1bit-MONSTER/1bit-MONSTER PR #1050)
    assert encoder == pytest.approx(401e6, rel=0.002)
    assert not arch.approximations  # no "tower not read" note any more


def test_kimi_k26_and_k27_code_are_budgeted_as_k25():
    # the same text and vision configs and native INT4 experts: K2.7-Code an alias of K2.5, K2.6
    # an entry of its own on K2.5's fields (its config.json is not known to be K2.5's byte for byte)
    k25 = catalog.find_model("moonshotai/Kimi-K2.5")
    entry = catalog.find_model("moonshotai/Kimi-K2.7-Code")
    assert entry is not None and entry["id"] == "moonshotai/Kimi-K2.5"
    k26 = catalog.find_model("moonshotai/Kimi-K2.6")
    assert k26 is not None and k26["id"] == "moonshotai/Kimi-K2.6"
    assert k26["config"] == k25["config"]


def test_nvidia_kimi_k26_nvfp4_keeps_shared_experts_and_the_dense_layer_in_bf16():
    # the K2.6 / K2.7-Code exports ignore layer 0 and every mlp.shared_experts; the K2.5 export
    # quantized both: 60 shared experts of 3 x 7168 x 2048 and layer 0's MLP of 18432
    k26 = architecture("nvidia/Kimi-K2.6-NVFP4")
    k25 = architecture("nvidia/Kimi-K2.5-NVFP4")
    kept = 60 * 3 * 7168 * 2048 + 3 * 7168 * 18432
    gap = k26.weight_bytes_per_rank(8, 1, "nvfp4").m - k25.weight_bytes_per_rank(8, 1, "nvfp4").m
    assert gap == pytest.approx(kept * (2 - 0.5625) / 8, rel=0.01)
    assert catalog.find_model("nvidia/Kimi-K2.7-Code-NVFP4")["id"] == "nvidia/Kimi-K2.6-NVFP4"


def test_nemotron_nano_9b_v2_caches_kv_on_four_layers_and_fits_an_a10g_at_128k(tmp_path):
    """Its model card: distilled 'to run inference at the full 128K context on one A10G in
    bfloat16'. 27 Mamba-2 layers keep a state, 4 attention layers a KV cache (8 heads of 128)."""
    from format_helpers import findings

    arch = architecture("nvidia/NVIDIA-Nemotron-Nano-9B-v2")
    assert (arch.mixers.count("state"), arch.mixers.count("full")) == (27, 4)
    assert arch.kv_layout(1, 1, 2).full_per_token == 4 * 2 * 8 * 128 * 2
    path = tmp_path / "nano.yaml"
    path.write_text(
        """apiVersion: apps/v1
kind: Deployment
metadata: {name: nano}
spec:
  template:
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-A10G}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.11.0
        args: ["--model", "nvidia/NVIDIA-Nemotron-Nano-9B-v2", "--max-model-len", "131072",
               "--trust-remote-code"]
        resources: {limits: {nvidia.com/gpu: "1"}}
""",
        encoding="utf-8",
    )
    found = findings(path)
    codes = {f["code"] for f in found}
    assert "HBM015" not in codes  # budgeted offline
    assert not [f for f in found if f["severity"] == "error"]


def test_seed_oss_36b_defaults_to_a_512k_context_that_one_h100_cannot_hold(tmp_path):
    """64 layers of 8 KV heads of 128: 256 KiB a token in BF16, so vLLM's default max_model_len
    (524,288, the config's positions) needs 128 GiB of KV cache for one sequence."""
    from format_helpers import findings

    arch = architecture("ByteDance-Seed/Seed-OSS-36B-Instruct")
    assert arch.kv_layout(1, 1, 2).full_per_token == 64 * 2 * 8 * 128 * 2
    assert arch.max_position_embeddings == 524_288
    path = tmp_path / "seed.yaml"
    path.write_text(
        """apiVersion: apps/v1
kind: Deployment
metadata: {name: seed}
spec:
  template:
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.11.0
        args: ["--model", "ByteDance-Seed/Seed-OSS-36B-Instruct", "--tensor-parallel-size", "2"]
        resources: {limits: {nvidia.com/gpu: "2"}}
""",
        encoding="utf-8",
    )
    codes = {f["code"] for f in findings(path)}
    assert "HBM015" not in codes and "HBM102" in codes


def test_ernie45_routes_layers_1_to_27_through_64_experts_and_two_shared():
    arch = architecture("baidu/ERNIE-4.5-21B-A3B-PT")
    assert arch.ffns == ("dense",) + ("moe",) * 27
    assert (arch.num_experts, arch.experts_per_token) == (64, 6)  # moe_num_experts, moe_k
    h = 2560
    experts, shared, router = arch._ffn_parts("moe")
    assert experts == 64 * 3 * h * 1536 and shared == 3 * h * 2 * 1536
    # 21.8B in all, as a KV planner's fixture of this model counts it
    assert arch.parameters == pytest.approx(21.8e9, rel=0.002)


def test_ernie45_end_index_leaves_the_last_layers_dense():
    # moe_layer_end_index is inclusive; -1 means the last layer (vLLM ernie45_moe.py)
    shape = {
        "model_type": "ernie4_5_moe",
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_hidden_layers": 6,
        "num_attention_heads": 4,
        "vocab_size": 100,
        "moe_num_experts": 4,
        "moe_intermediate_size": 32,
        "moe_layer_start_index": 1,
        "moe_layer_end_index": 3,
        "moe_layer_interval": 1,
    }
    arch = catalog.architecture_from_config(shape, "toy", "test")
    assert arch.ffns == ("dense", "moe", "moe", "moe", "dense", "dense")
    every = catalog.architecture_from_config({**shape, "moe_layer_end_index": -1}, "toy", "test")
    assert every.ffns == ("dense",) + ("moe",) * 5


def test_glm47_flash_caches_one_mla_latent_a_layer():
    arch = architecture("zai-org/GLM-4.7-Flash")
    # 47 layers of a 512 + 64 latent in BF16, the same on every rank
    assert arch.kv_layout(1, 1, 2).full_per_token == 47 * (512 + 64) * 2
    assert arch.kv_layout(4, 1, 2).full_per_token == 47 * (512 + 64) * 2
    assert arch.ffns == ("dense",) + ("moe",) * 46
    # cyankiwi's AWQ upload of it is read from its name
    found = variant("cyankiwi/GLM-4.7-Flash-AWQ-4bit")
    assert found is not None and found.base == "zai-org/GLM-4.7-Flash"


def test_abliterated_uploads_are_budgeted_as_the_model_they_name():
    found = variant("huihui-ai/Huihui-Qwen3.6-27B-abliterated")
    assert found is not None and found.base == "Qwen/Qwen3.5-27B" and found.weights == ""
    assert variant("huihui-ai/Huihui-Nonexistent-9B-abliterated") is None


def test_intel_autoround_uploads_are_int4_in_groups_of_128():
    found = variant("Intel/Qwen3.5-122B-A10B-int4-AutoRound")
    assert found is not None and found.base == "Qwen/Qwen3.5-122B-A10B"
    quantized = catalog.architecture_from_config(found.config, found.name, found.source)
    assert quantized.quantization == "int4"
    gptq = variant("Qwen/Qwen3.5-122B-A10B-GPTQ-Int4")
    assert gptq is not None
    same = catalog.architecture_from_config(gptq.config, gptq.name, gptq.source)
    # the same bytes as a GPTQ INT4 upload of group 128
    assert quantized.weight_bytes_per_rank(1, 1, "int4").m == pytest.approx(
        same.weight_bytes_per_rank(1, 1, same.quantization).m, rel=1e-6
    )


def test_qwen3_vl_30b_thinking_is_the_instruct_shape():
    entry = catalog.find_model("Qwen/Qwen3-VL-30B-A3B-Thinking")
    assert entry is not None and entry["id"] == "Qwen/Qwen3-VL-30B-A3B-Instruct"


def test_qwen3_embedding_models_are_their_base_with_a_shorter_context():
    small = architecture("Qwen/Qwen3-Embedding-0.6B")
    base = architecture("Qwen/Qwen3-0.6B")
    assert small.max_position_embeddings == 32_768  # the base has 40,960
    assert small.kv_layout(1, 1, 2).full_per_token == base.kv_layout(1, 1, 2).full_per_token
    # 267 fewer vocabulary rows (151,669 against 151,936), tied: the only weights that differ
    assert base.parameters - small.parameters == (151_936 - 151_669) * 1024
    # an unsloth copy of the 4B is read as a plain copy
    found = variant("unsloth/Qwen3-Embedding-4B")
    assert found is not None and found.base == "Qwen/Qwen3-Embedding-4B"


def test_qwen25_base_models_accept_131072_tokens_where_the_instruct_models_take_32768():
    for size in ("1.5B", "7B", "14B", "32B", "72B"):
        base = architecture(f"Qwen/Qwen2.5-{size}")
        instruct = architecture(f"Qwen/Qwen2.5-{size}-Instruct")
        assert (base.max_position_embeddings, instruct.max_position_embeddings) == (131_072, 32_768)
        assert base.parameters == instruct.parameters


@pytest.mark.parametrize(
    ("name", "entry"),
    [
        ("microsoft/Phi-3-mini-128k-instruct", "microsoft/Phi-3.5-mini-instruct"),
        ("Qwen/QwQ-32B-Preview", "Qwen/Qwen2.5-32B-Instruct"),
        ("Qwen/Qwen2.5-Coder-1.5B", "Qwen/Qwen2.5-Coder-1.5B-Instruct"),
    ],
)
def test_checkpoints_of_a_catalog_shape_are_read_as_it(name, entry):
    found = catalog.find_model(name)
    assert found is not None and found["id"] == entry


def test_qwq_preview_keeps_32768_positions_where_qwq_has_131072():
    assert architecture("Qwen/QwQ-32B-Preview").max_position_embeddings == 32_768
    assert architecture("Qwen/QwQ-32B").max_position_embeddings == 131_072


def _nano_deployment(tmp_path, model: str, gpu: str, max_len: int = 131072) -> object:
    return vllm_deployment(
        tmp_path,
        model,
        gpu,
        "--max-model-len",
        str(max_len),
        "--trust-remote-code",
        name="nano",
        file=gpu,
    )


def test_nemotron_nano_12b_v2_is_what_had_to_be_pruned_to_fit_an_a10g(tmp_path):
    """The Nano 2 report (arXiv 2508.14444) prunes the 12B model to 9B 'to enable inference on up
    to 128k tokens on a single NVIDIA A10G (22 GiB)': the 12B's 12.31B BF16 parameters (22.9 GiB)
    alone exceed an A10G, so serving it there is the engine's refusal; an L40S holds it at 128K.
    Offline it was HBM015 and nothing was checked."""
    from format_helpers import findings

    arch = architecture("nvidia/NVIDIA-Nemotron-Nano-12B-v2")
    assert (arch.mixers.count("state"), arch.mixers.count("full")) == (28, 6)
    assert arch.parameters == pytest.approx(12.31e9, rel=0.001)  # its model card's 12.31B
    assert arch.kv_layout(1, 1, 2).full_per_token == 6 * 2 * 8 * 128 * 2
    model = "nvidia/NVIDIA-Nemotron-Nano-12B-v2"
    a10g = {f["code"]: f for f in findings(_nano_deployment(tmp_path, model, "NVIDIA-A10G"))}
    assert "HBM015" not in a10g
    assert a10g["HBM101"]["severity"] == "error"
    l40s = findings(_nano_deployment(tmp_path, model, "NVIDIA-L40S"))
    assert not [f for f in l40s if f["severity"] == "error"]
    assert "HBM015" not in {f["code"] for f in l40s}


def test_gpt2_config_names_are_read_for_wizardcoder_and_distilgpt2(tmp_path):
    """GPT-2 and GPTBigCode configs name their shape n_embd / n_layer / n_head / n_positions;
    read as a Llama config they had 'no hidden_size' (an HBM006 from the Hub, HBM015 offline).
    StarCoder's multi-query attention keeps one KV head: 40 layers x K and V x 128 x 2 bytes."""
    from format_helpers import findings

    wizard = architecture("WizardLM/WizardCoder-15B-V1.0")
    assert (wizard.hidden_size, wizard.num_layers, wizard.num_kv_heads) == (6144, 40, 1)
    assert wizard.kv_layout(1, 1, 2).full_per_token == 40 * 2 * 128 * 2
    assert wizard.parameters == pytest.approx(15.5e9, rel=0.01)  # StarCoder's 15.5B
    assert architecture("distilgpt2").parameters == pytest.approx(82e6, rel=0.015)  # its card
    # 15.5B float16 parameters (28.8 GiB) cannot load on a 24 GB L4; an A100-80GB holds them
    l4 = {
        f["code"]: f for f in findings(_nano_deployment(tmp_path, wizard.name, "NVIDIA-L4", 8192))
    }
    assert "HBM015" not in l4 and l4["HBM101"]["severity"] == "error"
    a100 = findings(_nano_deployment(tmp_path, wizard.name, "NVIDIA-A100-SXM4-80GB", 8192))
    assert not [f for f in a100 if f["severity"] == "error"]
    # its 8,192 positions (n_positions) bound the context: 16,384 is vLLM's refusal
    longer = findings(_nano_deployment(tmp_path, wizard.name, "NVIDIA-A100-SXM4-80GB", 16384))
    assert "HBM303" in {f["code"] for f in longer}


def test_an_absurd_gpt2_layer_count_is_refused_before_any_arithmetic():
    # n_layer is a layer count like num_hidden_layers: a billion layers is a broken or hostile
    # config.json, refused by its field name rather than looped over
    hostile = {"model_type": "gpt2", "n_embd": 768, "n_layer": 10**9, "n_head": 12}
    with pytest.raises(catalog.ConfigError, match="n_layer"):
        catalog.architecture_from_config({**hostile, "vocab_size": 50257}, "gpt2", "test")


def test_nvidia_minimax_m25_nvfp4_weighs_what_its_checkpoint_loads():
    """A public table of the export's safetensors dtype counts (revision b6220d65): BF16
    1,278,796,288 (embeddings, lm_head, router gates), F32 2,730,491,904 (self_attn, which the
    engine loads into BF16 parameters), F8_E4M3 14,042,529,792 (block scales), U8 112,340,238,336
    (two FP4 values a byte). Before, the name was refused as a second format on an FP8 model."""
    arch = architecture("nvidia/MiniMax-M2.5-NVFP4")
    loaded = 2 * 1_278_796_288 + 2 * 2_730_491_904 + 14_042_529_792 + 112_340_238_336
    weights = arch.weight_bytes_per_rank(1, 1, arch.quantization, None).to("byte").magnitude
    assert weights == pytest.approx(loaded, rel=0.002)
    assert catalog.find_model("nvidia/MiniMax-M2.7-NVFP4")["id"] == "nvidia/MiniMax-M2.5-NVFP4"
