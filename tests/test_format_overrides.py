"""The configuration's `formats` key: a glob mapped to a format makes the files it matches read as
that format even where detection would not recognise them (a vLLM config with no serving key
besides `model`), in `lint`, `budget` and `formats`; an unknown format name is refused at its
line; a document the format cannot read is a finding, not a silent skip."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from hbmlint.config import format_override
from hbmlint.formats import FORMATS

# Only `model` and keys detection does not count as "serving" ones: not recognised on its own.
BARE_CONFIG = "model: meta-llama/Llama-3.1-8B-Instruct\nhost: 0.0.0.0\nport: 8000\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "configs").mkdir()
    (root / "configs" / "llama.yaml").write_text(BARE_CONFIG)
    monkeypatch.chdir(root)
    return root


def put(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def test_without_the_mapping_the_file_is_not_recognised(cli, repo):
    run = cli("budget", "--format", "json", "--gpu", "H100", "configs")
    assert json.loads(run.output) == []


def test_mapped_glob_reads_the_file_as_a_vllm_config(cli, repo):
    put(repo / ".hbmlint.yaml", 'formats:\n  "configs/*.yaml": vllm-config\n')
    [budget] = json.loads(cli("budget", "--format", "json", "--gpu", "H100", "configs").output)
    assert budget["gpu"] == "H100-SXM-80GB"
    assert budget["name"] == "llama"
    assert "read as vllm-config" in cli("formats", "configs/llama.yaml").output


def test_mapping_in_pyproject_and_from_a_subdirectory(cli, repo, monkeypatch):
    put(repo / "pyproject.toml", '[tool.hbmlint.formats]\n"configs/**" = "vllm-config"\n')
    monkeypatch.chdir(repo / "configs")
    [budget] = json.loads(cli("budget", "--format", "json", "--gpu", "L4", "llama.yaml").output)
    assert budget["gpu"] == "L4-24GB"


def test_a_flag_in_a_mapped_file_is_located(cli, repo):
    put(repo / ".hbmlint.yaml", 'formats: {"configs/*.yaml": vllm-config}\n')
    put(repo / "configs" / "llama.yaml", BARE_CONFIG + "max-num-seqs: none\n")
    run = cli("--format", "json", "--gpu", "H100", "configs")
    [bad] = [f for f in run.json() if f["code"] == "HBM004"]
    assert (bad["file"], bad["line"]) == ("configs/llama.yaml", 4)


def test_a_document_the_format_cannot_read_is_a_finding(cli, repo):
    put(repo / ".hbmlint.yaml", 'formats: {"configs/*.yaml": compose}\n')
    run = cli("--format", "json", "--gpu", "H100", "configs")
    [finding] = run.json()
    assert finding["code"] == "HBM003" and "compose" in finding["message"]


def test_unknown_format_name_is_a_config_error_at_its_line(cli, repo):
    put(repo / ".hbmlint.yaml", 'formats:\n  "configs/*.yaml": vllm\n')
    run = cli("configs")
    assert run.exit_code == 2
    assert run.stderr.startswith(".hbmlint.yaml:2:"), run.stderr
    assert "is not one of" in run.stderr


def test_last_matching_glob_wins_and_globs_are_relative_to_the_config(tmp_path):
    overrides = [("**/*.yaml", "kubernetes"), ("configs/*.yaml", "vllm-config")]
    assert format_override(overrides, tmp_path, str(tmp_path / "configs/a.yaml")) == "vllm-config"
    assert format_override(overrides, tmp_path, str(tmp_path / "k8s/a.yaml")) == "kubernetes"
    assert format_override(overrides[1:], tmp_path, str(tmp_path / "other/a.yaml")) is None


def test_schema_lists_every_format():
    schema = json.loads((Path(__file__).parents[1] / "schemas" / "config.schema.json").read_text())
    names = schema["properties"]["formats"]["additionalProperties"]["enum"]
    assert sorted(names) == sorted(module.NAME for module in FORMATS)


def test_formats_are_tried_in_their_order_whatever_was_imported_first():
    """Detection tries the formats most specific first; asking for one format by position
    first (the last one here) does not change the order a document is tried in."""
    from hbmlint.formats import _ORDER, detect_format

    assert FORMATS[-1].__name__.endswith("." + _ORDER[-1])
    assert [module.__name__.rsplit(".", 1)[1] for module in FORMATS] == list(_ORDER)
    assert [m.__name__ for m in FORMATS[2:4]] == [m.__name__ for m in list(FORMATS)[2:4]]
    native = {"apiVersion": "hbmlint/v1", "kind": "ServingManifest", "spec": {}}
    assert detect_format(native) is FORMATS[0]
