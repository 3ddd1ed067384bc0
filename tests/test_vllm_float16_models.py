"""HBM325: vLLM refuses an explicit float16 for the model types in _FLOAT16_NOT_SUPPORTED_MODELS
(gemma2, gemma3, gemma3_text, glm4: vllm/config/model.py, read in the 0.10.2-0.33.0 wheels; not
in 0.10.0), "The model type 'gemma2' does not support float16". dtype auto, bfloat16 and other
model types start."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import vllm_compose

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


@pytest.mark.parametrize(
    ("command", "version", "refused"),
    [
        ("vllm serve google/gemma-2-9b-it --dtype half", "v0.20.0", True),
        ("vllm serve google/gemma-3-1b-it --dtype=float16", "latest", True),  # gemma3_text
        ("vllm serve google/gemma-3-27b-it --dtype fp16", "v0.33.0", True),
        ("vllm serve google/gemma-2-9b-it --dtype half", "v0.10.0", False),  # not yet checked
        ("vllm serve google/gemma-2-9b-it --dtype bfloat16", "v0.33.0", False),
        ("vllm serve google/gemma-2-9b-it", "v0.33.0", False),  # auto skips float16 itself
        ("vllm serve Qwen/Qwen2.5-7B-Instruct --dtype half", "v0.33.0", False),
    ],
)
def test_float16_for_a_model_type_vllm_refuses_it_for(
    tmp_path: Path, rules, command: str, version: str, refused: bool
):
    path = vllm_compose(tmp_path, f"{command} --max-model-len 4096", version)
    result = lint_file(path, path.name, rules, LintOptions(default_gpu="H100"))
    found = [d for d in result.diagnostics if d.code == "HBM325"]
    assert [d.severity.name for d in found] == (["ERROR"] if refused else [])
    if refused:
        assert "which vLLM 0.10.2 and later refuse to run in float16" in found[0].message
        line = path.read_text().splitlines()[found[0].span.line - 1]
        assert "--dtype" in line[found[0].span.column - 1 :]
