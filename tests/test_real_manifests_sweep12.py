"""Patterns from public repositories hbmlint had never seen (sweep 12): each fixture under
tests/fixtures/real/ names its source in its first lines; each test says what a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_lint import errors, line_of, lint

from hbmlint.diagnostics import Severity
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"

NOT_RUN = REAL / "shell-engine-named-not-run.sh"
ARRAY = REAL / "shell-sglang-flags-in-bash-array.sh"
ENTRYPOINT = REAL / "docker-run-entrypoint-not-the-engine.sh"
TGI_ENV = REAL / "tgi-model-from-the-environment.sh"
NESTED_DEFAULT = REAL / "trtllm-model-default-from-another-variable.sh"
ROUTER = REAL / "trtllm-serve-disaggregated-router.sh"
INLINE = REAL / "vllm-inline-flag-value-not-the-model.sh"

COVERED = {
    NOT_RUN.name,
    ARRAY.name,
    ENTRYPOINT.name,
    TGI_ENV.name,
    NESTED_DEFAULT.name,
    ROUTER.name,
    INLINE.name,
}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def test_looking_for_killing_or_asking_an_engine_for_help_starts_no_server(rules):
    # `which trtllm-serve`, `pkill -f trtllm-serve`, `sglang serve --help`: each was an
    # HBM003 "names no model" error, an engine that would refuse to start
    result = lint(NOT_RUN, rules, gpu="H100")
    assert errors(result) == []
    assert result.deployments == []
    assert not [f for f in result.diagnostics if f.code in ("HBM003", "HBM011")]
    # nor a note that an engine runs here and was not read
    assert not [f for f in result.diagnostics if f.code == "HBM014"]


def test_the_same_commands_still_count_when_they_start_the_engine(rules, tmp_path):
    text = NOT_RUN.read_text().replace(
        "trtllm-serve --help | head -80 || true", "trtllm-serve --tp_size 4 || true"
    )
    path = tmp_path / "serve.sh"
    path.write_text(text)
    result = lint(path, rules, gpu="H100")
    [missing] = [f for f in result.diagnostics if f.code == "HBM003"]
    assert missing.span.line == line_of(path, "trtllm-serve --tp_size 4")


def test_flags_kept_in_a_bash_array_are_read_where_they_are_written(rules):
    result = lint(ARRAY, rules, gpu="RTX-PRO-6000")
    assert errors(result) == []
    [found] = result.deployments
    deployment = found.deployment
    assert deployment.model.name == "Qwen/Qwen3-32B"
    assert deployment.parallel.tensor == 2
    assert deployment.serving.gpu_memory_utilization == 0.9
    assert deployment.serving.max_model_len == 32768
    assert found.budget is not None and found.budget.kv_tokens > 0
    # the flags a branch may add are not guessed: an info at the first `ARGS+=(` that may not
    # run, the one after `[[ -n "${MAX_RUNNING_REQUESTS:-}" ]] &&` (whoever runs the script
    # may set it), before the one in `case`
    [branch] = [f for f in result.diagnostics if f.code == "HBM011"]
    assert "ARGS is added to in a branch" in branch.message
    assert branch.span.line == line_of(ARRAY, "]] && ARGS+=(")


def test_a_check_on_the_array_flags_points_at_the_array(rules):
    # on two 32 GB cards the 32B model's BF16 weights do not fit at 0.90: the error is at the
    # model in the array, and its numbers use the array's TP 2 and fraction
    result = lint(ARRAY, rules, gpu="RTX-5090")
    [short] = [f for f in result.diagnostics if f.code == "HBM101"]
    assert short.span.line == line_of(ARRAY, "--model-path")
    assert "90.0% of" in short.message


def test_an_array_emptied_in_a_branch_is_not_read_as_its_first_value(rules, tmp_path):
    text = ARRAY.read_text().replace(
        '[[ -n "${MAX_RUNNING_REQUESTS:-}" ]]',
        'if [ "$(nvidia-smi -L | wc -l)" -lt 2 ]; then ARGS=(--model-path Qwen/Qwen3-8B); fi\n'
        '[[ -n "${MAX_RUNNING_REQUESTS:-}" ]]',
    )
    path = tmp_path / "start.sh"
    path.write_text(text)
    result = lint(path, rules, gpu="RTX-PRO-6000")
    assert result.deployments == []
    assert any("ARGS is set in a branch" in f.message for f in result.diagnostics)
    # what the array holds may name the model: no "names no model" error
    assert errors(result) == []


def test_an_engine_image_run_with_another_entrypoint_is_not_the_engine(rules, tmp_path):
    result = lint(ENTRYPOINT, rules, gpu="H100")
    assert errors(result) == []
    assert result.deployments == []
    # the same image given `--entrypoint vllm` and `serve MODEL` runs the server
    path = tmp_path / "serve.sh"
    path.write_text(
        ENTRYPOINT.read_text().replace(
            '--entrypoint python3 \\\n        "${IMAGE}" \\\n        -c '
            "\"from huggingface_hub import snapshot_download; snapshot_download('${M}')\"",
            '--entrypoint vllm "${IMAGE}" serve Qwen/Qwen3-32B-FP8 --max-model-len 400000',
        )
    )
    result = lint(path, rules, gpu="H100")
    [found] = result.deployments
    assert found.deployment.model.name == "Qwen/Qwen3-32B-FP8"
    assert any(f.code == "HBM303" for f in result.diagnostics)


def test_tgi_without_a_model_id_in_the_script_takes_it_from_the_environment(rules):
    # TGI's launcher reads MODEL_ID (and would serve bigscience/bloom-560m without it): it
    # starts, so this is no error, and nothing can be budgeted
    result = lint(TGI_ENV, rules, gpu="L4")
    assert errors(result) == []
    assert result.deployments == []
    [note] = [f for f in result.diagnostics if f.code == "HBM011"]
    assert "MODEL_ID" in note.message and note.severity is Severity.INFO
    assert note.span.line == line_of(TGI_ENV, "text-generation-launcher &")


def test_a_default_that_is_another_unset_variable_is_not_a_model_name(rules, tmp_path):
    # `${MODEL_PATH:-$FINAL_MODEL_PATH}` was read as the model '$FINAL_MODEL_PATH' (HBM006)
    result = lint(NESTED_DEFAULT, rules, gpu="H100")
    assert not [f for f in result.diagnostics if f.code == "HBM006"]
    [note] = [f for f in result.diagnostics if f.code == "HBM011"]
    assert "$MODEL_PATH" in note.message
    # and a default built from a variable the script sets is read whole
    path = tmp_path / "serve.sh"
    path.write_text(
        NESTED_DEFAULT.read_text().replace(
            'MODEL_PATH="${MODEL_PATH:-$FINAL_MODEL_PATH}"',
            'ORG=Qwen\nMODEL_PATH="${MODEL_PATH:-$ORG/Qwen3-32B}"',
        )
    )
    [found] = lint(path, rules, gpu="H100").deployments
    assert found.deployment.model.name == "Qwen/Qwen3-32B"
    assert found.deployment.parallel.tensor == 4


def test_the_disaggregated_router_of_trtllm_serve_is_no_model_server(rules):
    # `trtllm-serve disaggregated -c FILE` was read as serving the model 'disaggregated'
    result = lint(ROUTER, rules, gpu="H100")
    assert not [f for f in result.diagnostics if "disaggregated" in f.message]
    servers = sorted(d.deployment.parallel.tensor or 1 for d in result.deployments)
    assert servers == [1, 2]
    assert all(d.deployment.model.name == "Qwen/Qwen3-8B" for d in result.deployments)


def test_the_value_of_an_unknown_flag_written_with_equals_is_not_the_model(rules, tmp_path):
    # `--disable-access-log-for-endpoints=/health,/metrics` was read as the model
    # '/health,/metrics' (HBM006); the model is the harness's $MODEL, which hbmlint cannot read
    result = lint(INLINE, rules, gpu="H100")
    assert not [f for f in result.diagnostics if "/health" in f.message]
    [note] = [f for f in result.diagnostics if f.code == "HBM011"]
    assert "the model is $MODEL" in note.message
    # with the model written, the deployment is read with the array's TP
    path = tmp_path / "server.sh"
    path.write_text(INLINE.read_text().replace('"$MODEL"', "Qwen/Qwen3-32B"))
    [found] = lint(path, rules, gpu="H100").deployments
    assert found.deployment.model.name == "Qwen/Qwen3-32B"
    assert found.deployment.parallel.tensor == 8


def test_an_array_printed_with_echo_is_not_a_second_server(rules, tmp_path):
    # JamesFincher/vllm-server-config scripts/production/start_qwen3.sh prints the command
    # array it builds (`echo "${cmd_parts[@]}"`); only the line that runs it starts a server
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\n"
        "CMD=(vllm serve Qwen/Qwen3-8B --max-model-len 1000000)\n"
        'echo "${CMD[@]}"\n'
        '"${CMD[@]}"\n'
    )
    result = lint(path, rules, gpu="H100")
    [found] = result.deployments
    assert found.deployment.model.name == "Qwen/Qwen3-8B"
    [too_long] = [f for f in result.diagnostics if f.code == "HBM303"]
    assert too_long.span.line == 2  # the flag where the array writes it
