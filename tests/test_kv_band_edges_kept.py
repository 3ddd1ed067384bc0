"""A budget works out its KV band's two edges together, once (Budget._band_edges, from
_spreads' plain bytes each way): the rules read both edges of every vLLM budget, and the
blocks at one. The edges and spreads are what the per-direction formula gives, to the last
bit, on every fixture's and example's budget and its what-ifs."""

from __future__ import annotations

import pytest
from helpers import recorded_builds

from hbmlint.budget import (
    KV_UNCERTAINTY_DOWN,
    KV_UNCERTAINTY_UP,
    _graphs_maybe_uncharged_for,
    _release_before,
    fraction_meaning,
    nvswitch_group_bytes,
)
from hbmlint.units import in_bytes


@pytest.fixture(scope="module")
def budgets() -> list:
    return [budget for resolved, budget in recorded_builds(keep_budgets=True)]


def _spread(b, up: bool):
    """kv_uncertainty's bytes one way, as the budget worked them out before (one direction a
    call), from the figures."""
    s = b.settings
    if s.kv_cache_memory_bytes:
        return 0
    of_overhead, of_weights = KV_UNCERTAINTY_UP if up else KV_UNCERTAINTY_DOWN
    weights = in_bytes(b.weights) + in_bytes(b.draft_weights)
    spread = in_bytes(b.overhead_total) * of_overhead + weights * of_weights
    graphs = b.overhead.get("cuda_graphs")
    if up and graphs is not None and _graphs_maybe_uncharged_for(s.engine, s.engine_version):
        spread = spread + in_bytes(graphs) * (1 - of_overhead)
    kept = b.overhead.get("margin")  # vLLM 0.34's margin, which an unnamed release may not keep
    serving = b.resolved.deployment.serving
    if up and kept is not None and s.engine_version is None and serving.gpu_memory_utilization:
        spread = spread + in_bytes(kept) * (1 - of_overhead)
    state = 0.0  # TensorRT-LLM's Mamba cache, which a later release may keep in the KV pool
    if s.engine == "trtllm":
        state = max(int(s.max_num_seqs), 1) * in_bytes(b.kv_state_bytes_per_sequence)
    if up and state and not _release_before(s.engine, s.engine_version, "mamba_state_pooled_since"):
        spread = spread + state * s.memory_fraction
    group = nvswitch_group_bytes(b.resolved.gpu, s) if up else 0
    if group > 0:
        in_overhead = fraction_meaning(s.engine) != "weights_and_kv_of_total"
        spread = spread + (group * (1 - of_overhead) if in_overhead else group)
    margin = b.warmup_margin
    if not up and margin is not None and spread >= in_bytes(margin):
        return max(spread, in_bytes(b.kv_cache))
    return spread


def test_both_edges_are_worked_out_once_and_kept(budgets):
    checked = 0
    for base in budgets:
        for b in (base, base.whatif(speculative_method="none"), base.whatif(tensor_parallel=2)):
            b.__dict__.pop("_kv_edges", None)  # the lint that made it read the band
            low = b.kv_band_tokens(False)
            edges = b.__dict__["_kv_edges"]
            b.kv_band_tokens(True)
            b.kv_band_blocks(True)
            assert b.__dict__["_kv_edges"] is edges  # worked out once
            kv_cache = in_bytes(b.kv_cache)
            down, up = _spread(b, False), _spread(b, True)
            assert [repr(v) for v in b._spreads()] == [repr(down), repr(up)]
            assert edges == (float(kv_cache - down), float(kv_cache + up))
            assert low == b.kv_tokens_if(b.kv_cache - b.kv_uncertainty(False))
            checked += 1
    assert checked > 300
