"""formats/podspec.py's serving_containers lists a pod's long-running containers in one loop
over the pod found once (it was a generator over the containers() generator, looking the pod
up twice), and Reader.other_accelerator stops at the first GPU a container asks for: both
answer as the code they replace, kept here as the reference, on every workload of the fixtures
and examples and on odd pods and resource maps."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from helpers import MANIFESTS

from hbmlint.formats import podspec
from hbmlint.yamlsrc import YamlDocument, load_documents


def _serving_as_before(data: dict, pod_path: podspec.Path) -> Iterator[tuple[tuple, dict]]:
    for i, container in podspec.containers(data, pod_path):
        yield ("containers", i), container
    items = podspec.value_at(data, (*pod_path, "initContainers"))
    for i, container in enumerate(items if isinstance(items, list) else []):
        if isinstance(container, dict) and container.get("restartPolicy") == "Always":
            yield ("initContainers", i), container


def _other_as_before(reader: podspec.Reader, path, name, container) -> bool:
    resources = podspec._resources(reader.document, path, container)
    if not isinstance(resources, dict):
        return False
    asked = [
        (section, resource)
        for section in ("limits", "requests")
        for resource in (resources.get(section) or {})
        if isinstance(resources.get(section), dict)
    ]
    if any(resource in podspec.GPU_RESOURCES for _, resource in asked):
        return False
    for section, resource in asked:
        device = podspec.OTHER_ACCELERATORS.get(resource)
        if device is not None:
            reader.findings.append((section, resource, device))
            return True
    return False


def _documents() -> Iterator[YamlDocument]:
    for path in MANIFESTS:
        documents, _ = load_documents(path.read_text(encoding="utf-8"))
        yield from (d for d in documents if isinstance(d.data, dict))


def test_serving_containers_as_before_on_fixtures_and_examples():
    pods = 0
    for document in _documents():
        for pod_path, _ in podspec.pod_specs(document.data):
            pods += 1
            found = podspec.serving_containers(document.data, pod_path)
            assert found == list(_serving_as_before(document.data, pod_path))
    assert pods > 100


_CONTAINER = {"name": "c", "image": "vllm/vllm-openai"}
_POD_VALUES: list[Any] = [
    None,
    "text",
    [],
    [{"containers": [_CONTAINER]}],
    {},
    {"containers": None},
    {"containers": "c"},
    {"containers": [_CONTAINER, "x", None, {"name": "d"}]},
    {"initContainers": [{"name": "i"}, {"name": "s", "restartPolicy": "Always"}, 3]},
    {
        "initContainers": [{"name": "s", "restartPolicy": "Always"}],
        "containers": [_CONTAINER],
    },
    {"initContainers": {"name": "s", "restartPolicy": "Always"}, "containers": [_CONTAINER]},
]


@pytest.mark.parametrize("pod", _POD_VALUES)
@pytest.mark.parametrize(
    "pod_path", [("spec", "template", "spec"), ("spec", 0, "spec"), ("spec",), ()]
)
def test_serving_containers_as_before_on_odd_pods(pod, pod_path):
    data: Any = pod
    for key in reversed(pod_path):
        data = [data] if isinstance(key, int) else {key: data}
    if not isinstance(data, dict):
        data = {"spec": data}
        pod_path = ("spec",)
    assert podspec.serving_containers(data, pod_path) == list(_serving_as_before(data, pod_path))


_RESOURCES = ["nvidia.com/gpu", "amd.com/gpu", "cpu", "google.com/tpu", "habana.ai/gaudi"]


def _resource_maps() -> Iterator[Any]:
    yield from (None, "text", [], {}, {"limits": None}, {"limits": ["nvidia.com/gpu"]})
    sections: list[Any] = [None, {}, "x"]
    for n in (1, 2):
        sections += [dict.fromkeys(names, 1) for names in itertools.permutations(_RESOURCES, n)]
    for limits, requests in itertools.product(sections, repeat=2):
        yield {"limits": limits, "requests": requests}


def test_other_accelerator_as_before():
    seen = set()
    document = YamlDocument(data={}, index=0)
    for resources in _resource_maps():
        container = {"name": "c", "resources": resources}
        new, old = podspec.Reader(document, "x"), podspec.Reader(document, "x")
        answer = new.other_accelerator(("c",), "n", container)
        assert answer == _other_as_before(old, ("c",), "n", container)
        assert len(new.findings) == len(old.findings)
        if answer:
            (_, resource, device) = old.findings[0]
            assert resource in new.findings[0].message and device in new.findings[0].message
        seen.add(answer)
    assert seen == {True, False}


class _Unread(dict):
    """A resource map that fails the test where it is looked through."""

    def __iter__(self):
        raise AssertionError("the requests were looked through")


def test_other_accelerator_stops_at_a_gpu():
    document = YamlDocument(data={}, index=0)
    resources = {"limits": {"nvidia.com/gpu": 1}, "requests": _Unread({"google.com/tpu": 4})}
    reader = podspec.Reader(document, "x")
    assert not reader.other_accelerator(("c",), "n", {"resources": resources})
    assert reader.findings == []


def test_serving_containers_is_a_list():
    data = {"spec": {"containers": [_CONTAINER]}}
    assert podspec.serving_containers(data, ("spec",)) == [(("containers", 0), _CONTAINER)]
