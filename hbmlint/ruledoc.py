"""What each check and rule is, said once: for ``hbmlint explain``, for the SARIF rule
descriptors code scanning shows, and for docs/rules.md, which is generated from here
(``hbmlint explain --all --format markdown > docs/rules.md``; a test keeps it current)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field
from typing import Any

from .diagnostics import DOCS_URL, INPUT_CHECKS, InputCheck, Severity
from .records import dataclass


@dataclass
class RuleDoc:
    code: str
    name: str
    kind: str  # "check" (on the input, in code) or "rule" (declarative, a YAML file)
    severity: Severity
    summary: str
    description: str = ""
    when: str | None = None
    check: str | None = None
    at: str | None = None
    params: dict[str, str] = field(default_factory=dict)  # name -> default, formatted
    fixes: list[str] = field(default_factory=list)
    file: str | None = None
    engines: dict[str, str] = field(default_factory=dict)  # engine -> release range

    @property
    def help_uri(self) -> str:
        # GitHub's anchor for the heading "### HBM101 weights-exceed-hbm"
        return f"{DOCS_URL}#{self.code.lower()}-{self.name}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "name": self.name,
            "kind": self.kind,
            "severity": str(self.severity),
            "summary": self.summary,
            "description": self.description,
            "when": self.when,
            "check": self.check,
            "at": self.at,
            "params": dict(self.params),
            "fixes": list(self.fixes),
            "file": self.file,
            "engines": dict(self.engines),
            "help_uri": self.help_uri,
        }

    def facts(self) -> list[str]:
        """The bullet points of the rule's section."""
        lines = []
        if self.engines:
            lines.append(f"Engines: {engines_text(self.engines)}")
        if self.when:
            lines.append(f"Runs when: `{self.when}`")
        if self.check:
            lines.append(f"Passes when: `{self.check}`")
        if self.at:
            lines.append(f"Points at: `{self.at}`")
        lines += [f"Parameter `{name}`: {value}" for name, value in self.params.items()]
        if self.fixes:
            count = len(self.fixes)
            lines.append(
                f"Suggests: {count} fix{'es' if count != 1 else ''}, each with its effect "
                "computed for the deployment"
            )
        return lines

    def markdown_section(self) -> str:
        # A check's description, where it has one, says its summary again at length.
        lead = self.description if self.kind == "check" and self.description else self.summary
        parts = [f"### {self.code} {self.name}", f"Severity: {self.severity}. {lead}"]
        if self.description and self.kind == "rule":
            parts.append(self.description)
        if self.facts():
            parts.append("\n".join(f"- {fact}" for fact in self.facts()))
        return "\n\n".join(parts) + "\n"

    def help_text(self) -> str:
        lines = [self.summary]
        if self.description:
            lines += ["", self.description]
        if self.facts():
            lines += ["", *self.facts()]
        lines += ["", f"Documentation: {self.help_uri}"]
        return "\n".join(lines)

    def help_markdown(self) -> str:
        lines = [f"**{self.code} {self.name}** ({self.severity}): {self.summary}"]
        if self.description:
            lines += ["", self.description]
        if self.facts():
            lines += ["", *(f"- {fact}" for fact in self.facts())]
        if self.fixes:
            lines += ["", "Fixes it suggests (numbers computed per deployment):", ""]
            lines += [f"- {fix}" for fix in self.fixes]
        lines += ["", f"[Documentation]({self.help_uri})"]
        return "\n".join(lines)


def engines_text(engines: dict[str, str]) -> str:
    """The engines and releases a rule holds for: "vllm (every release), sglang (>=0.4)";
    a rule that names none holds for every engine."""
    if not engines:
        return "every engine"
    return ", ".join(
        f"{engine} ({'every release' if spec == 'all' else spec})"
        for engine, spec in engines.items()
    )


def _prose(text: str) -> str:
    return " ".join(text.split())


def from_check(check: InputCheck) -> RuleDoc:
    return RuleDoc(
        code=check.code,
        name=check.name,
        kind="check",
        severity=check.severity,
        summary=_prose(check.summary),
        description=_prose(check.description),
    )


def from_rule(rule: Any) -> RuleDoc:
    from .units import format_quantity

    return RuleDoc(
        code=rule.id,
        name=rule.name,
        kind="rule",
        severity=rule.severity,
        summary=_prose(rule.summary),
        description=_prose(rule.description or ""),
        when=_prose(rule.when) if rule.when else None,
        check=_prose(rule.check),
        at=rule.at,
        params={name: format_quantity(value) for name, value in rule.params.items()},
        fixes=[_prose(fix.text) for fix in rule.fixes],
        file=str(rule.file),
        engines=dict(getattr(rule, "engines", {}) or {}),
    )


def all_docs(rules: Iterable[Any], checks: Iterable[InputCheck] | None = None) -> list[RuleDoc]:
    """Every input check, then every rule, in code order."""
    docs = [from_check(c) for c in (INPUT_CHECKS.values() if checks is None else checks)]
    docs.sort(key=lambda d: d.code)
    return docs + sorted((from_rule(r) for r in rules), key=lambda d: d.code)


_HEADER = """\
# hbmlint rules

`hbmlint rules` lists these; `hbmlint explain CODE` prints one with its parameters and
fixes. Codes are stable: select, ignore and suppress by code.

This file is generated: `hbmlint explain --all --format markdown > docs/rules.md`.
"""

_CHECKS = """\
## Checks on the input (HBM0xx)

These run before any budget is computed. Each is a finding at the line it concerns, and
the other files are still linted.
"""

_RULES = """\
## Rules (HBM1xx capacity, HBM2xx speculative decoding, HBM3xx engine start-up checks)

Declarative rules, one YAML file each in [rules/](../rules/); the README explains the
expression language. HBM3xx rules state a check the engine itself makes at start-up; each
names the engine source and the releases it holds for, and runs only for them.
"""


def names_markdown() -> str:
    """The names section of docs/rules.md, from hbmlint/names.yaml."""
    from .rules import declared_names

    declared = declared_names()
    lines = [
        "## Names rules use",
        "",
        "Every name a rule expression may use, from [hbmlint/names.yaml](../hbmlint/names.yaml);",
        "a rule that uses another, or compares or adds values of different units (tokens with",
        "bytes, a token count with a plain number), is reported (HBM009) when it loads.",
        "",
        "| name | unit | meaning |",
        "|---|---|---|",
    ]
    for space, names in declared["namespaces"].items():
        for name, entry in names.items():
            lines.append(f"| `{space}.{name}` | {entry['unit']} | {entry['description']} |")
    lines += ["", "Functions:", ""]
    lines += [f"- `{name}`: {text}" for name, text in declared["functions"].items()]
    return "\n".join(lines) + "\n"


def rules_markdown(docs: list[RuleDoc]) -> str:
    """The whole of docs/rules.md."""
    parts = [_HEADER, _CHECKS]
    parts += [d.markdown_section() for d in docs if d.kind == "check"]
    parts.append(_RULES)
    parts += [d.markdown_section() for d in docs if d.kind == "rule"]
    parts.append(names_markdown())
    return "\n".join(parts)
