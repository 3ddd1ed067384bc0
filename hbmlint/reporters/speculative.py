"""The speculative-decoding alternatives of each deployment (``hbmlint budget
--compare-speculative``), as a table or as JSON. The numbers come from hbmlint/speculative.py,
the same code the rule speculative-tradeoff (HBM208) uses."""

from __future__ import annotations

import json
from typing import Any

from ..results import RenderOptions, Report
from ..speculative import Comparison
from ..units import bytes_of, format_bytes

RULE_ID = "HBM208"
# (file, deployment name, (budget, comparison) or None, error or None)
Entry = tuple[str, str | None, tuple[Any, Comparison] | None, str | None]
ESTIMATE = (
    "estimate: tokens per step (1 - a^(k+1)) / (1 - a) from published acceptance rates a (rule "
    "HBM208's parameters); a step is the target's verify pass over 1 + k tokens a sequence plus "
    "the drafter's passes, each bound by the bytes it reads or the FLOPs it computes on this GPU "
    "(datasheet figures x efficiency, hbmlint/catalog/gpus.yaml); speed-up is against no "
    "speculation at the same batch, and the best serves the most tokens per second. "
    "Acceptance depends on the task: measure before you commit."
)


def render_json(entries: list[Entry]) -> str:
    items = []
    for display, name, found, error in entries:
        if found is None:
            items.append({"file": display, "name": name, "error": error})
            continue
        _, table = found
        items.append(
            {
                "file": display,
                "name": name,
                "context_tokens": table.context,
                "sequences_wanted": table.wanted,
                "from_workload": table.from_workload,
                # null when nothing starts or no speed can be estimated: nothing is advised
                "best": None if table.best is None else table.best.key,
                "gain": None if table.gain is None else round(table.gain, 4),
                "cannot_estimate": table.cannot_estimate or None,
                "estimate": ESTIMATE,
                "alternatives": [_row_dict(r) for r in table.rows],
            }
        )
    return json.dumps(items, indent=2) + "\n"


def _row_dict(r: Any) -> dict[str, Any]:
    return {
        "key": r.key,
        "label": r.label,
        "change": r.change,
        "method": r.method,
        "num_speculative_tokens": r.k,
        "acceptance_rate": round(r.acceptance, 4),
        "draft_weights_bytes": bytes_of(r.draft_hbm),
        "kv_cache_tokens": r.kv_tokens,
        "starts": r.starts,
        "concurrency": round(r.concurrency, 4),
        "sequences_served": r.served,
        "tokens_per_step": round(r.tokens_per_step, 4),
        "draft_cost": _round(r.draft_cost),
        "speedup": _round(r.speedup),
        "tokens_per_second": _round(r.throughput, 1),
        "step": None if r.step is None else _step_dict(r),
        "note": r.note,
    }


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def _step_dict(r: Any) -> dict[str, Any]:
    """The step-time terms, in milliseconds, and what bounds the step."""
    step = r.step

    def terms(p: Any) -> dict[str, float]:
        return {
            "weights_ms": round(p.weights * 1e3, 4),
            "kv_ms": round(p.kv * 1e3, 4),
            "compute_ms": round(p.compute * 1e3, 4),
            "communication_ms": round(p.comm * 1e3, 4),
            "overhead_ms": round(p.fixed * 1e3, 4),
            "total_ms": round(p.total * 1e3, 4),
            "bound": p.bound,
        }

    return {
        "total_ms": round(step.total * 1e3, 4),
        "bound": step.bound,
        "verify": terms(step.verify),
        "draft": {**terms(step.draft), "passes": step.draft_passes},
        "without_speculation_ms": round((r.baseline_seconds or 0.0) * 1e3, 4),
    }


def render_text(entries: list[Entry]) -> str:
    blocks = []
    for display, name, found, error in entries:
        if found is None:
            title = f"{display}: {name}" if name else display
            blocks.append(f"{title}\n  cannot compute a budget: {error}\n")
            continue
        budget, table = found
        blocks.append(_table(display, name, budget, table))
    if not blocks:
        return "No deployments found.\n"
    return "\n".join(blocks)


def _table(display: str, name: str, budget: Any, table: Comparison) -> str:
    unit = budget.byte_unit
    source = "the workload" if table.from_workload else "max_model_len and max_num_seqs"
    lines = [
        f"{display}: {name}",
        f"  speculative decoding alternatives, per GPU; {table.wanted} sequences of "
        f"{table.context:,} tokens wanted ({source})",
        f"    {'alternative':<36} {'draft HBM':>10} {'KV tokens':>10} {'seqs':>5} "
        f"{'a':>5} {'k':>2} {'tok/step':>8} {'step ms':>8} {'bound by':>9} {'speed-up':>8} "
        f"{'tokens/s':>9}",
    ]
    best, current = table.best, table.current
    for r in table.rows:
        mark = "*" if r is best else " "
        if not r.starts:
            served = f"{r.shortfall:>38}"
        else:
            served = f"{r.served:>5} {r.acceptance:>5.2f} {r.k:>2} {r.tokens_per_step:>8.2f} "
            if r.step is None:
                served += f"{'-':>8} {'-':>9} {'-':>8} {'-':>9}"
            else:
                served += (
                    f"{r.step.total * 1e3:>8.2f} {r.bound:>9} {r.speedup:>7.2f}x "
                    f"{r.throughput:>9,.0f}"
                )
        lines.append(
            f"  {mark} {r.label[:36]:<36} {format_bytes(r.draft_hbm, unit):>10} "
            f"{r.kv_tokens:>10,} {served}"
        )
        if r.step is not None and r.step.draft_passes:
            v, d = r.step.verify, r.step.draft
            lines.append(
                f"      step: verify {v.total * 1e3:.2f} ms ({v.bound}-bound: weights "
                f"{v.weights * 1e3:.2f}, KV {v.kv * 1e3:.2f}, compute {v.compute * 1e3:.2f}) + "
                f"{r.step.draft_passes} x draft {d.total * 1e3:.2f} ms; without speculation "
                f"{(r.baseline_seconds or 0) * 1e3:.2f} ms"
            )
        if r.note:
            lines.append(f"      {r.note}")
    if table.cannot_estimate:
        lines.append(f"  {table.cannot_estimate}")
    if not any(r.starts for r in table.rows):
        # SGLang and TensorRT-LLM start with a short KV cache; vLLM and TGI refuse to
        refused = all(r.shortfall == "does not start" for r in table.rows)
        verdict = (
            f"none: {'none of them starts' if refused else 'none of them holds one sequence'}; "
            "the target itself leaves no room for one max_model_len sequence (see HBM101, "
            "HBM102 / HBM104)"
        )
    elif best is None:
        verdict = "none: no speed estimate for this GPU"
    elif best is current:
        verdict = "keep the current setting: no alternative serves more tokens per second"
    elif table.gain is None:
        why = (
            "the current setting's speed is not estimated"
            if current.starts
            else f"the current setting {current.shortfall}"
        )
        verdict = f"{best.label}, {best.change}: {best.served} x {best.speedup:.2f}x; {why}"
    else:
        verdict = (
            f"{best.label}, {best.change}: about {table.gain:.2f}x the current decode throughput"
        )
    lines.append(f"  best: {verdict}")
    lines.append(f"  ({ESTIMATE})")
    return "\n".join(lines) + "\n"


def report_text(result: Report, options: RenderOptions) -> str:
    return render_text(result.comparisons)


def report_json(result: Report, options: RenderOptions) -> str:
    return render_json(result.comparisons)
