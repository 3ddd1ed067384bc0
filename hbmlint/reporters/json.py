"""Machine-readable findings: a JSON list, one object per finding."""

from __future__ import annotations

import json

from ..diagnostics import Diagnostic, as_fix
from ..results import RenderOptions, Report


def finding_dict(d: Diagnostic) -> dict:
    return {
        "code": d.code,
        "name": d.name,
        "severity": str(d.severity),
        "message": d.message,
        "file": d.file,
        "line": d.span.line,
        "column": d.span.column,
        "end_line": d.span.end_line,
        "end_column": d.span.end_column,
        "fixes": [as_fix(fix).as_dict() for fix in d.fixes],
        "deployment": d.deployment,
        "help_uri": d.help_uri,
    }


def render(diagnostics: list[Diagnostic]) -> str:
    return json.dumps([finding_dict(d) for d in diagnostics], indent=2) + "\n"


def report(result: Report, options: RenderOptions) -> str:
    """The registry's entry point: the findings, or with ``statistics`` a count per code."""
    if options.statistics:
        from .text import statistics_json

        return json.dumps(statistics_json(result.findings), indent=2) + "\n"
    return render(result.findings)
