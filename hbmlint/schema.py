"""JSON Schema validation with findings located at the offending YAML node."""

from __future__ import annotations

import json
import math
from functools import cache
from importlib.resources import files
from typing import Any

from .diagnostics import Diagnostic, input_diagnostic
from .yamlsrc import YamlDocument


@cache
def load_schema(name: str) -> dict:
    """A schema shipped in the package (``manifest``, ``rule``)."""
    text = files("hbmlint.schemas").joinpath(f"{name}.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


@cache
def _validator(name: str) -> Any:
    from jsonschema import Draft202012Validator  # imported only when a file needs validating

    # The shipped schemas are checked against the 2020-12 metaschema by the test suite, not on
    # every run (it would cost more than validating a manifest).
    return Draft202012Validator(load_schema(name))


def validate(
    document: YamlDocument, schema_name: str, display: str, code: str = "HBM003"
) -> list[Diagnostic]:
    """Every schema violation in ``document``, as findings at the node that violates it."""
    non_finite = dict(_non_finite(document.data, ()))
    findings = [
        input_diagnostic(
            code, f"{_dotted(path)}: {value!r} is not a finite number", display, document.span(path)
        )
        for path, value in non_finite.items()
    ]
    for error in _validator(schema_name).iter_errors(document.data):
        path = tuple(error.absolute_path)
        if path in non_finite:
            continue  # already reported, more plainly
        message, span = _describe(error, path, document)
        findings.append(input_diagnostic(code, f"{_dotted(path)}: {message}", display, span))
    findings.sort(key=lambda d: (d.span.line, d.span.column))
    return findings


def _dotted(path: tuple) -> str:
    return ".".join(str(p) for p in path) or "document"


def _non_finite(data: Any, path: tuple) -> list[tuple[tuple, float]]:
    """NaN and infinities: YAML has them, JSON Schema cannot refuse them (NaN compares false
    with every bound), and no manifest field means them."""
    if isinstance(data, float) and not math.isfinite(data):
        return [(path, data)]
    if isinstance(data, dict):
        return [hit for k, v in data.items() for hit in _non_finite(v, (*path, str(k)))]
    if isinstance(data, list):
        return [hit for i, v in enumerate(data) for hit in _non_finite(v, (*path, i))]
    return []


def _describe(error: Any, path: tuple, document: YamlDocument) -> tuple[str, Any]:
    instance, schema = error.instance, error.schema
    if error.validator == "additionalProperties" and isinstance(instance, dict):
        allowed = set(schema.get("properties", {}))
        extra = sorted(str(k) for k in instance if k not in allowed)
        if extra:
            known = ", ".join(sorted(allowed))
            return (
                f"unknown field '{extra[0]}' (known fields: {known})",
                document.key_span((*path, extra[0])),
            )
    if error.validator == "required":
        return error.message.replace("is a required property", "is required"), document.key_span(
            path
        )
    if error.validator == "anyOf" and all(
        set(sub) == {"required"} for sub in error.validator_value
    ):
        options = " or ".join("/".join(sub["required"]) for sub in error.validator_value)
        return f"needs {options}", document.key_span(path)
    if error.validator == "enum":
        options = ", ".join(str(v) for v in error.validator_value)
        return f"{_short(instance)} is not one of: {options}", document.span(path)
    if error.validator == "const":
        return f"must be {error.validator_value!r}, not {_short(instance)}", document.span(path)
    if error.validator == "type":
        expected = error.validator_value
        expected = " or ".join(expected) if isinstance(expected, list) else expected
        return f"{_short(instance)} is not of type {expected}", document.span(path)
    return error.message if len(error.message) < 200 else error.message[:200] + "...", (
        document.span(path)
    )


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
