"""IdentityMemo.find / keep: the lookup without get()'s function, which the budget's and
resolve's memos (a GPU's memory, its large-GPU defaults, the switch board's group charge, a
catalog entry's FoundModel) use on every deployment. The same answers as get(), by the same
keys; a value kept may be None or False; another object with the same identity never hits."""

from __future__ import annotations

import gc
from pathlib import Path

from hbmlint import budget as budget_stage
from hbmlint import catalog, resolve
from hbmlint.identity_memo import NOT_KEPT, IdentityMemo
from hbmlint.lint import LintOptions, lint_file

# vllm-project/vllm issue #21348's Qwen3-235B-A22B-FP8 on four H100 SXM (an NVLink switch board)
BOARD = Path(__file__).parent / "fixtures" / "fidelity" / "vllm-qwen3-235b-fp8-4xh100.yaml"


class Owner:
    pass


def test_find_misses_until_a_value_is_kept_then_answers_it():
    memo = IdentityMemo(limit=8)
    owner = Owner()
    assert memo.find(owner, ("byte",)) is NOT_KEPT
    value = object()
    assert memo.keep(owner, ("byte",), value) is value
    assert memo.find(owner, ("byte",)) is value
    assert memo.find(owner, ("GiB",)) is NOT_KEPT  # another key
    assert memo.find(Owner(), ("byte",)) is NOT_KEPT  # another owner


def test_none_and_false_are_values_not_misses():
    memo = IdentityMemo(limit=8)
    owner = Owner()
    memo.keep(owner, (), None)
    memo.keep(owner, ("x",), False)
    assert memo.find(owner) is None
    assert memo.find(owner, ("x",)) is False


def test_get_and_find_share_their_keys():
    memo = IdentityMemo(limit=8)
    owner = Owner()
    calls = []
    assert memo.get(owner, lambda: calls.append(1) or "made", "vllm", "0.19") == "made"
    assert memo.find(owner, ("vllm", "0.19")) == "made"
    memo.keep(owner, ("sglang",), "kept")
    assert memo.get(owner, lambda: calls.append(1) or "again", "sglang") == "kept"
    assert calls == [1]


def test_a_new_object_at_a_reused_identity_is_not_answered():
    memo = IdentityMemo(limit=8)
    owner = Owner()
    key = (id(owner), ())
    memo.keep(owner, (), "first")
    # an entry whose object is another one with this identity (as after the first is freed)
    memo._entries[key] = (Owner(), "stale")
    assert memo.find(owner) is NOT_KEPT
    gc.collect()


def test_a_full_memo_starts_over():
    memo = IdentityMemo(limit=2)
    owners = [Owner() for _ in range(3)]
    for i, owner in enumerate(owners):
        memo.keep(owner, (), i)
    assert memo.find(owners[2]) == 2
    assert memo.find(owners[0]) is NOT_KEPT


def test_the_budget_memos_answer_what_they_work_out():
    budget_stage._GPU_MEMORY.clear()
    budget_stage._NVSWITCH_GROUPS.clear()
    budget_stage._LARGE_GPUS.clear()
    [item] = lint_file(BOARD, BOARD.name, [], LintOptions(keep_budgets=True)).deployments
    budget = item.budget
    gpu, settings = budget.resolved.gpu, budget.settings
    first = budget_stage._gpu_memory(gpu, "GiB")
    assert first == gpu.memory.to("GiB")
    assert budget_stage._gpu_memory(gpu, "GiB") is first  # kept
    assert budget_stage._gpu_memory(gpu, "byte") == gpu.memory.to("byte")
    group = budget_stage._nvswitch_group(settings.engine, gpu.performance, gpu.name)
    assert group > 0  # four H100 on the switch board
    for engine in ("vllm", "sglang", "vllm"):  # each engine's own charge, kept
        changed = budget_stage._changed(settings, {"engine": engine})
        expected = budget_stage._nvswitch_group(engine, gpu.performance, gpu.name)
        assert budget_stage.nvswitch_group_bytes(gpu, changed) == expected
        assert budget_stage._NVSWITCH_GROUPS.find(gpu.performance, (engine,)) == expected
    defaults = catalog.engine_defaults("vllm")
    large = budget_stage._large_gpu(gpu, defaults, budget.deployment)
    assert budget_stage._is_large_gpu(budget.resolved, defaults) == large
    key = (budget.deployment.engine, budget.deployment.engine_version)
    assert budget_stage._LARGE_GPUS.find(gpu, key) == large


def test_a_catalog_model_is_found_once_per_entry_and_team_files():
    resolve._FOUND.clear()
    found = resolve._from_catalog("meta-llama/Llama-3.1-8B-Instruct", False)
    assert found is not None
    assert resolve._from_catalog("meta-llama/Llama-3.1-8B-Instruct", False) is found
    entry = catalog.find_model("meta-llama/Llama-3.1-8B-Instruct")
    assert resolve._FOUND.find(entry, (catalog._EXTRA_FILES,)) is found
    assert resolve._found_in_catalog(entry) == found
