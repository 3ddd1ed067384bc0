"""Flag values that the engines refuse, by release, read in each release's source:

- vLLM's --kv-cache-dtype takes the names of CacheDType (vllm/config/cache.py, 0.10.1-0.33.0
  wheels): never fp16, half or bf16; bfloat16 from 0.11, float16 from 0.18.
- vLLM's --mamba-cache-mode lost its "all" choice in 0.32 (argparse: invalid choice).
- vLLM's SpeculativeConfig lost the medusa and mlp_speculator methods in 0.33.
- vLLM's QuantizationMethods lost bitsandbytes in 0.28, gguf in 0.24, ptpc_fp8 in 0.19, ...
  (its ModelConfig: "Unknown quantization method").
- SGLang's --kv-cache-dtype choices never held fp8 (fp8_e4m3 and fp8_e5m2 only); fp4_e2m1 went
  in 0.5.21.
- TGI's --kv-cache-dtype takes fp8_e4m3fn and fp8_e5m2 only.

A value every release refuses is an error; one that only some releases refuse is an error where
the manifest's image names such a release, a warning where it names none (the newest refuses
it, an older image may not), and nothing where its release takes it."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import vllm_compose

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
FIXTURE = "shell-vllm-kv-cache-dtype-fp16.sh"

QWEN3_8B = "vllm serve Qwen/Qwen3-8B --max-model-len 8192"
MEDUSA = (
    """--speculative-config '{"method": "%s", "model": "FasterDecoding/medusa-vicuna-7b-v1.3", """
    """"num_speculative_tokens": 3}'"""
)


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def invalid_values(path: Path, rules, gpu: str = "H100"):
    result = lint_file(path, path.name, rules, LintOptions(default_gpu=gpu))
    return [d for d in result.diagnostics if d.code == "HBM004"]


def test_fp16_kv_cache_of_a_real_launch_script_is_an_error_at_the_value(rules):
    [error] = invalid_values(REAL / FIXTURE, rules, "H200")
    assert error.severity.name == "ERROR"
    assert (error.span.line, error.span.column) == (14, 22)
    assert "'fp16' is not a KV cache dtype any vLLM release takes" in error.message
    assert "write float16 (vLLM 0.18 and later) or auto" in error.message


@pytest.mark.parametrize(
    ("flags", "version", "severity"),
    [
        ("--kv-cache-dtype fp16", "v0.33.0", "ERROR"),
        ("--kv-cache-dtype fp16", "v0.9.2", "ERROR"),
        ("--kv-cache-dtype=half", "latest", "ERROR"),
        ("--kv-cache-dtype bf16", "latest", "ERROR"),
        ("--kv-cache-dtype FP8", "latest", "ERROR"),  # vLLM compares the exact name
        ("--kv-cache-dtype fp8", "latest", None),
        ("--kv-cache-dtype float16", "v0.17.0", "ERROR"),
        ("--kv-cache-dtype float16", "v0.18.0", None),
        ("--kv-cache-dtype float16", "latest", None),
        ("--kv-cache-dtype bfloat16", "v0.10.2", "ERROR"),
        ("--kv-cache-dtype bfloat16", "v0.11.0", None),
        ("--kv-cache-dtype nvfp4", "v0.19.0", "ERROR"),
        ("--kv-cache-dtype nvfp4", "v0.20.0", None),
        ("--kv-cache-dtype bfloat16 --kv-cache-dtype fp8", "v0.10.2", None),  # the last wins
        ("--mamba-cache-mode all", "v0.31.0", None),
        ("--mamba-cache-mode all", "v0.32.0", "ERROR"),
        ("--mamba-cache-mode all", "latest", "WARNING"),
        ("--mamba-cache-mode align", "v0.33.0", None),
        (MEDUSA % "medusa", "v0.32.0", None),
        (MEDUSA % "medusa", "v0.33.0", "ERROR"),
        (MEDUSA % "mlp_speculator", "v0.33.0", "ERROR"),
        (MEDUSA % "medusa", "latest", "WARNING"),
        ("--quantization bitsandbytes", "v0.27.1", None),
        ("--quantization bitsandbytes", "v0.28.0", "ERROR"),
        ("--quantization bitsandbytes", "latest", "WARNING"),
        ("--quantization gguf", "v0.24.0", "ERROR"),
        # deprecated from 0.14 (refused without --allow-deprecated-quantization), dropped in 0.19
        ("--quantization ptpc_fp8", "v0.13.0", None),
        ("--quantization ptpc_fp8", "v0.18.0", "ERROR"),
        ("--quantization ptpc_fp8 --allow-deprecated-quantization", "v0.18.0", None),
        ("--quantization ptpc_fp8 --allow-deprecated-quantization", "v0.19.0", "ERROR"),
        ("--quantization fp8", "v0.33.0", None),
    ],
)
def test_vllm_values_by_release(tmp_path: Path, rules, flags: str, version: str, severity):
    path = vllm_compose(tmp_path, f"{QWEN3_8B} {flags}", version)
    found = invalid_values(path, rules)
    assert [d.severity.name for d in found] == ([severity] if severity else [])
    if severity:  # on the line of the value the engine refuses
        line = path.read_text().splitlines()[found[0].span.line - 1]
        refused = flags.split("=")[-1].split()[-1] if "speculative" not in flags else "medusa"
        assert refused in line[found[0].span.column - 1 :]


def test_a_release_refusal_names_the_release_and_the_way_out(tmp_path: Path, rules):
    path = vllm_compose(tmp_path, f"{QWEN3_8B} --mamba-cache-mode all", "v0.32.0")
    [error] = invalid_values(path, rules)
    assert error.message.endswith("vLLM 0.32.0 refuses it (from 0.32 on)")
    assert "Use --mamba-cache-mode align" in error.fixes[0].message
    path = vllm_compose(tmp_path, f"{QWEN3_8B} {MEDUSA % 'medusa'}", "latest")
    [warning] = invalid_values(path, rules)
    assert "vLLM 0.33 and later refuse it, and the manifest names no release" in warning.message


def sglang_compose(tmp_path: Path, flags: str, version: str) -> Path:
    path = tmp_path / "compose.yaml"
    path.write_text(
        "services:\n"
        "  sglang:\n"
        f"    image: lmsysorg/sglang:{version}\n"
        "    command: >-\n"
        f"      python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B {flags}\n"
        "    deploy:\n"
        "      resources:\n"
        "        reservations:\n"
        "          devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]\n"
    )
    return path


@pytest.mark.parametrize(
    ("flags", "version", "severity"),
    [
        ("--kv-cache-dtype fp8", "v0.5.23", "ERROR"),
        ("--kv-cache-dtype fp8", "v0.4.3", "ERROR"),
        ("--kv-cache-dtype float16", "latest", "ERROR"),
        ("--kv-cache-dtype fp8_e4m3", "v0.5.23", None),
        ("--kv-cache-dtype bfloat16", "v0.5.23", None),
        ("--kv-cache-dtype bf16", "v0.4.10.post2", "ERROR"),
        ("--kv-cache-dtype fp4_e2m1", "v0.5.20", None),
        ("--kv-cache-dtype fp4_e2m1", "v0.5.21", "ERROR"),
        ("--kv-cache-dtype fp4_e2m1", "latest", "WARNING"),
    ],
)
def test_sglang_kv_cache_dtypes_by_release(tmp_path: Path, rules, flags, version, severity):
    found = invalid_values(sglang_compose(tmp_path, flags, version), rules)
    assert [d.severity.name for d in found] == ([severity] if severity else [])


def test_sglang_fp8_says_which_fp8_it_takes(tmp_path: Path, rules):
    [error] = invalid_values(sglang_compose(tmp_path, "--kv-cache-dtype fp8", "v0.5.23"), rules)
    assert "'fp8' is not a KV cache dtype any SGLang release takes" in error.message
    assert "write fp8_e4m3" in error.message


@pytest.mark.parametrize(("dtype", "refused"), [("fp8", True), ("fp8_e4m3fn", False)])
def test_tgi_kv_cache_dtypes(tmp_path: Path, rules, dtype: str, refused: bool):
    path = tmp_path / "tgi.sh"
    path.write_text(
        f"#!/bin/bash\ntext-generation-launcher --model-id Qwen/Qwen3-8B --kv-cache-dtype {dtype}\n"
    )
    assert bool(invalid_values(path, rules)) is refused
