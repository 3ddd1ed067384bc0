"""JSON Schema validation with findings located at the offending YAML node."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from .diagnostics import Diagnostic, input_diagnostic
from .yamlsrc import YamlDocument


@cache
def load_schema(name: str) -> dict:
    """A schema shipped in the package (``manifest``, ``rule``): schema_data's copy of it where
    the file holds the very text that copy was written from, else the file parsed."""
    import importlib  # the data package's directory (not importlib.resources: see rules.py)

    folder = Path(next(iter(importlib.import_module("hbmlint.schemas").__path__)))
    text = (folder / f"{name}.schema.json").read_text(encoding="utf-8")
    try:  # written with the package (tools/write_schema_data.py): no json import for it
        from .schema_data import SCHEMAS
    except ImportError:  # a tree without the generated module: every schema is parsed
        SCHEMAS = {}
    written, data = SCHEMAS.get(name, (None, None))
    if written == text:
        return data
    import json

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
    clean = _ROOT_CLEAN.get(schema_name)
    if clean is None:
        root = load_schema(schema_name)  # loaded once: the same dict for every call
        clean = _ROOT_CLEAN[schema_name] = _clean(root, root)
    if clean(document.data):
        return []  # no unusable number and the schema surely satisfied: nothing to report
    schema = load_schema(schema_name)
    non_finite = dict(_non_finite(document.data, ())) if _any_unusable(document.data) else {}
    if not non_finite and _valid(schema, document.data, schema) is True:
        return []  # surely valid: jsonschema (its import and its walk) is not needed
    findings = [
        input_diagnostic(code, f"{_dotted(path)}: {_unusable(value)}", display, document.span(path))
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


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


# each JSON type's test, with jsonschema's Draft 2020-12 meanings
_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda value: isinstance(value, dict),
    "array": lambda value: isinstance(value, list),
    "string": lambda value: isinstance(value, str),
    "boolean": lambda value: isinstance(value, bool),
    "null": lambda value: value is None,
    "number": _is_number,
    "integer": _is_integer,
}


def _is_type(value: Any, kind: str) -> bool:
    return _TYPES[kind](value)  # KeyError: a type this check does not know


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


# A schema is compiled once into nested closures, one check per keyword in the schema's own
# order: walking the schema's dictionaries for every document cost more than the document.
# A check answers True, False, None (not judged here: the document goes to jsonschema) or
# _GIVE_UP (the whole schema is not judged here, whatever the other keywords say).
Check = Callable[[Any], Any]
_GIVE_UP = object()
_COMPILED: dict[int, tuple[Any, Check]] = {}  # id -> (the schema, kept alive; its check)
_JSON_TYPES = (dict, str, int, list, float, bool, type(None))  # the most common first
# Keywords that judge a value by itself, its type and its value: a schema of only these (a
# leaf: {"type": "integer", "minimum": 1}) gives one verdict for equal values of one type.
_LEAF_KEYWORDS = frozenset(
    {
        "type",
        "enum",
        "const",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
    }
)
# verdicts a leaf check remembers, each (see _remembered)
_MAX_REMEMBERED = 1024
_MAX_REMEMBERED_LENGTH = 80


def _valid(schema: Any, value: Any, root: dict) -> bool | None:
    """True: ``value`` satisfies ``schema``; False: it does not; None: not judged here."""
    return _compiled(schema, root)(value)


def _compiled(schema: Any, root: dict) -> Check:
    """The check of ``schema`` (a part of ``root``, where its $refs point), made on first use;
    schemas are loaded once and kept, so their identity names them."""
    found = _COMPILED.get(id(schema))
    if found is None or found[0] is not schema:
        found = _COMPILED[id(schema)] = (schema, _compile(schema, root))
    return found[1]


def _compile(schema: Any, root: dict) -> Check:
    if schema is True:
        return lambda value: True
    if not isinstance(schema, dict):
        return lambda value: None
    keywords = [key for key in schema if key not in _IGNORED and key not in ("then", "else")]
    # then/else: judged with "if"
    checks = tuple(_keyword(key, schema[key], schema, root) for key in keywords)
    if len(checks) == 1:  # a lone keyword ({"const": ...}, {"$ref": ...}): no loop
        only = checks[0]

        def check_one(value: Any) -> bool | None:
            if not isinstance(value, _JSON_TYPES):
                return None  # a YAML timestamp or set: jsonschema decides
            ok = only(value)
            return ok if ok is True or ok is False else None

        return _remembered(check_one) if _LEAF_KEYWORDS.issuperset(keywords) else check_one

    def check(value: Any) -> bool | None:
        if not isinstance(value, _JSON_TYPES):
            return None  # a YAML timestamp or set: jsonschema decides
        verdict: bool | None = True
        for one in checks:
            ok = one(value)
            if ok is True:
                continue
            if ok is False:
                return False
            if ok is _GIVE_UP:
                return None
            verdict = None
        return verdict

    if _LEAF_KEYWORDS.issuperset(keywords):
        return _remembered(check)
    if _flat_object(schema, root):
        return _remembered_mapping(check)
    return check


def _flat_object(schema: dict, root: dict) -> bool:
    """Whether ``schema`` is an object of scalar fields only (the manifest's gpu, parallel,
    serving, model): ``additionalProperties: false`` and each property a leaf (or a $ref to
    one) that takes no object or array, so a valid value is one small mapping of scalars."""
    properties = schema.get("properties")
    if schema.get("additionalProperties") is not False or not isinstance(properties, dict):
        return False
    for sub in properties.values():
        ref = sub.get("$ref") if isinstance(sub, dict) and len(sub) == 1 else None
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            sub = root.get("$defs", {}).get(ref[len("#/$defs/") :])
        if not isinstance(sub, dict) or not _LEAF_KEYWORDS.issuperset(set(sub) - _IGNORED):
            return False
        kinds = sub.get("type", [])
        if {"object", "array"} & set(kinds if isinstance(kinds, list) else [kinds]):
            return False
    return True


def _remembered_mapping(check: Check) -> Check:
    """A flat object schema's check (_flat_object) that remembers its verdicts, keyed on the
    mapping's repr: the check reads only the mapping's content, repr writes every key and value
    with its type (1, 1.0, True and '1' apart) in order, and manifests repeat the same few
    settings (a GPU and its count, a parallelism) file after file. Bounded; a mapping of more
    entries or a longer repr than a flat manifest section holds is judged each time."""
    verdicts: dict[str, Any] = {}

    def remembered(value: Any) -> Any:
        if type(value) is not dict or len(value) > _MAX_MAPPING_ENTRIES:
            return check(value)
        try:
            key = repr(value)
        except ValueError:  # an integer past Python's digit limit for str()
            return check(value)
        verdict = verdicts.get(key, _UNKNOWN)
        if verdict is _UNKNOWN:
            verdict = check(value)
            if len(verdicts) < _MAX_REMEMBERED and len(key) <= _MAX_MAPPING_REPR:
                verdicts[key] = verdict
        return verdict

    return remembered


_UNKNOWN = object()  # no verdict remembered (None is one: not judged here)
_MAX_MAPPING_ENTRIES = 32
_MAX_MAPPING_REPR = 1024


def _kept(
    verdicts: dict[tuple[type, Any], Any], key: tuple[type, Any], value: Any, verdict: Any
) -> Any:
    """``verdict``, remembered under ``key`` while the memo has room and the value is short."""
    if len(verdicts) < _MAX_REMEMBERED and (
        not isinstance(value, str) or len(value) <= _MAX_REMEMBERED_LENGTH
    ):
        verdicts[key] = verdict
    return verdict


def _remembered(check: Check) -> Check:
    """A leaf schema's check that remembers its verdicts, keyed on the value's type and the
    value: a leaf's keywords read nothing else, equal values of one type get one verdict (-0.0
    and 0.0 too: equal to every bound and option alike), and manifests repeat the same numbers
    and names file after file. Bounded; lists and mappings (unhashable) are judged each time."""
    verdicts: dict[tuple[type, Any], Any] = {}

    def remembered(value: Any) -> Any:
        key = (value.__class__, value)
        try:
            return verdicts[key]
        except KeyError:
            pass
        except TypeError:  # unhashable
            return check(value)
        return _kept(verdicts, key, value, check(value))

    return remembered


def _keyword(key: str, rule: Any, schema: dict, root: dict) -> Check:  # noqa: C901 - a keyword a branch
    if key == "type":
        kinds = rule if isinstance(rule, list) else [rule]
        if len(kinds) == 1 and kinds[0] in _TYPES:
            return _TYPES[kinds[0]]

        def of_type(value: Any) -> bool | None:
            try:
                return any(_is_type(value, kind) for kind in kinds)
            except KeyError:
                return None

        return of_type
    if key == "properties":
        # each property's check; a $ref inside one is followed on first use (it may recurse)
        subs = {name: _compiled(sub, root) for name, sub in rule.items()}

        def properties(value: Any) -> bool | None:
            if not isinstance(value, dict):
                return True
            verdict: bool | None = True
            for name, item in value.items():
                sub = subs.get(name)
                if sub is None:
                    continue
                ok = sub(item)
                if ok is True:
                    continue
                if ok is False:
                    return False
                verdict = None
            return verdict

        return properties
    if key == "additionalProperties":
        known = schema.get("properties", {})
        names = frozenset(known)
        patterned = "patternProperties" in schema

        def additional(value: Any) -> Any:
            if not isinstance(value, dict):
                return True
            if patterned:
                return _GIVE_UP
            if value.keys() <= names:
                return True  # no other property (and every name a string, as the schema's)
            if any(not isinstance(name, str) for name in value):
                return _GIVE_UP
            extra = [name for name in value if name not in known]
            if rule is False:
                return not extra
            sub = _compiled(rule, root)
            return _all(sub(value[name]) for name in extra)

        return additional
    if key == "required":
        names = frozenset(rule)
        return lambda value: not isinstance(value, dict) or value.keys() >= names
    if key == "enum":
        # a string is one of the options exactly when it equals one of the string options
        # (_equal never matches it with a number, a bool or null): one set lookup
        strings = frozenset(option for option in rule if type(option) is str)

        def one_of(value: Any) -> bool | None:
            if type(value) is str:
                return value in strings
            answers = [_equal(value, option) for option in rule]
            return True if True in answers else (None if None in answers else False)

        return one_of
    if key == "const":
        return lambda value: _equal(value, rule)
    if key == "minimum":
        return lambda value: value >= rule if _is_number(value) else True
    if key == "maximum":
        return lambda value: value <= rule if _is_number(value) else True
    if key == "exclusiveMinimum":
        return lambda value: value > rule if _is_number(value) else True
    if key == "exclusiveMaximum":
        return lambda value: value < rule if _is_number(value) else True
    if key == "minLength":
        return lambda value: not isinstance(value, str) or len(value) >= rule
    if key == "$ref":
        if not isinstance(rule, str) or not rule.startswith("#/$defs/"):
            return lambda value: _GIVE_UP
        target = root.get("$defs", {}).get(rule[len("#/$defs/") :])
        if target is None:
            return lambda value: None
        found: list[Check] = []  # the target's check, made on first use (it may refer back)

        def reference(value: Any) -> Any:
            if not found:
                found.append(_compiled(target, root))
            return found[0](value)

        return reference
    if key == "anyOf":
        options: list[Check] = []  # each option's check, made on first use

        def any_of(value: Any) -> bool | None:
            if not options:
                options.extend(_compiled(sub, root) for sub in rule)
            answers = [option(value) for option in options]
            return True if True in answers else (None if None in answers else False)

        return any_of
    if key == "allOf":
        parts: list[Check] = []  # each part's check, made on first use

        def all_of(value: Any) -> bool | None:
            if not parts:
                parts.extend(_compiled(sub, root) for sub in rule)
            return _all(part(value) for part in parts)

        return all_of
    if key == "if":
        then, otherwise = schema.get("then"), schema.get("else")
        has_then, has_else = "then" in schema, "else" in schema

        def condition(value: Any) -> Any:
            holds = _compiled(rule, root)(value)
            if holds is None:
                return _GIVE_UP
            ok = _compiled(then, root)(value) if holds and has_then else True
            if not holds and has_else:
                ok = _compiled(otherwise, root)(value)
            return ok

        return condition
    return lambda value: _GIVE_UP  # a keyword not judged here


# --- one walk for a clean document ---------------------------------------------------------------
#
# validate's answer for almost every manifest is "nothing": no unusable number (_any_unusable)
# and the schema satisfied (_valid). Asked one after the other, the two walk the document twice,
# and _valid's keyword closures make a call for each keyword of each object and each field (a
# hundred calls a manifest). _clean asks both in one walk, for the object schemas our schemas
# are made of ({"type": "object"} with properties, required, a closed additionalProperties, an
# anyOf of required lists): one call an object, each scalar field looked up in a per-field table
# of verdicts. It answers True only where both are sure; False (any doubt: a finding, a keyword
# it does not know here, a value of another type) sends the document to the full path above,
# which decides as before.

Clean = Callable[[Any], bool]
_ROOT_CLEAN: dict[str, Clean] = {}  # each shipped schema's clean check, by its name
_CLEAN: dict[int, tuple[Any, Clean]] = {}  # id -> (the schema, kept alive; its clean check)
_OBJECT_KEYWORDS = frozenset({"type", "required", "additionalProperties", "properties", "anyOf"})
# $refs followed while a clean check is made; a schema deeper than this (or referring to itself)
# is judged by the full check at that depth
_MAX_CLEAN_DEPTH = 32


def _clean(schema: Any, root: dict, depth: int = 0) -> Clean:
    """Whether a value surely satisfies ``schema`` (a part of ``root``) and holds no number
    _any_unusable finds; made on first use, as _compiled."""
    found = _CLEAN.get(id(schema))
    if found is None or found[0] is not schema:
        found = _CLEAN[id(schema)] = (schema, _make_clean(schema, root, depth))
    return found[1]


def _keywords(schema: dict) -> list[str]:
    """The keywords _compile judges ``schema`` by."""
    return [key for key in schema if key not in _IGNORED and key not in ("then", "else")]


def _target(schema: Any, root: dict, depth: int) -> Any:
    """``schema``, or what a lone local $ref in it points at (the same verdicts: a lone keyword's
    check passes its target's True and False on)."""
    while depth < _MAX_CLEAN_DEPTH and isinstance(schema, dict) and _keywords(schema) == ["$ref"]:
        ref = schema["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
            break
        target = root.get("$defs", {}).get(ref[len("#/$defs/") :])
        if target is None:
            break
        schema, depth = target, depth + 1
    return schema


def _make_clean(schema: Any, root: dict, depth: int) -> Clean:
    full = _compiled(schema, root)

    def judged(value: Any) -> bool:
        return full(value) is True and not _any_unusable([value])

    if not isinstance(schema, dict) or depth >= _MAX_CLEAN_DEPTH:
        return judged
    keywords = _keywords(schema)
    if _LEAF_KEYWORDS.issuperset(keywords):
        return _clean_leaf(schema, keywords, judged)
    if not _OBJECT_KEYWORDS.issuperset(keywords) or schema.get("type") != "object":
        return judged
    closed = schema.get("additionalProperties", True)
    properties = schema.get("properties", {})
    required = _names(schema.get("required", []))
    options = schema.get("anyOf", [])
    alternatives = [
        _names(option["required"])
        for option in (options if isinstance(options, list) else [None])
        if isinstance(option, dict) and list(option) == ["required"]
    ]
    if (
        (closed is not True and closed is not False)
        or not isinstance(properties, dict)
        or required is None
        or not isinstance(options, list)
        or len(alternatives) != len(options)
        or None in alternatives
    ):
        return judged
    return _clean_object(
        {name: _target(sub, root, depth + 1) for name, sub in properties.items()},
        closed is False,
        required,
        tuple(alternatives),  # type: ignore[arg-type]  # None is not among them
        root,
        depth,
    )


def _names(rule: Any) -> frozenset[str] | None:
    """A "required" keyword's names, or None for a rule _clean does not judge."""
    if isinstance(rule, list) and all(type(name) is str for name in rule):
        return frozenset(rule)
    return None


def _clean_leaf(schema: dict, keywords: list[str], judged: Clean) -> Clean:
    """A leaf schema's clean check (_LEAF_KEYWORDS only: its verdict depends on the value's type
    and value alone), remembering its verdicts as _remembered does. A string schema of a type
    and a minimum length judges a string by its length (names differ file after file)."""
    shortest: int | None = None
    if set(keywords) <= {"type", "minLength"} and schema.get("type") == "string":
        minimum = schema.get("minLength", 0)
        shortest = minimum if type(minimum) is int else None
    verdicts: dict[tuple[type, Any], bool] = {}

    def clean(value: Any) -> bool:
        if shortest is not None and type(value) is str:
            return len(value) >= shortest  # a string holds no number
        key = (value.__class__, value)
        try:
            return verdicts[key]
        except KeyError:
            pass
        except TypeError:  # unhashable
            return judged(value)
        return _kept(verdicts, key, value, judged(value))

    # _clean_object reads these and judges the field itself: no call
    clean.verdicts, clean.shortest = verdicts, shortest  # type: ignore[attr-defined]
    return clean


def _clean_object(
    properties: dict[str, Any],
    closed: bool,
    required: frozenset[str],
    options: tuple[frozenset[str], ...],
    root: dict,
    depth: int,
) -> Clean:
    """An object schema's clean check: its required and anyOf names tested, then each field by
    its property's clean check (made on first use: a $ref may lead back here); a field a closed
    object does not name leaves it unsure."""
    # each field's clean check, and a leaf's table of verdicts (looked up here: no call)
    checks: dict[str, tuple[dict | None, int | None, Clean]] = {}

    # each test of the keys as a whole costs about as much as judging a field: an empty
    # required list or anyOf is not tested, and the fields' loop finds an unknown one
    def clean(value: Any) -> bool:
        if type(value) is not dict:
            return False  # not sure: the full check decides
        if required and not value.keys() >= required:
            return False
        if options:
            keys = value.keys()
            for option in options:
                if keys >= option:
                    break
            else:
                return False
        for name, item in value.items():
            found = checks.get(name)
            if found is None:
                if name not in properties or type(name) is not str:
                    if closed:
                        return False  # a field the object does not allow
                    # a field the schema does not judge (an open object): only its numbers
                    if type(item) is not str and _any_unusable([item]):
                        return False
                    continue
                check = _clean(properties[name], root, depth + 1)
                found = checks[name] = (
                    getattr(check, "verdicts", None),
                    getattr(check, "shortest", None),
                    check,
                )
            verdicts, shortest, check = found
            if shortest is not None and type(item) is str:
                if len(item) >= shortest:
                    continue
                return False
            if verdicts is not None:
                try:
                    if verdicts[item.__class__, item]:
                        continue
                    return False
                except (KeyError, TypeError):  # not judged yet, or unhashable
                    pass
            if not check(item):
                return False
        return True

    return clean


def _dotted(path: tuple) -> str:
    return ".".join(str(p) for p in path) or "document"


# No manifest field means a number beyond a signed 64-bit integer (engines hold counts in int64
# or narrower), and the budget's arithmetic overflows on such lengths and batches.
_MAX_INTEGER = 2**63 - 1


def _non_finite(data: Any, path: tuple) -> list[tuple[tuple, float]]:
    """NaN and infinities: YAML has them, JSON Schema cannot refuse them (NaN compares false
    with every bound), and no manifest field means them; nor numbers out of int64's range."""
    if isinstance(data, float) and not math.isfinite(data):
        return [(path, data)]
    if isinstance(data, (int, float)) and not isinstance(data, bool) and abs(data) > _MAX_INTEGER:
        return [(path, data)]
    if isinstance(data, dict):
        return [hit for k, v in data.items() for hit in _non_finite(v, (*path, str(k)))]
    if isinstance(data, list):
        return [hit for i, v in enumerate(data) for hit in _non_finite(v, (*path, i))]
    return []


def _any_unusable(data: Any) -> bool:
    """Whether _non_finite finds a number in ``data``: the same tests, without the path of
    every value (almost every document has none, and then needs no path). A loop over each
    mapping's values, a call for each mapping or list within (a document nests a few levels,
    under MAX_DEPTH): no step of a stack for every value."""
    if isinstance(data, dict):
        values: Any = data.values()
    else:
        values = data if isinstance(data, list) else (data,)  # a document of one value
    for value in values:
        kind = type(value)  # YAML's data is of these exact types: one identity test each
        if kind is str:
            continue  # most values
        if kind is dict or kind is list:
            if _any_unusable(value):
                return True
        elif kind is int or kind is float:
            if not -_MAX_INTEGER <= value <= _MAX_INTEGER:  # NaN compares false: found too
                return True
        elif _unusable_number(value):  # a bool, None, a date; a subclass, judged the same
            return True
    return False


def _unusable_number(value: Any) -> bool:
    """_any_unusable's test of one value that is not of its exact types."""
    if isinstance(value, (str, dict, list)):
        return isinstance(value, (dict, list)) and _any_unusable(value)
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and not -_MAX_INTEGER <= value <= _MAX_INTEGER
    )


def _unusable(value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value!r} is not a finite number"
    text = repr(value) if isinstance(value, float) else str(value)
    text = text if len(text) <= 40 else f"{text[:37]}..."
    return f"{text} is out of range (more than 2^63 - 1)"


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
