"""``dataclass``: the standard library's, except that the methods it compiles from source for
every class are, where they need not be, closures over one shared function each.

Python 3.11's ``dataclasses.dataclass`` writes every method it adds as source text and compiles
it when the module is imported: the classes a lint run creates cost a third of hbmlint's
start-up that way. Here a record's ``__repr__``, ``__eq__`` and ``__hash__``, and a frozen
record's ``__setattr__`` and ``__delattr__``, are closures over shared functions; ``__init__``
is still compiled (it runs for every instance), when first used, but written here, shorter
than the standard library's text (a frozen record's sets the fields with ``object.__setattr__``,
as the standard library's does). Everything else is the standard library's: ``fields()``,
``replace()``, ``__match_args__``, slots, the class's ``__dataclass_params__`` (set to the
options asked for) and its docstring. A ClassVar, InitVar or keyword-only field leaves
``__init__`` to the standard library; a frozen record with slots, dataclass bases, or its own
``__setattr__`` or ``__delattr__`` is left wholly to it.

The methods made here behave as the standard library's do, and tests/test_records.py compares
them with it: the same text (with its ``...`` for a record that contains itself), equality only
with an instance of the very same class over the fields that compare, the hash of the same
tuple, the same choice of whether to add a ``__hash__``, set it to None or keep the class's own,
the same ``__init__`` signature, defaults, factories and ``__post_init__`` call, and the same
FrozenInstanceError on assigning or deleting a field.
"""

from __future__ import annotations

import dataclasses
import inspect
from _thread import get_ident
from functools import cached_property
from operator import attrgetter
from types import FunctionType
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


class _Factory:
    """The default of a parameter whose field has a default factory (it prints as the standard
    library's does, in the class's signature and docstring)."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


def _plain_fields(cls: type, kw_only: bool) -> bool:
    """Whether an __init__ made here can take this class's fields: none keyword-only, ClassVar
    or InitVar (here or in a dataclass base), none named so that it could not be a parameter."""
    if kw_only:
        return False
    own = cls.__dict__
    for name, annotation in own.get("__annotations__", {}).items():
        text = annotation if isinstance(annotation, str) else repr(annotation)
        if "ClassVar" in text or "InitVar" in text or "KW_ONLY" in text:
            return False
        if name == "self" or name.startswith("_record"):
            return False
        value = own.get(name)
        if isinstance(value, dataclasses.Field) and value.kw_only is True:
            return False
    for base in cls.__mro__[1:]:
        # a base's inherited fields are those of the base further on that declares them
        declared = base.__dict__.get("__dataclass_fields__")
        if declared is not None:
            fields = dataclasses.fields(base)
            if len(fields) != len(declared) or any(f.kw_only is True for f in fields):
                return False
            if any(f.name == "self" or f.name.startswith("_record") for f in fields):
                return False
    return True


def _own_frozen(cls: type, slots: bool, kw_only: bool) -> bool:
    """Whether this frozen class's __init__, __setattr__ and __delattr__ are made here: not with
    slots, dataclass bases or its own __setattr__ or __delattr__ (the standard library handles
    those), and only with fields an __init__ made here can take."""
    own = cls.__dict__
    if slots or "__setattr__" in own or "__delattr__" in own:
        return False
    if any(hasattr(base, "__dataclass_fields__") for base in cls.__mro__[1:]):
        return False
    return _plain_fields(cls, kw_only)


def _init_for(cls: type, fields: tuple[dataclasses.Field, ...], frozen: bool, slots: bool) -> Any:
    """A record's __init__, written and compiled when first used (_LazyInit: a run makes
    records of about half its record classes). A field order the standard library refuses
    raises TypeError here, when the class is made."""
    seen_default = False
    for f in fields:
        if not f.init:
            continue
        if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING:
            seen_default = True
        elif seen_default:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
    return _LazyInit(cls, fields, frozen, slots, hasattr(cls, "__post_init__"))


def _init_text(
    cls: type, fields: tuple[dataclasses.Field, ...], frozen: bool, slots: bool, post_init: bool
) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """The text of a record's __init__, the namespace it reads and its annotations: each field
    set (with object.__setattr__ in a frozen record), then __post_init__. A field with
    init=False and a plain default is set only with slots (without, it reads the class's), as
    the standard library does."""
    namespace: dict[str, Any] = {
        "__name__": cls.__module__,
        "_record_set": object.__setattr__,
        "_record_factory": _FACTORY,
    }
    parameters, body, annotations = ["self"], [], {}
    for f in fields:
        default = f"_record_default_{f.name}"
        if f.default_factory is not dataclasses.MISSING:
            namespace[default] = f.default_factory
            value = f"{default}() if {f.name} is _record_factory else {f.name}"
            value = value if f.init else f"{default}()"
        elif f.init:
            value = f.name
            if f.default is not dataclasses.MISSING:
                namespace[default] = f.default
        elif slots and f.default is not dataclasses.MISSING:
            namespace[default] = f.default
            value = default
        else:
            continue
        if frozen:
            body.append(f"    _record_set(self, {f.name!r}, {value})")
        else:
            body.append(f"    self.{f.name} = {value}")
        if not f.init:
            continue
        if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING:
            factory = f.default_factory is not dataclasses.MISSING
            parameters.append(f"{f.name}=" + ("_record_factory" if factory else default))
        else:
            parameters.append(f.name)
        annotations[f.name] = f.type
    if post_init:
        body.append("    self.__post_init__()")
    source = f"def __init__({', '.join(parameters)}):\n" + ("\n".join(body) or "    pass")
    return source, namespace, {**annotations, "return": None}


def assembled(cls: type, **fields: Any) -> Any:
    """``cls(**fields)`` for ``fields`` that give every field of a record without __post_init__,
    made without its __init__ (one object.__setattr__ call a field in a frozen record): the same
    record, as equality, hash and repr read the fields. For the records a loop makes many of."""
    made = object.__new__(cls)
    made.__dict__.update(fields)
    return made


def init_names(namespace: dict[str, Any]) -> tuple[str, ...]:
    """The names an __init__'s text may read from its namespace (all but dunders), sorted."""
    return tuple(sorted(name for name in namespace if not name.startswith("__")))


_WRITTEN: dict[tuple[str, tuple[str, ...]], tuple[Any, tuple[str, ...]]] | None = None


def _written_inits() -> dict[tuple[str, tuple[str, ...]], tuple[Any, tuple[str, ...]]]:
    """hbmlint._record_inits.INITS, imported when first needed (empty if it cannot be)."""
    global _WRITTEN
    if _WRITTEN is None:
        try:
            from ._record_inits import INITS
        except ImportError:  # a copy without the generated module: every text is compiled
            INITS = {}
        _WRITTEN = INITS
    return _WRITTEN


def _compiled_init(
    source: str, namespace: dict[str, Any], qualname: str, annotations: dict[str, Any]
) -> Any:
    """The __init__ that ``source`` defines over ``namespace``. Compiling the text costs more
    than a lint of a file (a run compiles about fifty): the texts of hbmlint's own records are
    also written out as functions in hbmlint/_record_inits.py (tools/write_record_inits.py),
    byte-compiled with the package, each with the names its defaults read. Found there under
    its exact text and namespace names, the function is made from that code over the namespace,
    with the defaults read from it: what the text's ``def`` makes. Any other text is compiled."""
    written = _written_inits().get((source, init_names(namespace)))
    if written is not None:
        code, defaults = written
        values = tuple(namespace[name] for name in defaults) or None  # None as def leaves it
        made = FunctionType(code, namespace, "__init__", values)
    else:
        exec(source, namespace)  # our own text, of the class's field names
        made = namespace["__init__"]
    made.__qualname__ = qualname
    made.__annotations__ = annotations
    return made


class _LazyInit:
    """A record's __init__ until anything first reads it (making a record, inspect.signature,
    ``Record.__init__``): then the function is written (``parts``: its text, namespace,
    qualified name and annotations) and compiled, put in the class in this one's place and
    handed over as the function itself would be. Compiling cost two thirds of what a record
    class costs at import, and a run makes records of about half its record classes (no
    ``Budget``, no engine flag note)."""

    def __init__(
        self,
        cls: type,
        fields: tuple[dataclasses.Field, ...],
        frozen: bool,
        slots: bool,
        post_init: bool,
    ) -> None:
        self.cls = cls
        self.written = (fields, frozen, slots, post_init)
        self.made: Any = None

    @cached_property
    def parts(self) -> tuple[str, dict[str, Any], str, dict[str, Any]]:
        source, namespace, annotations = _init_text(self.cls, *self.written)
        return source, namespace, f"{self.cls.__qualname__}.__init__", annotations

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        made = self.made
        if made is None:
            made = self.made = _compiled_init(*self.parts)
            if self.cls.__dict__.get("__init__") is self:  # later reads find the function
                type.__setattr__(self.cls, "__init__", made)
        return made.__get__(instance, owner)


def _frozen_guards(cls: type, names: frozenset[str]) -> tuple[Any, Any]:
    """A frozen record's __setattr__ and __delattr__: a field, or any name on an instance of
    the class itself, cannot be assigned or deleted."""

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    __setattr__.__qualname__ = f"{cls.__qualname__}.__setattr__"
    __delattr__.__qualname__ = f"{cls.__qualname__}.__delattr__"
    return __setattr__, __delattr__


class _SignatureDoc:
    """A docless record's docstring, the standard library's "Name(signature)" of the __init__
    made here, worked out when first read and then kept: almost no run reads one, and
    inspect.signature cost a third of a million instructions a class at import."""

    def __get__(self, instance: Any, owner: type) -> str:
        cls = next(c for c in owner.__mro__ if c.__dict__.get("__doc__") is self)
        try:
            signature = str(inspect.signature(cls)).replace(" -> None", "")
        except (TypeError, ValueError):
            signature = ""
        text = cls.__name__ + signature
        cls.__doc__ = text
        return text


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
        own_frozen = frozen and _own_frozen(cls, slots, kw_only)
        writes_init = init and "__init__" not in own and (own_frozen or not frozen)
        writes_init = writes_init and (own_frozen or _plain_fields(cls, kw_only))
        docless = not cls.__doc__
        settings = dict(options)
        if own_frozen:
            settings["frozen"] = False
        if writes_init:
            settings["init"] = False
            if docless:
                # a placeholder, replaced below: the standard library would work out a docstring
                # from the signature of the class without its __init__ (parsing object's text
                # signature with ast), to be thrown away
                cls.__doc__ = cls.__name__
        made = _standard(cls, repr=False, eq=False, **settings)
        # what the class says it is: the standard library reads a base's `frozen` to refuse a
        # mutable subclass of a frozen class
        params = made.__dataclass_params__
        params.init, params.repr, params.eq, params.frozen = init, repr, eq, frozen
        fields = dataclasses.fields(made)
        # the fields' names, and those that print, compare and hash, in one pass
        names, shown, compared, hashed = [], [], [], []
        for f in fields:
            names.append(f.name)
            if f.repr:
                shown.append(f.name)
            if f.compare:
                compared.append(f.name)
            if f.compare if f.hash is None else f.hash:
                hashed.append(f.name)
        if own_frozen:
            made.__setattr__, made.__delattr__ = _frozen_guards(made, frozenset(names))
        if writes_init:
            made.__init__ = _init_for(made, fields, frozen, slots)
            if docless:  # the standard library's docstring, of the signature made here
                made.__doc__ = _SignatureDoc()
        if add_repr:
            made.__repr__ = _repr_for(made, tuple(shown))
        if add_eq:
            made.__eq__ = _eq_for(made, tuple(compared))
        if eq and not explicit_hash:
            if frozen:
                made.__hash__ = _hash_for(made, tuple(hashed))
            else:
                made.__hash__ = None  # mutable and compared by value: unhashable
        return made

    return wrap if cls is None else wrap(cls)
