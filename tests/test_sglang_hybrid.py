"""SGLang's state pool for hybrid models (gated delta-net layers beside full attention), as
kv_cache_configurator.py _handle_max_mamba_cache sizes it at v0.5.19 and model_runner's
handle_max_mamba_cache before (engines.yaml sglang mamba_pool), checked on what a user sees:
the KV tokens of Qwen3.8-27B (16 full-attention + 48 gated delta-net layers) served with its
MTP head on two RTX 3090s, the command of benchmarks/calibration/speculative.yaml
sglang-pr32468-qwen38-27b-int4-2x3090-mtp (SGLang logged 409,552 tokens and 55 slots)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

COMPOSE = """\
services:
  sglang:
    image: lmsysorg/sglang:VERSION
    command: >-
      python3 -m sglang.launch_server --model-path MODEL --tp-size 2
      --quantization auto-round --kv-cache-dtype fp8_e4m3 --chunked-prefill-size 2048
      --context-length 262144 --mem-fraction-static 0.90 FLAGS
    deploy:
      resources:
        reservations:
          devices: [{driver: nvidia, count: 2, capabilities: [gpu]}]
"""
MTP = "--speculative-algorithm EAGLE --speculative-num-steps 4 --speculative-eagle-topk 1"
GIB = 2**30
# one slot of Qwen3.8-27B's state on one of two GPUs: 48 gated delta-net layers, each a conv
# window of 3 x (2 x 2,048 + 6,144) / 2 bfloat16 values and 48 / 2 heads of 128 x 128 SSM state
CONV = 48 * 3 * (2 * 2048 + 6144) // 2 * 2
SSM_BF16 = 48 * 48 // 2 * 128 * 128 * 2
SSM_FP32 = 2 * SSM_BF16
# a token's K and V: 16 full-attention layers of 4 / 2 KV heads of 256 in fp8, x (1 + 1/16)
# for the MTP layer's own (DefaultPoolConfigurator scales the cell by draft / target layers)
CELL = 16 * 2 * 2 * 256 * 1 * 17 // 16


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def budget(tmp_path: Path, rules, flags: str, version="v0.5.19", model="Qwen/Qwen3.8-27B"):
    text = COMPOSE.replace("VERSION", version).replace("MODEL", model).replace("FLAGS", flags)
    path = tmp_path / "compose.yaml"
    path.write_text(text)
    options = LintOptions(keep_budgets=True, default_gpu="RTX 3090")
    result = lint_file(path, "compose.yaml", rules, options)
    return result.deployments[0].budget


def rest_after_weights(b) -> float:
    """What mem_fraction_static leaves once the weights (the MTP draft's too, from 0.5.14) and a
    multimodal model's 100 MiB embedding-cache reserve (from 0.5.18) are taken."""
    used = b.weights + b.draft_weights
    return float((b.usable - used).to("byte").magnitude) - 100 * 2**20


def tokens(rest: float, state: float) -> int:
    return math.floor((rest - state) / CELL)


def test_the_0_5_19_solve_for_qwen3_8_with_mtp_and_a_bf16_state(tmp_path, rules):
    b = budget(tmp_path, rules, f"{MTP} --max-running-requests 1 --mamba-ssm-dtype bfloat16")
    rest = rest_after_weights(b)
    p = CONV + SSM_BF16
    d, s = 5, 5  # steps + 1 draft tokens; 3 + 2 slots a request (extra_buffer, overlap)
    budget_ = rest * 0.9 / 1.9
    k = int((budget_ - p * (1 + d)) // (p * (1 + d / s)))
    scratch = p * (min(1, k // s) + 1) * d
    state = (k + 1) * p
    assert b.kv_tokens.magnitude == tokens(rest, state + scratch)
    assert f"holds {k} request slots of 37.4 MiB" in b.assumed["kv_cache"]
    # SGLang 0.5.19 logged 409,552 tokens and max_mamba_cache_size 55
    assert b.kv_tokens.magnitude == pytest.approx(409_552, rel=0.03)
    assert k == pytest.approx(55, abs=2)


def test_without_the_flag_the_state_is_float32_and_buys_half_the_slots(tmp_path, rules):
    # the same boot in SGLang's default SSM dtype: 26 slots and 394,661 tokens were logged
    b = budget(tmp_path, rules, f"{MTP} --max-running-requests 1")
    rest = rest_after_weights(b)
    p = CONV + SSM_FP32
    k = int((rest * 0.9 / 1.9 - p * 6) // (p * 2))
    assert b.kv_tokens.magnitude == tokens(rest, (k + 1) * p + p * (min(1, k // 5) + 1) * 5)
    assert "float32, the config's mamba_ssm_dtype" in b.assumed["kv_cache"]
    assert b.kv_tokens.magnitude == pytest.approx(394_661, rel=0.03)


def test_a_fixed_slot_count_leaves_the_rest_to_the_kv_cache(tmp_path, rules):
    # --max-mamba-cache-size 35: 454,616 tokens logged
    flags = f"{MTP} --max-running-requests 1 --mamba-ssm-dtype bfloat16 --max-mamba-cache-size 35"
    b = budget(tmp_path, rules, flags)
    rest = rest_after_weights(b)
    p = CONV + SSM_BF16
    assert b.kv_tokens.magnitude == tokens(rest, 36 * p + p * (min(1, 35 // 5) + 1) * 5)
    assert b.kv_tokens.magnitude == pytest.approx(454_616, rel=0.04)


def test_speculative_decoding_caps_running_requests_at_48(tmp_path, rules):
    # no --max-running-requests: SGLang sets 48 with a speculative algorithm, and the drafts'
    # states of min(48, K // 5) + 1 requests come out of the state's share
    b = budget(tmp_path, rules, f"{MTP} --mamba-ssm-dtype bfloat16")
    assert b.settings.max_num_seqs == 48
    rest = rest_after_weights(b)
    p = CONV + SSM_BF16
    k = int((rest * 0.9 / 1.9 - p * 6) // (p * 2))
    assert b.kv_tokens.magnitude == tokens(rest, (k + 1) * p + p * (min(48, k // 5) + 1) * 5)


def test_without_a_radix_cache_the_pool_is_one_slot_a_running_request(tmp_path, rules):
    # --disable-radix-cache with --max-running-requests 32 (handle_max_mamba_cache): 32 slots,
    # not the ratio's share; the DGX Spark record sglang-0515-qwen38-27b-gb10-frac080 logged
    # 535,124 tokens this way where the ratio split would leave about 330,000
    flags = "--max-running-requests 32 --disable-radix-cache"
    b = budget(tmp_path, rules, flags)
    rest = rest_after_weights(b)
    p = CONV + SSM_FP32
    cell = CELL * 16 // 17  # no MTP layer
    assert b.kv_tokens.magnitude == math.floor((rest - 33 * p) / cell)  # + 1: padding (0.5.17+)
    assert "holds 32 request slots" in b.assumed["kv_cache"]
    assert "the radix cache is off" in b.assumed["kv_cache"]
    with_radix = budget(tmp_path, rules, "--max-running-requests 32")
    assert with_radix.kv_tokens < b.kv_tokens


def test_without_a_radix_cache_or_a_request_cap_older_releases_keep_512_slots(tmp_path, rules):
    # before 0.5.13 the pool fell back to 512 slots; from 0.5.13 to the ratio split
    old = budget(tmp_path, rules, "--disable-radix-cache", version="v0.5.10")
    assert "holds 512 request slots" in old.assumed["kv_cache"]
    new = budget(tmp_path, rules, "--disable-radix-cache", version="v0.5.19")
    ratio = budget(tmp_path, rules, "", version="v0.5.19")
    assert new.kv_tokens == ratio.kv_tokens


def test_without_a_radix_cache_each_slot_keeps_its_drafts_states(tmp_path, rules):
    # with MTP the drafts' states of all K slots come off first (one a slot: the ratio is 1)
    flags = f"{MTP} --max-running-requests 8 --mamba-ssm-dtype bfloat16 --disable-radix-cache"
    b = budget(tmp_path, rules, flags)
    rest = rest_after_weights(b)
    p = CONV + SSM_BF16
    assert b.kv_tokens.magnitude == tokens(rest, 9 * p + p * 9 * 5)


@pytest.mark.parametrize(
    ("version", "solve"),
    [
        # 0.5.10: the drafts' states of every running request first, then K = B // p
        ("v0.5.10", "intermediate_first"),
        # 0.5.14: K = B // (p (1 + D / S)), no padding slot
        ("v0.5.14", "joint"),
    ],
)
def test_older_releases_size_the_pool_their_own_way(tmp_path, rules, version, solve):
    b = budget(tmp_path, rules, f"{MTP} --max-running-requests 4", version=version)
    p = CONV + SSM_FP32
    d = 5
    if solve == "intermediate_first":
        # draft weights outside the fraction before 0.5.14, no multimodal reserve before 0.5.18
        rest = float((b.usable - b.weights).to("byte").magnitude)
        scratch = p * 4 * d
        k = int(((rest - scratch) * 0.9 / 1.9) // p)
        state = k * p + scratch
        cell = CELL * 16 // 17  # before 0.5.11 the draft KV pool came out of the reserve
    else:
        rest = float((b.usable - b.weights - b.draft_weights).to("byte").magnitude)
        k = int((rest * 0.9 / 1.9) // (p * (1 + d / 5)))
        state = k * p + p * min(4, k // 5) * d
        cell = CELL
    assert b.kv_tokens.magnitude == math.floor((rest - state) / cell)
    assert f"holds {k} request slots" in b.assumed["kv_cache"]


def test_vllm_keeps_its_own_state_accounting(tmp_path, rules):
    # the SGLang flags and pool leave vLLM's budget of the same model alone
    from hbmlint.budget import build
    from hbmlint.resolve import resolve
    from hbmlint.spec import Deployment, GpuSpec, ModelRef, ParallelSpec, ServingSpec

    def kv(engine: str, ssm_dtype: str | None = "bfloat16") -> float:
        dep = Deployment(
            name="x",
            file="x.yaml",
            engine=engine,
            engine_version="0.20.0" if engine == "vllm" else "0.5.19",
            gpu=GpuSpec(type="RTX-3090", count=2),
            model=ModelRef(name="Qwen/Qwen3.8-27B", quantization="int4"),
            parallel=ParallelSpec(tensor=2),
            serving=ServingSpec(max_model_len=32768, mamba_ssm_dtype=ssm_dtype),
        )
        resolved, _ = resolve(dep)
        b = build(resolved)
        return float(b.kv_state_bytes_per_sequence.to("byte").magnitude)

    # vLLM pages the state in the dtype the config says (float32 here) unless its own
    # --mamba-ssm-cache-dtype sets one (test_vllm_mamba_state_dtype.py)
    assert kv("vllm", None) == CONV + SSM_FP32
    assert kv("vllm") == CONV + SSM_BF16
    assert kv("sglang") == CONV + SSM_BF16
