"""schema._clean's object check tests the keys as a whole only where the schema asks (a required
list, an anyOf of required lists) and finds a closed object's unknown field in its loop over the
fields: a manifest with an unknown, a missing or a misplaced field is never judged clean, wherever
the field sits among the others (then the full path reports it, as before)."""

from __future__ import annotations

import copy

import pytest

from hbmlint import schema

GOOD = {
    "apiVersion": "hbmlint/v1",
    "kind": "ServingManifest",
    "metadata": {"name": "m"},
    "spec": {
        "engine": "vllm",
        "gpu": {"type": "H100", "count": 2},
        "model": {"name": "meta-llama/Llama-3.1-8B-Instruct"},
        "parallel": {"tensor": 2},
        "serving": {"max_model_len": 8192},
        "speculative": {"method": "ngram", "num_speculative_tokens": 3},
    },
}

# (the mapping's path, a field the schema there does not name)
CLOSED = [(), ("spec",), ("spec", "gpu"), ("spec", "model"), ("spec", "parallel")]
CLOSED += [("spec", "serving"), ("spec", "speculative")]


def _clean(data: dict) -> bool:
    manifest = schema.load_schema("manifest")
    return schema._clean(manifest, manifest)(data)


def _at(data: dict, path: tuple) -> dict:
    for key in path:
        data = data[key]
    return data


def test_the_good_manifest_is_clean():
    assert _clean(GOOD) is True


@pytest.mark.parametrize("path", CLOSED)
@pytest.mark.parametrize("first", [True, False])
def test_an_unknown_field_of_a_closed_object_is_not_clean(path, first):
    data = copy.deepcopy(GOOD)
    holder = _at(data, path)
    items = list(holder.items())
    holder.clear()
    holder.update([("unknown_field", 1), *items] if first else [*items, ("unknown_field", 1)])
    assert _clean(data) is False


def test_an_unknown_field_of_the_open_metadata_is_clean_unless_a_bad_number():
    data = copy.deepcopy(GOOD)
    data["metadata"]["team"] = 7
    assert _clean(data) is True
    data["metadata"]["team"] = float("nan")
    assert _clean(data) is False


@pytest.mark.parametrize(
    "path",
    [("apiVersion",), ("kind",), ("spec",), ("spec", "model"), ("spec", "speculative", "method")],
)
def test_a_missing_required_field_is_not_clean(path):
    data = copy.deepcopy(GOOD)
    del _at(data, path[:-1])[path[-1]]
    assert _clean(data) is False


@pytest.mark.parametrize("path", [("spec", "gpu"), ("spec", "model")])
def test_no_option_of_an_any_of_is_not_clean(path):
    data = copy.deepcopy(GOOD)
    holder = _at(data, path)
    holder.pop("type", None)
    holder.pop("name", None)
    assert _clean(data) is False
    holder["memory" if path[-1] == "gpu" else "config"] = "80GiB" if path[-1] == "gpu" else "c"
    assert _clean(data) is True
