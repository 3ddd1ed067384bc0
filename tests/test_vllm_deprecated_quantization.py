"""vLLM's deprecated quantization methods and dropped load formats, read in the releases'
wheels:

- DEPRECATED_QUANTIZATION_METHODS (model_executor/layers/quantization/__init__.py) is checked by
  ModelConfig._verify_quantization from 0.14.0 (not in 0.13.0): a listed method, from
  --quantization or from the checkpoint's own quant_method, is refused unless
  --allow-deprecated-quantization is given. fbgemm_fp8 and fp_quant are listed up to 0.33.0;
  experts_int8 up to 0.19.0.
- --load-format gguf has no loader from 0.24.0 and bitsandbytes none from 0.28.0
  (model_executor/model_loader/__init__.py): "Load format `bitsandbytes` is not supported".
- A dropped --quantization name that another method's override takes for its own checkpoints
  (petit_nvfp4 for ModelOpt NVFP4 exports) is a warning that says when it still starts.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import vllm_compose

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
QWEN3_8B = "vllm serve Qwen/Qwen3-8B --max-model-len 8192"
# Meta's FP8 export is stored as fbgemm_fp8 (its config.json quantization_config)
LLAMA_405B_FP8 = "vllm serve meta-llama/Llama-3.1-405B-Instruct-FP8 -tp 8 --max-model-len 8192"


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def invalid_values(path: Path, rules):
    result = lint_file(path, path.name, rules, LintOptions(default_gpu="H100"))
    return [d for d in result.diagnostics if d.code == "HBM004"]


@pytest.mark.parametrize(
    ("flags", "version", "severity"),
    [
        ("--quantization fbgemm_fp8", "v0.13.0", None),
        ("--quantization fbgemm_fp8", "v0.14.0", "ERROR"),
        ("-q fbgemm_fp8", "v0.33.0", "ERROR"),
        ("--quantization fbgemm_fp8", "latest", "WARNING"),
        ("--quantization fbgemm_fp8 --allow-deprecated-quantization", "v0.33.0", None),
        ("--allow-deprecated-quantization --quantization=fp_quant", "latest", None),
        ("--quantization fp_quant", "v0.20.0", "ERROR"),
        ("--quantization experts_int8", "v0.19.0", "ERROR"),
        ("--quantization experts_int8", "v0.20.0", None),  # no longer deprecated there
        ("--quantization experts_int8", "latest", None),
        ("--quantization fp8", "v0.33.0", None),
        ("--load-format gguf", "v0.23.0", None),
        ("--load-format gguf", "v0.24.0", "ERROR"),
        ("--load-format bitsandbytes", "v0.27.1", None),
        ("--load_format=bitsandbytes", "v0.28.0", "ERROR"),
        ("--load-format BitsAndBytes", "latest", "WARNING"),  # LoadConfig lower-cases it
        ("--load-format safetensors", "v0.33.0", None),
        ("--load-format runai_streamer", "latest", None),
    ],
)
def test_deprecated_methods_and_dropped_load_formats_by_release(
    tmp_path: Path, rules, flags: str, version: str, severity
):
    path = vllm_compose(tmp_path, f"{QWEN3_8B} {flags}", version)
    found = invalid_values(path, rules)
    assert [d.severity.name for d in found] == ([severity] if severity else [])
    if severity:  # at the value the engine refuses (at its flag when written --flag=value)
        line = path.read_text().splitlines()[found[0].span.line - 1]
        refused = flags.replace("=", " ").split()[1]
        assert line[found[0].span.column - 1 :].startswith((refused, f"--load_format={refused}"))


def test_a_deprecated_method_names_the_switch_that_keeps_it(tmp_path: Path, rules):
    path = vllm_compose(tmp_path, f"{QWEN3_8B} --quantization fbgemm_fp8", "v0.20.0")
    [error] = invalid_values(path, rules)
    assert "refuses to start without --allow-deprecated-quantization" in error.message
    assert error.message.endswith("vLLM 0.20.0 refuses it (from 0.14 on)")
    assert error.fixes[0].message.startswith("Add --allow-deprecated-quantization")


def test_a_dropped_load_format_says_the_model_does_not_load(tmp_path: Path, rules):
    path = vllm_compose(tmp_path, f"{QWEN3_8B} --load-format bitsandbytes", "v0.28.0")
    [error] = invalid_values(path, rules)
    assert "'Load format `bitsandbytes` is not supported'" in error.message
    assert "pin an image of vLLM 0.27.1 or earlier" in error.fixes[0].message


@pytest.mark.parametrize(
    ("flags", "version", "severity"),
    [
        ("", "v0.13.0", None),
        ("", "v0.20.0", "ERROR"),
        ("", "latest", "WARNING"),
        ("--allow-deprecated-quantization", "v0.33.0", None),
    ],
)
def test_a_checkpoint_stored_in_a_deprecated_method(
    tmp_path: Path, rules, flags: str, version: str, severity
):
    path = vllm_compose(tmp_path, f"{LLAMA_405B_FP8} {flags}", version)
    found = invalid_values(path, rules)
    assert [d.severity.name for d in found] == ([severity] if severity else [])
    if severity:  # at the model, naming what its config.json says
        assert "quant_method fbgemm_fp8 (its config.json)" in found[0].message
        line = path.read_text().splitlines()[found[0].span.line - 1]
        assert line[found[0].span.column - 1 :].startswith("meta-llama/Llama-3.1-405B")


def test_gguf_launch_script_on_an_unpinned_vllm_is_warned_at_the_format(rules):
    name = "shell-vllm-load-format-gguf.sh"
    result = lint_file(REAL / name, name, rules, LintOptions(default_gpu="A100-80GB"))
    [warning] = [d for d in result.diagnostics if d.code == "HBM004"]
    assert warning.severity.name == "WARNING"
    assert (warning.span.line, warning.span.column) == (16, 19)
    assert "vLLM 0.24 and later refuse it" in warning.message
    assert [d for d in result.diagnostics if d.severity.name == "ERROR"] == []


def test_skypilot_recipe_on_the_newest_vllm_is_warned(rules):
    # skypilot's vllm-multinode recipe installs "vllm>=0.10.0": the newest, which refuses
    # Meta's fbgemm FP8 checkpoint without the switch; no release is pinned, so a warning
    name = "skypilot-vllm-multinode.sky.yaml"
    result = lint_file(REAL / name, name, rules, LintOptions())
    [warning] = [d for d in result.diagnostics if d.code == "HBM004"]
    assert warning.severity.name == "WARNING"
    assert "--allow-deprecated-quantization" in warning.message


@pytest.mark.parametrize(
    ("version", "severity"),
    [("v0.19.0", None), ("v0.20.0", "WARNING"), ("latest", "WARNING")],
)
def test_petit_nvfp4_may_still_start_on_a_modelopt_checkpoint(
    tmp_path: Path, rules, version: str, severity
):
    path = vllm_compose(tmp_path, f"{QWEN3_8B} --quantization petit_nvfp4", version)
    found = invalid_values(path, rules)
    assert [d.severity.name for d in found] == ([severity] if severity else [])
    if severity:
        assert "it starts if the checkpoint is a ModelOpt NVFP4 export" in found[0].message
