"""Each of hbmlint's own catalog files is read (and checked against its cache entry) once a
process, however many lookups read it: the GPU index, the ambiguous GPU names and every
family's efficiency read gpus.yaml; each engine's defaults read engines.yaml; each label kind
reads labels.yaml. What the lookups answer is what reading the file afresh gives."""

from __future__ import annotations

from collections import Counter

import pytest

from hbmlint import catalog
from hbmlint.catalog import labels
from hbmlint.catalog.yamlcache import load_yaml_cached as fresh_read

MEMOS = (
    catalog._load,
    catalog._gpu_index,
    catalog._larger_variants,
    catalog.efficiency,
    catalog.engine_defaults,
    labels.label_keys,
    labels._unblock,
)


@pytest.fixture
def reads(monkeypatch):
    """The catalog files read from here on, by name (each lookup's memo emptied first)."""
    counted: Counter[str] = Counter()
    real = catalog.load_yaml_cached

    def load(path):
        counted[path.name] += 1
        return real(path)

    monkeypatch.setattr(catalog, "load_yaml_cached", load)
    for memo in MEMOS:
        memo.cache_clear()
    yield counted
    for memo in MEMOS:  # later tests start from memos filled by the real reader
        memo.cache_clear()


def test_every_lookup_of_one_file_shares_one_read(reads):
    assert catalog.find_gpu("H100") is not None
    assert catalog.larger_variant("V100") is not None
    for family in ("hopper", "ampere", "ada", "blackwell", "no-such-family"):
        catalog.efficiency(family)
    for engine in ("vllm", "sglang"):
        assert catalog.engine_defaults(engine)
    for kind in ("gpu_type", "gpu_generic", "instance_type", "model"):
        labels.label_keys(kind)
    assert reads["gpus.yaml"] == 1
    assert reads["engines.yaml"] == 1
    assert reads["labels.yaml"] == 1


@pytest.mark.parametrize(
    "name",
    [
        "gpus.yaml",
        "models.yaml",
        "engines.yaml",
        "labels.yaml",
        "instance_types.yaml",
        "quantization.yaml",
        "vendor_images.yaml",
        "release_dates.yaml",
    ],
)
def test_the_kept_data_is_the_files_data(reads, name):
    first = catalog._load(name)
    assert catalog._load(name) is first
    assert first == fresh_read(catalog._HERE / name)
    assert reads[name] == 1
