"""The speculative table's alternatives are the what-ifs the rules asked for where they did: a
change to what a setting already is is left out of the what-if, which then finds the rules'
budget instead of working out the same one again. The table is the same."""

from __future__ import annotations

import pytest
from helpers import budget_of, tradeoff_params

from hbmlint import speculative

TRADEOFF_PARAMS = tradeoff_params()

SPECS = [
    """
    gpu: {type: H100}
    model: {name: meta-llama/Llama-3.1-8B-Instruct}
    serving: {max_model_len: 32768}
    speculative: {method: draft_model, model: meta-llama/Llama-3.2-3B-Instruct,
                  num_speculative_tokens: 3}
    workload: {concurrency: 12, context_tokens: 32768}
    """,
    """
    gpu: {type: H100, count: 2}
    model: {name: meta-llama/Llama-3.1-8B-Instruct}
    parallel: {tensor: 2}
    speculative: {method: ngram, num_speculative_tokens: 3}
    """,
    """
    gpu: {type: A100-80GB}
    model: {name: meta-llama/Llama-3.1-8B-Instruct}
    speculative: {method: draft_model, model: meta-llama/Llama-3.2-1B-Instruct,
                  num_speculative_tokens: 5, offload: true}
    """,
]


@pytest.mark.parametrize("spec", SPECS)
def test_the_table_is_the_one_with_every_change_written_out(write, spec, monkeypatch):
    table = speculative.compare(budget_of(write, spec), TRADEOFF_PARAMS)
    monkeypatch.setattr(speculative, "_whatif", lambda budget, **changes: budget.whatif(**changes))
    assert speculative.compare(budget_of(write, spec), TRADEOFF_PARAMS) == table


def test_an_alternative_is_the_rules_own_what_if(write):
    budget = budget_of(write, SPECS[0])
    assert budget.settings.num_speculative_tokens == 3 and not budget.settings.draft_offload
    ngram = budget.whatif(speculative_method="ngram")  # what the rules' fixes ask for
    table = speculative.compare(budget, TRADEOFF_PARAMS)
    [row] = [r for r in table.rows if r.key == "ngram"]
    assert row.kv_tokens == int(ngram.kv_tokens.magnitude)
    memo = budget.__dict__["_whatifs"]
    assert memo[(("speculative_method", "ngram"),)] is ngram
    written_out = (("draft_offload", False), ("num_speculative_tokens", 3))
    assert written_out + (("speculative_method", "ngram"),) not in memo  # not worked out again


def test_a_change_to_another_value_is_kept(write):
    budget = budget_of(write, SPECS[2])  # offloaded: the alternatives bring the draft back
    speculative.compare(budget, TRADEOFF_PARAMS)
    memo = budget.__dict__["_whatifs"]
    assert (("draft_offload", False), ("speculative_method", "ngram")) in memo
