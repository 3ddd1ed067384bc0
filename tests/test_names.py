"""hbmlint/names.yaml declares every name a rule may use: the values rules.py builds, the
functions it offers, the built-in rules and docs/rules.md all agree with it."""

from __future__ import annotations

import ast

import pytest
from helpers import REPO, manifest

from hbmlint.expressions import BASE_FUNCTIONS, parse
from hbmlint.lint import lint_file
from hbmlint.ruledoc import names_markdown
from hbmlint.rules import budget_names, declared_names, load_rules, rule_functions, undeclared

UNITS = {"bytes", "bytes/token", "tokens", "sequences", "count", "ratio", "text", "boolean",
         "capability"}  # fmt: skip

# deployments that between them build every name: a draft, a workload, CUDA graphs
SPECS = [
    """
    gpu: {type: H100}
    model: {name: meta-llama/Llama-3.1-8B-Instruct}
    speculative: {method: draft_model, model: meta-llama/Llama-3.2-1B-Instruct}
    workload: {concurrency: 4, context_tokens: 8192}
    """,
    """
    gpu: {type: L4}
    model: {name: Qwen/Qwen2.5-7B-Instruct}
    """,
]


@pytest.fixture(scope="module")
def budgets(tmp_path_factory):
    rules, _ = load_rules()
    out = []
    for i, spec in enumerate(SPECS):
        path = tmp_path_factory.mktemp("names") / f"m{i}.yaml"
        path.write_text(manifest(spec))
        [item] = lint_file(path, path.name, rules).deployments
        out.append(item.budget)
    return out


def test_every_declared_name_has_a_unit_and_a_description():
    for space, names in declared_names()["namespaces"].items():
        for name, entry in names.items():
            assert entry["unit"] in UNITS, f"{space}.{name}"
            assert entry["description"].strip(), f"{space}.{name}"


def test_the_names_rules_see_are_the_declared_ones(budgets):
    declared = declared_names()["namespaces"]
    seen: dict[str, set[str]] = {}
    for budget in budgets:
        for space, values in budget_names(budget).items():
            seen.setdefault(space, set()).update(values._values)
    assert set(seen) == set(declared)
    for space, names in seen.items():
        assert names == set(declared[space]), space


def test_each_names_value_is_of_its_declared_unit(budgets):
    """The load-time unit check reads names.yaml's units: the values rules see must be of
    them (a quantity of that dimension for bytes, tokens and bytes/token; plain otherwise)."""
    from hbmlint.dimensions import kind_of_unit
    from hbmlint.quantity import Quantity

    declared = declared_names()["namespaces"]
    for budget in budgets:
        for space, values in budget_names(budget).items():
            for name in values._values:
                value = getattr(values, name)
                expected = kind_of_unit(declared[space][name]["unit"])
                if value is None:
                    continue  # parallel.next_tensor where there is none
                if expected.what == "quantity":
                    assert isinstance(value, Quantity), f"{space}.{name}"
                    assert value.dimensionality == expected.dims, f"{space}.{name}"
                elif expected.what == "text":
                    assert isinstance(value, str), f"{space}.{name}"
                else:
                    assert isinstance(value, (bool, int, float)), f"{space}.{name}"


def test_the_functions_rules_see_are_the_declared_ones(budgets):
    offered = set(BASE_FUNCTIONS) | set(rule_functions(budgets[0]))
    assert offered == set(declared_names()["functions"])


def test_every_builtin_rule_uses_only_declared_names():
    rules, problems = load_rules()
    assert not problems
    for rule in rules:
        expressions = [rule.check, rule.when, *(f.when for f in rule.fixes)]
        for expression in filter(None, expressions):
            assert undeclared(expression, rule.params) == [], rule.id
            assert isinstance(parse(expression), ast.AST)


def test_docs_list_every_declared_name():
    docs = (REPO / "docs" / "rules.md").read_text()
    assert names_markdown() in docs
    for space, names in declared_names()["namespaces"].items():
        for name in names:
            assert f"| `{space}.{name}` |" in docs
