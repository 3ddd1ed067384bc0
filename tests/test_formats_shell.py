"""Shell launch scripts named on the command line (`hbmlint scripts/serve.sh`): read as the
script they are, each engine command a deployment, findings at the words' lines and columns;
never parsed as YAML (no HBM002 error for text that was never meant to be YAML); a directory
walk lints .sh and .bash files too. Fixtures under tests/fixtures/real/shell-*.sh name the public
scripts whose patterns they reproduce."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
DEFAULTS = REAL / "shell-vllm-api-server-defaults.sh"
FROM_CALLER = REAL / "shell-sglang-model-from-caller.sh"
BRANCHES = REAL / "shell-vllm-tp-from-branches.sh"
ENCODER = REAL / "shell-vllm-encoder-disaggregation.sh"
VISIBLE = REAL / "shell-vllm-visible-devices.sh"
IN_VARIABLE = REAL / "shell-vllm-command-in-variable.sh"
FUNCTION = REAL / "shell-vllm-function-visible-devices.sh"
QUOTED_DEFAULTS = REAL / "shell-vllm-quoted-defaults.sh"
SUDO = REAL / "shell-tgi-sudo-docker-run.sh"

COVERED = {
    DEFAULTS.name,
    FROM_CALLER.name,
    BRANCHES.name,
    ENCODER.name,
    VISIBLE.name,
    IN_VARIABLE.name,
    FUNCTION.name,
    QUOTED_DEFAULTS.name,
    SUDO.name,
}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(path: Path, rules, gpu: str | None = None, name: str | None = None):
    return lint_file(path, name or path.name, rules, LintOptions(default_gpu=gpu))


def place(path: Path, needle: str) -> tuple[int, int]:
    """Line and column (1-based) of ``needle``'s first occurrence outside a comment."""
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if needle in line and not line.lstrip().startswith("#"):
            return number, line.index(needle) + 1
    raise AssertionError(needle)


def test_the_budget_error_is_at_the_flag_in_the_script(cli, monkeypatch, tmp_path):
    # Llama-3.1-8B with the script's default --max-model-len 131072 on an L4: one sequence does
    # not fit, and the finding points at the flag on its own continuation line. The script
    # passes on the flags it is given ("$@") and writes no parallelism: a warning, as written
    monkeypatch.chdir(REAL)
    run = cli("--gpu", "L4", DEFAULTS.name)
    line, column = place(DEFAULTS, "--max-model-len")
    assert f"{DEFAULTS.name}:{line}:{column}: warning HBM102" in run.output, run.output
    assert "if the script is run with no flags added" in run.output
    assert "HBM002" not in run.output and "HBM014" not in run.output
    assert run.exit_code == 0
    # without "$@" the command is all there is: the refusal is certain
    whole = tmp_path / "serve.sh"
    whole.write_text(DEFAULTS.read_text().replace(' \\\n    "$@"', ""))
    assert whole.read_text().rstrip().endswith('"${MAX_MODEL_LEN}"')
    monkeypatch.chdir(tmp_path)
    assert f"serve.sh:{line}:{column}: error HBM102" in cli("--gpu", "L4", "serve.sh").output


def test_the_script_defaults_are_read_and_no_gpu_type_is_guessed(rules):
    result = lint(DEFAULTS, rules)
    assert [d.deployment.model.name for d in result.deployments] == [
        "meta-llama/Llama-3.1-8B-Instruct"
    ]
    assert result.deployments[0].deployment.serving.max_model_len == 131072
    # a script names no GPU: --gpu is asked for, as for compose files
    assert [f.code for f in result.diagnostics if f.severity.name != "INFO"] == ["HBM005"]
    # "$@" may add flags: said once, at its own word, not taken as the model
    [forwarded] = [f for f in result.diagnostics if "$@" in f.message]
    assert forwarded.code == "HBM011"
    assert (forwarded.span.line, forwarded.span.column) == place(DEFAULTS, '"$@"')


def test_formats_shows_the_script_read_as_shell(cli, monkeypatch):
    monkeypatch.chdir(REAL)
    run = cli("formats", "--gpu", "L4", DEFAULTS.name)
    assert f"{DEFAULTS.name}: read as shell" in run.output
    model_line, _ = place(DEFAULTS, "--model ")
    assert "meta-llama/Llama-3.1-8B-Instruct" in run.output
    assert f"line {model_line}" in run.output
    assert "YAML" not in run.output


def test_a_model_the_caller_exports_is_an_info_at_its_value(rules):
    # InferenceX's scripts take MODEL and TP from the harness's environment; the SGLang command
    # is built in a bash array across lines. The info is at the word the script cannot fill in
    # ("$MODEL"), not at the word before it
    result = lint(FROM_CALLER, rules, gpu="H100")
    assert result.deployments == []
    unread = [f for f in result.diagnostics if f.code == "HBM011"]
    line, column = place(FROM_CALLER, '--model-path "$MODEL"')
    value = column + len("--model-path ")
    assert (unread[0].span.line, unread[0].span.column) == (line, value)
    assert "$MODEL" in unread[0].message
    assert not [f for f in result.diagnostics if f.severity.name == "ERROR"]
    assert not [f for f in result.diagnostics if f.code in ("HBM002", "HBM003", "HBM014")]


def test_a_value_set_in_two_branches_is_unknown_not_the_last_one_written(rules):
    # NUM_GPU is nvidia-smi's count or 0: reading the last assignment would be a false
    # "--tensor-parallel-size: 0" error
    result = lint(BRANCHES, rules, gpu="L4")
    assert not [f for f in result.diagnostics if f.severity.name == "ERROR"]
    line, _ = place(BRANCHES, "--tensor-parallel-size")
    assert any(
        f.code == "HBM011" and f.span.line == line and "NUM_GPU" in f.message
        for f in result.diagnostics
    )


def test_a_script_that_is_not_yaml_is_never_a_yaml_error(rules, tmp_path):
    text = DEFAULTS.read_text()
    assert "Listening on:  ${HOST}:${PORT}" in text  # not valid YAML as it stands
    for name in ("serve.sh", "serve.bash", "serve"):  # by suffix, or by its #! line
        path = tmp_path / name
        path.write_text(text)
        result = lint(path, rules, gpu="L4")
        assert "HBM002" not in {f.code for f in result.diagnostics}, name
        assert [d.deployment.engine for d in result.deployments] == ["vllm"], name


def test_a_script_piped_in_is_read_by_its_stdin_filename():
    from click.testing import CliRunner

    from hbmlint.cli import main

    args = ["--gpu", "L4", "--stdin-filename", "scripts/serve.sh", "-"]
    run = CliRunner().invoke(main, args, input=DEFAULTS.read_text(), catch_exceptions=False)
    line, column = place(DEFAULTS, "--max-model-len")
    assert f"scripts/serve.sh:{line}:{column}: warning HBM102" in run.stdout, run.stdout


def test_a_directory_walk_lints_launch_scripts(cli, tmp_path, monkeypatch):
    # a repository of launch scripts linted as a folder: the scripts are read, not skipped
    # ("All clear in 0 files" would pass a budget that does not fit); a script that starts no
    # engine, and a file of another suffix, add nothing
    (tmp_path / "scripts").mkdir()
    shutil.copy(DEFAULTS, tmp_path / "scripts" / "serve.sh")
    (tmp_path / "scripts" / "setup.bash").write_text("#!/bin/bash\npip install vllm\n")
    (tmp_path / "scripts" / "notes.txt").write_text("vllm serve meta-llama/Llama-3.1-70B\n")
    monkeypatch.chdir(tmp_path)
    run = cli("--gpu", "L4", "--format", "json", ".")
    findings = json.loads(run.output)
    assert {f["file"] for f in findings} == {"scripts/serve.sh"}
    assert "HBM102" in {f["code"] for f in findings}
    assert run.exit_code == 0  # a warning: the script passes on the flags it is given


def test_a_folder_with_nothing_to_lint_says_so(cli, tmp_path, monkeypatch):
    (tmp_path / "README.md").write_text("vllm serve Qwen/Qwen3-8B\n")
    monkeypatch.chdir(tmp_path)
    run = cli("--format", "text", ".")
    assert run.exit_code == 0
    assert "All clear" not in run.output
    assert "Nothing linted: no files found" in run.output


def test_the_configuration_maps_a_script_without_a_suffix(cli, tmp_path, monkeypatch):
    # no suffix and no #! line: only the configuration says it is a script
    body = DEFAULTS.read_text().split("\n", 1)[1]
    (tmp_path / "launch").mkdir()
    (tmp_path / "launch" / "llama.cmd").write_text(body)
    (tmp_path / ".hbmlint.yaml").write_text('formats:\n  "launch/*.cmd": shell\n')
    monkeypatch.chdir(tmp_path)
    (tmp_path / "unmapped.yaml").write_text("formats: {}\n")
    plain = cli("--gpu", "L4", "--config", "unmapped.yaml", "launch/llama.cmd")
    assert plain.exit_code != 2 and "HBM102" not in plain.output, plain.stderr
    mapped = cli("--gpu", "L4", "launch/llama.cmd")
    line, column = place(DEFAULTS, "--max-model-len")
    assert f"launch/llama.cmd:{line - 1}:{column}: warning HBM102" in mapped.output, mapped.output


def test_every_engine_command_of_a_script_is_a_deployment(rules, tmp_path):
    path = tmp_path / "disagg.sh"
    path.write_text(
        "#!/bin/bash\n"
        "MODEL=Qwen/Qwen2.5-7B-Instruct\n"
        "CUDA_VISIBLE_DEVICES=0 vllm serve $MODEL --port 8100 --max-model-len 8192 &\n"
        "CUDA_VISIBLE_DEVICES=1 vllm serve $MODEL --port 8200 \\\n"
        "    --max-model-len 16384 &\n"
        "wait\n"
    )
    result = lint(path, rules, gpu="L4")
    read = [(d.deployment.name, d.deployment.serving.max_model_len) for d in result.deployments]
    assert read == [("disagg.sh:3", 8192), ("disagg.sh:4", 16384)]
    assert not [f for f in result.diagnostics if f.severity.name == "ERROR"]


def test_an_encoder_only_instance_is_not_budgeted_as_a_whole_model(rules):
    """vLLM's encoder disaggregation: the ec_producer instance runs the multimodal encoder at
    1% of the card; budgeting the whole model there was a false HBM101 on an H100. It is an
    info at --ec-transfer-config; the prefill/decode instance is budgeted as before."""
    result = lint(ENCODER, rules, gpu="H100-80GB")
    assert [f.severity.name for f in result.diagnostics if f.severity.name == "ERROR"] == []
    [info] = [f for f in result.diagnostics if f.code == "HBM011"]
    assert "encoder-only instance (ec_role ec_producer)" in info.message
    assert (info.span.line, info.span.column) == place(ENCODER, "--ec-transfer-config")
    [budgeted] = [d for d in result.deployments if d.budget is not None]
    assert budgeted.budget.settings.memory_fraction == 0.7


def test_exported_visible_devices_are_the_gpus_the_engine_sees(rules):
    # two GPUs exported as CUDA_VISIBLE_DEVICES (through the script's GPU_ID default) for a
    # tensor-parallel size of 4: vLLM cannot start; the error is at the export
    result = lint(VISIBLE, rules, gpu="H100")
    [short] = [f for f in result.diagnostics if f.code == "HBM007"]
    assert short.severity.name == "ERROR"
    assert "2 GPUs visible (CUDA_VISIBLE_DEVICES=0,1)" in short.message
    assert (short.span.line, short.span.column) == place(VISIBLE, "CUDA_VISIBLE_DEVICES=$GPU_ID")


@pytest.mark.parametrize(
    ("visible", "tp", "error"),
    [("0", 2, True), ("0,1", 2, False), ("0,1,2,3", 2, False), ("$GPUS", 8, False)],
)
def test_visible_devices_on_the_command_bound_the_gpus(rules, tmp_path, visible, tp, error):
    # `CUDA_VISIBLE_DEVICES=0,1,2,3 vllm serve ${MODEL_PATH} ... --tensor-parallel-size 4`
    # (dfy37/lifesim scripts/run_user_model.sh): fewer visible than the engine's parallelism is
    # a refusal; more is not waste (seeing a GPU reserves nothing); unreadable is not read
    path = tmp_path / "serve.sh"
    path.write_text(
        "MODEL_PATH=Qwen/Qwen2.5-7B-Instruct\n"
        f"CUDA_VISIBLE_DEVICES={visible} vllm serve ${{MODEL_PATH}} \\\n"
        f"    --tensor-parallel-size {tp} --max-model-len 8192\n"
    )
    result = lint(path, rules, gpu="H100")
    parallelism = [f for f in result.diagnostics if f.code == "HBM007"]
    assert [f.severity.name for f in parallelism] == (["ERROR"] if error else [])
    assert [d.budget is not None for d in result.deployments] == [not error]


def test_a_variable_exported_only_in_branches_is_not_read(rules, tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text(
        'if [ "$1" = big ]; then\n'
        "  export CUDA_VISIBLE_DEVICES=0,1,2,3\n"
        "else\n"
        "  export CUDA_VISIBLE_DEVICES=0\n"
        "fi\n"
        "vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2 --max-model-len 8192\n"
    )
    result = lint(path, rules, gpu="H100")
    assert not [f for f in result.diagnostics if f.code == "HBM007"]


def test_a_heredoc_body_is_input_not_commands(rules, tmp_path):
    # a README and a job script written with cat, Python fed to python: none of their lines
    # runs here, so the 70B in them is no deployment (it was two false HBM101 errors)
    path = tmp_path / "serve.sh"
    path.write_text(
        "cat > README.md <<-EOF\n"
        "\tRun it with:\n"
        "\tvllm serve meta-llama/Llama-3.1-70B-Instruct --max-model-len 131072\n"
        "\tEOF\n"
        "python3 - <<'PY'\n"
        "import vllm\n"
        "PY\n"
        "cat <<EOF > job.sh\n"
        "vllm serve meta-llama/Llama-3.1-70B-Instruct --max-model-len 131072\n"
        "EOF\n"
        "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n"
    )
    result = lint(path, rules, gpu="L4")
    assert [d.deployment.model.name for d in result.deployments] == ["Qwen/Qwen2.5-7B-Instruct"]
    assert not [f for f in result.diagnostics if f.severity.name == "ERROR"]


def test_a_heredoc_fed_to_a_batch_job_is_read_as_its_commands(rules, tmp_path):
    path = tmp_path / "submit.sh"
    path.write_text(
        "sbatch <<EOF\n"
        "#!/bin/bash\n"
        "#SBATCH --gres=gpu:1\n"
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 131072\n"
        "EOF\n"
    )
    result = lint(path, rules, gpu="L4")
    [error] = [f for f in result.diagnostics if f.severity.name == "ERROR"]
    assert error.code == "HBM102" and error.span.line == 4


def test_a_command_built_in_a_variable_and_run_by_bash_c_is_read(rules):
    # it was an HBM014 "runs an engine hbmlint does not read"
    result = lint(IN_VARIABLE, rules, gpu="L4")
    assert [d.deployment.model.name for d in result.deployments] == [
        "meta-llama/Llama-3.1-8B-Instruct"
    ]
    codes = [f.code for f in result.diagnostics]
    assert "HBM014" not in codes and "HBM102" in codes


def test_an_engine_run_through_an_interpreter_variable_is_read_without_a_flags_note(
    rules, tmp_path
):
    path = tmp_path / "serve.sh"
    path.write_text(
        "$PYTHON_BIN -m vllm.entrypoints.openai.api_server \\\n"
        "    --model Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n"
    )
    result = lint(path, rules, gpu="L4")
    assert [d.deployment.engine for d in result.deployments] == ["vllm"]
    # $PYTHON_BIN is the program, not flags the caller adds
    assert not [f for f in result.diagnostics if "flags it holds" in f.message]


def test_an_engine_in_a_function_is_read_with_the_calls_arguments(rules):
    # start_vllm's `local model_path=$1` is the model the call gives; CUDA_VISIBLE_DEVICES=$GPUS
    # on its command makes four GPUs visible for --tensor-parallel-size 8: vLLM cannot start
    result = lint(FUNCTION, rules, gpu="H100")
    [deployment] = result.deployments
    assert deployment.deployment.model.name == "Qwen/Qwen3-8B"
    [short] = [f for f in result.diagnostics if f.code == "HBM007"]
    assert short.severity.name == "ERROR" and "4 GPUs visible" in short.message
    assert (short.span.line, short.span.column) == place(FUNCTION, "CUDA_VISIBLE_DEVICES=$GPUS")
    assert not [f for f in result.diagnostics if f.code == "HBM011"]


def test_a_function_called_with_an_unreadable_model_still_gets_the_visible_gpus_error(
    rules, tmp_path
):
    # as the original script has it: the model comes from a loop over an array
    text = (
        FUNCTION.read_text()
        .replace(
            'if ! start_vllm "Qwen/Qwen3-8B"; then',
            'for MODEL in "${MODELS[@]}"; do\nif ! start_vllm "$MODEL"; then',
        )
        .replace("\nfi\n", "\nfi\ndone\n")
    )
    path = tmp_path / "serve.sh"
    path.write_text(text)
    result = lint(path, rules, gpu="H100")
    assert result.deployments == []
    codes = sorted(f.code for f in result.diagnostics)
    assert codes == ["HBM007", "HBM011"]
    [unread] = [f for f in result.diagnostics if f.code == "HBM011"]
    assert "$MODEL" in unread.message


def test_each_call_of_a_function_is_a_deployment_and_an_uncalled_one_is_read_in_place(
    rules, tmp_path
):
    path = tmp_path / "serve.sh"
    path.write_text(
        "serve() {\n"
        '  vllm serve "$1" --max-model-len "${2:-8192}" "${@:3}"\n'
        "}\n"
        "unused() {\n"
        '  vllm serve "$1" --max-model-len 4096\n'
        "}\n"
        "serve Qwen/Qwen2.5-7B-Instruct 16384 &\n"
        "serve Qwen/Qwen2.5-3B-Instruct &\n"
        "wait\n"
    )
    result = lint(path, rules, gpu="L4")
    read = [
        (d.deployment.name, d.deployment.model.name, d.deployment.serving.max_model_len)
        for d in result.deployments
    ]
    assert read == [
        ("serve.sh:7", "Qwen/Qwen2.5-7B-Instruct", 16384),
        ("serve.sh:8", "Qwen/Qwen2.5-3B-Instruct", 8192),
    ]
    # the function never called: its $1 is its caller's, which no line gives
    [unread] = [f for f in result.diagnostics if f.code == "HBM011"]
    assert unread.span.line == 5 and "the function unused" in unread.message


def test_the_scripts_own_argument_defaults_are_what_a_run_without_arguments_serves(rules, tmp_path):
    # research scripts: `MODEL=${1:-meta-llama/...}` at the top, run as `bash serve.sh`
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\n"
        "MODEL=${1:-meta-llama/Llama-3.1-70B-Instruct}\n"
        'TP="${2:-1}"\n'
        "vllm serve $MODEL --tensor-parallel-size $TP --max-model-len 8192\n"
    )
    result = lint(path, rules, gpu="H100")
    [deployment] = result.deployments
    assert deployment.deployment.model.name == "meta-llama/Llama-3.1-70B-Instruct"
    assert deployment.deployment.parallel.tensor == 1
    [error] = [f for f in result.diagnostics if f.code == "HBM101"]
    assert error.severity.name == "ERROR" and (error.span.line, error.span.column) == (4, 12)
    # an argument with no default stays the run's to give
    path.write_text(path.read_text().replace("${1:-meta-llama/Llama-3.1-70B-Instruct}", "$1"))
    result = lint(path, rules, gpu="H100")
    assert result.deployments == []
    [unread] = [f for f in result.diagnostics if f.code == "HBM011"]
    assert "$1" in unread.message


def test_an_option_loop_keeps_the_defaults_set_before_it(rules, tmp_path):
    # `while [[ $# -gt 0 ]]; do case $1 in --model) MODEL="$2" ...`: run with no option, the
    # script serves its defaults; a value set twice without arguments is still not chosen
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\n"
        'MODEL="meta-llama/Llama-3.1-8B-Instruct"\n'
        "TP=1\n"
        "while [[ $# -gt 0 ]]; do\n"
        "  case $1 in\n"
        '    --model) MODEL="$2"; shift 2 ;;\n'
        '    --tp=*) TP="${1#*=}"; shift ;;\n'
        "  esac\n"
        "done\n"
        'if [ -n "$1" ]; then MODEL=$1; fi\n'
        'vllm serve "$MODEL" --tensor-parallel-size "$TP" --max-model-len 65536\n'
    )
    result = lint(path, rules, gpu="L4")
    [deployment] = result.deployments
    assert deployment.deployment.model.name == "meta-llama/Llama-3.1-8B-Instruct"
    assert deployment.deployment.parallel.tensor == 1
    assert [f.code for f in result.diagnostics] == ["HBM102"]
    path.write_text(
        path.read_text().replace(
            "TP=1\n", 'TP=1\nif [ "$BIG" = 1 ]; then MODEL=meta-llama/Llama-3.1-70B-Instruct; fi\n'
        )
    )
    result = lint(path, rules, gpu="L4")
    assert result.deployments == []
    [unread] = [f for f in result.diagnostics if f.code == "HBM011"]
    assert "$MODEL is set to 2 different values" in unread.message


def test_a_functions_argument_default_is_its_calls_not_the_scripts(rules, tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\n"
        "MODEL=${1:-Qwen/Qwen2.5-7B-Instruct}\n"
        "start() {\n"
        "  vllm serve ${1:-Qwen/Qwen2.5-3B-Instruct} --max-model-len ${2:-4096}\n"
        "}\n"
        "start $MODEL 16384\n"
        "start\n"
    )
    result = lint(path, rules, gpu="L4")
    read = [
        (d.deployment.model.name, d.deployment.serving.max_model_len) for d in result.deployments
    ]
    assert read == [("Qwen/Qwen2.5-7B-Instruct", 16384), ("Qwen/Qwen2.5-3B-Instruct", 4096)]


# ------------------------------------------------------------------ CUDA_VISIBLE_DEVICES per node


@pytest.mark.parametrize(
    "script",
    [
        # a two-node Ray cluster's head: the worker node's 4 GPUs join through Ray
        "export CUDA_VISIBLE_DEVICES=0,1,2,3\nray start --head --port 6379\n"
        "vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 4 "
        "--pipeline-parallel-size 2 --distributed-executor-backend ray\n",
        "export CUDA_VISIBLE_DEVICES=0,1,2,3\n"
        "vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 8 "
        "--distributed-executor-backend=ray\n",
        # vLLM's own multi-node launch: 4 GPUs on each of 2 nodes
        "export CUDA_VISIBLE_DEVICES=0,1,2,3\n"
        "vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 8 --nnodes 2 "
        "--node-rank 0 --master-addr 10.0.0.1\n",
    ],
)
def test_gpus_of_other_nodes_are_not_missing(tmp_path, rules, script):
    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/bash\n" + script)
    codes = [d.code for d in lint(path, rules, "H100").diagnostics]
    assert "HBM007" not in codes


def test_one_node_short_of_the_parallelism_is_still_an_error(tmp_path, rules):
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\nexport CUDA_VISIBLE_DEVICES=0,1,2,3\n"
        "vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 8 --nnodes 1\n"
    )
    [short] = [d for d in lint(path, rules, "H100").diagnostics if d.code == "HBM007"]
    assert short.severity.name == "ERROR"
    assert "4 GPUs visible (CUDA_VISIBLE_DEVICES=0,1,2,3)" in short.message


def test_a_quoted_default_is_its_value_without_the_quotes(rules):
    """``${VAR:-"auto"}`` is ``auto`` after the shell's quote removal: the quotes are not part of
    the value vLLM sees (a false HBM004 "'\\"auto\\"' is not a KV cache dtype" before)."""
    result = lint(QUOTED_DEFAULTS, rules, gpu="H100")
    assert [d for d in result.diagnostics if d.code in ("HBM004", "HBM011")] == []
    [deployment] = result.deployments
    assert deployment.deployment.model.name == "Qwen/Qwen3-8B"
    assert deployment.deployment.serving.max_model_len == 8192
    assert deployment.deployment.serving.kv_cache_dtype == "auto"
    assert deployment.deployment.serving.gpu_memory_utilization == 0.9


def test_commands_run_through_sudo_env_and_nohup_are_read(rules):
    """``sudo docker run ... IMAGE`` was "no engine command line it can read" (HBM014): the
    words after sudo, env, nohup and their options are the command they run."""
    result = lint(SUDO, rules, gpu="H100")
    assert [d.code for d in result.diagnostics if d.code == "HBM014"] == []
    tgi, vllm = (d.deployment for d in result.deployments)
    assert (tgi.engine, tgi.model.name, tgi.parallel.tensor) == ("tgi", "microsoft/phi-4", 2)
    assert tgi.engine_version == "3.0.0"
    assert (vllm.engine, vllm.parallel.tensor) == ("vllm", 2)
    # sudo -E keeps CUDA_VISIBLE_DEVICES=0: one GPU for TP 2, which vLLM refuses
    [short] = [d for d in result.diagnostics if d.code == "HBM007"]
    assert short.severity.name == "ERROR" and "CUDA_VISIBLE_DEVICES=0" in short.message
    assert short.span.line == place(SUDO, "CUDA_VISIBLE_DEVICES=0")[0]


def test_sudo_without_e_does_not_pass_the_variables_before_it(tmp_path, rules):
    """sudo resets the environment (sudoers' env_reset): CUDA_VISIBLE_DEVICES written before it
    never reaches the engine, so it limits nothing."""
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\nCUDA_VISIBLE_DEVICES=0 sudo -u llm vllm serve microsoft/phi-4 "
        "--tensor-parallel-size 2\n"
    )
    result = lint(path, rules, "H100")
    assert [d.code for d in result.diagnostics if d.code == "HBM007"] == []
    assert result.deployments[0].deployment.parallel.tensor == 2


def test_an_unreadable_model_is_not_replaced_by_the_last_served_name(tmp_path, rules):
    """A script of DeepSeek-V4 on B300s (`exec vllm serve "$MODEL_PATH" --served-model-name
    NAME ALIAS ALIAS ...`, MODEL_PATH=${1:?usage}): the model is the script's argument, and the
    served names are aliases. Was a false HBM003 error ("the vllm command names no model")."""
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\n"
        'MODEL_PATH="${1:?usage: $0 <model_path>}"\n'
        'exec vllm serve "$MODEL_PATH" --served-model-name DSV4 deepseek-ai/DeepSeek-V4-Flash '
        "deepseek-v4-flash --tensor-parallel-size 2\n"
    )
    found = lint(path, rules, "H100").diagnostics
    assert [(d.code, d.severity.name) for d in found] == [("HBM011", "INFO")]
    assert "the model is $MODEL_PATH" in found[0].message
    # with no model before them, the served names do take it: vLLM refuses
    path.write_text(
        "#!/bin/bash\nvllm serve --served-model-name a deepseek-ai/DeepSeek-V4-Flash $EXTRA\n"
    )
    assert [d.code for d in lint(path, rules, "H100").diagnostics if d.code == "HBM003"]


def test_sglang_eagle_with_its_draft_path_in_a_variable_is_an_eagle_drafter(tmp_path, rules):
    """`--speculative-algorithm EAGLE --speculative-draft-model-path "$DRAFT"`: a separate EAGLE
    head whose path the script's caller gives, not the model's own NextN layers (it was read as
    MTP). Without a draft path, EAGLE on DeepSeek-V3 is its NextN layers."""
    path = tmp_path / "serve.sh"
    path.write_text(
        '#!/bin/bash\nDRAFT="${2:?}"\n'
        "python3 -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct "
        '--speculative-algorithm EAGLE --speculative-draft-model-path "$DRAFT"\n'
        "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 "
        "--speculative-algorithm EAGLE --speculative-num-steps 2\n"
    )
    head, nextn = (d.deployment.speculative for d in lint(path, rules, "H100").deployments)
    assert (head.method, nextn.method) == ("eagle", "mtp")


def test_a_speculative_config_that_is_a_shell_variable_is_unread_not_invalid(tmp_path, rules):
    """adrienbrault/qwen3.6-27b-rtx5090 scripts/serve-tier-rc4.sh: `docker run ... bash -c "...
    --speculative-config '$SPEC_FINAL' ..."`, the host's double quotes expanding the variable
    into valid JSON before the container's shell sees the single quotes. Was a false HBM004
    error ("not valid JSON")."""
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\n"
        'SPEC_FINAL=${SPEC_JSON:-"{\\"method\\":\\"mtp\\",\\"num_speculative_tokens\\":4}"}\n'
        'docker run --gpus all --entrypoint bash vllm/vllm-openai:v0.20.0 -c "\n'
        "  exec vllm serve Qwen/Qwen3-8B --speculative-config '$SPEC_FINAL'\n"
        '"\n'
    )
    found = lint(path, rules, "H100").diagnostics
    assert [d for d in found if d.code == "HBM004"] == []
    [unread] = [d for d in found if d.code == "HBM011" and "$SPEC_FINAL" in d.message]
    assert unread.severity.name == "INFO"


def test_a_variable_set_again_and_again_in_a_script_without_branches_has_its_last_value(
    tmp_path, rules
):
    """francisco-perez-sorrosal/funes tgi.sh sets `model=` thirteen times, one line after the
    other, the last one live: with no branch, loop or function, each command takes the value
    set last before it (was "set to 13 different values ... cannot be checked")."""
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\n"
        "model=meta-llama/Llama-3.1-8B-Instruct\n"
        "model=Qwen/Qwen2.5-7B-Instruct\n"
        "text-generation-launcher --model-id $model --num-shard 1\n"
        "model=Qwen/Qwen2.5-14B-Instruct\n"
        "vllm serve $model\n"
    )
    names = [d.deployment.model.name for d in lint(path, rules, "H100").deployments]
    assert names == ["Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-14B-Instruct"]
    # a branch makes it the run's choice again: the model is unread, nothing is budgeted
    branched = path.read_text().replace(
        "model=Qwen/Qwen2.5-7B-Instruct\n",
        'if [ "$X" ]; then model=Qwen/Qwen2.5-7B-Instruct; fi\n',
    )
    path.write_text(branched)
    found = lint(path, rules, "H100")
    assert "Qwen/Qwen2.5-7B-Instruct" not in [d.deployment.model.name for d in found.deployments]
    assert any("different values" in d.message for d in found.diagnostics)


def test_the_host_s_cuda_visible_devices_does_not_reach_a_container(tmp_path, rules):
    """Dmitriuso/bot-antosha-tgi run_tgi.sh exports CUDA_VISIBLE_DEVICES=0, then `docker run
    --gpus all` with no -e for it: the container sees every GPU. It was read as one GPU (for
    a TP 2 engine, a false HBM007 error). `-e CUDA_VISIBLE_DEVICES` passes it on by name."""
    path = tmp_path / "serve.sh"
    image = "vllm/vllm-openai:v0.10.0 --model Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2"
    path.write_text(
        f"#!/bin/bash\nexport CUDA_VISIBLE_DEVICES=0\ndocker run --gpus all {image}\n"
        f"docker run --gpus all -e CUDA_VISIBLE_DEVICES {image}\n"
    )
    counts = [d.deployment.gpu.count for d in lint(path, rules, "H100").deployments]
    assert counts == [None, 1]


def test_an_engine_program_as_the_entrypoint_of_an_image_of_one_s_own(tmp_path, rules):
    """ormandj/sglang-deepseek-v4-flash-sm120 examples/serve-dsv4-0731.sh: `docker run ...
    --entrypoint sglang ... "$IMAGE" serve --model-path ...` on the project's own image: the
    engine's program with the words after the image (was no deployment, no finding)."""
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\nIMAGE=ghcr.io/me/sglang-custom:v0.8\n"
        "docker run --rm --name sg --entrypoint sglang --gpus all --shm-size 64g -v /m:/m "
        '--env A=1 -it "$IMAGE" serve --model-path Qwen/Qwen3-8B --tp 2\n'
    )
    [deployment] = lint(path, rules, "H100").deployments
    assert (deployment.deployment.engine, deployment.deployment.parallel.tensor) == ("sglang", 2)


def test_docker_run_with_the_engine_as_entrypoint_reads_the_words_after_the_image(rules, tmp_path):
    # waynehacking8/trtllm-triton-serving scripts/serve_trtllm.sh: `--entrypoint trtllm-serve
    # IMAGE serve MODEL`: the image was read as the model (an HBM006 "local path" warning)
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\n"
        "docker run -d --gpus all --entrypoint trtllm-serve \\\n"
        "  nvcr.io/nvidia/tritonserver:25.06-trtllm-python-py3 serve Qwen/Qwen2.5-7B-Instruct \\\n"
        "  --tp_size 2 --max_seq_len 8192\n"
    )
    result = lint(path, rules, gpu="H100")
    [deployment] = result.deployments
    assert deployment.deployment.model.name == "Qwen/Qwen2.5-7B-Instruct"
    assert deployment.deployment.parallel.tensor == 2
    assert [f.code for f in result.diagnostics if f.code == "HBM006"] == []


def test_a_wrapper_that_shifts_its_own_words_off_runs_the_rest(rules, tmp_path):
    # dcstang/eagle3-spec-dec run_all.sh: `run_step() { local id="$1" name="$2"; shift 2;
    # "$@" || "$@"; }` called with `bash -c "vllm serve ..."`: no server was read
    path = tmp_path / "run_all.sh"
    path.write_text(
        "#!/bin/bash\n"
        'run_step() { local id="$1" name="$2"; shift 2; "$@" || "$@"; }\n'
        'run_step "05b" "bench" bash -c '
        '"vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 4096"\n'
    )
    result = lint(path, rules, gpu="H100")
    # the retry runs the same server: one deployment
    [deployment] = result.deployments
    assert deployment.deployment.model.name == "Qwen/Qwen2.5-7B-Instruct"
    assert deployment.deployment.serving.max_model_len == 4096
    # a shift in a loop may run any number of times: "$@" stays unreadable
    path.write_text(
        "#!/bin/bash\n"
        'run_step() { while [ "$1" != "--" ]; do shift; done; shift; "$@"; }\n'
        "run_step a b -- vllm serve Qwen/Qwen2.5-7B-Instruct\n"
    )
    result = lint(path, rules, gpu="H100")
    assert result.deployments == []
    assert [f.severity.name for f in result.diagnostics] == ["INFO"]


def test_a_sourced_env_file_of_the_repository_sets_the_scripts_variables(rules, tmp_path):
    # akamai-developers/speculative-decoding-example-vllm-blackwell scripts/run-speculative.sh:
    # `source config/speculative.env` (run from the repository's root), then "$TARGET_MODEL"...
    # were four HBM011 infos and no deployment
    (tmp_path / "config").mkdir()
    (tmp_path / "scripts").mkdir()
    (tmp_path / "config" / "speculative.env").write_text(
        "# models\n"
        'TARGET_MODEL="meta-llama/Llama-3.1-8B-Instruct"\n'
        'DRAFT_MODEL="meta-llama/Llama-3.2-1B-Instruct"\n'
        "export MAX_MODEL_LEN=${MAX_MODEL_LEN:-8192}\n"
    )
    path = tmp_path / "scripts" / "run.sh"
    path.write_text(
        "#!/bin/bash\n"
        "source config/speculative.env\n"
        'vllm serve "$TARGET_MODEL" --max-model-len "$MAX_MODEL_LEN" \\\n'
        "  --speculative-config "
        '"{\\"model\\": \\"$DRAFT_MODEL\\", \\"num_speculative_tokens\\": 4}"\n'
    )
    result = lint(path, rules, gpu="H100")
    [deployment] = result.deployments
    read = deployment.deployment
    assert read.model.name == "meta-llama/Llama-3.1-8B-Instruct"
    assert read.speculative.model.name == "meta-llama/Llama-3.2-1B-Instruct"
    assert read.serving.max_model_len == 8192
    assert [f.code for f in result.diagnostics if f.code == "HBM011"] == []
    # a file that is not there leaves them unreadable, as before
    (tmp_path / "config" / "speculative.env").unlink()
    result = lint(path, rules, gpu="H100")
    assert result.deployments == []
    assert {f.code for f in result.diagnostics} == {"HBM011"}


@pytest.mark.parametrize(
    ("mount", "path"),
    [
        ("-v $(pwd):/workspace", "/workspace/extra-llm-api-config.yml"),
        ("--mount type=bind,source=.,target=/cfg", "/cfg/extra-llm-api-config.yml"),
    ],
)
def test_a_config_the_script_writes_is_read_through_the_containers_bind_mount(
    rules, tmp_path, mount, path
):
    # TensorRT-LLM's deployment guides: `cat > extra-llm-api-config.yml <<EOF`, then `docker run
    # -v $(pwd):/workspace ... --extra_llm_api_options /workspace/extra-llm-api-config.yml`
    # (was an HBM011 info: "a file hbmlint does not read here", the server unchecked)
    script = tmp_path / "serve.sh"
    script.write_text(
        "#!/bin/bash\n"
        "cat > extra-llm-api-config.yml <<EOF\n"
        "kv_cache_config:\n"
        "  free_gpu_memory_fraction: 0.6\n"
        "EOF\n"
        f"docker run --rm --gpus all {mount} nvcr.io/nvidia/tensorrt-llm/release:1.2.0 \\\n"
        "  trtllm-serve Qwen/Qwen3-8B --max_seq_len 8192 \\\n"
        f"  --extra_llm_api_options {path}\n"
    )
    result = lint(script, rules, gpu="H100")
    [deployment] = result.deployments
    assert deployment.deployment.serving.gpu_memory_utilization == 0.6
    assert deployment.deployment.location("serving.gpu_memory_utilization").line == 4


def test_a_variable_the_script_exports_is_the_engines_environment(rules, tmp_path):
    # `export VLLM_ALLOW_LONG_MAX_MODEL_LEN=1` on a line of its own, as evaluation scripts set
    # it (sweep 20): vLLM then only warns past the model's length; was a false HBM303 error
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\n"
        "export VLLM_ALLOW_LONG_MAX_MODEL_LEN=1\n"
        "vllm serve Qwen/Qwen3-8B --max-model-len 65536\n"
    )
    assert [f.code for f in lint(path, rules, gpu="H100").diagnostics] == []
    path.write_text(path.read_text().replace("export VLLM_ALLOW_LONG_MAX_MODEL_LEN=1\n", ""))
    assert [f.code for f in lint(path, rules, gpu="H100").diagnostics] == ["HBM303"]


def test_a_script_with_windows_line_endings_is_one_warning_and_read_as_meant(rules, tmp_path):
    # 321176aaaaaA/qwen38-27b-dspark-hybrid-inference-a6000 start_gpu2_dspark.sh, CRLF endings:
    # bash keeps each CR, so every `\` continues nothing; was an HBM018 "does not end in `\`"
    # on a line that does, and a model named '\r'
    path = tmp_path / "serve.sh"
    path.write_bytes(
        b"#!/bin/bash\r\n"
        b"vllm serve Qwen/Qwen3-8B \\\r\n"
        b"  --max-model-len 8192 \\\r\n"
        b"  --gpu-memory-utilization 0.9\r\n"
    )
    result = lint(path, rules, gpu="H100")
    [crlf] = result.diagnostics
    assert (crlf.code, crlf.severity.name, crlf.span.line) == ("HBM018", "WARNING", 2)
    assert "CRLF" in crlf.message
    [deployment] = result.deployments
    assert deployment.deployment.model.name == "Qwen/Qwen3-8B"
    assert deployment.deployment.serving.max_model_len == 8192


def test_a_variable_holding_a_flag_and_its_value_keeps_each_command_on_its_line(rules, tmp_path):
    # pingzhili/vllm-generator scripts/serve_8_gpus.sh: VLLM_ARGS="--reasoning-parser qwen3" in
    # each of several server lines; the second word was searched for further on, so every
    # later server (and its findings) slid down a line
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\n"
        'VLLM_ARGS="--reasoning-parser qwen3"\n'
        "CUDA_VISIBLE_DEVICES=0 vllm serve Qwen/Qwen3-8B $VLLM_ARGS --port 8000 &\n"
        "CUDA_VISIBLE_DEVICES=1 vllm serve Qwen/Qwen3-8B $VLLM_ARGS --port 8001 &\n"
        "CUDA_VISIBLE_DEVICES=2 vllm serve Qwen/Qwen3-8B $VLLM_ARGS --max-model-len 100000 &\n"
        'echo "started"\n'
    )
    result = lint(path, rules, gpu="H100")
    assert [d.deployment.name for d in result.deployments] == [
        "serve.sh:3",
        "serve.sh:4",
        "serve.sh:5",
    ]
    [refused] = [f for f in result.diagnostics if f.code == "HBM303"]
    assert refused.span.line == 5


def test_skyrls_vllm_server_and_a_home_relative_model_path_are_read(rules, tmp_path):
    # NovaSky-AI/SkyRL examples/remote_inference_engine/run_vllm_server.sh: its server module
    # parses vLLM's serve arguments (was "All clear, 0 deployments"); a model under
    # "$HOME/models/..." is a local path named by its last part (was unreadable)
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\n"
        "uv run --isolated --extra vllm -m skyrl_train.inference_engines.vllm.vllm_server \\\n"
        '    --model "$HOME/models/Qwen2.5-1.5B-Instruct" --tensor-parallel-size 4 \\\n'
        "    --max-model-len 4096\n"
    )
    result = lint(path, rules, gpu="H100")
    [deployment] = result.deployments
    assert deployment.deployment.parallel.tensor == 4
    assert deployment.budget.resolved.target.name == "Qwen/Qwen2.5-1.5B-Instruct"


def test_eval_of_a_quoted_command_line_reads_it(rules, tmp_path):
    # `CMD="vllm serve ${MODEL} --tensor-parallel-size ${TP}"; eval "${CMD}"` (sweep 20): the
    # quoted word is the script eval runs (eval ${CMD} was read; the quoted form was not)
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\n"
        'MODEL="Qwen/Qwen3-0.6B"\n'
        'CMD="vllm serve ${MODEL} --port 1212 --tensor-parallel-size 2"\n'
        'echo "${CMD}"\n'
        'eval "${CMD}"\n'
    )
    result = lint(path, rules, gpu="H100")
    [deployment] = result.deployments
    assert deployment.deployment.model.name == "Qwen/Qwen3-0.6B"
    assert deployment.deployment.parallel.tensor == 2


def test_a_loop_over_plain_words_is_one_deployment_per_value(rules, tmp_path):
    # microsoft/DeepSpeedExamples benchmarks/inference/mii/run_all_vllm.sh: `for MODEL in A B;
    # do vllm serve $MODEL ...; done`; was an HBM011 "$MODEL is not set ... earlier in the
    # script", nothing checked
    path = tmp_path / "run_all.sh"
    path.write_text(
        "#!/bin/bash\n"
        "for MODEL in Qwen/Qwen3-0.6B meta-llama/Llama-3.1-70B-Instruct; do\n"
        "  vllm serve $MODEL --max-model-len 8192 &\n"
        "  sleep 600\n"
        "done\n"
        "for TP in 1 2; do vllm serve Qwen/Qwen3-8B --tensor-parallel-size ${TP}; done\n"
    )
    result = lint(path, rules, gpu="L4")
    read = [
        (d.deployment.name, d.deployment.model.name, d.deployment.parallel.tensor)
        for d in result.deployments
    ]
    assert read == [
        ("run_all.sh:3 (Qwen/Qwen3-0.6B)", "Qwen/Qwen3-0.6B", None),
        (
            "run_all.sh:3 (meta-llama/Llama-3.1-70B-Instruct)",
            "meta-llama/Llama-3.1-70B-Instruct",
            None,
        ),
        ("run_all.sh:6 (1)", "Qwen/Qwen3-8B", 1),
        ("run_all.sh:6 (2)", "Qwen/Qwen3-8B", 2),
    ]
    [refused] = [f for f in result.diagnostics if f.code == "HBM101"]
    assert refused.deployment == "run_all.sh:3 (meta-llama/Llama-3.1-70B-Instruct)"


def test_a_nim_container_the_script_runs_is_read_as_in_compose(rules, tmp_path):
    # NVIDIA's NIM quickstart: `docker run --gpus ... -e NIM_MAX_MODEL_LEN=8192
    # nvcr.io/nim/meta/llama-3.1-8b-instruct:latest` (sweep 20: was "All clear, 0 deployments")
    path = tmp_path / "nim.sh"
    path.write_text(
        "#!/bin/bash\n"
        "docker run -d --rm --name nim-llm \\\n"
        "    --gpus '\"device=1\"' \\\n"
        '    -e NGC_API_KEY="$NGC_API_KEY" \\\n'
        "    -e NIM_MAX_MODEL_LEN=8192 \\\n"
        "    -p 8000:8000 \\\n"
        "    nvcr.io/nim/meta/llama-3.1-8b-instruct:latest\n"
        "vllm serve Qwen/Qwen3-0.6B\n"
    )
    result = lint(path, rules, gpu="L4")
    read = sorted((d.deployment.name, d.deployment.model.name) for d in result.deployments)
    assert read == [
        ("nim.sh:2", "meta-llama/Llama-3.1-8B-Instruct"),
        ("nim.sh:8", "Qwen/Qwen3-0.6B"),
    ]
    [nim] = [d for d in result.deployments if d.deployment.name == "nim.sh:2"]
    assert nim.deployment.gpu.count == 1 and nim.deployment.serving.max_model_len == 8192
