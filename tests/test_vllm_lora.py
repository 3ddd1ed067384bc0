"""vLLM --enable-lora preallocates, while the model loads, the A and B matrices of --max-loras
adapter slots of --max-lora-rank for every linear layer of the language model (vllm 0.33.0
lora/layers/*.py create_lora_weights; lora/model_manager.py _create_lora_modules): part of
"Model loading took", so of the weights. hbmlint read --enable-lora as a plain switch and left
the slots out, so 4 slots of rank 64 on Llama 3.1 8B (1.25 GiB) came out of the KV cache
unseen. The expected sizes below are worked out from the shapes those functions allocate."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import vllm_compose

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

LLAMA = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192"
# meta-llama/Llama-3.1-8B-Instruct config.json
HIDDEN, LAYERS, HEADS, KV_HEADS, HEAD_DIM, INTERMEDIATE = 4096, 32, 32, 8, 128, 14336


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(tmp_path: Path, rules, flags: str, gpu: str = "H100", gpus: int = 1, model: str = LLAMA):
    path = vllm_compose(tmp_path, f"{model} {flags}", "v0.33.0")
    path.write_text(path.read_text().replace("count: 1", f"count: {gpus}"))
    return lint_file(path, "compose.yaml", rules, LintOptions(keep_budgets=True, default_gpu=gpu))


def budget(tmp_path: Path, rules, flags: str, **kw):
    return lint(tmp_path, rules, flags, **kw).deployments[0].budget


def llama_slot_elements(rank: int, tp: int) -> int:
    """One slot's A/B elements per GPU, layer by layer as vLLM shapes them."""
    q, kv = HEADS // tp * HEAD_DIM, max(1, KV_HEADS // tp) * HEAD_DIM
    qkv = 3 * rank * HIDDEN + (q + 2 * kv) * rank  # one A per q/k/v slice, B of this rank's
    o_proj = rank * (HEADS * HEAD_DIM // tp) + HIDDEN * rank  # row: A over this rank's input
    gate_up = 2 * rank * HIDDEN + 2 * (INTERMEDIATE // tp) * rank
    down = rank * (INTERMEDIATE // tp) + HIDDEN * rank
    return LAYERS * (qkv + o_proj + gate_up + down)


@pytest.mark.parametrize(
    ("flags", "slots", "rank", "tp"),
    [
        ("--enable-lora --max-loras 4 --max-lora-rank 64", 4, 64, 1),
        ("--enable-lora", 1, 16, 1),  # vLLM's defaults: one slot of rank 16
        ("--enable-lora --max-loras=2 --max-lora-rank=256 -tp 2", 2, 256, 2),
    ],
)
def test_the_slots_are_counted_in_the_weights(tmp_path, rules, flags, slots, rank, tp):
    plain = budget(tmp_path, rules, f"-tp {tp}", gpus=tp)
    with_lora = budget(tmp_path, rules, flags, gpus=tp)
    expected = slots * llama_slot_elements(rank, tp) * 2  # bfloat16
    extra = float((with_lora.weights - plain.weights).to("byte").magnitude)
    assert extra == pytest.approx(expected)
    # the KV cache gives up what the slots take
    lost = float((plain.kv_cache - with_lora.kv_cache).to("byte").magnitude)
    assert lost == pytest.approx(expected)
    note = with_lora.assumed["weights"]
    assert f"{expected / 2**30:.2f} GiB per GPU of LoRA A/B matrices" in note
    assert f"{slots} slot{'s' if slots > 1 else ''} (--max-loras) of rank {rank}" in note


def test_four_slots_of_rank_64_take_a_gibibyte_and_a_quarter(tmp_path, rules):
    note = budget(tmp_path, rules, "--enable-lora --max-loras 4 --max-lora-rank 64").assumed
    assert "1.25 GiB per GPU of LoRA A/B matrices" in note["weights"]


def test_lora_flags_without_enable_lora_reserve_nothing(tmp_path, rules):
    plain = budget(tmp_path, rules, "")
    flags_only = budget(tmp_path, rules, "--max-loras 8 --max-lora-rank 256")
    assert flags_only.weights == plain.weights
    assert "LoRA" not in flags_only.assumed.get("weights", "")


def test_the_slots_can_leave_no_room_for_one_sequence(tmp_path, rules):
    """Eight slots of rank 128 (5.0 GiB) beside Llama 3.1 8B on an L4: no KV cache is left,
    where without them one 8,192-token sequence fits."""
    assert [d.code for d in lint(tmp_path, rules, "--max-loras 8", gpu="L4").diagnostics] == []
    found = lint(tmp_path, rules, "--enable-lora --max-loras 8 --max-lora-rank 128", gpu="L4")
    assert [(d.code, d.severity.name) for d in found.diagnostics] == [("HBM102", "ERROR")]


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            "--enable-lora --max-loras 4 --max-cpu-loras 2",
            "--max-cpu-loras 2 is fewer than --max-loras 4: vLLM refuses to start",
        ),
        ("--enable-lora --max-lora-rank 24", "24 is not a LoRA rank vLLM offers"),
        ("--max-lora-rank 48", "48 is not a LoRA rank vLLM offers"),  # argparse, LoRA on or off
    ],
)
def test_lora_settings_vllm_refuses(tmp_path, rules, flags, message):
    found = [d for d in lint(tmp_path, rules, flags).diagnostics if d.code == "HBM004"]
    assert [d.severity.name for d in found] == ["ERROR"]
    assert message in found[0].message


def test_enough_cpu_slots_is_no_finding(tmp_path, rules):
    result = lint(tmp_path, rules, "--enable-lora --max-loras 4 --max-cpu-loras 4")
    assert [d for d in result.diagnostics if d.code == "HBM004"] == []


def test_an_moe_model_counts_every_experts_slots(tmp_path, rules):
    """Qwen3-30B-A3B (config.json: hidden 2048, 48 layers, 32 heads, 4 KV heads of 128, 128
    experts of 768): per slot and layer the attention's A/B and each expert's w13 and w2 A/B
    (fused_moe.py), plus the router's; one slot of rank 16 is 0.83 GiB."""
    moe_model = "vllm serve Qwen/Qwen3-30B-A3B"
    note = budget(tmp_path, rules, "--enable-lora", gpu="H200", model=moe_model).assumed
    rank, hidden, experts, share, q, kv = 16, 2048, 128, 768, 32 * 128, 4 * 128
    attention = 3 * rank * hidden + (q + 2 * kv) * rank + rank * q + hidden * rank
    moe = experts * (2 * rank * hidden + 3 * share * rank + hidden * rank) + rank * (hidden + 128)
    expected = 48 * (attention + moe) * 2
    assert f"{expected / 2**30:.2f} GiB per GPU of LoRA A/B matrices" in note["weights"]


def test_a_hybrid_model_says_its_slots_are_not_counted(tmp_path, rules):
    hybrid = "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct"
    note = budget(tmp_path, rules, "--enable-lora -tp 4", gpu="H200", gpus=4, model=hybrid).assumed
    assert "LoRA slots' A/B matrices not counted" in note["weights"]
