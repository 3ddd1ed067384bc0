"""schema: a manifest section of scalar fields (serving, parallel, gpu, model) is judged once per
content in a run, and a section that differs only in a value's type or spelling is judged on its
own: the quick check's verdict for one file never decides another file's findings.

The manifest is this repository's examples/llama8b-a10g-full-context.yaml (hbmlint/v1), with its
serving and parallel sections varied as a run over many similar files varies them."""

from __future__ import annotations

import pytest

from hbmlint.schema import validate
from hbmlint.yamlsrc import load_documents

MANIFEST = """\
apiVersion: hbmlint/v1
kind: ServingManifest
metadata:
  name: llama8b-a10g-full-context
spec:
  engine: vllm
  gpu:
    type: A10G
    count: 1
  model:
    name: meta-llama/Llama-3.1-8B-Instruct
  parallel:
    tensor: {tensor}
  serving:
    max_model_len: {length}
    gpu_memory_utilization: 0.9
"""


def _findings(tensor: str, length: str) -> list[tuple[int, int, str]]:
    documents, error = load_documents(MANIFEST.format(tensor=tensor, length=length))
    assert error is None, error
    found = validate(documents[0], "manifest", "llama8b.yaml")
    return [(f.span.line, f.span.column, f.message) for f in found]


@pytest.mark.parametrize(
    ("length", "message"),
    [
        ("true", "spec.serving.max_model_len: True is not of type integer"),
        ("8192.5", "spec.serving.max_model_len: 8192.5 is not of type integer"),
        ('"8192"', "spec.serving.max_model_len: '8192' is not of type integer"),
        ("0", "spec.serving.max_model_len: 0 is less than the minimum of 1"),
    ],
)
def test_a_section_judged_valid_does_not_pass_its_variant(length, message):
    # judged valid first, so the section's verdict is remembered for this content
    assert _findings("1", "8192") == []
    assert _findings("1", length) == [(15, 20, message)]
    # and the valid section is still valid after its variant was refused
    assert _findings("1", "8192") == []


def test_a_section_refused_once_is_refused_again_at_its_value():
    first = _findings("true", "8192")
    assert first == [(13, 13, "spec.parallel.tensor: True is not of type integer")]
    assert _findings("true", "8192") == first
    assert _findings("1", "8192") == []
    assert _findings("1.0", "8192") == []  # integral: an integer to JSON Schema
