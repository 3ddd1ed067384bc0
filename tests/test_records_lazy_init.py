"""hbmlint.records compiles a record's __init__ when something first reads it (making a record,
inspect.signature, ``Record.__init__``), not when the class is made; the function is then the
class's own, as before, and a field order the standard library refuses is still refused when
the class is made."""

from __future__ import annotations

import dataclasses
import inspect
import subprocess
import sys
import tempfile
import types

import pytest

from hbmlint import records


def _point() -> type:
    @records.dataclass(frozen=True)
    class Point:
        x: int
        y: list = dataclasses.field(default_factory=list)

    return Point


def _standard_point() -> type:
    @dataclasses.dataclass(frozen=True)
    class Point:
        x: int
        y: list = dataclasses.field(default_factory=list)

    return Point


def test_init_is_compiled_when_first_used() -> None:
    point = _point()
    assert isinstance(point.__dict__["__init__"], records._LazyInit)
    made = point(1)
    assert isinstance(point.__dict__["__init__"], types.FunctionType)
    assert made == point(1, []) and made.y is not point(1).y
    assert point.__init__.__qualname__ == "_point.<locals>.Point.__init__"


def test_reading_init_or_its_signature_compiles_it() -> None:
    point = _point()
    standard = _standard_point()
    assert str(inspect.signature(point)) == str(inspect.signature(standard))
    assert isinstance(point.__dict__["__init__"], types.FunctionType)
    other = _point()
    init = other.__init__
    assert isinstance(init, types.FunctionType) and other.__dict__["__init__"] is init
    assert init.__annotations__ == {"x": "int", "y": "list", "return": None}
    assert init.__defaults__ == (records._FACTORY,)


def test_a_subclass_made_first_compiles_the_records_init() -> None:
    point = _point()

    class Named(point):
        pass

    assert Named(3).x == 3
    assert isinstance(point.__dict__["__init__"], types.FunctionType)
    assert "__init__" not in Named.__dict__
    with pytest.raises(dataclasses.FrozenInstanceError):
        point(1).x = 2


def test_a_field_order_python_refuses_is_refused_when_the_class_is_made() -> None:
    with pytest.raises(TypeError, match="non-default argument 'y' follows default argument"):

        @records.dataclass
        class Broken:
            x: int = 0
            y: int  # type: ignore[misc]


def test_every_record_of_hbmlint_makes_its_init_as_the_text_written() -> None:
    """Every record class hbmlint defines (in a fresh process, before any is used): its
    __init__, first read, is the function its text compiles to (the same code, defaults,
    annotations and name)."""
    # outside the source tree: the hbmlint imported is the one installed (or PYTHONPATH's)
    with tempfile.TemporaryDirectory() as elsewhere:
        result = subprocess.run(
            [sys.executable, "-c", _EVERY_RECORD],
            capture_output=True,
            text=True,
            cwd=elsewhere,
            check=False,
        )
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) > 50


_EVERY_RECORD = """
import importlib, pkgutil
import hbmlint
from hbmlint import records

for module in pkgutil.walk_packages(hbmlint.__path__, "hbmlint."):
    importlib.import_module(module.name)
found, stack, seen = [], [object], 0
while stack:
    for sub in type.__subclasses__(stack.pop()):
        found.append(sub)
        stack.append(sub)
for cls in found:
    lazy = cls.__dict__.get("__init__")
    if not isinstance(lazy, records._LazyInit):
        continue
    seen += 1
    source, namespace, qualname, annotations = lazy.parts
    again = dict(namespace)
    exec(source, again)
    expected = again["__init__"]
    made = cls.__init__
    assert made.__code__.co_code == expected.__code__.co_code, cls
    assert made.__code__.co_varnames == expected.__code__.co_varnames, cls
    assert made.__code__.co_names == expected.__code__.co_names, cls
    assert made.__defaults__ == expected.__defaults__, cls
    assert made.__annotations__ == annotations and made.__qualname__ == qualname, cls
    assert made.__globals__ is namespace, cls
    assert cls.__dict__["__init__"] is made, cls
print(seen)
"""
