"""Issue 18 (speed): lint runs a deployment's rules through rules.evaluate_rules, which works
out once per run what evaluate_rule works out on every call (which rules apply, each rule's
program, what its tradeoff() starts from). These tests hold it to evaluate_rule, rule by rule.

The manifests: test_speculative_rules' displacing drafter (Llama-3.1-8B with a 3B drafter on
an H100, a workload it no longer fits) and test_rule_programs' 1B drafter on an L4."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import manifest
from test_rule_programs import DRAFT
from test_rules import GOOD_RULE, write_rule
from test_speculative_rules import DISPLACING

from hbmlint.expressions import ExpressionError
from hbmlint.lint import LintOptions, _tradeoff_params, lint_file
from hbmlint.rules import (
    evaluate_rule,
    evaluate_rules,
    forget_scope,
    load_rule_file,
    load_rules,
    rules_for,
)
from hbmlint.units import Q

CONFIGURED = LintOptions(
    rule_params={
        "HBM201": {"max_share": Q(90, "percent")},
        "HBM208": {"acceptance_draft_model": 0.9, "acceptance_ngram": 0.1},
    }
)


def _budget(path: Path, rules: list, options: LintOptions):
    [deployment] = lint_file(path, path.name, rules, options).deployments
    forget_scope(deployment.budget)  # evaluated afresh below, names and what-ifs alike
    return deployment.budget


def _said(finding) -> tuple:
    return (finding.code, finding.severity, finding.message, finding.span, finding.fixes)


def _one_by_one(rules, budget, options):
    tradeoff = _tradeoff_params(rules, options)
    out = []
    for rule in rules_for(rules, budget.settings):
        finding = evaluate_rule(rule, budget, options.rule_params.get(rule.id), tradeoff)
        if finding is not None:
            out.append((rule.id, _said(finding)))
    return out


def _batched(rules, budget, options):
    tradeoff = _tradeoff_params(rules, options)
    found = evaluate_rules(rules, budget, options.rule_params, tradeoff)
    return [(rule.id, _said(finding)) for rule, finding in found]


def test_a_deployments_rules_in_one_call_say_what_each_rule_says(tmp_path):
    rules, _ = load_rules()
    for name, spec in (("draft", DRAFT), ("displacing", manifest(DISPLACING))):
        path = tmp_path / f"{name}.yaml"
        path.write_text(spec)
        for options in (LintOptions(), CONFIGURED):
            budget = _budget(path, rules, options)
            batched = _batched(rules, budget, options)
            forget_scope(budget)
            assert batched == _one_by_one(rules, budget, options), (name, options)
            # twice in a run: what was worked out once is used again, with the same findings
            forget_scope(budget)
            assert _batched(rules, budget, options) == batched
    # the findings compared are real ones, and the configuration's parameters reach them
    path = tmp_path / "displacing.yaml"
    plain = [
        code for code, _ in _batched(rules, _budget(path, rules, LintOptions()), LintOptions())
    ]
    configured = _batched(rules, _budget(path, rules, CONFIGURED), CONFIGURED)
    assert {"HBM202", "HBM208"} <= set(plain)
    tradeoff = dict(configured)["HBM208"][2]
    assert (
        tradeoff
        != dict(_batched(rules, _budget(path, rules, LintOptions()), LintOptions()))["HBM208"][2]
    )


def test_a_rule_that_fails_is_one_outcome_and_the_rules_after_it_still_run(tmp_path):
    # a division by zero in the when, and a message field that cannot be formatted: each is
    # the ExpressionError evaluate_rule raises, in the rule's place, and the next rules run
    failing_when, _ = load_rule_file(
        write_rule(tmp_path, GOOD_RULE + "when: kv.tokens / (gpu.count - gpu.count) > min_tokens\n")
    )
    failing_message, _ = load_rule_file(
        write_rule(
            tmp_path,
            GOOD_RULE.replace("HBM901", "HBM902")
            .replace("check: kv.tokens >= min_tokens", "check: min_tokens < min_tokens")
            .replace("{kv.tokens}", "{kv.tokens / (gpu.count - gpu.count)}"),
        )
    )
    assert failing_when is not None and failing_message is not None
    path = tmp_path / "big.yaml"
    path.write_text(
        manifest(
            """
            gpu: {type: L4}
            model: {name: meta-llama/Llama-3.1-70B-Instruct}
            """
        )
    )
    builtin, _ = load_rules()
    rules = [failing_when, failing_message, *builtin]
    options = LintOptions()
    budget = _budget(path, rules, options)
    found = evaluate_rules(rules, budget, options.rule_params, _tradeoff_params(rules, options))
    (first, when_error), (second, message_error), *rest = found
    assert (first, second) == (failing_when, failing_message)
    for rule, error in ((first, when_error), (second, message_error)):
        assert isinstance(error, ExpressionError) and "ZeroDivisionError" in str(error)
        forget_scope(budget)
        with pytest.raises(ExpressionError) as raised:
            evaluate_rule(rule, budget)
        assert str(raised.value) == str(error)
    assert "HBM101" in [rule.id for rule, _ in rest]


def test_a_namespace_over_a_table_works_each_value_out_once_when_first_read():
    # a budget's names come from tables shared by every budget (rules._NAMESPACES): each
    # value is worked out for this namespace on its first read, by a compiled expression,
    # by getattr (simpleeval, whatif(...).kv) or by a message, and the table is not changed
    from hbmlint.expressions import Lazy, Scope, evaluate, evaluator

    calls = []

    def tokens(context):
        calls.append(context)
        return Q(4096, "token") * context

    table = {"tokens": tokens, "total": lambda context: Q(3, "GiB")}
    kept = dict(table)
    one, two = Lazy.over(1, table), Lazy.over(2, table)
    assert evaluate("kv.tokens > 0 and kv.total < 4 * kv.total", {"kv": one}, {})
    assert evaluator("kv.tokens")(Scope({"kv": one}), {}, None) == Q(4096, "token")
    assert two.tokens == Q(8192, "token") == evaluate("kv.tokens", {"kv": two}, {})
    assert calls == [1, 2]  # once a namespace, on its first read
    assert table == kept and sorted(one._values) == ["tokens", "total"]
    assert repr(one) == "Lazy(['tokens', 'total'])"
    for hidden in ("kv._context", "kv._values", "kv.missing"):
        with pytest.raises(ExpressionError):
            evaluate(hidden, {"kv": one}, {})
