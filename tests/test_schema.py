"""schema: the shipped JSON Schemas, and findings located at the offending YAML node."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
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
