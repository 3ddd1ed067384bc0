"""`hbmlint budget --compare-speculative --format svg`: each deployment's speculative-decoding
alternatives side by side, one row each: the decode throughput it is estimated to serve (tokens
per second) as a bar, with its speed-up, what bounds its step, its draft weights per GPU and KV
capacity beside it."""

from __future__ import annotations

from xml.sax.saxutils import escape

from ..results import RenderOptions, Report
from .speculative import ESTIMATE, Entry
from .svg import BAR_X, STYLE, WIDTH, _t

LABEL_W = 250  # the alternative's name
BAR_MAX = 200  # the best alternative's bar
ROW_H = 22
STARTS, BEST, FAILS = "#4e79a7", "#59a14f", "#e15759"


def render(entries: list[Entry]) -> str:
    body: list[str] = []
    y = 8.0
    for display, name, found, error in entries:
        title = f"{display}: {name}" if name else display
        body.append(_t(BAR_X, y + 16, title, "title"))
        if found is None:
            body.append(_t(BAR_X, y + 34, f"cannot compute a budget: {error}", "error"))
            y += 50
            continue
        _, table = found
        body.append(
            _t(
                BAR_X,
                y + 34,
                f"speculative decoding alternatives, per GPU; {table.wanted} sequences of "
                f"{table.context:,} tokens wanted; bar: decode tokens per second",
                "note",
            )
        )
        y += 50
        top = max((r.throughput or 0.0 for r in table.rows), default=0.0) or 1.0
        best = table.best
        if table.cannot_estimate:
            body.append(_t(BAR_X, y + 4, table.cannot_estimate, "note"))
            y += 16
        for row in table.rows:
            label = ("* " if row is best else "") + row.label
            body.append(_t(BAR_X, y + 14, label[:40], "label"))
            x = BAR_X + LABEL_W
            draft = f"draft {row.draft_hbm.to('GiB').magnitude:,.2f} GiB"
            if row.starts and row.step is not None:
                width = max((row.throughput or 0.0) / top * BAR_MAX, 1.0)
                fill = BEST if row is best else STARTS
                body.append(
                    f'<rect x="{x}" y="{y + 3:.1f}" width="{width:.2f}" height="{ROW_H - 6}" '
                    f'fill="{fill}"><title>{escape(row.label)}: {row.served} x '
                    f"{row.speedup:.2f}x, step {row.step.total * 1e3:.2f} ms</title></rect>"
                )
                figures = (
                    f"{row.served} seqs x {row.speedup:.2f}x, {row.throughput:,.0f} tokens/s; "
                    f"step {row.step.total * 1e3:.2f} ms, {row.bound}-bound; {draft}; "
                    f"KV {row.kv_tokens:,} tokens"
                )
            elif row.starts:
                stub = f'width="4" height="{ROW_H - 6}" fill="{STARTS}"'
                body.append(f'<rect x="{x}" y="{y + 3:.1f}" {stub}/>')
                figures = f"{row.served} seqs, no speed estimate; {draft}; KV {row.kv_tokens:,}"
            else:
                body.append(
                    f'<rect x="{x}" y="{y + 3:.1f}" width="4" height="{ROW_H - 6}" fill="{FAILS}"/>'
                )
                figures = f"{row.shortfall}; {draft}"
            body.append(_t(x + BAR_MAX + 10, y + 14, figures, "label"))
            y += ROW_H
        y += 16
    if not body:
        body.append(_t(BAR_X, y + 16, "No deployments found.", "title"))
        y += 30
    body.append(_t(BAR_X, y + 4, "An estimate: measure before you commit.", "note"))
    height = round(y + 16)
    width = WIDTH + 330
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="hbmlint speculative '
        f'alternatives">\n<title>{escape(ESTIMATE)}</title>\n<style>{STYLE}</style>\n'
        + "\n".join(body)
        + "\n</svg>\n"
    )


def report(result: Report, options: RenderOptions) -> str:
    return render(result.comparisons)
