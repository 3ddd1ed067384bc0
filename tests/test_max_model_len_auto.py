"""vLLM's --max-model-len auto (0.14 and later): the engine fits the longest sequence to its KV
cache instead of refusing to start, and hbmlint budgets the same. The fixture is a reduced real
pattern (tests/fixtures/real/vllm-max-model-len-auto.yaml names its source)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
NAME = "vllm-max-model-len-auto.yaml"


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(tmp_path: Path, rules, old: str = "", new: str = ""):
    text = (REAL / NAME).read_text()
    if old:
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / NAME
    path.write_text(text)
    return lint_file(path, NAME, rules, LintOptions(keep_budgets=True))


def codes(result) -> list[str]:
    return [d.code for d in result.diagnostics]


@pytest.mark.parametrize("value", ["auto", "AUTO", "-1"])
def test_auto_is_fitted_to_the_kv_cache_not_a_refusal(tmp_path, rules, value):
    result = lint(tmp_path, rules, '"--max-model-len", "auto"', f'"--max-model-len", "{value}"')
    assert not [d for d in result.diagnostics if d.severity.name == "ERROR"]
    assert "HBM102" not in codes(result) and "HBM105" not in codes(result)
    [deployment] = result.deployments
    budget = deployment.budget
    tokens = int(budget.kv_tokens.magnitude)
    assert budget.settings.max_model_len == tokens < 40_960
    assert "--max-model-len auto" in budget.assumed["max_model_len"]
    [note] = [d for d in result.diagnostics if d.code == "HBM323"]
    assert note.severity.name == "INFO"
    assert f"about {tokens:,} tokens, below the model's 40,960 tokens" in note.message
    text = (REAL / NAME).read_text().splitlines()
    assert note.span.line == next(i for i, s in enumerate(text, 1) if '"--max-model-len"' in s)


def test_a_model_that_fits_whole_gets_its_own_length_and_no_note(tmp_path, rules):
    result = lint(tmp_path, rules, "nvidia-l4", "nvidia-h100-80gb")
    assert codes(result) == []
    assert result.deployments[0].budget.settings.max_model_len == 40_960


def test_the_cap_bounds_the_length_and_is_the_users_choice(tmp_path, rules):
    result = lint(
        tmp_path,
        rules,
        '"--max-model-len", "auto"',
        '"--max-model-len", "auto", "--max-model-len-cap", "16k"',
    )
    assert codes(result) == []
    assert result.deployments[0].budget.settings.max_model_len == 16_000


def test_a_release_before_auto_is_budgeted_at_the_models_length(tmp_path, rules):
    """vLLM 0.13 and earlier parse --max-model-len as an integer: no fitting happens."""
    result = lint(tmp_path, rules, "v0.18.0", "v0.12.0")
    assert "HBM323" not in codes(result)
    budget = result.deployments[0].budget
    assert budget.settings.max_model_len == 40_960
    assert "0.12.0 does not take it, 0.14 and later do" in budget.assumed["max_model_len"]
