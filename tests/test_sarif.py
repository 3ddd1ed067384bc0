"""SARIF 2.1.0: valid against the official schema, with what GitHub code scanning needs."""

from __future__ import annotations

import json
import os
import shutil
from functools import cache

import jsonschema
import pytest
from helpers import EXAMPLES, REPO, SHARED

SCHEMA_PATH = SHARED / "schemas" / "sarif-schema-2.1.0.json"


MISSING = (
    f"the official SARIF schema is not at {SCHEMA_PATH} (../shared beside the clone, as in the "
    "project's CI); the SARIF is checked here without it"
)


@cache
def validator() -> jsonschema.protocols.Validator | None:
    """The official schema's validator; None in a clone without ../shared (a fresh clone must
    pass its own tests), where test_official_schema_is_available skips and says so. With
    HBMLINT_REQUIRE_SHARED=1 (CI with ../shared) its absence is a failure."""
    if not SCHEMA_PATH.is_file():
        if os.environ.get("HBMLINT_REQUIRE_SHARED"):
            pytest.fail(MISSING)
        return None
    schema = json.loads(SCHEMA_PATH.read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def sarif(cli, *args) -> dict:
    run = cli("--format", "sarif", *args)
    assert run.exit_code in (0, 1), run.output
    document = json.loads(run.output)
    checker = validator()
    errors = [] if checker is None else list(checker.iter_errors(document))
    errors.sort(key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])
    return document


def test_official_schema_is_available():
    if validator() is None:
        pytest.skip(MISSING)
    assert SCHEMA_PATH.is_file()


def test_examples_directory_validates_and_has_what_code_scanning_needs(cli, monkeypatch):
    monkeypatch.chdir(REPO)
    document = sarif(cli, "examples")
    assert document["version"] == "2.1.0" and document["$schema"].endswith("sarif-2.1.0.json")
    [run] = document["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "hbmlint" and driver["version"] and driver["informationUri"]
    rules = driver["rules"]
    ids = [r["id"] for r in rules]
    assert {"HBM101", "HBM102", "HBM103", "HBM201", "HBM003"} <= set(ids)
    for rule in rules:
        assert rule["name"] and rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["help"]["text"] and rule["help"]["markdown"]
        assert rule["helpUri"].endswith(f"#{rule['id'].lower()}-{rule['name']}")
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
        assert len(rule["fullDescription"]["text"]) <= 1024
    assert run["results"], "the examples have findings"
    for result in run["results"]:
        assert ids[result["ruleIndex"]] == result["ruleId"]
        assert result["level"] in ("error", "warning", "note") and result["message"]["text"]
        [location] = result["locations"]
        artifact = location["physicalLocation"]["artifactLocation"]
        assert artifact["uri"].startswith("examples/") and artifact["uriBaseId"] == "%SRCROOT%"
        region = location["physicalLocation"]["region"]
        assert {"startLine", "startColumn", "endLine", "endColumn"} <= set(region)
        assert (region["endLine"], region["endColumn"]) > (
            region["startLine"],
            region["startColumn"],
        )
        assert result["partialFingerprints"]["hbmlint/v1"]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].startswith("file://")


def test_uri_is_relative_to_the_repository_root_not_the_working_directory(cli, monkeypatch):
    monkeypatch.chdir(EXAMPLES)
    document = sarif(cli, "llama70b-fp8-h100-8b-draft.yaml")
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in document["runs"][0]["results"]
    }
    assert uris == {"examples/llama70b-fp8-h100-8b-draft.yaml"}


def test_fingerprints_stay_when_unrelated_lines_move(cli, tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    source = (EXAMPLES / "llama70b-fp8-h100-8b-draft.yaml").read_text()
    shutil.copy(EXAMPLES / "llama70b-fp8-h100-8b-draft.yaml", tmp_path / "m.yaml")

    def prints() -> dict:
        results = sarif(cli, "m.yaml")["runs"][0]["results"]
        return {
            r["ruleId"]: (
                r["partialFingerprints"]["hbmlint/v1"],
                r["locations"][0]["physicalLocation"]["region"]["startLine"],
            )
            for r in results
        }

    before = prints()
    (tmp_path / "m.yaml").write_text("# a new comment\n# and another\n\n" + source)
    after = prints()
    assert before.keys() == after.keys() == {"HBM101", "HBM201", "HBM208"}
    for code in before:
        assert before[code][0] == after[code][0]  # same identity
        assert after[code][1] == before[code][1] + 3  # at the line it moved to


def test_clean_run_is_valid_and_lists_the_rules(cli, tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    document = sarif(cli, ".")
    assert document["runs"][0]["results"] == []
    assert document["runs"][0]["tool"]["driver"]["rules"]


def test_only_selected_rules_are_listed(cli, monkeypatch):
    monkeypatch.chdir(REPO)
    document = sarif(cli, "--select", "HBM2", "examples/llama70b-fp8-h100-8b-draft.yaml")
    rules = [r["id"] for r in document["runs"][0]["tool"]["driver"]["rules"]]
    assert "HBM201" in rules and "HBM101" not in rules
    assert [r["ruleId"] for r in document["runs"][0]["results"]] == ["HBM208", "HBM201"]
