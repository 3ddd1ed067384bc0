"""The speculative-decoding advisor: for one deployment, what each kind of drafter would cost in
HBM and what it would buy.

For each alternative (keep the drafter, an FP8 or INT8 draft, an EAGLE-3 head, MTP where the
checkpoint has it, early-exit self-speculation, a CPU-offloaded draft, n-gram lookup, no
speculation) the budget is recomputed, and the table gives its KV capacity, the sequences it
serves at once at the workload's context, and the expected tokens per target forward pass of one
sequence, ``(1 - a^(k+1)) / (1 - a)`` for a per-token acceptance rate ``a`` and ``k`` drafted
tokens (Leviathan et al. 2023, arXiv:2211.17192, eq. 1). The speed-up divides that by the cost of
drafting, ``1 + k c`` (ibid., Theorem 3.8), where ``c`` is one draft pass's cost relative to a
target pass, taken as the ratio of the bytes they read (decoding is memory-bound). The ranking is
sequences served x speed-up: an estimate from published acceptance rates, not a measurement.

The acceptance rates are the parameters of the rule speculative-tradeoff (rules/HBM208-*.yaml),
where their sources are cited; the rule and ``hbmlint budget --compare-speculative`` both call
``compare`` here, so a team's ``params:`` override reaches both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from .budget import Budget, compute
from .catalog import Architecture
from .units import Q, is_quantity

TRADEOFF_RULE = "speculative-tradeoff"
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
OTHER_PARAMS = ("offload_slowdown", "host_link_gb_per_s", "min_gain", "eagle3_draft_vocab")
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
    draft_cost: float  # c: one draft pass relative to one target pass
    speedup: float  # tokens_per_step / (1 + k c)
    throughput: float  # served x speedup, in sequences-worth of plain decoding
    note: str = ""


@dataclass(frozen=True)
class Comparison:
    rows: tuple[Alternative, ...]
    context: int  # tokens per sequence the comparison serves
    wanted: int  # sequences the deployment means to serve at once
    from_workload: bool  # context and wanted come from the declared workload

    @property
    def current(self) -> Alternative:
        return self.rows[0]

    @property
    def best(self) -> Alternative:
        # ties go to the earlier row: keeping what is there, then the cheaper change
        return max(self.rows, key=lambda r: (round(r.throughput, 6), -self.rows.index(r)))

    @property
    def gain(self) -> float | None:
        """best / current throughput; None when the current setting does not start."""
        if self.current.throughput <= 0:
            return None
        return self.best.throughput / self.current.throughput


def tokens_per_step(acceptance: float, k: int) -> float:
    """Expected tokens one target forward pass yields per sequence with k drafted tokens, each
    accepted with probability a until the first rejection, plus the target's own token."""
    if k <= 0:
        return 1.0
    a = min(max(acceptance, 0.0), 0.999999)
    return (1 - a ** (k + 1)) / (1 - a)


def default_params() -> dict[str, Any]:
    """The trade-off rule's own parameters (the acceptance-rate defaults and their sources live
    in its YAML file, once)."""
    return dict(_tradeoff_rule_params())


@cache
def _tradeoff_rule_params() -> dict[str, Any]:
    from .rules import builtin_rule_files, load_rule_file

    for path in builtin_rule_files():
        if TRADEOFF_RULE not in path.name:
            continue  # files are named HBMnnn-<rule name>.yaml: read only the one we need
        rule, _ = load_rule_file(path)
        if rule is not None and rule.name == TRADEOFF_RULE:
            return dict(rule.params)
    raise LookupError(f"the built-in rule {TRADEOFF_RULE} is missing")


def _number(value: Any) -> float:
    if is_quantity(value):
        return float(value.to("dimensionless").magnitude)
    return float(value)


def compare(budget: Budget, params: dict[str, Any] | None = None) -> Comparison:
    """The alternatives table for one deployment. ``params`` override the rule's defaults."""
    p = {**default_params(), **(params or {})}
    rates = {m: _number(p[name]) for name, methods in RATE_PARAMS.items() for m in methods}
    s = budget.settings
    resolved = budget.resolved
    target, draft = resolved.target, resolved.draft
    workload = budget.deployment.workload
    context = workload.context_tokens if workload else s.max_model_len
    wanted = workload.concurrency if workload else s.max_num_seqs
    k = s.num_speculative_tokens or DEFAULT_K

    def row(key: str, label: str, change: str, b: Budget, method: str, note: str = "") -> Any:
        kk = 0 if method == "none" else (b.settings.num_speculative_tokens or k)
        a = rates.get(method, 0.0)
        tokens = int(b.kv_tokens.to("token").magnitude)
        starts = (b.weights + b.draft_weights) <= b.usable and tokens >= s.max_model_len
        concurrency = tokens / context if context else 0.0
        served = min(wanted, math.floor(concurrency + 1e-9)) if starts else 0
        cost = _draft_cost_ratio(b, method, _number(p["offload_slowdown"]))
        per_step = tokens_per_step(a, kk)
        speedup = per_step / (1 + kk * cost)
        return Alternative(
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
            draft_cost=cost,
            speedup=speedup,
            throughput=served * speedup,
            note=note,
        )

    def whatif(**changes: Any) -> Budget:
        return budget.whatif(num_speculative_tokens=k, **changes)

    method = s.speculative_method
    current_label = LABELS.get(method, method)
    if draft is not None and method in ("draft_model", "eagle", "eagle3", "medusa"):
        current_label += f" {draft.name.rsplit('/', 1)[-1]}"
    if s.draft_quantization:
        current_label += f" ({s.draft_quantization})"
    if s.draft_offload:
        current_label += " (offloaded to CPU)"
    rows = [row("current", f"as set: {current_label}", "", budget, method)]
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
            gbps = _number(p["host_link_gb_per_s"])
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
        head = eagle3_head(target, int(_number(p["eagle3_draft_vocab"])))
        head_settings = replace(
            s,
            speculative_method="eagle3",
            num_speculative_tokens=k,
            draft_quantization=None,
            draft_tensor_parallel=s.tensor_parallel,
            draft_offload=False,
        )
        head_budget = compute(replace(resolved, draft=head), head_settings, budget.assumed)
        rows.append(
            row(
                "eagle3",
                "EAGLE-3 head",
                "speculative.method: eagle3 (a head trained for this target)",
                head_budget,
                "eagle3",
                note="sized from the target's shape: one decoder layer, "
                f"{int(_number(p['eagle3_draft_vocab'])):,}-token lm_head",
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
                budget.whatif(speculative_method="none", num_speculative_tokens=0),
                "none",
            )
        )
    return Comparison(tuple(rows), int(context), int(wanted), workload is not None)


def _draft_cost_ratio(b: Budget, method: str, offload_slowdown: float) -> float:
    """c: one draft pass relative to one target pass, by the bytes each reads per GPU."""
    target_bytes = float(b.weights.to("byte").magnitude) or 1.0
    if method == "early_exit":
        layers = b.resolved.target.num_layers
        exit_layer = b.deployment.speculative.exit_layer or max(layers // 4, 1)
        if b.settings.speculative_method != b.deployment.speculative.method:
            exit_layer = max(layers // 4, 1)  # an alternative: LayerSkip's E = L/4
        return min(exit_layer, layers) / layers
    host = float((b.draft_host_weights or Q(0, "byte")).to("byte").magnitude)
    if host:
        return offload_slowdown * host / target_bytes
    return float(b.draft_weights.to("byte").magnitude) / target_bytes


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


def summary(comparison: Comparison) -> str:
    """One line per alternative, for a finding's message."""
    parts = []
    for r in comparison.rows:
        if not r.starts:
            parts.append(f"{r.label}: does not start")
        else:
            parts.append(f"{r.label}: {r.served} x {r.speedup:.2f}")
    return "; ".join(parts)
