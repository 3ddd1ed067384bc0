"""The terminal format: ``path:line:col: severity HBMnnn [name] message``, fixes indented."""

from __future__ import annotations

from collections import Counter

from ..diagnostics import Diagnostic, Severity


def render(diagnostics: list[Diagnostic], files: int, deployments: int) -> str:
    lines = []
    for d in diagnostics:
        lines.append(
            f"{d.file}:{d.span.line}:{d.span.column}: {d.severity} {d.code} [{d.name}] {d.message}"
        )
        lines.extend(f"    fix: {fix}" for fix in d.fixes)
    lines.append(summary(diagnostics, files, deployments))
    return "\n".join(lines) + "\n"


def summary(diagnostics: list[Diagnostic], files: int, deployments: int) -> str:
    counts = Counter(d.severity for d in diagnostics)
    scanned = (
        f"{files} file{'s' if files != 1 else ''}, "
        f"{deployments} deployment{'s' if deployments != 1 else ''}"
    )
    if not diagnostics:
        return f"All clear: no findings in {scanned}."
    parts = [
        f"{counts[s]} {s}{'s' if counts[s] != 1 else ''}"
        for s in (Severity.ERROR, Severity.WARNING, Severity.INFO)
        if counts[s]
    ]
    total = len(diagnostics)
    return f"Found {total} finding{'s' if total != 1 else ''} ({', '.join(parts)}) in {scanned}."
