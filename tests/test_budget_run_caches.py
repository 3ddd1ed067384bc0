"""What the budget and the speculative table remember within a run (a GPU's rates, a target's
EAGLE-3 head, a drafter's layers) and the Settings they build without the dataclass's
__init__: a table or budget made after another must be the one made from nothing.

The deployments: the draft-model pattern of vLLM's speculative decoding docs (a small model of
the target's family drafting for it: Llama-3.2-1B for Llama-3.1-8B) on two GPUs of different
datasheets, the repository's Qwen3-32B example (examples/qwen3-32b-h200-small-draft.yaml), and
the EAGLE-3 pattern of lmsys/sglang-EAGLE3-LLaMA3.3-Instruct-70B's model card (a Llama 3.3 70B
target with its head).
"""

from __future__ import annotations

import dataclasses

import pytest
from helpers import EXAMPLES, manifest
from test_budget_plain_numbers import EAGLE3_70B  # its source is named there

from hbmlint import budget as budget_stage
from hbmlint import speculative
from hbmlint.lint import lint_file
from hbmlint.rules import load_rules

DRAFT_MODEL = """
    gpu: {{type: {gpu}}}
    model: {{name: meta-llama/Llama-3.1-8B-Instruct}}
    serving: {{max_model_len: 8192}}
    speculative: {{method: draft_model, model: meta-llama/Llama-3.2-1B-Instruct,
                  num_speculative_tokens: 4}}
"""


def only_budget(path):
    [item] = lint_file(path, path.name, []).deployments
    assert item.budget is not None
    return item.budget


def tradeoff_params() -> dict:
    rules, _ = load_rules()
    return next(r for r in rules if r.name == "speculative-tradeoff").params


def forget_run_caches() -> None:
    speculative._HARDWARE.clear()
    speculative._HEADS.clear()
    budget_stage._LAYERS.clear()


def rows(table) -> list:
    return [(r.key, r.kv_tokens, r.draft_hbm, r.served, r.step, r.speedup) for r in table.rows]


def test_each_gpu_and_target_gets_its_own_rates_and_head(write):
    params = tradeoff_params()
    budgets = [
        only_budget(write(manifest(DRAFT_MODEL.format(gpu=gpu)), f"{gpu}.yaml"))
        for gpu in ("H100", "A100-80GB")
    ]
    budgets.append(only_budget(EXAMPLES / "qwen3-32b-h200-small-draft.yaml"))
    # one after another in one run, then each alone
    together = [rows(speculative.compare(b, params)) for b in budgets]
    alone = []
    for b in budgets:
        forget_run_caches()
        alone.append(rows(speculative.compare(b, params)))
    assert together == alone
    # every row of both GPUs' tables is timed, each GPU's differently
    first, second = together[0], together[1]
    assert all(row[4] is not None for row in first + second)
    assert [row[4] for row in first] != [row[4] for row in second]
    # the two targets' EAGLE-3 heads weigh differently
    heads = {str(row[2]) for table in (first, together[2]) for row in table if row[0] == "eagle3"}
    assert len(heads) == 2


def test_built_settings_are_the_dataclass_s_own(write):
    b = only_budget(write(manifest(EAGLE3_70B)))
    made = dataclasses.replace(b.settings)  # through Settings.__init__
    assert made == b.settings and hash(made) == hash(b.settings)
    assert vars(made) == vars(b.settings)
    with pytest.raises(dataclasses.FrozenInstanceError):
        b.settings.max_model_len = 1


def test_settings_refuse_a_missing_or_unknown_name():
    fields = {f.name: 0 for f in dataclasses.fields(budget_stage.Settings)}
    del fields["engine"]
    with pytest.raises(TypeError, match="engine"):
        budget_stage._settings(**fields)
    with pytest.raises(TypeError, match="no_such"):
        budget_stage._settings(**fields, engine="vllm", no_such=1)
