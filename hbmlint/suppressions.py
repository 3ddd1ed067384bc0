"""Suppressions written in the manifest itself, and the part of the filter stage that uses them.

- ``# hbmlint: disable=HBM201 -- reason`` on the line a finding points at;
- ``# hbmlint: disable-next-line=HBM201`` on the line above it;
- ``# hbmlint: disable-file`` (or ``disable-file=HBM201``) anywhere in the file;
- the annotation ``hbmlint.io/disable: HBM201,HBM202`` in a document's ``metadata`` (or its pod
  template's), for generated YAML where comments are lost; it covers that document.

Codes may be given as codes or rule names; without ``=CODES`` every code is suppressed. A
suppression that suppresses nothing is itself reported (HBM090, info), as ruff's RUF100 does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import field
from typing import Any

from .diagnostics import Diagnostic, input_diagnostic
from .lazyre import LazyPattern
from .records import dataclass
from .yamlsrc import Span, YamlDocument

ANNOTATION = "hbmlint.io/disable"
UNUSED_CODE = "HBM090"
KINDS = {"disable": "line", "disable-next-line": "next-line", "disable-file": "file"}
# A YAML comment starts at a '#' that begins the line or follows whitespace.
_DIRECTIVE = LazyPattern(r"(?:^|\s)#\s*hbmlint:\s*(?P<body>.*)$")


@dataclass
class Suppression:
    kind: str  # line | next-line | file | annotation
    codes: tuple[str, ...]  # codes or rule names; empty: every code
    file: str
    span: Span  # where the directive is written
    first_line: int | None = None  # the lines it covers; None: the whole file
    last_line: int | None = None
    reason: str | None = None
    used: set[str] = field(default_factory=set)  # the codes (or "*") it suppressed

    def covers(self, d: Diagnostic, names: dict[str, str]) -> str | None:
        """The entry of ``codes`` that suppresses ``d`` ("*" for all), or None."""
        if d.file != self.file:
            return None
        if self.first_line is not None and not (
            self.first_line <= d.span.line <= (self.last_line or self.first_line)
        ):
            return None
        if not self.codes:
            return "*"
        name = names.get(d.code, d.name)
        for entry in self.codes:
            if entry.upper() == d.code.upper() or entry.lower() == name.lower():
                return entry
        return None

    @property
    def justification(self) -> str:
        return self.reason or ""


@dataclass
class Problem:
    """A directive hbmlint cannot read; reported as HBM090 with the unused ones."""

    file: str
    span: Span
    message: str


def scan(
    text: str, documents: Iterable[YamlDocument], display: str
) -> tuple[list[Suppression], list[Problem]]:
    """Every suppression in one file: its comments and its documents' annotations."""
    found: list[Suppression] = []
    problems: list[Problem] = []
    for number, line in enumerate(text.splitlines(), 1):
        if "hbmlint:" not in line:
            continue
        match = _DIRECTIVE.search(line)
        if match is None:
            continue
        column = match.start() + (2 if line[match.start()].isspace() else 1)
        span = Span(number, column, number, len(line) + 1)
        body, _, reason = match["body"].partition("--")
        directive, _, codes_text = body.partition("=")
        kind = KINDS.get(directive.strip())
        if kind is None:
            problems.append(
                Problem(
                    display,
                    span,
                    f"unknown hbmlint directive '{directive.strip()}' "
                    f"(use disable, disable-next-line or disable-file)",
                )
            )
            continue
        codes = _codes(codes_text)
        if "=" in body and not codes:
            problems.append(Problem(display, span, f"'{directive.strip()}=' names no code"))
            continue
        first = {"line": number, "next-line": number + 1, "file": None}[kind]
        found.append(Suppression(kind, codes, display, span, first, first, reason.strip() or None))
    for document in documents:
        found.extend(_annotations(document, display, problems))
    return found, problems


def _codes(text: str) -> tuple[str, ...]:
    return tuple(c.strip() for c in re.split(r"[,\s]+", text) if c.strip())


def _annotations(
    document: YamlDocument, display: str, problems: list[Problem]
) -> list[Suppression]:
    data = document.data
    if not isinstance(data, dict):
        return []
    whole = document.span(())
    found = []
    places = [("metadata", "annotations"), ("spec", "template", "metadata", "annotations")]
    for place in places:
        annotations: Any = data
        for key in place:
            annotations = annotations.get(key) if isinstance(annotations, dict) else None
        if not isinstance(annotations, dict) or ANNOTATION not in annotations:
            continue
        value = str(annotations[ANNOTATION] or "")
        codes_text, _, reason = value.partition("--")
        span = document.span((*place, ANNOTATION))
        if not _codes(codes_text):
            # An annotation is a value a template may leave empty ({{ .Values.disable }});
            # read as "every code" it would silence the whole document. It suppresses nothing.
            problems.append(
                Problem(
                    display,
                    span,
                    f"empty {ANNOTATION} annotation suppresses nothing; name the codes "
                    "(for example HBM201)",
                )
            )
            continue
        found.append(
            Suppression(
                "annotation",
                _codes(codes_text),
                display,
                span,
                whole.line,
                whole.end_line or whole.line,
                reason.strip() or None,
            )
        )
    return found


def apply(
    diagnostics: list[Diagnostic],
    suppressions: list[Suppression],
    problems: list[Problem],
    names: dict[str, str],
    is_enabled: Callable[[str, str | None], bool],
) -> tuple[list[Diagnostic], list[tuple[Diagnostic, Suppression]]]:
    """Split findings into those reported and those suppressed (with what suppressed them),
    and add a finding for every suppression that suppressed nothing.

    ``is_enabled(code, file)`` says whether the configuration reports a code in a file: a
    suppression of a code that does not run there cannot be judged unused."""
    kept: list[Diagnostic] = []
    suppressed: list[tuple[Diagnostic, Suppression]] = []
    for d in diagnostics:
        hit = None
        for suppression in suppressions:
            entry = suppression.covers(d, names) if d.code != UNUSED_CODE else None
            if entry is not None:
                suppression.used.add(entry)
                hit = hit or suppression
        if hit is None:
            kept.append(d)
        else:
            suppressed.append((d, hit))
    extra = [
        input_diagnostic(UNUSED_CODE, problem.message, problem.file, problem.span)
        for problem in problems
        if is_enabled(UNUSED_CODE, problem.file)
    ]
    by_name = {name.lower(): code for code, name in names.items()}
    for suppression in suppressions:
        if not is_enabled(UNUSED_CODE, suppression.file):
            continue
        what = "annotation" if suppression.kind == "annotation" else "suppression"
        if not suppression.codes:
            if "*" not in suppression.used:
                extra.append(_unused(suppression, f"unused {what}: no finding to suppress here"))
            continue
        for entry in suppression.codes:
            code = entry.upper() if entry.upper() in names else by_name.get(entry.lower())
            if code is None:
                extra.append(_unused(suppression, f"{what} of unknown code '{entry}'"))
            elif entry not in suppression.used and is_enabled(code, suppression.file):
                extra.append(_unused(suppression, f"unused {what}: no {entry} finding here"))
    kept.extend(extra)
    kept.sort(key=Diagnostic.sort_key)
    return kept, suppressed


def _unused(suppression: Suppression, message: str) -> Diagnostic:
    fix = "Remove it, or the codes in it that no longer apply."
    return input_diagnostic(UNUSED_CODE, message, suppression.file, suppression.span, fixes=[fix])
