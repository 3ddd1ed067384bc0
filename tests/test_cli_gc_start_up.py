"""A command's start-up (imports, rules, the file list) runs with the cyclic collector off; what
it made is frozen before the first file is linted, with the collector back on for the files; and
the process gets its collector back as it was when the command ends, whatever way it ends. A
caller that had the collector off, or had frozen objects itself, keeps exactly that."""

from __future__ import annotations

import gc

import pytest
from click.testing import CliRunner
from helpers import manifest

from hbmlint import cli, lint

GOOD = manifest(
    """
    engine: vllm
    gpu: {type: H100, count: 1}
    model: {name: meta-llama/Llama-3.1-8B-Instruct}
    """,
    name="small",
)


@pytest.fixture
def seen(monkeypatch):
    """The collector's state while the rules load and when the files are linted."""
    states: dict[str, tuple[bool, int]] = {}
    load_rules, lint_many = cli._load_rules, lint.lint_many

    def rules(*args, **kwargs):
        states["rules"] = (gc.isenabled(), gc.get_freeze_count())
        return load_rules(*args, **kwargs)

    def files(*args, **kwargs):
        states["files"] = (gc.isenabled(), gc.get_freeze_count())
        return lint_many(*args, **kwargs)

    monkeypatch.setattr(cli, "_load_rules", rules)
    monkeypatch.setattr(lint, "lint_many", files)
    return states


def _lint(tmp_path) -> None:
    (tmp_path / "good.yaml").write_text(GOOD)
    result = CliRunner().invoke(cli.main, ["--jobs", "1", str(tmp_path / "good.yaml")])
    assert result.exit_code == 0, result.output


def test_start_up_is_paused_then_frozen_and_all_is_given_back(tmp_path, seen):
    assert gc.isenabled() and gc.get_freeze_count() == 0
    _lint(tmp_path)
    rules_enabled, rules_frozen = seen["rules"]
    assert not rules_enabled and rules_frozen == 0  # paused, nothing frozen yet
    files_enabled, files_frozen = seen["files"]
    assert files_enabled and files_frozen > 0  # collecting again, start-up's objects frozen
    assert gc.isenabled() and gc.get_freeze_count() == 0  # thawed when the command ended


def test_a_caller_with_the_collector_off_keeps_it_off(tmp_path, seen):
    gc.disable()
    try:
        _lint(tmp_path)
        assert seen["rules"] == (False, 0)
        assert seen["files"] == (False, 0)  # neither turned on nor frozen
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_caller_that_froze_objects_keeps_them_frozen(tmp_path, seen):
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        _lint(tmp_path)
        assert seen["rules"][0] and seen["files"][0]  # never paused
        # nor more frozen, nor thawed (frozen objects that die still leave the count)
        assert frozen >= seen["rules"][1] >= seen["files"][1] >= gc.get_freeze_count() > 0
        assert gc.isenabled()
    finally:
        gc.unfreeze()


def test_a_command_that_fails_or_lints_nothing_gives_the_collector_back(monkeypatch):
    def broken(*args, **kwargs):
        assert not gc.isenabled()  # failing during start-up
        raise RuntimeError("a bug")

    monkeypatch.setattr(cli, "_load_rules", broken)
    result = CliRunner().invoke(cli.main, ["lint", "--jobs", "1", "nothing.yaml"])
    assert result.exit_code == 2
    assert gc.isenabled() and gc.get_freeze_count() == 0
    result = CliRunner().invoke(cli.main, ["gpus"])
    assert result.exit_code == 0, result.output
    assert gc.isenabled() and gc.get_freeze_count() == 0
