"""Helpers the tests import (tests/ is on sys.path under pytest's default import mode)."""

from __future__ import annotations

import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
SHARED = REPO.parent / "shared"
# every YAML manifest of the fixtures and the examples, in order
MANIFESTS = sorted(
    p
    for folder in (REPO / "tests" / "fixtures", EXAMPLES)
    for p in folder.rglob("*")
    if p.suffix in (".yaml", ".yml")
)


def manifest(spec: str, name: str = "test") -> str:
    """A native manifest around an indented ``spec:`` body."""
    body = textwrap.indent(textwrap.dedent(spec).strip("\n"), "  ")
    header = f"apiVersion: hbmlint/v1\nkind: ServingManifest\nmetadata: {{name: {name}}}\n"
    return f"{header}spec:\n{body}\n"


def budget_of(write, spec: str):
    """The budget of the one deployment of a native manifest around ``spec`` (written with the
    ``write`` fixture), linted without rules."""
    from hbmlint.lint import lint_file

    path = write(manifest(spec))
    result = lint_file(path, path.name, [])
    [item] = result.deployments
    assert item.budget is not None, result.diagnostics
    return item.budget


def tradeoff_params() -> dict:
    """The speculative-tradeoff rule's own parameters (what the CLI passes the table)."""
    from hbmlint.rules import load_rules

    return next(r for r in load_rules()[0] if r.name == "speculative-tradeoff").params


def vllm_compose(tmp_path: Path, command: str, version: str, name: str = "compose.yaml") -> Path:
    """A docker compose file whose one service runs ``command`` (``vllm serve MODEL ...``) in
    vLLM's image of ``version`` on one GPU: the shape the engine-flag tests lint."""
    path = tmp_path / name
    path.write_text(
        "services:\n"
        "  vllm:\n"
        f"    image: vllm/vllm-openai:{version}\n"
        f"    command: >-\n      {command}\n"
        "    deploy:\n"
        "      resources:\n"
        "        reservations:\n"
        "          devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]\n"
    )
    return path


def recorded_builds(keep_budgets: bool = False) -> list[tuple]:
    """Every budget that linting the fixtures and examples builds, as (resolved deployment,
    budget): what the tests of the budget's fast paths compare against."""
    from hbmlint import budget as budget_stage
    from hbmlint import lint
    from hbmlint.rules import builtin_rule_files, load_rules

    inputs = [
        *sorted((REPO / "tests" / "fixtures").rglob("*.yaml")),
        *sorted((REPO / "examples").rglob("*.yaml")),
    ]
    found: list[tuple] = []
    build = budget_stage.build

    def recording(resolved, notes=True):
        made = build(resolved, notes)
        found.append((resolved, made))
        return made

    rules, _ = load_rules(builtin_rule_files())
    budget_stage.build = recording
    try:
        for path in inputs:
            lint.lint_file(path, str(path), rules, lint.LintOptions(keep_budgets=keep_budgets))
    finally:
        budget_stage.build = build
    assert len(found) > 100
    return found
