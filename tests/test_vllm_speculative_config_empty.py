"""``--speculative-config ""`` (a launch script's "$SPEC_CONFIG" left empty to turn speculation
off): vLLM reads the flag with optional_type(json.loads), so '' and None are no speculative
decoding (vllm-project/vllm@v0.33.0 vllm/engine/arg_utils.py). hbmlint called it invalid JSON,
an HBM004 error for a server that starts."""

from __future__ import annotations

import pytest

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

SCRIPT = """\
#!/bin/bash
SPEC_CONFIG=VALUE
vllm serve Qwen/Qwen3-8B --max-model-len 8192 --speculative-config "$SPEC_CONFIG"
"""


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(tmp_path, rules, value: str):
    path = tmp_path / "serve.sh"
    path.write_text(SCRIPT.replace("VALUE", value))
    return lint_file(path, "serve.sh", rules, LintOptions(keep_budgets=True, default_gpu="H100"))


@pytest.mark.parametrize("value", ['""', "None"])
def test_an_empty_speculative_config_is_no_speculation(tmp_path, rules, value):
    result = lint(tmp_path, rules, value)
    assert result.diagnostics == []
    assert not result.deployments[0].budget.has_drafter


def test_a_speculative_config_that_is_not_json_is_still_refused(tmp_path, rules):
    result = lint(tmp_path, rules, "'{method: eagle3}'")
    [error] = result.diagnostics
    assert error.code == "HBM004" and "not valid JSON" in error.message
    assert error.span.line == 3


def test_the_variable_set_to_json_is_read(tmp_path, rules):
    value = """'{"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4}'"""
    result = lint(tmp_path, rules, value)
    assert result.deployments[0].budget.settings.speculative_method == "ngram"
