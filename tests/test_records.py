"""hbmlint.records.dataclass against the standard library's: a record prints, compares and hashes
as a standard dataclass with the same fields and options does (its repr in test failures and
messages, its equality and hash in memos, sets and dict keys)."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
from collections.abc import Callable

import pytest

from hbmlint import records, spec, yamlsrc


def _plain(decorate: Callable, **options: object) -> type:
    @decorate(**options)
    class Point:
        x: int
        y: str = "a"

    return Point


def _one_field(decorate: Callable, **options: object) -> type:
    @decorate(**options)
    class Point:
        x: int

    return Point


def _no_fields(decorate: Callable, **options: object) -> type:
    @decorate(**options)
    class Point:
        pass

    return Point


def _field_options(decorate: Callable, **options: object) -> type:
    @decorate(**options)
    class Point:
        x: int
        hidden: int = dataclasses.field(default=0, repr=False)
        ignored: list = dataclasses.field(default_factory=list, compare=False)
        unhashed: int = dataclasses.field(default=0, hash=False)

    return Point


def _not_in_init(decorate: Callable, **options: object) -> type:
    @decorate(**options)
    class Point:
        x: int
        made: tuple = dataclasses.field(default_factory=tuple, init=False)
        plain: int = dataclasses.field(default=5, init=False)
        later: str = dataclasses.field(default="z", init=False)

        def __post_init__(self) -> None:
            object.__setattr__(self, "later", f"{self.x}+{len(self.made)}")

    return Point


SHAPES = [_plain, _one_field, _no_fields, _field_options, _not_in_init]
OPTIONS = [{}, {"frozen": True}, {"slots": True}, {"frozen": True, "slots": True}, {"eq": False}]


def _instances(cls: type, seed: int) -> list:
    """Three instances: two with equal values, one different in every field it takes."""
    names = [f.name for f in dataclasses.fields(cls) if f.init]
    value = {"x": seed, "y": str(seed), "hidden": seed, "ignored": [seed], "unhashed": seed}
    other = {
        name: (v + 1 if isinstance(v, int) else [9] if isinstance(v, list) else "b")
        for name, v in value.items()
    }
    return [
        cls(**{n: value[n] for n in names}),
        cls(**{n: value[n] for n in names}),
        cls(**{n: other[n] for n in names}),
    ]


@pytest.mark.parametrize("shape", SHAPES, ids=[s.__name__ for s in SHAPES])
@pytest.mark.parametrize("options", OPTIONS, ids=[repr(o) for o in OPTIONS])
def test_repr_eq_hash_as_the_standard_library(shape: Callable, options: dict) -> None:
    standard, ours = shape(dataclasses.dataclass, **options), shape(records.dataclass, **options)
    assert (ours.__hash__ is None) == (standard.__hash__ is None)
    assert ("__hash__" in vars(ours)) == ("__hash__" in vars(standard))
    s, o = _instances(standard, 1), _instances(ours, 1)
    assert [repr(a) for a in o] == [repr(a) for a in s]
    assert [o[0] == b for b in o] == [s[0] == b for b in s]
    assert [o[0] != b for b in o] == [s[0] != b for b in s]
    if "__hash__" in vars(standard) and standard.__hash__ is not None:
        assert [hash(a) for a in o] == [hash(a) for a in s]
    assert [f.name for f in dataclasses.fields(ours)] == [
        f.name for f in dataclasses.fields(standard)
    ]
    assert str(inspect.signature(ours)) == str(inspect.signature(standard))
    assert ours.__doc__ == standard.__doc__
    assert ours.__match_args__ == standard.__match_args__
    assert [vars(a) if hasattr(a, "__dict__") else None for a in o] == [
        vars(a) if hasattr(a, "__dict__") else None for a in s
    ]
    for name in ("init", "repr", "eq", "order", "unsafe_hash", "frozen"):
        assert getattr(ours.__dataclass_params__, name) == getattr(
            standard.__dataclass_params__, name
        )


def test_equal_only_to_the_very_same_class() -> None:
    @records.dataclass(frozen=True)
    class Base:
        x: int

    @records.dataclass(frozen=True)
    class Child(Base):
        pass

    assert Base(1) == Base(1)
    assert Base(1) != Child(1)
    assert Base(1).__eq__(1) is NotImplemented
    assert {Base(1), Base(1), Base(2)} == {Base(1), Base(2)}


def test_own_methods_kept() -> None:
    @records.dataclass(frozen=True)
    class Own:
        x: int

        def __repr__(self) -> str:
            return "own"

        def __eq__(self, other: object) -> bool:
            return True

        def __hash__(self) -> int:
            return 7

    assert repr(Own(1)) == "own" and Own(1) == Own(2) and hash(Own(1)) == 7

    @records.dataclass(frozen=True)
    class EqOnly:  # a body defining __eq__ alone: the frozen record's hash is added, as before
        x: int

        def __eq__(self, other: object) -> bool:
            return True

    @dataclasses.dataclass(frozen=True)
    class EqOnlyStandard:
        x: int

        def __eq__(self, other: object) -> bool:
            return True

    assert hash(EqOnly(3)) == hash(EqOnlyStandard(3))


def test_a_record_that_contains_itself_prints_dots() -> None:
    @records.dataclass
    class Node:
        children: list

    node = Node([])
    node.children.append(node)
    assert repr(node).endswith("Node(children=[...])")


def test_hbmlint_records_as_before() -> None:
    """hbmlint's own records: frozen, picklable (for --jobs), printed with their fields."""
    span = yamlsrc.Span(3, 5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        span.line = 4  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(span)) == span
    assert hash(pickle.loads(pickle.dumps(span))) == hash(span)
    assert repr(span) == "Span(line=3, column=5, end_line=None, end_column=None)"
    ref = spec.ModelRef(name="org/model")
    assert repr(ref).startswith("ModelRef(name='org/model', config=None, dtype=None,")
    assert spec.ModelRef.__repr__.__qualname__ == "ModelRef.__repr__"


@pytest.mark.parametrize("shape", SHAPES, ids=[s.__name__ for s in SHAPES])
def test_frozen_refuses_as_the_standard_library(shape: Callable) -> None:
    standard = shape(dataclasses.dataclass, frozen=True)
    ours = shape(records.dataclass, frozen=True)
    for cls in (standard, ours):
        record = _instances(cls, 1)[0]
        refusals = []
        for name in [f.name for f in dataclasses.fields(cls)] + ["other"]:
            with pytest.raises(dataclasses.FrozenInstanceError) as refused:
                setattr(record, name, 1)
            refusals.append(str(refused.value))
            with pytest.raises(dataclasses.FrozenInstanceError) as refused:
                delattr(record, name)
            refusals.append(str(refused.value))
        if cls is standard:
            expected = refusals
    assert refusals == expected


def test_default_factory_runs_for_each_record_and_defaults_are_the_same_objects() -> None:
    shared: list = []

    @records.dataclass(frozen=True)
    class Made:
        items: list = dataclasses.field(default_factory=list)
        given: list = dataclasses.field(default_factory=lambda: shared)

    first, second = Made(), Made()
    assert first.items == [] and first.items is not second.items
    assert first.given is shared and Made(items=[1]).items == [1]
    with pytest.raises(TypeError):
        Made(1, 2, 3)

    with pytest.raises(TypeError, match="non-default argument 'y' follows default argument"):

        @records.dataclass(frozen=True)
        class Wrong:
            x: int = 0
            y: int


def test_a_mutable_record_cannot_inherit_a_frozen_one() -> None:
    @records.dataclass(frozen=True)
    class Frozen:
        x: int

    with pytest.raises(TypeError, match="cannot inherit non-frozen dataclass from a frozen one"):

        @records.dataclass
        class Mutable(Frozen):
            y: int = 0

    @records.dataclass(frozen=True)
    class StillFrozen(Frozen):
        y: int = 0

    with pytest.raises(dataclasses.FrozenInstanceError):
        StillFrozen(1).y = 2  # type: ignore[misc]
    assert repr(StillFrozen(1, 2)) == (
        "test_a_mutable_record_cannot_inherit_a_frozen_one.<locals>.StillFrozen(x=1, y=2)"
    )
