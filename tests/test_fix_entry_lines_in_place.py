"""Fix verification reads an edit that adds a ``key: value`` line to a block mapping, or deletes
one, back from the document's data with that entry added or deleted, instead of composing the
edited file again (as it does for an edit inside one scalar: tests/test_fix_edit_in_place.py).
The fixes are the same either way; an edit where that is not sure is composed in full.

The manifest is hbmlint's own format with a draft model, as in speed.py's generated corpus:
HBM202 offers ``quantization: fp8`` added to ``speculative:`` (a line added) and n-gram lookup
(``method`` changed and the ``model:`` line deleted)."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import pytest
from helpers import REPO

from hbmlint import lint, yamlsrc
from hbmlint.diagnostics import Edit
from hbmlint.fixes import FixContext
from hbmlint.formats import native
from hbmlint.rewrite import Source, apply_edits
from hbmlint.rules import load_rules

TEXT = """\
apiVersion: "hbmlint/v1"
kind: "ServingManifest"
metadata:
  name: "bench-00090-qwen3-32b"
spec:
  engine: "vllm"
  gpu:
    type: "L4"
    count: 4
  model:
    name: "Qwen/Qwen3-32B"
    quantization: "fp8"
  parallel:
    tensor: 4
  serving:
    max_num_seqs: 64
    gpu_memory_utilization: 0.85
  speculative:
    method: "draft_model"
    model: "Qwen/Qwen3-1.7B"
    num_speculative_tokens: 4
"""
FILE = "qwen.yaml"


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _lint(rules, path: Path, monkeypatch) -> tuple[object, list[str]]:
    """The lint of ``path`` and the edited texts fix verification composed in full."""
    composed: list[str] = []
    compose = lint.load_documents_without_positions

    def counted(edited: str):
        composed.append(edited)
        return compose(edited)

    monkeypatch.setattr(lint, "load_documents_without_positions", counted)
    return lint.lint_file(path, path.name, rules), composed


def _fixes(result) -> list:
    return [fix for d in result.diagnostics for fix in d.fixes]


def test_an_added_line_and_a_deleted_line_are_read_from_data(rules, tmp_path, monkeypatch):
    path = tmp_path / FILE
    path.write_text(TEXT)
    result, composed = _lint(rules, path, monkeypatch)
    by_setting = {fix.setting: fix for fix in _fixes(result) if fix.edits}
    quantize = by_setting["speculative.quantization: fp8"]
    [added] = quantize.edits
    assert added.replacement == "\n    quantization: fp8"
    ngram = by_setting["speculative.method: ngram"]
    assert [e.replacement for e in ngram.edits] == ['"ngram"', ""]
    assert composed == []  # every edit checked without composing the edited file
    # and the same fixes as composing every edited file
    monkeypatch.setattr(lint, "_data_reader", lambda *args: None)
    in_full, composed = _lint(rules, path, monkeypatch)
    assert len(composed) >= 2
    assert [d.fixes for d in result.diagnostics] == [d.fixes for d in in_full.diagnostics]


def _context(text: str) -> tuple[FixContext, list[str]]:
    [document], error = yamlsrc.load_documents(text)
    assert error is None
    path = Path(FILE)
    [deployment], _ = native.to_deployments(document, path, FILE)
    composed: list[str] = []
    reread = lint._rereader(text, native, path, FILE, document)

    def counted(edited: str):
        composed.append(edited)
        return reread(edited)

    read_data = lint._data_reader(native, path, FILE, document)
    return FixContext(text, document, counted, 0, deployment, read_data), composed


def _line(text: str, words: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if words in line)


def _add_after(text: str, words: str, entry: str) -> Edit:
    line = _line(text, words)
    end = len(text.splitlines()[line - 1]) + 1
    return Edit(FILE, line, end, line, end, entry)


def _delete(text: str, words: str) -> Edit:
    line = _line(text, words)
    return Edit(FILE, line, 1, line + 1, 1, "")


def test_an_entry_that_does_not_read_as_intended_is_still_refused():
    context, composed = _context(TEXT)
    add = [_add_after(TEXT, "num_speculative_tokens", "\n    quantization: fp8")]
    assert context.reads_as(add, {"speculative.quantization": "fp8"}, FILE)
    assert not context.reads_as(add, {"speculative.quantization": "int4"}, FILE)
    drop = [
        Edit(FILE, _line(TEXT, "draft_model"), 13, _line(TEXT, "draft_model"), 26, '"ngram"'),
        _delete(TEXT, '"Qwen/Qwen3-1.7B"'),
    ]
    assert context.reads_as(drop, {"speculative.method": "ngram"}, FILE)
    assert not context.reads_as(drop[1:], {"speculative.method": "ngram"}, FILE)
    assert composed == []


@pytest.mark.parametrize(
    ("text", "edit"),
    [
        # added after an entry that is not the mapping's last
        (TEXT, lambda text: _add_after(text, '"draft_model"', "\n    quantization: fp8")),
        # added at another indentation: a key of another mapping, or no YAML
        (TEXT, lambda text: _add_after(text, "num_speculative", "\n      quantization: fp8")),
        # a key YAML reads as a boolean, not the text written
        (TEXT, lambda text: _add_after(text, "num_speculative", "\n    on: fp8")),
        # a value that is more than one token
        (TEXT, lambda text: _add_after(text, "num_speculative", "\n    quantization: a: b")),
        # deleted from a mapping that writes the key twice: the other one's value comes back
        (
            TEXT.replace('    method: "draft_model"', '    model: "x"\n    method: "draft_model"'),
            lambda text: _delete(text, '"Qwen/Qwen3-1.7B"'),
        ),
        # deleted from a flow mapping
        (
            TEXT.replace(
                '    method: "draft_model"\n    model: "Qwen/Qwen3-1.7B"\n'
                "    num_speculative_tokens: 4\n",
                '    {method: "draft_model",\n    model: "Qwen/Qwen3-1.7B",\n'
                "    num_speculative_tokens: 4}\n",
            ),
            lambda text: _delete(text, '"Qwen/Qwen3-1.7B"'),
        ),
        # the line holds a sequence item's dash before the key
        (
            TEXT + "  extra:\n    - a: 1\n      b: 2\n",
            lambda text: _delete(text, "- a: 1"),
        ),
        # a CR in a quoted scalar: a line break to YAML
        (
            TEXT,
            lambda text: Edit(
                FILE, _line(text, "draft_model"), 13, _line(text, "draft_model"), 26, '"a\rb"'
            ),
        ),
    ],
    ids=["not-last", "indent", "bool-key", "two-tokens", "repeated-key", "flow", "dash", "cr"],
)
def test_a_line_where_the_file_may_read_otherwise_is_composed_in_full(text, edit):
    [document], error = yamlsrc.load_documents(text)
    assert error is None
    path = Path(FILE)
    read_data = lint._data_reader(native, path, FILE, document)
    context = FixContext(text, document, lambda edited: None, 0, None, read_data)
    assert context._edited_data([edit(text)]) is None


def _canonical(data):
    """``data`` with its types and its mappings' order, which == does not compare."""
    kind = type(data)
    if kind is dict:
        return ("map", [(_canonical(k), _canonical(v)) for k, v in data.items()])
    if kind is list:
        return ("seq", [_canonical(v) for v in data])
    return (kind.__name__, repr(data))


def _generated(directory: Path, monkeypatch) -> list[Path]:
    """speed.py's corpus: its first 300 files."""
    name = "hbmlint_speed_benchmark"
    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / "speed.py")
    speed = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, speed)  # its dataclasses look their module up
    spec.loader.exec_module(speed)
    return speed.generate(directory, 300)


def test_data_read_in_place_is_the_composed_data_for_every_fix(rules, tmp_path, monkeypatch):
    """Every edit read from data on the fixtures, the examples and a generated corpus: the
    data is what composing the edited text gives, types and order included."""
    checked: list[list[Edit]] = []
    edited_data = FixContext._edited_data

    def compared(self, edits):
        found = edited_data(self, edits)
        if found is not None:
            edited = apply_edits(self.text, Source(self.text, ""), edits)
            documents = yamlsrc.load_documents_without_positions(edited)
            assert documents is not None
            assert _canonical(documents[self.document.index].data) == _canonical(found[0])
            checked.append(edits)
        return found

    monkeypatch.setattr(FixContext, "_edited_data", compared)
    files = [
        path
        for root in (REPO / "tests" / "fixtures", REPO / "examples")
        for path in sorted(root.rglob("*"))
        if path.suffix in (".yaml", ".yml")
    ]
    for path in files + _generated(tmp_path, monkeypatch):
        lint.lint_file(path, path.name, rules)
    shapes = {
        "added" if e.replacement.startswith("\n") else "deleted" if not e.replacement else "scalar"
        for edits in checked
        for e in edits
    }
    assert shapes == {"added", "deleted", "scalar"}
    assert any(len(edits) > 1 for edits in checked)


_KEYS = ["a", "c", "model", "on", "x_y", "1", "null", '"q"', "'s'", "k-2"]
_VALUES = ["1", "fp8", '"str"', "'s'", "true", "null", "1.5", "~", "[1, 2]", "{p: 1}", "a b", ""]


def _mapping(rng, depth: int, indent: int, lines: list[str]) -> None:
    """Block mappings of random entries: comments, blank lines, repeated keys, flow values."""
    for _ in range(rng.randint(1, 4)):
        key = rng.choice(_KEYS)
        if rng.random() < 0.08:
            lines.append(rng.choice(["", " " * indent + "# a comment"]))
        if depth < 2 and rng.random() < 0.3:
            lines.append(" " * indent + key + ":")
            _mapping(rng, depth + 1, indent + rng.choice([2, 4]), lines)
        else:
            colon = rng.choice([": ", ": ", " : "])
            comment = rng.choice(["", "", "  # c"])
            lines.append(" " * indent + key + colon + rng.choice(_VALUES) + comment)


def test_random_added_and_deleted_lines_read_from_data_as_composed():
    """Where an added or deleted line (and a changed scalar with it) is read from data, the
    data is what composing the edited text gives, on random block mappings."""
    rng = random.Random(19)
    from_data = 0
    for _ in range(1000):
        lines: list[str] = []
        _mapping(rng, 0, 0, lines)
        text = "\n".join(lines) + "\n"
        documents, error = yamlsrc.load_documents(text)
        if error is not None or len(documents) != 1:
            continue
        context = FixContext(text, documents[0], lambda edited: None, 0, None, lambda *a: None)
        edits = []
        for line in sorted(rng.sample(range(1, len(lines) + 1), min(2, len(lines)))):
            written = lines[line - 1]
            if rng.random() < 0.5:
                indent = " " * rng.choice([0, 2, 4])
                entry = f"\n{indent}{rng.choice(['a', 'zz', 'on'])}: {rng.choice(['1', 'x y'])}"
                edits.append(Edit(FILE, line, len(written) + 1, line, len(written) + 1, entry))
            elif rng.random() < 0.5 and ": " in written and "#" not in written:
                start = written.index(": ") + 2
                if start < len(written):
                    edit = Edit(
                        FILE, line, start + 1, line, len(written) + 1, rng.choice(["2", "n"])
                    )
                    edits.append(edit)
            else:
                edits.append(Edit(FILE, line, 1, line + 1, 1, ""))
        found = context._edited_data(edits)
        if found is None:
            continue
        from_data += 1
        edited = apply_edits(text, Source(text, ""), edits)
        [composed] = yamlsrc.load_documents_without_positions(edited)
        assert _canonical(composed.data) == _canonical(found[0]), (text, edits)
    assert from_data > 20
