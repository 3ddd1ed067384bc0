"""The budget as a picture: one SVG with a stacked bar per deployment, showing where one GPU's
memory goes (target weights, drafter, overhead, KV cache, held back) with the numbers in GiB.

The colours are mid-tones that read on white and on dark backgrounds; the text colour follows
``prefers-color-scheme`` through an embedded style, so the picture reads in GitHub's light and
dark themes alike. Nothing is fetched: the file is self-contained."""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from ..budget import Budget
from ..records import dataclass
from ..results import FileResult, RenderOptions, Report
from ..units import format_bytes
from . import budget as budget_reporter

WIDTH = 760
BAR_X, BAR_W, BAR_H = 16, 728, 34
# (key, label, fill): mid-tone fills with white-or-dark-safe contrast either side
PARTS = (
    ("weights", "target weights", "#4e79a7"),
    ("drafter", "drafter", "#e15759"),
    ("overhead", "overhead", "#b07aa1"),
    ("kv", "KV cache", "#59a14f"),
    ("held", "held back", "#9d9d9d"),
)
STYLE = """
  text { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; fill: #1f2328; }
  .title { font-size: 15px; font-weight: 600; }
  .note { font-size: 12px; fill: #59636e; }
  .label { font-size: 12px; }
  .inbar { font-size: 11px; fill: #ffffff; font-weight: 600; }
  .inbar.on-light { fill: #1f2328; }
  .error { font-size: 12px; fill: #cf222e; }
  .frame { fill: none; stroke: #59636e; stroke-width: 1; }
  .limit { stroke: #1f2328; stroke-width: 2; stroke-dasharray: 4 3; }
  @media (prefers-color-scheme: dark) {
    text { fill: #e6edf3; }
    .note { fill: #9198a1; }
    .error { fill: #ff7b72; }
    .frame { stroke: #9198a1; }
    .limit { stroke: #e6edf3; }
  }
"""


@dataclass(frozen=True)
class Part:
    key: str
    label: str
    fill: str
    gib: float  # per GPU


def parts(b: Budget) -> list[Part]:
    """One GPU's memory, split: what the bar, the legend and the Mermaid chart show."""
    total = b.total.to("GiB").magnitude
    values = {
        "weights": b.weights.to("GiB").magnitude,
        "drafter": b.draft_weights.to("GiB").magnitude,
        "overhead": b.overhead_total.to("GiB").magnitude,
        "kv": max(b.kv_cache.to("GiB").magnitude, 0.0),
    }
    values["held"] = max(total - sum(values.values()), 0.0)
    return [Part(k, label, fill, float(values[k])) for k, label, fill in PARTS]


def headline(display: str, b: Budget) -> tuple[str, str, str]:
    """(title, setup, key numbers) as the picture and the HTML page print them."""
    s = b.settings
    setup = (
        f"{s.engine} on {b.resolved.gpu_count} x {b.resolved.gpu.name} "
        f"({format_bytes(b.total)} each), TP {s.tensor_parallel} x PP {s.pipeline_parallel}; "
        f"per GPU, {format_bytes(b.usable)} usable ({b.usable_share:.0%})"
    )
    tokens = int(b.kv_tokens.to("token").magnitude)
    numbers = (
        f"KV capacity {tokens:,} tokens; max concurrency {b.max_concurrency:.2f} sequences "
        f"of {s.max_model_len:,} tokens"
    )
    return f"{display}: {b.deployment.name}", setup, numbers


def _t(x: float, y: float, text: str, cls: str, anchor: str = "start") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" class="{cls}" text-anchor="{anchor}">{escape(text)}</text>'
    )


def _deployment(display: str, b: Budget, y: float) -> tuple[list[str], float]:
    title, setup, numbers = headline(display, b)
    out = [_t(BAR_X, y + 16, title, "title"), _t(BAR_X, y + 34, setup, "note")]
    split = parts(b)
    total = b.total.to("GiB").magnitude
    used = sum(p.gib for p in split if p.key != "held")
    scale = BAR_W / max(total, used, 1e-9)
    top = y + 44
    x = float(BAR_X)
    for part in split:
        width = part.gib * scale
        if width <= 0:
            continue
        out.append(
            f'<rect x="{x:.2f}" y="{top:.1f}" width="{width:.2f}" height="{BAR_H}" '
            f'fill="{part.fill}"><title>{escape(part.label)}: {part.gib:,.2f} GiB</title></rect>'
        )
        if width >= 64:
            cls = "inbar on-light" if part.key == "held" else "inbar"  # dark text on the grey
            out.append(_t(x + width / 2, top + 21, f"{part.gib:,.2f} GiB", cls, "middle"))
        x += width
    out.append(f'<rect x="{BAR_X}" y="{top:.1f}" width="{BAR_W}" height="{BAR_H}" class="frame"/>')
    below = top + BAR_H + 18
    if used > total:
        edge = BAR_X + total * scale
        out.append(
            f'<line x1="{edge:.2f}" y1="{top - 4:.1f}" x2="{edge:.2f}" y2="{top + BAR_H + 4:.1f}"'
            ' class="limit"/>'
        )
        out.append(
            _t(BAR_X, below, f"needs {used - total:,.2f} GiB more than the GPU has", "error")
        )
        below += 18
    # legend: two columns of swatch, label, GiB
    for i, part in enumerate(split):
        lx = BAR_X + (i % 3) * 244
        ly = below + (i // 3) * 20
        out.append(f'<rect x="{lx}" y="{ly - 10:.1f}" width="12" height="12" fill="{part.fill}"/>')
        out.append(_t(lx + 18, ly, f"{part.label} {part.gib:,.2f} GiB", "label"))
    below += 2 * 20
    out.append(_t(BAR_X, below, numbers, "label"))
    return out, below + 22


def render(results: list[FileResult]) -> str:
    """Every deployment's per-GPU split as one SVG document."""
    body: list[str] = []
    y = 8.0
    for result in results:
        error = budget_reporter.file_error(result)
        if error:
            body.append(_t(BAR_X, y + 16, result.display, "title"))
            body.append(_t(BAR_X, y + 34, f"cannot compute a budget: {error}", "error"))
            y += 50
        for item in result.deployments:
            if item.budget is None:
                body.append(_t(BAR_X, y + 16, f"{result.display}: {item.deployment.name}", "title"))
                body.append(_t(BAR_X, y + 34, f"cannot compute a budget: {item.error}", "error"))
                y += 50
                continue
            drawn, y = _deployment(result.display, item.budget, y)
            body += drawn
            y += 8
    if not body:
        body.append(_t(BAR_X, y + 16, "No deployments found.", "title"))
        y += 30
    height = round(y + 4)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label={quoteattr("hbmlint budget")}>\n'
        f"<title>hbmlint budget: where each GPU's memory goes</title>\n"
        f"<style>{STYLE}</style>\n" + "\n".join(body) + "\n</svg>\n"
    )


def report(result: Report, options: RenderOptions) -> str:
    return render(result.files)
