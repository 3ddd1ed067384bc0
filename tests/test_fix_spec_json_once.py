"""A fix's --speculative-config is worked out once for its setting and its edits, and the
fix stage places every edit with one Source of the file: the same answers as working each out
afresh."""

from __future__ import annotations

import copy
import textwrap
from pathlib import Path

import pytest

from hbmlint import fixes, rewrite
from hbmlint.formats import kubernetes
from hbmlint.rewrite import Locator, Source
from hbmlint.yamlsrc import load_documents

MANIFEST = textwrap.dedent(
    """\
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: m}
    spec:
      template:
        spec:
          nodeSelector: {cloud.google.com/gke-accelerator: nvidia-h100-80gb}
          containers:
            - name: vllm
              image: vllm/vllm-openai:v0.11.0
              args:
                - --model
                - meta-llama/Llama-3.1-70B-Instruct
                - --speculative-config
                - '{"method": "eagle", "model": "org/eagle-70b", "num_speculative_tokens": 3}'
    """
)

CHANGES = [
    {"speculative.method": "ngram"},
    {"speculative.num_speculative_tokens": 5},
    {"speculative.num_speculative_tokens": True},
    {"speculative.num_speculative_tokens": 1},
    {"speculative.num_speculative_tokens": 1.0},
    {"speculative.num_speculative_tokens": 0.0},
    {"speculative.num_speculative_tokens": -0.0},
    {"speculative.quantization": "fp8"},
    {"speculative.method": "ngram", "speculative.quantization": None},
]


def _read(text: str = MANIFEST):
    documents, error = load_documents(text)
    assert error is None
    [deployment], _ = kubernetes.to_deployments(documents[0], Path("m.yaml"), "m.yaml")
    assert isinstance(deployment.writer, rewrite.ArgvWriter)
    source = Source(text, "m.yaml")
    return deployment.writer, source, Locator(source, documents[0])


def _fresh(changes: dict) -> tuple:
    """setting() and edits() of a writer that has answered nothing before."""
    writer, source, locator = _read()
    setting = writer.setting(changes, locator)
    writer, source, locator = _read()
    return setting, writer.edits(changes, source, locator)


def test_setting_and_edits_work_the_json_out_once(monkeypatch):
    writer, source, locator = _read()
    made = []
    work = rewrite.ArgvWriter._spec_json_of

    def counted(self, changes):
        made.append(dict(changes))
        return work(self, changes)

    monkeypatch.setattr(rewrite.ArgvWriter, "_spec_json_of", counted)
    changes = {"speculative.quantization": "fp8"}
    setting = writer.setting(changes, locator)
    edits = writer.edits(changes, source, locator)
    assert made == [changes]
    assert "fp8" in setting
    assert edits and "fp8" in edits[0].replacement


@pytest.mark.parametrize("order", ["forward", "backward"])
def test_one_writer_answers_every_change_as_a_fresh_one(order):
    """Values equal across types (True == 1 == 1.0, 0.0 == -0.0) write their own JSON."""
    writer, source, locator = _read()
    asked = CHANGES if order == "forward" else CHANGES[::-1]
    for changes in asked:
        assert (writer.setting(changes, locator), writer.edits(changes, source, locator)) == (
            _fresh(changes)
        )
    texts = {
        repr(c): writer.setting(c, locator)
        for c in CHANGES
        if "speculative.num_speculative_tokens" in c
    }
    assert len(set(texts.values())) == len(texts)  # true, 1, 1.0, 0.0, -0.0: each its own


def test_the_json_object_is_not_changed_by_a_fix():
    writer, source, locator = _read()
    changes = {"speculative.method": "ngram"}
    found = writer._spec_json(changes)
    before = copy.deepcopy(found[1])
    writer.setting(changes, locator)
    writer.edits(changes, source, locator)
    assert writer._spec_json(changes) is found
    assert found[1] == before


def test_the_checks_place_edits_with_the_fixes_source(tmp_path):
    """complete() gives the check the Source it wrote the edits with; the edits still name the
    file, and a check of its own (no fix written first) still makes one."""
    documents, error = load_documents(MANIFEST)
    assert error is None
    context = fixes.FixContext(MANIFEST, documents[0], lambda text: None, 0)
    own = context._source
    assert own.text == MANIFEST
    context = fixes.FixContext(MANIFEST, documents[0], lambda text: None, 0)
    source = context.source_for("m.yaml")
    assert source.file == "m.yaml" and source.text == MANIFEST
    assert context._source is source
    assert context.source_for("m.yaml") is source
    assert own.starts == source.starts
