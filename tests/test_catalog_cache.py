"""The catalogs' JSON cache: used when fresh, rebuilt when the YAML changes, never required."""

from __future__ import annotations

import os

from hbmlint.catalog import load_yaml_cached


def test_cache_is_written_then_used_and_follows_edits(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    source = tmp_path / "gpus.yaml"
    source.write_text("gpus:\n  - {name: X1, memory: 10 GiB}\n")
    assert load_yaml_cached(source) == {"gpus": [{"name": "X1", "memory": "10 GiB"}]}
    [cached] = (tmp_path / "cache" / "hbmlint").iterdir()
    assert cached.suffix == ".json"

    cached.write_text('{"gpus": "from the cache"}')  # proves the second read uses it
    assert load_yaml_cached(source) == {"gpus": "from the cache"}

    source.write_text("gpus:\n  - {name: X2, memory: 20 GiB}\n")
    os.utime(source, ns=(1, 1))  # a different modification time: a different cache entry
    assert load_yaml_cached(source) == {"gpus": [{"name": "X2", "memory": "20 GiB"}]}


def test_unwritable_cache_or_json_unsafe_data_still_load(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # mkdir below a file fails
    source = tmp_path / "models.yaml"
    source.write_text("models:\n  - {id: a}\n8: integer key\n")
    assert load_yaml_cached(source) == {"models": [{"id": "a"}], 8: "integer key"}
    assert load_yaml_cached(source)[8] == "integer key"
