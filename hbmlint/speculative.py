"""The speculative-decoding advisor: for one deployment, what each kind of drafter would cost in
HBM and what it would buy in decode throughput.

For each alternative (keep the drafter, an FP8 or INT8 draft, an EAGLE-3 head, MTP where the
checkpoint has it, early-exit self-speculation, a CPU-offloaded draft, n-gram lookup, no
speculation) the budget is recomputed, giving its KV capacity and the sequences it serves at once
at the workload's context. Each sequence gains ``(1 - a^(k+1)) / (1 - a)`` tokens per step for
a per-token acceptance rate ``a`` and ``k`` drafted tokens (Leviathan et al. 2023,
arXiv:2211.17192, eq. 1), and a step costs what hbmlint/roofline.py says: the target's verify
pass over B x (1 + k) tokens and the drafter's passes, each bound by the bytes it reads or the
FLOPs it computes on this GPU. The speed-up of an alternative is its tokens per second per
sequence against no speculation at the same batch; the ranking is its decode throughput, tokens
per second for the sequences it serves. An estimate from published acceptance rates and
datasheet figures, not a measurement.

The parameters (acceptance rates with their sources, the all-reduce latency, the host link) are
the caller's: the rule speculative-tradeoff (rules/HBM208-*.yaml) passes its own, and ``hbmlint
budget --compare-speculative`` passes that rule's with the configuration's overrides, so this
module never reads rule files.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from . import catalog, roofline
from .budget import Budget, _changed, compute_from, figure_magnitude
from .catalog import Architecture
from .identity_memo import IdentityMemo
from .records import assembled, dataclass
from .units import is_quantity

TRADEOFF_RULE = "speculative-tradeoff"  # the rule whose params the CLI passes
# rule parameter -> the methods whose acceptance rate it gives
RATE_PARAMS = {
    "acceptance_draft_model": ("draft_model",),
    "acceptance_eagle": ("eagle",),
    "acceptance_eagle3": ("eagle3",),
    "acceptance_medusa": ("medusa",),
    "acceptance_mtp": ("mtp",),
    "acceptance_ngram": ("ngram", "prompt_lookup", "suffix"),
    "acceptance_lookahead": ("lookahead",),
    "acceptance_early_exit": ("early_exit",),
}
# the other parameters compare() needs from its caller
MODEL_PARAMS = ("host_link_gb_per_s", "eagle3_draft_vocab", "allreduce_latency", "pass_overhead")
DEFAULT_K = 3  # drafted tokens for an alternative when the deployment sets none
LABELS = {
    "draft_model": "draft model",
    "eagle": "EAGLE head",
    "eagle3": "EAGLE-3 head",
    "medusa": "Medusa heads",
    "mtp": "MTP layers",
    "ngram": "n-gram lookup",
    "prompt_lookup": "prompt lookup",
    "suffix": "suffix decoding",
    "lookahead": "lookahead decoding",
    "early_exit": "early-exit (LayerSkip)",
    "none": "no speculation",
    "dflash": "DFlash drafter",
}


@dataclass(frozen=True)
class Alternative:
    key: str  # stable id: current, draft_fp8, draft_int8, eagle3, mtp, early_exit, ...
    label: str  # what a reader sees
    change: str  # the manifest change that selects it ("" for the current setting)
    method: str
    k: int  # drafted tokens per step
    acceptance: float  # per-token acceptance rate a
    draft_hbm: Any  # draft weights in HBM per GPU (bytes)
    kv_tokens: int
    starts: bool  # the weights fit and one max_model_len sequence fits
    concurrency: float  # sequences of the workload's context the KV cache holds
    served: int  # sequences served at once: min(wanted, what fits)
    tokens_per_step: float  # expected tokens per target forward pass per sequence
    # the step-time model's answer (None where it cannot estimate, or the row does not start)
    step: roofline.Step | None = None
    baseline_seconds: float | None = None  # a step without speculation at the same batch
    speedup: float | None = None  # per-sequence speed vs no speculation at the same batch
    throughput: float | None = None  # tokens per second of the served sequences together
    note: str = ""
    # why a row that does not serve one max_model_len sequence falls short, in a reader's words
    shortfall: str = ""

    @property
    def draft_cost(self) -> float | None:
        """c: one draft pass relative to the verify pass."""
        if self.step is None or not self.step.verify.total:
            return None
        return self.step.draft.total / self.step.verify.total

    @property
    def step_seconds(self) -> float | None:
        return None if self.step is None else self.step.total

    @property
    def bound(self) -> str:
        """What bounds its step: weights, KV reads, compute or drafting ("" when unknown)."""
        return "" if self.step is None else self.step.bound


@dataclass(frozen=True)
class Comparison:
    rows: tuple[Alternative, ...]
    context: int  # tokens per sequence the comparison serves
    wanted: int  # sequences the deployment means to serve at once
    from_workload: bool  # context and wanted come from the declared workload
    cannot_estimate: str = ""  # why no speed is estimated (a figure the catalog lacks)

    @property
    def current(self) -> Alternative:
        return self.rows[0]

    @property
    def best(self) -> Alternative | None:
        """The alternative with the highest decode throughput among those that start; None when
        none starts or no speed can be estimated. Ties go to the earlier row: keeping what is
        there, then the cheaper change."""
        # each row ranked with its position as it comes (rows.index(r) compared the row with
        # every earlier one, ~12k instructions a record comparison, ~290k a table of seven)
        ranked = [
            (round(r.throughput or 0.0, 6), -position)
            for position, r in enumerate(self.rows)
            if r.starts and r.throughput is not None
        ]
        if not ranked:
            return None
        return self.rows[-max(ranked)[1]]

    @property
    def gain(self) -> float | None:
        """best / current throughput; None when the current setting does not start (or no
        speed is estimated)."""
        best, current = self.best, self.current
        if best is None or not current.starts or not current.throughput:
            return None
        return (best.throughput or 0.0) / current.throughput


def tokens_per_step(acceptance: float, k: int) -> float:
    """Expected tokens one target forward pass yields per sequence with k drafted tokens, each
    accepted with probability a until the first rejection, plus the target's own token."""
    if k <= 0:
        return 1.0
    a = min(max(acceptance, 0.0), 0.999999)
    return (1 - a ** (k + 1)) / (1 - a)


def _number(value: Any) -> float:
    if is_quantity(value):
        return float(value.to("dimensionless").magnitude)
    return float(value)


def compare(
    budget: Budget,
    params: Mapping[str, Any],
    only_current: bool = False,
    head: Comparison | None = None,
) -> Comparison:
    """The alternatives table for one deployment, with the caller's parameters: the trade-off
    rule's (acceptance rates, all-reduce latency, host link, EAGLE-3 vocabulary). With
    ``only_current``, the table of the current setting alone (a rule that judges the drafter
    as set reads no alternative: each costs a budget and a step model). ``head``: that table,
    already made for this budget and these parameters; the whole table starts from its row
    (and its step without speculation) instead of working them out again."""
    rates, gbps, allreduce, overhead = _figures(params)
    s = budget.settings
    resolved = budget.resolved
    target, draft = resolved.target, resolved.draft
    workload = budget.deployment.workload
    context = workload.context_tokens if workload else s.max_model_len
    wanted = workload.concurrency if workload else s.max_num_seqs
    k = s.num_speculative_tokens or DEFAULT_K
    hw, cannot = _hardware(resolved.gpu, allreduce, gbps * 1e9, overhead)
    plain_cache: dict[int, float] = {}
    if head is not None and head.current.baseline_seconds is not None:
        # the head's row worked out a step without speculation at its batch: the same one
        plain_cache[head.current.served] = head.current.baseline_seconds
    # The target's side of a step (its shape, weights, KV a sequence, compute dtype) and its
    # verify passes by (batch, tokens a sequence): the same for every row whose budget reads
    # the same target-side settings and weights as this one (each what-if changes only the
    # drafter), so worked out once a table instead of once a row and again for its baseline.
    own_side: list[tuple] = []
    verifies: dict[tuple[int, int], roofline.PassTime] = {}

    def target_side(b: Budget) -> tuple | None:
        """This budget's target terms where they are this table's own (None where not)."""
        if b is not budget:
            sb, rb = b.settings, b.resolved
            if not (
                rb.target is target
                and rb.gpu is resolved.gpu
                and sb.dtype == s.dtype
                and sb.tensor_parallel == s.tensor_parallel
                and sb.pipeline_parallel == s.pipeline_parallel
                and sb.kv_cache_dtype == s.kv_cache_dtype
                and sb.quantization is s.quantization
            ):
                return None
        if not own_side:
            own_side.append(_target_side(budget, context))
        side = own_side[0]
        if b is not budget and float(figure_magnitude(b, "weights")) != side[1]:
            return None
        return side

    def verify(side: tuple, batch: int, tokens: int) -> roofline.PassTime:
        found = verifies.get((batch, tokens))
        if found is None:
            found = verifies[batch, tokens] = _verify(side, batch, tokens, context, hw)  # type: ignore[arg-type]
        return found

    def step_of(b: Budget, method: str, kk: int, batch: int) -> roofline.Step:
        """decode_step(b, method, kk, batch, context, hw), its target terms and verify pass
        shared with the table's other rows where they are the same."""
        side = target_side(b)
        if side is None:
            return decode_step(b, method, kk, batch, context, hw)  # type: ignore[arg-type]
        verify_pass = verify(side, batch, 1 + kk)  # first, as decode_step: its error first
        draft_pass, passes = _draft_pass(b, method, kk, batch, context, hw, *side[:3])  # type: ignore[arg-type]
        return roofline.Step(verify_pass, draft_pass, passes)

    def plain(batch: int) -> float:
        """Seconds of a step without speculation at this batch."""
        if batch not in plain_cache:
            plain_cache[batch] = step_of(budget, "none", 0, batch).total
        return plain_cache[batch]

    def row(key: str, label: str, change: str, b: Budget, method: str, note: str = "") -> Any:
        kk = 0 if method == "none" else (b.settings.num_speculative_tokens or k)
        a = rates.get(method, 0.0)
        tokens = int(figure_magnitude(b, "kv_tokens"))
        # (the Quantities' sum and comparison, on their magnitudes: the same numbers)
        weights = figure_magnitude(b, "weights") + figure_magnitude(b, "draft_weights")
        fits = weights <= figure_magnitude(b, "usable")
        starts = fits and tokens >= s.max_model_len
        concurrency = tokens / context if context else 0.0
        served = min(wanted, math.floor(concurrency + 1e-9)) if starts else 0
        per_step = tokens_per_step(a, kk)
        step = base = speedup = throughput = None
        if kk and method not in rates:
            # no acceptance rate to run the step model with (a method the published
            # benchmarks behind RATE_PARAMS do not cover): no speed estimate, no advice on it
            note = f"{note}; " if note else ""
            note += f"no acceptance rate for {LABELS.get(method, method)}: speed not estimated"
        elif hw is not None and starts and served > 0:
            try:
                step = step_of(b, method, kk, served)
                base = plain(served)
            except roofline.CannotEstimate as exc:
                note = f"{note}; " if note else ""
                note += f"cannot estimate its speed: {exc}"
            else:
                speedup = per_step * base / step.total
                throughput = served * per_step / step.total
        return assembled(  # a table makes one a row
            Alternative,
            key=key,
            label=label,
            change=change,
            method=method,
            k=kk,
            acceptance=a if kk else 0.0,
            draft_hbm=b.draft_weights,
            kv_tokens=tokens,
            starts=starts,
            concurrency=concurrency,
            served=served,
            tokens_per_step=per_step,
            step=step,
            baseline_seconds=base,
            speedup=speedup,
            throughput=throughput,
            note=note,
            shortfall="" if starts else _shortfall(s.engine, fits, tokens),
        )

    def whatif(**changes: Any) -> Budget:
        return _whatif(budget, num_speculative_tokens=k, **changes)

    method = s.speculative_method
    current_label = LABELS.get(method, method)
    if draft is not None and method in ("draft_model", "eagle", "eagle3", "medusa", "dflash"):
        current_label += f" {draft.name.rsplit('/', 1)[-1]}"
    elif draft is not None and method == "mtp":  # a Gemma 4 assistant checkpoint
        current_label = f"MTP {draft.name.rsplit('/', 1)[-1]}"
    if s.draft_quantization:
        current_label += f" ({s.draft_quantization})"
    if s.draft_offload:
        current_label += " (offloaded to CPU)"
    if head is not None:
        rows = [head.current]  # what row() gives again for this budget and these parameters
    else:
        rows = [row("current", f"as set: {current_label}", "", budget, method)]
    if only_current:
        return Comparison(tuple(rows), int(context), int(wanted), workload is not None, cannot)
    if method == "draft_model" and draft is not None:
        # FP8 where the GPU has FP8 tensor cores, INT8 (W8A8) where it has not
        for quant in ("fp8",) if resolved.gpu.fp8 else ("int8",):
            if s.draft_quantization != quant:
                rows.append(
                    row(
                        f"draft_{quant}",
                        f"{quant.upper()} draft",
                        f"speculative.quantization: {quant}",
                        whatif(draft_quantization=quant, draft_offload=False),
                        method,
                    )
                )
        if not s.draft_offload:
            host = budget.draft_weights
            seconds = float(host.to("byte").magnitude) / (gbps * 1e9) if gbps else 0.0
            rows.append(
                row(
                    "draft_offload",
                    "draft offloaded to CPU",
                    "speculative.offload: true",
                    whatif(draft_offload=True),
                    method,
                    note=f"streams its weights over PCIe: ~{seconds * 1000:,.0f} ms per draft "
                    f"token at {gbps:g} GB/s",
                )
            )
    if method not in ("eagle", "eagle3"):
        head = _eagle3_head_for(target, int(_number(params["eagle3_draft_vocab"])))
        # the budget's own copy-with-changes (one dict), not dataclasses.replace's per-field
        # __init__ over Settings' 42 fields; the names are Settings' (a test holds them so)
        head_settings = _changed(
            s,
            {
                "speculative_method": "eagle3",
                "num_speculative_tokens": k,
                "draft_quantization": None,
                "draft_tensor_parallel": s.tensor_parallel,
                "draft_offload": False,
            },
        )
        head_budget = compute_from(budget, replace(resolved, draft=head), head_settings)
        rows.append(
            row(
                "eagle3",
                "EAGLE-3 head",
                "speculative.method: eagle3 (a head trained for this target)",
                head_budget,
                "eagle3",
                note="sized from the target's shape: one decoder layer, "
                f"{int(_number(params['eagle3_draft_vocab'])):,}-token lm_head",
            )
        )
    if target.mtp_layers and method != "mtp":
        rows.append(
            row(
                "mtp",
                "MTP layers",
                "speculative.method: mtp",
                whatif(speculative_method="mtp", draft_offload=False),
                "mtp",
            )
        )
    if method != "early_exit":
        rows.append(
            row(
                "early_exit",
                "early-exit self-speculation",
                "speculative.method: early_exit (a LayerSkip-trained checkpoint)",
                whatif(speculative_method="early_exit", draft_offload=False),
                "early_exit",
            )
        )
    if method not in ("ngram", "prompt_lookup", "suffix"):
        rows.append(
            row(
                "ngram",
                "n-gram lookup",
                "speculative.method: ngram",
                whatif(speculative_method="ngram", draft_offload=False),
                "ngram",
            )
        )
    if method != "none":
        rows.append(
            row(
                "none",
                "no speculation",
                "speculative.method: none",
                _whatif(budget, speculative_method="none", num_speculative_tokens=0),
                "none",
            )
        )
    return Comparison(tuple(rows), int(context), int(wanted), workload is not None, cannot)


# _figures' answers by the identities of the parameter values given, with those values (held, so
# that an identity is not reused while its entry lives)
_FIGURES: dict[tuple[int, ...], tuple[tuple[Any, ...], tuple]] = {}


def _figures(p: Mapping[str, Any]) -> tuple[dict[str, float], float, float, float]:
    """What compare() works out of its parameters on every call: the acceptance rate of each
    method, the host link in GB/s, and the all-reduce latency and pass overhead in seconds.
    Raises ValueError for a missing parameter. Worked out once for each set of parameter
    objects, found by their identities: a run's tables are asked for with the same objects (a
    rule's own parameters and the configuration's), which the entry holds."""
    # (a missing parameter reads as None, as one given as None does: neither gives figures,
    # so neither is kept)
    values = tuple(map(p.get, _FIGURE_PARAMS))
    identities = tuple(map(id, values))
    found = _FIGURES.get(identities)
    if found is not None:
        return found[1]
    missing = [name for name in (*RATE_PARAMS, *MODEL_PARAMS) if name not in p]
    if missing:
        raise ValueError(
            f"the speculative comparison needs the parameters {', '.join(missing)} "
            f"(the {TRADEOFF_RULE} rule's)"
        )
    rates = {m: _number(p[name]) for name, methods in RATE_PARAMS.items() for m in methods}
    figures = (
        rates,
        _number(p["host_link_gb_per_s"]),
        roofline.seconds_per_all_reduce(p["allreduce_latency"]),
        roofline.seconds_per_all_reduce(p["pass_overhead"]),
    )
    if len(_FIGURES) >= 256:  # a run's rules and configurations give a few
        _FIGURES.clear()
    _FIGURES[identities] = (values, figures)
    return figures


# the parameters _figures reads (and the check for missing ones)
_FIGURE_PARAMS = (*RATE_PARAMS, *MODEL_PARAMS)


def _whatif(budget: Budget, **changes: Any) -> Budget:
    """``budget.whatif(**changes)`` less the changes to what a setting already is (the very
    object: the settings, and so the budget, are the same without them), so that an
    alternative's budget is the what-if a rule asked for where it did (``whatif(
    speculative_method="ngram")`` for a drafter that sets its tokens and is not offloaded), not
    a second one worked out under another key."""
    settings = budget.settings
    return budget.whatif(
        **{name: value for name, value in changes.items() if getattr(settings, name) is not value}
    )


# roofline.hardware's answers (or why it has none), kept for the run: every table asks. Keyed on
# all it reads: the GPU's datasheet figures (the catalog's one frozen GpuPerformance object per
# GPU, by identity), its name and the rule's numbers.
_HARDWARE = IdentityMemo(limit=64)


def _hardware(
    gpu: Any, allreduce_latency: float, host_link: float, pass_overhead: float
) -> tuple[roofline.Hardware | None, str]:
    """The GPU's effective rates for the step model, or None and why not."""

    def work_out() -> tuple[roofline.Hardware | None, str]:
        try:
            hw = roofline.hardware(
                gpu, allreduce_latency, host_link=host_link, pass_overhead=pass_overhead
            )
        except roofline.CannotEstimate as exc:
            return None, f"cannot estimate decode speed: {exc}"
        return hw, ""

    key = (gpu.name, allreduce_latency, host_link, pass_overhead)
    return _HARDWARE.get(gpu.performance, work_out, *key)


def decode_step(
    b: Budget, method: str, k: int, batch: int, context: int, hw: roofline.Hardware
) -> roofline.Step:
    """One decode step of ``batch`` sequences of ``context`` tokens with this budget's drafter:
    the target's verify pass over 1 + k tokens a sequence and the drafter's passes."""
    side = _target_side(b, context)
    verify = _verify(side, batch, 1 + k, context, hw)
    draft, passes = _draft_pass(b, method, k, batch, context, hw, *side[:3])
    return roofline.Step(verify, draft, passes)


def _target_side(b: Budget, context: int) -> tuple[roofline.Shape, float, float, str, int]:
    """What a step's verify pass reads of a budget: the target's shape on one GPU, its weight
    bytes, a sequence's KV bytes at this context, the compute dtype and the TP size."""
    s, resolved = b.settings, b.resolved
    target, gpu = resolved.target, resolved.gpu
    dense = catalog.dtype_bytes(s.dtype)
    tp, pp = s.tensor_parallel, s.pipeline_parallel
    shape = roofline.shape(target, tp, pp, dense)
    kv_bytes = catalog.kv_dtype_bytes(s.kv_cache_dtype)
    layout = target.kv_layout(tp, pp, kv_bytes, s.kv_cache_dtype)
    kv_sequence = layout.full_per_token * context + layout.state_per_sequence
    kv_sequence += sum(per * min(context, window) for window, per in layout.windows)
    weights = float(figure_magnitude(b, "weights"))
    dtype = roofline.compute_dtype(s.quantization, gpu, s.dtype)
    return shape, weights, kv_sequence, dtype, tp


def _verify(
    side: tuple[roofline.Shape, float, float, str, int],
    batch: int,
    tokens: int,
    context: int,
    hw: roofline.Hardware,
) -> roofline.PassTime:
    """The target's pass over ``tokens`` tokens a sequence of ``batch`` sequences."""
    shape, weights, kv_sequence, dtype, tp = side
    return roofline.model_pass_time(
        shape, weights, kv_sequence, batch, tokens, context, dtype, tp, hw
    )


def _draft_pass(
    b: Budget,
    method: str,
    k: int,
    batch: int,
    context: int,
    hw: roofline.Hardware,
    target_shape: roofline.Shape,
    target_weights: float,
    target_kv: float,
) -> tuple[roofline.PassTime, int]:
    """One pass of the drafter and how many it makes a step."""
    s, resolved = b.settings, b.resolved
    target, gpu = resolved.target, resolved.gpu
    if k <= 0 or method in ("none", "ngram", "prompt_lookup", "suffix", "lookahead"):
        return roofline.ZERO, 0  # nothing on the GPU: a host-side table
    dense = catalog.dtype_bytes(s.dtype)
    weights = float(figure_magnitude(b, "draft_weights"))
    host = float(figure_magnitude(b, "draft_host_weights") or 0)
    kv = float(figure_magnitude(b, "kv_bytes_per_token_draft")) * context
    tp = s.draft_tensor_parallel if method in ("draft_model", "eagle", "eagle3") else 1
    tp = tp or s.tensor_parallel
    if method == "early_exit":
        layers = target.num_layers
        exit_layer = b.deployment.speculative.exit_layer or max(layers // 4, 1)
        if s.speculative_method != b.deployment.speculative.method:
            exit_layer = max(layers // 4, 1)  # an alternative: LayerSkip's E = L/4
        share = min(exit_layer, layers) / layers
        shape = replace(
            target_shape,
            linear_params=target_shape.linear_params * share,
            attention_flops=target_shape.attention_flops * share,
            window_flops=tuple((w, f * share) for w, f in target_shape.window_flops),
            allreduces=max(round(target_shape.allreduces * share), 1),
        )
        dtype = roofline.compute_dtype(s.quantization, gpu, s.dtype)
        one = roofline.model_pass_time(
            shape,
            target_weights * share,
            target_kv * share,
            batch,
            1,
            context,
            dtype,
            s.tensor_parallel,
            hw,
        )
        return one, k
    arch = resolved.draft
    if method == "mtp" and arch is None:
        n = max(target.mtp_layers, 1)
        last = target.num_layers - 1
        arch = replace(
            target,
            num_layers=n,
            mixers=("full",) * n,
            ffns=(target.ffn(last),) * n,
            vision_params=0,
            checkpoint=None,
        )
        tp = s.tensor_parallel
    if arch is None:
        return roofline.ZERO, 0
    assistant = method == "mtp" and bool(arch.assistant_backbone)
    if assistant:  # a Gemma 4 assistant: split over the target's TP as vLLM builds it
        tp = s.draft_tensor_parallel or s.tensor_parallel
    fmt = catalog.weight_format(s.draft_quantization, arch)
    per_param = fmt.bytes_per_param if fmt else dense
    shape = roofline.shape(arch, tp, 1, dense)
    dtype = roofline.compute_dtype(s.draft_quantization, gpu, s.dtype)
    if method in ("eagle", "eagle3", "medusa"):
        # a head: its parameters are what it stores (its own, reduced, lm_head for EAGLE-3);
        # EAGLE-1 and Medusa multiply through the target's lm_head as well
        shared = 0.0
        if method != "eagle3":
            shared = target.vocab_size * target.hidden_size / s.tensor_parallel
        params = (weights + host) / per_param + shared
        weights += shared * dense
        shape = replace(shape, linear_params=params, embedding_bytes=0.0, expert_share=0.0)
        if method == "medusa":  # every head reads the last hidden state once: one pass
            shape = replace(shape, attention_flops=0.0, window_flops=())
            return roofline.model_pass_time(shape, weights, 0.0, batch, 1, context, dtype, 1, hw), 1
    if method == "mtp" and not assistant:  # an assistant's lm_head is its own, in its weights
        weights += target.vocab_size * target.hidden_size / s.tensor_parallel * dense
    # (host: the draft's weights streamed from host memory, an offloaded draft's)
    one = roofline.model_pass_time(shape, weights, kv, batch, 1, context, dtype, tp, hw, host)
    return one, k


# The EAGLE-3 head of a target, made once per target architecture (frozen) and vocabulary a
# run, so that every table after the first finds its weights and KV layout in the head's own memo.
_HEADS = IdentityMemo(limit=256)


def _eagle3_head_for(target: Architecture, draft_vocab: int) -> Architecture:
    return _HEADS.get(target, lambda: eagle3_head(target, draft_vocab), draft_vocab)


def eagle3_head(target: Architecture, draft_vocab: int) -> Architecture:
    """An EAGLE-3 head shaped like the published ones for a target: one dense decoder layer of
    the target's width (a MoE target's routed width), standard attention, a reduced lm_head."""
    heads = target.num_attention_heads
    width = target.active_intermediate_size if target.is_moe else target.intermediate_size
    return Architecture(
        name=f"EAGLE-3 head for {target.name}",
        source="sized from the target's config",
        hidden_size=target.hidden_size,
        num_layers=1,
        num_attention_heads=heads,
        num_kv_heads=target.num_kv_heads if not target.is_mla else heads,
        head_dim=target.head_dim if not target.is_mla else target.hidden_size // heads,
        intermediate_size=width,
        vocab_size=target.vocab_size,
        tie_word_embeddings=False,
        dtype=target.dtype,
        max_position_embeddings=target.max_position_embeddings,
        draft_vocab_size=min(draft_vocab, target.vocab_size),
    )


# Engines that start with a KV cache shorter than max_model_len and cap the longest request at
# what it holds (SGLang's max_req_input_len; TensorRT-LLM lowers max_seq_len): see HBM102.
_START_SHORT = frozenset({"sglang", "trtllm"})


def _shortfall(engine: str, weights_fit: bool, kv_tokens: int) -> str:
    """What a row that cannot serve one max_model_len sequence does: with no room at all it
    does not start; with some, SGLang and TensorRT-LLM start and serve shorter requests, and
    vLLM and TGI refuse where the estimate is right (HBM102 and HBM105 weigh its
    uncertainty; this table compares point estimates)."""
    if weights_fit and kv_tokens > 0:
        if engine in _START_SHORT:
            return "starts but holds no max_model_len sequence"
        return "falls short of one max_model_len sequence"
    return "does not start"


def summary(comparison: Comparison) -> str:
    """One line per alternative, for a finding's message."""
    parts = []
    for r in comparison.rows:
        if not r.starts:
            parts.append(f"{r.label}: {r.shortfall}")
        elif r.speedup is None:
            parts.append(f"{r.label}: {r.served} sequences")
        else:
            parts.append(f"{r.label}: {r.served} x {r.speedup:.2f} ({r.bound}-bound)")
    return "; ".join(parts)
