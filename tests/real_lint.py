"""What the tests of real-manifest fixtures share: lint one file as the CLI would name it, and
the findings a user would read first (errors, or those of one code)."""

from __future__ import annotations

from pathlib import Path

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file

REAL = Path(__file__).parent / "fixtures" / "real"


def lint(path: Path, rules, gpu: str | None = None):
    return lint_file(path, path.name, rules, LintOptions(default_gpu=gpu))


def errors(result) -> list[str]:
    return [f"{f.code}: {f.message}" for f in result.diagnostics if f.severity is Severity.ERROR]


def codes(result, code: str) -> list:
    return [f for f in result.diagnostics if f.code == code]


def line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)
