"""Machine-readable findings: a JSON list, one object per finding."""

from __future__ import annotations

import json

from ..diagnostics import Diagnostic


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
        "fixes": list(d.fixes),
        "deployment": d.deployment,
        "help_uri": d.help_uri,
    }


def render(diagnostics: list[Diagnostic]) -> str:
    return json.dumps([finding_dict(d) for d in diagnostics], indent=2) + "\n"
