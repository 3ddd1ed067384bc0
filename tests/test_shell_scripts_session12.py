"""Launch scripts from a corpus of 8,076 real shell scripts (every .sh/.bash file of the 584
repositories swept so far), read with no GPU: the errors hbmlint gave there that the engine
would not. Each fixture names the public script whose pattern it reproduces."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_lint import errors

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
NESTED_DEFAULT = REAL / "shell-vllm-nested-default-quotes.sh"
FAKE_BINARY = REAL / "shell-trtllm-fake-binary-chmod.sh"
EMPTY_DEFAULT = REAL / "shell-vllm-args-empty-default.sh"
COVERED = {NESTED_DEFAULT.name, FAKE_BINARY.name, EMPTY_DEFAULT.name}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(path: Path, rules, gpu: str | None = "H100"):
    return lint_file(path, path.name, rules, LintOptions(default_gpu=gpu))


def test_a_default_holding_a_command_substitution_ends_at_its_own_brace(rules, tmp_path):
    # `${GIT_ROOT:-$(cd -- "${SCRIPT_DIR}/.." && pwd -P)}`: the first `}` belongs to
    # ${SCRIPT_DIR}; taking it for the end shifted every quote after it, and a later
    # --tensor-parallel-size read "2\nelse\n  echo DP-EP" (an HBM004 error vLLM never gives)
    assert errors(lint(NESTED_DEFAULT, rules)) == []
    script = tmp_path / "serve.sh"
    script.write_text(
        "#!/bin/bash\n"
        'ROOT="${ROOT:-$(cd -- "${DIR}/../.." && pwd -P)}"\n'
        "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2 --max-model-len 8192\n"
    )
    result = lint(script, rules)
    assert errors(result) == []
    [read] = result.deployments
    assert read.deployment.parallel.tensor == 2
    assert read.deployment.serving.max_model_len == 8192


def test_marking_a_stand_in_engine_executable_runs_no_engine(rules):
    # `chmod +x .../trtllm-serve` and `ls -l .../trtllm-serve` were read as trtllm-serve
    # commands with no model: two HBM003 errors on a script that starts nothing
    result = lint(FAKE_BINARY, rules)
    assert result.diagnostics == []
    assert result.deployments == []


def test_flags_from_an_empty_default_are_unread_not_absent(rules):
    # `exec python3 -m vllm.entrypoints.openai.api_server ${VLLM_ARGS:-}`: the model comes in
    # VLLM_ARGS from whoever starts the container; reading the default (nothing) gave "names no
    # model" as an error
    result = lint(EMPTY_DEFAULT, rules)
    assert errors(result) == []
    [note] = [f for f in result.diagnostics if f.code == "HBM011"]
    assert note.severity is Severity.INFO
    assert "${VLLM_ARGS:-}" in note.message and "cannot be checked" in note.message
    assert note.span.line == 11


def test_an_empty_default_of_a_variable_the_script_sets_stays_empty(rules, tmp_path):
    # set (to nothing) earlier in the script, the variable is known: no note, the model read
    script = tmp_path / "serve.sh"
    script.write_text(
        "#!/bin/bash\nEXTRA_ARGS=\nvllm serve Qwen/Qwen3-8B --max-model-len 8192 ${EXTRA_ARGS:-}\n"
    )
    result = lint(script, rules)
    assert [f for f in result.diagnostics if f.code == "HBM011"] == []
    [read] = result.deployments
    assert read.deployment.model.name == "Qwen/Qwen3-8B"


@pytest.mark.parametrize(
    ("line", "severity", "says"),
    [
        # vLLM's model positional is optional: it starts on ModelConfig's default model
        ("vllm serve --port 8000", "warning", "default model, Qwen/Qwen3-0.6B (facebook/opt-125m"),
        (
            "docker run --gpus all vllm/vllm-openai:v0.8.5 --port 8000",
            "warning",
            "default model, facebook/opt-125m,",
        ),
        (
            "python -m vllm.entrypoints.openai.api_server --served-model-name chat",
            "warning",
            "default model, Qwen/Qwen3-0.6B",
        ),
        # `vllm serve --served-model-name NAME` with no model: refused from 0.17.0
        (
            "docker run --gpus all vllm/vllm-openai:v0.18.0 --served-model-name chat",
            "error",
            "vLLM 0.18.0 refuses to start",
        ),
        (
            "docker run --gpus all vllm/vllm-openai:v0.16.0 --served-model-name chat",
            "warning",
            "default model, Qwen/Qwen3-0.6B,",
        ),
        ("vllm serve --served-model-name chat", "warning", "0.17.0 and later refuse to start"),
    ],
)
def test_a_vllm_command_without_a_model_is_judged_by_the_release(
    rules, tmp_path, line, severity, says
):
    script = tmp_path / "serve.sh"
    script.write_text(f"#!/bin/bash\n{line}\n")
    result = lint(script, rules)
    [finding] = [f for f in result.diagnostics if f.code == "HBM003"]
    assert str(finding.severity) == severity
    assert says in finding.message, finding.message
    assert result.deployments == []
