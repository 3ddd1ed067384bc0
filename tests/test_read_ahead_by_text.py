"""The texts a run reads ahead (lint.shared_objects) are kept by each path's text, str(path),
which a Path keeps once made, not by the Path, whose hash is worked out from its case-folded
parts the first time it is asked; lint_file takes each text back under the same key, so a file
of the run is still read once and linted from the text read."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint import files, lint
from hbmlint.rules import load_rules

MANIFEST = """\
apiVersion: hbmlint/v1
kind: ServingManifest
metadata:
  name: {name}
spec:
  engine: vllm
  gpu: {{type: H100, count: 1}}
  model: {{name: meta-llama/Llama-3.1-8B-Instruct}}
"""


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


@pytest.fixture
def items(tmp_path):
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.yaml").write_text(MANIFEST.format(name=name))
    return list(lint.discover([str(tmp_path)]))


def test_texts_are_kept_by_the_paths_text(items):
    texts: dict[str, str] = {}
    lint.shared_objects(items, texts)
    assert list(texts) == [str(path) for path, _ in items]
    assert all(type(key) is str for key in texts)
    assert [texts[str(path)] for path, _ in items] == [path.read_text() for path, _ in items]


def test_lint_file_takes_the_text_kept_under_its_paths_text(items, rules, monkeypatch):
    folder = items[0][0].parent
    read_text = files.read_text

    def unread(path, *args, **kwargs):
        assert Path(path).parent != folder, f"{path} read again"
        return read_text(path, *args, **kwargs)  # the catalogs' own reads

    texts: dict[str, str] = {}
    lint.shared_objects(items, texts)
    monkeypatch.setattr(files, "read_text", unread)
    monkeypatch.setattr(lint, "_read_ahead", texts)
    # a Path made again from the same text finds its file's text
    results = [lint.lint_file(Path(str(path)), display, rules) for path, display in items]
    assert texts == {}  # each taken once
    assert [r.deployments[0].deployment.name for r in results] == ["a", "b", "c"]


def test_a_run_reads_each_file_once_and_lets_go_of_the_texts(items, rules, monkeypatch):
    reads: list[str] = []
    read_text = files.read_text

    def counted(path, *args, **kwargs):
        if str(path).endswith(".yaml") and Path(path).parent == items[0][0].parent:
            reads.append(Path(path).name)
        return read_text(path, *args, **kwargs)

    monkeypatch.setattr(files, "read_text", counted)
    results = lint.lint_many(items, rules, lint.LintOptions())
    assert sorted(reads) == ["a.yaml", "b.yaml", "c.yaml"]
    assert [r.display for r, _ in results] == [display for _, display in items]
    assert lint._read_ahead == {}
