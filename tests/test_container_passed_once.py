"""The container readers of formats/podspec.py take the container where the caller found it:
each answers the same as when it looks the container up itself, on every container of every
fixture and example workload, and the Kubernetes reader looks each container up no more."""

from __future__ import annotations

from pathlib import Path

from hbmlint.formats import kubernetes, podspec
from hbmlint.yamlsrc import load_documents

TESTS = Path(__file__).parent
FILES = sorted(
    path
    for folder in (TESTS / "fixtures", TESTS.parent / "examples")
    for path in folder.rglob("*")
    if path.suffix in (".yaml", ".yml")
)


def _containers():
    for path in FILES:
        documents, _ = load_documents(path.read_text(encoding="utf-8"))
        for document in documents:
            data = document.data
            if not isinstance(data, dict):
                continue
            for pod_path, _ in podspec.pod_specs(data):
                for key, container in podspec.serving_containers(data, pod_path):
                    yield path, document, (*pod_path, *key), container


def _answers(document, cpath, container):
    reader = podspec.Reader(document, "x")
    env = podspec.container_env(document, cpath, None, container)
    argv = podspec.container_argv(document, cpath, container)
    command = podspec.container_command(document, cpath, env, None, container)
    return repr(
        (
            env,
            argv,
            command,
            reader.other_accelerator(cpath, "n", container),
            reader.container_gpus(cpath, "n", container),
            podspec.mig_resources(document, cpath, container),
            podspec.image_gpu_labels(document, cpath, container),
            reader.findings,
        )
    ).replace(f"{id(command)}", "")


def test_a_passed_container_reads_as_one_looked_up():
    seen = 0
    for path, document, cpath, container in _containers():
        assert _answers(document, cpath, container) == _answers(document, cpath, None), path
        seen += 1
    assert seen >= 30


def test_the_kubernetes_reader_looks_each_container_up_no_more(monkeypatch):
    text = (TESTS.parent / "examples").rglob("*.yaml")
    document = next(
        d
        for path in sorted(text)
        for d in load_documents(path.read_text(encoding="utf-8"))[0]
        if kubernetes.detect(d.data) and d.data.get("kind") == "Deployment"
    )
    kubernetes._detected = None
    asked = []
    plain = podspec.value_at

    def counted(data, path):
        asked.append(path)
        return plain(data, path)

    monkeypatch.setattr(podspec, "value_at", counted)
    deployments, _ = kubernetes.to_deployments(document, None, "x")
    assert deployments
    containers = [p for p in asked if p[-2:-1] == ("containers",) or "resources" in p]
    assert containers == []
