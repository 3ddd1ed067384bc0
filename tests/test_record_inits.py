"""hbmlint/_record_inits.py holds the __init__ text hbmlint.records writes for each of
hbmlint's record classes, as source byte-compiled with the package, so that a run does not
compile the text (records._compiled_init). Every entry must make the function its text
defines, and the table must hold every record class's text."""

from __future__ import annotations

import inspect
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import pytest

from hbmlint import records
from hbmlint._record_inits import INITS

ROOT = Path(__file__).resolve().parent.parent
_SPAN = "def __init__(self, line, column, end_line=_record_default_end_line, end_column="


class _Recorder:
    """Stands for ``self``: notes every attribute set and the __post_init__ call, in order."""

    def __init__(self) -> None:
        object.__setattr__(self, "log", [])

    def __setattr__(self, name: str, value: object) -> None:
        self.log.append(("set", name, value))

    def __post_init__(self) -> None:
        self.log.append(("post_init",))


def _both(source: str, names: tuple[str, ...]) -> tuple[list, types.FunctionType, list]:
    """The namespace's values, the function the text defines over them (compiled) and the log
    of what the table's function does, each name's value a distinct object."""
    log: list = []

    def record_set(target: object, name: str, value: object) -> None:
        log.append(("set", name, value))

    def factory_for(name: str) -> object:
        made = object()
        return lambda: ("made by", name, made)

    values: dict[str, object] = {}
    for name in names:
        if name == "_record_set":
            values[name] = record_set
        elif name == "_record_factory":
            values[name] = records._FACTORY
        elif "() if " in source and f"{name}()" in source:
            values[name] = factory_for(name)
        else:
            values[name] = object()
    namespace = {"__name__": "somewhere", **values}
    exec(source, namespace)
    return [values], namespace["__init__"], log


@pytest.mark.parametrize("key", sorted(INITS), ids=lambda key: str(sorted(INITS).index(key)))
def test_each_entry_makes_the_function_its_text_defines(key: tuple) -> None:
    source, names = key
    (values,), compiled, log = _both(source, names)
    namespace = {"__name__": "somewhere", **values}
    made = records._compiled_init(source, namespace, "Some.__init__", {})
    assert made.__globals__ is namespace and made.__module__ == "somewhere"
    code = made.__code__
    assert code.co_code == compiled.__code__.co_code
    assert code.co_names == compiled.__code__.co_names
    assert code.co_consts == compiled.__code__.co_consts
    assert code.co_flags == compiled.__code__.co_flags
    assert code.co_name == compiled.__code__.co_name
    assert inspect.signature(made) == inspect.signature(compiled)
    assert made.__name__ == compiled.__name__ == "__init__"
    assert made.__code__.co_varnames == compiled.__code__.co_varnames
    assert made.__code__.co_argcount == compiled.__code__.co_argcount
    assert len(made.__defaults__ or ()) == len(compiled.__defaults__ or ())
    for mine, theirs in zip(made.__defaults__ or (), compiled.__defaults__ or (), strict=True):
        assert mine is theirs
    # called with every parameter left to its default, then with every one given
    parameters = list(inspect.signature(compiled).parameters)[1:]
    required = [
        object()
        for p in inspect.signature(compiled).parameters.values()
        if p.name != "self" and p.default is inspect.Parameter.empty
    ]
    given = [object() for _ in parameters]
    for args in (required, given):
        effects = []
        for function in (compiled, made):
            target = _Recorder()
            del log[:]
            function(target, *args)
            effects.append(target.log + log)
        assert effects[0] == effects[1]


def test_hbmlints_records_get_the_tables_functions() -> None:
    from hbmlint.diagnostics import Span

    init = Span.__init__
    assert init.__code__ is INITS[next(k for k in INITS if k[0].startswith(_SPAN))][0]
    assert init.__module__ == Span.__module__
    assert init.__qualname__ == "Span.__init__"
    span = Span(1, 2)
    assert (span.line, span.column, span.end_line, span.end_column) == (1, 2, None, None)
    with pytest.raises(TypeError, match=r"Span.__init__\(\) missing 2 required"):
        Span()  # type: ignore[call-arg]


def test_a_text_not_in_the_table_is_compiled() -> None:
    @records.dataclass
    class Unlisted:
        only_in_this_test_1234: int

    assert Unlisted(5).only_in_this_test_1234 == 5
    assert Unlisted.__init__.__code__.co_filename == "<string>"
    assert Unlisted.__init__.__module__ == __name__


def test_the_table_holds_every_record_class_of_hbmlint() -> None:
    """Out of date: run `python tools/write_record_inits.py`."""
    script = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "from write_record_inits import collected\n"
        "from hbmlint._record_inits import INITS\n"
        "missing = sorted(c for k, cs in collected().items() if k not in INITS for c in cs)\n"
        "print('\\n'.join(missing))\n"
    )
    # outside the source tree: the hbmlint imported is the one installed (or PYTHONPATH's)
    with tempfile.TemporaryDirectory() as elsewhere:
        done = subprocess.run(
            [sys.executable, "-c", script, str(ROOT / "tools")],
            capture_output=True,
            text=True,
            cwd=elsewhere,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", "run python tools/write_record_inits.py: " + done.stdout
