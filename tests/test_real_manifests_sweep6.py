"""Patterns from public repositories hbmlint had never seen (sweep 6): each fixture under
tests/fixtures/real/ names its source in its first lines; each test says what a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.lint import lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(name: str, rules, **options):
    return lint_file(REAL / name, name, rules)


def line_of(name: str, needle: str) -> int:
    lines = (REAL / name).read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if needle in line)


def test_a_charts_values_with_model_and_quantization_is_not_a_vllm_config(rules):
    # vLLM would refuse `--replicaCount` or `--dtype ''`; the chart never passes them: no error
    result = lint("chart-values-model-quantization-empty.yaml", rules)
    assert result.deployments == []
    assert result.diagnostics == []


def test_a_vllm_config_with_the_same_keys_is_still_read(rules, tmp_path):
    config = tmp_path / "serve.yaml"
    config.write_text("model: Qwen/Qwen3-8B\nquantization: fp8\nmax-model-len: 8192\n")
    [deployment] = lint_file(config, "serve.yaml", rules).deployments
    assert deployment.deployment.model.name == "Qwen/Qwen3-8B"


COVERED = {"chart-values-model-quantization-empty.yaml"}
