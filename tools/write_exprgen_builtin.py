"""Writes hbmlint/exprgen_builtin.py, the built-in rules' generated functions, so that the
package's byte-compiled copy replaces compiling them at run time (see exprgen.generated). Run it
after changing a built-in rule's ``when`` or ``check`` (tests/test_exprgen.py says when the file
is out of date):

    python tools/write_exprgen_builtin.py
"""

from __future__ import annotations

from pathlib import Path

from hbmlint.exprgen import _written
from hbmlint.rules import _FLAT_KEYS, load_rules

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
        "package as any module is. Written by tools/write_exprgen_builtin.py: do not edit.",
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


TARGET = Path(__file__).resolve().parent.parent / "hbmlint" / "exprgen_builtin.py"

if __name__ == "__main__":
    TARGET.write_text(builtin_module(), encoding="utf-8")
    print(f"wrote {TARGET}")
