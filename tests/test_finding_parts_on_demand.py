"""Issue 18 (speed), session 20: a finding compiles the parts of its rule it reads, when it first
reads them: the wordings' conditions up to the first that holds, that wording's template, and
the template and new values of each fix whose ``when`` holds. A rule's other wordings and fixes
are never compiled (most of a run's findings read one wording of several and some fixes).

These tests hold the findings to what compiling every part up front gives (the rule's wording
and fix chosen the same way, each rendered from its template), on the fixtures and examples,
and check that a wording no finding reads is not compiled."""

from __future__ import annotations

import pytest
from helpers import MANIFESTS

from hbmlint import rules as rules_module
from hbmlint.diagnostics import Fix as DiagnosticFix
from hbmlint.expressions import parameter_evaluator, render_plan, template_plan
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import builtin_rule_files, load_rules


def _fix_record(fix):
    return (str(fix), fix.applicability, dict(fix.changes))


def _eager_parts(rule, program, budget, budget_scope, functions):
    """A finding's message and fixes as made before: every wording's and every fix's parts
    compiled first, then the first wording whose ``when`` holds and each fix whose does."""
    names, own, unit = program.names, program.own, budget.byte_unit

    def when(text):
        return parameter_evaluator(text, names) if text else None

    wordings = [(when(m.when), template_plan(m.text, names)) for m in rule.messages]
    fixes = [
        (
            when(fix.when),
            template_plan(fix.text, names),
            fix.applicability,
            [(path, parameter_evaluator(value, names)) for path, value in fix.set.items()],
        )
        for fix in rule.fixes
    ]
    plan = next(
        (text for test, text in wordings if test is None or test(budget_scope, functions, own)),
        wordings[-1][1],
    )
    message = render_plan(plan, budget_scope, functions, own, unit)
    offered = [
        _fix_record(
            DiagnosticFix(
                render_plan(text, budget_scope, functions, own, unit),
                applicability=applicability,
                changes={
                    path: rules_module._setting(value(budget_scope, functions, own))
                    for path, value in changes
                },
            )
        )
        for test, text, applicability, changes in fixes
        if test is None or test(budget_scope, functions, own)
    ]
    return message, offered


@pytest.mark.parametrize("chunk", range(4))
def test_findings_read_as_when_every_part_is_compiled_first(chunk, monkeypatch):
    rules, _ = load_rules(builtin_rule_files())
    real = rules_module._finding
    compared = []

    def both(*args):
        made = real(*args)
        assert (made.message, [_fix_record(f) for f in made.fixes]) == _eager_parts(*args)
        compared.append(made.code)
        return made

    monkeypatch.setattr(rules_module, "_finding", both)
    for path in MANIFESTS[chunk::4]:
        lint_file(path, path.name, rules, LintOptions())
    assert len(compared) >= 5  # findings were made, and compared


def test_a_wording_no_finding_reads_is_not_compiled(monkeypatch):
    # HBM101's first wordings are for a card the engine keeps nothing of; weights that
    # merely exceed what the engine may use read the last wordings only
    rules, _ = load_rules(builtin_rule_files())
    hbm101 = next(r for r in rules if r.id == "HBM101")
    unread = {m.text for m in hbm101.messages[:2]}
    compiled: list[str] = []
    real = rules_module.template_plan

    def recorded(template, names=frozenset()):
        compiled.append(template)
        return real(template, names)

    monkeypatch.setattr(rules_module, "template_plan", recorded)
    hits = []
    for path in MANIFESTS:
        result = lint_file(path, path.name, rules, LintOptions())
        hits += [d for d in result.diagnostics if d.code == "HBM101"]
    assert any("short by" in d.message for d in hits)  # the usual wordings were read
    if not any("keeps no memory" in d.message for d in hits):
        assert not unread & set(compiled)
