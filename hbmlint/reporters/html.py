"""The budget as one self-contained HTML page: the SVG picture of each deployment with a
table of its numbers, light or dark as the reader's system prefers. No scripts, no fetches."""

from __future__ import annotations

from html import escape

from ..results import FileResult, RenderOptions, Report
from ..units import format_bytes
from . import budget as budget_reporter
from . import svg

PAGE_STYLE = """
  :root { color-scheme: light dark; }
  body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2rem;
         background: #ffffff; color: #1f2328; }
  table { border-collapse: collapse; margin: 0.5rem 0 2rem; }
  td, th { padding: 0.2rem 0.8rem; border-bottom: 1px solid #d1d9e0; text-align: left; }
  td.num { text-align: right; font-variant-numeric: tabular-nums; }
  .swatch { display: inline-block; width: 0.8rem; height: 0.8rem; margin-right: 0.4rem; }
  .error { color: #cf222e; }
  @media (prefers-color-scheme: dark) {
    body { background: #0d1117; color: #e6edf3; }
    td, th { border-color: #3d444d; }
    .error { color: #ff7b72; }
  }
"""


def render(results: list[FileResult]) -> str:
    sections: list[str] = []
    for result in results:
        error = budget_reporter.file_error(result)
        if error:
            sections.append(
                f"<h2>{escape(result.display)}</h2>\n"
                f'<p class="error">cannot compute a budget: {escape(error)}</p>'
            )
        for item in result.deployments:
            b = item.budget
            if b is None:
                sections.append(
                    f"<h2>{escape(result.display)}: {escape(item.deployment.name)}</h2>\n"
                    f'<p class="error">cannot compute a budget: {escape(str(item.error))}</p>'
                )
                continue
            picture = svg.render([_only(result, item)])
            rows = "\n".join(
                f'<tr><td><span class="swatch" style="background:{p.fill}"></span>'
                f'{escape(p.label)}</td><td class="num">{p.gib:,.2f} GiB</td>'
                f'<td class="num">{p.gib / b.total.to("GiB").magnitude:.0%}</td></tr>'
                for p in svg.parts(b)
            )
            title, setup, numbers = svg.headline(result.display, b)
            sections.append(
                f"<h2>{escape(title)}</h2>\n<p>{escape(setup)}</p>\n{picture}"
                f"<table>\n<tr><th>per GPU</th><th>size</th><th>of {format_bytes(b.total)}"
                f"</th></tr>\n{rows}\n</table>\n<p>{escape(numbers)}</p>"
            )
    if not sections:
        sections.append("<p>No deployments found.</p>")
    return _page("hbmlint budget", sections)


def render_speculative(entries: list) -> str:
    """`budget --compare-speculative --format html`: the alternatives' picture in a page."""
    from . import speculative_svg

    return _page("hbmlint speculative alternatives", [speculative_svg.render(entries)])


def _page(title: str, sections: list[str]) -> str:
    """One self-contained page: no scripts, no external references."""
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{escape(title)}</title>\n"
        f"<style>{PAGE_STYLE}</style>\n</head>\n<body>\n<h1>{escape(title)}</h1>\n"
        + "\n".join(sections)
        + "\n</body>\n</html>\n"
    )


def _only(result: FileResult, item: object) -> FileResult:
    """The file with just this deployment, for its own picture."""
    return FileResult(path=result.path, display=result.display, deployments=[item])  # type: ignore[list-item]


def report(result: Report, options: RenderOptions) -> str:
    return render(result.files)


def report_speculative(result: Report, options: RenderOptions) -> str:
    return render_speculative(result.comparisons)
