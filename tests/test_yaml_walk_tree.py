"""yamlsrc._walk_tree, the walk of a document without aliases (most files), builds what the walk
that records every node met builds and what PyYAML's safe loader builds, types included (1,
1.0, True and "1" apart): on every file of the fixtures and examples, on scalars of every tag
as keys, values and items, and on what the tree walk leaves to PyYAML's constructor (merge
keys, tags without a safe constructor)."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from hbmlint import yamlsrc
from hbmlint.yamlsrc import load_documents

TESTS = Path(__file__).parent
FILES = sorted(
    path
    for folder in (TESTS / "fixtures", TESTS.parent / "examples")
    for path in folder.rglob("*")
    if path.suffix in (".yaml", ".yml")
)


def _typed(data: Any) -> Any:
    """``data`` with every value's type beside it, so equal values of other types differ."""
    if isinstance(data, dict):
        return ("dict", [(_typed(k), _typed(v)) for k, v in data.items()])
    if isinstance(data, list):
        return ("list", [_typed(item) for item in data])
    if isinstance(data, float) and data != data:
        return ("float", "nan")
    return (type(data).__name__, data)


def _both_walks(text: str) -> list[tuple[Any, Any]]:
    """Each document's data from the tree walk and from the walk that records nodes met."""
    found = []
    loader = yamlsrc._Loader(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            found.append(
                (
                    yamlsrc._walk_tree(loader, node, yamlsrc.MAX_DEPTH),
                    yamlsrc._walk(loader, node, yamlsrc.MAX_DEPTH, set()),
                )
            )
    finally:
        loader.dispose()
    return found


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_file_walks_as_pyyaml_builds_it(path):
    text = path.read_text(encoding="utf-8")
    if "*" in text:
        pytest.skip("aliases: the recording walk reads it")
    try:
        expected = list(yaml.load_all(text, Loader=yaml.SafeLoader))
    except yaml.YAMLError:
        pytest.skip("not YAML PyYAML loads")
    documents, error = load_documents(text)
    assert error is None
    assert [_typed(d.data) for d in documents] == [_typed(e) for e in expected]
    for tree, recorded in _both_walks(text):
        if tree is not yamlsrc._Unbuilt:
            assert _typed(tree) == _typed(recorded)


SCALARS = [
    "1",
    "-7",
    "0x1F",
    "0o17",
    "1_000",
    "1.5",
    "1e3",
    ".inf",
    "-.inf",
    ".nan",
    "-0.0",
    "true",
    "False",
    "yes",
    "no",
    "on",
    "~",
    "null",
    "",
    "2026-12-02",
    "2026-12-02 10:00:00",
    "text",
    '"1"',
    "'true'",
    "!!str 1",
    "!!int '3'",
    "!!float '2'",
    "!!bool 'true'",
    "!!null ''",
    "2026-13-45",
    "!!binary aGVsbG8=",
]


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(SCALARS),
    st.sampled_from(SCALARS),
    st.sampled_from(SCALARS),
    st.sampled_from(["block", "flow"]),
)
def test_scalars_of_every_tag_as_key_value_and_item(key, value, item, style):
    if style == "block":
        text = f"{key or 'k'}: {value}\nlist:\n  - {item}\n  - [{item}]\nnested:\n  a: {value}\n"
    else:
        text = f"{{{key or 'k'}: {value}, list: [{item}, {{x: {item}}}], nested: {{a: {value}}}}}\n"
    try:
        expected = yaml.load(text, Loader=yaml.SafeLoader)
    except (yaml.YAMLError, ValueError):
        expected = None  # refused by PyYAML (2026-13-45): compare the two walks only
    try:
        [(tree, recorded)] = _both_walks(text)
    except yaml.YAMLError:
        return  # not YAML (an empty flow item): no walk is made
    if tree is yamlsrc._Unbuilt:
        assert recorded is yamlsrc._Unbuilt
        return
    assert _typed(tree) == _typed(recorded)
    if expected is not None and not any(
        isinstance(v, (datetime.date, bytes)) for v in _leaves(expected)
    ):
        assert _typed(tree) == _typed(expected)


def _leaves(data: Any) -> list[Any]:
    if isinstance(data, dict):
        return [leaf for k, v in data.items() for leaf in _leaves(k) + _leaves(v)]
    if isinstance(data, list):
        return [leaf for item in data for leaf in _leaves(item)]
    return [data]


@pytest.mark.parametrize(
    "text",
    [
        "base: &b {x: 1}\nother:\n  <<: {y: 2}\n  z: 3\n",  # a merge key (no alias)
        "a: !!set {x, y}\n",  # a tag the walk does not build
        "a: !!omap [{x: 1}]\n",
        "a: !!pairs [{x: 1}]\n",
        "root: {a: {b: {c: [1, 2, {d: 4.5}]}}}\n",
    ],
)
def test_what_the_tree_walk_leaves_to_pyyaml_loads_as_pyyaml_loads_it(text):
    documents, error = load_documents(text)
    assert error is None
    expected = yaml.load(text, Loader=yaml.SafeLoader)
    assert _typed(documents[0].data) == _typed(expected)
    [(tree, recorded)] = _both_walks(text)
    assert (tree is yamlsrc._Unbuilt) is (recorded is yamlsrc._Unbuilt)


def test_a_document_nested_too_deeply_is_refused_by_the_tree_walk():
    depth = yamlsrc.MAX_DEPTH + 1
    text = "[" * depth + "]" * depth + "\n"
    documents, error = load_documents(text)
    assert error is not None and "nested more than" in error.message
