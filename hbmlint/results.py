"""The one result model every reporter receives.

The pipeline (lint.py) fills ``FileResult`` and ``DeploymentResult`` per file; the command
line gathers them, with the filtered findings, the suppressed ones, the rules that ran, the
speculative comparisons and what ``--fix`` changed, into one ``Report`` before anything is
rendered. Reporters (hbmlint/reporters/) read a Report and nothing else: they never import the
pipeline, never read files and never compute memory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .budget import Budget
from .diagnostics import Diagnostic, Severity
from .records import dataclass
from .spec import Deployment

if TYPE_CHECKING:  # suppressions.py is imported where a file holds one
    from .suppressions import Problem as SuppressionProblem
    from .suppressions import Suppression


@dataclass(slots=True)
class DeploymentResult:
    deployment: Deployment
    budget: Budget | None = None
    error: str | None = None


@dataclass(slots=True)
class FileResult:
    path: Path
    display: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    deployments: list[DeploymentResult] = field(default_factory=list)
    is_manifest: bool = False
    # inline comments and annotations, for the filter stage (see suppressions.py)
    suppressions: list[Suppression] = field(default_factory=list)
    suppression_problems: list[SuppressionProblem] = field(default_factory=list)

    def error(self) -> str | None:
        """Why the file yielded no deployment at all (unreadable, not YAML, schema errors)."""
        if self.deployments:
            return None
        errors = [d for d in self.diagnostics if d.severity == Severity.ERROR]
        if not errors:
            return None
        first = errors[0]
        return (
            f"{first.code} at line {first.span.line}, column {first.span.column}: {first.message}"
        )


@dataclass
class FixedFile:
    """What ``--fix`` (or ``--diff``) did to one file: the fixes applied, and the text before
    and after them."""

    display: str
    applied: list[str]  # the fix messages, in the order they were applied
    before: str
    after: str


@dataclass
class Report:
    """Everything a reporter may show, computed before any of it is rendered."""

    files: list[FileResult] = field(default_factory=list)
    findings: list[Diagnostic] = field(default_factory=list)  # reported, after the filter stage
    suppressed: list[tuple[Diagnostic, Suppression]] = field(default_factory=list)
    # ruledoc.RuleDoc of the rules that ran, made when a reporter asks (SARIF does)
    rule_docs: Callable[[], list[Any]] | None = None
    internal: bool = False  # hbmlint itself failed on some file
    # budget --compare-speculative: (file, deployment, (budget, comparison) or None, error)
    comparisons: list[tuple[Any, ...]] = field(default_factory=list)
    # budget --set: the files as written (``files`` holds them as set) and the overrides
    before: list[FileResult] = field(default_factory=list)
    overrides: tuple[Any, ...] = ()
    fixed: list[FixedFile] = field(default_factory=list)  # --fix / --diff

    @cached_property
    def rules(self) -> list[Any]:
        return self.rule_docs() if self.rule_docs is not None else []

    @property
    def file_count(self) -> int:
        """Every file examined, manifest or not."""
        return len(self.files)

    @property
    def deployment_count(self) -> int:
        return sum(len(r.deployments) for r in self.files)

    @property
    def fixes_applied(self) -> int:
        return sum(len(f.applied) for f in self.fixed)


@dataclass(frozen=True)
class RenderOptions:
    """How to render, as opposed to what: the terminal's choices."""

    color: bool = False
    quiet: bool = False
    statistics: bool = False


def speculative_comparisons(
    files: list[FileResult], params: dict[str, Any]
) -> list[tuple[Any, ...]]:
    """``budget --compare-speculative``'s content, computed before it is rendered (by
    hbmlint/speculative.py, the code rule HBM208 uses): (file, deployment, (budget,
    comparison) or None, error or None) per deployment."""
    from .speculative import compare

    out: list[tuple[Any, ...]] = []
    for result in files:
        error = result.error()
        if error:
            out.append((result.display, None, None, error))
        for item in result.deployments:
            if item.budget is None:
                out.append((result.display, item.deployment.name, None, item.error))
            else:
                table = compare(item.budget, params)
                out.append((result.display, item.deployment.name, (item.budget, table), None))
    return out
