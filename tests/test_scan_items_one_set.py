"""engines.args.scan makes its Items with engines.args._item, which gives a new Item its five
fields as its __dict__ in one object.__setattr__ call instead of calling Item's __init__ (five
such calls): the records are those Item(...) makes, by equality, hash, repr, fields, pickling
and dataclasses.replace, and a field reads the same."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from hbmlint.engines import args, sglang, vllm
from hbmlint.engines.args import Item, Token, scan
from hbmlint.yamlsrc import Span

SPAN = Span(3, 5, 3, 9)
WORD = Token("--tensor-parallel-size", SPAN)
VALUE = Token("2", Span(3, 10, 3, 11))
FLAG = vllm.FLAGS.lookup("--tensor-parallel-size")

CASES = [
    (None, "", Token("Qwen/Qwen3-8B", SPAN)),
    (None, "--unknown", WORD),
    (FLAG, "--tensor-parallel-size", WORD, VALUE, (VALUE,)),
    (FLAG, "--tp", WORD, None, ()),
    (None, "--x", WORD, VALUE, (VALUE, WORD)),
]


@pytest.mark.parametrize("parts", CASES)
def test_item_is_the_constructors(parts):
    made, constructed = args._item(*parts), Item(*parts)
    assert type(made) is Item
    assert made == constructed and constructed == made
    assert hash(made) == hash(constructed)
    assert repr(made) == repr(constructed)
    assert dataclasses.astuple(made) == dataclasses.astuple(constructed)
    assert [made.flag, made.name, made.word, made.value, made.values] == [
        constructed.flag,
        constructed.name,
        constructed.word,
        constructed.value,
        constructed.values,
    ]
    assert pickle.loads(pickle.dumps(made)) == constructed
    assert dataclasses.replace(made, name="--y") == dataclasses.replace(constructed, name="--y")
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.name = "--y"  # type: ignore[misc]


def test_scan_makes_items_without_init(monkeypatch):
    """scan no longer calls Item's __init__ (it did, once an item)."""
    calls = []
    init = Item.__init__

    def counted(self, *parts, **named):
        calls.append(parts)
        init(self, *parts, **named)

    monkeypatch.setattr(Item, "__init__", counted)
    words = [
        Token(text, SPAN) for text in ["Qwen/Qwen3-8B", "--tp", "2", "--enforce-eager", "--x=1"]
    ]
    for table in (vllm.FLAGS, sglang.FLAGS):
        items = scan(words, table)
        assert len(items) == 4
        assert all(type(item) is Item for item in items)
    assert calls == []
