"""GitHub Actions: workflow commands (escaping, the location fields the runner accepts),
--format auto, the job summary, and --output."""

from __future__ import annotations

import json
import os
import re
import stat

import pytest
from helpers import EXAMPLES

from hbmlint.diagnostics import Diagnostic, Severity
from hbmlint.reporters import github
from hbmlint.yamlsrc import Span

DRAFT_EXAMPLE = EXAMPLES / "llama70b-fp8-h100-8b-draft.yaml"
NGRAM_EXAMPLE = EXAMPLES / "llama8b-l4-ngram.yaml"
COMMAND = re.compile(
    r"^::(error|warning|notice) ((?:[A-Za-z]+=[^,:]*)(?:,[A-Za-z]+=[^,:]*)*)::(.*)$"
)


def finding(span: Span, message: str = "m", file: str = "a.yaml", **kw) -> Diagnostic:
    return Diagnostic(
        "HBM101",
        "weights-exceed-hbm",
        kw.pop("severity", Severity.ERROR),
        message,
        file,
        span,
        **kw,
    )


def parse(line: str) -> tuple[str, dict[str, str], str]:
    match = COMMAND.match(line)
    assert match, line
    props = dict(pair.split("=", 1) for pair in match[2].split(","))
    return match[1], props, match[3]


def test_escaping_of_data_and_properties():
    assert github.escape_data("50% a\r\nb: c, d") == "50%25 a%0D%0Ab: c, d"
    assert github.escape_property("50% a\r\nb: c, d") == "50%25 a%0D%0Ab%3A c%2C d"
    # '%' first, so an escape is never escaped twice
    assert github.escape_property("%0A") == "%250A"


def test_command_escapes_file_title_and_message():
    d = finding(
        Span(3, 5, 3, 9),
        "ratio 19.9% of usable\nsecond line",
        file="dir,x/a:b.yaml",
        fixes=["Use TP 2: 48 GiB"],
    )
    kind, props, message = parse(github.command(d))
    assert kind == "error"
    assert props["file"] == "dir%2Cx/a%3Ab.yaml"
    assert props["title"] == "HBM101 [weights-exceed-hbm]"
    assert "\n" not in message and "%0A    fix: Use TP 2: 48 GiB" in message
    assert "19.9%25 of usable%0Asecond line" in message


@pytest.mark.parametrize(
    ("span", "expected"),
    [
        (Span(3, 5, 3, 9), {"line": "3", "col": "5", "endLine": "3", "endColumn": "9"}),
        (Span(3, 5), {"line": "3", "col": "5", "endLine": "3"}),
        # several lines: the runner rejects col/endColumn, so they are left out
        (Span(3, 5, 6, 2), {"line": "3", "endLine": "6"}),
        # an end before the start on one line is rejected too
        (Span(3, 5, 3, 5), {"line": "3", "endLine": "3"}),
    ],
)
def test_location_fields_the_runner_accepts(span, expected):
    _, props, _ = parse(github.command(finding(span)))
    assert {k: v for k, v in props.items() if k not in ("file", "title")} == expected


def test_severities_map_to_commands():
    kinds = [
        parse(github.command(finding(Span(1, 1), severity=s)))[0]
        for s in (Severity.ERROR, Severity.WARNING, Severity.INFO)
    ]
    assert kinds == ["error", "warning", "notice"]


def test_auto_format_is_github_inside_actions(cli, monkeypatch):
    assert cli(DRAFT_EXAMPLE).output.startswith("examples/")  # text outside Actions
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    lines = cli(DRAFT_EXAMPLE).output.splitlines()
    # errors first (GitHub annotates only the first few of each kind per step), then by line:
    # HBM101 (error), HBM201 (warning), HBM208 (the speculative trade-off, an info)
    assert [parse(line)[0] for line in lines[:-1]] == ["error", "warning", "notice"]
    assert lines[-1].startswith("Found 3 findings")
    assert cli("--format", "text", DRAFT_EXAMPLE).output.count("::") == 0


def test_job_summary_is_appended(cli, monkeypatch, tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_text("# earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    run = cli(DRAFT_EXAMPLE, NGRAM_EXAMPLE)
    assert run.exit_code == 1
    text = summary.read_text()
    assert text.startswith("# earlier step\n## hbmlint\n")
    assert "Found 3 findings (1 error, 1 warning, 1 info) in 2 files, 2 deployments." in text
    # where the HBM goes, per deployment: weights, draft, overhead, KV; capacity, concurrency
    # (figures as `hbmlint budget` computes them, whatever the memory model says today)
    draft, ngram = cli("budget", "--format", "json", DRAFT_EXAMPLE, NGRAM_EXAMPLE).json()
    gib = "{:.2f} GiB".format
    assert f"| weights | {gib(draft['weights_bytes'] / 2**30)} |" in text
    assert f"| draft | {gib(draft['draft_weights_bytes'] / 2**30)} |" in text
    assert f"| overhead | {gib(ngram['overhead_bytes'] / 2**30)} |" in text
    assert f"| KV cache | {gib(ngram['kv_cache_bytes'] / 2**30)} |" in text
    assert (
        f"KV capacity **{ngram['kv_cache_tokens']:,} tokens**; "
        f"max concurrency **{ngram['max_concurrency']:.2f}**"
    ) in text
    assert "[HBM101](https://github.com/hbmlint/hbmlint/blob/main/docs/rules.md#hbm101-" in text
    # an unwritable summary is a warning, never a failure of the lint itself
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "no" / "such" / "dir.md"))
    run = cli(DRAFT_EXAMPLE)
    assert run.exit_code == 1 and "cannot append the job summary" in run.stderr


@pytest.mark.parametrize("output_format", ["text", "json", "github", "sarif"])
def test_output_file_any_format(cli, tmp_path, output_format):
    target = tmp_path / f"report.{output_format}"
    target.write_text("old contents, replaced whole")
    run = cli("--format", output_format, "--output", target, DRAFT_EXAMPLE)
    assert run.exit_code == 1
    assert "HBM101" not in run.output  # the report went to the file
    written = target.read_text()
    assert "HBM101" in written and "old contents" not in written
    if output_format in ("json", "sarif"):
        json.loads(written)
    assert stat.S_IMODE(os.stat(target).st_mode) & 0o044  # readable by others, as usual
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]  # no temporary left


def test_output_to_a_missing_directory_is_a_usage_error(cli, tmp_path):
    run = cli("--output", tmp_path / "missing" / "r.txt", DRAFT_EXAMPLE)
    assert run.exit_code == 2 and "cannot write" in run.stderr
