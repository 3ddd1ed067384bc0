"""A model the manifest names by a catalog id is read once a run (resolve._NAMED): a later
deployment naming it gets the architecture the candidates' loop gave, unless the loop would now
give another one (a model annotation, a model-paths entry, a lock file written since, a team
catalog read since)."""

from __future__ import annotations

import copy
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from hbmlint import catalog, lint, resolve
from hbmlint.catalog import hub, lockdir
from hbmlint.catalog.checkpoint import Checkpoint
from hbmlint.rules import builtin_rule_files, load_rules
from hbmlint.spec import Label
from hbmlint.yamlsrc import Span

REPO = Path(__file__).resolve().parent.parent
LLAMA_8B = "meta-llama/Llama-3.1-8B-Instruct"
QWEN_7B = "Qwen/Qwen2.5-7B-Instruct"


def _recorded_deployments() -> list[tuple]:
    """Every (deployment, options) linting the fixtures and examples resolves, copied before
    resolve reads them."""
    inputs = [
        *sorted((REPO / "tests" / "fixtures").rglob("*.yaml")),
        *sorted((REPO / "examples").rglob("*.yaml")),
    ]
    found: list[tuple] = []
    real = lint.resolve

    def recording(deployment, options=None):
        found.append((copy.deepcopy(deployment), options))
        return real(deployment, options=options)

    rules, _ = load_rules(builtin_rule_files())
    lint.resolve = recording
    try:
        for path in inputs:
            lint.lint_file(path, str(path), rules, lint.LintOptions())
    finally:
        lint.resolve = real
    assert len(found) > 100
    return found


@pytest.fixture(scope="module")
def deployments() -> list[tuple]:
    return _recorded_deployments()


def _resolved(deployment, options=None):
    hub.reset()  # each call's warnings as the run's first (one a model a run)
    return resolve.resolve(copy.deepcopy(deployment), options=options)


def _facts(answer: tuple) -> tuple:
    """What resolve gives, but the deployment (each call resolves a copy of its own)."""
    resolved, findings = answer
    if resolved is None:
        return None, findings
    kept = {k: v for k, v in vars(resolved).items() if k != "deployment"}
    return kept, findings


def _named(deployments, model_id):
    for deployment, options in deployments:
        if deployment.model.name != model_id or deployment.model.config is not None:
            continue
        if deployment.hints or _resolved(deployment, options)[0] is None:
            continue  # one that resolves, named by the model's name alone
        return deployment, options
    raise AssertionError(f"no fixture names {model_id}")


def test_every_deployment_resolves_as_the_loop_resolves_it(deployments, monkeypatch):
    kept_any = False
    for deployment, options in deployments:
        resolve._NAMED.clear()
        monkeypatch.setattr(resolve, "_keep_named", lambda *args: None)
        loop = _resolved(deployment, options)  # the candidates' loop alone
        monkeypatch.undo()
        first = _resolved(deployment, options)  # the loop, keeping what it found
        again = _resolved(deployment, options)  # the kept answer where it stands
        assert _facts(first) == _facts(loop) == _facts(again), deployment.name
        if again[0] is not None and deployment.model.name in resolve._NAMED:
            kept_any = True
            assert again[0].target is first[0].target  # the kept architecture itself
    assert kept_any


def test_a_model_annotation_names_the_model_not_the_kept_name(deployments):
    deployment, options = _named(deployments, LLAMA_8B)
    resolve._NAMED.clear()
    assert _resolved(deployment, options)[0].target.name == LLAMA_8B
    assert LLAMA_8B in resolve._NAMED
    annotated = replace(
        deployment,
        hints=[*deployment.hints, Label(resolve.MODEL_ANNOTATION, QWEN_7B, Span(1, 1, 1, 2))],
    )
    resolved, _ = _resolved(annotated, options)
    assert resolved.target.name == QWEN_7B
    assert "hbmlint.io/model" in resolved.assumed["model"]


def test_a_model_paths_entry_for_the_name_maps_it(deployments):
    deployment, options = _named(deployments, LLAMA_8B)
    resolve._NAMED.clear()
    _resolved(deployment, options)
    assert LLAMA_8B in resolve._NAMED
    # the recorded call's GPU kept (a deployment naming none is resolved on a stand-in card
    # for the GPU-free rules: lint.GPU_FREE_RULES)
    gpu = options.default_gpu if options is not None else None
    mapped = resolve.ResolveOptions(default_gpu=gpu, model_paths=((LLAMA_8B, QWEN_7B),))
    resolved, _ = _resolved(deployment, mapped)
    assert resolved.target.name == QWEN_7B


def test_a_lock_file_written_after_the_name_was_kept_is_read(deployments, tmp_path, monkeypatch):
    deployment, options = _named(deployments, LLAMA_8B)
    monkeypatch.chdir(tmp_path)
    lockdir._lock_dir_from.cache_clear()
    resolve._NAMED.clear()
    before = _resolved(deployment, options)[0].target
    assert LLAMA_8B in resolve._NAMED
    config = dict(catalog.find_model(LLAMA_8B)["config"])
    config["num_hidden_layers"] = 16
    try:
        lockdir.write(
            tmp_path / lockdir.LOCK_DIR, LLAMA_8B, config, Checkpoint("test"), None, "test"
        )
        after = _resolved(deployment, options)[0].target
    finally:
        lockdir.read.cache_clear()
        lockdir._lock_dir_from.cache_clear()
    assert before.num_layers == 32 and after.num_layers == 16
    assert after.source.endswith(lockdir.file_name(LLAMA_8B))


def test_a_team_catalog_read_after_the_name_was_kept_is_read(deployments, tmp_path):
    deployment, options = _named(deployments, LLAMA_8B)
    resolve._NAMED.clear()
    before = _resolved(deployment, options)[0].target
    entry = dict(catalog.find_model(LLAMA_8B))
    entry["config"] = {**entry["config"], "num_hidden_layers": 16}
    team = tmp_path / "team.yaml"
    team.write_text(yaml.safe_dump({"models": [entry]}))
    try:
        catalog.use_extra_files([team])
        after = _resolved(deployment, options)[0].target
    finally:
        catalog.use_extra_files([])
    assert before.num_layers == 32 and after.num_layers == 16
    assert _resolved(deployment, options)[0].target.num_layers == 32


def test_the_kept_names_are_bounded(deployments):
    deployment, options = _named(deployments, LLAMA_8B)
    resolve._NAMED.clear()
    found = resolve._from_catalog(LLAMA_8B, False)
    target = _resolved(deployment, options)[0].target
    for index in range(2000):
        resolve._keep_named(f"org/model-{index}", found, target)
    assert len(resolve._NAMED) <= 1024


def test_a_broken_lock_file_written_after_the_name_was_kept_is_reported(
    deployments, tmp_path, monkeypatch
):
    deployment, options = _named(deployments, LLAMA_8B)
    monkeypatch.chdir(tmp_path)
    lockdir._lock_dir_from.cache_clear()
    resolve._NAMED.clear()
    assert _resolved(deployment, options)[0] is not None
    folder = tmp_path / lockdir.LOCK_DIR
    folder.mkdir(parents=True)
    (folder / lockdir.file_name(LLAMA_8B)).write_text("{not json")
    lockdir._lock_dir_from.cache_clear()  # the folder is new (as `models pull` clears it)
    try:
        resolved, findings = _resolved(deployment, options)
    finally:
        lockdir.read.cache_clear()
        lockdir._lock_dir_from.cache_clear()
    assert resolved is None
    assert [f.code for f in findings] == ["HBM006"] and "lock file" in findings[0].message
