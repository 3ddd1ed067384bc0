"""Work the lint does once, not again: a file's ConfigMaps are read from the documents the lint
loaded (not by parsing the file a second time), and fix verification reads each edited text
back once, however many findings offer the same edit.

The ConfigMap fixture is tests/fixtures/real/configmap-envfrom-model.yaml (its header names the
pattern: opea-project's rendered manifests); the native manifest is examples/
llama8b-l4-ngram.yaml's shape."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import REPO

from hbmlint import lint, yamlsrc
from hbmlint.diagnostics import Edit
from hbmlint.fixes import FixContext
from hbmlint.formats import native, podspec
from hbmlint.rules import load_rules

CONFIGMAPS = REPO / "tests" / "fixtures" / "real" / "configmap-envfrom-model.yaml"


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def test_a_file_with_configmaps_is_parsed_once_and_its_values_are_read(rules, monkeypatch):
    podspec._FILE_OBJECTS.clear()  # no earlier test's reading of the same text
    text = CONFIGMAPS.read_text()
    parsed = []

    def counted(source: str):
        if source == text:
            parsed.append(source)
        return load_documents(source)

    load_documents = yamlsrc.load_documents
    monkeypatch.setattr(yamlsrc, "load_documents", counted)
    monkeypatch.setattr(lint, "load_documents", counted)
    result = lint.lint_file(CONFIGMAPS, "configmap-envfrom-model.yaml", rules)
    assert len(parsed) == 1  # the lint's own read; the pod-spec reader used its documents
    [envfrom] = [d.deployment for d in result.deployments if d.deployment.name == "llm-envfrom"]
    assert envfrom.model.name == "meta-llama/Llama-3.1-8B-Instruct"  # LLM_MODEL_ID, line 9
    assert envfrom.serving.max_model_len == 16384  # $(MAX_LEN) from the same ConfigMap


MANIFEST = """\
apiVersion: hbmlint/v1
kind: ServingManifest
metadata: {name: llama8b}
spec:
  engine: vllm
  gpu: {type: L4, count: 1}
  model: {name: meta-llama/Llama-3.1-8B-Instruct}
  serving:
    max_model_len: 16384
"""


def test_the_same_edit_is_read_back_once(tmp_path):
    path = tmp_path / "llama8b.yaml"
    path.write_text(MANIFEST)
    [document], _ = yamlsrc.load_documents(MANIFEST)
    [deployment], _ = native.to_deployments(document, Path(path), "llama8b.yaml")
    reread = lint._rereader(MANIFEST, native, path, "llama8b.yaml", document)
    reads = []

    def counted(text: str):
        reads.append(text)
        return reread(text)

    context = FixContext(MANIFEST, document, counted, 0, deployment)
    lower = [Edit("llama8b.yaml", 9, 20, 9, 25, "8192")]  # max_model_len: 16384 -> 8192
    changes = {"serving.max_model_len": 8192}
    assert context.reads_as(lower, changes, "llama8b.yaml")
    assert context.reads_as(lower, changes, "llama8b.yaml")  # a second finding's same fix
    assert len(reads) == 1
    # a different value is read back on its own, and one that does not say what the edit
    # writes is still refused
    assert not context.reads_as(lower, {"serving.max_model_len": 4096}, "llama8b.yaml")
    assert len(reads) == 1  # the same text: its reading is known
    broken = [Edit("llama8b.yaml", 9, 20, 9, 25, "[8192")]
    assert not context.reads_as(broken, changes, "llama8b.yaml")
    assert len(reads) == 2
