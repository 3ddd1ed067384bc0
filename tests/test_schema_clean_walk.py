"""schema.validate's one walk for a clean manifest (schema._clean) gives the findings the full
path gives: on every hbmlint manifest among the fixtures and examples, and on variants of each
with one field or section changed to a value the schema or the number check refuses (a wrong
type, an out-of-range or non-finite number, an unknown or missing field, a number in the
metadata's labels), found with the same text, line and column."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from hbmlint import schema
from hbmlint.formats import native
from hbmlint.yamlsrc import YamlDocument, load_documents

TESTS = Path(__file__).parent
FILES = sorted(
    path
    for folder in (TESTS / "fixtures", TESTS.parent / "examples")
    for path in folder.rglob("*")
    if path.suffix in (".yaml", ".yml")
)

# values a field may be changed to: each refused by some field's schema or by the number check
REPLACEMENTS: list[Any] = [
    float("nan"),
    float("inf"),
    2**70,
    -(2**70),
    True,
    None,
    0,
    -1,
    1.5,
    "",
    "x",
    "fp8",
    [],
    [1],
    {},
    {"x": 1},
]


def _manifests() -> list[tuple[str, Any]]:
    found = []
    for path in FILES:
        documents, _ = load_documents(path.read_text(encoding="utf-8"))
        for document in documents:
            if native.detect(document.data):
                found.append((f"{path.relative_to(TESTS.parent)}[{document.index}]", document.data))
    return found


MANIFESTS = _manifests()


def _paths(data: Any, path: tuple = ()) -> list[tuple]:
    """The path of every value in ``data`` but the root."""
    found = []
    items = (
        data.items()
        if isinstance(data, dict)
        else enumerate(data)
        if isinstance(data, list)
        else []
    )
    for key, value in items:
        found.append((*path, key))
        found += _paths(value, (*path, key))
    return found


def _set(data: Any, path: tuple, value: Any) -> Any:
    changed = copy.deepcopy(data)
    holder = changed
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = value
    return changed


def _drop(data: Any, path: tuple) -> Any:
    changed = copy.deepcopy(data)
    holder = changed
    for key in path[:-1]:
        holder = holder[key]
    del holder[path[-1]]
    return changed


def _variants(data: Any) -> list[Any]:
    variants = [data]
    for path in _paths(data):
        variants += [_set(data, path, value) for value in REPLACEMENTS]
        if isinstance(path[-1], str):
            variants.append(_drop(data, path))
    containers = [()] + [p for p in _paths(data) if isinstance(_at(data, p), dict)]
    for path in containers:
        variants.append(_set(data, (*path, "unknown_field"), 1))
        variants.append(_set(data, (*path, "unknown_field"), float("nan")))
    variants.append(_set(data, ("metadata",), {"name": "x", "labels": {"a": float("-inf")}}))
    variants.append(_set(data, ("metadata",), {"name": "x", "labels": {"a": [2**64]}}))
    return variants


def _at(data: Any, path: tuple) -> Any:
    for key in path:
        data = data[key]
    return data


def _findings(document: YamlDocument) -> list[tuple[int, int, str]]:
    return [
        (f.span.line, f.span.column, f.message)
        for f in schema.validate(document, "manifest", "manifest.yaml")
    ]


def _full_path(document: YamlDocument, monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    with monkeypatch.context() as patched:
        patched.setattr(schema, "_ROOT_CLEAN", {"manifest": lambda value: False})
        return _findings(document)


def test_there_are_manifests_to_compare():
    assert len(MANIFESTS) >= 5


@pytest.mark.parametrize(("name", "data"), MANIFESTS, ids=[name for name, _ in MANIFESTS])
def test_each_variant_gets_the_full_paths_findings(name, data, monkeypatch):
    manifest = schema.load_schema("manifest")
    refused = 0
    for variant in _variants(data):
        text = yaml.safe_dump(variant, sort_keys=False)
        documents, error = load_documents(text)
        assert error is None
        expected = _full_path(documents[0], monkeypatch)
        if schema._clean(manifest, manifest)(documents[0].data):
            assert expected == [], (name, variant)
        documents, _ = load_documents(text)  # fresh spans, as a run reads the file
        assert _findings(documents[0]) == expected, (name, variant)
        refused += bool(expected)
    assert refused  # the variants do reach the full path


@pytest.mark.parametrize(("name", "data"), MANIFESTS, ids=[name for name, _ in MANIFESTS])
def test_a_valid_manifest_is_judged_by_the_one_walk(name, data):
    manifest = schema.load_schema("manifest")
    if schema._any_unusable(data) or schema._valid(manifest, data, manifest) is not True:
        pytest.skip("not a clean manifest")
    assert schema._clean(manifest, manifest)(data) is True


def test_a_field_the_schema_does_not_know_keeps_the_number_check():
    # metadata is an open object: a field of its own is not judged by the schema, but a NaN
    # there is still refused, at its line
    text = (
        "apiVersion: hbmlint/v1\nkind: ServingManifest\nmetadata:\n  name: m\n  weight: .nan\n"
        "spec:\n  model:\n    name: meta-llama/Llama-3.1-8B-Instruct\n"
    )
    documents, _ = load_documents(text)
    assert _findings(documents[0]) == [(5, 11, "metadata.weight: nan is not a finite number")]
