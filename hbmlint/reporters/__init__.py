"""Reporters turn the one result model (results.Report) into text for people and machines.
They never read files or compute memory, and never import the pipeline (lint.py): everything
they print comes from the Report they are given (a test checks their imports).

Every reporter is reached through this registry, by the view it renders and its format name.
Each entry names a module of this package and a function ``(Report, RenderOptions) -> str``;
modules are imported when first used, so that a run that prints text never loads the SVG code.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from ..results import RenderOptions, Report

Reporter = Callable[[Report, RenderOptions], str]

# view -> format -> (module, function)
REGISTRY: dict[str, dict[str, tuple[str, str]]] = {
    # hbmlint lint: the findings
    "lint": {
        "text": ("text", "report"),
        "json": ("json", "report"),
        "github": ("github", "report"),
        "sarif": ("sarif", "report"),
    },
    # hbmlint budget: where each GPU's memory goes
    "budget": {
        "text": ("budget", "report_text"),
        "json": ("budget", "report_json"),
        "svg": ("svg", "report"),
        "html": ("html", "report"),
    },
    # hbmlint budget --set: as written, then as set
    "whatif": {fmt: ("whatif", f"report_{fmt}") for fmt in ("text", "json", "svg", "html")},
    # hbmlint budget --compare-speculative: each deployment's drafter alternatives
    "speculative": {
        "text": ("speculative", "report_text"),
        "json": ("speculative", "report_json"),
        "svg": ("speculative_svg", "report"),
        "html": ("html", "report_speculative"),
    },
    # GitHub's job summary (Markdown), written beside any other format
    "summary": {"markdown": ("summary", "report")},
}


def formats(view: str) -> list[str]:
    """The format names a view can be rendered in."""
    return list(REGISTRY[view])


def reporter(view: str, output_format: str) -> Reporter:
    """The function that renders ``view`` in ``output_format``; KeyError for neither."""
    module, function = REGISTRY[view][output_format]
    found: Reporter = getattr(import_module(f"{__name__}.{module}"), function)
    return found


def render(
    view: str, output_format: str, result: Report, options: RenderOptions | None = None
) -> str:
    return reporter(view, output_format)(result, options or RenderOptions())
