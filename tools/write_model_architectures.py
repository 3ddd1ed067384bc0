"""Writes hbmlint/catalog/shipped_architectures.py: for each model of the shipped catalog
(hbmlint/catalog/models.yaml) whose config reads as an architecture of plain values, the
fields read_architecture gives it (all but name and source, those that differ from the
defaults) as a dict of constants, with the digests of the models.yaml and quantization.yaml
they were read from. A run takes them for a config of that very catalog (catalog/architecture.py
_shipped_fields) instead of reading it. Constants, not JSON text: loading them costs ~1M
instructions more than texts would, but a clean lint then never imports json (~4.6M). Run it
after changing models.yaml, quantization.yaml (and tools/write_catalog_data.py, whose module
it reads them from) or how a config is read (tests/test_shipped_architectures.py says when
the module is stale):

    python tools/write_model_architectures.py
"""

from __future__ import annotations

import ast
import dataclasses
import math
from pathlib import Path
from typing import Any

from hbmlint.catalog import ConfigError
from hbmlint.catalog.architecture import Architecture, read_architecture
from hbmlint.catalog.shipped_data import CATALOGS

TARGET = Path(__file__).resolve().parent.parent / "hbmlint" / "catalog" / "shipped_architectures.py"


def _scalar(value: Any) -> bool:
    """A value whose repr reads back as the same type and value."""
    if type(value) is float:
        return math.isfinite(value)
    return type(value) in (int, str, bool, type(None))


def model_fields(config: dict, name: str, source: str) -> dict[str, Any] | None:
    """read_architecture's fields for a config, but name and source, those that differ from
    the defaults; None where it raises or a field is neither a scalar nor a tuple of them."""
    try:
        arch = read_architecture(config, name, source)
    except ConfigError:
        return None
    written = {}
    for f in dataclasses.fields(Architecture):
        if f.name in ("name", "source"):
            continue
        value = getattr(arch, f.name)
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = dataclasses.MISSING
        if type(value) is type(default) and value == default:
            continue
        if not (_scalar(value) or type(value) is tuple and all(map(_scalar, value))):
            return None
        written[f.name] = value
    return written


def _same(a: Any, b: Any) -> bool:
    if type(a) is tuple:
        return type(b) is tuple and len(a) == len(b) and all(map(_same, a, b))
    return type(a) is type(b) and a == b


def data_module() -> str:
    """The text of shipped_architectures.py for the catalog as it is now."""
    models = CATALOGS["models.yaml"][1]["models"]
    lines = [
        '"""The fields (but name and source, those that differ from the defaults) of each model',
        "of the shipped models.yaml whose config reads as plain values, as constants, by its",
        "position in the file's list, read from the models.yaml and quantization.yaml of these",
        'digests. Written by tools/write_model_architectures.py: do not edit."""',
        "",
        "# ruff: noqa",
        "# fmt: off",
        f"MODELS_BLAKE2B = {CATALOGS['models.yaml'][0]!r}",
        f"QUANTIZATION_BLAKE2B = {CATALOGS['quantization.yaml'][0]!r}",
        "FIELDS = (",
    ]
    for position, entry in enumerate(models):
        config = entry.get("config")
        if not isinstance(config, dict):
            continue
        fields = model_fields(config, entry["id"], entry["source"])
        if fields is None:
            continue
        text = repr(fields)
        decoded = ast.literal_eval(text)
        if decoded.keys() != fields.keys() or not all(_same(fields[k], decoded[k]) for k in fields):
            raise ValueError(f"{entry['id']}: its fields are not written back by their repr")
        lines.append(f"    ({position}, {text}),")
    lines.append(")")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    TARGET.write_text(data_module(), encoding="utf-8")
    print(f"wrote {TARGET}")
