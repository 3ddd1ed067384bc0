"""Issue 18 (speed): the built-in rules are made from builtin_rules_data's entries, which hold
each rule's fields in the shape Rule takes them (rules._rule_fields, also what a user's rule
file goes through): the same rules as reading each file, and a file read the usual way where
its entry cannot be used."""

from __future__ import annotations

import pickle

from hbmlint import rules as rules_module
from hbmlint.rules import (
    _packaged_entries,
    _rule_texts,
    _rules_source,
    builtin_rule_files,
    load_rule_file,
    load_rules,
)
from hbmlint.yamlsrc import Span, load_documents


def _entries() -> dict:
    entries = _packaged_entries(_rules_source(_rule_texts(builtin_rule_files())))
    assert entries is not None
    return entries


def test_each_built_in_rule_is_the_one_its_file_gives():
    loaded, problems = load_rules()
    assert problems == [] and len(loaded) == len(builtin_rule_files())
    for rule, path in zip(loaded, builtin_rule_files(), strict=True):
        from_file, file_problems = load_rule_file(path, validated=True)
        assert file_problems == []
        assert rule == from_file, path.name


def test_an_entry_whose_parameter_does_not_parse_is_read_from_its_file(monkeypatch):
    entries = dict(_entries())
    name = next(n for n, entry in entries.items() if entry[1])  # a rule with parameters
    fields, params, spans = entries[name]
    entries[name] = (fields, ((params[0][0], "12 parsecs"), *params[1:]), spans)
    monkeypatch.setattr(rules_module, "_packaged_entries", lambda source: entries)
    loaded, problems = load_rules()
    assert problems == []
    [path] = [p for p in builtin_rule_files() if p.name == name]
    [rule] = [r for r in loaded if r.file == str(path)]
    assert rule == load_rule_file(path, validated=True)[0]


def test_a_user_rule_file_is_still_checked_where_its_parameter_is(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(
        "id: HBM901\nname: tiny-kv\nsummary: Few tokens.\nseverity: info\n"
        "params:\n  min_tokens: 12 parsecs\ncheck: kv.tokens >= min_tokens\nat: serving\n"
        "message: only {kv.tokens}\n",
        encoding="utf-8",
    )
    rule, problems = load_rule_file(path)
    assert rule is None
    [problem] = problems
    assert problem.message.startswith("params.min_tokens: ")
    assert (problem.span.line, problem.span.column) == (6, 15)


def _top_level_spans(path) -> dict:
    [document] = load_documents(path.read_text(encoding="utf-8"))[0]
    return {key[0]: span for key, span in document.spans.items() if len(key) == 1}


def test_a_built_in_rule_has_its_file_s_spans_when_they_are_read():
    loaded, _ = load_rules()
    for rule, path in zip(loaded, builtin_rule_files(), strict=True):
        assert rule.spans == _top_level_spans(path), path.name
        assert rule.span("check") == _top_level_spans(path)["check"]


def test_a_built_in_rule_sent_to_a_worker_before_its_spans_are_read_has_them():
    loaded, _ = load_rules()
    copies = pickle.loads(pickle.dumps(loaded))
    for copy, path in zip(copies, builtin_rule_files(), strict=True):
        assert copy.spans == _top_level_spans(path)
    assert copies == loaded


def test_spans_set_on_a_built_in_rule_are_the_ones_it_has():
    rule = load_rules()[0][0]
    rule.spans = {"check": Span(7, 1)}
    assert rule.spans == {"check": Span(7, 1)}
    assert rule.span("id") == Span(1, 1)
