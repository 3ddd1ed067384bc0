"""Fixtures: write small manifests to a temporary directory and run the CLI in-process."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from hbmlint.cli import main


@pytest.fixture(autouse=True, scope="session")
def _private_cache_dir(tmp_path_factory):
    """hbmlint keeps JSON copies of its catalogs in the user's cache directory; the tests,
    and the hbmlint processes they start, use one of their own."""
    previous = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache"))
    yield
    if previous is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = previous


@pytest.fixture(autouse=True, scope="session")
def _no_hugging_face_hub(tmp_path_factory):
    """Tests never reach the internet, nor read the user's Hugging Face cache or token: the
    Hub is offline and HF_HOME is a folder of the tests' own (the Hub tests start a local
    server and point HF_ENDPOINT at it)."""
    saved = {
        k: os.environ.get(k) for k in ("HF_HUB_OFFLINE", "HF_HOME", "HF_HUB_CACHE", "HF_TOKEN")
    }
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["HF_HOME"] = str(tmp_path_factory.mktemp("hf-home"))
    os.environ.pop("HF_HUB_CACHE", None)
    os.environ.pop("HF_TOKEN", None)
    yield
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture(autouse=True)
def _fresh_hub_run():
    """Each test is a run of its own: the Hub's time budget and once-per-model warnings."""
    from hbmlint.catalog import hub

    hub.reset()


@pytest.fixture(autouse=True)
def _fresh_tree_objects():
    """Each test is a run of its own: no ConfigMaps left over from another test's files."""
    from hbmlint.formats import podspec

    podspec.use_tree_objects({})


@pytest.fixture(autouse=True)
def _outside_github_actions(monkeypatch):
    """Tests see the same defaults on a laptop and in a GitHub Actions job: --format auto
    would otherwise print workflow commands, and every run would append a job summary (and a
    CI's FORCE_COLOR would colour the golden output)."""
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def write(tmp_path: Path):
    def _write(text: str, name: str = "deploy.yaml") -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text) if not text.startswith("apiVersion") else text)
        return path

    return _write


class Run:
    def __init__(self, result):
        self.exit_code = result.exit_code
        self.output = result.output
        self.stderr = result.stderr if result.stderr_bytes is not None else ""

    def json(self):
        return json.loads(self.output)


@pytest.fixture
def cli():
    def _run(*args: str) -> Run:
        return Run(CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False))

    return _run
