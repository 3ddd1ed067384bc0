"""The speculative advisor's EAGLE-3 head row: its settings made with the budget's one-dict copy
(budget._changed) give the table dataclasses.replace gave, to the row."""

from __future__ import annotations

import dataclasses

from helpers import manifest

from hbmlint import lint, speculative
from hbmlint.budget import Settings
from hbmlint.rules import builtin_rule_files, load_rules

DRAFT_MODEL = """
    gpu: {type: H100}
    model: {name: meta-llama/Llama-3.1-8B-Instruct}
    speculative: {method: draft_model, model: meta-llama/Llama-3.2-1B-Instruct,
                  num_speculative_tokens: 4}
"""


def budgets(path):
    rules, _ = load_rules(builtin_rule_files())
    result = lint.lint_file(path, path.name, rules, lint.LintOptions())
    return [d.budget for d in result.deployments if d.budget is not None]


def test_the_eagle3_heads_settings_are_dataclasses_replaces(tmp_path, monkeypatch):
    rules, _ = load_rules(builtin_rule_files())
    params = next(r for r in rules if r.name == "speculative-tradeoff").params
    path = tmp_path / "draft.yaml"
    path.write_text(manifest(DRAFT_MODEL))
    [b] = budgets(path)
    fast = speculative.compare(b, params)
    assert any(row.method == "eagle3" for row in fast.rows)
    seen = []

    def the_long_way(settings, changes):
        assert set(changes) <= {f.name for f in dataclasses.fields(Settings)}
        seen.append(changes)
        return dataclasses.replace(settings, **changes)

    monkeypatch.setattr(speculative, "_changed", the_long_way)
    path2 = tmp_path / "draft2.yaml"  # a fresh budget: no memo carries the table over
    path2.write_text(manifest(DRAFT_MODEL))
    [b2] = budgets(path2)
    slow = speculative.compare(b2, params)
    assert seen
    assert [(r.method, r.label) for r in fast.rows] == [(r.method, r.label) for r in slow.rows]
    assert repr(fast.rows) == repr(slow.rows)
