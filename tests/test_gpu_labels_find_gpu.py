"""The GPU labels' reader (catalog.labels.gpu_from_labels) finds its GPUs through the catalog's
find_gpu as it stands at the call (read through the package held at import, not imported per
call): a patched find_gpu is the one asked."""

from __future__ import annotations

from hbmlint import catalog
from hbmlint.catalog import labels
from hbmlint.spec import Label


def test_gpu_labels_read_the_catalogs_find_gpu_at_call_time(monkeypatch):
    asked = []
    real = catalog.find_gpu

    def spy(name):
        asked.append(name)
        return real(name)

    monkeypatch.setattr(catalog, "find_gpu", spy)
    label = Label(key="nvidia.com/gpu.product", value="NVIDIA-H100-80GB-HBM3", span=None)
    choice = labels.gpu_from_labels([label])
    assert asked
    assert choice is not None
