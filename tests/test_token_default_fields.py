"""A Token without unresolved variables keeps the class's ``unresolved`` (``()``) and
``readable`` (True) instead of setting them on every word (two object.__setattr__ calls fewer a
word of every command line): equal, hashed, printed, pickled and replaced as one that holds
them."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from hbmlint.engines.args import Token
from hbmlint.yamlsrc import Span


def test_a_word_without_variables_sets_only_its_text_and_span():
    word = Token("--max-model-len", Span(3, 7))
    assert vars(word) == {"text": "--max-model-len", "span": Span(3, 7)}
    assert word.unresolved == () and word.readable is True
    unread = Token("$(LEN)", Span(3, 7), ("LEN is not set",))
    assert vars(unread)["unresolved"] == ("LEN is not set",)
    assert vars(unread)["readable"] is False


def test_a_word_reads_as_one_that_holds_its_defaults():
    at = Span(3, 7)
    word = Token("8192", at)
    explicit = Token("8192", at, tuple())
    assert word == explicit and hash(word) == hash(explicit) and repr(word) == repr(explicit)
    assert word == Token(text="8192", span=at, unresolved=())
    assert pickle.loads(pickle.dumps(word)) == word
    assert pickle.loads(pickle.dumps(word)).readable is True
    assert dataclasses.replace(word, unresolved=("X is not set",)).readable is False
    back = dataclasses.replace(Token("$X", at, ("X is not set",)), unresolved=())
    assert back.readable is True and back == word.__class__("$X", at)
    assert dataclasses.astuple(word) == ("8192", (3, 7, None, None), ())
    # any other empty sequence is kept as given, as the dataclass's own __init__ would
    listed = Token("8192", at, [])  # type: ignore[arg-type]
    assert listed.unresolved == [] and listed.readable is True and listed != word
    with pytest.raises(dataclasses.FrozenInstanceError):
        word.readable = False  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        word.unresolved = ("x",)  # type: ignore[misc]
