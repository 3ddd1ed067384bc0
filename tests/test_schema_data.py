"""Issue 18 (speed): the JSON schemas that ship with hbmlint come with the package as Python
constants (hbmlint/schema_data.py, written by tools/write_schema_data.py), used only for a file
of the very text they were written from; a run reads its schema without importing json, and a
clean manifest is linted without json at all. Any other text of a schema is parsed, as before."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from helpers import imported_by_clean_lints, tool

from hbmlint import schema, schema_data
from hbmlint.schema_data import SCHEMAS

ROOT = Path(__file__).parent.parent


def _file_text(name: str) -> str:
    folder = Path(next(iter(importlib.import_module("hbmlint.schemas").__path__)))
    return (folder / f"{name}.schema.json").read_text(encoding="utf-8")


def test_the_module_is_written_for_the_schema_files_as_they_are():
    written = (ROOT / "hbmlint" / "schema_data.py").read_text(encoding="utf-8")
    assert written == tool("write_schema_data").data_module(), (
        "run: python tools/write_schema_data.py"
    )
    assert set(SCHEMAS) == {p.name[: -len(".schema.json")] for p in ROOT.glob("schemas/*.json")}


def test_each_schema_is_its_files_data():
    for name in sorted(SCHEMAS):
        schema.load_schema.cache_clear()
        try:
            loaded = schema.load_schema(name)
            assert loaded is SCHEMAS[name][1]  # the shipped data, not a parse
            assert loaded == json.loads(_file_text(name)), name
        finally:
            schema.load_schema.cache_clear()


def test_a_schema_of_other_text_is_parsed(monkeypatch):
    edited = {name: (text + " ", data) for name, (text, data) in SCHEMAS.items()}
    monkeypatch.setattr(schema_data, "SCHEMAS", edited)
    schema.load_schema.cache_clear()
    try:
        loaded = schema.load_schema("manifest")
        assert loaded is not SCHEMAS["manifest"][1]
        assert loaded == json.loads(_file_text("manifest"))
    finally:
        schema.load_schema.cache_clear()


def test_a_clean_lint_imports_no_json(tmp_path):
    assert imported_by_clean_lints(tmp_path, "json") == [[False], [False]]
