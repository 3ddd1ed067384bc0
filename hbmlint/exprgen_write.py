"""Writes exprgen_builtin.py: ``python -m hbmlint.exprgen_write`` after a built-in rule's
``when`` or ``check`` changes (tests/test_exprgen.py checks that the file is current)."""

from __future__ import annotations

from pathlib import Path

from .exprgen import _written
from .rules import _FLAT_KEYS, load_rules

# what every generated function reads besides its own globals (exprgen.generated passes them)
SHARED = ("_Quantity", "_attribute", "_expression", "_function")


def builtin_module() -> str:
    """The text of exprgen_builtin.py for the built-in rules as they are now: for each of their
    ``when`` and ``check`` expressions that exprgen.generated writes a function for, a factory
    that takes the function's globals and returns it, keyed on the function's source (which
    the factory holds, written out as code, word for word). generated uses a factory only
    where the source it writes is that key: a stale module only means compiling."""
    entries: dict[str, str] = {}
    for rule in load_rules()[0]:
        names = frozenset(rule.params)
        for expression in (rule.when, rule.check):
            written = _written(expression, names, _FLAT_KEYS) if expression else None
            if written is not None:
                source, env = written
                arguments = ", ".join([*SHARED, *sorted(env)])
                entries[source] = f"lambda {arguments}: {source}"
    lines = [
        '"""The built-in rules\' generated functions (exprgen.generated), compiled with the',
        "package as any module is. Written by ``python -m hbmlint.exprgen_write``: do not edit.",
        '"""',
        "",
        "# ruff: noqa",
        "# fmt: off",
        "FACTORIES = {",
    ]
    for source in sorted(entries):
        lines.append(f"    {source!r}:")
        lines.append(f"        {entries[source]},")
    lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    Path(__file__).with_name("exprgen_builtin.py").write_text(builtin_module(), encoding="utf-8")
