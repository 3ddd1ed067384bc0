"""The catalogs' JSON cache: used when valid, rebuilt when the YAML changes or the entry is
corrupt, stale or planted, never required, and never able to change an answer."""

from __future__ import annotations

import json
import os

import pytest
import yaml

from hbmlint.catalog import load_yaml_cached
from hbmlint.catalog import yamlcache as cache_module

SOURCE = "gpus:\n  - {name: X1, memory: 10 GiB}\n"
DATA = {"gpus": [{"name": "X1", "memory": "10 GiB"}]}


@pytest.fixture
def counted_parses(monkeypatch):
    """How many times the YAML itself was parsed (the cache's whole point is to skip it)."""
    calls = []
    real = yaml.load

    def load(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(cache_module.yaml, "load", load)
    return calls


@pytest.fixture
def source(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = tmp_path / "gpus.yaml"
    path.write_text(SOURCE)
    return path


def entry_of(tmp_path):
    [cached] = (tmp_path / "cache" / "hbmlint").iterdir()
    return cached


def test_cache_is_written_then_used_and_follows_edits(tmp_path, source, counted_parses):
    assert load_yaml_cached(source) == DATA
    assert entry_of(tmp_path).suffix == ".json"
    assert load_yaml_cached(source) == DATA
    assert len(counted_parses) == 1  # the second read came from the cache

    source.write_text("gpus:\n  - {name: X2, memory: 20 GiB}\n")
    os.utime(source, ns=(1, 1))  # even with an old modification time: the bytes decide
    assert load_yaml_cached(source) == {"gpus": [{"name": "X2", "memory": "20 GiB"}]}


@pytest.mark.parametrize(
    "tamper",
    [
        lambda entry: entry.write_text('{"gpus": "from the cache"}'),  # old, bare format
        lambda entry: entry.write_text("{not json"),
        lambda entry: entry.write_bytes(b"\xff\xfe"),
        lambda entry: entry.write_text(  # right shape, data swapped, digest not updated
            json.dumps({**json.loads(entry.read_text()), "data": '{"gpus": []}'})
        ),
        lambda entry: entry.write_text(json.dumps({**json.loads(entry.read_text()), "version": 1})),
    ],
)
def test_a_corrupt_or_planted_entry_is_rebuilt_not_trusted(
    tmp_path, source, counted_parses, tamper
):
    load_yaml_cached(source)
    tamper(entry_of(tmp_path))
    assert load_yaml_cached(source) == DATA
    assert len(counted_parses) == 2
    assert load_yaml_cached(source) == DATA  # and the rebuilt entry is good again
    assert len(counted_parses) == 2


def test_an_entry_made_for_other_bytes_is_not_used(tmp_path, source, counted_parses):
    """A valid entry of another file copied over this file's name: its digest names the other
    file's bytes, so it is refused."""
    load_yaml_cached(source)
    mine = entry_of(tmp_path)
    other = tmp_path / "other.yaml"
    other.write_text("gpus: []\n")
    load_yaml_cached(other)
    [theirs] = [p for p in mine.parent.iterdir() if p != mine]
    mine.write_bytes(theirs.read_bytes())
    assert load_yaml_cached(source) == DATA


def test_a_planted_symlink_is_neither_read_nor_written_through(tmp_path, source):
    load_yaml_cached(source)
    entry = entry_of(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    planted = tmp_path / "planted.json"
    planted.write_text(entry.read_text())  # a valid entry, reached through a link
    entry.unlink()
    entry.symlink_to(victim)
    assert load_yaml_cached(source) == DATA
    assert victim.read_text() == "precious"
    assert not entry.is_symlink()  # replaced by a real entry

    entry.unlink()
    entry.symlink_to(planted)
    assert load_yaml_cached(source) == DATA  # valid data, but behind a symlink: not read
    assert not entry.is_symlink()


def test_a_cache_folder_others_can_write_is_not_used(tmp_path, source, counted_parses):
    folder = tmp_path / "cache" / "hbmlint"
    folder.mkdir(parents=True)
    folder.chmod(0o777)
    load_yaml_cached(source)
    load_yaml_cached(source)
    assert len(counted_parses) == 2
    assert list(folder.iterdir()) == []


def test_unwritable_cache_or_json_unsafe_data_still_load(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # mkdir below a file fails
    source = tmp_path / "models.yaml"
    source.write_text("models:\n  - {id: a}\n8: integer key\n")
    assert load_yaml_cached(source) == {"models": [{"id": "a"}], 8: "integer key"}
    assert load_yaml_cached(source)[8] == "integer key"
