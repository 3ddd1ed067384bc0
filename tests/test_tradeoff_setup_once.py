"""Issue 18 (speed), session 20: two things worked out once instead of on every deployment.

A rule that calls tradeoff() gets the function bound to its parameters only once past a
``when`` that does not call it (HBM208 and HBM209's conditions hold for few deployments), and
the speculative table's figures from its parameters (acceptance rates, host link, all-reduce
latency, pass overhead) are worked out once for each set of parameter objects. These tests
hold both to what working them out every time gives, and keep the errors as they were."""

from __future__ import annotations

import pytest
from helpers import MANIFESTS

from hbmlint import lint, roofline, speculative
from hbmlint import rules as rules_module
from hbmlint.rules import builtin_rule_files, load_rules
from hbmlint.units import Q


def _findings(rules):
    ids = {rule.id for rule in rules}
    found = []
    for path in MANIFESTS:
        result = lint.lint_file(path, path.name, rules, lint.LintOptions())
        found += [
            (path.name, d.code, d.message, [str(f) for f in d.fixes])
            for d in result.diagnostics
            if d.code in ids
        ]
    return found


def test_findings_read_as_when_tradeoff_is_bound_before_every_when(monkeypatch):
    rules, _ = load_rules(builtin_rule_files())
    bound = []
    real = rules_module._with_tradeoff

    def counted(functions, base):
        bound.append(base)
        return real(functions, base)

    monkeypatch.setattr(rules_module, "_with_tradeoff", counted)
    late = _findings(rules)
    late_count = len(bound)
    for rule in rules:  # the way before: bound for every rule that calls it, first thing
        rules_module._program_for(rule, None).when_calls_tradeoff = rule.calls_tradeoff
    bound.clear()
    rules_module._STEPS.clear()
    assert _findings(rules) == late
    assert any(code in ("HBM208", "HBM209") for _, code, _, _ in late)
    assert late_count < len(bound)  # bound fewer times: only past the `when`


def test_a_when_that_calls_tradeoff_sees_the_rules_parameters(tmp_path):
    rule_file = tmp_path / "HBM901-tradeoff-in-when.yaml"
    rule_file.write_text(
        "id: HBM901\n"
        "name: tradeoff-in-when\n"
        "summary: A test rule whose condition reads the speculative table.\n"
        "severity: info\n"
        'when: speculative.method != "none" and tradeoff().current_starts\n'
        "check: 'False'\n"
        "at: speculative\n"
        "message: current {tradeoff().current.served}\n"
    )
    rules, problems = load_rules([*builtin_rule_files(), rule_file])
    assert not problems
    rule = next(r for r in rules if r.id == "HBM901")
    program = rules_module._program_for(rule, None)
    assert program.when_calls_tradeoff
    found = []
    for path in MANIFESTS:
        result = lint.lint_file(path, path.name, rules, lint.LintOptions())
        found += [d for d in result.diagnostics if d.code == "HBM901"]
    assert found  # its `when` called tradeoff() with the tradeoff rule's parameters


def _params():
    rules, _ = load_rules(builtin_rule_files())
    return dict(next(r for r in rules if r.id == "HBM208").params)


def _worked_out(p):
    rates = {
        m: speculative._number(p[name])
        for name, methods in speculative.RATE_PARAMS.items()
        for m in methods
    }
    return (
        rates,
        speculative._number(p["host_link_gb_per_s"]),
        roofline.seconds_per_all_reduce(p["allreduce_latency"]),
        roofline.seconds_per_all_reduce(p["pass_overhead"]),
    )


def test_the_tables_figures_are_those_worked_out_each_time():
    p = _params()
    assert speculative._figures(p) == _worked_out(p)
    assert speculative._figures(dict(p)) is speculative._figures(p)  # the same objects: once
    changed = {**p, "acceptance_ngram": 0.5, "allreduce_latency": Q(20, "microsecond")}
    assert speculative._figures(changed) == _worked_out(changed)
    assert speculative._figures(changed)[0]["ngram"] == 0.5
    assert speculative._figures(changed)[2] == pytest.approx(20e-6)


def test_a_missing_parameter_is_refused_every_time():
    p = _params()
    del p["pass_overhead"]
    for _ in range(2):
        with pytest.raises(ValueError, match="needs the parameters pass_overhead"):
            speculative._figures(p)
