"""action.yml (the composite GitHub Action) and the README's workflow and configuration
examples: they parse, they agree with each other, and the action's scripts run."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import yaml
from helpers import REPO

from hbmlint.schema import validate
from hbmlint.yamlsrc import load_documents

ACTION = yaml.safe_load((REPO / "action.yml").read_text())
README = (REPO / "README.md").read_text()


def readme_block(marker: str) -> str:
    """The fenced block whose first line is ``marker``."""
    for block in re.findall(r"```(?:yaml|toml)\n(.*?)```", README, re.DOTALL):
        if block.startswith(marker):
            return block
    raise AssertionError(f"no README block starting {marker!r}")


def test_action_is_a_composite_with_shell_steps():
    assert ACTION["runs"]["using"] == "composite"
    for step in ACTION["runs"]["steps"]:
        assert step["shell"] == "bash" and step["run"]
        # inputs reach scripts through env, never spliced into the script (no injection)
        assert "${{" not in step["run"]
    used = set(re.findall(r"inputs\.([a-z-]+)", (REPO / "action.yml").read_text()))
    assert used <= set(ACTION["inputs"])


def test_readme_workflow_uses_the_action_with_its_inputs():
    workflow = yaml.safe_load(readme_block("# .github/workflows/hbmlint.yml"))
    steps = workflow["jobs"]["hbmlint"]["steps"]
    [ours] = [s for s in steps if s.get("uses", "").startswith("hbmlint/hbmlint@")]
    assert set(ours["with"]) <= set(ACTION["inputs"])
    [upload] = [s for s in steps if "upload-sarif" in s.get("uses", "")]
    assert upload["with"]["sarif_file"] == ours["with"]["sarif-file"]
    assert workflow["permissions"]["security-events"] == "write"


def test_readme_configuration_examples_are_valid():
    documents, error = load_documents(readme_block("# .hbmlint.yaml"))
    assert error is None and not validate(documents[0], "config", "README")
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    table = tomllib.loads(readme_block("# pyproject.toml"))["tool"]["hbmlint"]
    from hbmlint.yamlsrc import YamlDocument

    assert not validate(YamlDocument(data=table, index=0), "config", "README")


def run_step(name: str, tmp_path, **env: str) -> subprocess.CompletedProcess:
    [step] = [s for s in ACTION["runs"]["steps"] if s["name"] == name]
    environment = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")},
        "PATH": f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}",
        "HBMLINT_CONFIG": "",
        "HBMLINT_ARGS": "",
        **env,
    }
    return subprocess.run(
        ["bash", "-e", "-c", step["run"]],
        cwd=REPO,
        env=environment,
        capture_output=True,
        text=True,
    )


def test_action_lint_and_sarif_steps_run(tmp_path):
    lint = run_step("Lint", tmp_path, HBMLINT_PATHS="examples/llama8b-l4-ngram.yaml")
    assert lint.returncode == 0, lint.stderr
    failing = run_step("Lint", tmp_path, HBMLINT_PATHS="examples/llama70b-fp8-h100-8b-draft.yaml")
    assert failing.returncode == 1 and failing.stdout.startswith("::error file=examples/")
    sarif = tmp_path / "out.sarif"
    written = run_step(
        "Write SARIF",
        tmp_path,
        HBMLINT_PATHS="examples/llama70b-fp8-h100-8b-draft.yaml",
        HBMLINT_ARGS="--fail-on warning",
        HBMLINT_SARIF=str(sarif),
    )
    assert written.returncode == 0, written.stderr  # findings do not fail this step
    assert json.loads(sarif.read_text())["runs"][0]["results"]
