"""Shell launch scripts whose engine command is in a function of a library they source
(uccl-project/uccl ep/bench/sglang: nine multi-node wide-EP SGLang launches, each
`source "$SCRIPT_DIR/common_launch.sh"` then `launch_nccl "$MODEL_PATH" "$TP_SIZE" ...`, were
"runs no engine hbmlint reads"): a function's `local` variables are its own, a function that
calls another is read through to the engine command with the arguments threaded through, and
the functions of a sourced file are the script's."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(path: Path, rules, gpu: str | None = "H100"):
    return lint_file(path, path.name, rules, LintOptions(default_gpu=gpu))


def read(result) -> list[tuple[str, int | None]]:
    return [
        (d.deployment.model.name, d.deployment.serving.max_model_len) for d in result.deployments
    ]


# ------------------------------------------------------------------ local variables


def test_a_functions_local_variable_is_not_a_second_value_of_the_scripts(rules, tmp_path):
    # `MODEL=...` at the top and `local MODEL="$1"` in the function were "set to 2 different
    # values in the script": every command using $MODEL was unreadable
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\n"
        'MODEL="Qwen/Qwen2.5-7B-Instruct"\n'
        "serve() {\n"
        '  local MODEL="$1"\n'
        "  local LEN=4096\n"
        '  vllm serve "$MODEL" --max-model-len "$LEN"\n'
        "}\n"
        'serve "$MODEL"\n'
        "serve Qwen/Qwen2.5-3B-Instruct\n"
        "LEN=16384\n"
        'vllm serve "$MODEL" --max-model-len "$LEN" --port 8001\n'
    )
    result = lint(path, rules, gpu="L40S")
    assert read(result) == [
        ("Qwen/Qwen2.5-7B-Instruct", 4096),
        ("Qwen/Qwen2.5-3B-Instruct", 4096),
        # after the function, the script's own values: not the function's
        ("Qwen/Qwen2.5-7B-Instruct", 16384),
    ]
    assert not [f for f in result.diagnostics if "different values" in f.message]


@pytest.mark.parametrize("declare", ["local", "declare", "typeset", "local -r", "declare -i"])
def test_declare_and_typeset_in_a_function_are_local_too(rules, tmp_path, declare):
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\n"
        "LEN=8192\n"
        "serve() {\n"
        f"  {declare} LEN=4096\n"
        '  vllm serve "$1" --max-model-len "$LEN"\n'
        "}\n"
        "serve Qwen/Qwen2.5-7B-Instruct\n"
        'vllm serve Qwen/Qwen2.5-3B-Instruct --max-model-len "$LEN"\n'
    )
    assert read(lint(path, rules, gpu="L40S")) == [
        ("Qwen/Qwen2.5-7B-Instruct", 4096),
        ("Qwen/Qwen2.5-3B-Instruct", 8192),
    ]


def test_declare_g_and_a_plain_assignment_in_a_function_are_the_scripts(rules, tmp_path):
    # `declare -g` sets the script's variable: set in two places, which one a run takes is
    # still not chosen
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\n"
        "LEN=8192\n"
        "setup() {\n"
        "  declare -g LEN=4096\n"
        "}\n"
        'vllm serve Qwen/Qwen2.5-3B-Instruct --max-model-len "$LEN"\n'
    )
    result = lint(path, rules, gpu="L40S")
    assert [f for f in result.diagnostics if "LEN is set to 2 different values" in f.message]


def test_one_function_setting_its_local_to_two_values_leaves_it_unknown(rules, tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\n"
        "serve() {\n"
        "  local LEN=4096\n"
        '  if [ "$BIG" = 1 ]; then LEN=32768; fi\n'
        '  vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len "$LEN"\n'
        "}\n"
        "serve\n"
    )
    result = lint(path, rules, gpu="L40S")
    [unread] = [f for f in result.diagnostics if f.code == "HBM011"]
    assert "$LEN is set to 2 different values" in unread.message


# ------------------------------------------------------------------ functions calling functions

LAYERED = (
    "#!/bin/bash\n"
    "server() {\n"
    '  local MODEL="$1"\n'
    '  local TP="$2"\n'
    "  shift 2\n"
    '  local EXTRA=("$@")\n'
    '  echo "MODEL=$MODEL TP=$TP"\n'
    "  python -m sglang.launch_server \\\n"
    '    --model-path "$MODEL" \\\n'
    '    --tp-size "$TP" \\\n'
    "    --mem-fraction-static 0.8 \\\n"
    '    "${EXTRA[@]}"\n'
    "}\n"
    "launch() {\n"
    '  local MODEL="$1"\n'
    '  local TP="$2"\n'
    "  shift 2\n"
    '  server "$MODEL" "$TP" --context-length 8192 "$@"\n'
    "}\n"
    'MODEL="Qwen/Qwen2.5-7B-Instruct"\n'
    "TP=2\n"
    'launch "$MODEL" "$TP" --max-running-requests 64\n'
)


def test_a_function_calling_another_is_read_through_to_the_engine(rules, tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text(LAYERED)
    result = lint(path, rules, gpu="L40S")
    [deployment] = result.deployments
    read = deployment.deployment
    assert read.name == "serve.sh"
    assert read.model.name == "Qwen/Qwen2.5-7B-Instruct"
    assert read.parallel.tensor == 2
    # the flags of each layer: the inner function's, the outer one's, the caller's
    assert read.serving.gpu_memory_utilization == 0.8
    assert read.serving.max_model_len == 8192
    assert read.serving.max_num_seqs == 64
    assert [f for f in result.diagnostics if f.code == "HBM011"] == []
    # read at the outermost call, not where `server` is written (it is called)
    assert read.locations[""].line == 22


def test_a_callers_unreadable_word_is_a_finding_at_the_call(rules, tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text(LAYERED.replace('launch "$MODEL"', 'launch "$MODEL_DIR"'))
    result = lint(path, rules, gpu="L40S")
    assert result.deployments == []
    [unread] = [f for f in result.diagnostics if f.code == "HBM011"]
    assert "$MODEL_DIR" in unread.message
    assert (unread.span.line, unread.span.column) == (22, 8)


def test_the_environment_a_call_on_the_way_gives_reaches_the_engine(rules, tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text(
        LAYERED.replace('  server "$MODEL"', '  CUDA_VISIBLE_DEVICES=0 server "$MODEL"')
    )
    result = lint(path, rules, gpu="L40S")
    # one GPU visible for --tp-size 2
    [short] = [f for f in result.diagnostics if f.code == "HBM007"]
    assert short.severity.name == "ERROR"


def test_a_function_calling_itself_is_not_followed_for_ever(rules, tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\n"
        'ping() { pong "$@"; }\n'
        'pong() { ping "$@"; vllm serve "$1" --max-model-len 4096; }\n'
        "ping Qwen/Qwen2.5-7B-Instruct\n"
    )
    result = lint(path, rules, gpu="L40S")
    assert read(result) == [("Qwen/Qwen2.5-7B-Instruct", 4096)]


def test_a_function_only_uncalled_functions_call_is_read_where_it_is_written(rules, tmp_path):
    # the library pasted in without a call: the engine command read in place, as before
    path = tmp_path / "serve.sh"
    path.write_text(LAYERED.rsplit("MODEL=", 1)[0])
    result = lint(path, rules, gpu="L40S")
    assert result.deployments == []
    unread = [f for f in result.diagnostics if f.code == "HBM011"]
    assert unread and all("the function server" in f.message for f in unread)


# ------------------------------------------------------------------ functions of a sourced file

LIBRARY = Path(__file__).parent / "fixtures" / "real" / "shell-function-library"
GLM = LIBRARY / "GLM-4.6_nccl.sh"
COVERED = {"shell-function-library/GLM-4.6_nccl.sh", "shell-function-library/common_launch.sh"}


def line_of(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def test_a_launch_through_a_sourced_librarys_functions_is_read(rules):
    # GLM-4.6_nccl.sh: launch_nccl (common_launch.sh) adds the wide-EP flags and calls
    # launch_sglang_server, which runs python -m sglang.launch_server with both layers' flags
    # and the caller's; was "runs no engine hbmlint reads" (0 deployments)
    result = lint(GLM, rules)
    [deployment] = result.deployments
    read = deployment.deployment
    assert (read.name, read.engine) == ("GLM-4.6_nccl.sh", "sglang")
    assert read.model.name == "zai-org/GLM-4.6-FP8"
    # TP 32, EP 32, DP 32 with DP attention: over 4 nodes of 8 GPUs
    assert (read.parallel.tensor, read.parallel.data, read.parallel.expert) == (32, 32, True)
    assert read.parallel.dp_attention is True  # launch_nccl's --enable-dp-attention
    # --enable-dp-lm-head (launch_nccl), --moe-dense-tp-size 1 (launch_sglang_server)
    assert set(read.parallel.whole_parts) == {"dp_lm_head", "dense_mlp_whole"}
    # launch_sglang_server's own flags
    assert read.serving.gpu_memory_utilization == 0.85
    assert read.serving.max_num_batched_tokens == 32768
    assert read.serving.block_size == 256
    # the caller's: --disable-radix-cache
    assert read.serving.prefix_caching is False
    budget = deployment.budget
    assert budget.resolved.gpu_count == 32
    assert (budget.settings.expert_parallel, budget.settings.attention_data_parallel) == (32, 32)
    assert not [f for f in result.diagnostics if "different values" in f.message]
    assert not [f for f in result.diagnostics if f.code in ("HBM011", "HBM014")]


def test_findings_are_at_lines_of_the_linted_script(rules):
    result = lint(GLM, rules)
    [deployment] = result.deployments
    call = line_of(GLM, "launch_nccl ")
    lines = len(GLM.read_text().splitlines())
    # a word of common_launch.sh is placed at the call (its lines are not this file's)
    [removed] = [f for f in result.diagnostics if f.code == "HBM010"]
    assert "--cuda-graph-bs" in removed.message
    assert (removed.span.line, removed.span.column) == (call, 1)
    assert all(1 <= f.span.line <= lines for f in result.diagnostics)
    locations = deployment.deployment.locations
    assert locations["model.name"].line == call
    assert all(span.line <= lines for span in locations.values())
    # a word the caller writes stays where it is written
    assert locations["serving.prefix_caching"].line == line_of(GLM, "--disable-radix-cache")


def test_a_callers_unreadable_argument_is_at_its_word(rules, tmp_path):
    for library in LIBRARY.iterdir():
        (tmp_path / library.name).write_text(library.read_text())
    path = tmp_path / GLM.name
    path.write_text(GLM.read_text().replace('launch_nccl "$MODEL_PATH"', 'launch_nccl "$MODEL"'))
    result = lint(path, rules)
    assert result.deployments == []
    [unread] = [f for f in result.diagnostics if f.code == "HBM011"]
    assert "$MODEL" in unread.message and "$MODEL_PATH" not in unread.message
    assert (unread.span.line, unread.span.column) == (line_of(path, "launch_nccl "), 13)


def test_without_the_library_the_call_runs_nothing_read(rules, tmp_path):
    path = tmp_path / GLM.name
    path.write_text(GLM.read_text())
    result = lint(path, rules)
    assert result.deployments == []


def test_a_function_the_script_defines_itself_is_the_one_called(rules, tmp_path):
    for library in LIBRARY.iterdir():
        (tmp_path / library.name).write_text(library.read_text())
    path = tmp_path / GLM.name
    path.write_text(
        GLM.read_text().replace(
            'MODEL_PATH="zai-org',
            "launch_nccl() { vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 4096; }\n"
            'MODEL_PATH="zai-org',
        )
    )
    result = lint(path, rules)
    assert read(result) == [("Qwen/Qwen2.5-7B-Instruct", 4096)]


def test_a_librarys_functions_the_script_never_calls_are_not_read(rules, tmp_path):
    # launch_uep is in common_launch.sh too: only the call's launch is a deployment, and the
    # library's own unread words are not findings of this script
    for library in LIBRARY.iterdir():
        (tmp_path / library.name).write_text(library.read_text())
    path = tmp_path / GLM.name
    path.write_text(GLM.read_text().split("launch_nccl ")[0])
    result = lint(path, rules)
    assert result.deployments == []
    assert result.diagnostics == []


def test_a_librarys_function_reading_the_callers_variable_says_so(rules, tmp_path):
    # bash reads the script's MODEL when serve runs; hbmlint follows only the call's words
    (tmp_path / "lib.sh").write_text('serve() {\n  vllm serve "$MODEL" --max-model-len 4096\n}\n')
    path = tmp_path / "run.sh"
    path.write_text("#!/bin/bash\nsource ./lib.sh\nMODEL=Qwen/Qwen2.5-7B-Instruct\nserve\n")
    result = lint(path, rules, gpu="L40S")
    assert result.deployments == []
    [unread] = [f for f in result.diagnostics if f.code == "HBM011"]
    assert "$MODEL is set by the script that sources this file" in unread.message
    assert (unread.span.line, unread.span.column) == (4, 1)
