"""The documentation a user reads names every rule and check hbmlint can report."""

from __future__ import annotations

from helpers import REPO

from hbmlint.diagnostics import INPUT_CHECKS
from hbmlint.rules import load_rules


def test_every_rule_and_check_is_documented_under_its_help_anchor():
    docs = (REPO / "docs" / "rules.md").read_text()
    rules, _ = load_rules()
    for code, name in [(r.id, r.name) for r in rules] + [
        (c.code, c.name) for c in INPUT_CHECKS.values()
    ]:
        # GitHub turns "### HBM101 weights-exceed-hbm" into the anchor help_uri links to
        assert f"### {code} {name}\n" in docs


def test_readme_opens_with_the_two_commands():
    readme = (REPO / "README.md").read_text()
    head = readme[:1500]
    assert "pip install . && hbmlint examples/" in head
    assert "pip install '.[test]' && pytest" in head
    ci = (REPO / ".ci" / "run").read_text()
    assert "pip install '.[test]' && pytest" in ci
