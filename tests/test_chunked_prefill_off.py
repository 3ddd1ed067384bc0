"""vLLM's V1 engine keeps --no-enable-chunked-prefill from 0.12 (0.8 to 0.11 turned chunked
prefill on whatever the flag said): a prompt is prefilled in one step, so an unset
max_num_batched_tokens becomes a whole max_model_len (the profile run's activations with it),
and one set below max_model_len is refused (HBM305). hbmlint took the flag for a V0-only
setting and kept the default batch."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import vllm_compose

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
FIXTURE = "vllm-no-chunked-prefill-l4.yaml"

QWEN25_7B = "vllm serve Qwen/Qwen2.5-7B-Instruct"


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(tmp_path: Path, rules, flags: str, version: str = "v0.19.0"):
    path = vllm_compose(tmp_path, f"{QWEN25_7B} {flags}", version)
    options = LintOptions(keep_budgets=True, default_gpu="L4")
    result = lint_file(path, "compose.yaml", rules, options)
    return result.diagnostics, result.deployments[0].budget


def test_a_whole_context_prefill_is_budgeted(rules):
    """The real pattern on an L4: the profile run prefills 32,768 tokens, not 2,048; the KV
    cache left may not hold one 32k sequence (HBM105), where hbmlint had called it clean."""
    options = LintOptions(keep_budgets=True, default_gpu="L4")
    result = lint_file(REAL / FIXTURE, FIXTURE, rules, options)
    assert [(d.code, d.severity.name) for d in result.diagnostics] == [("HBM105", "WARNING")]
    budget = result.deployments[0].budget
    assert budget.settings.max_num_batched_tokens == 32768
    assert "--no-enable-chunked-prefill" in budget.assumed["max_num_batched_tokens"]
    assert round(float(budget.overhead["activation"].to("GiB").magnitude), 2) == 4.62


@pytest.mark.parametrize(
    ("flags", "version", "batched"),
    [
        ("--max-model-len 16384 --no-enable-chunked-prefill", "v0.12.0", 16384),
        ("--max-model-len 16384 --no-enable-chunked-prefill", "v0.11.0", 2048),  # forced on
        ("--max-model-len 16384 --enable-chunked-prefill", "v0.19.0", 2048),
        ("--max-model-len 16384", "v0.19.0", 2048),
        # a context below the default keeps the default, at most max_num_seqs x max_model_len
        ("--max-model-len 1024 --no-enable-chunked-prefill", "v0.19.0", 2048),
        ("--max-model-len 1024 --max-num-seqs 1 --no-enable-chunked-prefill", "v0.19.0", 1024),
    ],
)
def test_the_batch_vllm_defaults_to(tmp_path, rules, flags, version, batched):
    _, budget = lint(tmp_path, rules, flags, version)
    assert budget.settings.max_num_batched_tokens == batched


@pytest.mark.parametrize("version", ["v0.12.0", "v0.19.0", "latest"])
def test_a_set_batch_below_the_context_is_refused_from_0_12(tmp_path, rules, version):
    flags = "--max-model-len 8192 --max-num-batched-tokens 4096 --no-enable-chunked-prefill"
    found, _ = lint(tmp_path, rules, flags, version)
    [error] = [d for d in found if d.code == "HBM305"]
    assert error.severity.name == "ERROR"
    assert "chunked prefill is off; vLLM refuses to start" in error.message
    assert error.span.line == 5


@pytest.mark.parametrize(
    ("flags", "version"),
    [
        (
            "--max-model-len 8192 --max-num-batched-tokens 4096 --no-enable-chunked-prefill",
            "v0.11.0",
        ),
        ("--max-model-len 8192 --max-num-batched-tokens 4096", "v0.19.0"),
        (
            "--max-model-len 8192 --max-num-batched-tokens 8192 --no-enable-chunked-prefill",
            "v0.19.0",
        ),
    ],
)
def test_no_refusal_where_vllm_starts(tmp_path, rules, flags, version):
    found, _ = lint(tmp_path, rules, flags, version)
    assert [d for d in found if d.code == "HBM305"] == []
