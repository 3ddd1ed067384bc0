"""Issue 11, items 5 and 6: any uncaught exception is one line on standard error and exit 2
(the action's SARIF step tells 1 from 2), and --output writes through a symlink, keeps the
target's mode, refuses a non-regular target and never overwrites an input of the run."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from bounded import run, usage_error
from helpers import EXAMPLES, REPO

DRAFT_EXAMPLE = str(EXAMPLES / "llama70b-fp8-h100-8b-draft.yaml")
CLEAN_EXAMPLE = str(EXAMPLES / "llama8b-l4-ngram.yaml")

# hbmlint's entry point with one stage replaced by a failing one: a stand-in for any bug
CRASHING = """
import sys
import hbmlint.cli as cli
def boom(*args, **kwargs):
    raise {error}
cli.{stage} = boom
sys.argv = ["hbmlint", *sys.argv[1:]]
cli.main()
"""


@pytest.mark.parametrize(
    ("stage", "error"),
    [
        ("_filter", "KeyError('surprise')"),
        ("_run", "RecursionError('maximum recursion depth exceeded')"),
        ("_report", "MemoryError()"),
        ("_load_rules", "UnicodeDecodeError('utf-8', b'x', 0, 1, 'bad')"),
    ],
)
def test_uncaught_exception_is_one_line_and_exit_2(stage, error, tmp_path):
    code = CRASHING.format(stage=stage, error=error)
    # run outside the clone: `python -c` puts the working directory first on sys.path, and
    # the source tree is not the installed package (its rules are packaged at build time)
    result = subprocess.run(
        [sys.executable, "-c", code, CLEAN_EXAMPLE],
        capture_output=True,
        text=True,
        timeout=10,
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith("hbmlint: internal error: ") and error.split("(")[0] in line


def test_traceback_on_request_for_a_bug_report(tmp_path):
    code = CRASHING.format(stage="_filter", error="KeyError('surprise')")
    env = {**os.environ, "HBMLINT_TRACEBACK": "1"}
    result = subprocess.run(
        [sys.executable, "-c", code, CLEAN_EXAMPLE],
        capture_output=True,
        text=True,
        timeout=10,
        env=env,
        cwd=tmp_path,
    )
    assert "Traceback" in result.stderr and "surprise" in result.stderr


def sarif_step() -> str:
    action = yaml.safe_load((REPO / "action.yml").read_text())
    [step] = [s for s in action["runs"]["steps"] if s["name"] == "Write SARIF"]
    return step["run"]


@pytest.mark.parametrize(
    ("args", "paths", "expected"),
    [
        ("", CLEAN_EXAMPLE, 0),
        ("--fail-on warning", DRAFT_EXAMPLE, 0),  # findings: the Lint step reports them
        ("--no-such-flag", CLEAN_EXAMPLE, 2),  # hbmlint could not do its job: the step fails
    ],
)
def test_action_sarif_step_tells_findings_from_failure(tmp_path, args, paths, expected):
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")},
        "PATH": f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}",
        "HBMLINT_CONFIG": "",
        "HBMLINT_ARGS": args,
        "HBMLINT_PATHS": paths,
        "HBMLINT_SARIF": str(tmp_path / "out.sarif"),
    }
    result = subprocess.run(
        ["bash", "-e", "-c", sarif_step()], env=env, capture_output=True, text=True, cwd=REPO
    )
    assert result.returncode == expected, result.stderr
    if expected == 2:
        assert result.stdout.startswith("::error title=hbmlint::")


# ------------------------------------------------------------------------------ --output


def test_output_through_a_symlink_writes_its_target_and_keeps_the_link(tmp_path):
    target = tmp_path / "reports" / "report.json"
    target.parent.mkdir()
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "report-link.json"
    link.symlink_to(target)
    result = run("--format", "json", "--output", str(link), DRAFT_EXAMPLE)
    assert result.returncode == 1 and result.stdout == ""
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert '"HBM101"' in target.read_text()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_output_to_a_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "out.txt"
    link.symlink_to(tmp_path / "made.txt")
    assert run("--output", str(link), CLEAN_EXAMPLE).returncode == 0
    assert link.is_symlink() and "All clear" in (tmp_path / "made.txt").read_text()


@pytest.mark.parametrize("kind", ["fifo", "/dev/null", "directory"])
def test_output_refuses_a_target_that_is_not_a_regular_file(tmp_path, kind):
    path = {"/dev/null": "/dev/null", "directory": str(tmp_path)}.get(kind, str(tmp_path / "p"))
    if kind == "fifo":
        os.mkfifo(path)
    message = usage_error("--output", path, CLEAN_EXAMPLE)
    if kind == "directory":  # click itself refuses a directory, with its usage lines
        assert message.splitlines()[-1].endswith("is a directory.")
    else:
        assert len(message.splitlines()) == 1 and "not a regular file" in message
    if kind == "fifo":
        assert stat.S_ISFIFO(os.stat(path).st_mode)  # still a FIFO, not replaced


def test_output_never_overwrites_an_input(tmp_path):
    manifest = tmp_path / "deploy.yaml"
    manifest.write_bytes(Path(DRAFT_EXAMPLE).read_bytes())
    before = manifest.read_bytes()
    message = usage_error("--output", str(manifest), str(manifest))
    assert "input of this run" in message
    assert manifest.read_bytes() == before

    (tmp_path / "alias.yaml").symlink_to(manifest)  # the same file under another name
    assert "input of this run" in usage_error(
        "--output", str(tmp_path / "alias.yaml"), str(tmp_path)
    )
    assert manifest.read_bytes() == before

    config = tmp_path / ".hbmlint.yaml"
    config.write_text("fail-on: error\n")
    assert "input of this run" in usage_error("--output", str(config), "deploy.yaml", cwd=tmp_path)
    assert config.read_text() == "fail-on: error\n"
