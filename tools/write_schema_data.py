"""Writes hbmlint/schema_data.py: each JSON schema that ships with hbmlint (schemas/*.schema.json,
hbmlint.schemas when installed) as a Python constant, with the text it was parsed from.
schema.load_schema uses it only for a file of that very text (any other is parsed as before), so
that a run reads its schema without importing json (~4.6M instructions, more than a plain
lint's reading of its file). Run it after changing a schema (tests/test_schema_data.py says
when the module is stale):

    python tools/write_schema_data.py
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "schemas"
TARGET = ROOT / "hbmlint" / "schema_data.py"
SUFFIX = ".schema.json"


def data_module() -> str:
    """The text of schema_data.py for the schema files as they are now."""
    lines = [
        '"""The JSON schemas that ship with hbmlint, by name, each with the text it was parsed',
        "from (schema.load_schema uses it only for a file of that text).",
        'Written by tools/write_schema_data.py: do not edit."""',
        "",
        "# ruff: noqa",
        "# fmt: off",
        "SCHEMAS = {",
    ]
    for path in sorted(SCHEMAS.glob(f"*{SUFFIX}")):
        text = path.read_text(encoding="utf-8")  # as load_schema reads it
        data = json.loads(text)
        written = repr(data)
        if ast.literal_eval(written) != data:  # only what a literal writes back the same
            raise ValueError(f"{path.name}: its data is not written back by repr()")
        lines.append(f"    {path.name[: -len(SUFFIX)]!r}: ({text!r}, {written}),")
    lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    TARGET.write_text(data_module(), encoding="utf-8")
    print(f"wrote {TARGET}")
