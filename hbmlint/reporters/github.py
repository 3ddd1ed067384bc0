"""GitHub Actions workflow commands: one ``::error``/``::warning``/``::notice`` line a finding,
which the runner turns into an annotation on the pull request's diff.

Escaping follows @actions/core (toolkit's command.ts): in the message ``%``, CR and LF are
percent-encoded; in property values also ``:`` and ``,``, which would otherwise end the value.
The runner rejects ``col``/``endColumn`` when a span covers several lines, and an ``endColumn``
before ``col``; those fields are then left out and the annotation covers whole lines.
"""

from __future__ import annotations

from ..diagnostics import Diagnostic, Severity
from ..results import RenderOptions, Report
from . import text

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def location_properties(d: Diagnostic) -> list[tuple[str, str]]:
    """file, line, col, endLine, endColumn: only the fields the runner accepts together."""
    span = d.span
    end_line = span.end_line or span.line
    props = [("file", d.file), ("line", str(span.line))]
    one_line = end_line == span.line
    columns_ok = one_line and (span.end_column is None or span.end_column > span.column)
    if columns_ok:
        props.append(("col", str(span.column)))
    props.append(("endLine", str(end_line)))
    if columns_ok and span.end_column is not None:
        props.append(("endColumn", str(span.end_column)))
    return props


def command(d: Diagnostic) -> str:
    props = [*location_properties(d), ("title", f"{d.code} [{d.name}]")]
    rendered = ",".join(f"{key}={escape_property(value)}" for key, value in props)
    # The message repeats the location, so the raw log reads like the text format too.
    lines = [
        f"{d.file}:{d.span.line}:{d.span.column}: {d.severity} {d.code} [{d.name}] {d.message}"
    ]
    lines += [f"    fix: {fix}" for fix in d.fixes]
    return f"::{COMMANDS[d.severity]} {rendered}::{escape_data(chr(10).join(lines))}"


# GitHub shows at most this many annotations of each kind (error, warning, notice) per step;
# the rest are in the log only.
PER_STEP_LIMIT = 10


def limit_notice(diagnostics: list[Diagnostic]) -> str | None:
    """A notice, when GitHub's per-step limits will hide some annotations."""
    counts = {s: sum(1 for d in diagnostics if d.severity == s) for s in COMMANDS}
    hidden = [
        f"{count - PER_STEP_LIMIT} of {count} {COMMANDS[s]}s"
        for s, count in counts.items()
        if count > PER_STEP_LIMIT
    ]
    if not hidden:
        return None
    return (
        f"::notice title=hbmlint::GitHub shows {PER_STEP_LIMIT} annotations of each kind per "
        f"step, so {', '.join(hidden)} are not annotated; every finding is in this log and in "
        "the job summary"
    )


def render(diagnostics: list[Diagnostic], files: int, deployments: int) -> str:
    """Every finding as a workflow command, errors first (GitHub annotates only the first few
    of each kind), then the plain summary line for the log. A notice comes first when some
    will not be annotated (first, so that it is not itself one of the notices hidden)."""
    ordered = sorted(diagnostics, key=lambda d: -int(d.severity))  # stable: file order kept
    notice = limit_notice(ordered)
    lines = ([notice] if notice else []) + [command(d) for d in ordered]
    lines.append(text.summary(diagnostics, files, deployments))
    return "\n".join(lines) + "\n"


def report(result: Report, options: RenderOptions) -> str:
    """The registry's entry point; with ``statistics``, the text format's count per code."""
    if options.statistics:
        return text.statistics(result.findings, options.color)
    return render(result.findings, result.file_count, result.deployment_count)
