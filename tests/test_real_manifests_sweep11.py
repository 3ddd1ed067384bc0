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

COVERED = {
    NO_CHUNKS.name,
    BRANCH.name,
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
    assert "${KV_ARGS}" in note.message and note.span.line == 25
