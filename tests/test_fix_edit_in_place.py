"""Fix verification reads an edit inside one scalar back from the document's data, with that
scalar changed, instead of composing the edited file again; the fixes are the same either way,
and an edit that does not read as intended is still refused.

The manifest is tests/fixtures/fixes/k8s-llama8b-l4-long-context.yaml (its header names the
pattern: the GKE and vLLM production-stack samples' Deployments, flags as list items, numbers
quoted): HBM102's first fix lowers ``- "131072"   # the model's full context`` in place."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import REPO

from hbmlint import lint, yamlsrc
from hbmlint.diagnostics import Edit
from hbmlint.fixes import FixContext, apply
from hbmlint.formats import kubernetes
from hbmlint.rules import load_rules

FIXTURE = REPO / "tests" / "fixtures" / "fixes" / "k8s-llama8b-l4-long-context.yaml"
TEXT = FIXTURE.read_text()


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _lint(rules, tmp_path: Path, text: str, monkeypatch) -> tuple[object, list[str]]:
    """The lint of ``text`` and the edited texts fix verification composed in full."""
    path = tmp_path / "llama-8b.yaml"
    path.write_text(text)
    composed: list[str] = []
    compose = lint.load_documents_without_positions

    def counted(edited: str):
        composed.append(edited)
        return compose(edited)

    monkeypatch.setattr(lint, "load_documents_without_positions", counted)
    return lint.lint_file(path, "llama-8b.yaml", rules), composed


def _lower_max_len(result):
    [finding] = [d for d in result.diagnostics if d.code == "HBM102"]
    return finding.fixes[0]


def test_an_edit_of_one_quoted_scalar_is_read_from_data(rules, tmp_path, monkeypatch):
    result, composed = _lint(rules, tmp_path, TEXT, monkeypatch)
    fix = _lower_max_len(result)
    [edit] = fix.edits
    assert (edit.line, edit.column, edit.end_line, edit.end_column) == (30, 15, 30, 23)
    assert edit.replacement == '"31504"'
    assert composed == []  # checked without composing the edited file
    # and the edit does what the fix says: the edited file lints without HBM102
    edited, applied = apply(TEXT, "llama-8b.yaml", [fix])
    assert applied == [fix]
    assert '- "31504"   # the model\'s full context' in edited
    again, _ = _lint(rules, tmp_path, edited, monkeypatch)
    assert not [d for d in again.diagnostics if d.code == "HBM102"]


def test_the_fixes_are_those_of_composing_every_edit(rules, tmp_path, monkeypatch):
    from_data, _ = _lint(rules, tmp_path, TEXT, monkeypatch)
    monkeypatch.setattr(lint, "_data_reader", lambda *args: None)  # every edit composed
    composed_in_full, composed = _lint(rules, tmp_path, TEXT, monkeypatch)
    assert len(composed) == 1
    assert [d.fixes for d in from_data.diagnostics] == [
        d.fixes for d in composed_in_full.diagnostics
    ]


def _context(text: str) -> tuple[FixContext, list[str]]:
    [document], error = yamlsrc.load_documents(text)
    assert error is None
    path = Path("llama-8b.yaml")
    [deployment], _ = kubernetes.to_deployments(document, path, "llama-8b.yaml")
    composed: list[str] = []
    reread = lint._rereader(text, kubernetes, path, "llama-8b.yaml", document)

    def counted(edited: str):
        composed.append(edited)
        return reread(edited)

    read_data = lint._data_reader(kubernetes, path, "llama-8b.yaml", document)
    return FixContext(text, document, counted, 0, deployment, read_data), composed


def test_an_edit_that_does_not_read_as_intended_is_still_refused():
    context, composed = _context(TEXT)
    lower = [Edit("llama-8b.yaml", 30, 15, 30, 23, '"31504"')]
    assert context.reads_as(lower, {"serving.max_model_len": 31504}, "llama-8b.yaml")
    assert not context.reads_as(lower, {"serving.max_model_len": 4096}, "llama-8b.yaml")
    assert composed == []
    # a changed word that no longer reads as one scalar: composed in full, and refused
    unclosed = [Edit("llama-8b.yaml", 30, 15, 30, 23, '"31504')]
    assert not context.reads_as(unclosed, {"serving.max_model_len": 31504}, "llama-8b.yaml")
    joined = [Edit("llama-8b.yaml", 30, 15, 30, 23, '"31504", "--x"')]
    assert not context.reads_as(joined, {"serving.max_model_len": 31504}, "llama-8b.yaml")
    assert len(composed) == 2
    # the flag's own word changed: the scalar reads as another flag, refused from data
    renamed = [Edit("llama-8b.yaml", 29, 15, 29, 30, "--max-num-seqs")]
    assert not context.reads_as(renamed, {"serving.max_model_len": 131072}, "llama-8b.yaml")
    assert len(composed) == 2


@pytest.mark.parametrize(
    "changed",
    [
        # an anchor and an alias: a value may stand in several places
        lambda text: text.replace("app: llama-8b\nspec:", "app: &app llama-8b\nspec:").replace(
            "      app: llama-8b\n  template", "      app: *app\n  template"
        ),
        # a tag on the scalar: its value is not the plain text's
        lambda text: text.replace('- "131072"', '- !!str "131072"'),
        # CR LF line breaks: lines as YAML counts them
        lambda text: text.replace("\n", "\r\n"),
    ],
    ids=["alias", "tag", "crlf"],
)
def test_an_edit_where_the_file_may_read_otherwise_is_composed_in_full(changed):
    text = changed(TEXT)
    context, composed = _context(text)
    [line] = [n for n, words in enumerate(text.splitlines(), 1) if '"131072"' in words]
    column = text.splitlines()[line - 1].index('"131072"') + 1
    lower = [Edit("llama-8b.yaml", line, column, line, column + 8, '"31504"')]
    context.reads_as(lower, {"serving.max_model_len": 31504}, "llama-8b.yaml")
    assert len(composed) == 1


def test_a_file_that_does_not_load_whole_composes_every_edit(rules, tmp_path, monkeypatch):
    # a second document with a YAML error: the edited file does not load either, so the edit
    # is not offered (as before edits were read from data), and it was composed to know that
    broken = TEXT + "---\nkind: ConfigMap\ndata: [unclosed\n"
    result, composed = _lint(rules, tmp_path, broken, monkeypatch)
    fix = _lower_max_len(result)
    assert fix.edits == ()
    assert len(composed) == 1
