"""kubernetes.to_deployments takes the engine containers detect() found in the same data, and
finds them itself for any other data: each fixture and example document reads the same after
detect, after detect of another document, and without detect."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.formats import kubernetes
from hbmlint.yamlsrc import YamlDocument, load_documents

TESTS = Path(__file__).parent
FILES = sorted(
    path
    for folder in (TESTS / "fixtures", TESTS.parent / "examples")
    for path in folder.rglob("*")
    if path.suffix in (".yaml", ".yml")
)


def _kubernetes_documents(path: Path) -> list[tuple[str, YamlDocument]]:
    text = path.read_text(encoding="utf-8")
    documents, _ = load_documents(text)
    return [(text, d) for d in documents if kubernetes.detect(d.data)]


def _read(document: YamlDocument, display: str) -> str:
    deployments, findings = kubernetes.to_deployments(document, None, display)
    return repr((deployments, findings))


# only the files with a Kubernetes workload that runs an engine (the others have nothing to read)
WORKLOAD_FILES = [path for path in FILES if _kubernetes_documents(path)]


def test_the_fixtures_hold_kubernetes_workloads():
    assert len(WORKLOAD_FILES) >= 10


@pytest.mark.parametrize("path", WORKLOAD_FILES, ids=lambda p: str(p.relative_to(TESTS.parent)))
def test_to_deployments_reads_the_same_after_detect(path):
    found = _kubernetes_documents(path)
    for text, document in found:
        display = str(path)

        def fresh(text: str = text, index: int = document.index) -> YamlDocument:
            again, _ = load_documents(text)
            return again[index]

        plain = fresh()
        kubernetes._detected = None
        alone = _read(plain, display)
        after = fresh()
        assert kubernetes.detect(after.data)
        assert kubernetes._detected is not None and kubernetes._detected[0] is after.data
        assert _read(after, display) == alone
        assert kubernetes._detected is None  # taken once
        # detect of other data in between: this one is searched again
        other = fresh()
        assert kubernetes.detect(fresh().data)
        assert _read(other, display) == alone


def test_detect_of_another_document_is_not_used():
    one = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: one}
spec:
  template:
    spec:
      containers:
        - name: vllm
          command: [vllm, serve, Qwen/Qwen3-8B]
"""
    two = one.replace("name: one", "name: two").replace("Qwen3-8B", "Qwen3-32B")
    first, _ = load_documents(one)
    second, _ = load_documents(two)
    assert kubernetes.detect(first[0].data)
    deployments, _ = kubernetes.to_deployments(second[0], None, "two.yaml")
    assert [(d.name, d.model.name) for d in deployments] == [("two", "Qwen/Qwen3-32B")]
