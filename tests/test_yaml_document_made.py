"""The documents load_documents and load_documents_without_positions make (yamlsrc._document,
without the dataclass's __init__) are what YamlDocument(data=..., index=..., text=...) makes:
the same attributes in the same order, equal, replaced and pickled alike, on every file of the
fixtures and examples."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

import pytest

from hbmlint.yamlsrc import (
    YamlDocument,
    _document,
    load_documents,
    load_documents_without_positions,
)

TESTS = Path(__file__).parent
FILES = sorted(
    path
    for folder in (TESTS / "fixtures", TESTS.parent / "examples")
    for path in folder.rglob("*")
    if path.suffix in (".yaml", ".yml")
)


def _attributes(document: YamlDocument) -> list[tuple[str, object]]:
    return [(k, v) for k, v in vars(document).items() if k != "_tree"]


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_each_document_is_what_the_dataclass_makes(path):
    text = path.read_text(encoding="utf-8")
    documents, _ = load_documents(text)
    plain = load_documents_without_positions(text) or []
    for document in [*documents, *plain]:
        made = YamlDocument(data=document.data, index=document.index, text=text)
        assert type(document) is YamlDocument
        # the same attributes in the same order; the maps are the positions recorded so far
        # (none until asked for, where the document keeps its node tree)
        assert [k for k, _ in _attributes(document)] == [k for k, _ in _attributes(made)]
        for (key, value), (_, expected) in zip(
            _attributes(document), _attributes(made), strict=True
        ):
            if key not in ("_spans", "_key_spans"):
                assert value is expected or value == expected, key
            elif document.__dict__.get("_tree") is not None:
                assert value == {}, key


def test_a_made_document_equals_replaces_and_pickles_as_the_dataclasss():
    made = _document({"a": [1, 2.5, True]}, 3, "a: [1, 2.5, true]\n")
    plain = YamlDocument(data={"a": [1, 2.5, True]}, index=3, text="a: [1, 2.5, true]\n")
    assert made == plain
    assert repr(made) == repr(plain)
    assert vars(made) == vars(plain)
    assert dataclasses.replace(made, index=4) == dataclasses.replace(plain, index=4)
    assert pickle.loads(pickle.dumps(made)) == plain
    made.spans = {("a",): None}
    assert made.spans == {("a",): None} and made.key_spans == {}
