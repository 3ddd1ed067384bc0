"""The step-time model behind the speculative advisor: what one decode step costs on one GPU.

A decode step of a batch of B sequences, each holding C tokens of context, is one target forward
pass over B x (1 + k) tokens (each sequence's next token and the k drafted ones it verifies)
plus the drafter's k passes over B tokens each (an EAGLE or MTP head's, a draft model's, the
target's first layers for early exit; nothing on the GPU for n-gram lookup). Each pass costs

    max(bytes read / (bandwidth x memory efficiency), FLOPs / (peak x compute efficiency))
    + the tensor-parallel all-reduces (two a layer) when TP > 1

on one GPU (a roofline: Williams et al. 2009; for LLM decoding, MagicDec, arXiv:2408.11049,
sec. 3). The bytes are the weights the pass reads (a MoE layer reads only the experts its
tokens are routed to) and the KV cache of every sequence's context; the FLOPs are the linear
layers' 2 x parameters per token and attention's 4 x heads x head_dim per token and context
token. The GPU's figures (bandwidth, dense peak per dtype, NVLink/PCIe) come from the catalog
(hbmlint/catalog/gpus.yaml, each with its datasheet), the efficiencies per GPU family from the
same file (each with its fit), and the per-all-reduce latency from the calling rule's params.

It is a model, not a measurement: it leaves out the engine's CPU time per step, kernel-launch
gaps, sampling and pipeline bubbles, and takes every sequence at the same context length.
"""

from __future__ import annotations

from typing import Any

from . import catalog
from .catalog.architecture import FULL, MOE, SLIDING, repeated_sum
from .records import assembled, dataclass

# weight formats whose matrix multiplications run on the FP8 / INT8 / FP4 tensor cores (W8A8,
# W4A4); the others are weight-only and multiply in the activation dtype
ACTIVATION_DTYPE = {
    "fp8": "fp8",
    "w8a8": "int8",
    "int8": "int8",
    "nvfp4": "fp4",
}


class CannotEstimate(Exception):
    """The catalog lacks a figure the model needs (said in the message)."""


@dataclass(frozen=True)
class Hardware:
    """One GPU's effective rates: datasheet figure x the family's efficiency."""

    name: str
    bandwidth: float  # bytes / s
    peak: dict[str, float]  # dtype -> FLOP / s
    link: float  # bytes / s one way, between the GPUs of a TP group
    host_link: float  # bytes / s one way, host to device
    allreduce_latency: float  # seconds per all-reduce
    pass_overhead: float = 0.0  # seconds per forward pass the GPU is not reading or computing
    source: str = ""

    def peak_for(self, dtype: str) -> float:
        for name in (dtype, "bf16", "fp16"):
            if self.peak.get(name):
                return self.peak[name]
        raise CannotEstimate(
            f"the catalog has no dense {dtype} (or BF16/FP16) tensor-core figure for {self.name}"
        )


def hardware(
    gpu: Any, allreduce_latency: float, host_link: float | None = None, pass_overhead: float = 0.0
) -> Hardware:
    """The effective rates of a catalog GPU; CannotEstimate where a figure is not published."""
    perf = gpu.performance
    if perf is None or perf.memory_bandwidth is None:
        raise CannotEstimate(f"the catalog has no datasheet memory bandwidth for {gpu.name}")
    if not perf.dense:
        raise CannotEstimate(f"the catalog has no dense tensor-core figure for {gpu.name}")
    eff = catalog.efficiency(perf.family)
    if eff is None:
        raise CannotEstimate(f"the catalog has no efficiency for the {perf.family} family")

    def rate(q: Any, unit: str) -> float:
        return float(q.to(unit).magnitude)

    link = perf.nvlink if perf.nvlink is not None else perf.pcie
    host = rate(perf.pcie, "byte / second") / 2 if perf.pcie is not None else 0.0
    return Hardware(
        name=gpu.name,
        bandwidth=rate(perf.memory_bandwidth, "byte / second") * eff.memory,
        peak={k: rate(v, "flop / second") * eff.compute for k, v in perf.dense.items()},
        link=(rate(link, "byte / second") / 2 * eff.network) if link is not None else 0.0,
        host_link=host_link if host_link is not None else host,
        allreduce_latency=allreduce_latency,
        pass_overhead=pass_overhead,
        source=f"{perf.source} Efficiency: {eff.source}",
    )


@dataclass(frozen=True)
class Pass:
    """What one forward pass reads and computes on one GPU."""

    weight_bytes: float = 0.0
    kv_bytes: float = 0.0
    flops: float = 0.0
    dtype: str = "bf16"  # the tensor cores the linear layers run on
    allreduces: int = 0  # per pass, with TP > 1
    allreduce_bytes: float = 0.0  # payload of each
    ranks: int = 1
    host_bytes: float = 0.0  # streamed from host memory (an offloaded draft)


@dataclass(frozen=True)
class PassTime:
    weights: float  # seconds reading weights
    kv: float  # seconds reading the KV cache
    compute: float  # seconds of tensor-core work
    comm: float  # seconds in all-reduces (and host streaming)
    total: float
    fixed: float = 0.0  # seconds of per-pass overhead (launches, scheduling), in total

    @property
    def bound(self) -> str:
        """What limits the pass: "weights", "KV reads" or "compute"."""
        if self.compute > self.weights + self.kv:
            return "compute"
        return "KV reads" if self.kv > self.weights else "weights"


ZERO = PassTime(0.0, 0.0, 0.0, 0.0, 0.0)


def pass_time(p: Pass, hw: Hardware) -> PassTime:
    return _timed(
        p.weight_bytes,
        p.kv_bytes,
        p.flops,
        p.dtype,
        p.allreduces,
        p.allreduce_bytes,
        p.ranks,
        p.host_bytes,
        hw,
    )


def _timed(
    weight_bytes: float,
    kv_bytes: float,
    flops: float,
    dtype: str,
    allreduces: int,
    allreduce_bytes: float,
    ranks: int,
    host_bytes: float,
    hw: Hardware,
) -> PassTime:
    """pass_time of the Pass with these fields."""
    weights = weight_bytes / hw.bandwidth
    kv = kv_bytes / hw.bandwidth
    compute = flops / hw.peak_for(dtype) if flops else 0.0
    comm = 0.0
    if ranks > 1 and allreduces:
        if not hw.link:
            raise CannotEstimate(f"the catalog has no NVLink or PCIe figure for {hw.name}")
        ring = 2 * (ranks - 1) / ranks * allreduce_bytes / hw.link
        comm = allreduces * (hw.allreduce_latency + ring)
    if host_bytes:
        if not hw.host_link:
            raise CannotEstimate(f"the catalog has no host-link figure for {hw.name}")
        comm += host_bytes / hw.host_link
    fixed = hw.pass_overhead
    return assembled(  # the speculative table makes a few for each of its rows
        PassTime,
        weights=weights,
        kv=kv,
        compute=compute,
        comm=comm,
        total=max(weights + kv, compute) + comm + fixed,
        fixed=fixed,
    )


@dataclass(frozen=True)
class Step:
    """One decode step: the target's verify pass and the drafter's passes."""

    verify: PassTime
    draft: PassTime  # one draft pass
    draft_passes: int

    @property
    def total(self) -> float:
        return self.verify.total + self.draft_passes * self.draft.total

    @property
    def draft_share(self) -> float:
        return self.draft_passes * self.draft.total / self.total if self.total else 0.0

    @property
    def bound(self) -> str:
        """What limits the step: the verify pass's bound, or "drafting" where the drafter's
        passes take longer than the verify pass."""
        if self.draft_passes * self.draft.total > self.verify.total:
            return "drafting"
        return self.verify.bound


# --------------------------------------------------------------------------- model shapes


@dataclass(frozen=True)
class Shape:
    """Per-GPU figures of one model (or head) for the pass builder."""

    linear_params: float  # parameters a token multiplies through (active experts only)
    expert_share: float  # share of the weight bytes that are routed experts
    experts: int
    experts_per_token: int
    attention_flops: float  # FLOPs per token per context token (all full-attention layers)
    window_flops: tuple[tuple[int, float], ...]  # (window, FLOPs per token per context token)
    embedding_bytes: float  # bytes of an input embedding table the pass only gathers rows of
    allreduces: int  # all-reduces per pass with TP > 1 (two a layer)
    hidden: int


def shape(arch: Any, tp: int, pp: int, dtype_bytes: int) -> Shape:
    """The figures of ``arch`` on one GPU of a TP x PP group (worked out once per shape: the
    speculative advisor asks for the same ones for each of its alternatives)."""
    memo = getattr(arch, "_memo", None)
    if memo is None:  # an architecture-like object without the memo (tests' stand-ins)
        return _shape(arch, tp, pp, dtype_bytes)
    return memo(("roofline-shape", tp, pp, dtype_bytes), lambda: _shape(arch, tp, pp, dtype_bytes))


def _shape(arch: Any, tp: int, pp: int, dtype_bytes: int) -> Shape:
    layers = range(min(-(-arch.num_layers // pp), arch.num_layers))
    h = arch.hidden_size
    heads = arch.num_attention_heads / tp
    if arch.is_mla:
        # absorbed MLA decode: scores over the latent (kv_lora_rank + rope) and values over
        # kv_lora_rank, per head
        per_layer = heads * 2 * (2 * arch.kv_lora_rank + arch.qk_rope_head_dim)
    else:
        per_layer = 4 * heads * arch.head_dim
    full = 0.0
    windows: dict[int, float] = {}
    mixers, ffns = getattr(arch, "layer_mixers", None), getattr(arch, "layer_ffns", None)
    known = mixers is not None and ffns is not None
    if known and len(mixers) >= len(layers) and len(ffns) >= arch.num_layers:
        # an Architecture's layer kinds, counted: the sums a loop over the layers adds, one
        # layer's figure at a time (repeated_sum: the same floats to the last bit)
        stage = mixers[: len(layers)]
        full = repeated_sum(per_layer, stage.count(FULL))
        sliding = stage.count(SLIDING)
        if sliding:
            windows[arch.sliding_window] = repeated_sum(per_layer, sliding)
        moe_layers = ffns[: arch.num_layers].count(MOE)
    else:  # an architecture-like object: its mixer() and ffn() layer by layer
        for layer in layers:
            mixer = arch.mixer(layer)
            if mixer == FULL:
                full += per_layer
            elif mixer == SLIDING:
                windows[arch.sliding_window] = windows.get(arch.sliding_window, 0.0) + per_layer
        moe_layers = sum(1 for layer in range(arch.num_layers) if arch.ffn(layer) == MOE)
    experts = arch._ffn_parts(MOE)[0] * moe_layers if moe_layers else 0.0
    active = experts * arch.experts_per_token / arch.num_experts if moe_layers else 0.0
    total = float(arch.parameters) - float(arch.vision_params or 0)
    embed = float(arch.vocab_size * h)
    # the input embedding is a gather, not a matmul; a tied table is still read as the lm_head
    linear = total - (0.0 if arch.tie_word_embeddings else embed) - experts + active
    linear *= len(layers) / max(arch.num_layers, 1)  # this pipeline stage's share
    return Shape(
        linear_params=max(linear, 0.0) / tp,
        expert_share=experts / total if total else 0.0,
        experts=arch.num_experts,
        experts_per_token=arch.experts_per_token,
        attention_flops=full,
        window_flops=tuple(windows.items()),
        embedding_bytes=0.0 if arch.tie_word_embeddings else embed / tp * dtype_bytes,
        allreduces=2 * len(layers),
        hidden=h,
    )


def touched(shape_: Shape, tokens: float) -> float:
    """The share of the routed experts' bytes a pass over ``tokens`` tokens reads: each layer
    reads the experts at least one token is routed to, E x (1 - (1 - k/E)^tokens) of E."""
    if not shape_.experts or shape_.experts <= 1:
        return 1.0
    return 1.0 - (1.0 - shape_.experts_per_token / shape_.experts) ** max(tokens, 1.0)


def attention_flops(shape_: Shape, context: float) -> float:
    """FLOPs of attention for one query token over ``context`` tokens."""
    flops = shape_.attention_flops * context
    for window, per in shape_.window_flops:
        flops += per * min(context, window)
    return flops


def model_pass(
    shape_: Shape,
    weight_bytes: float,
    kv_bytes_per_sequence: float,
    batch: int,
    tokens_per_sequence: int,
    context: float,
    dtype: str,
    ranks: int,
    activation_bytes: int = 2,
) -> Pass:
    """One forward pass of ``batch`` sequences, ``tokens_per_sequence`` new tokens each."""
    return Pass(
        *_pass_fields(
            shape_,
            weight_bytes,
            kv_bytes_per_sequence,
            batch,
            tokens_per_sequence,
            context,
            dtype,
            ranks,
            activation_bytes,
        )
    )


def model_pass_time(
    shape_: Shape,
    weight_bytes: float,
    kv_bytes_per_sequence: float,
    batch: int,
    tokens_per_sequence: int,
    context: float,
    dtype: str,
    ranks: int,
    hw: Hardware,
    host_bytes: float = 0.0,
) -> PassTime:
    """``pass_time(model_pass(...), hw)`` (the pass with ``host_bytes`` streamed from the host,
    as ``replace(pass, host_bytes=...)`` gives it), without making the Pass: the speculative
    table times two or three passes for each of its rows and keeps only their times."""
    fields = _pass_fields(
        shape_,
        weight_bytes,
        kv_bytes_per_sequence,
        batch,
        tokens_per_sequence,
        context,
        dtype,
        ranks,
    )
    return _timed(*fields, host_bytes, hw)


def _pass_fields(
    shape_: Shape,
    weight_bytes: float,
    kv_bytes_per_sequence: float,
    batch: int,
    tokens_per_sequence: int,
    context: float,
    dtype: str,
    ranks: int,
    activation_bytes: int = 2,
) -> tuple[float, float, float, str, int, float, int]:
    """model_pass's Pass fields, in order, up to ranks (host_bytes 0)."""
    tokens = batch * tokens_per_sequence
    expert_bytes = weight_bytes * shape_.expert_share
    read = weight_bytes - expert_bytes + expert_bytes * touched(shape_, tokens)
    read = max(read - shape_.embedding_bytes, 0.0)
    flops = tokens * (2 * shape_.linear_params + attention_flops(shape_, context))
    return (
        read,
        batch * kv_bytes_per_sequence,
        flops,
        dtype,
        shape_.allreduces if ranks > 1 else 0,
        tokens * shape_.hidden * activation_bytes,
        ranks,
    )


def compute_dtype(quantization: str | None, gpu: Any, dtype: str | None) -> str:
    """The tensor cores a model's linear layers run on: FP8 / INT8 / FP4 for formats that
    quantize activations too (on GPUs that have them), else the activation dtype."""
    name = getattr(quantization, "name", quantization)
    wanted = ACTIVATION_DTYPE.get(str(name or ""))
    if wanted == "fp8" and not gpu.fp8:
        wanted = None  # Marlin weight-only FP8 on Ampere: BF16 tensor cores
    perf = gpu.performance
    if wanted and perf is not None and perf.dense.get(wanted):
        return wanted
    return "fp16" if str(dtype or "") in ("float16", "half") else "bf16"


def seconds_per_all_reduce(value: Any) -> float:
    """A time rule parameter such as ``10 us`` (a bare number is microseconds)."""
    if hasattr(value, "to"):
        return float(value.to("second").magnitude)
    return float(value) * 1e-6
