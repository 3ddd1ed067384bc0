"""Helm chart values that hold an engine command in keys of the chart's own (surajssd/llm-k8s
`cli:`, codewitholi/vllm-k8s `vllm.params.*`, `backend.vllmArgs`): only the chart's templates
know how they become the command line and the GPUs, so hbmlint does not guess; the note says to
render the chart, rather than to move the command where a format reads it."""

from __future__ import annotations

import shutil
from pathlib import Path

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

VALUES = Path(__file__).parent / "fixtures" / "real" / "chart-values-cli-string" / "values.yaml"
COVERED = {"chart-values-cli-string/values.yaml"}


def lint(path: Path):
    rules, _ = load_rules()
    return lint_file(path, str(path), rules, LintOptions(default_gpu="H100"))


def test_chart_values_are_a_note_to_render_the_chart():
    result = lint(VALUES)
    assert result.deployments == []
    [note] = result.diagnostics
    assert (note.code, note.severity, note.span.line) == ("HBM014", Severity.INFO, 11)
    assert "Helm chart values" in note.message
    assert note.fixes == [
        "Render the chart with these values and lint the result: "
        "`helm template RELEASE CHART -f VALUES | hbmlint -`"
    ]


def test_the_same_text_under_another_name_keeps_the_general_note(tmp_path):
    other = tmp_path / "serving.yaml"
    shutil.copy(VALUES, other)
    [note] = lint(other).diagnostics
    assert note.code == "HBM014" and "Helm chart values" not in note.message
