"""A fix's writer asks a Locator for the same command words again (each fix of a flag, the
neighbours' style): Locator.site works each token's answer out once. A drafter without weights
written into hbmlint's own manifest removes only the drafter's keys its section writes. Both
give the same sites and edits as working everything out each time."""

from __future__ import annotations

from pathlib import Path

from helpers import MANIFESTS, manifest

from hbmlint import fixes
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rewrite import NATIVE_DRAFT_ONLY_KEYS, FieldWriter, Locator, Source
from hbmlint.rules import builtin_rule_files, load_rules
from hbmlint.yamlsrc import load_documents


def _lint_all(paths: list[Path]) -> list:
    rules, _ = load_rules(builtin_rule_files())
    found = []
    for path in paths:
        result = lint_file(path, path.name, rules, LintOptions())
        # the findings with fixes (whether a model is found may differ from one lint to the
        # next: the hub-offline fixture's first lint warns of it, later ones not)
        found.append([(d.code, d.message, d.fixes) for d in result.diagnostics if d.fixes])
    return found


def _contexts(monkeypatch, paths: list[Path]) -> list[tuple]:
    """(deployment, its writer, its FixContext) of every deployment the fix stage is given
    (the writer is dropped after it)."""
    seen: list[tuple] = []
    complete = fixes.complete

    def watched(findings, deployment, context) -> None:
        seen.append((deployment, deployment.writer, context))
        complete(findings, deployment, context)

    monkeypatch.setattr(fixes, "complete", watched)
    _lint_all(paths)
    return seen


def test_a_locator_answers_each_token_as_a_fresh_one(monkeypatch):
    asked = 0
    for deployment, writer, context in _contexts(monkeypatch, MANIFESTS):
        if not hasattr(writer, "items"):
            continue
        source = Source(context.text, deployment.file)
        kept = Locator(source, context.document)
        tokens = [t for item in writer.items for t in (item.word, *item.values)]
        for token in tokens + tokens[::-1]:  # each asked twice, the second time kept
            fresh = Locator(source, context.document)._site(token)
            assert kept.site(token) == fresh
            asked += 1
    assert asked > 100


def test_a_token_is_located_once_a_locator(monkeypatch):
    worked: list[object] = []
    site = Locator._site

    def counted(self, token):
        worked.append(token)
        return site(self, token)

    monkeypatch.setattr(Locator, "_site", counted)
    for deployment, writer, context in _contexts(monkeypatch, MANIFESTS):
        if not hasattr(writer, "items") or not writer.items:
            continue
        locator = Locator(Source(context.text, deployment.file), context.document)
        token = writer.items[0].word
        before = len(worked)
        first = locator.site(token)
        assert locator.site(token) is first
        assert len(worked) == before + 1
        return
    raise AssertionError("no command line among the manifests")


def test_the_fixes_are_those_of_sites_worked_out_each_time(monkeypatch):
    for path in MANIFESTS:  # each file both ways in turn (a run's catalog state is shared)
        kept = _lint_all([path])
        with monkeypatch.context() as patched:
            patched.setattr(Locator, "site", Locator._site)
            assert _lint_all([path]) == kept, path


NGRAM_FROM_DRAFT = """
gpu: {type: H100}
model: {name: meta-llama/Llama-3.1-8B-Instruct}
serving: {max_model_len: 8192}
speculative:
  method: draft_model
  model: meta-llama/Llama-3.2-1B-Instruct
  num_speculative_tokens: 4
  quantization: none  # the drafter's own
"""


def _every_key_removed(writer: FieldWriter, source: Source, locator: Locator) -> list:
    """FieldWriter.edits' removals for a weightless method, each key of the drafter asked."""
    removals = []
    for key in NATIVE_DRAFT_ONLY_KEYS:
        removal = writer._removal((*writer.root, "speculative", key), source, locator)
        assert removal is not False
        if removal is not None:
            removals.append(removal)
    return sorted(removals, key=lambda e: (e.line, e.column))


def test_a_weightless_drafter_removes_the_keys_written(monkeypatch):
    text = manifest(NGRAM_FROM_DRAFT)
    [document], _ = load_documents(text)
    writer, source = FieldWriter(), Source(text, "m.yaml")
    locator = Locator(source, document)
    removed = _every_key_removed(writer, source, locator)
    assert len(removed) == 2  # model and quantization
    asked: list[tuple] = []
    removal = FieldWriter._removal

    def counted(self, path, source, locator):
        asked.append(path[-1])
        return removal(self, path, source, locator)

    monkeypatch.setattr(FieldWriter, "_removal", counted)
    edits = writer.edits({"speculative.method": "ngram"}, source, locator)
    assert edits[1:] == removed
    assert sorted(asked) == ["model", "quantization"]  # not the keys the section leaves out
