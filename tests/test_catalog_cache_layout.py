"""A cache entry is one JSON object whose last value is the data's own JSON text (not a string
holding it, which took two parses): the entry reads in one parse, the data digest is of that
text, and an entry with anything else there is rebuilt, not trusted."""

from __future__ import annotations

import json

import pytest
import yaml

from hbmlint.catalog import load_yaml_cached
from hbmlint.catalog import yamlcache as cache_module

SOURCE = "gpus:\n  - {name: X1, memory: 10 GiB}\n"
DATA = {"gpus": [{"name": "X1", "memory": "10 GiB"}]}


@pytest.fixture
def parses(monkeypatch):
    calls = []
    real = yaml.load

    def load(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(cache_module.yaml, "load", load)
    return calls


@pytest.fixture
def entry(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    source = tmp_path / "gpus.yaml"
    source.write_text(SOURCE)
    assert load_yaml_cached(source) == DATA
    [written] = (tmp_path / "cache" / "hbmlint").iterdir()
    return source, written


def test_the_data_is_the_entrys_last_value(entry, parses):
    source, written = entry
    body = written.read_text()
    raw = json.loads(body)
    assert list(raw) == ["version", "source_blake2b", "data_blake2b", "data"]
    assert raw["version"] == cache_module.VERSION
    assert raw["data"] == DATA
    assert body.endswith(', "data": ' + json.dumps(DATA) + "}")
    assert load_yaml_cached(source) == DATA
    assert parses == []  # read from the entry


@pytest.mark.parametrize(
    "tamper",
    [
        lambda body: body[:-1] + ', "data": {"gpus": []}}',  # a second data value after the first
        lambda body: body[:-1] + " }",  # more than the closing brace after the data
        lambda body: body.replace('"X1"', '"X2"'),  # the data changed, its digest not
        lambda body: body.replace(', "data": ', ',  "data": '),  # not the layout written
        lambda body: body.replace(', "data": ', ', "data":  '),
        lambda body: body.replace('"version": 4', '"version": 3'),
        lambda body: body[: body.index(', "data": ')] + "}",  # no data at all
        lambda body: body[:-1],  # cut short
    ],
)
def test_any_other_layout_is_rebuilt_not_trusted(entry, parses, tamper):
    source, written = entry
    written.write_text(tamper(written.read_text()))
    assert load_yaml_cached(source) == DATA
    assert len(parses) == 1
    assert load_yaml_cached(source) == DATA  # the rebuilt entry is good again
    assert len(parses) == 1


def test_an_entry_of_the_string_layout_is_rebuilt(entry, parses):
    """Version 3's layout (the data's text as a string), even with the current version number
    and a digest of that text, is not read as data."""
    source, written = entry
    raw = json.loads(written.read_text())
    text = json.dumps(raw["data"])
    written.write_text(json.dumps({**raw, "data": text}))
    assert load_yaml_cached(source) == DATA
    assert len(parses) == 1
