"""catalog: models added in session 15 (what real manifests of sweeps 5-13 named and the catalog
lacked), each checked against a published figure."""

from __future__ import annotations

from dataclasses import replace

import pytest
from catalog_entry import architecture, stored_bytes

from hbmlint import budget, catalog

GB = 1e9


def test_minimax_m3_eagle3_gqa_head_is_the_size_of_its_safetensors_file():
    # Inferact/MiniMax-M3-EAGLE3-GQA@96692486: one file of 6,149,993,396 bytes, a 46 KB header
    # and BF16 tensors: its layer, fc, lm_head and its own copy of the 200,064 x 6,144 embedding
    head = replace(
        architecture("Inferact/MiniMax-M3-EAGLE3-GQA"), head_stores=frozenset({"embed_tokens"})
    )
    whole = stored_bytes(budget.eagle_weights(head, "eagle3", 1, None))
    assert whole == pytest.approx(6_149_993_396, rel=1e-4)
    # vLLM shares an embedding equal to the target's: one layer of 6,144 (64 heads of 128, an
    # 18,432-wide MLP), the 3 x 6,144 fc and the full-vocabulary lm_head stay
    shared = stored_bytes(
        budget.eagle_weights(head, "eagle3", 1, None, frozenset({"embed_tokens"}))
    )
    assert whole - shared == pytest.approx(200_064 * 6_144 * 2, rel=1e-6)


def test_minimax_m3_eagle3_heads_differ_in_their_kv_heads_only():
    gqa = architecture("Inferact/MiniMax-M3-EAGLE3-GQA")
    mha = architecture("Inferact/MiniMax-M3-EAGLE3")
    # one layer: 2 x 4 KV heads x 128 x 2 bytes against 2 x 64 x 128 x 2 (the MHA head)
    assert gqa.kv_layout(1, 1, 2).full_per_token == 2 * 4 * 128 * 2
    assert mha.kv_layout(1, 1, 2).full_per_token == 16 * gqa.kv_layout(1, 1, 2).full_per_token
    # the MHA head's K/V projections read [embedding; hidden] (12,288 wide): 3.26B in all, the
    # model card's "~3.3 B params"
    mha_whole = replace(mha, head_stores=frozenset({"embed_tokens"}))
    params = stored_bytes(budget.eagle_weights(mha_whole, "eagle3", 1, None)) / 2
    assert params == pytest.approx(3.3e9, rel=0.02)


@pytest.mark.parametrize(
    ("model_id", "hub_count"),
    [
        ("Qwen/Qwen3.5-0.8B", 873.4e6),
        ("Qwen/Qwen3.5-2B", 2_274.1e6),
        ("Qwen/Qwen3.5-4B", 4_659.9e6),
    ],
)
def test_small_qwen35_models_count_what_the_hub_lists(model_id, hub_count):
    # the Hub's safetensors counts (a public table of them): text model, vision tower and MTP layer
    arch = architecture(model_id)
    mtp, _ = budget.mtp_cost(arch, 1, None, None, 2.0)
    assert arch.parameters + stored_bytes(mtp) / 2 == pytest.approx(hub_count, rel=0.005)


def test_qwen35_small_models_cache_keys_on_their_six_full_attention_layers():
    # 24 layers, every 4th full attention: 6 x 2 x 2 KV heads x 256 x 2 bytes a token; the 18
    # Gated DeltaNet layers keep a fixed state instead
    for model_id in ("Qwen/Qwen3.5-0.8B", "Qwen/Qwen3.5-2B"):
        assert architecture(model_id).kv_layout(1, 1, 2).full_per_token == 6 * 2 * 2 * 256 * 2


def test_gemma4_e2b_counts_the_cards_effective_parameters_outside_its_per_layer_embeddings():
    # "2.3B effective parameters (5.1B with embeddings)": the PLE tables, 262,144 x 35 layers x 256,
    # are what the effective count leaves out, and the vision tower (16 layers of 768) and the
    # ~300M audio encoder (12 conformer layers of 1024) are in neither
    arch = architecture("google/gemma-4-E2B-it")
    tower = 16 * (4 * 768 * 768 + 2 * 768 * 3072)
    ple = 262_144 * 35 * 256
    audio = arch.vision_params - tower
    assert audio == pytest.approx(300e6, rel=0.05)
    assert arch.parameters - ple - tower - audio == pytest.approx(2.3e9, rel=0.01)
    assert arch.parameters == pytest.approx(5.1e9, rel=0.02)


def test_gemma4_e4b_weighs_what_vllm_loads():
    # vLLM 0.22.1 logged "Model loading took 15.18 GiB" for google/gemma-4-E4B-it on an RTX 3090
    # Ti (benchmarks/calibration/vllm.yaml): the model card's 8B with both encoders, in bf16
    arch = architecture("google/gemma-4-E4B-it")
    assert arch.parameters == pytest.approx(8.0e9, rel=0.02)
    assert arch.parameters * 2 / 2**30 == pytest.approx(15.18, rel=0.05)


def test_gemma4_e4b_keeps_kv_on_its_first_24_layers():
    # 42 layers, the last 18 reading an earlier layer's cache: 4 full layers of 2 KV heads of 512
    # and 20 sliding ones of 2 heads of 256 (512-token windows) keep K and V in bf16
    layout = architecture("google/gemma-4-E4B-it").kv_layout(1, 1, 2)
    assert layout.full_per_token == 4 * 2 * 2 * 512 * 2
    assert layout.windows == ((512, 20 * 2 * 2 * 256 * 2),)


def test_nemotron_35_lightning_is_nano_3_with_a_million_positions_and_an_mtp_layer():
    lightning = architecture("nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16")
    nano = architecture("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")
    assert lightning.parameters == nano.parameters
    assert lightning.max_position_embeddings == 1_048_576 and lightning.mtp_layers == 1
    # 6 attention layers of 2 KV heads of 128 keep K and V; the 23 Mamba layers a fixed state
    assert lightning.kv_layout(1, 1, 2).full_per_token == 6 * 2 * 2 * 128 * 2


def test_nemotron_35_lightning_nvfp4_keeps_its_mamba_projections_in_fp8():
    mixed = architecture("nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4")
    assert mixed.quantization == "nvfp4" and "mtp" in mixed.unquantized
    entry = catalog.find_model("nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16")
    assert entry is not None
    plain_config = {
        **entry["config"],
        "quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4"},
    }
    plain = catalog.architecture_from_config(plain_config, "all NVFP4", "test")
    extra = stored_bytes(mixed.weight_bytes_per_rank(1, 1, "nvfp4")) - stored_bytes(
        plain.weight_bytes_per_rank(1, 1, "nvfp4")
    )
    # 23 Mamba layers' in_proj (2688 -> 2 x 4096 + 2 x 8 x 128 + 64 heads) and out_proj, and the
    # 6 attention layers' q/k/v/o, at 1 byte instead of NVFP4's 0.5625; the export's lm_head in
    # NVFP4 where a plain NVFP4 config keeps it in BF16
    mamba = 23 * (2688 * (2 * 4096 + 2 * 8 * 128 + 64) + 4096 * 2688)
    attention = 6 * (2688 * 32 * 128 * 2 + 2 * 2688 * 2 * 128)
    lm_head = 131_072 * 2688
    expected = (mamba + attention) * (1 - 0.5625) - lm_head * (2 - 0.5625)
    assert extra == pytest.approx(expected, rel=0.02)


def test_opt_6_7b_is_full_multi_head_attention_of_its_published_size():
    arch = architecture("facebook/opt-6.7b")
    assert arch.parameters == pytest.approx(6.7e9, rel=0.01)
    # 32 layers of 32 heads x 128: K and V of 4096 each, in float16
    assert arch.kv_layout(1, 1, 2).full_per_token == 2 * 32 * 4096 * 2


@pytest.mark.parametrize(
    "name", ["kaitchup/Qwen3.5-27B-autoround-W4A16", "kaitchup/Qwen3.5-9B-autoround-W4A16"]
)
def test_autoround_w4a16_names_read_as_autoround_int4(name):
    # sweep 9 served both (HBM015 offline): AutoRound's W4A16 scheme, 4 bits in groups of 128
    from hbmlint.catalog.variants import variant

    found = variant(name)
    assert (
        found is not None
        and found.base == name.replace("kaitchup/", "Qwen/").split("-autoround")[0]
    )
    assert found.weights == "AutoRound INT4"
    assert found.config["quantization_config"]["group_size"] == 128


def test_kimi_k25_eagle3_head_is_one_multi_head_layer_with_its_own_vocabulary_head():
    head = architecture("lightseekorg/kimi-k2.5-eagle3")
    # one layer of 64 KV heads of 128 (MHA), K and V in bf16
    assert head.num_layers == 1 and head.kv_layout(1, 1, 2).full_per_token == 2 * 64 * 128 * 2
    # at TP 8 its full-vocabulary lm_head (163,840 x 7,168) is split, the 3 x 7,168 fc is not
    tp1 = stored_bytes(budget.eagle_weights(head, "eagle3", 1, None))
    tp8 = stored_bytes(budget.eagle_weights(head, "eagle3", 8, None))
    fc = 3 * 7168 * 7168 * 2
    assert tp8 > fc and tp1 - tp8 > 163_840 * 7168 * 2 * 7 / 8
