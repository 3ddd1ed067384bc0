"""Writes hbmlint/builtin_rules_data.py, the built-in rule files' parsed data and top-level spans
as Python constants (see rules._parsed_builtin_rules), with the names and texts of the files
they were parsed from: a run loads them with the package's byte-compiled modules instead of
decoding the cache's JSON, and only where the files it reads are those. Run it after changing a
built-in rule file (tests/test_builtin_rules_data.py says when the module is out of date):

    python tools/write_builtin_rules_data.py
"""

from __future__ import annotations

import ast
from pathlib import Path

from hbmlint.rules import (
    _packaged_entry,
    _rule_entries,
    _rule_texts,
    _rules_source,
    builtin_rule_files,
)


def data_module() -> str:
    """The text of builtin_rules_data.py for the built-in rule files as they are now."""
    texts = _rule_texts(builtin_rule_files())
    entries = _rule_entries(texts)
    lines = [
        '"""The built-in rule files\' fields, parameters and top-level spans',
        "(rules._packaged_entry), for the files whose names and texts are SOURCE",
        "(rules._rules_source).",
        'Written by tools/write_builtin_rules_data.py: do not edit."""',
        "",
        "# ruff: noqa",
        "# fmt: off",
        f"SOURCE = {_rules_source(texts)!r}",
        "ENTRIES = {",
    ]
    for name, entry in entries.items():
        packaged = _packaged_entry(entry)
        written = repr(packaged)
        if ast.literal_eval(written) != packaged:  # only what a literal writes back the same
            raise ValueError(f"{name}: its data is not written back by repr()")
        lines.append(f"    {name!r}: {written},")
    lines.append("}")
    return "\n".join(lines) + "\n"


TARGET = Path(__file__).resolve().parent.parent / "hbmlint" / "builtin_rules_data.py"

if __name__ == "__main__":
    TARGET.write_text(data_module(), encoding="utf-8")
    print(f"wrote {TARGET}")
