"""Issue 18 (speed): the built-in rule files' parsed data comes with the package
(hbmlint/builtin_rules_data.py, written by tools/write_builtin_rules_data.py), used only for the
files whose bytes it was written for: a run loads it instead of decoding the cache's JSON."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers import tool

from hbmlint import rules as rules_module
from hbmlint.rules import (
    _packaged_entries,
    _parsed_builtin_rules,
    _rule_texts,
    _rules_source,
    builtin_rule_files,
    load_rules,
)

ROOT = Path(__file__).parent.parent


def test_the_module_is_written_for_the_rule_files_as_they_are():
    written = (ROOT / "hbmlint" / "builtin_rules_data.py").read_text(encoding="utf-8")
    assert written == tool("write_builtin_rules_data").data_module(), (
        "run: python tools/write_builtin_rules_data.py"
    )
    source = _rules_source(_rule_texts(builtin_rule_files()))
    assert _packaged_entries(source) is not None


def _described(rules: list) -> list[tuple]:
    return [
        (r.id, r.name, r.severity, r.check, r.when, r.at, r.messages, r.fixes, r.params)
        + (r.engines, r.file, r.spans, r.description, r.summary)
        for r in rules
    ]


def test_the_rules_are_the_same_without_the_module(monkeypatch):
    packaged, problems = load_rules()
    assert problems == [] and len(packaged) > 40
    monkeypatch.setattr(rules_module, "_packaged_entries", lambda source: None)
    parsed, _ = load_rules()
    assert _described(packaged) == _described(parsed)


def test_rule_files_of_other_bytes_are_read_as_they_are(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # the user's is left alone
    files = builtin_rule_files()
    copies = []
    for path in files:
        copy = tmp_path / path.name
        shutil.copyfile(path, copy)
        copies.append(copy)
    edited = copies[0]
    text = edited.read_text(encoding="utf-8")
    old = next(line for line in text.splitlines() if line.startswith("summary:"))
    edited.write_text(text.replace(old, "summary: Edited here."), encoding="utf-8")
    assert _packaged_entries(_rules_source(_rule_texts(copies))) is None
    parsed = _parsed_builtin_rules(copies)
    assert parsed[edited].data["summary"] == "Edited here."
    assert parsed[copies[1]].data == _parsed_builtin_rules(files)[files[1]].data
