"""SGLang 0.5.10 and later read --context-length and --max-total-tokens with
human_readable_int (sglang/srt/utils/common.py): 32k is 32,000 and 1M is 1,000,000, as SI
says, while 32Ki is 32,768 (vLLM's 1M is 2**20). hbmlint took them as plain integers, so
`--context-length 128k` was an HBM004 error for a server that starts."""

from __future__ import annotations

import pytest

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

COMPOSE = """\
services:
  sglang:
    image: lmsysorg/sglang:v0.5.23
    command: python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct FLAGS
    deploy:
      resources:
        reservations:
          devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]
"""


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(tmp_path, rules, flags: str):
    path = tmp_path / "compose.yaml"
    path.write_text(COMPOSE.replace("FLAGS", flags))
    return lint_file(path, "compose.yaml", rules, LintOptions(default_gpu="H100"))


@pytest.mark.parametrize(
    ("flags", "context", "total"),
    [
        ("--context-length 128k", 128_000, None),
        ("--context-length 128Ki", 131_072, None),
        ("--context-length 32768 --max-total-tokens 1M", 32_768, 1_000_000),
        ("--context-length 25.6k", 25_600, None),
    ],
)
def test_suffixed_lengths_read_as_sglang_reads_them(tmp_path, rules, flags, context, total):
    result = lint(tmp_path, rules, flags)
    assert [d.code for d in result.diagnostics if d.code == "HBM004"] == []
    serving = result.deployments[0].deployment.serving
    assert serving.max_model_len == context
    assert serving.kv_cache_max_tokens == total


@pytest.mark.parametrize("value", ["128K", "1.5Ki"])
def test_what_sglang_refuses_is_still_an_error(tmp_path, rules, value):
    result = lint(tmp_path, rules, f"--context-length {value}")
    [error] = [d for d in result.diagnostics if d.code == "HBM004"]
    assert f"'{value}' is not a whole number" in error.message


@pytest.mark.parametrize("value", ["9" * 400 + "k", "9" * 30, "99999999999999999999.5M"])
def test_a_length_past_int64_is_out_of_range_at_the_flag(tmp_path, rules, value):
    """A suffixed number too large for a float (400 digits and k) was an OverflowError and an
    HBM000 on the whole file; it is out of range at the flag, as vLLM's lengths are."""
    result = lint(tmp_path, rules, f"--context-length {value}")
    assert [d for d in result.diagnostics if d.code == "HBM000"] == []
    [error] = [d for d in result.diagnostics if d.code == "HBM004"]
    assert "out of range (more than 2^63 - 1)" in error.message
