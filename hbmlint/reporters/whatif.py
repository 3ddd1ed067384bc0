"""`hbmlint budget --set ...`: each deployment's budget as written and with the overrides,
one after the other, and what changed, in every budget format."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from ..results import FileResult, RenderOptions, Report
from . import budget as budget_reporter
from . import html, svg

AS_WRITTEN = "as written"


def _labelled(result: FileResult, item: Any, label: str) -> FileResult:
    return replace(result, display=f"{result.display} [{label}]", deployments=[item])


def _pairs(before: list[FileResult], after: list[FileResult]) -> list[tuple[Any, ...]]:
    """(before file, before deployment, after file, after deployment), or files alone."""
    pairs: list[tuple[Any, ...]] = []
    for old, new in zip(before, after, strict=True):
        if not new.deployments:
            pairs.append((old, None, new, None))
        for i, item in enumerate(new.deployments):
            earlier = old.deployments[i] if i < len(old.deployments) else None
            pairs.append((old, earlier, new, item))
    return pairs


def change_line(old: Any, new: Any) -> str:
    """What the overrides changed, per GPU: the numbers people compare."""
    if old is None or new is None or old.budget is None or new.budget is None:
        return ""
    a, b = old.budget, new.budget

    def gib(q: Any) -> float:
        return float(q.to("GiB").magnitude)

    parts = [
        f"weights {gib(a.weights) + gib(a.draft_weights):,.2f} -> "
        f"{gib(b.weights) + gib(b.draft_weights):,.2f} GiB",
        f"KV cache {max(gib(a.kv_cache), 0):,.2f} -> {max(gib(b.kv_cache), 0):,.2f} GiB",
        f"KV capacity {int(a.kv_tokens.magnitude):,} -> {int(b.kv_tokens.magnitude):,} tokens",
        f"max concurrency {a.max_concurrency:.2f} -> {b.max_concurrency:.2f} sequences",
    ]
    return "  change per GPU: " + "; ".join(parts) + "\n"


def render(
    before: list[FileResult], after: list[FileResult], overrides: Any, output_format: str
) -> str:
    label = "--set " + " ".join(str(o) for o in overrides)
    pairs = _pairs(before, after)
    if output_format == "json":
        return (
            json.dumps(
                {
                    "set": {o.key: o.text for o in overrides},
                    "before": json.loads(budget_reporter.render_json(before)),
                    "after": json.loads(budget_reporter.render_json(after)),
                },
                indent=2,
            )
            + "\n"
        )
    shown: list[FileResult] = []
    for old_file, old, new_file, new in pairs:
        if new is None:
            shown.append(new_file)
            continue
        if old is not None:
            shown.append(_labelled(old_file, old, AS_WRITTEN))
        shown.append(_labelled(new_file, new, label))
    if output_format == "svg":
        return svg.render(shown)
    if output_format == "html":
        return html.render(shown)
    blocks = []
    for old_file, old, new_file, new in pairs:
        if new is None:
            blocks.append(budget_reporter.render_text([new_file]))
            continue
        if old is not None:
            blocks.append(budget_reporter.render_text([_labelled(old_file, old, AS_WRITTEN)]))
        text = budget_reporter.render_text([_labelled(new_file, new, label)])
        blocks.append(text + change_line(old, new))
    return "\n".join(blocks) if blocks else "No deployments found.\n"


def _report(output_format: str) -> Any:
    def report(result: Report, options: RenderOptions) -> str:
        return render(result.before, result.files, result.overrides, output_format)

    return report


report_text = _report("text")
report_json = _report("json")
report_svg = _report("svg")
report_html = _report("html")
