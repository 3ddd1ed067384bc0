"""What the budget works out once per GPU, engine and release for the rest of a run (whether
the engine gives a GPU its large-GPU batch defaults, whether a release counts CUDA graphs in
the KV budget), and the Settings settings_for hands its whole dict to. A deployment linted
after others must get the defaults it gets alone, each GPU and release its own.

The deployments: vLLM's quickstart command (`vllm serve meta-llama/Llama-3.1-8B-Instruct`,
docs.vllm.ai quickstart) in vLLM's image (docker compose, tests/helpers.py vllm_compose) on an
H100 (80 GiB: the large tier), an A100 80GB (kept on the small tier by name), an L4 and a DGX
Spark's GB10, whose compute capability 12.1 keeps it on the small tier from vLLM 0.33
(engines.yaml small_tier_capability, read in vllm/config/scheduler.py get_batch_defaults).
"""

from __future__ import annotations

import dataclasses

import pytest
from helpers import vllm_compose

from hbmlint import budget as budget_stage
from hbmlint.lint import LintOptions, lint_file

COMMAND = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192"
CASES = [  # (GPU, vLLM image tag, max_num_seqs the defaults give)
    ("H100", "v0.33.0", 1024),
    ("A100-80GB", "v0.33.0", 256),
    ("L4", "v0.33.0", 256),
    ("GB10", "v0.33.0", 256),
    ("GB10", "v0.32.0", 1024),
    ("H100", "v0.19.0", 1024),
]


def budget_of(tmp_path, gpu: str, tag: str, name: str):
    path = vllm_compose(tmp_path, COMMAND, tag, name)
    [item] = lint_file(path, name, [], LintOptions(keep_budgets=True, default_gpu=gpu)).deployments
    assert item.budget is not None
    return item.budget


def figures(budget) -> tuple:
    s = budget.settings
    return (s.max_num_seqs, s.max_num_batched_tokens, dict(budget.overhead), budget.kv_tokens)


def test_each_gpu_and_release_gets_its_own_batch_defaults(tmp_path):
    together = [budget_of(tmp_path, g, t, f"t{i}.yaml") for i, (g, t, _) in enumerate(CASES)]
    alone = []
    for i, (gpu, tag, _) in enumerate(CASES):
        budget_stage._LARGE_GPUS.clear()
        budget_stage._graphs_in_budget_for.cache_clear()
        alone.append(budget_of(tmp_path, gpu, tag, f"a{i}.yaml"))
    assert [figures(b) for b in together] == [figures(b) for b in alone]
    assert [b.settings.max_num_seqs for b in together] == [seqs for _, _, seqs in CASES]


def test_cuda_graphs_are_counted_from_the_release_that_counts_them(tmp_path):
    # engines.yaml cuda_graphs_in_budget_since "0.20": 0.19's graphs are outside the budget
    newer = budget_of(tmp_path, "H100", "v0.33.0", "newer.yaml")
    older = budget_of(tmp_path, "H100", "v0.19.0", "older.yaml")
    again = budget_of(tmp_path, "H100", "v0.33.0", "again.yaml")
    assert "cuda_graphs" in newer.overhead and "cuda_graphs" in again.overhead
    assert "cuda_graphs" not in older.overhead


def test_settings_take_settings_for_s_dict_as_it_is(tmp_path):
    budget = budget_of(tmp_path, "H100", "v0.33.0", "deploy.yaml")
    made = dataclasses.replace(budget.settings)  # through Settings.__init__
    assert made == budget.settings and vars(made) == vars(budget.settings)
    complete = dict(vars(budget.settings))
    assert vars(budget_stage._settings(complete)) is complete
    renamed = dict(complete)
    renamed["no_such"] = renamed.pop("block_size")
    with pytest.raises(TypeError, match="block_size, no_such"):
        budget_stage._settings(renamed)
