"""What the budget reads of an engine's release from engines.yaml, worked out once per engine
and release (budget._release_matters, budget._graphs_maybe_uncharged_for): the same answers
as reading engines.yaml for every deployment, for every engine, at and around its
boundaries."""

from __future__ import annotations

from hbmlint import budget, catalog

ENGINES = ["vllm", "sglang", "tgi", "trtllm"]
VERSIONS = [None, "0.5.0", "0.24.9", "0.25", "0.25.1", "0.29.9", "0.30", "0.30.0", "v0.30.1", "3.0"]


def test_the_notes_say_the_release_matters_as_engines_yaml_says():
    for engine in ENGINES:
        defaults = catalog.engine_defaults(engine)
        versioned = defaults["memory_fraction"].get("before") or "v0" in defaults
        assert budget._release_matters(engine) is bool(versioned or "derived" in defaults)
    assert budget._release_matters("vllm")


def test_graphs_maybe_uncharged_as_engines_yaml_says():
    seen = set()
    for engine in ENGINES:
        window = catalog.engine_defaults(engine).get("graphs_maybe_uncharged")
        for text in VERSIONS:
            version = budget.release(text)
            expected = bool(window) and version is not None
            expected = expected and budget.release(window[0]) <= version < budget.release(window[1])
            found = budget._graphs_maybe_uncharged_for(engine, text)
            assert found is expected, (engine, text)
            seen.add(found)
    assert seen == {True, False}  # vLLM's window is among the releases tried
