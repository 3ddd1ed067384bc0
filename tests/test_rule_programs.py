"""Issue 18 (speed): a rule's expressions are worked out once per rule (evaluator, with the
rule's parameters read beside the budget's names instead of through a scope built per
evaluation). These tests hold that path to what evaluate() gives and refuses, and that the
rules still travel to worker processes after they have been evaluated."""

from __future__ import annotations

import pickle

import pytest
from helpers import manifest
from test_speculative_rules import DISPLACING as DISPLACING_SPEC

from hbmlint.expressions import ExpressionError, Scope, evaluate, evaluator
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules
from hbmlint.units import Q


class Thing:
    def __init__(self):
        self.size = Q(3, "GiB")
        self._secret = 1


NAMES = {"thing": Thing(), "n": 7}
PARAMS = {"share": Q(10, "percent"), "limit": 2}


@pytest.mark.parametrize(
    "expression",
    [
        "thing.size * share < limit * thing.size",
        "n % limit == 1 and share",
        "max(n, limit) if share else 0",
        '"%5.1f" % limit',
        "(limit, n, share)",
        "n < limit < 3",
    ],
)
def test_parameters_beside_the_names_give_what_one_scope_gives(expression):
    run = evaluator(expression, frozenset(PARAMS))
    assert run(NAMES, {}, PARAMS) == evaluate(expression, {**NAMES, **PARAMS}, {})


@pytest.mark.parametrize(
    "expression",
    [
        "share._magnitude",
        "limit.__class__",
        "thing._secret",
        "thing.size.to('MiB')",
        "share.to('percent')",
        "open('/etc/passwd')",
        "'x' * 10**9 if limit else 0",
        "max(limit, 1, key=abs)",
    ],
)
def test_parameters_beside_the_names_are_refused_the_same(expression):
    with pytest.raises(ExpressionError) as scoped:
        evaluate(expression, {**NAMES, **PARAMS}, {})
    with pytest.raises(ExpressionError) as beside:
        evaluator(expression, frozenset(PARAMS))(NAMES, {}, PARAMS)
    assert str(beside.value) == str(scoped.value)


def test_an_expression_left_to_simpleeval_sees_the_parameters_too():
    # a subscript is not compiled: simpleeval evaluates it with the parameters merged in
    scope = Scope({"n": 7})
    assert evaluator("(limit, n)[0]", frozenset(PARAMS))(scope, {}, PARAMS) == 2


def test_a_broken_expression_raises_each_time_it_is_evaluated():
    run = evaluator("1 +")
    for _ in range(2):
        with pytest.raises(ExpressionError, match="invalid expression"):
            run({}, {}, None)


DRAFT = manifest(
    """
    gpu: {type: L4}
    model: {name: meta-llama/Llama-3.1-8B-Instruct}
    serving: {max_model_len: 8192}
    speculative: {method: draft_model, model: meta-llama/Llama-3.2-1B-Instruct}
    """
)


def test_a_configured_parameter_changes_the_finding_on_the_next_deployment(tmp_path):
    # the same rules, evaluated with the rule's own limit and then a configuration's: the
    # rule's worked-out parameters follow the configuration given
    path = tmp_path / "m.yaml"
    path.write_text(DRAFT)
    rules, _ = load_rules()
    plain = lint_file(path, path.name, rules).diagnostics
    assert "HBM201" in [d.code for d in plain]
    loose = LintOptions(rule_params={"HBM201": {"max_share": Q(90, "percent")}})
    assert "HBM201" not in [d.code for d in lint_file(path, path.name, rules, loose).diagnostics]
    again = lint_file(path, path.name, rules).diagnostics
    assert [d.message for d in again] == [d.message for d in plain]


def test_rules_travel_to_worker_processes_after_they_were_evaluated(tmp_path):
    # a spawned worker (macOS, Windows) receives the rules pickled: what evaluation kept on
    # them (compiled functions) must not stop that, nor change the findings
    path = tmp_path / "m.yaml"
    path.write_text(DRAFT)
    rules, _ = load_rules()
    first = lint_file(path, path.name, rules).diagnostics
    copied = pickle.loads(pickle.dumps(rules))
    assert [d.message for d in lint_file(path, path.name, copied).diagnostics] == [
        d.message for d in first
    ]


def test_a_namespace_of_known_values_and_thunks_reads_as_one_lazy_namespace():
    calls = []

    def tokens():
        calls.append(1)
        return Q(4096, "token")

    from hbmlint.expressions import Lazy

    tested = Lazy({"total": Q(3, "GiB"), "tokens": tokens})
    taken = Lazy.of({"total": Q(3, "GiB")}, {"tokens": tokens})
    for namespace in (tested, taken):
        assert evaluate("kv.tokens > 0 and kv.total < 4 * kv.total", {"kv": namespace}, {})
        assert evaluate("kv.tokens", {"kv": namespace}, {}) == Q(4096, "token")
    assert len(calls) == 2  # once a namespace, when first read
    assert sorted(taken._values) == sorted(tested._values) == ["tokens", "total"]
    with pytest.raises(ExpressionError):
        evaluate("kv._values", {"kv": taken}, {})


# the drafter displaces workload sequences
DISPLACING = manifest(DISPLACING_SPEC)


def test_the_speculative_table_follows_the_acceptance_rates_given_in_one_run(tmp_path):
    # one process, one set of rules: the table's key (worked out once per set of parameter
    # objects) must still tell configured rates from the rule's own
    path = tmp_path / "m.yaml"
    path.write_text(DISPLACING)
    rules, _ = load_rules()
    low = {name: 0.1 for name in ("acceptance_eagle3", "acceptance_ngram", "acceptance_early_exit")}
    configured = LintOptions(rule_params={"HBM208": {**low, "acceptance_draft_model": 0.9}})

    def tradeoff(options=None):
        found = lint_file(path, path.name, rules, options).diagnostics
        return next(d.message for d in found if d.code == "HBM208")

    default = tradeoff()
    assert "x 1.11 tokens per step" not in default
    assert "n-gram lookup would serve this deployment best" in tradeoff(configured)
    assert "x 1.11 tokens per step" in tradeoff(configured)
    assert tradeoff() == default
