"""Issue 11, item 8: the job summary stays below GitHub's 1 MiB (truncated with a line saying
how many findings the full report has); annotations come errors first, with a notice when
GitHub's per-step limits will hide some; an empty hbmlint.io/disable annotation suppresses
nothing (HBM090)."""

from __future__ import annotations

from bounded import findings
from helpers import EXAMPLES

from hbmlint.diagnostics import Diagnostic, Severity
from hbmlint.reporters import github, summary
from hbmlint.yamlsrc import Span

DRAFT_EXAMPLE = EXAMPLES / "llama70b-fp8-h100-8b-draft.yaml"


def many(count: int, severity: Severity, message: str = "m") -> list[Diagnostic]:
    return [
        Diagnostic("HBM101", "weights-exceed-hbm", severity, message, f"f{i}.yaml", Span(i + 1, 1))
        for i in range(count)
    ]


def test_job_summary_stays_below_one_mebibyte_and_says_it_was_cut():
    diagnostics = many(20_000, Severity.WARNING, "w" * 300) + many(50, Severity.ERROR, "e" * 300)
    markdown = summary.render([], diagnostics)
    assert len(markdown.encode("utf-8")) < 1024 * 1024
    assert "**Truncated**" in markdown and "The full report has 20,050 findings" in markdown
    rows = [line for line in markdown.splitlines() if line.startswith("| ")]
    assert all("| error |" in row for row in rows[1:51])  # errors first


def test_a_huge_message_is_cut_in_its_cell():
    markdown = summary.render([], many(1, Severity.ERROR, "x" * 5_000_000))
    assert len(markdown.encode("utf-8")) < 10_000 and "Truncated" not in markdown


def test_small_summary_is_whole():
    markdown = summary.render([], many(3, Severity.ERROR))
    assert "Truncated" not in markdown and markdown.count("| error |") == 3


def test_job_summary_of_a_real_run_is_cut_to_the_limit(cli, tmp_path, monkeypatch):
    """The CLI's summary goes through the same limit (made small here, so that a few files
    stand for the thousands it takes to reach 1 MiB)."""
    text = DRAFT_EXAMPLE.read_text()
    for i in range(12):
        (tmp_path / f"d{i:02}.yaml").write_text(text)
    summary_file = tmp_path / "summary.md"
    summary_file.write_text("# earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary_file))
    monkeypatch.setattr(summary, "MAX_SUMMARY_BYTES", 4000)
    assert cli("--jobs", "1", tmp_path).exit_code == 1
    written = summary_file.read_text().removeprefix("# earlier step\n")
    assert len(written.encode()) <= 4000
    assert "**Truncated**" in written and "The full report has 36 findings" in written


def parse_kind(line: str) -> str:
    return line[2:].split(" ", 1)[0]


def test_annotations_errors_first_with_a_notice_when_some_are_hidden():
    diagnostics = sorted(
        many(12, Severity.WARNING) + many(15, Severity.ERROR) + many(2, Severity.INFO),
        key=Diagnostic.sort_key,
    )
    lines = github.render(diagnostics, 29, 29).splitlines()
    assert lines[0].startswith("::notice title=hbmlint::")
    assert "5 of 15 errors" in lines[0] and "2 of 12 warnings" in lines[0]
    kinds = [parse_kind(line) for line in lines[1:-1]]
    assert kinds == ["error"] * 15 + ["warning"] * 12 + ["notice"] * 2


def test_no_notice_when_every_annotation_shows():
    lines = github.render(many(10, Severity.ERROR), 10, 10).splitlines()
    assert not any("title=hbmlint::" in line for line in lines)


def test_empty_disable_annotation_suppresses_nothing(tmp_path):
    source = DRAFT_EXAMPLE.read_text()
    before = sorted(f["code"] for f in findings(str(DRAFT_EXAMPLE)))
    for value in ['""', "'-- no codes, just a reason'", "null"]:
        path = tmp_path / "annotated.yaml"
        path.write_text(
            source.replace(
                "metadata:\n", f"metadata:\n  annotations:\n    hbmlint.io/disable: {value}\n", 1
            )
        )
        after = findings(str(path))
        assert sorted(f["code"] for f in after if f["code"] != "HBM090") == before
        [unused] = [f for f in after if f["code"] == "HBM090"]
        assert "suppresses nothing" in unused["message"] and unused["line"] == 9
