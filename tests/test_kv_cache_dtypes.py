"""KV cache dtypes the current releases take: vLLM 0.33's CacheDType (NVFP4, TurboQuant, Octave,
UltraQuant, per-token-head INT4/INT8/FP8) and SGLang 0.5.23's choices (mxfp8, nvfp4,
fp4_mx_block16). hbmlint refused every one but nvfp4 and the per-token-head INT8/FP8 as an
HBM004 error (a false error: the engine starts), and sized the KV cache as the model dtype."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import vllm_compose

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

LLAMA = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 131072"

SGLANG = """\
services:
  sglang:
    image: lmsysorg/sglang:v0.5.23
    command: >-
      python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct
      --context-length 32768 --kv-cache-dtype DTYPE
    deploy:
      resources:
        reservations:
          devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]
"""


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def vllm(tmp_path: Path, rules, dtype: str, gpu: str = "H100"):
    path = vllm_compose(tmp_path, f"{LLAMA} --kv-cache-dtype {dtype}", "v0.33.0")
    options = LintOptions(keep_budgets=True, default_gpu=gpu)
    result = lint_file(path, "compose.yaml", rules, options)
    return result.diagnostics, result.deployments[0].budget


def per_token(budget) -> int:
    return round(budget.kv_bytes_per_token_target.to("byte / token").magnitude)


@pytest.mark.parametrize(
    ("dtype", "bytes_per_token"),
    [
        # Llama 3.1 8B: 32 layers x 8 KV heads x 128 x (K + V) = 65,536 values a token
        ("auto", 131_072),
        ("fp8", 65_536),
        ("turboquant_k8v4", 49_152),  # 8-bit keys, 4-bit values
        ("turboquant_3bit_nc", 24_576),
        ("int4_per_token_head", 32_768),
        ("int8_per_token_head", 65_536),
        ("nvfp4", 36_864),  # 4 bits and an 8-bit scale per 16 values
        ("octave_k3v4", 28_672),
    ],
)
def test_vllm_takes_each_kv_dtype_and_sizes_it(tmp_path, rules, dtype, bytes_per_token):
    diagnostics, budget = vllm(tmp_path, rules, dtype)
    assert [d.code for d in diagnostics if d.code in ("HBM004", "HBM011")] == []
    assert per_token(budget) == bytes_per_token


def test_a_long_context_that_only_a_4_bit_cache_holds_is_no_error(tmp_path, rules):
    """131,072 tokens of Llama 3.1 8B on an L4: about 35k tokens in BF16 (HBM102), about 126k
    in NVFP4, within the estimate's uncertainty of one sequence (a warning, not a refusal)."""
    bf16, _ = vllm(tmp_path, rules, "auto", gpu="L4")
    nvfp4, _ = vllm(tmp_path, rules, "nvfp4", gpu="L4")
    assert [d.code for d in bf16 if d.severity.name == "ERROR"] == ["HBM102"]
    assert [(d.code, d.severity.name) for d in nvfp4] == [("HBM105", "WARNING")]


def test_no_fp8_advice_for_a_cache_already_smaller_than_fp8(tmp_path, rules):
    diagnostics, _ = vllm(tmp_path, rules, "turboquant_k8v4", gpu="L4")
    [error] = [d for d in diagnostics if d.code == "HBM102"]
    assert not any("FP8 KV cache" in f.message for f in error.fixes)
    assert any("FP8 KV cache" in f.message for f in vllm(tmp_path, rules, "auto", "L4")[0][0].fixes)


def test_an_unknown_kv_dtype_is_still_refused(tmp_path, rules):
    diagnostics, _ = vllm(tmp_path, rules, "fp4")
    [error] = [d for d in diagnostics if d.code == "HBM004"]
    assert "'fp4' is not a KV cache dtype" in error.message


@pytest.mark.parametrize(
    ("dtype", "bytes_per_token"), [("mxfp8", 67_584), ("fp4_mx_block16", 36_864)]
)
def test_sglang_0_5_23_kv_dtypes(tmp_path, rules, dtype, bytes_per_token):
    path = tmp_path / "compose.yaml"
    path.write_text(SGLANG.replace("DTYPE", dtype))
    result = lint_file(
        path, "compose.yaml", rules, LintOptions(keep_budgets=True, default_gpu="H100")
    )
    assert [d.code for d in result.diagnostics if d.code in ("HBM004", "HBM011")] == []
    assert per_token(result.deployments[0].budget) == bytes_per_token


TGI = """\
services:
  tgi:
    image: ghcr.io/huggingface/text-generation-inference:3.3.7
    command: >-
      --model-id meta-llama/Llama-3.1-8B-Instruct --max-total-tokens 8192 --kv-cache-dtype DTYPE
    deploy:
      resources:
        reservations:
          devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]
"""


def test_tgi_names_its_fp8_kv_cache_fp8_e4m3fn(tmp_path, rules):
    # huggingface/text-generation-inference@v3.3.7 launcher/src/main.rs KVCacheDtype
    path = tmp_path / "compose.yaml"
    path.write_text(TGI.replace("DTYPE", "fp8_e4m3fn"))
    options = LintOptions(keep_budgets=True, default_gpu="H100")
    result = lint_file(path, "compose.yaml", rules, options)
    assert [d.code for d in result.diagnostics if d.code in ("HBM004", "HBM011")] == []
    assert per_token(result.deployments[0].budget) == 65_536


def test_vllm_fp8_ds_mla_is_flashmla_s_656_bytes_a_token_and_layer(tmp_path, rules):
    """--kv-cache-dtype fp8_ds_mla on DeepSeek-V3 was an info with a BF16-sized cache (70,272
    bytes a token): now the catalog's FlashMLA page, 61 layers x 656 bytes."""
    command = "vllm serve deepseek-ai/DeepSeek-V3 -tp 8 --max-model-len 163840"
    path = vllm_compose(tmp_path, f"{command} --kv-cache-dtype fp8_ds_mla", "v0.33.0")
    path.write_text(path.read_text().replace("count: 1,", "count: 8,"))
    options = LintOptions(keep_budgets=True, default_gpu="H200")
    result = lint_file(path, "compose.yaml", rules, options)
    assert [d.code for d in result.diagnostics if d.code in ("HBM004", "HBM011")] == []
    assert per_token(result.deployments[0].budget) == 61 * 656
