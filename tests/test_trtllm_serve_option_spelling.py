"""trtllm-serve's options are click options declared with underscores (NVIDIA/TensorRT-LLM
tensorrt_llm/commands/serve.py: "--tp_size", "--max_seq_len", "--kv_cache_free_gpu_memory_fraction",
...), and click matches an option's name exactly: `--tp-size 4`, vLLM's spelling, or a cut-short
`--max_seq` is "No such option" and the server does not start. hbmlint read them as argparse
does (either spelling, unique prefixes) and said nothing."""

from __future__ import annotations

import pytest

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

COMPOSE = """\
services:
  trt:
    image: nvcr.io/nvidia/tensorrt-llm/release:1.2.0
    command: trtllm-serve serve meta-llama/Llama-3.1-8B-Instruct --max_seq_len 8192 FLAGS
    deploy:
      resources:
        reservations:
          devices: [{driver: nvidia, count: 2, capabilities: [gpu]}]
"""


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def invalid(tmp_path, rules, flags: str):
    path = tmp_path / "compose.yaml"
    path.write_text(COMPOSE.replace("FLAGS", flags))
    result = lint_file(path, "compose.yaml", rules, LintOptions(default_gpu="H100"))
    return [d for d in result.diagnostics if d.code == "HBM004"], path


@pytest.mark.parametrize(
    ("flags", "refused", "fix"),
    [
        ("--tp_size 2", None, None),
        ("--tensor_parallel_size=2 --kv_cache_free_gpu_memory_fraction 0.8", None, None),
        ("--tp-size 2", "--tp-size", "Write --tp_size"),
        (
            "--tp_size 2 --free-gpu-memory-fraction=0.8",
            "--free-gpu-memory-fraction",
            "Write --free_gpu_memory_fraction",
        ),
        ("--tp_size 2 --max-batch-size 64", "--max-batch-size", "Write --max_batch_size"),
        (
            "--tp_size 2 --kv_cache_free_gpu 0.8",
            "--kv_cache_free_gpu",
            "Write --kv_cache_free_gpu_memory_fraction",
        ),
    ],
)
def test_an_option_not_written_as_declared_is_refused(tmp_path, rules, flags, refused, fix):
    found, path = invalid(tmp_path, rules, flags)
    if refused is None:
        assert found == []
        return
    [error] = found
    assert error.severity.name == "ERROR"
    assert f"'No such option: {refused}'" in error.message
    assert error.fixes[0].message == fix
    line = path.read_text().splitlines()[error.span.line - 1]
    assert line[error.span.column - 1 :].startswith(refused)
