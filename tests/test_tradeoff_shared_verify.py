"""The speculative table works out the target's side of a step (its verify pass over 1 + k
tokens a sequence, and the step without speculation) once for every row whose budget reads the
same target settings and weights, instead of once a row: each row's step is still the
decode_step of that row's budget, and no pass is timed twice."""

from __future__ import annotations

from dataclasses import replace

import pytest
from helpers import SPECULATIVE_TABLES, budget_of, tradeoff_params

from hbmlint import budget as budget_stage
from hbmlint import roofline, speculative
from hbmlint.budget import _changed, compute_from, figure_magnitude

PARAMS = tradeoff_params()

SPECS = [
    *SPECULATIVE_TABLES,
    """
    gpu: {type: H100}
    model: {name: meta-llama/Llama-3.1-8B-Instruct}
    speculative: {method: early_exit, num_speculative_tokens: 2}
    workload: {concurrency: 6, context_tokens: 4096}
    """,
]


def row_budgets(budget) -> dict:
    """Each row's budget, made as compare() makes it."""
    s = budget.settings
    k = s.num_speculative_tokens or speculative.DEFAULT_K

    def whatif(**changes):
        return speculative._whatif(budget, num_speculative_tokens=k, **changes)

    head = speculative._eagle3_head_for(
        budget.resolved.target, int(speculative._number(PARAMS["eagle3_draft_vocab"]))
    )
    head_settings = _changed(
        s,
        {
            "speculative_method": "eagle3",
            "num_speculative_tokens": k,
            "draft_quantization": None,
            "draft_tensor_parallel": s.tensor_parallel,
            "draft_offload": False,
        },
    )
    return {
        "current": budget,
        "draft_fp8": whatif(draft_quantization="fp8", draft_offload=False),
        "draft_int8": whatif(draft_quantization="int8", draft_offload=False),
        "draft_offload": whatif(draft_offload=True),
        "eagle3": compute_from(budget, replace(budget.resolved, draft=head), head_settings),
        "mtp": whatif(speculative_method="mtp", draft_offload=False),
        "early_exit": whatif(speculative_method="early_exit", draft_offload=False),
        "ngram": whatif(speculative_method="ngram", draft_offload=False),
        "none": speculative._whatif(budget, speculative_method="none", num_speculative_tokens=0),
    }


@pytest.mark.parametrize("spec", SPECS)
def test_every_rows_step_is_the_decode_step_of_its_budget(write, spec):
    budget = budget_of(write, spec)
    table = speculative.compare(budget, PARAMS)
    rates, gbps, allreduce, overhead = speculative._figures(PARAMS)
    hw, _ = speculative._hardware(budget.resolved.gpu, allreduce, gbps * 1e9, overhead)
    budgets = row_budgets(budget)
    stepped = [r for r in table.rows if r.step is not None]
    assert len(stepped) >= 3  # the manifests give rows with steps to compare
    for r in stepped:
        b = budgets[r.key]
        assert r.step == speculative.decode_step(b, r.method, r.k, r.served, table.context, hw)
        plain = speculative.decode_step(budget, "none", 0, r.served, table.context, hw)
        assert r.baseline_seconds == plain.total


@pytest.mark.parametrize("spec", SPECS)
def test_no_pass_is_timed_twice_in_one_table(write, spec, monkeypatch):
    budget = budget_of(write, spec)
    fresh = speculative.compare(budget_of(write, spec), PARAMS)
    timed: list[tuple] = []
    real = roofline.model_pass_time

    def counted(shape, *args, **kwargs):
        timed.append((id(shape), repr(args), repr(sorted(kwargs.items()))))
        return real(shape, *args, **kwargs)

    monkeypatch.setattr(roofline, "model_pass_time", counted)
    table = speculative.compare(budget, PARAMS)
    assert table == fresh
    assert timed
    assert len(timed) == len(set(timed))


@pytest.mark.parametrize("spec", SPECS)
def test_a_budget_without_its_plain_figures_gives_the_same_table(write, spec):
    # the table reads a budget's figures as the plain numbers compute kept; a budget made
    # another way (dataclasses.replace: no plain numbers) is read through its Quantities
    budget = budget_of(write, spec)
    copied = replace(budget)
    assert "_plain" in budget.__dict__ and "_plain" not in copied.__dict__
    for name in budget_stage._MAGNITUDE_OF:
        assert figure_magnitude(copied, name) == figure_magnitude(budget, name)
    assert speculative.compare(copied, PARAMS) == speculative.compare(budget, PARAMS)
