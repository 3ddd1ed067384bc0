"""The terminal format: ``path:line:col: severity HBMnnn [name] message``, fixes indented.

With ``color``, the severity, code and location are coloured (ANSI escapes); without it the
text is byte for byte what scripts and the golden tests read."""

from __future__ import annotations

from collections import Counter

import click

from ..diagnostics import Diagnostic, Fix, Severity
from ..results import RenderOptions, Report

_SEVERITY_STYLE = {
    Severity.ERROR: {"fg": "red", "bold": True},
    Severity.WARNING: {"fg": "yellow", "bold": True},
    Severity.INFO: {"fg": "cyan"},
}


def _style(text: str, color: bool, **style: object) -> str:
    return click.style(text, **style) if color else text  # type: ignore[arg-type]


def finding_line(d: Diagnostic, color: bool = False) -> str:
    where = _style(f"{d.file}:{d.span.line}:{d.span.column}:", color, bold=True)
    severity = _style(str(d.severity), color, **_SEVERITY_STYLE[d.severity])
    code = _style(d.code, color, fg="magenta", bold=True)
    return f"{where} {severity} {code} [{d.name}] {d.message}"


def fix_label(fix: Fix, color: bool = False) -> str:
    """``fix:``, or ``fix [safe]:`` / ``fix [unsafe]:`` where the fix comes with edits (what
    ``--fix`` and ``--fix --unsafe-fixes`` apply)."""
    label = f"fix [{fix.applicability}]:" if getattr(fix, "edits", None) else "fix:"
    return _style(label, color, fg="green")


def report(result: Report, options: RenderOptions) -> str:
    """The registry's entry point (see reporters/__init__.py)."""
    if options.statistics:
        return statistics(result.findings, options.color)
    out = render(
        result.findings,
        result.file_count,
        result.deployment_count,
        color=options.color,
        quiet=options.quiet,
    )
    if result.fixed and not options.quiet:
        out += fixed_line(result)
    return out


def fixed_line(result: Report) -> str:
    """After --fix: what was applied, per file (the findings above are what remains)."""
    lines = []
    for item in result.fixed:
        if item.applied:
            count = len(item.applied)
            lines.append(f"Fixed {count} finding{'s' if count != 1 else ''} in {item.display}:")
            lines += [f"    {message}" for message in item.applied]
    return "\n".join(lines) + "\n" if lines else ""


def render(
    diagnostics: list[Diagnostic],
    files: int,
    deployments: int,
    color: bool = False,
    quiet: bool = False,
) -> str:
    """Every finding with its fixes, then a summary line (none when ``quiet``)."""
    lines = []
    for d in diagnostics:
        lines.append(finding_line(d, color))
        lines.extend(f"    {fix_label(fix, color)} {fix}" for fix in d.fixes)
    if not quiet:
        lines.append(summary(diagnostics, files, deployments))
    return "\n".join(lines) + "\n" if lines else ""


def statistics(diagnostics: list[Diagnostic], color: bool = False) -> str:
    """A count per code, most frequent first, as ``ruff --statistics`` prints it:
    ``count<TAB>code<TAB>[name] severity``."""
    counts = Counter(d.code for d in diagnostics)
    first = {}
    for d in diagnostics:
        first.setdefault(d.code, d)
    width = len(str(max(counts.values(), default=0)))
    code_width = max((len(c) for c in counts), default=0)
    lines = []
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        d = first[code]
        styled = _style(code.ljust(code_width), color, fg="magenta", bold=True)
        severity = _style(str(d.severity), color, **_SEVERITY_STYLE[d.severity])
        lines.append(f"{count:>{width}}\t{styled}\t[{d.name}] {severity}")
    return "\n".join(lines) + "\n" if lines else ""


def statistics_json(diagnostics: list[Diagnostic]) -> list[dict[str, object]]:
    counts = Counter(d.code for d in diagnostics)
    first = {}
    for d in diagnostics:
        first.setdefault(d.code, d)
    return [
        {
            "code": code,
            "name": first[code].name,
            "severity": str(first[code].severity),
            "count": count,
        }
        for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]


def summary(diagnostics: list[Diagnostic], files: int, deployments: int) -> str:
    counts = Counter(d.severity for d in diagnostics)
    scanned = (
        f"{files} file{'s' if files != 1 else ''}, "
        f"{deployments} deployment{'s' if deployments != 1 else ''}"
    )
    if not diagnostics and not files:
        # a path with nothing to lint is no clean result: a typo'd folder, or scripts under
        # another name
        return (
            "Nothing linted: no files found (a directory is searched for .yaml, .yml, .sh and "
            ".bash files; name other files on the command line)."
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
