"""settings_for reads what depends on the engine's release and the GPU alone (V0 engine or not,
the release's `derived` entry, the batch defaults' tier, the huge-GPU batched tokens) once
per GPU, engine and release (budget._release_on_gpu): the answers of the functions it
called for every deployment, for every GPU and release."""

from __future__ import annotations

import dataclasses

import pytest
from helpers import recorded_builds

from hbmlint import budget as budget_stage
from hbmlint import catalog

GPUS = ["H100", "H200", "B200", "MI300X", "GB10", "A100-80GB", "L4", "B300", "T4"]
RELEASES = [None, "0.7.3", "0.8.5 (V0 engine)", "0.10.1", "0.28.0", "0.33.1", "v0.4.6", "2.3.0"]


@pytest.fixture(scope="module")
def resolved_deployments() -> list:
    return [resolved for resolved, budget in recorded_builds()]


def _expected(resolved, defaults) -> tuple:
    """What settings_for worked out of these for every deployment, as it did."""
    dep, gpu = resolved.deployment, resolved.gpu
    huge = defaults.get("huge_gpu")
    gib = float(gpu.memory.to("GiB").magnitude)
    return (
        budget_stage._is_legacy(defaults, dep.engine_version),
        budget_stage._derived_entry(defaults, dep.engine_version),
        "large_gpu" if budget_stage._large_gpu(gpu, defaults, dep) else "other",
        int(huge["max_num_batched_tokens"])
        if huge and gib >= float(huge["min_gib"]) and budget_stage._at_least(dep, "huge_gpu_since")
        else None,
    )


def test_the_release_on_a_gpu_is_what_settings_for_read(resolved_deployments):
    seen = set()
    engines = {}
    for resolved in resolved_deployments:
        engines.setdefault(resolved.deployment.engine, resolved)
    for resolved in engines.values():
        for name in GPUS:
            for release in RELEASES:
                dep = dataclasses.replace(resolved.deployment, engine_version=release)
                gpu = catalog.find_gpu(name)
                other = dataclasses.replace(resolved, deployment=dep, gpu=gpu)
                defaults = catalog.engine_defaults(dep.engine)
                expected = _expected(other, defaults)
                for _ in range(2):  # worked out, then kept
                    assert budget_stage._release_on_gpu(other, defaults) == expected
                seen.add(expected[2:])
    assert {tier for tier, _ in seen} == {"large_gpu", "other"}
    assert any(huge for _, huge in seen) and any(huge is None for _, huge in seen)


def test_kept_per_gpu_engine_and_release(resolved_deployments):
    resolved = next(r for r in resolved_deployments if r.deployment.engine == "vllm")
    defaults = catalog.engine_defaults("vllm")
    answers = {}
    for release in ("0.28.0", "0.27.0"):
        for name in ("B200", "H100"):
            dep = dataclasses.replace(resolved.deployment, engine_version=release)
            other = dataclasses.replace(resolved, deployment=dep, gpu=catalog.find_gpu(name))
            answers[release, name] = budget_stage._release_on_gpu(other, defaults)[3]
    # B200 from 0.28 alone gets the huge-GPU batch: not the first answer for another key
    assert answers == {
        ("0.28.0", "B200"): 16384,
        ("0.28.0", "H100"): None,
        ("0.27.0", "B200"): None,
        ("0.27.0", "H100"): None,
    }


def test_settings_as_every_deployment_read_them(resolved_deployments):
    for resolved in resolved_deployments:
        settings, _ = budget_stage.settings_for(resolved)
        budget_stage._RELEASES_ON_GPUS.clear()
        again, _ = budget_stage.settings_for(resolved)
        assert again == settings
