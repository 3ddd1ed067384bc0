"""A record without a docstring gets the standard library's ("Name(signature)"), worked out when
first read rather than when the class is made: the same text, from the class or an instance,
and a class made from it keeps its own docstring (or none), as with the standard library's."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from hbmlint import records


def make(decorator, **options):
    @decorator(**options)
    class Point:
        x: int
        y: int = 0
        tags: list = dataclasses.field(default_factory=list)

    return Point


OPTIONS = [{}, {"frozen": True}, {"slots": True}, {"frozen": True, "slots": True}]


@pytest.mark.parametrize("options", OPTIONS, ids=repr)
def test_the_standard_librarys_text(options):
    standard, ours = make(dataclasses.dataclass, **options), make(records.dataclass, **options)
    assert ours(1).__doc__ == standard(1).__doc__  # read from an instance first
    assert ours.__doc__ == standard.__doc__
    assert inspect.getdoc(ours) == inspect.getdoc(standard)


def test_worked_out_when_first_read_and_kept(monkeypatch):
    calls = []
    real = inspect.signature

    def counted(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(records.inspect, "signature", counted)
    ours = make(records.dataclass)
    assert calls == []
    assert ours.__doc__ == "Point(x: 'int', y: 'int' = 0, tags: 'list' = <factory>)"
    assert ours.__doc__ == vars(ours)["__doc__"]  # kept as text
    assert len(calls) == 1


def test_subclasses_keep_their_own():
    ours = make(records.dataclass)

    class Plain(ours):
        pass

    class Documented(ours):
        """Mine."""

    @records.dataclass
    class Record(ours):
        z: int = 0

    standard = make(dataclasses.dataclass)

    @dataclasses.dataclass
    class StandardRecord(standard):
        z: int = 0

    assert Plain.__doc__ is None
    assert Documented.__doc__ == "Mine."
    assert Record.__doc__ == StandardRecord.__doc__.replace("StandardRecord", "Record")
    assert ours.__doc__ == standard.__doc__
