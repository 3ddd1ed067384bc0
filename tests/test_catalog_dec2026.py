"""catalog: models added in session 13 (what real manifests of sweeps 5-11 named and the catalog
lacked), each checked against a published figure."""

from __future__ import annotations

import pytest
from catalog_entry import architecture, stored_bytes

from hbmlint import budget, catalog
from hbmlint.catalog.variants import variant

GB = 1e9


def test_nvidia_deepseek_r1_nvfp4_v2_is_the_size_of_its_checkpoint():
    # the checkpoint's 350 files hold 413,340,567,567 bytes (a blobcache benchmark note that stages
    # models/nvidia_DeepSeek-R1-0528-NVFP4-v2/): the 61 decoder layers with o_proj in NVFP4 and
    # q_a/q_b/kv_a/kv_b in BF16, plus the BF16 MTP layer with its own embedding and head copies
    arch = architecture("nvidia/DeepSeek-R1-0528-NVFP4-v2")
    assert arch.quantization == "nvfp4"
    assert {"attention_inputs", "mtp"} <= arch.unquantized
    decoder = stored_bytes(arch.weight_bytes_per_rank(1, 1, arch.quantization, None))
    mtp, _ = budget.mtp_cost(arch, 1, arch.quantization, None, 1.0)
    mtp_embedding_and_head = 2 * 129_280 * 7_168 * 2
    total = decoder + stored_bytes(mtp) + mtp_embedding_and_head
    assert total == pytest.approx(413_340_567_567, rel=0.003)


def test_deepseek_nvfp4_output_projection_is_quantized_and_the_rest_of_attention_is_not():
    nvfp4 = architecture("nvidia/DeepSeek-V3.2-NVFP4")
    entry = catalog.find_model("nvidia/DeepSeek-V3.2-NVFP4")
    assert entry is not None
    qconfig = dict(entry["config"]["quantization_config"])
    qconfig["exclude_modules"] = ["lm_head", "model.layers.*.self_attn*", "model.layers.61*"]
    whole = catalog.architecture_from_config(
        {**entry["config"], "quantization_config": qconfig}, "all attention in BF16", "test"
    )
    at_tp8 = stored_bytes(nvfp4.weight_bytes_per_rank(8, 1, "nvfp4", None))
    saved = stored_bytes(whole.weight_bytes_per_rank(8, 1, "nvfp4", None)) - at_tp8
    # o_proj (128 heads x 128 x 7168 on 61 layers) in NVFP4, 0.5625 bytes a parameter, not 2
    o_proj = 61 * 128 * 128 * 7168 / 8
    assert saved == pytest.approx(o_proj * (2 - 0.5625), rel=0.01)


def test_deepseek_mtp_layer_left_out_of_nvfp4_is_kept_in_bf16():
    arch = architecture("nvidia/DeepSeek-V3.2-NVFP4")
    bf16, _ = budget.mtp_cost(arch, 8, arch.quantization, None, 1.0)
    # at TP 8 in BF16: 257 experts of 3 x 7168 x 2048 split, eh_proj (14336 x 7168) and the
    # q_a / kv_a projections whole, q_b / kv_b / o_proj split
    experts = 257 * 3 * 7168 * 2048 / 8
    replicated = 14336 * 7168 + 7168 * 1536 + 7168 * 576
    split = (1536 * 128 * 192 + 512 * 128 * 256 + 128 * 128 * 7168) / 8
    assert stored_bytes(bf16) == pytest.approx(2 * (experts + replicated + split), rel=0.005)
    r1 = architecture("deepseek-ai/DeepSeek-R1")  # FP8 blocks: its MTP layer is FP8 too
    fp8, _ = budget.mtp_cost(r1, 8, r1.quantization, None, 1.0)
    assert stored_bytes(bf16) > 1.8 * stored_bytes(fp8)


def test_deepseek_coder_33b_has_62_layers_as_its_awq_upload_weighs():
    # TheBloke/deepseek-coder-33B-instruct-AWQ: two safetensors files of 9.96 and 8.05 GB
    found = variant("TheBloke/deepseek-coder-33B-instruct-AWQ")
    assert found is not None and found.base == "deepseek-ai/deepseek-coder-33b-instruct"
    awq = catalog.architecture_from_config(found.config, found.base, found.source)
    assert awq.num_layers == 62
    weights = stored_bytes(awq.weight_bytes_per_rank(1, 1, awq.quantization, None))
    assert weights == pytest.approx(18.01 * GB, rel=0.01)
    # 56 query heads over 8 KV heads of 128: 2 x 8 x 128 x 62 layers x 2 bytes a token
    kv = awq.kv_layout(1, 1, 2).full_per_token
    assert kv == 2 * 8 * 128 * 62 * 2


def test_deepseek_coder_6_7b_is_full_multi_head_attention():
    arch = architecture("deepseek-ai/deepseek-coder-6.7b-instruct")
    assert arch.parameters == pytest.approx(6.74e9, rel=0.002)  # the Hub's count
    # 32 KV heads: 512 KiB of KV a token in BF16, 8 GiB for one 16,384-token sequence
    assert arch.kv_layout(1, 1, 2).full_per_token == 2 * 32 * 128 * 32 * 2


def test_nvidia_deepseek_nvfp4_names_read_with_the_exports_layout():
    # NVIDIA's V3.1 export (aiconfigurator's copy of its hf_quant_config.json) has the V3.2
    # export's layout; a name is read with it though its FP8 master carries a quantization_config
    listed = architecture("nvidia/DeepSeek-R1-0528-NVFP4-v2")
    for name in ("nvidia/DeepSeek-V3.1-NVFP4", "nvidia/DeepSeek-R1-0528-FP4-V2"):
        found = variant(name)
        assert found is not None and found.weights == "NVFP4", name
        arch = catalog.architecture_from_config(found.config, found.base, found.source)
        assert {"attention_inputs", "mtp"} <= arch.unquantized
        assert stored_bytes(arch.weight_bytes_per_rank(8, 1, "nvfp4", None)) == stored_bytes(
            listed.weight_bytes_per_rank(8, 1, "nvfp4", None)
        )
    # another publisher's NVFP4 name of an FP8 master is still not guessed at
    assert variant("someone/DeepSeek-R1-NVFP4") is None


def test_a_version_tag_after_the_quantization_suffix_is_read():
    # nvidia/Qwen3.5-397B-A17B-NVFP4-V2 (InferenceX recipes) is the NVFP4 export of the 397B
    found = variant("nvidia/Qwen3.5-397B-A17B-NVFP4-V2")
    assert found is not None and found.base == "Qwen/Qwen3.5-397B-A17B"
    assert found.weights == "NVFP4"
    # a model whose own name ends in -v2 is not a version tag
    plain = variant("nvidia/NVIDIA-Nemotron-Nano-9B-v2")
    assert plain is not None and plain.weights == ""


def test_minimax_m21_is_budgeted_as_m25():
    # the same 62 layers, heads and 256 experts of 1536 in copies of M2.1's config.json
    entry = catalog.find_model("MiniMaxAI/MiniMax-M2.1")
    assert entry is not None and entry["id"] == "MiniMaxAI/MiniMax-M2.5"
    # and its FP8 blocks: 230B parameters at about a byte each, 27 GiB a GPU at TP 8
    arch = architecture("MiniMaxAI/MiniMax-M2.1")
    per_gpu = stored_bytes(arch.weight_bytes_per_rank(8, 1, arch.quantization, None))
    assert per_gpu / 2**30 == pytest.approx(230e9 / 8 / 2**30, rel=0.05)


def test_granite_3_moe_weighs_what_its_bf16_upload_does():
    # ibm-granite/granite-3.1-3b-a800m-instruct "Added bf16 tensors": 5 GB + 1.6 GB of safetensors;
    # its model card: 3.3B parameters, 800M active
    arch = architecture("ibm-granite/granite-3.1-3b-a800m-instruct")
    assert arch.num_experts == 40 and arch.moe_intermediate_size == 512
    weights = stored_bytes(arch.weight_bytes_per_rank(1, 1, None, None))
    assert weights == pytest.approx(6.6 * GB, rel=0.01)
    # the 3.0 instruct is the same shape with a 4,096-token context
    older = architecture("ibm-granite/granite-3.0-3b-a800m-instruct")
    assert older.max_position_embeddings == 4096 and arch.max_position_embeddings == 131072
    assert older.parameters == arch.parameters


def test_qwen3_coder_next_is_the_qwen3_next_80b_shape():
    entry = catalog.find_model("Qwen/Qwen3-Coder-Next")
    assert entry is not None and entry["id"] == "Qwen/Qwen3-Next-80B-A3B-Thinking"
    # Intel's AutoRound upload of it (sweep 10, a DGX Spark stack) reads from its name
    found = variant("Intel/Qwen3-Coder-Next-int4-AutoRound")
    assert found is not None and found.weights == "AutoRound INT4"


def test_a_suffix_naming_the_models_own_format_is_a_copy():
    # gpt-oss ships in MXFP4: "-mxfp4" on a copy (huihui-ai's abliterated upload) is no second
    # quantization, so the copy is budgeted as gpt-oss-120b itself, not refused
    found = variant("batsclamp/Huihui-gpt-oss-120b-mxfp4-abliterated")
    assert found is not None and found.base == "openai/gpt-oss-120b" and found.weights == ""
    # another format on an MXFP4 model is still not guessed at
    assert variant("someone/gpt-oss-120b-NVFP4") is None


def test_google_qat_w4a16_repacks_read_from_their_names():
    # google/gemma-4-31B-it-qat-w4a16-ct (9 sweep files): compressed-tensors W4A16 of the 31B
    found = variant("google/gemma-4-31B-it-qat-w4a16-ct")
    assert found is not None and found.base == "google/gemma-4-31B-it"
    assert found.weights == "INT4 (W4A16, QAT)"
    int4 = catalog.architecture_from_config(found.config, found.base, found.source)
    bf16 = architecture("google/gemma-4-31B-it")
    # 4 bits and a scale per 32 on the decoder's linear layers (vLLM 0.30 logs 19.78 GiB where
    # BF16 takes about 58): about a third of BF16's bytes
    ratio = stored_bytes(int4.weight_bytes_per_rank(1, 1, int4.quantization, None)) / stored_bytes(
        bf16.weight_bytes_per_rank(1, 1, None, None)
    )
    assert 0.25 < ratio < 0.4


def test_qwen25_math_15b_has_a_4096_token_context():
    # sweep 10 names Qwen/Qwen2.5-Math-1.5B-Instruct; its config.json allows 4,096 positions, so a
    # longer --max-model-len is the engine's refusal, not the 32,768 of Qwen2.5-1.5B-Instruct
    math = architecture("Qwen/Qwen2.5-Math-1.5B-Instruct")
    assert math.max_position_embeddings == 4096
    assert architecture("Qwen/Qwen2.5-1.5B-Instruct").max_position_embeddings == 32_768
    assert math.parameters == pytest.approx(1.54e9, rel=0.01)  # the Hub's count, tied embeddings
