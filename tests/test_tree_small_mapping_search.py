"""A document's tree finds a key of a small mapping (a container, metadata) by looking through
its pairs, without making the mapping's dict of pairs by key (most of finding a position in a
Kubernetes Deployment): every answer must be the one the recorded maps give, whichever keys of
the mapping are written twice and in whatever order a reader asks."""

from __future__ import annotations

import itertools

import pytest

from hbmlint import yamlsrc
from hbmlint.yamlsrc import load_documents

# a container whose `args:` is written twice (the second is the value, as in the data), beside
# keys written once; a mapping of more pairs than the search looks through; an empty mapping
TEXT = """\
spec:
  containers:
    - name: vllm
      image: vllm/vllm-openai:latest
      args: [a, b]
      env: {A: "1"}
      args:
        - c
        - d
        - e
      resources: {limits: {nvidia.com/gpu: 2}}
  empty: {}
  wide:
""" + "".join(f"    k{i}: {i}\n" for i in range(yamlsrc._SCANNED + 3))

CONTAINER = ("spec", "containers", 0)
ASKED = [
    (*CONTAINER, "image"),
    (*CONTAINER, "args"),
    (*CONTAINER, "args", 2),
    (*CONTAINER, "env", "A"),
    (*CONTAINER, "resources", "limits", "nvidia.com/gpu"),
    (*CONTAINER, "missing"),
    ("spec", "empty"),
    ("spec", "empty", "x"),
    ("spec", "wide", "k3"),
    ("spec", "wide", f"k{yamlsrc._SCANNED + 2}"),
    ("spec", "wide", "none"),
]


def _recorded():
    (document,), _ = load_documents(TEXT)
    document.spans  # noqa: B018 - reading the map records it
    return document


@pytest.mark.parametrize("order", list(itertools.permutations(range(4))) + [None])
def test_answers_are_the_recorded_ones_in_any_order(order):
    recorded = _recorded()
    (document,), _ = load_documents(TEXT)
    asked = ASKED if order is None else [ASKED[i] for i in order] + ASKED[4:]
    for path in asked:
        assert document.span(path) == recorded.span(path), path
        assert document.key_span(path) == recorded.key_span(path), path
        assert document.recorded(path) == (recorded.key_spans.get(path), recorded.spans.get(path))
    assert document.item_spans((*CONTAINER, "args")) in (
        None,  # the repeated key made the document record its maps
        [recorded.span((*CONTAINER, "args", i)) for i in range(3)],
    )


def test_a_key_written_once_is_found_in_the_tree_without_the_mappings_dict():
    (document,), _ = load_documents(TEXT)
    tree = document._tree
    # a key written once beside one written twice: found in the tree, as the recorded map has it
    assert document.span((*CONTAINER, "image")) == _recorded().span((*CONTAINER, "image"))
    assert document._tree is tree
    assert tree._keys == {}  # no small mapping's dict made
    # the repeated key itself: the document's spans are recorded, its last value's answered
    assert document.span((*CONTAINER, "args", 0)).line == 8
    assert document._tree is None


def test_a_wide_mapping_is_looked_up_through_its_dict():
    (document,), _ = load_documents(TEXT)
    tree = document._tree
    assert document.span(("spec", "wide", "k4")).line == 18
    assert len(tree._keys) == 1  # the wide mapping's, once
    assert document.span(("spec", "wide", "k5")).line == 19
    assert len(tree._keys) == 1
