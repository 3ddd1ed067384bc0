"""Making a record class writes no __init__ text: records writes it (records._init_text) when
the __init__ is first used, once, with the same text, namespace and defaults as before; a field
order the standard library refuses is still refused when the class is made. The names a record
prints, compares and hashes, found in one pass over its fields, are the standard library's."""

from __future__ import annotations

import dataclasses

import pytest

from hbmlint import records


def test_no_text_until_first_use(monkeypatch):
    written = []
    real = records._init_text
    monkeypatch.setattr(records, "_init_text", lambda *a: written.append(a[0]) or real(*a))

    @records.dataclass(frozen=True)
    class Point:
        x: int
        y: list = dataclasses.field(default_factory=list)

    assert written == []
    lazy = Point.__dict__["__init__"]
    assert isinstance(lazy, records._LazyInit) and "parts" not in vars(lazy)
    assert Point(1) == Point(1, [])
    assert written == [Point]
    source, namespace, qualname, annotations = lazy.parts
    assert Point.__init__.__globals__ is namespace
    assert source == (
        "def __init__(self, x, y=_record_factory):\n"
        "    _record_set(self, 'x', x)\n"
        "    _record_set(self, 'y', _record_default_y() if y is _record_factory else y)"
    )
    assert qualname.endswith("Point.__init__") and annotations["return"] is None
    Point(2)
    assert written == [Point]  # written once


def test_mutable_record_text_and_post_init():
    @records.dataclass
    class Box:
        a: int
        b: int = 3
        c: int = dataclasses.field(default=0, init=False)

        def __post_init__(self) -> None:
            self.c = self.a + self.b

    assert Box(1).c == 4 and Box(1, 1).c == 2
    source = Box.__init__.__code__
    assert source.co_varnames[:3] == ("self", "a", "b")
    assert Box.__init__.__defaults__ == (3,)


def test_field_order_refused_when_the_class_is_made():
    with pytest.raises(TypeError, match="non-default argument 'y' follows default argument"):

        @records.dataclass(frozen=True)
        class Bad:
            x: int = 0
            y: int  # type: ignore[misc]


def test_an_init_false_field_does_not_count_for_the_order():
    @records.dataclass
    class Fine:
        x: int = 0
        y: int = dataclasses.field(default=1, init=False)
        z: int = 2

    assert Fine(5, 6).z == 6 and Fine().y == 1


def _flags(dataclass):
    @dataclass(frozen=True)
    class Flags:
        a: int
        hidden: int = dataclasses.field(default=1, repr=False)
        ignored: int = dataclasses.field(default=2, compare=False)
        unhashed: int = dataclasses.field(default=3, hash=False)
        hashed_only: int = dataclasses.field(default=4, compare=False, hash=True)

    return Flags


def test_printed_compared_and_hashed_fields_as_the_standard_library_chooses():
    ours, theirs = _flags(records.dataclass), _flags(dataclasses.dataclass)
    for values in [(1,), (1, 5, 6, 7, 8), (2, 1, 9, 3, 4)]:
        mine, standard = ours(*values), theirs(*values)
        assert repr(mine).split("(", 1)[1] == repr(standard).split("(", 1)[1]
        assert hash(mine) == hash(standard)
    assert ours(1, ignored=9) == ours(1) and ours(1, hashed_only=9) == ours(1)
    assert ours(1, unhashed=9) != ours(1)
    assert hash(ours(1, unhashed=9)) == hash(ours(1))
    assert hash(ours(1, hashed_only=9)) != hash(ours(1))
