"""What the budget remembers for the rest of a run by plain arguments: an architecture's
weights and KV layout per shape, a tensor-parallel group's NVLink switch charge per engine and
GPU datasheet, whether an engine keeps a model's window layers whole; and the Budget made
without the dataclass's __init__. A deployment linted after others must get what it gets
alone, and deployments that differ in one of those arguments must not share an answer.

The deployments: the fidelity fixtures of vllm-project/vllm issue #21348 (Qwen3-235B-A22B-FP8
on four H100 SXM, vLLM and SGLang) and of calibration record
vllm-0102-qwen3-235b-2507-fp8-8xl40s-tp8-ep (eight L40S over PCIe), each naming its log;
vLLM's Gemma 3 command (google/gemma-3-27b-it, as tests/test_vllm_hybrid_manager_off.py writes
it); meta-llama/Llama-3.1-70B-Instruct's config.json as the catalog holds it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from helpers import vllm_compose

from hbmlint import budget as budget_stage
from hbmlint import catalog
from hbmlint.catalog.architecture import Sharding
from hbmlint.lint import LintOptions, lint_file

FIDELITY = Path(__file__).parent / "fixtures" / "fidelity"
GIB = 2**30
LLAMA_70B = "meta-llama/Llama-3.1-70B-Instruct"


def only_budget(path: Path, options: LintOptions | None = None):
    [item] = lint_file(path, path.name, [], options).deployments
    assert item.budget is not None
    return item.budget


def figures(budget) -> tuple:
    return (
        budget.weights,
        dict(budget.overhead),
        budget.kv_cache,
        budget.kv_tokens,
        budget.kv_bytes_per_token_target,
        budget.assumed.get("free_at_start"),
    )


def llama_70b():
    entry = catalog.find_model(LLAMA_70B)
    return catalog.architecture_from_config(entry["config"], entry["id"], "catalog")


def test_an_architecture_remembers_each_shape_apart():
    shapes = [
        (8, 1, None, "bfloat16", 1, 0, None),
        (4, 1, None, "bfloat16", 1, 0, None),
        (4, 2, None, "bfloat16", 1, 0, None),
        (4, 1, "fp8", "bfloat16", 1, 0, None),
        (4, 1, None, "bfloat16", 1, 0, Sharding(embed=1)),
        (8, 1, None, "bfloat16", 1, 0, None),  # asked again: the first answer
    ]
    shared = llama_70b()
    asked = [shared.weight_bytes_per_rank(*shape) for shape in shapes]
    fresh = [llama_70b().weight_bytes_per_rank(*shape) for shape in shapes]
    assert asked == fresh
    assert asked[5] is asked[0]
    assert len({float(q.to("byte").magnitude) for q in asked[:5]}) == 5
    # 70.6B parameters in bfloat16 over eight GPUs: about 16.4 GiB each
    assert float(asked[0].to("GiB").magnitude) == pytest.approx(16.4, abs=0.1)
    layouts = [(4, 1, 2.0, "bfloat16"), (4, 1, 1.0, "fp8"), (8, 1, 2.0, "bfloat16")]
    kv = [shared.kv_layout(*shape).full_per_token for shape in layouts]
    assert kv == [llama_70b().kv_layout(*shape).full_per_token for shape in layouts]
    # 80 layers x 8 KV heads of 128, K and V: 2 KV heads a GPU at TP 4, 1 at TP 8
    assert kv == [80 * 2 * 2 * 128 * 2, 80 * 2 * 2 * 128 * 1, 80 * 1 * 2 * 128 * 2]


def test_the_switch_boards_group_charge_is_each_engine_and_gpu_s_own():
    names = [
        "vllm-qwen3-235b-fp8-4xh100.yaml",
        "vllm-qwen3-235b-2507-fp8-8xl40s.yaml",
        "sglang-qwen3-235b-fp8-4xh100.yaml",
    ]
    together = [figures(only_budget(FIDELITY / name)) for name in names]
    alone = []
    for name in names:
        budget_stage._NVSWITCH_GROUPS.clear()
        alone.append(figures(only_budget(FIDELITY / name)))
    assert together == alone
    h100, l40s, sglang = together
    # vLLM on the H100 board: 1.95 GiB non-torch; over PCIe the L40S keep the small figure
    assert float(h100[1]["non_torch"].to("GiB").magnitude) == pytest.approx(1.95, abs=0.005)
    assert float(l40s[1]["non_torch"].to("GiB").magnitude) < 0.5
    # SGLang takes the group out of the memory free at start instead
    assert "NVLink switch board" in sglang[5]


def test_window_layers_are_kept_whole_only_where_the_flag_says(tmp_path):
    command = "vllm serve google/gemma-3-27b-it --max-model-len 131072"
    options = LintOptions(keep_budgets=True, default_gpu="H100")

    def per_token(flags: str, name: str) -> float:
        path = vllm_compose(tmp_path, f"{command} {flags}", "v0.19.0", name)
        budget = only_budget(path, options)
        return float(budget.kv_bytes_per_token_target.to("byte / token").magnitude)

    flags = ["", "--disable-hybrid-kv-cache-manager", ""]
    together = [per_token(f, f"c{i}.yaml") for i, f in enumerate(flags)]
    alone = []
    for i, f in enumerate(flags):
        budget_stage._windows_kept_full_for.cache_clear()
        alone.append(per_token(f, f"a{i}.yaml"))
    assert together == alone
    # google/gemma-3-27b-it: 62 layers, 16 KV heads of 128 in bfloat16, every layer whole
    assert together[1] == 62 * 16 * 128 * 2 * 2
    assert together[0] == together[2] < together[1] / 4


def test_a_budget_is_the_one_its_dataclass_makes():
    budget = only_budget(FIDELITY / "vllm-qwen3-235b-fp8-4xh100.yaml")
    made = dataclasses.replace(budget)  # through Budget.__init__
    for f in dataclasses.fields(budget_stage.Budget):
        assert getattr(made, f.name) == getattr(budget, f.name), f.name
    assert list(vars(budget))[: len(vars(made))] == list(vars(made))
    # overhead_total comes with the budget, as the property would add the lines
    assert budget.overhead_total == made.overhead_total
    assert float(budget.overhead_total.to("GiB").magnitude) == pytest.approx(
        sum(float(q.to("GiB").magnitude) for q in budget.overhead.values())
    )


def test_a_budget_refuses_a_missing_or_misplaced_field():
    budget = only_budget(FIDELITY / "vllm-qwen3-235b-fp8-4xh100.yaml")
    values = dict(vars(budget))
    values = {k: values[k] for k in budget_stage._BUDGET_KEYS}
    del values["kv_tokens"]
    with pytest.raises(TypeError, match="kv_tokens"):
        budget_stage._budget(values)
    values = {k: vars(budget)[k] for k in reversed(budget_stage._BUDGET_KEYS)}
    with pytest.raises(TypeError, match="fields"):
        budget_stage._budget(values)
