"""The speculative-decoding alternatives of each deployment (``hbmlint budget
--compare-speculative``), as a table or as JSON. The numbers come from hbmlint/speculative.py,
the same code the rule speculative-tradeoff (HBM208) uses."""

from __future__ import annotations

import json
from typing import Any

from ..lint import FileResult
from ..speculative import Comparison, compare
from ..units import bytes_of, format_bytes
from .budget import file_error

RULE_ID = "HBM208"
# (file, deployment name, (budget, comparison) or None, error or None)
Entry = tuple[str, str | None, tuple[Any, Comparison] | None, str | None]
ESTIMATE = (
    "estimate: speed-up = (1 - a^(k+1)) / ((1 - a)(1 + k c)) from published acceptance rates a "
    "(rule HBM208's parameters) and the draft's cost c per pass; the best serves the most "
    "sequences x speed-up. Acceptance depends on the task and the gain shrinks at large "
    "batches: measure before you commit."
)


def comparisons(results: list[FileResult], params: dict[str, Any]) -> list[Entry]:
    """What the report shows, computed before it is rendered (by hbmlint/speculative.py):
    (file, deployment, (budget, table) or None, error or None) per deployment."""
    out: list[Entry] = []
    for result in results:
        error = file_error(result)
        if error:
            out.append((result.display, None, None, error))
        for item in result.deployments:
            if item.budget is None:
                out.append((result.display, item.deployment.name, None, item.error))
            else:
                table = compare(item.budget, params)
                out.append((result.display, item.deployment.name, (item.budget, table), None))
    return out


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
                "best": table.best.key,
                "gain": None if table.gain is None else round(table.gain, 4),
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
        "draft_cost": round(r.draft_cost, 4),
        "speedup": round(r.speedup, 4),
        "throughput": round(r.throughput, 4),
        "note": r.note,
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
        f"    {'alternative':<44} {'draft HBM':>10} {'KV tokens':>10} {'seqs':>5} "
        f"{'a':>5} {'k':>2} {'tok/pass':>8} {'speed-up':>8} {'seqs x':>7}",
    ]
    for r in table.rows:
        mark = "*" if r is table.best and r.starts else " "
        if r.starts:
            served = f"{r.served:>5} {r.acceptance:>5.2f} {r.k:>2} {r.tokens_per_step:>8.2f} "
            served += f"{r.speedup:>7.2f}x {r.throughput:>7.2f}"
        else:
            served = f"{'does not start':>38}"
        lines.append(
            f"  {mark} {r.label[:44]:<44} {format_bytes(r.draft_hbm, unit):>10} "
            f"{r.kv_tokens:>10,} {served}"
        )
        if r.note:
            lines.append(f"      {r.note}")
    best, current = table.best, table.current
    if not any(r.starts for r in table.rows):
        verdict = (
            "none of them starts: the target itself leaves no room for one max_model_len "
            "sequence (see HBM101 / HBM102)"
        )
    elif best is current:
        verdict = "keep the current setting: no alternative serves the workload better"
    elif table.gain is None:
        verdict = (
            f"{best.label}, {best.change}: {best.served} x {best.speedup:.2f}x; "
            "the current setting does not start"
        )
    else:
        verdict = (
            f"{best.label}, {best.change}: about {table.gain:.2f}x the current decode throughput"
        )
    lines.append(f"  best: {verdict}")
    lines.append(f"  ({ESTIMATE})")
    return "\n".join(lines) + "\n"
