"""Issue 18 (speed): the architecture of each model of the shipped catalog whose config reads
as plain values comes with the package (hbmlint/catalog/shipped_architectures.py, written by
tools/write_model_architectures.py): a run takes it for that very config, as read from the
shipped models.yaml and quantization.yaml, instead of reading the config. Any other config is
read, as before."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import pytest
from helpers import tool

from hbmlint import catalog
from hbmlint.catalog import architecture
from hbmlint.catalog.shipped_architectures import FIELDS
from hbmlint.catalog.shipped_data import CATALOGS

ROOT = Path(__file__).parent.parent
MODELS = CATALOGS["models.yaml"][1]["models"]


def test_the_module_is_written_for_the_catalog_as_it_is():
    written = (ROOT / "hbmlint" / "catalog" / "shipped_architectures.py").read_text("utf-8")
    assert written == tool("write_model_architectures").data_module(), (
        "run: python tools/write_model_architectures.py"
    )


def _fields(arch):
    return [
        (f.name, type(getattr(arch, f.name)), getattr(arch, f.name))
        for f in dataclasses.fields(arch)
    ]


def _read(entry):
    try:
        return architecture.read_architecture(entry["config"], entry["id"], entry["source"])
    except catalog.ConfigError as exc:
        return type(exc), str(exc)


def _from_config(entry):
    try:
        return catalog.architecture_from_config(entry["config"], entry["id"], entry["source"])
    except catalog.ConfigError as exc:
        return type(exc), str(exc)


def test_every_shipped_model_is_the_architecture_its_config_reads_as():
    assert catalog._load("models.yaml") is CATALOGS["models.yaml"][1]
    for entry in MODELS:
        if not isinstance(entry.get("config"), dict):
            continue
        made, read = _from_config(entry), _read(entry)
        if isinstance(read, tuple):
            assert made == read, entry["id"]
        else:
            assert _fields(made) == _fields(read), entry["id"]
            assert repr(made) == repr(read)


def test_the_table_answers_for_the_shipped_configs(monkeypatch):
    def unread(*args):
        raise AssertionError("read")

    monkeypatch.setattr(architecture, "read_architecture", unread)
    assert len(FIELDS) > 100
    for position, _ in FIELDS:
        entry = MODELS[position]
        arch = catalog.architecture_from_config(entry["config"], "a name", "a source")
        assert (arch.name, arch.source) == ("a name", "a source")


def test_another_config_of_the_same_content_is_read(monkeypatch):
    calls = []
    read = architecture.read_architecture
    monkeypatch.setattr(architecture, "read_architecture", lambda *a: calls.append(a) or read(*a))
    entry = MODELS[FIELDS[0][0]]
    config = copy.deepcopy(entry["config"])
    assert catalog.architecture_from_config(config, "m", "s") == read(config, "m", "s")
    assert len(calls) == 1


@pytest.mark.parametrize("edited", ["models.yaml", "quantization.yaml"])
def test_no_table_where_a_file_was_read_as_edited(monkeypatch, edited):
    loaded = catalog._load
    other = copy.deepcopy(CATALOGS[edited][1])
    monkeypatch.setattr(catalog, "_load", lambda name: other if name == edited else loaded(name))
    monkeypatch.setattr(architecture, "_SHIPPED", None)
    entry = MODELS[FIELDS[0][0]]
    assert architecture._shipped_fields(entry["config"]) is None
    assert architecture._SHIPPED == {}
