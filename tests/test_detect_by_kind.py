"""formats.detect_format asks the first formats (DETECTED_KINDS) only about documents of the kinds
they read, and imports none of them for a document of another kind: it picks the format the
plain loop over every format's detect picks, on every document of the fixtures and examples;
each of those formats refuses a document it reads once its kind is changed; and the kinds
listed are those its module names."""

from __future__ import annotations

import copy
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hbmlint.formats import _ORDER, DETECTED_KINDS, FORMATS, detect_format
from hbmlint.yamlsrc import load_documents

TESTS = Path(__file__).parent
FILES = sorted(
    path
    for folder in (TESTS / "fixtures", TESTS.parent / "examples")
    for path in folder.rglob("*")
    if path.suffix in (".yaml", ".yml")
)


def _documents() -> list[tuple[str, object]]:
    found = []
    for path in FILES:
        documents, _ = load_documents(path.read_text(encoding="utf-8"))
        found += [(f"{path.name}[{d.index}]", d.data) for d in documents]
    return found


DOCUMENTS = _documents()


def _every_format(data: object) -> object:
    return next((module for module in FORMATS if module.detect(data)), None)


def test_the_format_of_every_document_is_the_plain_loops():
    assert len(DOCUMENTS) > 50
    for name, data in DOCUMENTS:
        assert detect_format(data) is _every_format(data), name


def test_each_gated_format_refuses_a_document_of_another_kind():
    seen = set()
    for name, data in DOCUMENTS:
        for index, format_name in enumerate(DETECTED_KINDS):
            module = FORMATS[index]
            if not module.detect(data):
                continue
            seen.add(format_name)
            assert data["kind"] in DETECTED_KINDS[format_name], name
            for kind in ("Deployment", "LeaderWorkerSet", "Other", "", 1, None, ["Model"]):
                changed = copy.deepcopy(data)
                changed["kind"] = kind
                assert not module.detect(changed), (name, format_name, kind)
            changed = copy.deepcopy(data)
            del changed["kind"]
            assert not module.detect(changed), (name, format_name)
    assert {"native", "kserve"} <= seen


def test_the_kinds_are_the_modules_own():
    from hbmlint.formats import kaito, kserve, kthena, llmaz, ome, ray

    assert set(DETECTED_KINDS["kserve"]) == {
        "InferenceService",
        "LLMInferenceService",
        kserve.CONFIG_KIND,
        *kserve.RUNTIME_KINDS,
    }
    assert set(DETECTED_KINDS["ome"]) == {"InferenceService", *ome.RUNTIME_KINDS}
    assert set(DETECTED_KINDS["kaito"]) == set(kaito.KINDS)
    assert set(DETECTED_KINDS["ray"]) == set(ray._CLUSTER_SPEC)
    assert set(DETECTED_KINDS["llmaz"]) == set(llmaz.KINDS)
    assert DETECTED_KINDS["kthena"] == (kthena.KIND,)
    assert tuple(DETECTED_KINDS) == _ORDER[: len(DETECTED_KINDS)]


@pytest.mark.parametrize(
    "data", [None, [], "text", {}, {"kind": ["InferenceService"]}, {"kind": None, "spec": {}}]
)
def test_documents_of_no_kind_still_reach_every_other_format(data):
    assert detect_format(data) is _every_format(data)


def test_a_deployment_imports_none_of_the_other_formats():
    script = textwrap.dedent(
        """
        import sys
        from hbmlint.formats import DETECTED_KINDS, detect_format
        from hbmlint.yamlsrc import load_documents
        text = open(sys.argv[1]).read()
        for document in load_documents(text)[0]:
            print(getattr(detect_format(document.data), "NAME", None))
        print(sorted(n for n in DETECTED_KINDS if f"hbmlint.formats.{n}" in sys.modules))
        """
    )
    deployment = TESTS.parent / "examples" / "k8s-llama70b-l4-draft.yaml"
    shown = subprocess.run(
        [sys.executable, "-c", script, str(deployment)],
        capture_output=True,
        text=True,
        check=True,
        cwd=TESTS.parent,
    ).stdout.split("\n")
    assert shown[:3] == ["None", "kubernetes", "[]"]  # a Service, the Deployment
