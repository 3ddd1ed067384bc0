"""Issue 18 (speed): a shipped catalog file is known by its bytes, compared with the copy
written beside its data (shipped_data.SOURCES), not by their BLAKE2b digest (2% of a plain
lint). A file of any other bytes is read through the cache, as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint import catalog
from hbmlint.catalog import yamlcache
from hbmlint.catalog.shipped_data import CATALOGS, SOURCES

CATALOG = Path(__file__).parent.parent / "hbmlint" / "catalog"


def test_each_source_is_its_file_as_shipped():
    assert set(SOURCES) == set(CATALOGS)
    for name, source in SOURCES.items():
        assert source == (CATALOG / name).read_bytes(), name
        assert yamlcache._digest(source) == CATALOGS[name][0], name


def test_a_shipped_file_is_loaded_without_a_digest(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))

    def no_digest(data: bytes) -> str:
        raise AssertionError("digested")

    monkeypatch.setattr(yamlcache, "_digest", no_digest)
    for name in sorted(CATALOGS):
        catalog._load.cache_clear()
        assert catalog._load(name) is CATALOGS[name][1], name
    catalog._load.cache_clear()


@pytest.mark.parametrize("edit", [b"edited_here: true\n", b"# a comment\n"])
def test_other_bytes_are_read_as_they_are(monkeypatch, tmp_path, edit):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    edited = tmp_path / "gpus.yaml"
    edited.write_bytes(SOURCES["gpus.yaml"] + edit)
    data = yamlcache.load_yaml_cached(edited, CATALOGS["gpus.yaml"], SOURCES["gpus.yaml"])
    assert data is not CATALOGS["gpus.yaml"][1]
    assert data["gpus"] == CATALOGS["gpus.yaml"][1]["gpus"]
    assert data.get("edited_here") is (True if b"edited" in edit else None)


def test_the_same_bytes_elsewhere_are_the_shipped_data(tmp_path):
    copy = tmp_path / "gpus.yaml"
    copy.write_bytes(SOURCES["gpus.yaml"])
    data = yamlcache.load_yaml_cached(copy, CATALOGS["gpus.yaml"], SOURCES["gpus.yaml"])
    assert data is CATALOGS["gpus.yaml"][1]
