"""What hbmlint needs to know of a model, read from a Hugging Face config.json.

A model is a stack of layers. Each layer has a *mixer* (full attention, sliding-window
attention, or a fixed-size recurrent state as in Mamba / gated delta-net layers, or none) and a
*feed-forward* part (a dense MLP, a mixture of experts, or none). Attention is standard
(GQA/MQA/MHA with its own head_dim) or MLA (a latent of kv_lora_rank + qk_rope_head_dim, one
"head" replicated on every TP rank). Weights are counted per part so that a quantized format
touches only the parts it quantizes, and per rank the way vLLM shards them.
"""

from __future__ import annotations

import math
import operator
import re
from dataclasses import field, replace
from functools import cached_property, reduce
from itertools import chain, groupby, repeat
from typing import Any

from ..records import dataclass
from ..units import Q

FULL, SLIDING, STATE, NO_MIXER = "full", "sliding", "state", "none"
DENSE, MOE, NO_FFN = "dense", "moe", "none"
# fp8_ds_mla: vLLM's FlashMLA layout, 512 fp8 latent values, 4 fp32 scales and the 64-wide
# rope part in bf16 = 656 bytes per token and layer (vllm/v1/kv_cache_interface.py).
FP8_DS_MLA_BYTES = 656
# DeepSeek Sparse Attention (DeepSeek-V3.2, GLM-5): each layer's indexer caches one key of
# index_head_dim per token beside the MLA latent, in fp8 with an fp32 scale per 128 values:
# 128 + 4 = 132 bytes (vLLM models/deepseek_v2.py DeepseekV32IndexerCache, a uint8
# MLAAttentionSpec of head_dim + head_dim // 128 * 4; sglang mem_cache/memory_pool.py
# NSATokenToKVPool index_k_with_scale_buffer, the same per token)
DSA_INDEXER_SCALE_BLOCK = 128


# Every whole number up to 2**53 is a float, and so is the sum of two that stays within it.
_EXACT = 2**53


def _whole(value: Any) -> int | None:
    """``value`` as an int where it is a whole number >= 0 (an int, or a float that is one)."""
    if type(value) is int:
        return value if value >= 0 else None
    if type(value) is float and value >= 0 and value.is_integer():
        return int(value)
    return None


def sum_in_order(runs: Any) -> float:
    """``reduce(operator.add, sequence, 0.0)`` over the sequence that repeats each run's parts
    ``count`` times, for (parts, count) runs: the float a loop over the layers adds up, one
    part at a time. Where every part is a whole number >= 0 and the total is at most 2**53,
    every partial sum of that loop is exact, so its result is the exact total, counted here in
    integers; otherwise the additions run in order."""
    total = 0
    for parts, count in runs:
        each = 0
        for part in parts:
            whole = _whole(part)
            if whole is None:
                break
            each += whole
        else:
            total += each * count
            continue
        break
    else:
        if total <= _EXACT:
            return float(total)
    sequence: list[Any] = []
    for parts, count in runs:
        sequence += list(parts) * count
    return reduce(operator.add, sequence, 0.0)


def repeated_sum(value: Any, count: int) -> float:
    """``reduce(operator.add, repeat(value, count), 0.0)``: ``value`` added ``count`` times."""
    return sum_in_order((((value,), count),))


class ConfigError(ValueError):
    """A config.json that cannot be read as a transformer model."""


class UnmodelledArchitecture(ConfigError):
    """A real model whose layers hbmlint's arithmetic does not describe: budgeting it would give
    figures with no footing, so its budget is not checked (a warning, not a broken config)."""


class NoKvCacheModel(UnmodelledArchitecture):
    """An encoder-only model vLLM serves with no KV cache (catalog/encoders.py): there is no
    KV-cache budget to check, so saying so is a note, not a warning."""


@dataclass(frozen=True)
class Sharding:
    """The ranks a model's parts are split over where they are not all split over the whole TP
    group. SGLang's data-parallel attention (hbmlint/dp_attention.py) builds the attention
    layers, linear-attention mixers and KV heads over an attention-TP group of TP / D GPUs,
    the input embedding over that group or whole on each GPU, lm_head over the whole TP group
    or the attention group. 0 stands for the whole TP group; experts follow TP or EP."""

    attention: int = 0  # attention projections, state mixers and KV heads
    embed: int = 0  # the input embedding (1: whole on every GPU)
    lm_head: int = 0
    dense_mlp: int = 0  # the MLP of dense layers
    shared_experts: int = 0  # a MoE layer's shared experts
    vision: int = 0  # the vision tower and projector (1: vLLM's --mm-encoder-tp-mode data)


@dataclass(frozen=True)
class WeightFormat:
    """Bytes per parameter of a quantized layer: packed values plus one scale (and zero) per
    group of ``group`` values."""

    name: str
    bits: float
    group: int = 0
    scale_bytes: float = 0.0
    zero_bits: float = 0.0
    # the multiples an MoE kernel rounds each expert's per-rank intermediate width and its
    # hidden size up to as it lays the experts out (quantization.yaml expert_align; 0: none)
    expert_align: int = 0
    hidden_align: int = 0

    @property
    def bytes_per_param(self) -> float:
        extra = (self.scale_bytes + self.zero_bits / 8) / self.group if self.group else 0.0
        return self.bits / 8 + extra


@dataclass(frozen=True)
class HybridPages:
    """vLLM's page layout of a hybrid attention and state-space model (KvLayout.hybrid_pages):
    the attention block in tokens, one layer's page in bytes, the layers a group holds, and
    the attention and state groups."""

    block: int
    page: int
    group: int
    full_groups: int
    state_groups: int

    @property
    def block_bytes(self) -> int:
        """One block of every layer of a group: what vLLM divides the KV cache by."""
        return self.page * self.group


def _hybrid_groups(full_layers: int, state_layers: int) -> tuple[int, int, int]:
    """(attention groups, state groups, layers a group holds) as vLLM's hybrid allocator
    groups layers of two kinds: groups of the smaller count, or of the larger when the two
    are within a quarter of each other, a kind's last group padded
    (kv_cache_utils._get_kv_cache_groups_uniform_page_size)."""
    low, high = sorted((full_layers, state_layers))
    group = high if high < low * 1.25 else low
    return math.ceil(full_layers / group), math.ceil(state_layers / group), group


def pipeline_stages(num_layers: int, pipeline_parallel: int) -> list[range]:
    """Each pipeline stage's layers as vLLM (and SGLang) split them: evenly, the remainder one
    layer each to the stages before the last, from the second-to-last back
    (vllm/distributed/utils.py get_pp_indices; VLLM_PP_LAYER_PARTITION not read)."""
    each, left = divmod(num_layers, pipeline_parallel)
    sizes = [each] * pipeline_parallel
    for i in range(2, left + 2):
        sizes[-i] += 1
    stages, start = [], 0
    for size in sizes:
        stages.append(range(start, start + size))
        start += size
    return stages


@dataclass(frozen=True)
class KvLayout:
    """Per-rank KV cost of one pipeline stage, split the way vLLM's hybrid manager splits it."""

    full_per_token: int  # bytes a token costs in the full-attention layers
    windows: tuple[tuple[int, int], ...] = ()  # (window, bytes a token) per window size
    state_per_sequence: int = 0  # recurrent state of the state-space layers, per sequence
    # the layer counts and per-layer sizes behind the sums, for vLLM's page layout
    full_layers: int = 0
    state_layers: int = 0
    attention_per_token_layer: int = 0  # K and V of one attention layer, one token
    state_per_layer: int = 0  # the largest state-space layer's state, one sequence
    # bytes a token SGLang's pool sizing counts where it differs from what the pool stores:
    # with an fp8 cache its NSA pool stores the 656-byte FlashMLA cell, but
    # profile_max_num_token counts (kv_lora_rank + qk_rope_head_dim) x 1 byte (model_runner
    # cell_size, 0.5.x); 0 where the two agree
    counted_per_token: int = 0
    # with pipeline parallelism, vLLM groups the whole model's layers and each stage pages its
    # share of every group: (attention groups, state groups, the stage's largest share)
    stage_groups: tuple[int, int, int] | None = None

    @property
    def all_layers_per_token(self) -> int:
        """Bytes a token costs when every attention layer keeps the whole context."""
        return self.full_per_token + sum(b for _, b in self.windows)

    def with_drafter_layers(self, draft_per_token: float) -> KvLayout:
        """This layout with a drafter's attention layers joined to the full-attention ones, as
        vLLM groups them when they share the KV cache (an MTP layer or an EAGLE head of the
        target's attention shape: its KV a whole number of the target's attention layers per
        token); unchanged for any other drafter."""
        per_layer = self.attention_per_token_layer
        if draft_per_token <= 0 or not per_layer:
            return self
        layers = draft_per_token / per_layer
        if abs(layers - round(layers)) > 1e-9:
            return self
        # (its layers' place in a pipeline stage's groups is not modelled: grouped as one stage)
        return replace(self, full_layers=self.full_layers + round(layers), stage_groups=None)

    def hybrid_pages(self, align: int = 16) -> HybridPages | None:
        """How vLLM's hybrid allocator pages a model of full attention and state-space layers
        (no window layers), or None for any other model. Attention blocks grow to the first
        multiple of ``align`` tokens whose page holds one layer's state, the state pages are
        padded to that size; layers are grouped by kind into groups of equal size (the
        smaller count, or the larger when the two are within a quarter of each other)
        (kv_cache_utils._get_kv_cache_groups_uniform_page_size, mamba's
        verify_and_update_config)."""
        if self.windows or not (self.full_layers and self.state_layers):
            return None
        if not self.attention_per_token_layer:
            return None
        block = math.ceil(self.state_per_layer / self.attention_per_token_layer)
        block = math.ceil(block / align) * align
        if self.stage_groups is not None:  # one pipeline stage of the whole model's groups
            full_groups, state_groups, group = self.stage_groups
        else:
            full_groups, state_groups, group = _hybrid_groups(self.full_layers, self.state_layers)
        return HybridPages(
            block=block,
            page=block * self.attention_per_token_layer,
            group=group,
            full_groups=full_groups,
            state_groups=state_groups,
        )

    def paged_request_bytes(
        self, tokens: int, align: int = 16, state_pages: int | None = 1
    ) -> float | None:
        """One request of ``tokens`` tokens as vLLM's hybrid allocator pages it (hybrid_pages),
        or None for a model it does not page so: ceil(tokens / block) pages in each attention
        group and ``state_pages`` in each state group (a block's worth where None: mamba cache
        mode "all"), each page for every layer of a group."""
        pages = self.hybrid_pages(align)
        if pages is None:
            return None
        blocks = math.ceil(tokens / pages.block)
        per_state_group = blocks if state_pages is None else state_pages
        count = pages.full_groups * blocks + pages.state_groups * per_state_group
        return float(count * pages.page * pages.group)

    def grouped_request_bytes(self, tokens: int, batched_tokens: int, block: int) -> float | None:
        """request_bytes as vLLM's hybrid allocator counts a request of a full-attention and
        sliding-window model whose layers share one page size: layers are grouped by kind into
        groups of equal size (the smallest kind's count, or the largest where all are within a
        quarter of each other), a kind's last group padded to that size ("Add 8 padding
        layers, may waste at most 15.38%" for Gemma 3 27B's 52 window layers in groups of 10),
        and each group's pages count for all its layers (kv_cache_utils
        _get_kv_cache_groups_uniform_page_size and get_max_concurrency_for_kv_cache_config).
        None where nothing is padded or the pages differ (Gemma 4's wider full layers)."""
        per_layer = self.attention_per_token_layer
        if not (self.windows and self.full_layers and per_layer) or self.state_layers:
            return None
        if self.full_per_token != self.full_layers * per_layer:
            return None
        counts = [self.full_layers]
        for _, per_token in self.windows:
            if per_token % per_layer:
                return None
            counts.append(per_token // per_layer)
        low, high = min(counts), max(counts)
        group = high if high < low * 1.25 else low
        padded = [math.ceil(n / group) * group for n in counts]
        if padded == counts:
            return None
        total = float(per_layer * padded[0] * tokens)
        for (window, _), layers in zip(self.windows, padded[1:], strict=True):
            kept = min(window - 1 + batched_tokens, tokens)
            total += per_layer * layers * (math.ceil(kept / block) + 1) * block
        return total

    def request_bytes(
        self, tokens: int, batched_tokens: int, block: int, hybrid: bool = True
    ) -> float:
        """Worst-case bytes of one request of ``tokens`` tokens (vLLM's max_memory_usage_bytes):
        window layers keep min(window - 1 + max_num_batched_tokens, tokens) tokens plus one
        block; without the hybrid manager they keep everything."""
        total = float(self.full_per_token * tokens + self.state_per_sequence)
        for window, per_token in self.windows:
            if not hybrid:
                total += per_token * tokens
                continue
            kept = min(window - 1 + batched_tokens, tokens)
            total += per_token * (math.ceil(kept / block) + 1) * block
        return total


# Dynamic-resolution vision towers (Qwen2-VL / Qwen2.5-VL) have no fixed image size: their
# processors cap an image at max_pixels 12,845,056 = 16,384 tokens after the 2 x 2 merge.
DYNAMIC_IMAGE_MAX_TOKENS = 16384


@dataclass(frozen=True)
class VisionTower:
    """The shape of a vision encoder, for the images of vLLM's multimodal profile run."""

    width: int
    intermediate: int
    patch: int
    channels: int = 3
    temporal: int = 1  # frames per patch (Qwen-VL patches video in pairs; images repeat)
    merge: int = 1  # patches merged into one language-model token (2 x 2 -> 4)
    image_size: int = 0  # fixed input resolution; 0: dynamic resolution
    tiles: int = 1  # tiles of one image (Llama 3.2 Vision: 4)
    tokens_per_image: int = 0  # language-model tokens of one image, when the config says
    cross_attention: bool = False  # features enter through cross-attention layers
    num_hidden_layers: int = 0  # vision_config.num_hidden_layers as written (0: absent)
    family: str = ""  # config.json's own model_type (qwen3_vl_moe), not the text config's
    # the width of one encoder output token, out_hidden_size x (1 + the DeepStack layers it
    # taps: Qwen3-VL hands those features over beside the merger's); 0: not given
    out_width: int = 0

    def image_patches(self, max_model_len: int | None) -> int:
        """Patches the encoder sees for one image of the largest size (a dynamic-resolution
        image no longer than max_model_len tokens, when that caps it)."""
        if self.image_size:
            return self.tiles * (self.image_size // self.patch) ** 2
        tokens = DYNAMIC_IMAGE_MAX_TOKENS
        if max_model_len is not None:
            tokens = min(tokens, max_model_len)
        return tokens * self.merge

    def image_tokens(self, max_model_len: int | None) -> int:
        """Language-model tokens (or cross-attention states) of one largest image."""
        if self.tokens_per_image:
            return self.tokens_per_image
        return max(1, self.image_patches(max_model_len) // self.merge)

    @property
    def pixel_bytes_per_patch(self) -> int:
        """Pixel values of one patch, in float32 as the processors hand them over."""
        return self.channels * self.temporal * self.patch * self.patch * 4


@dataclass(frozen=True)
class Architecture:
    """A decoder-only model (plus an optional vision tower), from its config.json."""

    name: str
    source: str
    hidden_size: int
    num_layers: int
    num_attention_heads: int
    num_kv_heads: int
    head_dim: int
    intermediate_size: int
    vocab_size: int
    tie_word_embeddings: bool
    dtype: str
    max_position_embeddings: int | None = None
    # the longest max_model_len vLLM accepts for it (see derived_max_length); None: unknown
    max_length: int | None = None
    # an upper bound on the context length SGLang derives (see sglang_max_length)
    max_length_sglang: int | None = None
    attention_bias: bool = False
    quantization: str | None = None  # the checkpoint's own format (quantization_config)
    model_type: str = ""  # config.json model_type (of the text config for multimodal models)
    # quantization_config's quant_method as vLLM reads it (checkpoint_quant_method)
    quant_method: str | None = None
    # features present in the config that hbmlint still approximates
    approximations: tuple[str, ...] = ()
    # per layer: FULL / SLIDING / STATE / NO_MIXER; empty means every layer is FULL
    mixers: tuple[str, ...] = ()
    # per layer: DENSE / MOE / NO_FFN; empty means every layer is DENSE
    ffns: tuple[str, ...] = ()
    sliding_window: int = 0
    # full-attention layers with their own head shape (Gemma 4: global_head_dim 512 and, where
    # attention_k_eq_v, num_global_key_value_heads); 0: the same as the other layers
    full_head_dim: int = 0
    full_kv_heads: int = 0
    # query heads of the sliding-window layers where they differ from num_attention_heads
    # (Step-3.5-Flash: attention_other_setting's 96 beside 64); 0: the same
    sliding_heads: int = 0
    # a head-wise output gate: a g_proj of hidden_size x heads per attention layer, split over
    # TP like q_proj (Step-3.5-Flash use_head_wise_attn_gate; vLLM step3p5.py)
    head_wise_gate: bool = False
    # Gemma 4 E2B / E4B (vLLM gemma4.py): the last num_kv_shared_layers read the KV cache of an
    # earlier layer of their kind and keep none; with use_double_wide_mlp their MLP is twice as
    # wide; per-layer embeddings (PLE) of hidden_size_per_layer_input for every layer, looked up
    # in a vocab_size_per_layer_input table and mixed in by a small gate and projection per layer
    kv_shared_layers: int = 0
    wide_mlp_layers: int = 0
    per_layer_input: int = 0
    per_layer_vocab: int = 0
    # MLA (DeepSeek-V2/V3, Kimi K2): latent KV, replicated on every TP rank
    kv_lora_rank: int = 0
    qk_rope_head_dim: int = 0
    # DSA's indexer key width (config index_head_dim, read where index_topk marks the model
    # sparse); 0: no indexer cache
    index_head_dim: int = 0
    # layers (0-based) whose indexer reuses an earlier layer's top-k and keeps no keys of its
    # own (GLM-5.2 config indexer_types "shared"); empty: every layer keeps them
    shared_indexer_layers: frozenset[int] = frozenset()
    q_lora_rank: int = 0
    qk_nope_head_dim: int = 0
    v_head_dim: int = 0
    # mixture of experts: every expert is resident
    num_experts: int = 0
    experts_per_token: int = 0
    moe_intermediate_size: int = 0
    shared_intermediate_size: int = 0  # all shared experts of one MoE layer together
    # latent MoE (Nemotron 3 Super / Ultra, Kimi-K3): the routed experts work in a
    # moe_latent_size space, entered and left through two projections replicated on every rank
    # (vLLM nemotron_h.py fc1_latent_proj / fc2_latent_proj); the shared expert stays on
    # hidden_size. Quantized like the experts unless "latent_projections" is in unquantized
    moe_latent_size: int = 0
    mlp_matrices: int = 3  # gate, up, down (2 for a plain up/down MLP)
    # state-space / linear-attention layers: parameters of one mixer, and its state elements
    state_mixer_params: int = 0
    state_conv_elements: int = 0
    state_ssm_elements: int = 0
    state_ssm_dtype: str | None = None
    # config.json mamba_ssm_cache_dtype (Nemotron-H / Nemotron 3): the SSM state's dtype the
    # checkpoint asks engines for, which some releases take (budget._vllm_state_dtype)
    state_ssm_cache_dtype: str | None = None
    vision_params: int = 0  # vision tower and projector, kept in the model dtype
    # the vision tower's shape, for the activations of vLLM's multimodal profile run
    vision: VisionTower | None = None
    # RoPE's cos/sin cache, a buffer built at load time in the model dtype: positions x
    # rotary dims (vLLM's get_rope; counted in "Model loading took")
    rotary_positions: int = 0
    rotary_dim: int = 0
    # positions vLLM's cache holds beyond rotary_positions: Gemma 3's global layers scale RoPE
    # linearly (x8), and vLLM builds their cache over the scaled length, which SGLang's logged
    # weights do not show (_rotary)
    rotary_extra_positions: int = 0
    mtp_layers: int = 0  # multi-token-prediction layers shipped in the checkpoint
    # the MTP layers' mixer and FFN kinds where the config lists them past the decoder's
    # (Step-3.5-Flash: layer_types' last entries, dense as moe_layers_enum leaves them out);
    # (): shaped as the last decoder layer with full attention (budget.mtp_cost)
    mtp_mixers: tuple[str, ...] = ()
    mtp_ffns: tuple[str, ...] = ()
    # Gemma 4 assistant drafters (model_type gemma4_assistant, Gemma4AssistantForCausalLM): the
    # target's hidden size (backbone_hidden_size) their pre_projection (2 x backbone -> hidden)
    # and post_projection (hidden -> backbone) bridge; 0 for any other model. Every layer is
    # KV-shared (num_kv_shared_layers = num_hidden_layers): Q and O projections only, K and V
    # read from the target's cache (vLLM gemma4_mtp.py Gemma4MTPAttention). With
    # use_ordered_embeddings (E2B / E4B) a centroid head of num_centroids rows beside a
    # token_ordering buffer of one int64 per token (Gemma4MTPMaskedEmbedder)
    assistant_backbone: int = 0
    assistant_centroids: int = 0
    # FP8 block quantization's (block_n, block_k) from quantization_config.weight_block_size
    weight_block: tuple[int, ...] = ()
    draft_vocab_size: int = 0  # EAGLE-3 heads: the reduced vocabulary of their lm_head
    # DFlash drafters: the target layers whose hidden states their fc fuses
    # (dflash_config.target_layer_ids, or target_layer_ids at the top as some copies write it)
    dflash_target_layers: int = 0
    weight_format: WeightFormat | None = None  # the checkpoint's format, with its group size
    # parts the checkpoint's format leaves unquantized: "attention" ("attention_inputs": all but
    # o_proj), "shared_experts", "dense_mlp"
    unquantized: frozenset[str] = field(default_factory=frozenset)
    # parts a mixed-precision checkpoint stores in another format than weight_format (ModelOpt's
    # MIXED_PRECISION: "attention" in FP8 beside NVFP4 MLPs; "lm_head", else kept in the model
    # dtype, in NVFP4), as (part, format) pairs; they apply while the checkpoint's own format does
    part_formats: tuple[tuple[str, WeightFormat], ...] = ()
    kv_cache_dtype: str | None = None  # what kv_cache_dtype "auto" means for this checkpoint
    # Medusa checkpoints: heads, and residual blocks per head (config medusa_num_heads / _layers)
    medusa_heads: int = 0
    medusa_layers: int = 0
    # gated attention (Qwen3-Next, Qwen3.5): q_proj also produces a per-head output gate, so it
    # is twice as wide (vLLM qwen3_next.py: attn_output_gate, on unless the config says false)
    attn_output_gate: bool = False
    # what a speculator head's checkpoint stores of its own beyond its layers: "embed_tokens",
    # "lm_head" (from its safetensors headers, or the catalog entry's `stores`); whether that is
    # known (headers read, or an entry that says), and which of the parts it stores are the
    # target's own tensors bit for bit (the entry's `target_copies`, from the head's card)
    head_stores: frozenset[str] = field(default_factory=frozenset)
    head_stores_known: bool = False
    head_target_copies: frozenset[str] = field(default_factory=frozenset)
    # the checkpoint as stored (safetensors headers), when hbmlint could read them
    checkpoint: Any = None
    # Where a multimodal config.json nests its text model under text_config, the head size its
    # top level gives (head_dim, or hidden_size / num_attention_heads), 0 where it gives none,
    # and the head_dim text_config states (0: none): TGI's launcher picks its attention backend
    # from these (catalog/tgi_warmup.py attention). None: the top level is the text model
    config_top_head_dim: int | None = None
    text_config_head_dim: int = 0

    def without_vision(self) -> Architecture:
        """The language model alone: no vision tower or projector weights, no image profile
        (an engine told to serve text only builds no tower)."""
        checkpoint = self.checkpoint.without_vision() if self.checkpoint is not None else None
        return replace(self, vision_params=0, vision=None, checkpoint=checkpoint)

    def stored_weights_apply(self, quantization: Any, dtype: str | None) -> bool:
        """Whether the stored tensors are what the engine loads: the checkpoint's own format,
        not quantized on the fly to another (a cast to another dtype is counted per tensor)."""
        if self.checkpoint is None or not self.checkpoint.groups:
            return False
        name = getattr(quantization, "name", quantization)
        return name in (None, "none", self.quantization)

    # ----------------------------------------------------------------- layer structure
    def mixer(self, layer: int) -> str:
        return self.layer_mixers[layer]

    def ffn(self, layer: int) -> str:
        return self.layer_ffns[layer]

    @cached_property
    def layer_mixers(self) -> tuple[str, ...]:
        """Every layer's mixer (full attention where the config lists none), for the loops
        over the layers."""
        return self.mixers or (FULL,) * self.num_layers

    @cached_property
    def layer_ffns(self) -> tuple[str, ...]:
        """Every layer's FFN kind (dense where the config lists none)."""
        return self.ffns or (DENSE,) * self.num_layers

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank > 0

    @property
    def dsa_indexer_bytes(self) -> int:
        """One layer's indexer key cache, one token: fp8 values and an fp32 scale per 128."""
        if not self.index_head_dim:
            return 0
        return self.index_head_dim + self.index_head_dim // DSA_INDEXER_SCALE_BLOCK * 4

    @property
    def is_moe(self) -> bool:
        return self.num_experts > 1

    def _stage_layers(self, pipeline_parallel: int) -> range:
        """The layers of the busiest pipeline stage (the first, which gets the remainder)."""
        per_stage = -(-self.num_layers // pipeline_parallel)
        return range(min(per_stage, self.num_layers))

    def _layer_runs(
        self, stage: int, start: int = 0
    ) -> tuple[tuple[str, str, bool, int, int], ...]:
        """Layers ``start`` to ``stage`` (the first ``stage`` layers by default) as runs of like
        layers, in order: (mixer, FFN kind, whether past the first wide MLP layer, the run's first
        layer, its length). Remembered per stage: every weights shape of a model (each TP size
        and format) walks the same runs."""
        return self._memo(("layer-runs", start, stage), lambda: self._find_layer_runs(stage, start))

    def _find_layer_runs(
        self, stage: int, start: int = 0
    ) -> tuple[tuple[str, str, bool, int, int], ...]:
        mixers, ffns = self.layer_mixers[start:stage], self.layer_ffns[start:stage]
        if len(mixers) < stage - start or len(ffns) < stage - start:
            raise IndexError("tuple index out of range")  # as indexing a layer past them would
        wide_from = max(start, min(self.num_layers - self.wide_mlp_layers, stage))
        wide = chain(repeat(False, wide_from - start), repeat(True, stage - wide_from))
        runs = []
        first = start
        for (mixer, kind, past), run in groupby(zip(mixers, ffns, wide, strict=True)):
            count = len(tuple(run))
            runs.append((mixer, kind, past, first, count))
            first += count
        return tuple(runs)

    # ----------------------------------------------------------------- parameters
    def _head_shape(self, full: bool) -> tuple[int, int]:
        """(head_dim, KV heads) of a full-attention layer (``full``) or of the others."""
        if full:
            return self.full_head_dim or self.head_dim, self.full_kv_heads or self.num_kv_heads
        return self.head_dim, self.num_kv_heads

    def _attention_parts(self, full: bool = False) -> tuple[float, float, float]:
        """(split over TP, K/V projections, replicated) parameters of one attention layer."""
        h = self.hidden_size
        heads = self.num_attention_heads
        if self.is_mla:
            qk_dim = self.qk_nope_head_dim + self.qk_rope_head_dim
            q = self.q_lora_rank * heads * qk_dim if self.q_lora_rank else h * heads * qk_dim
            kv_b = self.kv_lora_rank * heads * (self.qk_nope_head_dim + self.v_head_dim)
            o = heads * self.v_head_dim * h
            if self.attn_output_gate:  # Kimi-K3's MLA output gate: a g_proj as wide as o_proj
                o *= 2
            # q_a and kv_a projections are replicated linear layers in vLLM
            replicated = h * (self.kv_lora_rank + self.qk_rope_head_dim)
            if self.q_lora_rank:
                replicated += h * self.q_lora_rank + self.q_lora_rank
            return q + kv_b + o, 0.0, replicated + self.kv_lora_rank
        hd, kv_heads = self._head_shape(full)
        heads = self._query_heads(full)
        split = (3 if self.attn_output_gate else 2) * h * heads * hd
        if self.head_wise_gate:
            split += h * heads
        # a Gemma 4 assistant's layers have no K/V projections (they read the target's cache)
        kv = 0 if self.assistant_backbone else 2 * h * kv_heads * hd
        if self.attention_bias:
            split += heads * hd
            kv += 2 * kv_heads * hd
        return split, kv, 0.0

    def _query_heads(self, full: bool) -> int:
        """Query heads of a full-attention layer (``full``) or of the others."""
        return self.num_attention_heads if full else self.sliding_heads or self.num_attention_heads

    def _output_params(self, full: bool = False) -> float:
        """The output projection's share of ``_attention_parts``' split parameters."""
        if self.is_mla:
            return float(self.num_attention_heads * self.v_head_dim * self.hidden_size)
        return float(self.hidden_size * self._query_heads(full) * self._head_shape(full)[0])

    def _ple_parts(self) -> tuple[float, float, float]:
        """Per-layer embeddings: (the vocab-parallel table, the projection of the hidden state
        split over TP, the gate and projection of one layer, replicated)."""
        if not self.per_layer_input:
            return 0.0, 0.0, 0.0
        width = self.num_layers * self.per_layer_input
        return (
            float(self.per_layer_vocab * width),
            float(self.hidden_size * width),
            float(2 * self.hidden_size * self.per_layer_input),
        )

    def _ffn_parts(self, kind: str, layer: int = 0) -> tuple[float, float, float]:
        """(experts, shared experts or dense MLP, router) parameters of one layer's FFN."""
        h = self.hidden_size
        if kind == MOE:
            width = self.moe_latent_size or h
            experts = self.num_experts * self.mlp_matrices * width * self.moe_intermediate_size
            shared = self.mlp_matrices * h * self.shared_intermediate_size
            return experts, shared, h * self.num_experts
        if kind == DENSE:
            wide = 2 if layer >= self.num_layers - self.wide_mlp_layers else 1
            return 0.0, self.mlp_matrices * h * self.intermediate_size * wide, 0.0
        return 0.0, 0.0, 0.0

    @cached_property  # a loop over the layers, asked for by every what-if budget
    def parameters(self) -> int:
        """Total parameters, as a model card counts them (every expert, the vision tower;
        MTP layers excluded)."""
        # what each layer adds, in order, worked out once per run of like layers and added by
        # sum_in_order (the float a layer-by-layer loop gives, to the last bit; _weight_bytes)
        runs: list[tuple[list[Any], int]] = []
        for mixer, kind, _, first, count in self._layer_runs(self.num_layers):
            parts: list[Any] = []
            if mixer in (FULL, SLIDING):
                parts.append(sum(self._attention_parts(mixer == FULL)))
            elif mixer == STATE:
                parts.append(self.state_mixer_params)
            parts.append(sum(self._ffn_parts(kind, first)) + 2 * self.hidden_size)
            if kind == MOE and self.moe_latent_size:
                parts.append(2 * self.hidden_size * self.moe_latent_size)
            parts.append(self._ple_parts()[2])
            runs.append((parts, count))
        total = sum_in_order(runs)
        embed = self.vocab_size * self.hidden_size
        lm_head = 0 if self.tie_word_embeddings else embed
        table, projection, _ = self._ple_parts()
        total += table + projection
        total += sum(self._assistant_parts())
        return int(total + embed + lm_head + self.hidden_size + self.vision_params)

    def _assistant_parts(self) -> tuple[float, float]:
        """A Gemma 4 assistant's own parts beside its layers and vocabulary table: (the pre-
        and post-projections between the target's width and its own, split over TP; the
        centroid head, replicated). (0, 0) for any other model."""
        if not self.assistant_backbone:
            return 0.0, 0.0
        projections = 3 * self.assistant_backbone * self.hidden_size  # 2b x h in, h x b out
        return float(projections), float(self.assistant_centroids * self.hidden_size)

    @property
    def active_intermediate_size(self) -> int:
        """The MLP width one token goes through (routed experts plus shared ones for MoE)."""
        if self.is_moe:
            moe = self.experts_per_token * self.moe_intermediate_size
            moe += self.shared_intermediate_size
            return max(moe, self.intermediate_size if DENSE in self.ffns else 0)
        return self.intermediate_size

    def kv_heads_per_rank(self, tensor_parallel: int, full: bool = False) -> int:
        """KV heads each TP rank holds: replicated once TP exceeds the KV head count."""
        return max(1, self._head_shape(full)[1] // tensor_parallel)

    def weight_bytes_per_rank(
        self,
        tensor_parallel: int,
        pipeline_parallel: int,
        quantization: str | WeightFormat | None,
        dtype: str | None = None,
        expert_parallel: int = 1,
        redundant_experts: int = 0,
        split: Sharding | None = None,
        stage: int | None = None,
    ) -> Any:
        """Bytes of weights on the busiest GPU (with PP: of the heaviest stage, or of pipeline
        stage ``stage``). Linear layers are split over TP (K/V projections
        replicated once TP exceeds the KV heads, MLA's down-projections on every rank), experts
        over EP when expert parallelism is on (each rank holding whole experts) and over TP
        otherwise, embeddings vocab-parallel, layers over PP. The format quantizes the linear
        layers it covers; embeddings, lm_head, norms, routers and the vision tower stay in the
        model dtype. ``split``: the parts split over other ranks than TP (Sharding)."""
        key = (
            tensor_parallel,
            pipeline_parallel,
            quantization,
            dtype,
            expert_parallel,
            redundant_experts,
            split,
            stage,
        )
        known = self._weights_by_shape
        try:
            found = known.get(key)
        except TypeError:  # an unhashable argument: computed every time
            found = key = None
        if found is None:
            found = Q(
                self._weight_bytes(
                    tensor_parallel,
                    pipeline_parallel,
                    quantization,
                    dtype,
                    expert_parallel,
                    redundant_experts,
                    split,
                    stage,
                ),
                "byte",
            )
            if key is not None:
                known[key] = found
        return found

    # Values worked out from this (frozen, so unchanging) architecture, remembered on it: every
    # what-if budget of a deployment asks again for the same weights and layouts. Each kind
    # has a dict of its own, keyed on the plain arguments alone (a run meets a few shapes of
    # each model), so a hit is one tuple and one lookup, with no closure made for the miss.
    @cached_property
    def _weights_by_shape(self) -> dict[tuple, Any]:
        return {}

    @cached_property
    def _kv_layouts(self) -> dict[tuple, KvLayout]:
        return {}

    def _memo(self, key: tuple, compute: Any) -> Any:
        """``compute()``, remembered on this architecture under ``key`` (for the values other
        modules work out from it: the allocator's slack, the roofline's shapes)."""
        memo = self.__dict__.setdefault("_memo_values", {})
        try:
            if key in memo:
                return memo[key]
        except TypeError:  # an unhashable argument: computed every time
            return compute()
        memo[key] = value = compute()
        return value

    def _weight_bytes(
        self,
        tp: int,
        pp: int,
        quantization: str | WeightFormat | None,
        dtype: str | None,
        expert_parallel: int,
        redundant_experts: int = 0,
        split: Sharding | None = None,
        stage: int | None = None,
    ) -> float:
        from . import dtype_bytes, weight_format

        dense = dtype_bytes(dtype or self.dtype)
        rope = self.rotary_positions * self.rotary_dim * dense if self.vocab_size else 0.0
        if self.stored_weights_apply(quantization, dtype):
            stored = self.checkpoint.bytes_per_rank(
                self,
                tp,
                pp,
                expert_parallel,
                dtype_bytes=dense,
                redundant_experts=redundant_experts,
                split=split,
                stage=stage,
            )
            return stored + rope
        fmt = weight_format(quantization, self)
        quant = fmt.bytes_per_param if fmt else dense
        # a mixed checkpoint's other formats hold only while its own format is the one loaded
        others = dict(self.part_formats) if fmt and fmt.name == self.quantization else {}

        def linear(part: str) -> float:
            if part in self.unquantized:
                return dense
            return others[part].bytes_per_param if part in others else quant

        split = split or Sharding()
        attn_tp = split.attention or tp

        def attention_bytes(full: bool) -> float:
            kv_share = self.kv_heads_per_rank(attn_tp, full) / self._head_shape(full)[1]
            split_part, kv, replicated = self._attention_parts(full)
            if "attention_inputs" in self.unquantized:  # only o_proj in the checkpoint's format
                output = self._output_params(full)
                inputs = (split_part - output) / attn_tp + kv * kv_share
                return inputs * dense + output / attn_tp * linear("attention") + replicated * dense
            return (split_part / attn_tp + kv * kv_share) * linear("attention") + replicated * dense

        attention = attention_bytes(False)
        own_shape = self.full_head_dim or self.full_kv_heads or self.sliding_heads
        attention_full = attention_bytes(True) if own_shape else attention
        expert_ranks = expert_parallel if expert_parallel > 1 else tp
        # vLLM's EPLB adds redundant copies of experts, spread over the EP ranks with the rest
        experts_here = (
            math.ceil((self.num_experts + redundant_experts) / expert_ranks) / self.num_experts
            if expert_parallel > 1
            else 1 / tp
        )
        ple_layer = self._ple_parts()[2] * quant  # a PLE layer's gate and projection

        def layer_bytes(mixer: str, kind: str, layer: int) -> tuple[float, ...]:
            """What one layer adds to the total, each part as the loop adds it."""
            parts = []
            if mixer in (FULL, SLIDING):
                parts.append(attention_full if mixer == FULL else attention)
            elif mixer == STATE:
                parts.append(self.state_mixer_params / attn_tp * linear("attention"))
            experts, shared, router = self._ffn_parts(kind, layer)
            expert_bytes = self._padded_experts(experts, fmt, expert_ranks)
            shared_part = "shared_experts" if kind == MOE else "dense_mlp"
            parts.append(expert_bytes * experts_here * quant)
            shared_tp = (split.shared_experts if kind == MOE else split.dense_mlp) or tp
            parts.append(shared / shared_tp * linear(shared_part) + router * dense)
            if kind == MOE and self.moe_latent_size:  # replicated on every rank
                parts.append(
                    2 * self.hidden_size * self.moe_latent_size * linear("latent_projections")
                )
            parts.append(2 * self.hidden_size * dense)  # norms
            parts.append(ple_layer)
            return tuple(parts)

        # A layer's bytes depend on the layer only through its mixer, its FFN kind and, for a
        # dense FFN, whether it is one of the wide_mlp_layers: worked out once per such kind,
        # then added layer by layer, part by part, in the order a layer-by-layer sum takes
        # (sum_in_order: the same float result to the last bit, with no Python loop over the
        # layers: a run meets each model shape once, and a 100-layer model's loop cost more
        # than the rest of its budget).
        kinds: dict[tuple[str, str, bool], tuple[float, ...]] = {}

        def stage_bytes(layers: range, first_stage: bool, last_stage: bool) -> float:
            runs: list[tuple[tuple[float, ...], int]] = []
            for mixer, kind, wide, first, count in self._layer_runs(layers.stop, layers.start):
                shape = (mixer, kind, kind == DENSE and wide)
                parts = kinds.get(shape)
                if parts is None:
                    parts = kinds[shape] = layer_bytes(mixer, kind, first)
                runs.append((parts, count))
            total = sum_in_order(runs)
            if last_stage:
                total += self.hidden_size * dense  # the final norm
            table, projection, _ = self._ple_parts()  # PLE: on the first stage with PP
            if first_stage:
                total += table / (split.embed or tp) * dense + projection / tp * quant
            embed = self.vocab_size * self.hidden_size / (split.embed or tp)
            lm_head = self.vocab_size * self.hidden_size / (split.lm_head or tp)
            if self.tie_word_embeddings:
                lm_head = 0
            # with PP the first stage holds the embedding and the last the lm_head
            head = others["lm_head"].bytes_per_param if "lm_head" in others else dense
            if pp == 1:
                total += embed * dense + lm_head * head
            elif first_stage:
                total += embed * dense
            elif last_stage:
                total += lm_head * head
            if first_stage:
                total += self.vision_params / (split.vision or tp) * dense
            projections, centroids = self._assistant_parts()
            if projections:
                # vLLM gemma4_mtp.py: pre_projection a ColumnParallelLinear, post_projection a
                # RowParallelLinear (split over TP, in the drafter's format); the centroid head
                # an nn.Linear (whole, model dtype) beside its int64 token_ordering buffer
                total += projections / tp * quant + centroids * dense
                total += self.vocab_size * 8 if centroids else 0
            # the RoPE cache, whole on every rank; parts without embeddings of their own (MTP
            # layers, EAGLE heads) share the target's (vLLM's get_rope reuses equal instances)
            return total + rope

        if pp <= 1:
            return stage_bytes(range(self.num_layers), True, True)
        # each stage's own layers (vLLM's get_pp_indices: the remainder to the later stages),
        # the embedding and vision tower on the first, the final norm and lm_head on the last
        stages = pipeline_stages(self.num_layers, pp)
        each = [stage_bytes(st, i == 0, i == len(stages) - 1) for i, st in enumerate(stages)]
        return max(each) if stage is None else each[stage]

    def _padded_experts(self, experts: float, fmt: WeightFormat | None, ranks: int) -> float:
        """Some MoE kernels pad each expert's intermediate size per rank (vLLM's MXFP4 kernels
        round it up to a multiple of 256; gpt-oss 2880 becomes 3072), and some its hidden size
        too (the Marlin MXFP4 layout: 256)."""
        align = fmt.expert_align if fmt else 0
        if not experts or not align:
            return experts
        per_rank = self.moe_intermediate_size / ranks
        padded = experts * math.ceil(per_rank / align) * align / per_rank
        hidden = fmt.hidden_align if fmt else 0
        if hidden and self.hidden_size:
            padded *= math.ceil(self.hidden_size / hidden) * hidden / self.hidden_size
        return padded

    # ----------------------------------------------------------------- KV cache
    def _attention_bytes_per_token(
        self, tensor_parallel: int, kv_bytes: float, mla_fp8: bool, full: bool = False
    ):
        if self.is_mla:  # one latent "head", replicated on every rank
            indexer = self.dsa_indexer_bytes
            if mla_fp8:
                return FP8_DS_MLA_BYTES + indexer
            return (self.kv_lora_rank + self.qk_rope_head_dim) * kv_bytes + indexer
        head_dim = self._head_shape(full)[0]
        return 2 * self.kv_heads_per_rank(tensor_parallel, full) * head_dim * kv_bytes

    def kv_layout(
        self, tensor_parallel: int, pipeline_parallel: int, kv_bytes: float, kv_dtype: str = ""
    ) -> KvLayout:
        """The KV cost of the busiest PP stage on one TP rank."""
        key = (tensor_parallel, pipeline_parallel, kv_bytes, kv_dtype)
        known = self._kv_layouts
        found = known.get(key)
        if found is None:
            found = known[key] = self._kv_layout(
                tensor_parallel, pipeline_parallel, kv_bytes, kv_dtype
            )
        return found

    def stage_kv_layouts(
        self, tensor_parallel: int, pipeline_parallel: int, kv_bytes: float, kv_dtype: str = ""
    ) -> tuple[KvLayout, ...]:
        """Each pipeline stage's own KV cost on one TP rank, where every layer of the model is
        full attention (no windows, no state): () otherwise, or without PP."""
        if pipeline_parallel <= 1:
            return ()
        key = ("stage-kv", tensor_parallel, pipeline_parallel, kv_bytes, kv_dtype)

        def layouts() -> tuple[KvLayout, ...]:
            stages = pipeline_stages(self.num_layers, pipeline_parallel)
            found = tuple(
                self._stage_kv_layout(tensor_parallel, st, kv_bytes, kv_dtype) for st in stages
            )
            if any(x.windows or x.state_layers or x.state_per_sequence for x in found):
                return ()
            return found

        return self._memo(key, layouts)

    def swa_pool_bytes(
        self, tensor_parallel: int, pipeline_parallel: int, kv_bytes: float
    ) -> tuple[float, float]:
        """(full-attention, window) bytes a token of the busiest stage on one rank, every
        attention layer counted (SGLang gives Gemma 4's KV-shared layers a pool of their own)."""
        mixers = self.layer_mixers
        stage = self._stage_layers(pipeline_parallel)
        kinds = mixers[: len(stage)]
        full = kinds.count(FULL) * self._attention_bytes_per_token(
            tensor_parallel, kv_bytes, False, full=True
        )
        window = kinds.count(SLIDING) * self._attention_bytes_per_token(
            tensor_parallel, kv_bytes, False
        )
        return float(full), float(window)

    def _kv_layout(
        self, tensor_parallel: int, pipeline_parallel: int, kv_bytes: float, kv_dtype: str
    ) -> KvLayout:
        if pipeline_parallel <= 1:
            return self._stage_kv_layout(
                tensor_parallel, range(self.num_layers), kv_bytes, kv_dtype
            )
        # each stage sizes the KV cache for its own layers and the engine keeps the fewest
        # blocks of any (vLLM's get_kv_cache_configs): the stage whose tokens cost the most
        # binds, which need not be the largest one where layer kinds alternate (Kimi-K3 at
        # PP 2: 11 MLA layers on the first stage, 13 on the second)
        stages = pipeline_stages(self.num_layers, pipeline_parallel)
        layouts = [self._stage_kv_layout(tensor_parallel, st, kv_bytes, kv_dtype) for st in stages]
        if any(layout.windows for layout in layouts) or not any(
            layout.full_layers and layout.state_layers for layout in layouts
        ):
            return max(layouts, key=lambda x: (x.all_layers_per_token, x.state_per_sequence))
        # a hybrid of attention and state layers: vLLM groups the whole model's layers, each
        # stage pages its share of every group, and a stage's pages hold its largest share
        mixers = self.layer_mixers
        owned = self.num_layers - self.kv_shared_layers
        full = [i for i in range(owned) if mixers[i] == FULL]
        state = [i for i in range(self.num_layers) if mixers[i] == STATE]
        full_groups, state_groups, _ = _hybrid_groups(len(full), len(state))
        groups = [full[i::full_groups] for i in range(full_groups)]
        groups += [state[i::state_groups] for i in range(state_groups)]

        def largest_share(stage: range) -> int:
            return max(sum(1 for layer in group if layer in stage) for group in groups)

        shares = [largest_share(stage) for stage in stages]
        binding = max(
            range(len(stages)),
            key=lambda i: (
                shares[i],
                layouts[i].all_layers_per_token,
                layouts[i].state_per_sequence,
            ),
        )
        return replace(layouts[binding], stage_groups=(full_groups, state_groups, shares[binding]))

    def _stage_kv_layout(
        self, tensor_parallel: int, stage: range, kv_bytes: float, kv_dtype: str
    ) -> KvLayout:
        """The KV cost of the layers of one pipeline stage on one TP rank."""
        per_layer = self._attention_bytes_per_token(
            tensor_parallel, kv_bytes, kv_dtype == "fp8_ds_mla"
        )
        per_full_layer = self._attention_bytes_per_token(
            tensor_parallel, kv_bytes, kv_dtype == "fp8_ds_mla", full=True
        )
        full = 0.0
        window = 0.0
        state = 0.0
        full_layers = state_layers = 0
        shared_keys = 0  # indexer keys the layers with a shared indexer do not keep
        # what the loop reads of the architecture, read once: the layers' mixers and where the
        # KV-shared layers begin (Gemma 4's last kv_shared_layers keep no KV cache of their own)
        mixers = self.layer_mixers
        owned = self.num_layers - self.kv_shared_layers
        shared_indexer, indexer = self.shared_indexer_layers, self.dsa_indexer_bytes
        # Each sum adds one layer's figure per layer of its kind, in layer order: counted and
        # folded by repeated_sum, not a Python loop over the layers (the same float results to
        # the last bit). Layers whose indexer is shared subtract within the sum: the loop below.
        attending = mixers[stage.start : max(stage.start, min(owned, stage.stop))]
        fast = not shared_indexer and len(mixers) >= stage.stop
        if fast:
            full_layers = attending.count(FULL)
            state_layers = mixers[stage.start : stage.stop].count(STATE)
            full = repeated_sum(per_full_layer, full_layers)
            window = repeated_sum(per_layer, attending.count(SLIDING))
            if state_layers:
                state_each = self.state_bytes_per_layer(tensor_parallel)
                state = repeated_sum(state_each, state_layers)
        for layer in () if fast else stage:
            mixer = mixers[layer]
            if mixer in (FULL, SLIDING) and layer >= owned:
                continue
            if mixer == FULL:
                full += per_full_layer
                full_layers += 1
                if layer in shared_indexer:
                    shared_keys += indexer
                    full -= indexer
            elif mixer == SLIDING:
                window += per_layer
            elif mixer == STATE:
                state += self.state_bytes_per_layer(tensor_parallel)
                state_layers += 1
        windows = ((self.sliding_window, int(window)),) if window else ()
        counted = 0
        if self.is_mla and self.dsa_indexer_bytes and kv_dtype == "fp8_ds_mla" and not window:
            latent = self.kv_lora_rank + self.qk_rope_head_dim
            counted = int((latent + self.dsa_indexer_bytes) * full_layers - shared_keys)
        return KvLayout(
            int(full),
            windows,
            int(state),
            full_layers=full_layers,
            state_layers=state_layers,
            attention_per_token_layer=int(per_layer),
            state_per_layer=int(self.state_bytes_per_layer(tensor_parallel)) if state_layers else 0,
            counted_per_token=counted if counted != int(full) else 0,
        )

    def state_bytes_per_layer(self, tensor_parallel: int) -> float:
        """Conv and SSM state of one state-space layer, for one sequence, on one rank."""
        from . import dtype_bytes

        ssm = dtype_bytes(self.state_ssm_dtype or self.dtype)
        conv = dtype_bytes(self.dtype)
        return (self.state_conv_elements * conv + self.state_ssm_elements * ssm) / tensor_parallel

    def kv_bytes_per_token_per_rank(
        self, tensor_parallel: int, pipeline_parallel: int, kv_bytes: float
    ) -> Any:
        """K and V of every attention layer of the busiest PP stage, this rank's share, as if
        each layer kept the whole context (window layers and state are in kv_layout)."""
        layout = self.kv_layout(tensor_parallel, pipeline_parallel, kv_bytes)
        return Q(layout.all_layers_per_token, "byte / token")


# --------------------------------------------------------------------------- config.json


def _dflash_target_layers(config: dict) -> int:
    inner = config.get("dflash_config")
    ids = inner.get("target_layer_ids") if isinstance(inner, dict) else None
    ids = ids if ids is not None else config.get("target_layer_ids")
    return len(ids) if isinstance(ids, list) else 0


def _shared_indexer_layers(text: dict) -> frozenset[int]:
    """GLM-5.2's indexer_types: "shared" layers reuse the top-k of the last "full" one and
    cache no indexer keys (a vLLM build's GLM-5.2 pool: 79 x 656 + 22 x 132 = 54,728 bytes
    a token, the 21 "full" layers and the MTP layer; github.com/local-inference-lab/vllm
    pull 82)."""
    types = text.get("indexer_types")
    if not isinstance(types, list):
        return frozenset()
    return frozenset(i for i, kind in enumerate(types) if kind == "shared")


def _list(config: dict, name: str) -> list:
    value = config.get(name)
    return value if isinstance(value, list) else []


def _int(config: dict, *names: str, default: int = 0) -> int:
    for name in names:
        value = config.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return default


def _layer_mixers(text: dict, layers: int) -> tuple[tuple[str, ...], int, list[str]]:
    """Per-layer mixer kinds, the sliding window, and notes on what is approximated."""
    notes: list[str] = []
    window = _int(text, "sliding_window")
    kinds: list[str] = []
    types = text.get("layer_types")
    mtp = _int(text, "num_nextn_predict_layers")
    pattern = text.get("hybrid_override_pattern")
    linear = text.get("linear_attn_config")
    kda = linear.get("kda_layers") if isinstance(linear, dict) else None
    chunk = _int(text, "attention_chunk_size")
    if chunk and str(text.get("model_type", "")).startswith("llama4"):
        # Llama 4 (iRoPE): the layers with RoPE attend within chunks of attention_chunk_size
        # (vLLM llama4.py builds ChunkedLocalAttention for them), the others are global NoPE
        # layers. no_rope_layers marks RoPE layers 1; empty or absent, transformers'
        # Llama4TextConfig makes every no_rope_layer_interval-th (4th) layer NoPE
        rope = text.get("no_rope_layers")
        if not (isinstance(rope, list) and len(rope) == layers):
            every = _int(text, "no_rope_layer_interval", default=4)
            rope = [int((i + 1) % every != 0) for i in range(layers)]
        kinds = [SLIDING if used else FULL for used in rope]
        window = chunk
    elif isinstance(kda, list) and all(isinstance(i, int) for i in kda):
        # Kimi Linear: KDA layers listed 1-based, the rest MLA (vLLM kimi_linear.py is_kda_layer)
        kinds = [STATE if i + 1 in kda else FULL for i in range(layers)]
    elif isinstance(types, list) and len(types) in (layers, layers + mtp):
        # Step-3.5-Flash lists its 3 MTP layers after the decoder's (48 for 45 layers): the
        # engines read the first num_hidden_layers (vLLM configs/step3p5.py, SGLang's too)
        for kind in types[:layers]:
            kind = str(kind)
            if "sliding" in kind or kind == "chunked_attention":
                kinds.append(SLIDING)
            elif "linear" in kind or "mamba" in kind or kind in ("kda", "deltanet"):
                kinds.append(STATE)
            elif "attention" in kind:
                kinds.append(FULL)
            else:
                kinds.append(NO_MIXER)
    elif isinstance(pattern, str) and len(pattern) == layers:  # Nemotron-H: M, *, -, E
        kinds = [STATE if c == "M" else FULL if c == "*" else NO_MIXER for c in pattern]
    elif isinstance(text.get("layers_block_type"), list):  # Jamba-style
        kinds = [STATE if t == "mamba" else FULL for t in text["layers_block_type"]]
    elif _int(text, "attn_layer_period"):  # Jamba: one attention layer per period
        period, offset = _int(text, "attn_layer_period"), _int(text, "attn_layer_offset")
        kinds = [FULL if i % period == offset else STATE for i in range(layers)]
    elif _int(text, "full_attention_interval") and text.get("linear_num_value_heads"):
        every = _int(text, "full_attention_interval")  # Qwen3-Next
        kinds = [FULL if (i + 1) % every == 0 else STATE for i in range(layers)]
    elif window and _int(text, "sliding_window_pattern"):  # Gemma 3: every Nth layer global
        every = _int(text, "sliding_window_pattern")
        kinds = [FULL if (i + 1) % every == 0 else SLIDING for i in range(layers)]
    elif window and text.get("model_type") in ("gemma2", "cohere2"):  # alternating
        kinds = [SLIDING if i % 2 == 0 else FULL for i in range(layers)]
    elif window and text.get("use_sliding_window", True) and not text.get("max_window_layers"):
        kinds = [SLIDING] * layers  # Mistral-7B-v0.1, Phi-3: every layer windowed
    if kinds and len(kinds) != layers:
        notes.append("layer pattern does not match num_hidden_layers; all layers counted full")
        kinds = []
    if SLIDING in kinds and not window:
        kinds = [FULL if k == SLIDING else k for k in kinds]
    return tuple(kinds) if any(k != FULL for k in kinds) else (), window, notes


def _listed_mtp_layers(text: dict, layers: int) -> dict[str, tuple[str, ...]]:
    """The MTP layers' kinds where the config lists every layer past the decoder's: their
    layer_types entries (after num_hidden_layers) and, with moe_layers_enum, MoE only where it
    names them (Step-3.5-Flash: layers 45-47 sliding and dense; Megatron-Bridge's step3p5
    bridge: "MTP layers 45-47 are NOT in moe_layers_enum and must be dense"); {} otherwise."""
    mtp = _int(text, "num_nextn_predict_layers")
    types = text.get("layer_types")
    listed = _listed_layers(text.get("moe_layers_enum"))
    if not mtp or not isinstance(types, list) or len(types) != layers + mtp or listed is None:
        return {}
    mixers = tuple(SLIDING if "sliding" in str(kind) else FULL for kind in types[layers:])
    ffns = tuple(MOE if i in listed else DENSE for i in range(layers, layers + mtp))
    return {"mtp_mixers": mixers, "mtp_ffns": ffns}


def _listed_layers(value: Any) -> frozenset[int] | None:
    """Layer indices written as a comma-separated string or a list of ints (Step-3.5-Flash's
    moe_layers_enum); None where there is no such list."""
    if isinstance(value, str):
        items: list[Any] = [v.strip() for v in value.split(",") if v.strip()]
    elif isinstance(value, list):
        items = value
    else:
        return None
    try:
        return frozenset(int(v) for v in items)
    except (TypeError, ValueError):
        return None


def _sliding_setting(text: dict) -> dict:
    """Step-3.5-Flash's attention_other_setting: the head shape of the layers whose
    layer_types entry is its attention_type (sliding_attention); {} for other configs."""
    other = text.get("attention_other_setting")
    if isinstance(other, dict) and other.get("attention_type") == "sliding_attention":
        return other
    return {}


def _falcon_kv_heads(text: dict) -> int:
    """Falcon's KV heads as vLLM's falcon.py FalconAttention reads them: num_kv_heads with the
    new decoder architecture (Falcon-40B/180B), else one under multi_query (FalconConfig's
    default, Falcon-7B), else one per attention head; 0 for other models."""
    if text.get("model_type") not in ("falcon", "RefinedWeb", "RefinedWebModel"):
        return 0
    if text.get("new_decoder_architecture"):
        return _int(text, "num_kv_heads", "n_head_kv")
    return 1 if text.get("multi_query", True) else 0


def _moe(text: dict, layers: int) -> dict[str, Any]:
    experts = _int(text, "num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts")
    if experts <= 1:
        return {}
    inter = _int(text, "moe_intermediate_size", "expert_intermediate_size")
    inter = inter or _int(text, "intermediate_size")
    # Nemotron 3 names its shared expert's width moe_shared_expert_intermediate_size
    shared = _int(text, "shared_expert_intermediate_size", "moe_shared_expert_intermediate_size")
    # ERNIE 4.5 names its shared experts moe_num_shared_experts
    count = _int(text, "n_shared_experts", "num_shared_experts", "moe_num_shared_experts")
    if not shared and count:
        shared = count * inter
    if text.get("model_type", "").startswith("llama4"):
        shared = inter  # Llama 4: one shared expert of intermediate_size beside the routed ones
    if text.get("enable_moe_block"):
        # Gemma 4: every layer runs its dense MLP (intermediate_size, split over TP like a shared
        # expert) beside the routed experts (vLLM gemma4.py Gemma4DecoderLayer)
        shared = _int(text, "intermediate_size")
    # ERNIE 4.5 routes layers moe_layer_start_index..moe_layer_end_index (inclusive; -1 or
    # absent: the last) every moe_layer_interval (vLLM ernie45_moe.py Ernie4_5_MoeDecoderLayer)
    # Step-3.5-Flash names its routed layers in moe_layers_enum ("3,4,...,44") and its shared
    # expert's width share_expert_dim (vLLM step3p5.py, SGLang models/step3p5.py)
    shared = shared or _int(text, "share_expert_dim")
    listed = _listed_layers(text.get("moe_layers_enum"))
    first_dense = _int(text, "first_k_dense_replace", "moe_layer_start_index")
    last = _int(text, "moe_layer_end_index", default=layers - 1)
    last = layers - 1 if last < 0 else last
    step = _int(
        text,
        "interleave_moe_layer_step",
        "decoder_sparse_step",
        "moe_layer_freq",
        "moe_layer_interval",
    )
    step = max(step, 1)
    dense_only = set(text.get("mlp_only_layers") or [])
    ffns = []
    for i in range(layers):
        if listed is not None:
            ffns.append(MOE if i in listed else DENSE)
        elif i < first_dense or i > last or i in dense_only or (i + 1) % step != 0:
            ffns.append(DENSE)
        else:
            ffns.append(MOE)
    return {
        "num_experts": experts,
        "experts_per_token": _int(
            text,
            "num_experts_per_tok",
            "experts_per_token",
            "moe_topk",
            "top_k_experts",
            "num_experts_per_token",
            "moe_k",  # ERNIE 4.5
            "moe_top_k",  # Step-3.5-Flash
        ),
        "moe_intermediate_size": inter,
        "shared_intermediate_size": shared,
        "ffns": tuple(ffns),
    }


def _state(text: dict, hidden: int) -> dict[str, Any]:
    """State-space / linear-attention mixer: its parameters and state sizes (all ranks)."""
    linear = text.get("linear_attn_config")
    if isinstance(linear, dict) and _int(linear, "num_heads"):
        # Kimi Delta Attention (vLLM layers/kda.py): q, k, v and o projections of heads x
        # head_dim, low-rank f and g gates through head_dim, a beta per head, a causal conv over
        # q, k and v; per sequence 3 conv windows of kernel - 1 and a head_dim x head_dim
        # recurrent state per head, the latter in float32 (kda_state_dtype)
        heads, dim = _int(linear, "num_heads"), _int(linear, "head_dim")
        kernel = _int(linear, "short_conv_kernel_size", default=4)
        proj = heads * dim
        params = 4 * hidden * proj + 2 * hidden * dim + 2 * dim * proj + hidden * heads
        if linear.get("use_full_rank_gate"):
            # Kimi-K3: the output gate is one g_proj of hidden x heads * head_dim, not a
            # low-rank pair (aiconfigurator sdk/models/kimi_k3.py prices a fused q/k/v/g GEMM
            # of 4 x heads x head_dim; K3 loaders name self_attn.g_proj [12288, 7168])
            params += hidden * proj - hidden * dim - dim * proj
        params += 3 * kernel * proj + proj + heads + dim
        return {
            "state_mixer_params": params,
            "state_conv_elements": 3 * (kernel - 1) * proj,
            "state_ssm_elements": heads * dim * dim,
            "state_ssm_dtype": "float32",
        }
    if text.get("linear_num_value_heads"):  # gated delta-net (Qwen3-Next, Qwen3.5)
        kh, vh = _int(text, "linear_num_key_heads"), _int(text, "linear_num_value_heads")
        kd, vd = _int(text, "linear_key_head_dim"), _int(text, "linear_value_head_dim")
        kernel = _int(text, "linear_conv_kernel_dim", default=4)
        key, value = kh * kd, vh * vd
        conv_dim = 2 * key + value
        params = hidden * (2 * key + 2 * value + 2 * vh) + conv_dim * kernel + value * hidden
        return {
            "state_mixer_params": params,
            "state_conv_elements": (kernel - 1) * conv_dim,
            "state_ssm_elements": vh * kd * vd,
        }
    if _int(text, "mamba_num_heads"):  # Mamba-2 (Nemotron-H)
        heads, head_dim = _int(text, "mamba_num_heads"), _int(text, "mamba_head_dim")
        groups, d_state = _int(text, "n_groups", default=1), _int(text, "ssm_state_size")
        kernel = _int(text, "conv_kernel", default=4)
        inner = heads * head_dim
        conv_dim = inner + 2 * groups * d_state
        params = hidden * (2 * inner + 2 * groups * d_state + heads) + conv_dim * kernel
        return {
            "state_mixer_params": params + inner * hidden,
            "state_conv_elements": (kernel - 1) * conv_dim,
            "state_ssm_elements": heads * head_dim * d_state,
        }
    if _int(text, "mamba_d_state"):  # Mamba-1 (Jamba)
        inner = _int(text, "mamba_expand", default=2) * hidden
        d_state, kernel = _int(text, "mamba_d_state"), _int(text, "mamba_d_conv", default=4)
        dt_rank = _int(text, "mamba_dt_rank") or math.ceil(hidden / 16)
        params = hidden * 2 * inner + inner * kernel + inner * (dt_rank + 2 * d_state)
        params += dt_rank * inner + inner * d_state + inner * hidden
        return {
            "state_mixer_params": params,
            "state_conv_elements": (kernel - 1) * inner,
            "state_ssm_elements": inner * d_state,
        }
    return {}


# model types whose MLP is a plain up/down projection rather than a gated one
PLAIN_MLP_TYPES = {"starcoder2", "gpt2", "gpt_bigcode", "falcon", "phi", "gpt_neox", "opt", "bloom"}


def _plain_mlp(text: dict) -> bool:
    act = str(text.get("mlp_hidden_act") or text.get("hidden_act") or "")
    return act == "relu2" or str(text.get("model_type", "")) in PLAIN_MLP_TYPES


def _moonvit_params(vision: dict) -> int:
    """Parameters of Moonshot's MoonViT tower and its patch-merger projector (Kimi-K2.5 and
    later, Kimi-K3), from the vt_* fields of vision_config. Each block: a fused wqkv of
    qkv_hidden_size (the width unless given) a projection, wo back to the width, a two-matrix
    MLP and two norms; a patch embedding, a learned init_pos_emb_height x _width position grid
    (its time axis is fixed sin-cos) and a final norm. Biases and LayerNorm unless the config
    says attn_bias / linear_bias false and norm_type rmsnorm (Kimi-K3). The projector merges
    merge_kernel_size patches (mm_hidden_size each): a pre-norm, a square linear and one to
    text_hidden_size ('patchmerger', K2.5); 'patchmergerv2' (K3) norms after the last linear
    (lablup/mlxcel issue #1342: Linear(4096, 4096) -> GELU -> Linear(4096, 7168) -> RMSNorm)."""
    width, depth = _int(vision, "vt_hidden_size"), _int(vision, "vt_num_hidden_layers")
    if not width or not depth:
        return 0
    qkv = _int(vision, "qkv_hidden_size") or width
    inter = _int(vision, "vt_intermediate_size") or 4 * width
    attn_bias = bool(vision.get("attn_bias", True))
    linear_bias = bool(vision.get("linear_bias", True))
    norm = width if vision.get("norm_type") == "rmsnorm" else 2 * width
    block = 3 * width * qkv + qkv * width + 2 * width * inter + 2 * norm
    if attn_bias:
        block += 3 * qkv + width
    if linear_bias:
        block += inter + width
    patch = _int(vision, "patch_size", default=14)
    stem = 3 * patch * patch * width + (width if vision.get("patch_embed_proj_bias", True) else 0)
    grid = _int(vision, "init_pos_emb_height") * _int(vision, "init_pos_emb_width") * width
    tower = depth * block + stem + grid + norm
    kernel = vision.get("merge_kernel_size") or [2, 2]
    merged = _int(vision, "mm_hidden_size", default=width) * math.prod(
        k for k in kernel if isinstance(k, int)
    )
    out = _int(vision, "text_hidden_size")
    if not out:
        return tower
    bias = linear_bias if vision.get("mm_projector_type") == "patchmergerv2" else True
    projector = merged * merged + merged * out + ((merged + out) if bias else 0)
    if vision.get("mm_projector_type") == "patchmergerv2":
        projector += out  # the RMSNorm after the projection
    else:
        projector += 2 * _int(vision, "mm_hidden_size", default=width)  # LayerNorm before
    return tower + projector


def _vision_params(vision: dict) -> int:
    """Parameters of a ViT-style vision tower and its projector, from vision_config."""
    if _int(vision, "vt_hidden_size"):
        return _moonvit_params(vision)
    # Qwen2-VL names the tower's width embed_dim and the language model's hidden_size, which
    # its merger projects to
    width = _int(vision, "embed_dim") or _int(vision, "hidden_size", "width")
    depth = _int(vision, "depth", "num_hidden_layers", "num_layers")
    depth += _int(vision, "num_global_layers")  # Llama 3.2 Vision's global encoder
    if not width or not depth:
        return 0
    inter = _int(vision, "intermediate_size") or int(width * float(vision.get("mlp_ratio", 4)))
    gated = str(vision.get("hidden_act", "")) in ("silu", "swish")
    per_layer = 4 * width * width + (3 if gated else 2) * width * inter + 4 * width
    patch = _int(vision, "patch_size", default=14)
    channels = _int(vision, "in_channels", "num_channels", default=3)
    temporal = _int(vision, "temporal_patch_size", default=1)
    out = _int(vision, "out_hidden_size", "projection_dim")
    out = out or (_int(vision, "hidden_size") if _int(vision, "embed_dim") else 0) or width
    merge = _int(vision, "spatial_merge_size", default=1) ** 2
    projector = width * merge * width * merge + width * merge * out
    # Qwen3-VL's DeepStack: one more merger of the same shape for each layer it taps
    projector *= 1 + len(vision.get("deepstack_visual_indexes") or [])
    return depth * per_layer + channels * temporal * patch * patch * width + projector


def _vision_tower(config: dict, vision: dict) -> VisionTower | None:
    width = _int(vision, "embed_dim") or _int(vision, "hidden_size", "width")
    if not width:
        return None
    inter = _int(vision, "intermediate_size") or int(width * float(vision.get("mlp_ratio", 4)))
    return VisionTower(
        width=width,
        intermediate=inter,
        patch=_int(vision, "patch_size", default=14),
        channels=_int(vision, "in_channels", "num_channels", "in_chans", default=3),
        temporal=_int(vision, "temporal_patch_size", default=1),
        merge=_int(vision, "spatial_merge_size", default=1) ** 2,
        image_size=_int(vision, "image_size"),
        tiles=_int(vision, "max_num_tiles", default=1),
        tokens_per_image=_int(config, "mm_tokens_per_image"),
        cross_attention=bool((config.get("text_config") or {}).get("cross_attention_layers")),
        num_hidden_layers=_int(vision, "num_hidden_layers"),
        family=str(config.get("model_type") or ""),
        out_width=_int(vision, "out_hidden_size")
        * (1 + len(_list(vision, "deepstack_visual_indexes"))),
    )


def _rotary(text: dict, head_dim: int) -> tuple[int, int, int]:
    """(positions, dimensions, vLLM's extra positions) of the RoPE cos/sin cache: the context
    the cache covers (original x factor for YaRN-style and linear scaling) and the rotated part
    of a head. Gemma 3's linear factor is vLLM's alone: its global layers' cache covers 8 x
    max_position_embeddings there (vLLM 0.19 logs: 0.1-0.5 GiB more than the weights), while
    SGLang's logged Gemma 3 weights hold no such cache (benchmarks/calibration)."""
    if text.get("model_type") in NO_ROPE_TYPES or text.get("position_embedding_type") == "alibi":
        return 0, 0, 0
    positions = _int(text, "max_position_embeddings")
    scaling = text.get("rope_scaling") or text.get("rope_parameters")
    if str(text.get("model_type")) in ("gemma3", "gemma3_text"):
        dim = _int(text, "rotary_dim") or head_dim
        factor = scaling.get("factor") if isinstance(scaling, dict) else None
        if str((scaling or {}).get("rope_type", "")) == "linear" and isinstance(
            factor, (int, float)
        ):
            return positions, dim, max(int(positions * factor) - positions, 0)
        return positions, dim, 0
    if isinstance(scaling, dict):
        kind = str(scaling.get("rope_type") or scaling.get("type") or "")
        factor = scaling.get("factor")
        if kind in ("yarn", "deepseek_yarn", "linear", "dynamic") and isinstance(
            factor, (int, float)
        ):
            base = _int(scaling, "original_max_position_embeddings") or positions
            positions = max(positions, int(base * factor))
    if _int(text, "kv_lora_rank"):
        return positions, _int(text, "qk_rope_head_dim"), 0
    fraction = text.get("partial_rotary_factor", text.get("rotary_pct", 1.0))
    fraction = float(fraction) if isinstance(fraction, (int, float)) else 1.0
    return positions, _int(text, "rotary_dim") or int(head_dim * fraction), 0


def derived_max_length(config: dict, text: dict) -> int | None:
    """The longest max_model_len vLLM accepts without VLLM_ALLOW_LONG_MAX_MODEL_LEN, as
    _get_and_verify_max_len derives it (vllm/config.py up to 0.10, vllm/config/model.py since):
    max_position_embeddings, scaled by the RoPE factor unless the scaling is su / longrope /
    llama3 (YaRN scales original_max_position_embeddings), and raised to model_max_length
    where the config has one. vLLM also takes the minimum with other length keys (seq_length,
    n_positions, ...); left out on purpose, so this is never below vLLM's figure: a refusal
    hbmlint claims is one vLLM makes. Gemma 3's factor (linear x8 on its global layers) is not
    applied, as vLLM's _get_and_verify_max_len skips it for that model type."""
    positions = _int(text, "max_position_embeddings")
    if not positions:
        return None
    derived = positions
    scaling = text.get("rope_scaling") or text.get("rope_parameters")
    if str(text.get("model_type")) in ("gemma3", "gemma3_text"):
        scaling = None
    if isinstance(scaling, dict):
        kind = str(scaling.get("rope_type") or scaling.get("type") or "")
        factor = scaling.get("factor", 1.0)
        if kind not in ("su", "longrope", "llama3") and isinstance(factor, (int, float)):
            base = _int(scaling, "original_max_position_embeddings") if kind == "yarn" else 0
            derived = max(derived, int((base or positions) * factor))
    for source in (config, text):
        longest = _int(source, "model_max_length")
        derived = max(derived, longest)
    return derived


# the length keys SGLang's get_context_length reads, the first present wins
_SGLANG_LENGTH_KEYS = (
    "max_sequence_length",
    "seq_length",
    "max_seq_len",
    "model_max_length",
    "max_position_embeddings",
)


def sglang_max_length(config: dict, text: dict) -> int | None:
    """An upper bound on the context length SGLang derives (get_context_length in
    sglang/srt/hf_transformers_utils.py: the first length key present, times the RoPE factor
    unless the scaling has original_max_position_embeddings or is llama3). hbmlint takes the
    longest key and always applies the factor, and never less than vLLM's figure, so that a
    refusal it claims is one SGLang makes whichever key and release it reads."""
    longest = max(_int(source, key) for source in (config, text) for key in _SGLANG_LENGTH_KEYS)
    if not longest:
        return None
    factor = 1.0
    scaling = text.get("rope_scaling") or text.get("rope_parameters")
    if isinstance(scaling, dict) and isinstance(scaling.get("factor"), (int, float)):
        factor = max(1.0, float(scaling["factor"]))
    return max(int(longest * factor), derived_max_length(config, text) or 0)


# model types with learned or ALiBi positions: no RoPE cache
NO_ROPE_TYPES = {"gpt2", "gpt_bigcode", "opt", "bloom", "mpt", "falcon_alibi"}


def _weight_block(config: dict) -> tuple[int, ...]:
    """An FP8 checkpoint's weight_block_size ([128, 128] for DeepSeek-V3 and Qwen3's FP8
    uploads); () when the weights are not block-quantized."""
    for holder in (config, config.get("text_config")):
        qconfig = holder.get("quantization_config") if isinstance(holder, dict) else None
        if not isinstance(qconfig, dict):
            continue
        block = qconfig.get("weight_block_size")
        method = str(qconfig.get("quant_method") or "").lower()
        whole = isinstance(block, list) and len(block) == 2
        if method == "fp8" and whole and all(isinstance(b, int) and b > 0 for b in block):
            return (block[0], block[1])
        return ()
    return ()


def block_misfit(arch: Architecture, tensor: int, experts_split: bool) -> tuple[str, int] | None:
    """The first width an FP8 block-quantized checkpoint splits over ``tensor`` ranks into
    pieces that are not whole blocks, as (what, width per rank); None when every piece is.
    vLLM checks each tensor-parallel shard against weight_block_size when it creates the
    weights (Fp8LinearMethod and Fp8MoEMethod, vllm/model_executor/layers/quantization/fp8.py:
    "The output_size of gate's and up's weight = 192 is not divisible by weight quantization
    block_n = 128", vllm-project/vllm issue #17569, Qwen3-235B-A22B-FP8 at TP 8); SGLang's
    fp8.py has the same check. With expert parallelism the experts are not split."""
    if len(arch.weight_block) != 2 or tensor <= 1:
        return None
    block = max(arch.weight_block)
    widths = []
    if not arch.ffns or DENSE in arch.ffns:
        widths.append(("the MLP's intermediate size", arch.intermediate_size))
    if arch.num_experts and experts_split:
        widths.append(("each expert's intermediate size", arch.moe_intermediate_size))
    if arch.num_experts and arch.shared_intermediate_size:
        widths.append(("the shared experts' intermediate size", arch.shared_intermediate_size))
    for what, width in widths:
        if width and (width % tensor or (width // tensor) % block):
            return what, width // tensor if width % tensor == 0 else width / tensor
    return None


def checkpoint_quant_method(config: dict) -> str | None:
    """The checkpoint's quant_method as vLLM reads it (ModelConfig._parse_quant_hf_config):
    quantization_config, else compressed-tensors' compression_config, else the text config's
    (multimodal models); lower-cased, compressed_tensors spelled compressed-tensors; ModelOpt's
    producer block names modelopt (FP8) or modelopt_fp4 (NVFP4)."""
    for holder in (config, config.get("text_config")):
        if not isinstance(holder, dict):
            continue
        qconfig = holder.get("quantization_config") or holder.get("compression_config")
        if not isinstance(qconfig, dict):
            continue
        producer = qconfig.get("producer")
        if isinstance(producer, dict) and producer.get("name") == "modelopt":
            algo = (qconfig.get("quantization") or {}).get("quant_algo")
            if algo == "FP8":
                return "modelopt"
            if algo == "NVFP4":
                return "modelopt_fp4"
        method = str(qconfig.get("quant_method") or "").strip().lower()
        return method.replace("compressed_tensors", "compressed-tensors") or None
    return None


# model types whose full-attention layers gate their output (q_proj twice as wide)
GATED_ATTENTION_TYPES = ("qwen3_next", "qwen3_5_text", "qwen3_5_moe_text", "qwen3_5", "qwen3_5_moe")


# GPT-2's config names (transformers GPT2Config / GPTBigCodeConfig attribute_map: hidden_size is
# n_embd, num_hidden_layers n_layer, num_attention_heads n_head, max_position_embeddings
# n_positions; n_inner the MLP width, None for 4 x n_embd)
_GPT2_NAMES = {
    "n_embd": "hidden_size",
    "n_layer": "num_hidden_layers",
    "n_head": "num_attention_heads",
    "n_positions": "max_position_embeddings",
    "n_inner": "intermediate_size",
}


def _gpt2_fields(config: dict) -> dict:
    """A GPT-2 or GPTBigCode (StarCoder, WizardCoder) config.json in the names the rest reads.
    Both tie lm_head to the token embedding unless the config says otherwise (PretrainedConfig's
    default, which vLLM's gpt2.py and gpt_bigcode.py follow), and GPTBigCode's multi_query
    (GPTBigCodeConfig's default: true) is one KV head, as vLLM's GPTBigCodeAttention reads it."""
    model_type = config.get("model_type")
    if model_type not in ("gpt2", "gpt_bigcode"):
        return config
    named = {new: config[old] for old, new in _GPT2_NAMES.items() if config.get(old) is not None}
    read = {**named, **config}  # a field written under its usual name wins
    read.setdefault("tie_word_embeddings", True)
    if model_type == "gpt_bigcode" and config.get("multi_query", True):
        read.setdefault("num_key_value_heads", 1)
    return read


def _served_part(config: dict) -> dict:
    """The part of a config.json the engines build. Qwen3-Omni keeps its thinker (text model,
    vision and audio towers) beside a talker and a code2wav vocoder that neither engine loads:
    SGLang's qwen3_omni_moe.py skips their weights (enable_talker False) and vLLM's registry
    maps Qwen3OmniMoeForConditionalGeneration to Qwen3OmniMoeThinkerForConditionalGeneration."""
    from .config_check import check_config

    thinker = config.get("thinker_config")
    if not (isinstance(thinker, dict) and isinstance(thinker.get("text_config"), dict)):
        return config
    check_config(thinker)
    # a quantized upload keeps its quantization_config at the top
    kept = {k: config[k] for k in ("quantization_config", "compression_config") if k in config}
    return {**thinker, **kept}


def _top_head_dim(config: dict) -> int:
    """The head size config.json's top level gives, as TGI's launcher reads it
    (launcher/src/main.rs, Config from RawConfig): head_dim, else hidden_size (or n_embd) /
    num_attention_heads where that divides; 0 where the top level gives neither."""
    head = config.get("head_dim")
    if isinstance(head, int) and not isinstance(head, bool) and head > 0:
        return head
    hidden = config.get("hidden_size") or config.get("n_embd")
    heads = config.get("num_attention_heads")
    whole = all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in (hidden, heads))
    return hidden // heads if whole and hidden % heads == 0 else 0


def _audio_params(audio: dict) -> int:
    """Parameters of an audio encoder: Gemma's conformer (_conformer_audio_params), else a
    Whisper-style one (_whisper_audio_params)."""
    if str(audio.get("model_type", "")) in ("gemma4_audio", "gemma3n_audio"):
        return _conformer_audio_params(audio)
    return _whisper_audio_params(audio)


def _conformer_audio_params(audio: dict) -> int:
    """Parameters of Gemma's audio encoder (USM-style conformer; transformers'
    Gemma3nAudioEncoder, the shape gemma4_audio configs share: hidden_size, num_hidden_layers,
    conv_kernel_size, subsampling_conv_channels, output_proj_dims). Each conformer block holds
    two macaron feed-forward modules (hidden -> 4 x hidden -> hidden), q/k/v and output
    projections with a relative-position projection, and a light convolution module (a GLU's
    hidden -> 2 x hidden, a depthwise kernel, hidden -> hidden); the stem's two 3 x 3
    convolutions over the mel bins project (channels[0] / 4 x channels[1]) features to hidden;
    the tower ends in a projection to output_proj_dims, which the model's audio embedder
    projects to the language model's width (its hidden_size is not the tower's: left out,
    under 1% of the tower). Norms and biases are left out (a fraction of a percent). About
    0.30B for the released 12 layers of 1024, the model cards' "~300M"."""
    width, layers = _int(audio, "hidden_size"), _int(audio, "num_hidden_layers")
    if not width or not layers:
        return 0
    kernel = _int(audio, "conv_kernel_size", default=5)
    per_layer = 2 * (2 * width * 4 * width) + 5 * width * width
    per_layer += 2 * width * width + width * kernel + width * width
    channels = [c for c in audio.get("subsampling_conv_channels") or [] if isinstance(c, int)]
    stem = 0
    if len(channels) == 2:
        stem = 9 * channels[0] + 9 * channels[0] * channels[1]
        stem += channels[0] // 4 * channels[1] * width
    out = _int(audio, "output_proj_dims") or width
    return layers * per_layer + stem + width * out


def _whisper_audio_params(audio: dict) -> int:
    """Parameters of a Whisper-style audio encoder (Qwen3-Omni's audio_tower, transformers
    Qwen3OmniMoeAudioEncoder): encoder layers of d_model with biased q/k/v/out projections, an
    MLP of encoder_ffn_dim and two LayerNorms; three 3 x 3 stride-2 convolutions of
    downsample_hidden_size over the mel bins, conv_out to d_model, and proj1 / proj2 to the
    language model's width (output_dim)."""
    width, layers = _int(audio, "d_model"), _int(audio, "encoder_layers")
    if not width or not layers:
        return 0
    ffn = _int(audio, "encoder_ffn_dim", default=4 * width)
    per_layer = 4 * (width * width + width) + 2 * width * ffn + ffn + width + 4 * width
    conv = _int(audio, "downsample_hidden_size")
    mels = _int(audio, "num_mel_bins", default=128)
    stem = 0
    if conv:
        stem = (9 * conv + conv) + 2 * (9 * conv * conv + conv)
        stem += conv * math.ceil(mels / 8) * width  # conv_out, no bias
    out = _int(audio, "output_dim") or width
    projections = width * width + width + width * out + out
    return layers * per_layer + 2 * width + stem + projections


def architecture_from_config(config: dict, name: str, source: str) -> Architecture:
    """Read the fields hbmlint needs from a Hugging Face config.json dictionary."""
    fields = _shipped_fields(config)
    if fields is not None:
        return Architecture(name=name, source=source, **fields)
    return read_architecture(config, name, source)


# The fields (all but name and source) of the shipped catalog's models, by their config's
# identity (see _shipped_fields); {} where the table does not apply.
_SHIPPED: dict[int, tuple[dict, dict[str, Any]]] | None = None


def _shipped_fields(config: Any) -> dict[str, Any] | None:
    """The fields read_architecture gives for ``config`` where it is the very config of a
    model of the shipped catalog (catalog/shipped_architectures.py, written with the package
    by tools/write_model_architectures.py for the models.yaml and quantization.yaml it reads,
    whose data the run loaded as shipped): reading a config costs a model's first deployment
    more than the rest of its budget. None for any other config: it is read."""
    global _SHIPPED
    if _SHIPPED is None:
        _SHIPPED = _shipped_table()
    found = _SHIPPED.get(id(config))
    if found is None or found[0] is not config:
        return None
    return found[1]  # read only: Architecture(**fields) copies it


def _shipped_table() -> dict[int, tuple[dict, dict[str, Any]]]:
    from . import _load

    try:
        from .shipped_architectures import FIELDS, MODELS_BLAKE2B, QUANTIZATION_BLAKE2B
        from .shipped_data import CATALOGS
    except ImportError:  # a tree without the generated modules: every config is read
        return {}
    models, formats = CATALOGS["models.yaml"], CATALOGS["quantization.yaml"]
    if (models[0], formats[0]) != (MODELS_BLAKE2B, QUANTIZATION_BLAKE2B):
        return {}
    if _load("models.yaml") is not models[1] or _load("quantization.yaml") is not formats[1]:
        return {}  # the files were edited: their data was read from them
    entries = models[1]["models"]
    return {id(entries[i]["config"]): (entries[i]["config"], fields) for i, fields in FIELDS}


def _speculators_fields(config: dict) -> dict:
    """A Speculators-format config.json (vllm-project/speculators: RedHatAI's
    ``*-speculator.eagle3`` heads) as a flat one: the layer shape is nested under
    ``transformer_layer_config`` and the head's own fields (``draft_vocab_size``, its
    ``architectures``, dtype) are beside it. vLLM reads it the same way
    (vllm/transformers_utils/configs/speculators/base.py extract_transformers_pre_trained_config:
    "Start with transformer layer configuration"), as xLLM does (lift_speculators_config)."""
    layer = config.get("transformer_layer_config")
    if not config.get("speculators_model_type") or not isinstance(layer, dict):
        return config
    own = ("architectures", "draft_vocab_size", "torch_dtype", "dtype")
    flat = {key: value for key, value in layer.items() if value is not None}
    for key, value in config.items():
        if key != "transformer_layer_config" and (key not in flat or key in own):
            flat[key] = value
    return flat


def read_architecture(config: dict, name: str, source: str) -> Architecture:
    """architecture_from_config, read from the config itself."""
    from . import checkpoint_format, checkpoint_part_formats

    if not isinstance(config, dict):
        raise ConfigError("config.json must hold a JSON object")
    from .config_check import check_config

    config = _speculators_fields(config)
    check_config(config)  # types and ranges first: no arithmetic on absurd figures
    top_head_dim = _top_head_dim(config)  # the file's own top level, as TGI's launcher reads it
    config = _gpt2_fields(_served_part(config))
    from .encoders import not_budgeted_reason

    encoder = not_budgeted_reason(config)
    if encoder is not None:
        reason, only_a_note = encoder
        raise (NoKvCacheModel if only_a_note else UnmodelledArchitecture)(reason)
    text = config.get("text_config") if isinstance(config.get("text_config"), dict) else config
    if isinstance(text.get("compress_ratios"), list):
        # DeepSeek V4 (model_type deepseek_v4): read as a plain GQA model its 128 heads of 512
        # would give V4-Pro 189 GiB of weights a GPU at TP 8 (FP8 experts) where SGLang logged
        # 125.65 (InferenceX issue #2128), and every layer a 128-token window of KV
        raise UnmodelledArchitecture(
            "DeepSeek V4's compressed sparse attention (a KV cache compressed 4x or 128x a "
            "layer beside a 128-token window, a sparse indexer, a grouped low-rank output "
            "projection) and its FP4 experts are not modelled, so its weights and KV cache "
            "are not checked; the engine's start-up log gives both ('Load weight end' / "
            "'Model loading took', then the KV cache size)"
        )
    approximations: list[str] = []
    blocks = text.get("layers_block_type")
    if text.get("model_type") == "nemotron_h" and isinstance(blocks, list):
        # Nemotron 3 Ultra lists its layers by name (num_hidden_layers null); vLLM's NemotronHConfig
        # reads them as the hybrid_override_pattern the smaller ones carry
        letters = {"mamba": "M", "attention": "*", "mlp": "-", "moe": "E"}
        if all(b in letters for b in blocks):
            text = {**text, "hybrid_override_pattern": "".join(letters[b] for b in blocks)}
            if not isinstance(text.get("num_hidden_layers"), int):
                text["num_hidden_layers"] = len(blocks)

    def need(field: str) -> int:
        value = text.get(field)
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise ConfigError(f"config.json has no positive integer '{field}'")
        return value

    hidden = need("hidden_size")
    heads = need("num_attention_heads")
    layers = need("num_hidden_layers")
    # Step-3.5-Flash names its KV heads num_attention_groups (vLLM step3p5.py num_kv_heads)
    kv_heads = (
        text.get("num_key_value_heads")
        or _falcon_kv_heads(text)
        or _int(text, "num_attention_groups")
        or heads
    )
    head_dim = text.get("head_dim") or text.get("attention_head_dim") or hidden // heads
    # MiniMax-M3 names its first (dense) layers' MLP width dense_intermediate_size; its
    # intermediate_size is the experts'
    intermediate = (
        text.get("dense_intermediate_size") or text.get("intermediate_size") or 4 * hidden
    )
    if isinstance(intermediate, list):  # per-layer widths (some hybrids): the widest
        intermediate = max(intermediate)
    vocab = need("vocab_size")
    if not all(isinstance(v, int) and v > 0 for v in (kv_heads, head_dim, intermediate)):
        raise ConfigError(
            "config.json has a non-integer num_key_value_heads, head_dim or intermediate_size"
        )
    mixers, window, notes = _layer_mixers(text, layers)
    approximations += notes
    sliding = _sliding_setting(text) if SLIDING in mixers else {}
    sliding_heads = _int(sliding, "num_attention_heads")
    sliding_heads = sliding_heads if sliding_heads != heads else 0
    if (_int(sliding, "num_attention_groups") or kv_heads) != kv_heads or (
        _int(sliding, "head_dim") or head_dim
    ) != head_dim:
        approximations.append(
            "the sliding-window layers' KV heads or head_dim (attention_other_setting) differ "
            "from the full-attention layers': counted as the full layers'"
        )
    sparse = text.get("sparse_attention_config")
    if isinstance(sparse, dict) and sparse.get("use_sparse_attention"):
        # MiniMax-M3's MSA: GQA attention whose indexer keeps its own keys per token
        approximations.append(
            "MiniMax Sparse Attention's indexer (its projections and the keys it caches beside "
            "the KV cache) is not counted: the KV cache is the GQA attention's alone"
        )
    moe = _moe(text, layers)
    pattern = text.get("hybrid_override_pattern")
    if isinstance(pattern, str) and len(pattern) == layers:  # Nemotron-H: one part per layer
        moe["ffns"] = tuple(MOE if c == "E" else DENSE if c == "-" else NO_FFN for c in pattern)
    state = _state(text, hidden) if STATE in mixers else {}
    ssm_dtype = state.pop("state_ssm_dtype", None) or text.get("mamba_ssm_dtype")
    cache_dtype = text.get("mamba_ssm_cache_dtype")
    if STATE in mixers and not state:
        approximations.append(
            "linear-attention / state-space layers of an unknown kind: their state is not counted"
        )
    vision = config.get("vision_config")
    vision_params = _vision_params(vision) if isinstance(vision, dict) else 0
    audio = config.get("audio_config")
    audio_params = _audio_params(audio) if isinstance(audio, dict) else 0
    tower = _vision_tower(config, vision) if vision_params else None
    rotary_positions, rotary_dim, rotary_extra = _rotary(text, head_dim)
    assistant = _assistant_fields(config, hidden)
    if assistant:
        # its RoPE is the target's (same head sizes, thetas and positions): vLLM's get_rope
        # hands back the target's cached instance, so no cos/sin cache of its own
        rotary_positions = rotary_dim = rotary_extra = 0
    if text is not config and not vision_params and isinstance(vision, dict):
        approximations.append("multimodal model: the vision tower's size could not be read")
    dtype = str(
        config.get("torch_dtype")
        or config.get("dtype")
        or text.get("torch_dtype")
        or text.get("dtype")
        or "bfloat16"
    )
    from . import _formats

    if dtype not in _formats()["dtypes"]:
        dtype = "bfloat16"
    # a multimodal checkpoint may keep it in text_config (Kimi-K2.5), where vLLM reads it too
    qconfig = config.get("quantization_config") or text.get("quantization_config")
    fmt, unquantized, kv_dtype = checkpoint_format(qconfig)
    part_formats = checkpoint_part_formats(qconfig, fmt)
    if _skips_layer(qconfig, layers):
        # DeepSeek-style checkpoints keep the MTP layer as model.layers.<num_hidden_layers>;
        # NVIDIA's NVFP4 exports leave it in BF16 ("model.layers.61*", nvidia/DeepSeek-V3.2-NVFP4)
        unquantized = unquantized | {"mtp"}
    if text.get("enable_moe_block") and "dense_mlp" in unquantized:
        # Gemma 4's dense MLP beside the experts is counted as their shared part (see _moe)
        unquantized = unquantized | {"shared_experts"}
    if fmt is not None and _int(text, "routed_expert_hidden_size"):
        # Kimi-K3's MXFP4 covers the routed experts only: its latent projections
        # (block_sparse_moe.routed_expert_down_proj / _up_proj) are stored as plain weights
        # and run in BF16 (aiconfigurator @095f58a5 sdk/models/kimi_k3.py: "replicated
        # hidden -> latent down projection (bf16, unsharded)"), 9.45 GB on every rank
        unquantized = unquantized | {"latent_projections"}
    return Architecture(
        name=name,
        source=source,
        hidden_size=hidden,
        num_layers=layers,
        num_attention_heads=heads,
        num_kv_heads=kv_heads,
        head_dim=head_dim,
        intermediate_size=intermediate,
        vocab_size=vocab,
        tie_word_embeddings=bool(
            config.get("tie_word_embeddings", text.get("tie_word_embeddings", False))
        ),
        dtype=dtype,
        max_position_embeddings=text.get("max_position_embeddings"),
        max_length=derived_max_length(config, text),
        max_length_sglang=sglang_max_length(config, text),
        attention_bias=bool(text.get("attention_bias", text.get("model_type") == "qwen2")),
        quantization=fmt.name if fmt else None,
        quant_method=checkpoint_quant_method(config),
        model_type=str(text.get("model_type") or config.get("model_type") or ""),
        approximations=tuple(approximations),
        mixers=mixers,
        sliding_window=window,
        full_head_dim=_int(text, "global_head_dim") if FULL in (mixers or (FULL,)) else 0,
        sliding_heads=sliding_heads,
        head_wise_gate=bool(text.get("use_head_wise_attn_gate")),
        full_kv_heads=(
            _int(text, "num_global_key_value_heads") if text.get("attention_k_eq_v") else 0
        ),
        kv_shared_layers=_int(text, "num_kv_shared_layers"),
        wide_mlp_layers=(
            _int(text, "num_kv_shared_layers") if text.get("use_double_wide_mlp") else 0
        ),
        per_layer_input=_int(text, "hidden_size_per_layer_input"),
        per_layer_vocab=_int(text, "vocab_size_per_layer_input", "vocab_size"),
        kv_lora_rank=_int(text, "kv_lora_rank"),
        qk_rope_head_dim=_int(text, "qk_rope_head_dim"),
        # vLLM and SGLang build the indexer cache where the config has index_topk
        # (vllm models/config.py is_v32 = hasattr(hf_config, "index_topk"))
        index_head_dim=_int(text, "index_head_dim") if "index_topk" in text else 0,
        shared_indexer_layers=_shared_indexer_layers(text),
        q_lora_rank=_int(text, "q_lora_rank"),
        qk_nope_head_dim=_int(text, "qk_nope_head_dim"),
        v_head_dim=_int(text, "v_head_dim"),
        mlp_matrices=2 if _plain_mlp(text) else 3,
        state_ssm_dtype=ssm_dtype if ssm_dtype in _formats()["dtypes"] else None,
        state_ssm_cache_dtype=cache_dtype if cache_dtype in _formats()["dtypes"] else None,
        vision_params=vision_params + audio_params,  # the towers, in the model dtype
        vision=tower,
        rotary_positions=rotary_positions,
        rotary_extra_positions=rotary_extra,
        rotary_dim=rotary_dim,
        mtp_layers=_int(text, "num_nextn_predict_layers", "mtp_num_hidden_layers"),
        **_listed_mtp_layers(text, layers),
        **assistant,
        weight_block=_weight_block(config),
        draft_vocab_size=_int(text, "draft_vocab_size"),
        dflash_target_layers=_dflash_target_layers(config),
        weight_format=fmt,
        unquantized=unquantized,
        part_formats=part_formats,
        kv_cache_dtype=kv_dtype,
        medusa_heads=_int(text, "medusa_num_heads"),
        # Kimi-K3 names the latent width routed_expert_hidden_size
        moe_latent_size=_int(text, "moe_latent_size", "routed_expert_hidden_size"),
        medusa_layers=_int(text, "medusa_num_layers"),
        attn_output_gate=bool(
            text.get(
                "attn_output_gate",
                text.get(
                    "mla_use_output_gate",
                    str(text.get("model_type", "")) in GATED_ATTENTION_TYPES,
                ),
            )
        ),
        config_top_head_dim=None if text is config else top_head_dim,
        text_config_head_dim=_int(text, "head_dim") if text is not config else 0,
        **moe,
        **state,
    )


# The drafters vLLM (gemma4_mtp.py, via method "mtp" with the checkpoint as its model) serves as
# Gemma 4's assistants
GEMMA4_ASSISTANT_TYPES = frozenset({"gemma4_assistant"})
GEMMA4_ASSISTANT_ARCHITECTURES = frozenset({"Gemma4AssistantForCausalLM"})


def is_gemma4_assistant(config: Any) -> bool:
    """Whether a config.json is a Gemma 4 assistant drafter's (model_type gemma4_assistant, or
    the Gemma4AssistantForCausalLM architecture)."""
    if not isinstance(config, dict):
        return False
    architectures = config.get("architectures")
    named = isinstance(architectures, list) and any(
        str(a) in GEMMA4_ASSISTANT_ARCHITECTURES for a in architectures
    )
    return named or str(config.get("model_type", "")) in GEMMA4_ASSISTANT_TYPES


def _assistant_fields(config: dict, hidden: int) -> dict[str, int]:
    """Architecture's assistant_* fields for a Gemma 4 assistant's config ({} for any other):
    backbone_hidden_size (the drafter's own width where the config leaves it out, as vLLM's
    getattr does) and, where use_ordered_embeddings, num_centroids (2048 unless set)."""
    if not is_gemma4_assistant(config):
        return {}
    backbone = _int(config, "backbone_hidden_size") or hidden
    centroids = (
        (_int(config, "num_centroids") or 2048) if config.get("use_ordered_embeddings") else 0
    )
    return {"assistant_backbone": backbone, "assistant_centroids": centroids}


def _skips_layer(qconfig: Any, layer: int) -> bool:
    """Whether a quantization_config's skip list names decoder layer ``layer`` as a whole."""
    if not isinstance(qconfig, dict):
        return False
    pattern = re.compile(rf"^(model\.)?layers\.{layer}(\*|\.\*)?$")
    return any(
        pattern.match(str(module))
        for key in ("ignore", "exclude_modules", "modules_to_not_convert")
        for module in (qconfig.get(key) or [])
    )
