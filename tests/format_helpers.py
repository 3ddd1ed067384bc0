"""Helpers for the format tests: run the CLI on a manifest and on its hand-written native twin,
and compare what a user would read from each."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from click.testing import CliRunner
from helpers import manifest

from hbmlint.cli import main


def run(*args: str, stdin: str | None = None):
    return CliRunner().invoke(main, [str(a) for a in args], input=stdin, catch_exceptions=False)


def budgets(path: Path, *options: str) -> list[dict]:
    """`hbmlint budget --format json` without the file and deployment names."""
    result = run("budget", "--format", "json", *options, path)
    return [
        {k: v for k, v in item.items() if k not in ("file", "name")}
        for item in json.loads(result.output)
    ]


def findings(path: Path, *options: str) -> list[dict]:
    """`hbmlint --format json` findings, in file order."""
    result = run("--format", "json", "--fail-on", "info", *options, path)
    return json.loads(result.output)


def codes_and_lines(path: Path, *options: str) -> list[tuple[str, int]]:
    return [(f["code"], f["line"]) for f in findings(path, *options)]


def rule_findings(path: Path, *options: str) -> list[tuple[str, str]]:
    """The budget rules' findings (code and message), which do not depend on the format."""
    return [
        (f["code"], f["message"])
        for f in findings(path, *options)
        if f["code"].startswith(("HBM1", "HBM2"))
    ]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


def native(tmp_path: Path, spec: str, name: str = "native.yaml") -> Path:
    path = tmp_path / name
    path.write_text(manifest(spec))
    return path


def line_of(path: Path, needle: str, occurrence: int = 1) -> int:
    """The 1-based line of the ``occurrence``-th line containing ``needle``."""
    seen = 0
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if needle in line:
            seen += 1
            if seen == occurrence:
                return number
    raise AssertionError(f"{needle!r} not in {path}")
