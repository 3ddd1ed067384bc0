"""The dummy video of vLLM's encoder profile run. vLLM V1 profiles the vision encoder with the
modality whose largest item counts the most tokens; in 0.11.0-0.12.x Qwen3-VL counts a video's
tokens x 12.5, so one dummy video is profiled, and its encoder output, padded with zeros to
153,600 tokens of out_hidden_size x (1 + DeepStack layers), is held through the language
model's and the sampler's dummy passes (engines.yaml qwen3_vl_video_dummy). hbmlint sized the
largest image only, and said 5.03 GiB of KV cache where the engine logged 2.31."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import vllm_compose

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

# Source: Sipeed NanoKVM-Pro wiki page "实验性AI Agent" (2025-10-06), section "vllm部署VLM"
# (code-search file id 42588844709; sweep 25 C fixture vllm-0110-qwen3vl-30b-a3b-4x3090-tp4.sh).
# vLLM 0.11.0 on 4 x RTX 3090 (the fused-MoE warning names NVIDIA_GeForce_RTX_3090), per rank:
# "Model loading took 14.7708 GiB"; "Encoder cache will be initialized with a budget of 153600
# tokens, and profiled with 1 video items of the maximum feature size"; "Available KV cache
# memory: 2.31 GiB"; "GPU KV cache size: 100,752 tokens"; "Maximum concurrency for 65,536
# tokens per request: 1.54x"; the server started.
LOGGED_KV_GIB = 2.31
LOGGED_KV_TOKENS = 100_752
LOGGED_CONCURRENCY = 1.54
COMMAND = (
    "vllm serve Qwen/Qwen3-VL-30B-A3B-Instruct --tensor-parallel-size 4 "
    "--gpu-memory-utilization 0.90 --max-model-len {length}{extra}"
)


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(tmp_path: Path, rules, length: int = 65536, extra: str = "", version: str = "v0.11.0"):
    command = COMMAND.format(length=length, extra=extra)
    path = vllm_compose(tmp_path, command, version, gpus=4)
    result = lint_file(
        path, "compose.yaml", rules, LintOptions(keep_budgets=True, default_gpu="RTX-3090")
    )
    return result.diagnostics, result.deployments[0].budget


def gib(quantity) -> float:
    return float(quantity.to("GiB").magnitude)


def test_the_logged_kv_cache_within_ten_percent(rules, tmp_path):
    findings, budget = lint(tmp_path, rules)
    assert [d.code for d in findings] == []  # it started
    kv = gib(budget.kv_cache)
    assert abs(kv - LOGGED_KV_GIB) / LOGGED_KV_GIB < 0.10  # 2.41 (was 5.03)
    tokens = budget.kv_tokens.magnitude
    assert abs(tokens - LOGGED_KV_TOKENS) / LOGGED_KV_TOKENS < 0.10
    concurrency = tokens / 65536
    assert abs(concurrency - LOGGED_CONCURRENCY) / LOGGED_CONCURRENCY < 0.10
    note = budget.assumed["overhead"]
    assert "1 dummy video of 12,288 tokens, counted as 153,600" in note
    assert "153,600 x 8,192" in note


def test_video_limited_to_zero_profiles_the_image_as_before(rules, tmp_path):
    """--limit-mm-per-prompt '{"video": 0}': vLLM leaves video out of the profile, and the
    budget is today's image-only one (5.03 GiB on this rig)."""
    findings, budget = lint(tmp_path, rules, extra=" --limit-mm-per-prompt '{\"video\": 0}'")
    assert [d.code for d in findings] == []
    assert round(gib(budget.kv_cache), 2) == 5.03
    assert "dummy video" not in budget.assumed.get("overhead", "")


@pytest.mark.parametrize("version", ["v0.10.2", "v0.13.0", "v0.19.0"])
def test_releases_without_the_padded_video_keep_the_image_profile(rules, tmp_path, version):
    """Before 0.11 and from 0.13 Qwen3-VL counts a video's own tokens (12,288, fewer than the
    image's 16,384) and holds its output unpadded: the image is profiled."""
    _, budget = lint(tmp_path, rules, version=version)
    assert "dummy video" not in budget.assumed.get("overhead", "")


def test_0120_pads_to_the_video_tokens(rules, tmp_path):
    """0.12.x pads each output to the video's counted tokens (0.11.x to the encoder budget):
    the same 153,600 at the default max_num_batched_tokens."""
    _, was = lint(tmp_path, rules)
    _, now = lint(tmp_path, rules, version="v0.12.0")
    assert "153,600 x 8,192" in now.assumed["overhead"]
    assert gib(now.overhead["activation"]) == pytest.approx(gib(was.overhead["activation"]))


def test_twice_the_context_is_a_warning_not_a_promised_refusal(rules, tmp_path):
    """At 131,072 one sequence needs 131,072 x 24,576 B = 3.00 GiB; the engine had 2.31 GiB at
    65,536 (the dummy video does not shrink with a longer context), so vLLM 0.11 would refuse.
    hbmlint's figure (2.41 GiB, 105,152 tokens) is an estimate whose high edge still holds one
    sequence: a warning (HBM105), not an error. Before, it said nothing."""
    findings, budget = lint(tmp_path, rules, length=131072)
    assert [d.code for d in findings] == ["HBM105"]
    assert budget.kv_tokens.magnitude < 131072
    _, image_only = lint(
        tmp_path, rules, length=131072, extra=" --limit-mm-per-prompt '{\"video\": 0}'"
    )
    assert image_only.kv_tokens.magnitude > 131072
