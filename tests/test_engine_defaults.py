"""Engine defaults by engine and release where the manifest leaves them out (engines.yaml
`derived`, each generation cited there): TGI's --max-total-tokens / --max-batch-prefill-tokens
and SGLang's mem_fraction_static, chunked_prefill_size and context length. Each one the budget
assumes is named in its `assumed` list."""

from __future__ import annotations

import pytest
from test_budget import budget_of

LLAMA_8B = "meta-llama/Llama-3.1-8B-Instruct"  # max_position_embeddings 131072


def spec(*lines: str) -> str:
    return "\n".join(line for line in lines if line)


def tgi(version: str | None, gpu: str = "L4", serving: str = "") -> object:
    return budget_of(
        spec(
            "engine: tgi",
            f'engine_version: "{version}"' if version else "",
            f"gpu: {{type: {gpu}}}",
            f"model: {{name: {LLAMA_8B}}}",
            serving,
        )
    )


def test_tgi_1x_defaults_are_flat():
    b = tgi("1.4.5")
    assert (b.settings.max_model_len, b.settings.max_num_batched_tokens) == (2048, 4096)
    assert "tgi 1.4.5" in b.assumed["max_model_len"]


def test_tgi_2x_caps_the_model_length_at_4096():
    b = tgi("2.3.1")
    assert b.settings.max_model_len == 4096  # min(131072, 4096)
    assert b.settings.max_num_batched_tokens == 4095 + 50  # max_input_tokens + 50
    assert "min(max_position_embeddings, 4096)" in b.assumed["max_model_len"]


@pytest.mark.parametrize("version", ["2.4.1", "3.0.1", None])
def test_tgi_from_2_4_1_takes_what_fits_in_the_kv_cache(version):
    b = tgi(version)  # an L4 holds far fewer than 131072 tokens of Llama 3.1 8B
    tokens = int(b.kv_tokens.magnitude)
    assert 0 < b.settings.max_model_len == tokens < 131072
    assert "what fits in the KV cache" in b.assumed["max_model_len"]
    assert b.max_concurrency == pytest.approx(1.0)
    # on a card that holds it all, the model's own length
    big = tgi(version, gpu="H200")
    assert big.settings.max_model_len == 131072


def test_tgi_explicit_length_is_never_replaced():
    b = tgi("3.0.1", serving="serving: {max_model_len: 200000}")
    assert b.settings.max_model_len == 200000 and "max_model_len" not in b.assumed


def sglang(version: str | None, gpu: str, tp: int = 1, extra: str = "") -> object:
    return budget_of(
        spec(
            "engine: sglang",
            f'engine_version: "{version}"' if version else "",
            f"gpu: {{type: {gpu}, count: {tp}}}",
            f"model: {{name: {LLAMA_8B}}}",
            f"parallel: {{tensor: {tp}}}",
            extra,
        )
    )


def mib(b) -> float:
    return float(b.total.to("MiB").magnitude)


def test_sglang_newest_fraction_reserves_activations_and_graphs():
    b = sglang(None, "H100")
    total = mib(b)
    # 8192 chunked x 1.5 + 256 graphs x 2 + 512 + 1/8 GiB for TP 1 = 13,440 MiB (> 10 GiB floor),
    # + 8 MiB for each of the 58 piecewise CUDA graph sizes (on by default from 0.5.10)
    assert b.settings.memory_fraction == round((total - 13440 - 58 * 8) / total, 3)
    before = sglang("0.5.9", "H100")
    assert before.settings.memory_fraction == round((total - 13440) / total, 3)
    assert b.settings.max_num_batched_tokens == 8192
    assert b.settings.max_model_len == 131072  # --context-length: the model's
    assert "reserved" in b.assumed["gpu_memory_utilization"]
    small = sglang("0.5.4", "L4")  # 2048 chunked, 24 graphs: 512 + 3072 + 48 + 128
    assert small.settings.memory_fraction == round((mib(small) - 3760) / mib(small), 3)
    assert small.settings.max_num_batched_tokens == 2048


def test_sglang_mid_2025_releases_reserve_by_memory_tier():
    b = sglang("0.5.2", "H100", tp=2)
    total = mib(b)
    assert b.settings.memory_fraction == round((total - (9.5 + 2 / 2) * 1024) / total, 3)
    assert b.settings.max_num_batched_tokens == 8192


def test_sglang_early_releases_take_a_share_by_tensor_parallelism():
    assert sglang("0.4.6", "H100", tp=2).settings.memory_fraction == 0.87
    assert sglang("0.4.6", "H100", tp=8).settings.memory_fraction == 0.81
    assert sglang("0.4.6", "L4").settings.max_num_batched_tokens == 2048  # under 25,000 MiB


EAGLE3 = (
    "speculative: {method: eagle3, model: yuhuili/EAGLE3-LLaMA3.1-Instruct-8B, "
    "num_speculative_tokens: 3}"
)


def test_sglang_speculative_drafts_reserve_more_until_the_draft_is_budgeted():
    plain = sglang("0.5.9", "H100")
    eagle = sglang("0.5.9", "H100", extra=EAGLE3)
    total = mib(plain)
    assert eagle.settings.memory_fraction == round((total - 13440 - 2048) / total, 3)
    # PR #23862 (0.5.11) budgets the draft's KV pool in the fraction and drops the flat +2 GiB
    newest = sglang(None, "H100", extra=EAGLE3)
    assert newest.settings.memory_fraction == sglang(None, "H100").settings.memory_fraction


def test_sglang_explicit_fraction_is_kept():
    b = sglang(None, "H100", extra="serving: {gpu_memory_utilization: 0.8}")
    assert b.settings.memory_fraction == 0.8 and "gpu_memory_utilization" not in b.assumed
