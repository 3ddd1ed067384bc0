"""The speculative advisor's shape of a model (roofline._shape) counts an Architecture's
full-attention, sliding and MoE layers from its layer tuples instead of asking mixer() and
ffn() layer by layer: the same Shape, to the last bit, for every catalog model, TP and PP size
tried here, as the loop an architecture-like object without those tuples still takes."""

from __future__ import annotations

from typing import Any

from hbmlint import catalog, roofline


class LayerByLayer:
    """An architecture seen only through mixer(), ffn() and its other attributes."""

    def __init__(self, arch: Any) -> None:
        self._arch = arch

    def __getattr__(self, name: str) -> Any:
        if name in ("layer_mixers", "layer_ffns", "_memo"):
            raise AttributeError(name)
        return getattr(self._arch, name)


def architectures() -> list[Any]:
    found = []
    for model_id in catalog.model_ids():
        try:
            config = catalog.find_model(model_id)["config"]
            found.append(catalog.architecture_from_config(config, model_id, "catalog"))
        except catalog.ConfigError:
            continue
    return found


def test_counted_shapes_are_the_layer_by_layer_shapes():
    archs = architectures()
    assert any(a.mixers for a in archs) and any(a.is_moe for a in archs)
    for arch in archs:
        for tp, pp in ((1, 1), (2, 1), (8, 1), (1, 3), (4, 2)):
            counted = roofline._shape(arch, tp, pp, 2)
            looped = roofline._shape(LayerByLayer(arch), tp, pp, 2)
            assert counted == looped, (arch.name, tp, pp)
