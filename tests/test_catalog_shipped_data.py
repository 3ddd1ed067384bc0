"""Issue 18 (speed): the data of the catalog files that ship with hbmlint comes with the package
(hbmlint/catalog/shipped_data.py, written by tools/write_catalog_data.py), used only for a file
whose bytes it was written for: a run loads it instead of decoding the cache's JSON. Any other
text of the file is read through the cache, as before."""

from __future__ import annotations

from pathlib import Path

import yaml
from helpers import tool

from hbmlint import catalog
from hbmlint.catalog import yamlcache
from hbmlint.catalog.shipped_data import CATALOGS

ROOT = Path(__file__).parent.parent
CATALOG = ROOT / "hbmlint" / "catalog"


def test_the_module_is_written_for_the_catalog_files_as_they_are():
    written = (CATALOG / "shipped_data.py").read_text(encoding="utf-8")
    assert written == tool("write_catalog_data").data_module(), (
        "run: python tools/write_catalog_data.py"
    )
    assert set(CATALOGS) == {p.name for p in CATALOG.glob("*.yaml")}


def test_each_catalog_reads_as_its_yaml(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # the user's is left alone
    for name in sorted(CATALOGS):
        text = (CATALOG / name).read_text(encoding="utf-8")
        catalog._load.cache_clear()
        loaded = catalog._load(name)
        assert loaded is CATALOGS[name][1]  # the shipped data, not a parse
        assert loaded == yaml.load(text, Loader=yaml.SafeLoader), name
    catalog._load.cache_clear()


def test_a_file_of_other_bytes_is_read_as_it_is(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    edited = tmp_path / "gpus.yaml"
    text = (CATALOG / "gpus.yaml").read_text(encoding="utf-8")
    edited.write_text(text + "edited_here: true\n", encoding="utf-8")
    data = yamlcache.load_yaml_cached(edited, CATALOGS["gpus.yaml"])
    assert data is not CATALOGS["gpus.yaml"][1]
    assert data["edited_here"] is True
    assert data["gpus"] == CATALOGS["gpus.yaml"][1]["gpus"]
