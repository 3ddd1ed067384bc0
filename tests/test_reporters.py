"""The output side's backbone: one result model (results.Report), one interface, one registry;
reporters never import the pipeline."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from helpers import REPO

from hbmlint import reporters
from hbmlint.diagnostics import Diagnostic, Edit, Fix, Severity
from hbmlint.results import RenderOptions, Report
from hbmlint.yamlsrc import Span

REPORTERS = REPO / "hbmlint" / "reporters"
FORBIDDEN = {"hbmlint.lint", "hbmlint.cli"}


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, relative imports resolved against hbmlint.reporters."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                # hbmlint/reporters/x.py: `.` is hbmlint.reporters, `..` is hbmlint
                base = ["hbmlint", "reporters"][: max(0, 3 - node.level)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.add(module)
            # `from .. import lint` imports the module lint
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def test_the_import_checker_sees_relative_and_absolute_imports(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("from ..lint import FileResult\nfrom .. import cli\nimport hbmlint.lint\n")
    assert {"hbmlint.lint", "hbmlint.cli"} <= _imports(sample)
    sample.write_text("from ..results import Report\nfrom . import text\n")
    assert not _imports(sample) & FORBIDDEN


@pytest.mark.parametrize("path", sorted(REPORTERS.glob("*.py")), ids=lambda p: p.name)
def test_reporters_import_nothing_from_the_pipeline(path):
    assert not _imports(path) & FORBIDDEN, f"{path.name} imports the pipeline"


def test_every_registered_reporter_exists():
    for view, formats in reporters.REGISTRY.items():
        for output_format in formats:
            assert callable(reporters.reporter(view, output_format)), (view, output_format)


def test_lint_formats_are_the_registry():
    from hbmlint.cli import lint

    [option] = [p for p in lint.params if p.name == "output_format"]
    assert set(option.type.choices) - {"auto"} == set(reporters.formats("lint"))


def _report() -> Report:
    fix = Fix(
        "Lower max_model_len to 8,192 tokens (--max-model-len 8192).",
        setting="--max-model-len 8192",
        effect="Lower max_model_len to 8,192 tokens.",
        applicability="unsafe",
        edits=[Edit("deploy.yaml", 9, 13, 9, 19, "8192")],
    )
    finding = Diagnostic(
        "HBM102",
        "kv-below-one-sequence",
        Severity.ERROR,
        "the KV cache holds 9,000 tokens",
        "deploy.yaml",
        Span(9, 13, 9, 19),
        fixes=[fix, "Use a bigger GPU."],
        deployment="chat",
    )
    return Report(findings=[finding])


def test_one_report_renders_in_every_lint_format():
    report = _report()
    text = reporters.render("lint", "text", report)
    assert "deploy.yaml:9:13: error HBM102" in text
    assert "    fix [unsafe]: Lower max_model_len to 8,192 tokens (--max-model-len 8192)." in text
    assert "    fix: Use a bigger GPU." in text  # no edits: no applicability shown
    [finding] = json.loads(reporters.render("lint", "json", report))
    assert finding["fixes"][0] == {
        "message": "Lower max_model_len to 8,192 tokens (--max-model-len 8192).",
        "setting": "--max-model-len 8192",
        "effect": "Lower max_model_len to 8,192 tokens.",
        "applicability": "unsafe",
        "edits": [
            {
                "file": "deploy.yaml",
                "line": 9,
                "column": 13,
                "end_line": 9,
                "end_column": 19,
                "replacement": "8192",
            }
        ],
    }
    assert finding["fixes"][1]["edits"] == []
    github = reporters.render("lint", "github", report)
    assert github.startswith("::error file=deploy.yaml,line=9")
    sarif = json.loads(reporters.render("lint", "sarif", report))
    [result] = sarif["runs"][0]["results"]
    [change] = result["fixes"][0]["artifactChanges"]  # only the fix with edits
    assert len(result["fixes"]) == 1
    assert change["replacements"] == [
        {
            "deletedRegion": {"startLine": 9, "startColumn": 13, "endLine": 9, "endColumn": 19},
            "insertedContent": {"text": "8192"},
        }
    ]
    counts = reporters.render("lint", "json", report, RenderOptions(statistics=True))
    assert json.loads(counts)[0]["count"] == 1
