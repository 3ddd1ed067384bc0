"""What PyTorch's CUDA caching allocator holds beyond the bytes of the weight tensors.

Each parameter is its own allocation. A request over 1 MiB goes to the large pool; one of 10 MiB
or more gets a segment of its size rounded up to 2 MiB, and the rest of that segment is split
off as a free block only when it is over 1 MiB; requests between 1 and 10 MiB share 20 MiB
segments (c10/cuda/CUDACachingAllocator.cpp: kSmallSize, kMinLargeAlloc, kRoundLarge,
kLargeBuffer, should_split); a request takes the smallest cached block it fits in first. So a
tensor of 10 MiB or more leaves up to 2 MiB of its segment unused, and the tensors between 1
and 10 MiB leave the ends of their shared segments. An engine that reads the device's free
memory (SGLang's "Load weight end ... mem usage", from torch.cuda.mem_get_info) counts it with
the weights. ``held`` replays the weight tensors' requests in the order a model builds them.

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
LARGE_BUFFER = 20 * MIB  # kLargeBuffer: the segment smaller large requests share
ROUND_LARGE = 2 * MIB  # kRoundLarge
MIN_BLOCK = 512  # kMinBlockSize: every request is rounded up to it


def _rounded(size: float) -> int:
    return -(-int(size) // MIN_BLOCK) * MIN_BLOCK


def segment(size: int) -> int:
    """The segment the allocator asks the driver for when no cached block fits ``size``."""
    if size < MIN_LARGE_ALLOC:
        return LARGE_BUFFER
    return -(-size // ROUND_LARGE) * ROUND_LARGE


def held(sizes: list[float]) -> float:
    """Bytes the large pool holds beyond ``sizes``, requested in that order and never freed:
    each request takes the smallest cached block it fits in (best fit), else a new segment;
    what is left of the block is split off as a cached block only when it is over 1 MiB."""
    free: list[int] = []
    segments = requested = 0
    for raw in sizes:
        size = _rounded(raw)
        if size <= SMALL_SIZE:
            continue  # the small pool: 2 MiB blocks of norms and biases, left out
        requested += size
        fits = [block for block in free if block >= size]
        if fits:
            block = min(fits)
            free.remove(block)
        else:
            block = segment(size)
            segments += block
        if block - size > SMALL_SIZE:
            free.append(block - size)
    return float(segments - requested)


def slack(size: float) -> float:
    """Bytes the allocator holds beyond one tensor of ``size`` bytes in a segment of its own
    (10 MiB or more); smaller tensors share segments (see held)."""
    size = _rounded(size)
    return float(segment(size) - size) if size >= MIN_LARGE_ALLOC else 0.0


def weights_slack(arch: Any, tp: int, pp: int, dtype_bytes: float) -> float:
    """Bytes per rank the allocator holds beyond ``arch``'s weight tensors in the model dtype
    at tensor parallel ``tp`` (on the busiest pipeline stage); remembered on the architecture,
    as every what-if budget asks again."""
    key = ("allocator_slack", tp, pp, dtype_bytes)
    return arch._memo(key, lambda: held(weight_tensors(arch, tp, pp, dtype_bytes)))


def weight_tensors(arch: Any, tp: int, pp: int, dtype_bytes: float) -> list[float]:
    """Bytes of the per-rank weight tensors the allocator is asked for, in the order the model
    builds them: the embedding, each layer's attention (fused qkv, o) and MLP (fused gate/up,
    down; a MoE layer's fused expert tensors and shared experts), the lm_head."""
    from .architecture import DENSE, FULL, MOE, SLIDING

    h = arch.hidden_size
    attention: list[float] = []
    if not arch.is_mla and arch.num_attention_heads:
        hd = arch.head_dim
        q = (2 if arch.attn_output_gate else 1) * arch.num_attention_heads * hd // tp
        kv = 2 * arch.kv_heads_per_rank(tp) * hd
        o = arch.num_attention_heads * hd // tp
        attention = [(q + kv) * h * dtype_bytes, o * h * dtype_bytes]
    up = 2 if arch.mlp_matrices == 3 else 1  # gate and up fused, or up alone
    padded = -(-arch.vocab_size // 64) * 64  # vocab-parallel layers pad to 64 rows
    embed = padded // tp * h * dtype_bytes
    stages = arch._stage_layers(pp)
    tensors: list[float] = [embed] if stages.start == 0 else []
    for layer in stages:
        if arch.mixer(layer) in (FULL, SLIDING):
            tensors += attention
        kind = arch.ffn(layer)
        if kind == DENSE:
            width = arch.intermediate_size // tp
            tensors += [up * width * h * dtype_bytes, width * h * dtype_bytes]
        elif kind == MOE and arch.num_experts:
            width = arch.moe_intermediate_size // tp
            tensors += [arch.num_experts * up * width * h * dtype_bytes]
            tensors += [arch.num_experts * width * h * dtype_bytes]
            if arch.shared_intermediate_size:
                shared = arch.shared_intermediate_size // tp
                tensors += [up * shared * h * dtype_bytes, shared * h * dtype_bytes]
    if not arch.tie_word_embeddings and stages.stop == arch.num_layers:
        tensors.append(embed)
    return tensors
