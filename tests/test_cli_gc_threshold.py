"""A command runs with the cyclic collector's first threshold raised to
cli.COMMAND_GC_THRESHOLD (collections of young objects ten times rarer), and the process gets
its own settings back when the command ends, whatever way it ends."""

from __future__ import annotations

import gc

from click.testing import CliRunner
from helpers import manifest

from hbmlint import cli

GOOD = manifest(
    """
    engine: vllm
    gpu: {type: H100, count: 1}
    model: {name: meta-llama/Llama-3.1-8B-Instruct}
    """,
    name="small",
)


def test_a_lint_runs_with_the_raised_threshold_and_restores_it(monkeypatch, tmp_path):
    (tmp_path / "good.yaml").write_text(GOOD)
    seen = []
    real = cli._run

    def run(*args, **kwargs):
        seen.append(gc.get_threshold())
        return real(*args, **kwargs)

    monkeypatch.setattr(cli, "_run", run)
    before = gc.get_threshold()
    result = CliRunner().invoke(cli.main, ["--jobs", "1", str(tmp_path / "good.yaml")])
    assert result.exit_code == 0, result.output
    assert seen == [(max(before[0], cli.COMMAND_GC_THRESHOLD), *before[1:])]
    assert gc.get_threshold() == before


def test_the_settings_come_back_after_an_error_too(monkeypatch):
    seen = []

    def broken(*args, **kwargs):
        seen.append(gc.get_threshold()[0])
        raise RuntimeError("a bug")

    monkeypatch.setattr(cli, "_run", broken)
    before = gc.get_threshold()
    gc.set_threshold(50_000, *before[1:])  # a higher threshold the process chose is kept
    try:
        result = CliRunner().invoke(cli.main, ["lint", "--jobs", "1", "nothing.yaml"])
        assert result.exit_code == 2
        assert seen == [50_000]
        assert gc.get_threshold() == (50_000, *before[1:])
    finally:
        gc.set_threshold(*before)
