"""The GPU index makes an entry of hbmlint's own gpus.yaml into a GpuInfo only when a lookup
first asks for it (then every name of the entry shares it); what each lookup answers is what
making every entry at once gives, and a team catalog's entries are made with the index."""

from __future__ import annotations

import pytest

from hbmlint import catalog


@pytest.fixture
def fresh_index():
    catalog._gpu_index.cache_clear()
    yield
    catalog._gpu_index.cache_clear()


def _every_entry_made() -> dict[str, catalog.GpuInfo]:
    """The index as it was built before: every entry made at once."""
    index = {}
    for entry in catalog._entries("gpus.yaml", "gpus"):
        info = catalog._gpu_info(entry)
        for alias in [entry["name"], *entry.get("aliases", [])]:
            index[catalog._key(str(alias))] = info
    return index


def test_a_lookup_makes_only_the_gpu_it_asks_for(fresh_index, monkeypatch):
    made = []
    real = catalog._gpu_info

    def counted(entry):
        made.append(entry["name"])
        return real(entry)

    monkeypatch.setattr(catalog, "_gpu_info", counted)
    h100 = catalog.find_gpu("H100")
    assert made == [h100.name]
    # the entry's other names share the one made
    assert catalog.find_gpu(h100.name) is h100
    assert catalog.find_gpu("NVIDIA-H100-80GB-HBM3") is h100
    assert made == [h100.name]
    assert catalog.find_gpu("no-such-gpu") is None
    assert len(catalog.gpu_names()) > 50 and made == [h100.name]


def test_every_name_finds_what_making_every_entry_gives(fresh_index):
    expected = _every_entry_made()
    for key, info in expected.items():
        assert catalog.find_gpu(key) == info, key
    assert catalog.gpu_names() == sorted({info.name for info in expected.values()})


def test_a_team_catalog_entry_is_made_with_the_index(fresh_index, tmp_path):
    team = tmp_path / "team.yaml"
    team.write_text(
        "gpus:\n"
        "  - name: Team-GPU\n    memory: 24 GiB\n    aliases: [team]\n"
        "  - name: Broken-GPU\n    memory: many bytes\n"
    )
    catalog.use_extra_files([team])
    try:
        with pytest.raises(Exception):  # noqa: B017 - as before: the index itself fails
            catalog.find_gpu("H100")
    finally:
        catalog.use_extra_files([])
    team.write_text("gpus:\n  - name: Team-GPU\n    memory: 24 GiB\n    aliases: [team]\n")
    catalog.use_extra_files([team])
    try:
        slot = catalog._gpu_index()[catalog._key("team")]
        assert isinstance(slot[0], catalog.GpuInfo)  # made with the index, not on lookup
        assert catalog.find_gpu("team") is slot[0]
        assert "Team-GPU" in catalog.gpu_names()
    finally:
        catalog.use_extra_files([])
