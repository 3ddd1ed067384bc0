"""vLLM's --mamba-ssm-cache-dtype (and --mamba-cache-dtype, for conv and SSM state alike unless
the first is given): the recurrent state's dtype, auto following the config (vllm-project/
vllm@v0.33.0 vllm/config/cache.py MambaDType). The swept manifests write float32, which doubles
a BF16 model's SSM state; hbmlint ignored the flag and sized the state in BF16."""

from __future__ import annotations

import pytest
from helpers import vllm_compose

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

QWEN3_NEXT = "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct -tp 4 --max-model-len 32768"


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def budget(tmp_path, rules, flags: str):
    path = vllm_compose(tmp_path, f"{QWEN3_NEXT} {flags}", "v0.33.0")
    path.write_text(path.read_text().replace("count: 1,", "count: 4,"))
    options = LintOptions(keep_budgets=True, default_gpu="H100")
    result = lint_file(path, "compose.yaml", rules, options)
    assert result.diagnostics == []
    return result.deployments[0].budget


def state(b) -> int:
    return int(b.kv_state_bytes_per_sequence.to("byte").magnitude)


def test_float32_ssm_state_is_sized_in_float32(tmp_path, rules):
    bf16 = budget(tmp_path, rules, "")
    fp32 = budget(tmp_path, rules, "--mamba-ssm-cache-dtype float32")
    assert state(fp32) > state(bf16)
    assert fp32.kv_tokens < bf16.kv_tokens
    assert "--mamba-ssm-cache-dtype" in fp32.assumed["mamba_ssm_dtype"]


@pytest.mark.parametrize(
    ("flags", "like"),
    [
        ("--mamba-cache-dtype float32", "--mamba-ssm-cache-dtype float32"),
        ("--mamba-cache-dtype float32 --mamba-ssm-cache-dtype bfloat16", ""),
        ("--mamba-ssm-cache-dtype auto", ""),
    ],
)
def test_which_flag_sets_the_ssm_state(tmp_path, rules, flags, like):
    assert state(budget(tmp_path, rules, flags)) == state(budget(tmp_path, rules, like))
