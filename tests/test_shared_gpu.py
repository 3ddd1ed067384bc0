"""HBM019 after the budgets: what two compose services on one GPU take of it is what their
budgets settle on (the release's and the GPU's default fraction, what SGLang keeps outside it),
not the newest release's catalog default."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _service(name: str, image: str, command: str, device: str = "0") -> str:
    return (
        f"  {name}:\n"
        f"    image: {image}\n"
        f"    command: {command}\n"
        "    deploy:\n"
        "      resources:\n"
        "        reservations:\n"
        f"          devices: [{{driver: nvidia, device_ids: ['{device}'], capabilities: [gpu]}}]\n"
    )


def _shared(tmp_path: Path, rules, *services: str, gpu: str = "L40S") -> list:
    path = tmp_path / "compose.yaml"
    path.write_text("services:\n" + "".join(services))
    result = lint_file(path, path.name, rules, LintOptions(default_gpu=gpu))
    return [f for f in result.diagnostics if f.code == "HBM019"]


SGLANG = "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 30000"


def test_sglang_takes_its_release_default_and_its_activations(rules, tmp_path):
    # SGLang 0.5.4 on an L40S: mem_fraction_static 0.849 (the card less 6,848 MiB reserved for
    # activations and CUDA graphs), not the 0.88 of the catalog's plain default; the activations
    # it keeps outside the fraction count too
    [shared] = _shared(
        tmp_path,
        rules,
        _service("chat", "lmsysorg/sglang:v0.5.4", SGLANG),
        _service(
            "embed",
            "vllm/vllm-openai:v0.8.5",
            "--model Qwen/Qwen3-0.6B --gpu-memory-utilization 0.1",
        ),
    )
    assert shared.severity is Severity.WARNING
    assert "memory fraction 0.849, the engine's default" in shared.message
    assert "outside it for activations" in shared.message
    assert "embed 10%: memory fraction 0.1)" in shared.message


def test_an_older_vllm_default_is_its_own(rules, tmp_path):
    # vLLM before 0.21 defaults to 0.9, later releases to 0.92
    [shared] = _shared(
        tmp_path,
        rules,
        _service("a", "vllm/vllm-openai:v0.8.5", "--model Qwen/Qwen3-0.6B"),
        _service("b", "vllm/vllm-openai:v0.8.5", "--model Qwen/Qwen3-0.6B"),
    )
    assert "would take 180% of it together" in shared.message
    assert "a 90%: memory fraction 0.9, the engine's default" in shared.message


def test_two_vllm_halves_fit_and_a_little_more_does_not(rules, tmp_path):
    # 0.48 twice leaves the second engine its share and its CUDA context; 0.49 twice does not
    def pair(fraction: str) -> list:
        command = f"--model Qwen/Qwen3-0.6B --gpu-memory-utilization {fraction}"
        return _shared(
            tmp_path,
            rules,
            _service("a", "vllm/vllm-openai:v0.11.0", command),
            _service("b", "vllm/vllm-openai:v0.11.0", command),
        )

    assert pair("0.48") == []
    [shared] = pair("0.49")
    assert "would take 98% of it together" in shared.message


def test_services_on_different_gpus_are_not_compared(rules, tmp_path):
    assert (
        _shared(
            tmp_path,
            rules,
            _service("a", "vllm/vllm-openai:v0.11.0", "--model Qwen/Qwen3-0.6B", device="0"),
            _service("b", "vllm/vllm-openai:v0.11.0", "--model Qwen/Qwen3-0.6B", device="1"),
        )
        == []
    )
