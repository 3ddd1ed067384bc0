"""The overhead lines the budget works out from each engine release's figures, read once a run
(budget._overhead_figures), against the same lines worked out from the release's overhead
constants as they are read for every budget (overhead_constants, and the release boundaries
by name): every deployment of the fixtures and examples, and what-ifs of them that change the
drafter, the engine's batch and the GPU count, on every engine. And the GPU's memory, read
once per GPU and unit, is each GPU's own.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest

from hbmlint import budget as budget_stage
from hbmlint import catalog
from hbmlint.lint import LintOptions, discover, lint_file

ROOT = Path(__file__).parent.parent
SOURCES = [ROOT / "tests" / "fixtures", ROOT / "examples"]


def expected_overhead(resolved, s, group) -> dict:
    """overhead_bytes as it reads the release's constants by name."""
    spec = budget_stage.overhead_constants(s)
    parsed = budget_stage._overhead_constants(s.engine, s.engine_version, s.legacy_engine)
    target = resolved.target
    tp = s.tensor_parallel
    key = "non_torch_tp1" if tp * s.pipeline_parallel == 1 else "non_torch_tp_many"
    non_torch = parsed[budget_stage._PARSED + key]
    if group > 0 and budget_stage.fraction_meaning(s.engine) != "weights_and_kv_of_total":
        non_torch = parsed[budget_stage._PARSED + "non_torch_tp1"] + group
    sampled = min(s.max_num_seqs, s.max_num_batched_tokens)
    if spec.get("sampled_sequences") == "context_requests":
        sampled = math.ceil(
            s.max_num_batched_tokens / min(s.max_num_batched_tokens, s.max_model_len)
        )
    mlp = float(spec["mlp_factor"]) * target.active_intermediate_size / tp
    forward = s.max_num_batched_tokens * mlp * catalog.dtype_bytes(s.dtype)
    verify = 0.0
    if s.speculative_method not in ("none", "") and s.num_speculative_tokens > 0:
        verify = float(spec.get("verify_rows", 0)) * catalog.dtype_bytes(s.dtype)
    sampler = sampled * target.vocab_size * (float(spec["logit_bytes"]) + verify)
    activation = max(forward, sampler)
    if "prefill_logit_bytes" in spec and budget_stage._before(s, "prefill_logprobs_before"):
        prefill = s.max_num_batched_tokens * target.vocab_size * float(spec["prefill_logit_bytes"])
        activation = max(activation, prefill)
    if target.vision is not None:
        encoder = float(spec.get("vision_mlp_factor", spec["mlp_factor"]))
        vision = budget_stage._vision_profile(target, s, float(spec["mlp_factor"]), encoder)
        activation = max(activation, vision)
    if s.engine == "tgi" and target.vision is not None:
        # TGI's dense warm-up attention (Gemma 3 in 3.2.x): a moment of the peak of its own
        dense = budget_stage._tgi_dense_prefill(resolved, s)
        if dense is not None:
            activation = max(activation, dense[0])
    overhead = {"non_torch": non_torch, "activation": activation}
    if not s.enforce_eager and budget_stage._graphs_in_budget_for(s.engine, s.engine_version):
        overhead["cuda_graphs"] = budget_stage.graph_profile_bytes(s)
    if s.extensible_kv_cache:  # vLLM 0.34: its margin beyond what the fraction leaves free
        total = float(resolved.gpu.memory.to("byte").magnitude)
        free = total - budget_stage._extensible_held(resolved)
        left = free - min(total * s.memory_fraction, free)
        kept = budget_stage._extensible_margin(resolved, activation) - left
        if kept > 0:
            overhead["margin"] = kept
    return overhead


def budgets() -> list:
    found = []
    options = LintOptions(keep_budgets=True, default_gpu="H100")
    for source in SOURCES:
        for path, name in discover([str(source)]):
            for item in lint_file(path, name, [], options).deployments:
                if item.budget is not None:
                    found.append(item.budget)
    return found


def variants(budget) -> list:
    s = budget.settings
    changes = [
        {},
        {"speculative_method": "none", "num_speculative_tokens": 0},
        {"speculative_method": "ngram", "num_speculative_tokens": 3},
        {"max_num_seqs": 7, "max_num_batched_tokens": 100_000, "max_model_len": 512},
        {"tensor_parallel": s.tensor_parallel * 2, "enforce_eager": not s.enforce_eager},
    ]
    return [budget_stage._changed(s, change) for change in changes]


def test_the_figures_give_the_overhead_the_constants_give():
    found = budgets()
    engines = {b.settings.engine for b in found}
    assert {"vllm", "sglang", "tgi", "trtllm"} <= engines  # every engine's constants are read
    assert any(b.resolved.target.vision is not None for b in found)
    checked = 0
    for budget in found:
        resolved = budget.resolved
        for s in variants(budget):
            for group in (0, budget_stage.nvswitch_group_bytes(resolved.gpu, s), 2**30):
                got = budget_stage.overhead_bytes(resolved, s, group)
                assert got == expected_overhead(resolved, s, group), (resolved.deployment.name, s)
                checked += 1
    assert checked > 100


@pytest.mark.parametrize(
    ("engine", "version", "legacy"),
    [
        ("vllm", None, False),
        ("vllm", "0.11.0", False),
        ("vllm", "0.6.3", True),
        ("tgi", "2.0.4", False),
        ("tgi", None, False),
        ("trtllm", "0.21.0", False),
        ("trtllm", None, False),
        ("sglang", "0.4.6", False),
    ],
)
def test_each_release_gets_its_own_figures(engine, version, legacy):
    alone = budget_stage._overhead_figures.__wrapped__(engine, version, legacy)
    again = budget_stage._overhead_figures(engine, version, legacy)
    assert [getattr(again, n) for n in again.__slots__] == [
        getattr(alone, n) for n in alone.__slots__
    ]
    s = budget_stage._settings(
        {
            **{f.name: None for f in dataclasses.fields(budget_stage.Settings)},
            **budget_stage._SETTING_DEFAULTS,
            "engine": engine,
            "engine_version": version,
            "legacy_engine": legacy,
        }
    )
    spec = budget_stage.overhead_constants(s)
    assert alone.mlp_factor == float(spec["mlp_factor"])
    assert alone.logit_bytes == float(spec["logit_bytes"])
    assert alone.verify_rows == float(spec.get("verify_rows", 0))
    with_prefill = "prefill_logit_bytes" in spec and budget_stage._before(
        s, "prefill_logprobs_before"
    )
    assert (alone.prefill_logit_bytes is not None) == with_prefill


def test_each_gpu_and_unit_reads_its_own_memory():
    h100, l4 = catalog.find_gpu("H100"), catalog.find_gpu("L4")
    for gpu in (h100, l4, h100, l4):
        for unit in ("byte", "GiB", "MiB", "byte"):
            assert budget_stage._gpu_memory(gpu, unit) == gpu.memory.to(unit)
    custom = dataclasses.replace(h100, memory=h100.memory * 0.5)
    assert budget_stage._gpu_memory(custom, "GiB") == custom.memory.to("GiB")
    assert budget_stage._gpu_memory(custom, "GiB") != budget_stage._gpu_memory(h100, "GiB")
