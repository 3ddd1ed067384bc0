"""catalog: stepfun-ai/Step-3.5-Flash, as its config.json writes it (KV heads in
num_attention_groups, 96 query heads on the sliding-window layers in attention_other_setting,
a layer_types list that runs on over the 3 MTP layers, routed layers in moe_layers_enum),
budgeted on the launches SGLang's cookbook and vLLM's recipes give for it."""

from __future__ import annotations

import pytest
from catalog_entry import architecture, stored_bytes

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

GIB = 2**30
MODEL = "stepfun-ai/Step-3.5-Flash"

# The config's shapes (yevvonlim/Megatron-Bridge tests/unit_tests/models/step3p5/_reference/
# config.json, the Hub copy's key order): 45 layers of 4096, head_dim 128, 8 KV heads
H, HD, KV, VOCAB = 4096, 128, 8, 128896
FULL_LAYERS, SLIDING_LAYERS = 12, 33  # full attention on layers 0, 4, ..., 44
DENSE_LAYERS, MOE_LAYERS = 3, 42  # moe_layers_enum "3,...,44"


def _attention(heads: int) -> int:
    """q and o of ``heads``, K and V of 8 heads, and the head-wise gate (g_proj, hidden x heads)."""
    return 2 * H * heads * HD + 2 * H * KV * HD + H * heads


# every parameter the arithmetic counts: the token embedding and an untied lm_head, 12 layers
# of 64 query heads and 33 of 96, 3 dense MLPs of 11264, 42 MoE layers of 288 experts of 1280
# (a router of hidden x experts) and one shared expert of 1280, two norms a layer, the final norm
PARAMETERS = (
    2 * VOCAB * H
    + FULL_LAYERS * _attention(64)
    + SLIDING_LAYERS * _attention(96)
    + DENSE_LAYERS * 3 * H * 11264
    + MOE_LAYERS * (288 * 3 * H * 1280 + 3 * H * 1280 + H * 288)
    + 45 * 2 * H
    + H
)
# what vLLM keeps whole on every rank: the routers (a ReplicatedLinear gate) and the norms
REPLICATED = MOE_LAYERS * H * 288 + 45 * 2 * H + H
# and the RoPE cos/sin cache: 262,144 positions x 128 dimensions in bf16
ROPE = 262144 * 128 * 2
# one of 4 tensor-parallel ranks of the bf16 checkpoint
TP4_BYTES = (PARAMETERS - REPLICATED) * 2 / 4 + REPLICATED * 2 + ROPE


def test_config_is_read_with_its_own_names():
    arch = architecture(MODEL)
    assert (arch.num_layers, arch.hidden_size, arch.vocab_size) == (45, H, VOCAB)
    # num_attention_groups: 8 KV heads (not the 64 query heads, as a plain read would give)
    assert (arch.num_attention_heads, arch.num_kv_heads, arch.head_dim) == (64, KV, HD)
    # layer_types' first 45 entries: full attention every 4th layer, a 512-token window between
    assert arch.sliding_window == 512
    assert [i for i, m in enumerate(arch.layer_mixers) if m == "full"] == list(range(0, 45, 4))
    assert arch.layer_mixers.count("sliding") == SLIDING_LAYERS
    assert arch.sliding_heads == 96 and arch.head_wise_gate
    assert arch.layer_ffns == ("dense",) * DENSE_LAYERS + ("moe",) * MOE_LAYERS
    assert (arch.num_experts, arch.experts_per_token, arch.moe_intermediate_size) == (288, 8, 1280)
    assert arch.shared_intermediate_size == 1280
    assert not arch.tie_word_embeddings
    assert arch.max_position_embeddings == 262144 and arch.max_length == 262144
    assert arch.mtp_layers == 3
    assert arch.approximations == ()


def test_parameters_match_the_arithmetic_and_the_model_card():
    arch = architecture(MODEL)
    assert arch.parameters == PARAMETERS
    # the README's "196.81B (196B Backbone + 0.81B Head)", the head being the 3 MTP layers
    assert arch.parameters == pytest.approx(196e9, rel=0.005)


def test_weights_per_gpu_at_tp4_are_a_quarter_of_the_bf16_checkpoint():
    arch = architecture(MODEL)
    per_gpu = stored_bytes(arch.weight_bytes_per_rank(4, 1, None))
    # every linear part splits over 4 ranks (8 KV heads over 4: 2 each)
    assert per_gpu == TP4_BYTES
    assert per_gpu / GIB == pytest.approx(91.85, abs=0.01)
    # expert parallelism over the same 4 GPUs holds a quarter of the experts: the same bytes
    assert stored_bytes(arch.weight_bytes_per_rank(4, 1, None, expert_parallel=4)) == per_gpu


def test_kv_bytes_per_token_by_layer_kind():
    arch = architecture(MODEL)
    # bf16 at TP 4: 2 KV heads of 128 on each rank, K and V, 2 bytes = 1024 bytes a layer
    layout = arch.kv_layout(4, 1, 2)
    assert layout.full_per_token == FULL_LAYERS * 2 * 2 * HD * 2 == 12288
    assert layout.windows == ((512, SLIDING_LAYERS * 1024),)
    # one GPU holds all 8 KV heads: four times as much
    whole = arch.kv_layout(1, 1, 2)
    assert whole.full_per_token == 4 * 12288
    assert whole.windows == ((512, 4 * SLIDING_LAYERS * 1024),)


def _launch(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    rules, _ = load_rules()
    result = lint_file(path, name, rules, LintOptions(default_gpu="H200"))
    codes = {d.code for d in result.diagnostics}
    assert "HBM015" not in codes and "HBM101" not in codes
    [deployment] = result.deployments
    return deployment.budget


def test_sglang_cookbook_launch_tp4_ep4(tmp_path):
    # sgl-project/sgl-cookbook docs/autoregressive/StepFun/Step3.5.md @ 7b5bd9c0
    budget = _launch(
        tmp_path,
        "cookbook.sh",
        "sglang serve --model-path stepfun-ai/Step-3.5-Flash --tp 4 --ep 4 "
        "--reasoning-parser step3p5 --tool-call-parser step3p5\n",
    )
    assert budget.resolved.target.name == MODEL
    weights = budget.weights.to("byte").magnitude
    # the arithmetic's rank share, plus what SGLang counts beside the tensors (0.10 GiB: the
    # allocator's slack and a float32 RoPE cache)
    assert TP4_BYTES < weights < TP4_BYTES + 0.2 * GIB


def test_vllm_recipe_launch_tp4(tmp_path):
    # vllm-project/recipes StepFun/Step-3.5-Flash.md, "Tensor Parallel Script"
    budget = _launch(
        tmp_path,
        "recipe.sh",
        "vllm serve stepfun-ai/Step-3.5-Flash --tensor-parallel-size 4 "
        "--reasoning-parser step3p5 --tool-call-parser step3p5 --enable-auto-tool-choice "
        "--trust-remote-code\n",
    )
    assert budget.weights.to("byte").magnitude / GIB == pytest.approx(91.85, abs=0.01)
    # the model's 262,144 positions fit: one sequence needs 12 full layers' keys for all of
    # them and 33 windows of 512
    assert budget.kv_tokens.to("token").magnitude >= 262144


def test_mtp_layers_are_sliding_and_dense(tmp_path):
    # layer_types' last 3 entries (45-47) are sliding_attention and moe_layers_enum leaves them
    # out (Megatron-Bridge's step3p5 bridge: "MTP layers 45-47 ... must be dense"); the model
    # card gives the 3-layer head 0.81B parameters. Shaped as the last decoder layer (MoE, full
    # attention) they were 6.65 GiB a GPU, and HBM202 said the drafter displaced a third of the
    # KV cache.
    arch = architecture(MODEL)
    assert arch.mtp_mixers == ("sliding", "sliding", "sliding")
    assert arch.mtp_ffns == ("dense", "dense", "dense")
    budget = _launch(
        tmp_path,
        "mtp.sh",
        "vllm serve stepfun-ai/Step-3.5-Flash --tensor-parallel-size 4 "
        '--speculative-config \'{"method": "mtp", "num_speculative_tokens": 1}\'\n',
    )
    head = 3 * (_attention(96) + 3 * H * 11264 + 2 * H * H)  # + eh_proj, replicated
    draft = budget.draft_weights.to("byte").magnitude
    assert 0.78e9 < head < 0.86e9  # the card's 0.81B
    assert head * 2 / 4 < draft < head * 2 / 4 + 0.25 * GIB
