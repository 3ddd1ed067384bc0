"""``dataclass``: the standard library's, except that a record's ``__repr__``, ``__eq__`` and
``__hash__`` are closures over one shared function each instead of methods compiled per class.

Python 3.11's ``dataclasses.dataclass`` writes every method it adds as source text and compiles
it, when the module is imported: the classes a lint run creates cost a third of hbmlint's
start-up that way. ``__init__`` (and a frozen class's ``__setattr__`` and ``__delattr__``, which
its ``__init__`` is written around) are still the standard library's, as are ``fields()``,
``replace()``, ``__match_args__`` and slots. The three methods made here behave as the standard
library's do, and tests/test_records.py compares them with it: the same text (with its ``...``
for a record that contains itself), equality only with an instance of the very same class over
the fields that compare, the hash of the same tuple, and the same choice of whether to add a
``__hash__``, set it to None or keep the class's own.
"""

from __future__ import annotations

import dataclasses
from _thread import get_ident
from operator import attrgetter
from typing import Any

__all__ = ["dataclass", "field"]

field = dataclasses.field
_standard = dataclasses.dataclass

# The records whose __repr__ is running, by (id, thread): a record that contains itself prints
# "..." there, as the standard library's recursion guard does.
_REPR_RUNNING: set[tuple[int, int]] = set()


def _getter(names: tuple[str, ...]) -> Any:
    """A function from a record to the tuple of these fields' values."""
    if len(names) == 1:
        (name,) = names
        return lambda record: (getattr(record, name),)
    return attrgetter(*names) if names else lambda record: ()


def _repr_for(cls: type, names: tuple[str, ...]) -> Any:
    values = _getter(names)
    labels = tuple(f"{name}=" for name in names)

    def __repr__(self: Any) -> str:
        key = id(self), get_ident()
        if key in _REPR_RUNNING:
            return "..."
        _REPR_RUNNING.add(key)
        try:
            shown = ", ".join(
                [label + repr(value) for label, value in zip(labels, values(self), strict=True)]
            )
        finally:
            _REPR_RUNNING.discard(key)
        return f"{self.__class__.__qualname__}({shown})"

    __repr__.__qualname__ = f"{cls.__qualname__}.__repr__"
    return __repr__


def _eq_for(cls: type, names: tuple[str, ...]) -> Any:
    values = _getter(names)

    def __eq__(self: Any, other: object) -> Any:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    __eq__.__qualname__ = f"{cls.__qualname__}.__eq__"
    return __eq__


def _hash_for(cls: type, names: tuple[str, ...]) -> Any:
    values = _getter(names)

    def __hash__(self: Any) -> int:
        return hash(values(self))

    __hash__.__qualname__ = f"{cls.__qualname__}.__hash__"
    return __hash__


def dataclass(
    cls: type | None = None,
    /,
    *,
    init: bool = True,
    repr: bool = True,  # noqa: A002 (the standard library's keyword)
    eq: bool = True,
    order: bool = False,
    unsafe_hash: bool = False,
    frozen: bool = False,
    match_args: bool = True,
    kw_only: bool = False,
    slots: bool = False,
    weakref_slot: bool = False,
) -> Any:
    """``dataclasses.dataclass`` with the same arguments and meaning (see the module's note)."""
    options = dict(
        init=init,
        order=order,
        unsafe_hash=unsafe_hash,
        frozen=frozen,
        match_args=match_args,
        kw_only=kw_only,
        slots=slots,
    )
    if weakref_slot:  # Python 3.11's; 3.10's dataclass() has no such argument
        options["weakref_slot"] = weakref_slot

    def wrap(cls: type) -> type:
        if order or unsafe_hash:  # the methods these add compare as __eq__ does: all or none
            return _standard(cls, repr=repr, eq=eq, **options)
        own = cls.__dict__
        add_repr = repr and "__repr__" not in own
        add_eq = eq and "__eq__" not in own
        # The standard library keeps a __hash__ the class body defines; Python itself sets
        # __hash__ to None in a body that defines __eq__, which does not count as defining it.
        class_hash = own.get("__hash__", dataclasses.MISSING)
        explicit_hash = not (
            class_hash is dataclasses.MISSING or (class_hash is None and "__eq__" in own)
        )
        made = _standard(cls, repr=False, eq=False, **options)
        fields = dataclasses.fields(made)
        if add_repr:
            made.__repr__ = _repr_for(made, tuple(f.name for f in fields if f.repr))
        if add_eq:
            made.__eq__ = _eq_for(made, tuple(f.name for f in fields if f.compare))
        if eq and not explicit_hash:
            if frozen:
                hashed = tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))
                made.__hash__ = _hash_for(made, hashed)
            else:
                made.__hash__ = None  # mutable and compared by value: unhashable
        return made

    return wrap if cls is None else wrap(cls)
