"""Patterns from public repositories hbmlint had never seen (sweep 8): each fixture under
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


COVERED = {
    "compose-device-ids-variable.yml",
    "shell-angle-placeholders.yaml",
    "vllm-omni-stages.yaml",
}


@pytest.mark.parametrize("gpu", [None, "H100"])
def test_an_angle_bracket_placeholder_in_a_shell_script_is_not_a_redirection(rules, gpu):
    # `--model <model-path>` in `sh -c`: a placeholder to fill in (an info at the word), not
    # "names no model" and "--model needs a value" errors
    name = "shell-angle-placeholders.yaml"
    result = lint(name, rules, gpu)
    sample = [f for f in result.diagnostics if f.deployment == "neuron-pool"]
    [info] = sample
    assert (info.code, info.severity.name) == ("HBM011", "INFO")
    assert "'<model-path>'" in info.message and "placeholder" in info.message
    assert info.span.line == line_of(name, "--model <model-path> \\")


def test_real_redirections_around_an_engine_are_still_skipped(rules):
    # `< /dev/null > /tmp/vllm.log` after the flags: the model is read, the log file is not
    # taken as a served name or a flag value
    result = lint("shell-angle-placeholders.yaml", rules, "H100")
    [filled] = [d for d in result.deployments if d.deployment.name == "filled-in"]
    assert filled.deployment.model.name == "Qwen/Qwen3-8B"
    assert filled.budget is not None
    assert [f for f in result.diagnostics if f.deployment == "filled-in"] == []


@pytest.mark.parametrize("gpu", [None, "L4"])
def test_vllm_omni_stages_are_not_budgeted_as_one_engine(rules, gpu):
    # `vllm serve MODEL --omni` on 2 GPUs: vllm-omni's stage config uses both, so no "leaves
    # 1 idle" warning (whose fix, "Request 1 GPUs", would starve the talker stage) and no
    # single-engine budget; an info at --omni says why
    name = "vllm-omni-stages.yaml"
    result = lint(name, rules, gpu)
    assert result.deployments == []
    [info] = result.diagnostics
    assert (info.code, info.severity.name) == ("HBM011", "INFO")
    assert "vllm-omni" in info.message and "not budgeted" in info.message
    assert info.span.line == line_of(name, "- --omni")


def test_a_compose_device_id_left_to_a_variable_leaves_the_gpu_count_unknown(rules):
    # device_ids: ["${GPU_ID_x:?error}"], which a setup script fills with "0,1": no false
    # "1 GPUs requested ... cannot start" error; an info says why; a written single id still
    # refuses TP 2
    name = "compose-device-ids-variable.yml"
    result = lint(name, rules, "H100")
    by_name = {d.deployment.name: d for d in result.deployments}
    assert by_name["qwen-32b"].budget is not None
    assert by_name["qwen-32b"].deployment.parallel.tensor == 2
    variable = [f for f in result.diagnostics if f.deployment == "qwen-32b"]
    assert [(f.code, f.severity.name) for f in variable] == [("HBM011", "INFO")]
    assert "GPU_ID_qwen_32b" in variable[0].message and "not known" in variable[0].message
    assert variable[0].span.line == line_of(name, 'device_ids: ["${GPU_ID_qwen_32b')
    [short] = [f for f in result.diagnostics if f.deployment == "qwen-32b-one-gpu"]
    assert (short.code, short.severity.name) == ("HBM007", "ERROR")
