"""Writes hbmlint/catalog/shipped_data.py: the data of each catalog file that ships with hbmlint
(hbmlint/catalog/*.yaml) as Python constants, with the BLAKE2b digest of the bytes it was parsed
from, and those bytes. A run loads them with the package's byte-compiled modules instead of
decoding the cache's JSON (models.yaml's was most of a run's catalog cost), and only for a file
with those bytes: any other text is read through the cache as before (catalog/yamlcache.py).
Run it after changing a catalog file (tests/test_catalog_shipped_data.py says when the module
is stale):

    python tools/write_catalog_data.py
"""

from __future__ import annotations

import ast
from pathlib import Path

import yaml

from hbmlint import files
from hbmlint.catalog.yamlcache import _digest

CATALOG = Path(__file__).resolve().parent.parent / "hbmlint" / "catalog"
TARGET = CATALOG / "shipped_data.py"


def catalog_files() -> list[Path]:
    return sorted(CATALOG.glob("*.yaml"))


def data_module() -> str:
    """The text of shipped_data.py for the catalog files as they are now."""
    lines = [
        '"""The data of the catalog files that ship with hbmlint, each with the digest of the',
        "bytes it was parsed from, and those bytes (SOURCES): catalog._load uses it only for a",
        'file with those bytes. Written by tools/write_catalog_data.py: do not edit."""',
        "",
        "# ruff: noqa",
        "# fmt: off",
        "CATALOGS = {",
    ]
    for path in catalog_files():
        source = files.read_bytes(path)
        # parsed as catalog/yamlcache.py parses a catalog file
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        data = yaml.load(files.decode(source, path), Loader=loader)
        written = repr(data)
        if ast.literal_eval(written) != data:  # only what a literal writes back the same
            raise ValueError(f"{path.name}: its data is not written back by repr()")
        lines.append(f"    {path.name!r}: ({_digest(source)!r}, {written}),")
    lines.append("}")
    # each file's bytes as well: a file read with these very bytes is its data, found by
    # comparing them (a copy's cost), not by digesting them (BLAKE2b costs a plain lint 2%)
    lines.append("SOURCES = {")
    for path in catalog_files():
        lines.append(f"    {path.name!r}: {files.read_bytes(path)!r},")
    lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    TARGET.write_text(data_module(), encoding="utf-8")
    print(f"wrote {TARGET}")
