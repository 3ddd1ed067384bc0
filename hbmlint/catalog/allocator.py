"""What PyTorch's CUDA caching allocator holds beyond the bytes of the weight tensors.

Each parameter is its own allocation. A request over 1 MiB goes to the large pool; one of 10 MiB
or more gets a segment of its size rounded up to 2 MiB, and the rest of that segment is split
off as a free block only when it is over 1 MiB; requests between 1 and 10 MiB share 20 MiB
segments (c10/cuda/CUDACachingAllocator.cpp: kSmallSize, kMinLargeAlloc, kRoundLarge,
kLargeBuffer, should_split). A split-off rest serves only a later request that fits in it, and
no weight tensor of a model is that small in the large pool; so per tensor of 10 MiB or more the
device holds up to 2 MiB more than the tensor. An engine that reads the device's free memory
(SGLang's "Load weight end ... mem usage", from torch.cuda.mem_get_info) counts it with the
weights.

Whole-model shapes are mostly multiples of 2 MiB, which is why a single GPU shows none of it;
split over tensor parallelism they often are not (Qwen3-14B's down projection is 85 MiB at TP 2
and 42.5 MiB at TP 4). Counted here for the tensors whose per-rank shape the architecture
gives exactly, in the model dtype: attention's fused qkv and o projections (not MLA), the dense
MLP's fused gate/up and down projections, a MoE layer's fused expert tensors split over TP,
the embedding and the lm_head. Quantized formats are left out: their packed weights and
scales are laid out per format.
"""

from __future__ import annotations

from typing import Any

MIB = 2**20
SMALL_SIZE = 1 * MIB  # kSmallSize: the largest request the small pool serves
MIN_LARGE_ALLOC = 10 * MIB  # kMinLargeAlloc: from here a request gets a segment of its own
ROUND_LARGE = 2 * MIB  # kRoundLarge
MIN_BLOCK = 512  # kMinBlockSize: every request is rounded up to it


def slack(size: float) -> float:
    """Bytes the allocator holds beyond one tensor of ``size`` bytes."""
    size = -(-int(size) // MIN_BLOCK) * MIN_BLOCK
    if size < MIN_LARGE_ALLOC:
        return 0.0  # the small pool, or packed into a shared 20 MiB segment
    return float(-(-size // ROUND_LARGE) * ROUND_LARGE - size)


def weights_slack(arch: Any, tp: int, pp: int, dtype_bytes: float) -> float:
    """Bytes per rank the allocator holds beyond ``arch``'s weight tensors in the model dtype
    at tensor parallel ``tp`` (on the busiest pipeline stage); remembered on the architecture,
    as every what-if budget asks again."""
    key = ("allocator_slack", tp, pp, dtype_bytes)
    return arch._memo(key, lambda: _weights_slack(arch, tp, pp, dtype_bytes))


def _weights_slack(arch: Any, tp: int, pp: int, dtype_bytes: float) -> float:
    from .architecture import DENSE, FULL, MOE, SLIDING

    h = arch.hidden_size
    total = 0.0
    if not arch.is_mla and arch.num_attention_heads:
        hd = arch.head_dim
        q = (2 if arch.attn_output_gate else 1) * arch.num_attention_heads * hd // tp
        kv = 2 * arch.kv_heads_per_rank(tp) * hd
        attention = slack((q + kv) * h * dtype_bytes)
        attention += slack(arch.num_attention_heads * hd // tp * h * dtype_bytes)
    else:
        attention = 0.0
    up = 2 if arch.mlp_matrices == 3 else 1  # gate and up fused, or up alone
    for layer in arch._stage_layers(pp):
        if arch.mixer(layer) in (FULL, SLIDING):
            total += attention
        kind = arch.ffn(layer)
        if kind == DENSE:
            width = arch.intermediate_size // tp
            total += slack(up * width * h * dtype_bytes) + slack(width * h * dtype_bytes)
        elif kind == MOE and arch.num_experts:
            width = arch.moe_intermediate_size // tp
            total += slack(arch.num_experts * up * width * h * dtype_bytes)
            total += slack(arch.num_experts * width * h * dtype_bytes)
            if arch.shared_intermediate_size:
                shared = arch.shared_intermediate_size // tp
                total += slack(up * shared * h * dtype_bytes) + slack(shared * h * dtype_bytes)
    padded = -(-arch.vocab_size // 64) * 64  # vocab-parallel layers pad to 64 rows
    embed = slack(padded // tp * h * dtype_bytes)
    total += embed if arch.tie_word_embeddings or pp > 1 else 2 * embed
    return total
