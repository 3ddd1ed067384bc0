"""Patterns from public repositories hbmlint had never seen (sweep 11): each fixture under
tests/fixtures/real/ names its source in its first lines; each test says what a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"

NO_CHUNKS = REAL / "sglang-chunked-prefill-off-dynamo-decode.yaml"
BRANCH = REAL / "compose-vllm-flag-set-in-a-branch.yml"
OPERATORLESS = REAL / "dynamo-trtllm-without-operator.yaml"
APPTAINER = REAL / "slurm-apptainer-bash-c-sglang.sh"

COVERED = {
    NO_CHUNKS.name,
    BRANCH.name,
    OPERATORLESS.name,
    APPTAINER.name,
}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(path: Path, rules, gpu: str | None = None):
    return lint_file(path, path.name, rules, LintOptions(default_gpu=gpu))


def errors(result) -> list[str]:
    return [f"{f.code}: {f.message}" for f in result.diagnostics if f.severity is Severity.ERROR]


def test_sglang_chunked_prefill_size_minus_one_turns_chunking_off(rules):
    # SGLang reads --chunked-prefill-size -1 as "no chunked prefill"; it is no invalid value
    result = lint(NO_CHUNKS, rules)
    assert errors(result) == []
    [found] = result.deployments
    serving = found.deployment.serving
    assert serving.chunked_prefill is False
    assert serving.max_num_batched_tokens is None
    # one prefill batch then holds up to max(max_prefill_tokens 16384, the context length)
    assert found.budget is not None
    assumed = found.budget.assumed["max_num_batched_tokens"]
    assert assumed.startswith("16384 ") and "without chunked prefill" in assumed


def test_a_zero_chunk_is_off_too_and_a_word_is_still_an_error(rules, tmp_path):
    text = NO_CHUNKS.read_text()
    zero = tmp_path / "zero.yaml"
    zero.write_text(text.replace("--chunked-prefill-size -1", "--chunked-prefill-size 0"))
    [found] = lint(zero, rules).deployments
    assert found.deployment.serving.chunked_prefill is False
    word = tmp_path / "word.yaml"
    word.write_text(text.replace("--chunked-prefill-size -1", "--chunked-prefill-size off"))
    result = lint(word, rules)
    [bad] = [f for f in result.diagnostics if f.code == "HBM004"]
    assert "'off' is not a whole number" in bad.message
    assert bad.span.line == 35


def test_a_long_context_without_chunks_prefills_the_whole_context(rules, tmp_path):
    longer = tmp_path / "long.yaml"
    longer.write_text(
        NO_CHUNKS.read_text().replace("--context-length 9300", "--context-length 65536")
    )
    [found] = lint(longer, rules).deployments
    assert found.budget is not None
    assert found.budget.assumed["max_num_batched_tokens"].startswith("65536 ")


def test_a_flag_set_only_in_a_branch_that_does_not_run_is_not_passed(rules):
    # `if [ -n "$X" ]; then ARGS="--kv-cache-memory-bytes $X"; fi` with X empty: no flag, so
    # no "--kv-cache-memory-bytes needs a value"; the `[ -n "$Y" ] && ARGS=...` default stays
    result = lint(BRANCH, rules, gpu="L40S")
    assert errors(result) == []
    [found] = result.deployments
    serving = found.deployment.serving
    assert serving.kv_cache_memory_bytes is None
    assert serving.max_num_seqs == 8


def test_the_branch_taken_when_the_variable_is_set(rules, tmp_path):
    text = BRANCH.read_text()
    text = text.replace('"${SIDECAR_KV_BYTES:-}"', '"4000000000"')
    text = text.replace('"${SIDECAR_MAX_SEQS:-}"', '"16"')
    taken = tmp_path / "taken.yml"
    taken.write_text(text)
    [found] = lint(taken, rules, gpu="L40S").deployments
    assert found.deployment.serving.kv_cache_memory_bytes == 4_000_000_000
    assert found.deployment.serving.max_num_seqs == 16


def test_a_branch_on_a_value_hbmlint_cannot_see_leaves_the_variable_unread(rules, tmp_path):
    # the test is on the CPU count: the flag variable holds one of two values, so its words
    # are unread (an info saying so), never a guess and never an error
    text = BRANCH.read_text().replace('[ -n "$${SIDECAR_KV_BYTES:-}" ]', '[ "$$(nproc)" -gt 8 ]')
    unsure = tmp_path / "unsure.yml"
    unsure.write_text(text)
    result = lint(unsure, rules, gpu="L40S")
    assert errors(result) == []
    [found] = result.deployments
    assert found.deployment.serving.kv_cache_memory_bytes is None
    [note] = [f for f in result.diagnostics if f.code == "HBM011"]
    assert "${KV_ARGS}" in note.message and note.span.line == 26


def read(result) -> list[tuple]:
    return [
        (
            d.deployment.name,
            d.deployment.engine,
            d.deployment.model.name,
            d.deployment.parallel.tensor,
            d.deployment.gpu.count,
            d.deployment.serving.gpu_memory_utilization,
        )
        for d in result.deployments
    ]


def test_dynamo_trtllm_workers_without_the_operator_are_read_with_their_configmap(rules):
    # a plain Deployment and a StatefulSet run `python3 -m dynamo.trtllm`; their parallelism
    # and memory fraction are in the ConfigMap they mount, and the TP 8 worker spans the two
    # pods mpirun starts its ranks on (-H a:4,b:4): 8 GPUs, not the 4 of one pod
    result = lint(OPERATORLESS, rules)
    assert read(result) == [
        ("llama-prefill", "trtllm", "meta-llama/Llama-3.1-70B-Instruct", 4, 4, 0.8),
        ("llama-agg", "trtllm", "meta-llama/Llama-3.1-70B-Instruct", 8, 8, 0.85),
    ]
    assert errors(result) == []
    assert not [f for f in result.diagnostics if f.code == "HBM014"]


def test_a_tp8_worker_on_one_pod_of_four_gpus_is_still_an_error(rules, tmp_path):
    # without mpirun's second host the engine has the 4 GPUs of its pod: TP 8 cannot start
    text = OPERATORLESS.read_text().replace(' -H "$LEADER:4,$PEER:4"', "")
    alone = tmp_path / "alone.yaml"
    alone.write_text(text)
    result = lint(alone, rules)
    [error] = [f for f in result.diagnostics if f.severity is Severity.ERROR]
    assert error.code == "HBM007" and "4 GPUs requested" in error.message
    assert error.span.line == 87


def test_a_worker_whose_configmap_is_not_linted_is_a_note_naming_the_file(rules, tmp_path):
    text = OPERATORLESS.read_text()
    without = tmp_path / "without.yaml"
    without.write_text(text[text.index("apiVersion: apps/v1") :])
    result = lint(without, rules)
    assert errors(result) == []
    notes = [f for f in result.diagnostics if f.code == "HBM014"]
    assert len(notes) == 2 and "/config/prefill.yaml" in notes[0].message


def test_an_engine_in_bash_c_under_srun_and_apptainer_is_read_at_its_lines(rules):
    # `srun apptainer exec --nv IMAGE bash -c "python -m sglang.launch_server ..."`: the shell
    # is not the first word, and the flags sit one a line inside the quoted script
    result = lint(APPTAINER, rules, gpu="H100")
    [found] = result.deployments
    deployment = found.deployment
    assert (deployment.engine, deployment.model.name) == ("sglang", "Qwen/Qwen3-235B-A22B-FP8")
    assert deployment.parallel.tensor == 8
    assert deployment.serving.max_model_len == 32768
    assert errors(result) == []
    assert not [f for f in result.diagnostics if f.code == "HBM014"]
    # on a card too small, the finding points at the model inside the quoted script
    [small] = [f for f in lint(APPTAINER, rules, gpu="L4").diagnostics if f.code == "HBM101"]
    assert (small.span.line, small.span.column) == (22, 9)
