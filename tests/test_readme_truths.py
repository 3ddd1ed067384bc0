"""What the README promises a user who copies from it: schema URLs that match the schemas,
pins that name a revision that exists, a fork-safe workflow."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
from helpers import REPO

README = (REPO / "README.md").read_text()
HOMEPAGE = re.search(
    r'^Homepage = "https://github.com/([^"]+)"$', (REPO / "pyproject.toml").read_text(), re.M
)[1]
RAW = f"https://raw.githubusercontent.com/{HOMEPAGE}/main/"
PIN = re.compile(r"(?:rev: |hbmlint/hbmlint@)([0-9a-f]{7,40}|v[\w.]+)")


@pytest.mark.parametrize("name", ["config", "manifest", "rule"])
def test_each_schema_has_the_stable_url_the_readme_names(name):
    path = f"schemas/{name}.schema.json"
    schema = json.loads((REPO / path).read_text())
    assert schema["$id"] == RAW + path
    assert RAW + path in README


def test_readme_shows_the_yaml_language_server_line_on_a_valid_configuration(cli, tmp_path):
    block = re.search(r"```yaml\n(# yaml-language-server: \$schema=(\S+)\n(?:.*\n)*?)```", README)
    assert block, "no yaml-language-server line in the README"
    assert block[2] == RAW + "schemas/config.schema.json"
    config = tmp_path / ".hbmlint.yaml"
    config.write_text(block[1])
    run = cli("--config", config, REPO / "examples" / "llama8b-l4-ngram.yaml")
    assert run.exit_code == 0, run.output + run.stderr


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True)


def test_pins_name_a_revision_that_exists():
    pins = set()
    for text in (
        README,
        (REPO / ".pre-commit-hooks.yaml").read_text(),
        (REPO / "action.yml").read_text(),
    ):
        pins |= set(PIN.findall(text))
    assert pins, "the README shows no pre-commit rev or action pin"
    if shutil.which("git") is None or _git("rev-parse", "--git-dir").returncode != 0:
        pytest.skip("not a git checkout: cannot check the pins")
    if _git("rev-parse", "--is-shallow-repository").stdout.strip() == "true":
        pytest.skip("a shallow clone may lack the pinned commit")
    for pin in pins:
        kind = "tag" if pin.startswith("v") else "commit"
        ref = f"refs/tags/{pin}" if kind == "tag" else f"{pin}^{{commit}}"
        assert _git("rev-parse", "--verify", "--quiet", ref).returncode == 0, (
            f"the README pins {kind} {pin}, which this repository does not have"
        )


def test_readme_says_there_is_no_release_tag_while_there_is_none():
    if shutil.which("git") is None or _git("rev-parse", "--git-dir").returncode != 0:
        pytest.skip("not a git checkout")
    if _git("tag", "--list", "v*").stdout.strip():
        pytest.skip("releases are tagged now")
    assert "no release tag yet" in README


def test_fork_pull_requests_pin_the_configuration_from_the_base_branch():
    section = README[README.index("### Pull requests from forks") :]
    section = section[: section.index("\n## ")]
    assert "github.event.pull_request.base.sha" in section
    assert "git checkout FETCH_HEAD -- .hbmlint.yaml" in section
    assert "config: .hbmlint.yaml" in section
    assert "pull_request_target" in section  # the warning against it
