"""An architecture's weights, KV layout and parameter count add one figure per layer, in
layer order. They are folded over runs of like layers (Architecture._layer_runs, reduce) rather
than looped over the layers one by one: every catalog model, on every pipeline stage split and
tensor-parallel size tried here, gets the very float the layer-by-layer sum gives, to the last
bit.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from helpers import catalog_architectures

from hbmlint.catalog.architecture import DENSE, Architecture

SHAPES = [(tp, pp) for tp in (1, 2, 8) for pp in (1, 2, 3, 7)]


ARCHITECTURES = catalog_architectures()


def layer_by_layer(
    arch: Architecture, stage: int, start: int = 0
) -> list[tuple[str, str, bool, int, int]]:
    """Every layer a run of its own: the loop over the layers the runs replace."""
    wide_from = arch.num_layers - arch.wide_mlp_layers
    return [
        (arch.layer_mixers[layer], arch.layer_ffns[layer], layer >= wide_from, layer, 1)
        for layer in range(start, stage)
    ]


def same(a: object, b: object) -> bool:
    return a == b and type(a) is type(b)


def test_the_catalog_has_the_layer_patterns_the_runs_fold():
    assert len(ARCHITECTURES) > 100
    assert any(a.mixers for a in ARCHITECTURES)  # sliding, state or no-mixer layers
    assert any(a.ffns and DENSE in a.ffns and len(set(a.ffns)) > 1 for a in ARCHITECTURES)
    assert any(a.wide_mlp_layers for a in ARCHITECTURES)
    assert any(a.kv_shared_layers for a in ARCHITECTURES)


@pytest.mark.parametrize("quantization", [None, "fp8"])
def test_weights_are_the_layer_by_layer_sum(monkeypatch, quantization):
    folded = {}
    for arch in ARCHITECTURES:
        for tp, pp in SHAPES:
            folded[arch.name, tp, pp] = arch._weight_bytes(tp, pp, quantization, None, 1)
    monkeypatch.setattr(Architecture, "_layer_runs", layer_by_layer)
    for arch in ARCHITECTURES:
        for tp, pp in SHAPES:
            one_by_one = arch._weight_bytes(tp, pp, quantization, None, 1)
            assert same(folded[arch.name, tp, pp], one_by_one), (arch.name, tp, pp)


def test_parameters_are_the_layer_by_layer_sum(monkeypatch):
    count = Architecture.parameters.func  # the cached property's function: computed afresh
    folded = {arch.name: count(arch) for arch in ARCHITECTURES}
    monkeypatch.setattr(Architecture, "_layer_runs", layer_by_layer)
    for arch in ARCHITECTURES:
        assert same(folded[arch.name], count(arch)), arch.name


def test_runs_cover_the_stage_in_order():
    for arch in ARCHITECTURES:
        for pp in (1, 2, 3, 7):
            stage = len(arch._stage_layers(pp))
            runs = arch._layer_runs(stage)
            unrolled = [
                (mixer, kind, wide, first + i, 1)
                for mixer, kind, wide, first, count in runs
                for i in range(count)
            ]
            assert unrolled == layer_by_layer(arch, stage), (arch.name, pp)


@pytest.mark.parametrize("kv_dtype", ["", "fp8_ds_mla"])
def test_kv_layouts_are_the_layer_by_layer_sums(kv_dtype):
    for arch in ARCHITECTURES:
        if arch.shared_indexer_layers:
            continue  # such models take the loop over the layers
        # an indexer shared by no layer there is changes nothing but takes the loop
        looped = replace(arch, shared_indexer_layers=frozenset({arch.num_layers + 1}))
        for tp, pp in SHAPES:
            for kv_bytes in (2, 1, 0.5):
                fast = arch._kv_layout(tp, pp, kv_bytes, kv_dtype)
                slow = looped._kv_layout(tp, pp, kv_bytes, kv_dtype)
                assert fast == slow, (arch.name, tp, pp, kv_bytes)
