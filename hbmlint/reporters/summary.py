"""The GitHub job summary: Markdown appended to the file named by $GITHUB_STEP_SUMMARY.

The runner shows only ten annotations of each kind per step; the summary shows every finding,
and for each deployment where one GPU's memory goes."""

from __future__ import annotations

import os
from typing import Any

from ..diagnostics import Diagnostic, Severity
from ..results import FileResult, RenderOptions, Report
from ..units import Q, format_bytes
from . import text

_ICONS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "info"}


def _cell(value: Any) -> str:
    """A table cell: pipes escaped, one line."""
    return " ".join(str(value).split()).replace("|", "\\|")


def _share(part: Any, whole: Any) -> str:
    total = whole.to("byte").magnitude
    return f"{part.to('byte').magnitude / total:.0%}" if total else ""


def deployment_table(display: str, budget: Any) -> str:
    s = budget.settings
    unit = budget.byte_unit
    gpu = budget.resolved.gpu
    draft = budget.resolved.draft.name if budget.resolved.draft else s.speculative_method
    rows = [
        ("weights", budget.weights, budget.resolved.target.name),
        ("draft", budget.draft_weights, draft),
    ]
    parts = ", ".join(
        f"{name.replace('_', ' ')} {format_bytes(v, unit)}" for name, v in budget.overhead.items()
    )
    rows.append(("overhead", budget.overhead_total, parts))
    if budget.kv_cache.magnitude >= 0:
        rows.append(("KV cache", budget.kv_cache, s.kv_cache_dtype))
    else:  # no room left: what is short, not a negative size
        short = format_bytes(-budget.kv_cache, unit)
        rows.append(("KV cache", Q(0, "byte"), f"none: no room left ({short} short)"))
    lines = [
        f"#### `{_cell(display)}`: {_cell(budget.deployment.name)}",
        "",
        f"{s.engine} on {budget.resolved.gpu_count} x {_cell(gpu.name)}, TP "
        f"{s.tensor_parallel} x PP {s.pipeline_parallel}; per GPU, "
        f"{format_bytes(budget.usable, unit)} usable of {format_bytes(budget.total, unit)} "
        f"({budget.usable_share:.0%}).",
        "",
        "| | size | share of usable | |",
        "|---|---:|---:|---|",
    ]
    lines += [
        f"| {label} | {format_bytes(q, unit)} | {_share(q, budget.usable)} | {_cell(note)} |"
        for label, q, note in rows
    ]
    tokens = int(budget.kv_tokens.to("token").magnitude)
    lines += ["", *mermaid_pie(budget)]
    lines += [
        "",
        f"KV capacity **{tokens:,} tokens**; max concurrency **{budget.max_concurrency:.2f}** "
        f"sequences of {s.max_model_len:,} tokens.",
        "",
    ]
    return "\n".join(lines)


def _mermaid_text(value: str) -> str:
    """Text Mermaid shows as is: no quotes, no line breaks, nothing it reads as syntax."""
    text = " ".join(str(value).split())
    for char in '"`#;:{}[]<>':
        text = text.replace(char, " ")
    return " ".join(text.split())[:120]


def mermaid_pie(budget: Any) -> list[str]:
    """One GPU's split as a Mermaid pie chart, which GitHub draws in the job summary. A pie
    has no negative slices: when the weights do not fit, the KV cache is 0 and the table says
    by how much the GPU is short."""
    from .svg import parts

    title = _mermaid_text(
        f"{budget.deployment.name}, one {budget.resolved.gpu.name} "
        f"({budget.total.to('GiB').magnitude:,.2f} GiB), in GiB"
    )
    lines = ["```mermaid", f"pie showData title {title}"]
    lines += [f'    "{p.label}" : {p.gib:.2f}' for p in parts(budget) if p.gib >= 0.005]
    lines.append("```")
    return lines


# GitHub refuses a step summary over 1 MiB (and then shows none of it); stay well below.
MAX_SUMMARY_BYTES = 1024 * 1024 - 64 * 1024
MAX_CELL = 2_000  # characters of one table cell (a message with its fixes)


def _finding_row(d: Diagnostic) -> str:
    where = f"{d.file}:{d.span.line}:{d.span.column}"
    message = _cell(d.message + "".join(f"<br>fix: {fix}" for fix in d.fixes))
    if len(message) > MAX_CELL:
        message = message[: MAX_CELL - 3] + "..."
    return (
        f"| {_ICONS[d.severity]} | [{d.code}]({d.help_uri}) {d.name} | "
        f"`{_cell(where)[:500]}` | {message} |"
    )


def render(
    results: list[FileResult], diagnostics: list[Diagnostic], limit: int | None = None
) -> str:
    """The summary's Markdown, at most ``limit`` bytes of UTF-8: errors first; when it would
    be longer, the rows that fit and a line saying how many findings the full report has."""
    files = len(results)  # every file examined, manifest or not
    deployments = sum(len(r.deployments) for r in results)
    head = ["## hbmlint", "", text.summary(diagnostics, files, deployments), ""]
    ordered = sorted(diagnostics, key=lambda d: -int(d.severity))
    rows = [_finding_row(d) for d in ordered]
    tables = [
        deployment_table(result.display, item.budget)
        for result in results
        for item in result.deployments
        if item.budget is not None
    ]
    limit = MAX_SUMMARY_BYTES if limit is None else limit
    reserve = 600  # for the truncation line and the headings
    budget = limit - len("\n".join(head).encode()) - reserve
    lines = list(head)
    shown_rows = []
    for row in rows:
        size = len(row.encode()) + 1
        if size > budget:
            break
        shown_rows.append(row)
        budget -= size
    if rows:
        lines += ["### Findings", "", "| | code | where | message |", "|---|---|---|---|"]
        lines += shown_rows
        lines.append("")
    shown_tables = []
    if len(shown_rows) == len(rows):
        for table in tables:
            size = len(table.encode()) + 1
            if size > budget:
                break
            shown_tables.append(table)
            budget -= size
    if shown_tables:
        lines += ["### Where the HBM goes", "", *shown_tables]
    if len(shown_rows) < len(rows) or len(shown_tables) < len(tables):
        lines += [
            "",
            f"**Truncated** to stay under GitHub's 1 MiB summary limit: {len(shown_rows):,} "
            f"of {len(rows):,} findings and {len(shown_tables):,} of {len(tables):,} budgets "
            f"shown. The full report has {len(rows):,} findings: see the job log, or run "
            "hbmlint with --format json --output FILE.",
        ]
    return "\n".join(lines) + "\n"


def append(path: str, markdown: str) -> str | None:
    """Append to the summary file, never overwriting what other steps wrote, and completely or
    not at all: a write that fails half way (a full disk) is cut back to the old end. Returns
    why it failed, if it did (never fatal)."""
    data = markdown.encode("utf-8")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError as exc:
        return str(exc.strerror or exc)
    try:
        end = os.fstat(fd).st_size
        try:
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
        except OSError as exc:
            os.ftruncate(fd, end)
            return str(exc.strerror or exc)
    finally:
        os.close(fd)
    return None


def report(result: Report, options: RenderOptions) -> str:
    return render(result.files, result.findings)
