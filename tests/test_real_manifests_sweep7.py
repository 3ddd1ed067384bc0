"""Patterns from public repositories hbmlint had never seen (sweep 7): each fixture under
tests/fixtures/real/ names its source in its first lines; each test says what a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(name: str, rules, gpu: str | None = None):
    return lint_file(REAL / name, name, rules, LintOptions(default_gpu=gpu))


def line_of(name: str, needle: str) -> int:
    lines = (REAL / name).read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if needle in line)


@pytest.mark.parametrize("gpu", [None, "H100"])
def test_an_llm_inference_service_on_the_llm_d_simulator_is_an_info(rules, gpu):
    # the simulator loads no model: no "names no GPU type" warning, and no budget even where
    # --gpu names one
    name = "kserve-llmisvc-simulator.yaml"
    result = lint(name, rules, gpu)
    assert result.deployments == []
    [info] = result.diagnostics
    assert (info.code, info.severity.name) == ("HBM014", "INFO")
    assert "inference simulator" in info.message
    assert info.span.line == line_of(name, "name: prefix-routing-sim")
