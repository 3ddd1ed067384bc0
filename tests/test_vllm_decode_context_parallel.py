"""vLLM's decode context parallelism reuses the ranks of the TP group, so ParallelConfig
refuses a TP size that --decode-context-parallel-size does not divide ("tp_size=4 must be
divisible by dcp_size=8", vllm/config/parallel.py in every release read, 0.10.2 to 0.33.0):
an error at the flag, in every release."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import vllm_compose

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

KIMI = "vllm serve moonshotai/Kimi-K2-Thinking --max-model-len 32768"


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def invalid_values(path: Path, rules):
    result = lint_file(path, path.name, rules, LintOptions(default_gpu="H200"))
    return [d for d in result.diagnostics if d.code == "HBM004"]


@pytest.mark.parametrize(
    ("flags", "refused"),
    [
        ("--tensor-parallel-size 8 --decode-context-parallel-size 8", False),
        ("-tp 8 -dcp 4", False),
        ("--tensor-parallel-size 4 --decode-context-parallel-size 8", True),
        ("-tp 6 -dcp 4", True),
        ("--decode-context-parallel-size 2", True),  # TP defaults to 1
        ("-tp 4 -dcp 8 --prefill-context-parallel-size 2", False),  # other sizes: not judged
        ("-tp $TP -dcp 8", False),  # TP unreadable
        ("--config serve.yaml -dcp 8", False),  # TP may be in the file
        ("--config serve.yaml -tp 4 -dcp 8", True),  # the command line wins over the file
    ],
)
def test_tensor_parallel_not_divisible_by_dcp_is_refused(
    tmp_path: Path, rules, flags: str, refused: bool
):
    path = vllm_compose(tmp_path, f"{KIMI} {flags}", "v0.33.0")
    found = invalid_values(path, rules)
    assert [d.severity.name for d in found] == (["ERROR"] if refused else [])


def test_the_error_names_both_sizes_at_the_dcp_flag(tmp_path: Path, rules):
    path = vllm_compose(tmp_path, f"{KIMI} -tp 4 --decode-context-parallel-size 8", "latest")
    [error] = invalid_values(path, rules)
    assert "'tp_size=4 must be divisible by dcp_size=8'" in error.message
    line = path.read_text().splitlines()[error.span.line - 1]
    assert line[error.span.column - 1 :].startswith("--decode-context-parallel-size 8")
    assert error.fixes[0].message.startswith("Set --tensor-parallel-size to a multiple of 8")
