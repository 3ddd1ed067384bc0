"""SARIF 2.1.0, as GitHub code scanning reads it.

Every rule that ran is a ``reportingDescriptor`` (code scanning shows its ``help``, not
``helpUri``). Results point at a repository-relative URI with a full region. Their
``partialFingerprints`` are hbmlint's own key, computed from the rule, the file, the deployment
and (for input checks) the message, never from line numbers, so an alert keeps its identity
when unrelated lines move; ``primaryLocationLineHash`` is left to the upload action, which
computes it itself. Suppressed findings are kept, with ``suppressions``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .. import __version__
from ..diagnostics import Diagnostic, Fix, Severity, as_fix
from ..results import RenderOptions, Report
from ..ruledoc import RuleDoc
from ..suppressions import Suppression
from ..yamlsrc import Span

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/hbmlint/hbmlint"
FINGERPRINT_KEY = "hbmlint/v1"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_MAX_DESCRIPTION = 1024  # code scanning's limit on short and full descriptions


def repository_root(start: Path | None = None) -> Path | None:
    """The nearest directory holding .git, from the working directory upward."""
    directory = Path(os.path.abspath(start or "."))
    for candidate in (directory, *directory.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def _clip(text: str) -> str:
    return text if len(text) <= _MAX_DESCRIPTION else text[: _MAX_DESCRIPTION - 3] + "..."


def descriptor(doc: RuleDoc) -> dict[str, Any]:
    return {
        "id": doc.code,
        "name": doc.name,
        "shortDescription": {"text": _clip(doc.summary)},
        "fullDescription": {"text": _clip(doc.description or doc.summary)},
        "help": {"text": doc.help_text(), "markdown": doc.help_markdown()},
        "helpUri": doc.help_uri,
        "defaultConfiguration": {"level": LEVELS[doc.severity]},
        "properties": {"tags": ["hbm", "llm-serving", doc.kind], "precision": "high"},
    }


class _Locator:
    """Artifact URIs relative to the repository root (or the working directory outside one)."""

    def __init__(self, root: Path | None):
        self.root = Path(os.path.abspath(root or repository_root() or "."))

    def artifact(self, file: str) -> dict[str, Any]:
        absolute = Path(os.path.abspath(file))
        try:
            relative = absolute.relative_to(self.root).as_posix()
        except ValueError:
            return {"uri": absolute.as_uri()}
        return {"uri": quote(relative, safe="/"), "uriBaseId": "%SRCROOT%"}

    def physical(self, file: str, span: Span) -> dict[str, Any]:
        return {"artifactLocation": self.artifact(file), "region": region(span)}


def region(span: Span) -> dict[str, int]:
    """A full region; where the end is unknown, the one character at the start."""
    end_line = max(span.end_line or span.line, span.line)
    end_column = span.end_column or span.column + 1
    if end_line == span.line and end_column <= span.column:
        end_column = span.column + 1
    return {
        "startLine": span.line,
        "startColumn": span.column,
        "endLine": end_line,
        "endColumn": end_column,
    }


def sarif_fix(fix: Fix, locator: _Locator) -> dict[str, Any]:
    """A fix with edits: one artifactChange per file, each edit a replacement of its region
    (an empty region inserts). ``safe`` or ``unsafe`` goes in the fix's properties."""
    changes: dict[str, list[dict[str, Any]]] = {}
    for edit in fix.edits:
        region = {
            "startLine": edit.line,
            "startColumn": edit.column,
            "endLine": edit.end_line,
            "endColumn": edit.end_column,
        }
        changes.setdefault(edit.file, []).append(
            {"deletedRegion": region, "insertedContent": {"text": edit.replacement}}
        )
    return {
        "description": {"text": fix.message},
        "artifactChanges": [
            {"artifactLocation": locator.artifact(file), "replacements": replacements}
            for file, replacements in changes.items()
        ],
        "properties": {"applicability": fix.applicability},
    }


def identity(d: Diagnostic, uri: str) -> str:
    """What makes a finding the same finding from one run to the next: never its line."""
    return "\0".join([d.code, uri, d.deployment or "", "" if d.deployment else d.message])


def fingerprint(key: str, ordinal: int) -> str:
    """``ordinal`` tells apart findings with the same identity, in file order."""
    return f"{hashlib.sha256(key.encode()).hexdigest()[:32]}:{ordinal}"


def render(
    diagnostics: list[Diagnostic],
    docs: list[RuleDoc],
    suppressed: list[tuple[Diagnostic, Suppression]] | None = None,
    root: Path | None = None,
    successful: bool = True,
) -> str:
    """One run: ``docs`` are the rules that ran (every result's rule is added if missing)."""
    locator = _Locator(root)
    rules: list[RuleDoc] = sorted(docs, key=lambda doc: doc.code)
    index = {doc.code: i for i, doc in enumerate(rules)}
    pairs: list[tuple[Diagnostic, Suppression | None]] = [(d, None) for d in diagnostics]
    pairs += list(suppressed or [])
    pairs.sort(key=lambda pair: pair[0].sort_key())
    seen: Counter[str] = Counter()
    results = []
    for d, suppression in pairs:
        if d.code not in index:  # a finding of a rule not listed: describe it from the finding
            index[d.code] = len(rules)
            rules.append(RuleDoc(d.code, d.name, "rule", d.severity, d.message))
        artifact = locator.artifact(d.file)
        key = identity(d, artifact["uri"])
        ordinal = seen[key]
        seen[key] += 1
        text = d.message + "".join(f"\nFix: {fix}" for fix in d.fixes)
        result: dict[str, Any] = {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": LEVELS[d.severity],
            "message": {"text": text},
            "locations": [{"physicalLocation": locator.physical(d.file, d.span)}],
            "partialFingerprints": {FINGERPRINT_KEY: fingerprint(key, ordinal)},
        }
        fixes = [sarif_fix(as_fix(fix), locator) for fix in d.fixes if as_fix(fix).edits]
        if fixes:
            result["fixes"] = fixes
        if d.deployment:
            result["properties"] = {"deployment": d.deployment}
        if suppression is not None:
            entry: dict[str, Any] = {
                "kind": "inSource",
                "location": {
                    "physicalLocation": locator.physical(suppression.file, suppression.span)
                },
            }
            if suppression.reason:
                entry["justification"] = suppression.reason
            result["suppressions"] = [entry]
        results.append(result)
    run = {
        "tool": {
            "driver": {
                "name": "hbmlint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": [descriptor(doc) for doc in rules],
            }
        },
        "originalUriBaseIds": {"%SRCROOT%": {"uri": locator.root.as_uri().rstrip("/") + "/"}},
        "invocations": [{"executionSuccessful": successful}],
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    sarif = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(sarif, indent=2) + "\n"


def report(result: Report, options: RenderOptions) -> str:
    """The registry's entry point: one run, its rules and results (with ``statistics``, the
    text format's count per code)."""
    if options.statistics:
        from .text import statistics

        return statistics(result.findings, options.color)
    return render(
        result.findings, list(result.rules), result.suppressed, successful=not result.internal
    )
