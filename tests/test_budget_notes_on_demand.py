"""A budget's notes (``assumed``: which defaults were assumed, and why) are written only where
something reads them. A lint that keeps no budget builds them with ``notes=False``: its figures
are the ones build gives, and its notes, what-ifs' notes included, are written when first read,
the same as build writes them at once.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import REPO, recorded_builds

from hbmlint import budget as budget_stage
from hbmlint import lint
from hbmlint.rules import builtin_rule_files, load_rules

WHATIFS = [
    {"speculative_method": "none"},
    {"kv_cache_dtype": "fp8"},
    {"tensor_parallel": 8},
    {"draft_quantization": "fp8"},
]


@pytest.fixture(scope="module")
def resolved_deployments() -> list:
    """Every resolved deployment of the fixtures and examples, as lint builds their budgets."""
    return [resolved for resolved, budget in recorded_builds()]


def figures(budget) -> dict:
    return {k: v for k, v in budget.__dict__.items() if not k.startswith("_") and k != "assumed"}


def test_a_budget_without_notes_has_the_same_figures_and_the_same_notes(resolved_deployments):
    for resolved in resolved_deployments:
        written = budget_stage.build(resolved)
        later = budget_stage.build(resolved, notes=False)
        assert "assumed" not in later.__dict__
        assert figures(later) == figures(written)
        assert later.assumed == written.assumed
        assert list(later.assumed) == list(written.assumed)  # in the same order
        assert later == written


def test_what_ifs_of_a_budget_without_notes_write_theirs_when_read(resolved_deployments):
    for resolved in resolved_deployments[::3]:
        written = budget_stage.build(resolved)
        for changes in WHATIFS:
            later = budget_stage.build(resolved, notes=False)
            try:
                expected = written.whatif(**changes)
            except Exception as exc:  # a what-if the deployment cannot take: the same either way
                with pytest.raises(type(exc)):
                    later.whatif(**changes)
                continue
            found = later.whatif(**changes)
            assert "assumed" not in found.__dict__
            assert figures(found) == figures(expected)
            assert found.assumed == expected.assumed  # its base's notes written on the way
            assert later.assumed == written.assumed


def test_a_budget_without_notes_lacks_other_attributes_as_any_object_does(resolved_deployments):
    later = budget_stage.build(resolved_deployments[0], notes=False)
    with pytest.raises(AttributeError, match="'Budget' object has no attribute 'no_such'"):
        later.no_such  # noqa: B018
    assert not hasattr(later, "_rule_scope")
    assert isinstance(later.assumed, dict)


def test_lint_builds_notes_only_for_the_budgets_it_keeps(tmp_path: Path, monkeypatch):
    made = []
    build = budget_stage.build

    def recording(resolved, notes=True):
        made.append(notes)
        return build(resolved, notes)

    monkeypatch.setattr(budget_stage, "build", recording)
    rules, _ = load_rules(builtin_rule_files())
    path = REPO / "examples" / "llama70b-fp8-h100-8b-draft.yaml"
    kept = lint.lint_file(path, path.name, rules, lint.LintOptions(keep_budgets=True))
    assert made == [True]
    assert kept.deployments[0].budget.assumed  # the budget report's "assumed" lines
    lint.lint_file(path, path.name, rules, lint.LintOptions(keep_budgets=False))
    assert made == [True, False]
