"""When the ``hbmlint`` command (hbmlint.__main__.main, the console script's entry point) is
done, the process ends at once, without Python's teardown: its report is whole (flushed first,
even when it is far larger than a pipe holds), its exit code is the command's, and an atexit
handler does not run. Under a tracer (coverage.py) the process ends as Python ends it, so the
tracer's own exit handlers run."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from hbmlint import cli

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

# Runs hbmlint.__main__.main with argv[1:] after SETUP; an atexit handler says whether Python
# tore the process down.
PROBE = """
import atexit, sys
SETUP
atexit.register(lambda: print("torn down", file=sys.stderr))
import hbmlint.__main__ as command
sys.argv = ["hbmlint", *sys.argv[1:]]
command.main()
"""


def _run(args: list[str], folder: Path, setup: str = "") -> subprocess.CompletedProcess:
    """Run from ``folder``: ``python -c`` puts its working directory first on sys.path, and a
    checkout's hbmlint/ is not the installed package."""
    return subprocess.run(
        [sys.executable, "-c", PROBE.replace("SETUP", setup), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=folder,
    )


def _many_copies(tmp_path: Path) -> Path:
    """Twenty copies of the shipped examples: a JSON report of a few hundred KiB."""
    folder = tmp_path / "manifests"
    for copy in range(20):
        for example in sorted(EXAMPLES.glob("*.yaml")):
            folder.mkdir(exist_ok=True)
            shutil.copy(example, folder / f"{copy:02d}-{example.name}")
    return folder


def test_the_report_is_whole_and_the_exit_code_the_commands(tmp_path, monkeypatch):
    folder = _many_copies(tmp_path)
    args = ["--jobs", "1", "--format", "json", str(folder)]
    monkeypatch.chdir(tmp_path)  # where the probe runs: files are shown from there
    expected = CliRunner().invoke(cli.main, args)
    assert expected.exit_code == 1  # the examples hold errors
    ran = _run(args, tmp_path)
    assert len(ran.stdout) > 256 * 1024  # far more than a pipe's buffer
    assert json.loads(ran.stdout) == json.loads(expected.output)
    assert ran.returncode == expected.exit_code
    assert "torn down" not in ran.stderr


def test_a_usage_error_keeps_its_message_and_exit_code(tmp_path):
    ran = _run(["--format", "nonsense", str(tmp_path)], tmp_path)
    assert ran.returncode == 2
    assert "Invalid value for '--format'" in ran.stderr
    assert "torn down" not in ran.stderr


def test_under_a_tracer_python_ends_the_process(tmp_path):
    folder = _many_copies(tmp_path)
    args = ["--jobs", "1", "--format", "json", str(folder)]
    ran = _run(args, tmp_path, "sys.settrace(lambda *event: None)")
    assert ran.returncode == 1
    assert json.loads(ran.stdout)  # the report, as without a tracer
    assert "torn down" in ran.stderr
