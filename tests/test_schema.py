"""schema: the shipped JSON Schemas, and findings located at the offending YAML node."""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path

import pytest
import yaml
from helpers import REPO
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from hbmlint.schema import validate
from hbmlint.yamlsrc import load_documents

SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"

FULL = """\
    apiVersion: hbmlint/v1
    kind: ServingManifest
    metadata:
      name: llama70b-fp8-8b-draft
    spec:
      engine: vllm
      engine_version: "0.11.0"
      gpu:
        type: NVIDIA-H100-80GB-HBM3
        memory: 80 GiB
        count: 1
      model:
        name: meta-llama/Llama-3.1-70B-Instruct
        dtype: bfloat16
        quantization: fp8
      parallel:
        tensor: 1
        pipeline: 1
      serving:
        max_model_len: 8192
        max_num_seqs: 16
        max_num_batched_tokens: 4096
        gpu_memory_utilization: 0.95
        kv_cache_dtype: fp8
        block_size: 16
        enforce_eager: false
      speculative:
        method: draft_model
        model: meta-llama/Llama-3.1-8B-Instruct
        num_speculative_tokens: 4
        tensor_parallel: 1
      workload:
        concurrency: 4
        context_tokens: 8192
    """

MINIMAL_HEAD = textwrap.dedent(
    """\
    apiVersion: hbmlint/v1
    kind: ServingManifest
    spec:
      gpu:
        type: H100
      model:
        name: meta-llama/Llama-3.1-8B-Instruct
    """
)


def findings(text: str):
    documents, error = load_documents(textwrap.dedent(text))
    assert error is None, error
    return validate(documents[0], "manifest", "manifest.yaml")


def only_finding(text: str):
    found = findings(text)
    assert len(found) == 1, [f.message for f in found]
    return found[0]


@pytest.mark.parametrize("name", ["manifest", "rule", "config"])
def test_shipped_schema_is_a_valid_2020_12_schema(name):
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


def test_full_example_validates_clean():
    assert findings(FULL) == []


def test_unknown_field_is_reported_at_the_typo_key():
    finding = only_finding(MINIMAL_HEAD + "  serving:\n    max_num_seq: 8\n")
    assert finding.code == "HBM003"
    assert "unknown field 'max_num_seq'" in finding.message
    assert "max_num_seqs" in finding.message  # the known fields help spot the typo
    assert (finding.span.line, finding.span.column) == (9, 5)
    assert finding.file == "manifest.yaml"


def test_bad_enum_is_reported_at_its_value():
    finding = only_finding(MINIMAL_HEAD.replace("spec:\n", "spec:\n  engine: vllmm\n"))
    assert "vllmm" in finding.message
    assert "vllm" in finding.message.replace("vllmm", "")  # lists the valid choices
    assert (finding.span.line, finding.span.column) == (4, 11)


def test_wrong_type_is_reported_at_its_value():
    finding = only_finding(MINIMAL_HEAD + "  serving:\n    max_model_len: lots\n")
    assert "spec.serving.max_model_len" in finding.message
    assert "'lots'" in finding.message
    assert "integer" in finding.message
    assert (finding.span.line, finding.span.column) == (9, 20)


def test_gpu_without_type_or_memory():
    finding = only_finding(MINIMAL_HEAD.replace("    type: H100\n", "    count: 2\n"))
    assert "needs type or memory" in finding.message
    assert finding.span.line == 4  # the gpu key


def test_draft_model_without_model_or_config_is_rejected():
    finding = only_finding(
        MINIMAL_HEAD + "  speculative:\n    method: draft_model\n    num_speculative_tokens: 4\n"
    )
    assert "spec.speculative" in finding.message
    assert "model" in finding.message and "config" in finding.message
    assert finding.span.line == 8


def test_ngram_needs_no_model():
    assert findings(MINIMAL_HEAD + "  speculative:\n    method: ngram\n") == []


def test_findings_come_in_file_order():
    text = MINIMAL_HEAD.replace("spec:\n", "spec:\n  engine: vllmm\n") + (
        "  serving:\n    max_model_len: lots\n    max_num_seq: 8\n"
    )
    assert [f.span.line for f in findings(text)] == [4, 10, 11]


# --- the quick check never contradicts jsonschema ----------------------------------------------
#
# validate() skips jsonschema for a document its compiled quick check calls valid, and sends
# every other document to jsonschema. A wrong "valid" would hide a finding; a wrong "invalid"
# would only cost time, but is wrong too. Mutations of a full manifest, leaf by leaf.

_FULL = yaml.safe_load((REPO / "examples" / "llama70b-fp8-h100-8b-draft.yaml").read_text())
_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=300_000),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-2.0, max_value=2e6),
    st.sampled_from(
        ["vllm", "sglang", "tgi", "ngram", "eagle3", "draft_model", "fp8", "auto", "H100", ""]
    ),
    st.text(max_size=6),
    st.lists(st.integers(max_value=4), max_size=2),
    st.dictionaries(st.sampled_from(["type", "name", "x"]), st.integers(max_value=4), max_size=2),
)


def _paths(node, path=()):
    yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, (*path, index))


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_the_quick_check_agrees_with_jsonschema(data):
    import copy

    from hbmlint import schema as schema_module

    document = copy.deepcopy(_FULL)
    for _ in range(data.draw(st.integers(min_value=1, max_value=3))):
        paths = [p for p in _paths(document) if p]
        path = data.draw(st.sampled_from(paths))
        parent = document
        for part in path[:-1]:
            parent = parent[part]
        action = data.draw(st.sampled_from(["replace", "delete", "add"]))
        if action == "delete" and isinstance(parent, dict):
            del parent[path[-1]]
        elif action == "add" and isinstance(parent, dict):
            parent[data.draw(st.sampled_from(["extra", "tensor", "method", "count"]))] = data.draw(
                _LEAVES
            )
        else:
            parent[path[-1]] = data.draw(_LEAVES)
    manifest_schema = schema_module.load_schema("manifest")
    verdict = schema_module._valid(manifest_schema, document, manifest_schema)
    errors = list(Draft202012Validator(manifest_schema).iter_errors(document))
    if verdict is True:
        assert not errors, (document, errors[0].message)
    if verdict is False:
        assert errors, document


def test_a_value_judged_before_is_judged_again_by_its_type():
    """The quick check remembers a leaf's verdicts per value and type: `count: 1` is a valid
    integer, so `count: true` (equal to 1 in Python) must still be refused; `2.0` is an integer
    to JSON Schema, `2.5` is not."""
    gpu = "    type: H100\n"
    assert findings(MINIMAL_HEAD.replace(gpu, gpu + "    count: 1\n")) == []
    finding = only_finding(MINIMAL_HEAD.replace(gpu, gpu + "    count: true\n"))
    assert "True is not of type integer" in finding.message
    assert (finding.span.line, finding.span.column) == (6, 12)
    assert findings(MINIMAL_HEAD.replace(gpu, gpu + "    count: 2.0\n")) == []  # integral
    finding = only_finding(MINIMAL_HEAD.replace(gpu, gpu + "    count: 2.5\n"))
    assert "2.5 is not of type integer" in finding.message


_LARGEST = 2**63 - 1
_NUMBERS = st.sampled_from(
    [float("nan"), float("inf"), -float("inf"), 2**63, -(2**64), 1e19, _LARGEST, -_LARGEST, 9e18]
)


def _unusable(value) -> bool:
    return isinstance(value, (int, float)) and not (math.isfinite(value) and abs(value) <= _LARGEST)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_every_unusable_number_is_reported_at_its_path(data):
    """NaN, infinities and numbers past int64 anywhere in a manifest (labels too, which the
    schema leaves free) are each an HBM003 finding naming their path; int64's own bounds are
    not, and a manifest without such a number has no such finding."""
    import copy

    document = copy.deepcopy(_FULL)
    document["metadata"]["labels"] = {"team": "a", "sizes": [1, [2, 3]]}
    planted = set()
    for _ in range(data.draw(st.integers(min_value=0, max_value=3))):
        paths = [p for p in _paths(document) if p and not isinstance(_at(document, p), dict)]
        path = data.draw(st.sampled_from(paths))
        value = data.draw(_NUMBERS)
        _at(document, path[:-1])[path[-1]] = value
        planted = {p for p in planted if p[: len(path)] != path}
        planted |= {path} if _unusable(value) else set()
    [loaded], error = load_documents(yaml.safe_dump(document))
    assert error is None
    found = validate(loaded, "manifest", "manifest.yaml")
    unusable = {
        f.message.split(":")[0]
        for f in found
        if "is not a finite number" in f.message or "out of range" in f.message
    }
    assert unusable == {".".join(str(p) for p in path) for path in planted}


def _at(node, path):
    for part in path:
        node = node[part]
    return node
