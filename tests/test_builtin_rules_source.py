"""Issue 18 (speed): the built-in rule files are known as those builtin_rules_data.py was
written for by their names and texts, compared with the copy written there (SOURCE), not by
a digest of them."""

from __future__ import annotations

from hbmlint import builtin_rules_data
from hbmlint.catalog import yamlcache
from hbmlint.rules import _packaged_entries, _rule_texts, _rules_source, builtin_rule_files


def test_the_rule_files_are_known_without_a_digest(monkeypatch):
    def no_digest(data: bytes) -> str:
        raise AssertionError("digested")

    monkeypatch.setattr(yamlcache, "_digest", no_digest)
    source = _rules_source(_rule_texts(builtin_rule_files()))
    assert source == builtin_rules_data.SOURCE
    assert _packaged_entries(source) is builtin_rules_data.ENTRIES


def test_one_byte_more_is_not_them():
    source = _rules_source(_rule_texts(builtin_rule_files()))
    assert _packaged_entries(source + b"\n") is None
    assert _packaged_entries(source[:-1]) is None
