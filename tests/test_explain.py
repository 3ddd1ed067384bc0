"""`hbmlint explain` (text and JSON) and docs/rules.md, which is generated from the rules."""

from __future__ import annotations

import json

from helpers import REPO

from hbmlint import ruledoc
from hbmlint.diagnostics import Diagnostic, Severity
from hbmlint.rules import load_rules

REGENERATE = "hbmlint explain --all --format markdown > docs/rules.md"


def test_docs_rules_md_is_up_to_date():
    rules, problems = load_rules()
    assert not problems
    expected = ruledoc.rules_markdown(ruledoc.all_docs(rules))
    actual = (REPO / "docs" / "rules.md").read_text()
    assert actual == expected, f"docs/rules.md is out of date; run: {REGENERATE}"


def test_generator_command_prints_the_file(cli):
    run = cli("explain", "--all", "--format", "markdown")
    assert run.exit_code == 0
    assert run.output == (REPO / "docs" / "rules.md").read_text()


def test_every_help_link_points_at_its_section():
    rules, _ = load_rules()
    docs = (REPO / "docs" / "rules.md").read_text()
    for doc in ruledoc.all_docs(rules):
        finding = Diagnostic(doc.code, doc.name, Severity.INFO, "m", "f")
        assert finding.help_uri == doc.help_uri
        anchor = doc.help_uri.rsplit("#", 1)[1]
        heading = f"### {doc.code} {doc.name}\n"
        assert heading in docs
        # GitHub's anchor: the heading lower-cased, spaces to hyphens
        assert anchor == heading.strip("#\n ").lower().replace(" ", "-")


def test_explain_json(cli):
    run = cli("explain", "--format", "json", "HBM201", "unused-suppression")
    assert run.exit_code == 0
    check, rule = json.loads(run.output)  # in code order
    assert rule["code"] == "HBM201" and rule["kind"] == "rule"
    assert rule["params"] == {"max_share": "10.0%"}
    assert rule["check"] == "draft.weights <= max_share * gpu.usable"
    assert rule["at"] == "speculative.model" and len(rule["fixes"]) == 3
    assert rule["help_uri"].endswith("#hbm201-draft-weights-share")
    assert check["code"] == "HBM090" and check["severity"] == "info" and check["check"] is None
    every = json.loads(cli("explain", "--all", "--format", "json").output)
    assert [d["code"] for d in every] == sorted(d["code"] for d in every)
    missing = cli("explain", "--format", "json", "HBM999")
    assert missing.exit_code == 2 and "no rule or check called 'HBM999'" in missing.stderr


def test_explain_needs_a_code_or_all(cli):
    assert cli("explain").exit_code == 2
    assert "HBM090 unused-suppression (info)" in cli("explain", "--all").output
