"""JSON Schema validation with findings located at the offending YAML node."""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path
from typing import Any

from .diagnostics import Diagnostic, input_diagnostic
from .yamlsrc import YamlDocument


@cache
def load_schema(name: str) -> dict:
    """A schema shipped in the package (``manifest``, ``rule``)."""
    import importlib  # the data package's directory (not importlib.resources: see rules.py)

    folder = Path(next(iter(importlib.import_module("hbmlint.schemas").__path__)))
    text = (folder / f"{name}.schema.json").read_text(encoding="utf-8")
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
    schema = load_schema(schema_name)
    if not non_finite and _valid(schema, document.data, schema) is True:
        return []  # surely valid: jsonschema (its import and its walk) is not needed
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


# --- a quick yes for valid documents ------------------------------------------------------------
#
# Most manifests are valid, and importing jsonschema cost a tenth of a one-file lint. _valid
# answers True only where the document surely satisfies the schema, for the keywords our schemas
# use, with jsonschema's Draft 2020-12 meanings (bool is neither integer nor number, 1.0 is an
# integer, enum compares bool only with bool); False or None (a keyword or a value it does not
# judge) sends the document to jsonschema, which reports the findings as before.

_IGNORED = frozenset({"$schema", "$id", "$defs", "title", "description", "default", "examples"})
_SCALARS = (str, int, float, bool, type(None))


def _is_type(value: Any, kind: str) -> bool:
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if isinstance(value, bool):
        return False
    if kind == "number":
        return isinstance(value, (int, float))
    if kind == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    raise KeyError(kind)


def _equal(one: Any, two: Any) -> bool | None:
    if not isinstance(one, _SCALARS) or not isinstance(two, _SCALARS):
        return None  # arrays and objects: jsonschema's own comparison
    if isinstance(one, bool) or isinstance(two, bool):
        return isinstance(one, bool) and isinstance(two, bool) and one == two
    if isinstance(one, str) or isinstance(two, str):
        return one == two
    return one == two


def _all(results: Any) -> bool | None:
    unknown = False
    for result in results:
        if result is False:
            return False
        unknown |= result is None
    return None if unknown else True


def _valid(schema: Any, value: Any, root: dict) -> bool | None:
    """True: ``value`` satisfies ``schema``; False: it does not; None: not judged here."""
    if schema is True:
        return True
    if not isinstance(schema, dict):
        return None
    if not isinstance(value, _SCALARS + (dict, list)):
        return None  # a YAML timestamp or set: jsonschema decides
    verdict: bool | None = True
    for key, rule in schema.items():
        if key in _IGNORED:
            continue
        if key == "type":
            kinds = rule if isinstance(rule, list) else [rule]
            try:
                ok: bool | None = any(_is_type(value, kind) for kind in kinds)
            except KeyError:
                ok = None
        elif key == "properties":
            if not isinstance(value, dict):
                continue
            ok = _all(
                _valid(rule[name], item, root) for name, item in value.items() if name in rule
            )
        elif key == "additionalProperties":
            if not isinstance(value, dict):
                continue
            if any(not isinstance(name, str) for name in value):
                return None
            known = schema.get("properties", {})
            if "patternProperties" in schema:
                return None
            extra = [name for name in value if name not in known]
            if rule is False:
                ok = not extra
            else:
                ok = _all(_valid(rule, value[name], root) for name in extra)
        elif key == "required":
            ok = not isinstance(value, dict) or all(name in value for name in rule)
        elif key == "enum":
            answers = [_equal(value, option) for option in rule]
            ok = True if True in answers else (None if None in answers else False)
        elif key == "const":
            ok = _equal(value, rule)
        elif key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if not _is_type(value, "number"):
                continue
            ok = {
                "minimum": value >= rule,
                "maximum": value <= rule,
                "exclusiveMinimum": value > rule,
                "exclusiveMaximum": value < rule,
            }[key]
        elif key == "minLength":
            ok = not isinstance(value, str) or len(value) >= rule
        elif key == "$ref":
            if not isinstance(rule, str) or not rule.startswith("#/$defs/"):
                return None
            target = root.get("$defs", {}).get(rule[len("#/$defs/") :])
            ok = None if target is None else _valid(target, value, root)
        elif key == "anyOf":
            answers = [_valid(sub, value, root) for sub in rule]
            ok = True if True in answers else (None if None in answers else False)
        elif key == "allOf":
            ok = _all(_valid(sub, value, root) for sub in rule)
        elif key == "if":
            condition = _valid(rule, value, root)
            if condition is None:
                return None
            ok = _valid(schema["then"], value, root) if condition and "then" in schema else True
            if not condition and "else" in schema:
                ok = _valid(schema["else"], value, root)
        elif key in ("then", "else"):
            continue  # judged with "if"
        else:
            return None  # a keyword not judged here
        if ok is False:
            return False
        if ok is None:
            verdict = None
    return verdict


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
