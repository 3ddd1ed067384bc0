"""The ``hbmlint`` command (hbmlint.__main__.main, the console script's entry point) imports
hbmlint.cli with the cyclic collector off, and the command's start-up pause goes on from there: no
collection walks the objects the imports make, the files are linted with the collector on and
the imports' objects frozen, and the result is the command's own. A caller that had the
collector off, or had frozen objects itself, keeps exactly that. Each case runs in a fresh
interpreter: only there is hbmlint.cli not imported yet."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

from helpers import manifest

ROOT = Path(__file__).resolve().parent.parent

GOOD = manifest(
    """
    engine: vllm
    gpu: {type: H100, count: 1}
    model: {name: meta-llama/Llama-3.1-8B-Instruct}
    """,
    name="small",
)

# Runs hbmlint.__main__.main on argv[1] after SETUP, and prints as JSON: the collections made
# before, while and after hbmlint.cli (with click and what it imports) was being imported, the exit
# code, and the collector's state after the command.
PROBE = """
import gc, json, sys
SETUP
collections = {"before": 0, "import": 0, "after": 0}

def count(phase, info):
    if phase == "stop":
        cli = sys.modules.get("hbmlint.cli")  # there from the start of its import
        where = "before" if cli is None else "import" if not hasattr(cli, "main") else "after"
        collections[where] += 1

gc.callbacks.append(count)
import hbmlint.__main__ as command

command._end_now = lambda code: None  # end as Python does, to report here (test_entry_point_exit)
sys.argv = ["hbmlint", "--jobs", "1", "--format", "json", sys.argv[1]]
try:
    command.main()
except SystemExit as stop:
    code = stop.code
frozen = gc.get_freeze_count() > 0
gc.callbacks.clear()
print(json.dumps({"collections": collections, "code": code, "after": [gc.isenabled(), frozen]}))
"""


def _probe(tmp_path: Path, setup: str = "") -> dict:
    path = tmp_path / "good.yaml"
    path.write_text(GOOD)
    result = subprocess.run(
        [sys.executable, "-c", PROBE.replace("SETUP", setup), str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    *report, last = result.stdout.strip().splitlines()
    assert json.loads("\n".join(report)) == []  # the command's JSON report: no findings
    return json.loads(last)


def test_the_command_imports_its_modules_without_collecting(tmp_path):
    seen = _probe(tmp_path)
    assert seen["collections"]["import"] == 0
    assert seen["code"] == 0
    assert seen["after"] == [True, False]  # given back when the command ended


def test_a_caller_with_the_collector_off_keeps_it_off(tmp_path):
    seen = _probe(tmp_path, "gc.disable()")
    assert seen["collections"] == {"before": 0, "import": 0, "after": 0}
    assert seen["code"] == 0
    assert seen["after"] == [False, False]


def test_a_caller_that_froze_objects_keeps_them(tmp_path):
    seen = _probe(tmp_path, "gc.freeze()")
    assert seen["collections"]["import"] > 0  # the collector left on, as the caller had it
    assert seen["code"] == 0
    assert seen["after"] == [True, True]  # still frozen: not thawed by the command


def test_the_console_script_is_the_commands_main():
    with open(ROOT / "pyproject.toml", "rb") as file:
        scripts = tomllib.load(file)["project"]["scripts"]
    assert scripts == {"hbmlint": "hbmlint.__main__:main"}
