"""The dict literals settings_for and compute hand to _settings and _budget are checked
against the fields' names once a run (budget._LITERALS_CHECKED): a literal's keys are the
code's, the same on every call. The first call of each checks (a field the literal lacks is
refused); later ones do not look the names up again; any other dict is checked every time."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint import budget as budget_stage
from hbmlint.lint import LintOptions, lint_file

FIXTURE = Path(__file__).parent / "fixtures" / "fidelity" / "vllm-qwen3-235b-fp8-4xh100.yaml"


def one_budget():
    [item] = lint_file(FIXTURE, FIXTURE.name, [], LintOptions(keep_budgets=True)).deployments
    assert item.budget is not None
    return item.budget


def test_the_first_budget_checks_both_literals(monkeypatch):
    monkeypatch.setattr(budget_stage, "_LITERALS_CHECKED", set())
    budget = one_budget()
    assert {"settings_for", "compute"} == budget_stage._LITERALS_CHECKED
    assert vars(budget.settings).keys() == budget_stage._SETTING_NAMES
    assert list(vars(budget))[: len(budget_stage._BUDGET_KEYS)] == budget_stage._BUDGET_KEYS


def test_a_literal_that_lacks_a_field_is_refused_on_its_first_call(monkeypatch):
    monkeypatch.setattr(budget_stage, "_LITERALS_CHECKED", set())
    # a field settings_for's literal does not name, as if one were added to Settings alone
    monkeypatch.setattr(budget_stage, "_SETTING_NAMES", budget_stage._SETTING_NAMES | {"new_field"})
    with pytest.raises(TypeError, match="new_field"):
        one_budget()
    assert "settings_for" not in budget_stage._LITERALS_CHECKED


def test_later_budgets_do_not_look_the_names_up_again(monkeypatch):
    monkeypatch.setattr(budget_stage, "_LITERALS_CHECKED", set())
    first = one_budget()

    class Refusing(frozenset):
        def __eq__(self, other):
            raise AssertionError("the literal's names looked up again")

        __hash__ = frozenset.__hash__

    monkeypatch.setattr(budget_stage, "_SETTING_NAMES", Refusing(budget_stage._SETTING_NAMES))
    monkeypatch.setattr(budget_stage, "_BUDGET_KEYS", None)  # list(values) != None: refused
    again = one_budget()
    assert vars(again.settings) == vars(first.settings)
    assert again.kv_tokens == first.kv_tokens


def test_other_dicts_are_checked_every_time():
    complete = dict(vars(one_budget().settings))
    renamed = dict(complete)
    renamed["no_such"] = renamed.pop("block_size")
    for _ in range(2):
        with pytest.raises(TypeError, match="no_such"):
            budget_stage._settings(renamed)
        with pytest.raises(TypeError, match="no_such"):
            budget_stage._settings(renamed, "elsewhere")  # a name not yet checked: checked
    assert "elsewhere" not in budget_stage._LITERALS_CHECKED
    with pytest.raises(TypeError, match="the fields are"):
        budget_stage._budget({"resolved": None})
