"""yamlsrc._Loader.resolve gives every node the tag PyYAML's resolver gives it: a plain scalar's
text is looked up among the texts met before, else resolved and remembered (a short text, while
there is room), and the answer is the same the first time and every later time."""

from __future__ import annotations

import pytest
import yaml

from hbmlint import yamlsrc

TEXTS = [
    *("", "~", "null", "Null", "NULL", "n", "no", "No", "yes", "on", "OFF", "true", "False"),
    *("0", "12", "-3", "+4", "0x1f", "0o17", "0b101", "1_000", "1:30", "012", "09"),
    *("1.5", ".5", "-.inf", ".NaN", "1e3", "6.8523015e+5", "1_0.5"),
    *("2026-12-03", "2026-12-03T10:00:00Z", "2026-13-45", "<<", "=", "-", "."),
    *("vllm", "name", "tensor", "meta-llama/Llama-3.1-8B-Instruct", "nvidia.com/gpu", "8Gi"),
    "x" * 80,
    "1" * 81,
    "y" * 200,
]


def _expected(text: str) -> str:
    return yaml.resolver.Resolver().resolve(yaml.ScalarNode, text, (True, False))


@pytest.fixture
def forgetting(monkeypatch):
    monkeypatch.setattr(yamlsrc, "_PLAIN_TAGS", {})
    return yamlsrc._PLAIN_TAGS


def test_each_plain_text_gets_the_resolvers_tag_first_and_later(forgetting):
    loader = yamlsrc._Loader("")
    for _ in range(2):
        for text in TEXTS:
            assert loader.resolve(yaml.ScalarNode, text, (True, False)) == _expected(text), text
    assert set(forgetting) == {text for text in TEXTS if len(text) <= 80}


def test_a_full_memo_still_resolves(monkeypatch, forgetting):
    monkeypatch.setattr(yamlsrc, "_MAX_REMEMBERED", 3)
    loader = yamlsrc._Loader("")
    for text in TEXTS:
        assert loader.resolve(yaml.ScalarNode, text, (True, False)) == _expected(text), text
    assert len(forgetting) == 3


def test_quoted_scalars_and_collections_take_their_kinds_default():
    loader = yamlsrc._Loader("")
    assert loader.resolve(yaml.ScalarNode, "12", (False, True)) == yamlsrc._STR
    assert loader.resolve(yaml.MappingNode, None, True) == yamlsrc._MAP
    assert loader.resolve(yaml.SequenceNode, None, False) == yamlsrc._SEQ


def test_documents_load_as_pyyaml_loads_them():
    unloadable = ("<<", "=", "-", "2026-13-45")  # refused by PyYAML as a value
    text = "\n".join(f"k{i}: {t}" for i, t in enumerate(TEXTS) if t not in unloadable)
    assert yamlsrc.load_plain(text) == yaml.safe_load(text)
    documents, error = yamlsrc.load_documents(text)
    assert error is None and documents[0].data == yaml.safe_load(text)
