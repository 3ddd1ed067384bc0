"""The HBM vLLM reserves for LoRA adapters when it serves with --enable-lora.

vLLM wraps every linear layer of the language model in a LoRA layer and preallocates, for each
of --max-loras slots, zeroed A and B matrices of --max-lora-rank for it, in the model's dtype,
while it loads the model: they are part of what "Model loading took" reports, and so of the
weights here. Read in vllm 0.33.0's wheel: lora/model_manager.py _create_lora_modules (every
LinearBase and MoE runner of the language model; the vision tower only with
enable_tower_connector_lora), lora/layers/base_linear.py and column_parallel_linear.py (a
merged column layer has one A of rank x the whole input per slice, and B of its slices' outputs
on this rank), row_parallel_linear.py (A over this rank's input, B of the whole output),
replicated_linear.py (the MoE router) and fused_moe.py (w13 and w2 of every expert), all
shaped (max_loras, ...). --fully-sharded-loras splits the rank of the column layers' A and the
output of the row layers' B over the TP ranks. Adapters kept on the CPU (--max-cpu-loras) take
no HBM.

Not counted: the adapters of the token embedding and lm_head, which only some model classes
add (embedding_modules, vocabulary x rank each: about a tenth of the total for Llama 3 8B), and
the profile run's LoRA activations (tokens x rank). Architectures whose layers this does not
shape (state-space and MLA mixers, gated or per-layer-input attention, latent MoE, experts
over EP ranks) are left out and said so.
"""

from __future__ import annotations

import math
from typing import Any

from .catalog import dtype_bytes
from .catalog.architecture import DENSE, FULL, MOE, NO_MIXER, SLIDING


def unmodelled(arch: Any, expert_parallel: int) -> str | None:
    """Why the LoRA reserve of ``arch`` is not computed here, or None when it is."""
    if arch.is_mla:
        return "its MLA attention's projections"
    if arch.moe_latent_size or arch.per_layer_input or arch.kv_shared_layers:
        return "its latent experts or per-layer inputs"
    if arch.attn_output_gate or arch.full_head_dim or arch.wide_mlp_layers:
        return "its gated or mixed-width attention"
    if arch.mlp_matrices != 3:
        return "its two-matrix MLP"
    if expert_parallel > 1 and arch.is_moe:
        return "its experts spread over expert-parallel ranks"
    mixers = {arch.mixer(i) for i in range(arch.num_layers)}
    if mixers - {FULL, SLIDING, NO_MIXER}:
        return "its state-space or linear-attention layers"
    return None


def _column(rank: int, a_rank: int, inputs: int, outputs: tuple[int, ...]) -> int:
    """A merged column-parallel layer: one A (a_rank x the whole input) and one B (the slice's
    outputs on this rank x rank) per slice."""
    return sum(a_rank * inputs + out * rank for out in outputs)


def vllm_lora_bytes(
    arch: Any,
    tensor_parallel: int,
    pipeline_parallel: int,
    max_loras: int,
    rank: int,
    fully_sharded: bool,
    dtype: str,
) -> float:
    """Bytes of LoRA A/B matrices one GPU holds for ``max_loras`` slots of ``rank`` (an
    architecture ``unmodelled`` accepts)."""
    tp = tensor_parallel
    hidden = arch.hidden_size
    a_rank = rank // tp if fully_sharded else rank  # column layers' A
    b_hidden = hidden // tp if fully_sharded else hidden  # row layers' B
    q = arch.num_attention_heads // tp * arch.head_dim
    kv = max(1, arch.num_kv_heads // tp) * arch.head_dim  # KV heads replicated below one a rank
    attention = _column(rank, a_rank, hidden, (q, kv, kv)) + rank * q + b_hidden * rank

    def mlp(intermediate: int) -> int:  # gate_up (two slices) and down
        share = intermediate // tp
        return _column(rank, a_rank, hidden, (share, share)) + rank * share + b_hidden * rank

    experts = 0
    if arch.is_moe:
        share = arch.moe_intermediate_size // tp
        # per expert: w13's A (gate and up) and B, w2's A and B; the router (a replicated
        # linear: A rank x hidden, B experts x rank); the shared experts as a dense MLP
        per_expert = 2 * a_rank * hidden + 2 * share * rank + rank * share + b_hidden * rank
        experts = arch.num_experts * per_expert + rank * hidden + arch.num_experts * rank
        if arch.shared_intermediate_size:
            experts += mlp(arch.shared_intermediate_size)
    per_stage = math.ceil(arch.num_layers / pipeline_parallel)
    elements = 0
    for layer in range(arch.num_layers):
        if arch.mixer(layer) != NO_MIXER:
            elements += attention
        ffn = arch.ffn(layer)
        if ffn == DENSE:
            elements += mlp(arch.intermediate_size)
        elif ffn == MOE:
            elements += experts
    # each pipeline stage holds its own layers' adapters: the busiest stage's share
    elements = elements * per_stage / arch.num_layers
    return float(elements * max_loras * dtype_bytes(dtype))
