"""catalog: Mistral Large 3 (December 2025), FP8 and NVFP4, budgeted on the launches vLLM's recipe
gives for them and checked against the checkpoints' sizes; and its params.json, the only config
its Hub repositories ship, read from the Hub as the catalog reads it (the tests run with
HF_HUB_OFFLINE=1: conftest.py)."""

from __future__ import annotations

import pytest
from catalog_entry import architecture, stored_bytes

from hbmlint import catalog
from hbmlint.catalog.hub import mistral_config
from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

GIB = 2**30
FP8 = "mistralai/Mistral-Large-3-675B-Instruct-2512"
NVFP4 = "mistralai/Mistral-Large-3-675B-Instruct-2512-NVFP4"

# The launch commands of vllm-project/recipes Mistral/Mistral-Large-3.md @ 75f73528 ("Running
# Mistral-Large-3-Instruct FP8 on 8xH200 or 8xMI300X" and "Running Mistral-Large-3-Instruct NVFP4
# on 4xB200"), as written there
FP8_RECIPE = """vllm serve mistralai/Mistral-Large-3-675B-Instruct-2512 \\
  --tensor-parallel-size 8 \\
  --tokenizer_mode mistral --config_format mistral --load_format mistral \\
  --enable-auto-tool-choice --tool-call-parser mistral
"""
NVFP4_RECIPE = """vllm serve mistralai/Mistral-Large-3-675B-Instruct-2512-NVFP4 \\
  --tensor-parallel-size 4 \\
  --tokenizer_mode mistral --config_format mistral --load_format mistral \\
  --enable-auto-tool-choice --tool-call-parser mistral
"""

# The checkpoints' sizes on the Hub, as a public write-up of the four repositories gives them
# (code search file id 71067752722): FP8 about 681.5 GB, NVFP4 about 403.1 GB
FP8_CHECKPOINT, NVFP4_CHECKPOINT = 681.5e9, 403.1e9

# params.json of the FP8 repository as public test code transcribes it (the text model's fields key
# for key, code search file id 70093210561; the vision_encoder from TensorRT-LLM's config-loader
# test, file id 56668857981, with the 2x2 merge of file id 71067752722); the fields that size
# nothing (norm_eps, rope_theta, llama_4_scaling, the quantization's activation scheme) left out
PARAMS = {
    "dim": 7168,
    "head_dim": 192,
    "hidden_dim": 16384,
    "kv_lora_rank": 512,
    "max_position_embeddings": 294912,
    "moe": {
        "expert_hidden_dim": 4096,
        "first_k_dense_replace": 3,
        "num_experts": 128,
        "num_experts_per_tok": 4,
        "num_shared_experts": 1,
        "route_every_n": 1,
    },
    "n_heads": 128,
    "n_kv_heads": 128,
    "n_layers": 61,
    "q_lora_rank": 1536,
    "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64,
    "quantization_config": {
        "config_groups": {
            "FP8_BLOCK": {
                "targets": ["Linear"],
                "weights": {
                    "block_structure": [128, 128],
                    "num_bits": 8,
                    "strategy": "block",
                    "type": "float",
                },
            }
        },
        "ignore": [
            "model.embed_tokens",
            "re:patch_merger.*",
            "re:vision_encoder.*",
            "re:vision_language_adapter.*",
            "re:.*kv_a_proj_with_mqa$",
            "re:.*q_a_proj$",
            "re:.*gate$",
            "lm_head",
        ],
        "quant_method": "compressed-tensors",
    },
    "tied_embeddings": False,
    "v_head_dim": 128,
    "vocab_size": 131072,
    "vision_encoder": {
        "hidden_size": 1664,
        "image_size": 1540,
        "intermediate_size": 8192,
        "num_attention_heads": 16,
        "num_channels": 3,
        "num_hidden_layers": 48,
        "patch_size": 14,
        "spatial_merge_size": 2,
    },
    "yarn": {"factor": 36, "original_max_position_embeddings": 8192},
}

H, LAYERS, VOCAB = 7168, 61, 131072
# one layer's MLA: q_a, q_b over 128 heads of 128 + 64, kv_a to the 512 + 64 latent, kv_b to 128
# heads of K 128 and V 128, o_proj
ATTENTION = H * 1536 + 1536 * 128 * 192 + H * 576 + 512 * 128 * 256 + 128 * 128 * H
# 3 dense MLPs of 16384; 58 MoE layers of 128 experts and one shared expert of 4096, and a router
MLPS = 3 * 3 * H * 16384 + 58 * (129 * 3 * H * 4096 + 128 * H)
# the cache of one token: the 512 + 64 latent of every layer, in bf16
KV_PER_TOKEN = LAYERS * (512 + 64) * 2


def _launch(tmp_path, name: str, text: str, gpu: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    rules, _ = load_rules()
    return lint_file(path, name, rules, LintOptions(default_gpu=gpu))


def test_params_json_reads_as_deepseek_v3_layers_with_fewer_wider_experts():
    arch = architecture(FP8)
    assert (arch.num_layers, arch.hidden_size, arch.vocab_size) == (LAYERS, H, VOCAB)
    assert arch.layer_ffns == ("dense",) * 3 + ("moe",) * 58
    assert (arch.num_experts, arch.experts_per_token, arch.moe_intermediate_size) == (128, 4, 4096)
    assert not arch.tie_word_embeddings
    # YaRN x36 over 8192 positions: the 294,912 of max_position_embeddings
    assert arch.max_length == 294912
    # the card: "A Granular MoE Language Model with 673B params" and "A 2.5B Vision Encoder"
    text = 2 * VOCAB * H + LAYERS * ATTENTION + MLPS
    assert text == pytest.approx(673e9, rel=0.002)
    assert arch.parameters - text == pytest.approx(2.5e9, rel=0.05)
    assert arch.parameters == pytest.approx(675e9, rel=0.002)


def test_weights_match_the_checkpoints_on_the_hub():
    # every byte of the checkpoint on one GPU: FP8 blocks of 128 x 128 with a float32 scale each,
    # BF16 embedding, lm_head, routers, q_a / kv_a and vision tower; NVFP4 (groups of 16 with an
    # FP8 scale) on the MLPs and experts only, attention in BF16
    fp8 = stored_bytes(architecture(FP8).weight_bytes_per_rank(1, 1, "fp8"))
    assert fp8 == pytest.approx(FP8_CHECKPOINT, rel=0.002)
    nvfp4 = stored_bytes(architecture(NVFP4).weight_bytes_per_rank(1, 1, "nvfp4"))
    assert nvfp4 == pytest.approx(NVFP4_CHECKPOINT, rel=0.002)


def test_fp8_recipe_on_8_h200_is_all_clear(tmp_path):
    result = _launch(tmp_path, "fp8.sh", FP8_RECIPE, "H200")
    assert result.diagnostics == []
    [deployment] = result.deployments
    budget = deployment.budget
    assert budget.resolved.target.name == FP8
    weights = budget.weights.to("byte").magnitude
    # an eighth of the checkpoint, and what every rank keeps whole besides (the embedding is
    # split, but q_a / kv_a, the routers, norms and the 2.5B vision tower are not): 80.97 GiB
    assert weights / GIB == pytest.approx(80.97, abs=0.01)
    assert FP8_CHECKPOINT / 8 < weights < FP8_CHECKPOINT / 8 * 1.03
    # MLA: the latent is replicated on every rank, not split over TP 8
    assert budget.kv_bytes_per_token.to("byte / token").magnitude == KV_PER_TOKEN == 70272
    # one sequence of the model's full 294,912 tokens fits, several times over
    assert budget.kv_tokens.to("token").magnitude > 2 * 294912


def test_nvfp4_recipe_on_4_b200_is_all_clear(tmp_path):
    result = _launch(tmp_path, "nvfp4.sh", NVFP4_RECIPE, "B200")
    assert result.diagnostics == []
    [deployment] = result.deployments
    budget = deployment.budget
    assert budget.resolved.target.name == NVFP4
    weights = budget.weights.to("byte").magnitude
    assert weights / GIB == pytest.approx(95.25, abs=0.01)
    assert NVFP4_CHECKPOINT / 4 < weights < NVFP4_CHECKPOINT / 4 * 1.03
    assert budget.kv_bytes_per_token.to("byte / token").magnitude == KV_PER_TOKEN


def test_fp8_recipe_on_8_h100_is_refused(tmp_path):
    # the card: "FP8 on a single node of B200s or H200s", NVFP4 for H100s: the FP8 weights alone
    # are more than an 80 GB card holds
    result = _launch(tmp_path, "fp8-h100.sh", FP8_RECIPE, "H100")
    [error] = result.diagnostics
    assert (error.code, error.severity) == ("HBM101", Severity.ERROR)
    assert "80.97 GiB per GPU" in error.message
    # the NVFP4 checkpoint at TP 8 is what fits there
    nvfp4 = NVFP4_RECIPE.replace("--tensor-parallel-size 4", "--tensor-parallel-size 8")
    assert _launch(tmp_path, "nvfp4-h100.sh", nvfp4, "H100").diagnostics == []


def test_params_json_from_the_hub_reads_as_the_catalog_entry():
    # a repository in Mistral's own format has no config.json: `hbmlint models pull` and the Hub
    # lookup translate params.json. Read as a plain Mistral config, it was a dense model of 61
    # layers of 128 heads of 192 and an MLP of 16384, with no experts and no latent
    config = mistral_config(PARAMS)
    hub = catalog.architecture_from_config(config, FP8, "params.json")
    entry = architecture(FP8)
    assert hub.parameters == entry.parameters
    for tp in (1, 8):
        assert stored_bytes(hub.weight_bytes_per_rank(tp, 1, hub.quantization)) == stored_bytes(
            entry.weight_bytes_per_rank(tp, 1, entry.quantization)
        )
    assert hub.kv_layout(8, 1, 2).full_per_token == KV_PER_TOKEN
    assert hub.max_length == entry.max_length == 294912
