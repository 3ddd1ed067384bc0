"""The speculative table a rule reads whole is grown from the current setting's row that the
rules worked out first (tradeoff()'s head), not worked out again: the same table."""

from __future__ import annotations

import pytest
from helpers import SPECULATIVE_TABLES, budget_of, manifest, tradeoff_params

from hbmlint import speculative
from hbmlint.lint import lint_file
from hbmlint.rules import load_rules

TRADEOFF_PARAMS = tradeoff_params()

SPECULATIVE = [
    *SPECULATIVE_TABLES,
    """
    gpu: {type: H100}
    model: {name: meta-llama/Llama-3.1-8B-Instruct}
    """,
]


@pytest.mark.parametrize("spec", SPECULATIVE)
def test_the_whole_table_from_its_head_is_the_table_worked_out_afresh(write, spec):
    fresh = speculative.compare(budget_of(write, spec), TRADEOFF_PARAMS)
    budget = budget_of(write, spec)
    head = speculative.compare(budget, TRADEOFF_PARAMS, only_current=True)
    grown = speculative.compare(budget, TRADEOFF_PARAMS, head=head)
    assert grown == fresh
    assert grown.rows[0] is head.current  # the row is not worked out again
    assert speculative.summary(grown) == speculative.summary(fresh)
    assert (grown.best, grown.gain) == (fresh.best, fresh.gain)


def test_the_whole_table_from_its_head_works_out_no_step_twice(write, monkeypatch):
    budget = budget_of(write, SPECULATIVE[0])
    head = speculative.compare(budget, TRADEOFF_PARAMS, only_current=True)
    assert head.current.baseline_seconds is not None
    steps: list[tuple] = []
    real = speculative.decode_step

    def counted(b, method, k, batch, context, hw):
        steps.append((id(b), method, k, batch, context))
        return real(b, method, k, batch, context, hw)

    monkeypatch.setattr(speculative, "decode_step", counted)
    speculative.compare(budget, TRADEOFF_PARAMS, head=head)
    current = head.current
    assert (id(budget), current.method, current.k, current.served, head.context) not in steps
    assert (id(budget), "none", 0, current.served, head.context) not in steps


def test_the_tradeoff_rules_findings_are_those_of_the_fresh_table(write):
    path = write(manifest(SPECULATIVE[0]))
    rules, problems = load_rules()
    assert not problems
    result = lint_file(path, path.name, rules)
    table = speculative.compare(budget_of(write, SPECULATIVE[0]), TRADEOFF_PARAMS)
    [finding] = [d for d in result.diagnostics if d.code == "HBM208"]
    assert speculative.summary(table) in finding.message
