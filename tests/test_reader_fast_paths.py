"""The pod-spec reader's shortcuts give what its plain form gives: a list's item spans from one
search of the tree (YamlDocument.item_spans) are span() of each item, and the container readers
that look a container up once (container_argv, container_env, the GPU resources) read what
walking each field's whole path reads, on hbmlint's fixtures and examples (each names its
source) and on the fixtures of keys written twice (tests/fixtures/positions)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from hbmlint.engines.args import Token
from hbmlint.formats import podspec
from hbmlint.formats.podspec import Elsewhere, Reader, value_at
from hbmlint.spec import GPU_RESOURCE, Label
from hbmlint.yamlsrc import Span, YamlDocument, load_documents

TESTS = Path(__file__).parent
FILES = sorted(
    path
    for folder in (TESTS / "fixtures", TESTS.parent / "examples")
    for path in folder.rglob("*")
    if path.suffix in (".yaml", ".yml")
)


def _documents(path: Path) -> list[YamlDocument]:
    documents, _ = load_documents(path.read_text(encoding="utf-8"))
    return documents


def _sequences(data: object, path: tuple = ()) -> list[tuple]:
    """The path of every list in ``data``."""
    found = []
    if isinstance(data, list):
        found.append(path)
        for index, item in enumerate(data):
            found += _sequences(item, (*path, index))
    elif isinstance(data, dict):
        for key, value in data.items():
            found += _sequences(value, (*path, str(key)))
    return found


def _containers(document: YamlDocument) -> list[tuple]:
    data = document.data
    if not isinstance(data, dict):
        return []
    return [
        (*pod, *key)
        for pod, _ in podspec.pod_specs(data)
        for key, _ in podspec.serving_containers(data, pod)
    ]


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(TESTS.parent)))
def test_item_spans_are_each_items_span(path):
    for document in _documents(path):
        fresh = _documents(path)[document.index]  # no span asked of it yet
        for where in _sequences(document.data):
            spans = fresh.item_spans(where)
            if spans is not None:
                expected = [document.span((*where, i)) for i in range(len(spans))]
                assert spans == expected, where


def test_item_spans_without_a_tree_or_with_spans_placed_elsewhere_ask_span():
    text = "spec:\n  args: [a, b]\n"
    (recorded,) = load_documents(text)[0]
    recorded.spans  # noqa: B018 - reading the map records it, and drops the tree
    assert recorded.item_spans(("spec", "args")) is None
    assert Elsewhere({"spec": {"args": ["a"]}}, Span(3, 4)).item_spans(("spec", "args")) is None
    (loaded,) = load_documents(text)[0]
    assert loaded.item_spans(("spec",)) is None  # a mapping, not a list
    assert loaded.item_spans(("spec", "missing")) is None
    assert loaded.item_spans(("spec", "args")) == [Span(2, 10, 2, 11), Span(2, 13, 2, 14)]


def _argv(document: YamlDocument, path: tuple) -> list[Token]:
    """container_argv as it reads each word: its own path walked, its own span asked."""
    argv = []
    for key in ("command", "args"):
        value = value_at(document.data, (*path, key))
        if isinstance(value, list):
            argv += [
                Token("" if v is None else str(v), document.span((*path, key, i)))
                for i, v in enumerate(value)
            ]
        elif value is not None:
            argv.append(Token(str(value), document.span((*path, key))))
    return argv


def _amd(document: YamlDocument, cpath: tuple) -> list[Label]:
    found = []
    nvidia = False
    for section in ("limits", "requests"):
        resources = value_at(document.data, (*cpath, "resources", section))
        if not isinstance(resources, dict):
            continue
        if "nvidia.com/gpu" in resources:
            nvidia = True
            continue
        named = [r for r in resources if podspec.gpu_resource(r) is not None]
        if named:
            where = (*cpath, "resources", section, named[0])
            found.append(Label(GPU_RESOURCE, named[0], document.span(where)))
            nvidia = True
            break
        if "amd.com/gpu" in resources:
            where = (*cpath, "resources", section, "amd.com/gpu")
            found.append(Label("amd.com/gpu", str(resources["amd.com/gpu"]), document.span(where)))
            break
    image = value_at(document.data, (*cpath, "image"))
    if not found and not nvidia and isinstance(image, str):
        from hbmlint.formats import accelerators
        from hbmlint.spec import ROCM_IMAGE

        if accelerators.is_rocm_image(image):
            found.append(Label(ROCM_IMAGE, image, document.span((*cpath, "image"))))
    return found


def _mig(document: YamlDocument, cpath: tuple) -> list[tuple[Label, tuple]]:
    found = []
    for section in ("limits", "requests"):
        asked = value_at(document.data, (*cpath, "resources", section))
        for key in asked if isinstance(asked, dict) else ():
            if isinstance(key, str) and key.startswith("nvidia.com/mig-"):
                where = (*cpath, "resources", section, key)
                span = document.span(where)
                found.append((Label("nvidia.com/mig", key[15:], span), where))
        if found:
            break
    return found


def _env(document: YamlDocument, path: tuple) -> dict:
    """container_env's variables, read each by its whole path: name -> (text, span, why)."""
    found = {}
    items = value_at(document.data, (*path, "env"))
    for i, item in enumerate(items if isinstance(items, list) else []):
        if isinstance(item, dict) and "value" in item and "name" in item:
            value = item["value"]
            text = "" if value is None else str(value)
            found[str(item["name"])] = (text, document.span((*path, "env", i, "value")))
    return found


CONTAINER_FILES = [
    path for path in FILES if any(_containers(document) for document in _documents(path))
]


@pytest.mark.parametrize("path", CONTAINER_FILES, ids=lambda p: str(p.relative_to(TESTS.parent)))
def test_container_readers_read_what_each_path_holds(path):
    for document in _documents(path):
        for cpath in _containers(document):
            fresh = _documents(path)[document.index]
            assert podspec.container_argv(fresh, cpath) == _argv(document, cpath)
            assert podspec.image_gpu_labels(fresh, cpath) == _amd(document, cpath)
            assert podspec.mig_resources(fresh, cpath) == _mig(document, cpath)
            env = podspec.container_env(fresh, cpath)
            for name, (text, span) in _env(document, cpath).items():
                assert (env[name].text, env[name].span) == (text, span), name


def _one(text: str) -> YamlDocument:
    documents, error = load_documents(textwrap.dedent(text))
    assert error is None
    return documents[0]


def test_a_gpu_limit_is_read_where_it_is_written():
    document = _one(
        """\
        kind: Pod
        spec:
          containers:
            - name: a
              resources:
                limits: {nvidia.com/gpu: "{{ .Values.gpus }}"}
            - name: b
              resources:
                requests:
                  amd.com/gpu: 2
            - name: c
              resources:
                limits: {nvidia.com/gpu: -1}
        """
    )
    reader = Reader(document, "pod.yaml")
    path = ("spec", "containers")
    assert reader.container_gpus((*path, 0), "a") == (None, Span(6, 34, 6, 54))
    assert [f.code for f in reader.findings] == ["HBM011"]
    assert reader.findings[0].span == Span(6, 34, 6, 54)
    assert reader.container_gpus((*path, 1), "b") == (2, Span(10, 24, 10, 25))
    assert reader.container_gpus((*path, 2), "c") == (None, Span(13, 34, 13, 36))
    assert [f.code for f in reader.findings] == ["HBM011", "HBM004"]
    assert reader.findings[1].span == Span(13, 34, 13, 36)


def test_a_container_that_is_no_mapping_has_no_words_env_or_gpus():
    document = _one(
        """\
        kind: Pod
        spec:
          containers: [just-a-name]
        """
    )
    path = ("spec", "containers", 0)
    assert podspec.container_argv(document, path) == []
    assert podspec.container_env(document, path) == {}
    assert podspec.image_gpu_labels(document, path) == []
    assert podspec.mig_resources(document, path) == []


def test_a_config_file_a_container_mounts_is_read_with_its_command():
    # container_command finds the file through config_files, imported only when asked for
    documents, _ = load_documents(
        textwrap.dedent(
            """\
            apiVersion: v1
            kind: ConfigMap
            metadata: {name: vllm-config}
            data:
              config.yaml: |
                max-model-len: 4096
            ---
            apiVersion: v1
            kind: Pod
            metadata: {name: one}
            spec:
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.11.0
                  command: [vllm, serve, Qwen/Qwen3-8B, --config, /etc/vllm/config.yaml]
                  volumeMounts: [{name: config, mountPath: /etc/vllm}]
              volumes: [{name: config, configMap: {name: vllm-config}}]
            """
        )
    )
    pod = documents[1]
    path = ("spec", "containers", 0)
    command = podspec.container_command(pod, path, podspec.container_env(pod, path))
    assert command is not None
    assert command.values["serving.max_model_len"] == 4096
    assert command.locations["serving.max_model_len"].line == 6


IMAGES = [
    "vllm/vllm-openai:v0.11.0",
    "vllm/vllm-openai-cpu:v0.23.0",
    "public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo:v0.9.1",
    "lmsysorg/sglang:v0.5.2-cpu",
    "ghcr.io/llm-d/llm-d-inference-sim:v0.3.0",
    " ghcr.io/llm-d/vllm-sim@sha256:abc ",
    "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1",
    "docker://nvcr.io#nvidia/vllm:25.10-py3",
    "lmsysorg+sglang+v0.5.5.post2.sqsh",
    "",
]


@pytest.mark.parametrize("image", IMAGES)
def test_an_images_facts_are_the_same_asked_again(image):
    from hbmlint.catalog import vendor_image_release
    from hbmlint.engines import docker_reference
    from hbmlint.formats import build

    cpu = bool(build._CPU_IMAGE.search(image.rsplit("@", 1)[0]))
    simulator = bool(build._SIMULATOR_IMAGE.search(image.strip()))
    for _ in range(2):  # the second answer is remembered
        assert build.cpu_image(image) is cpu
        assert build.simulator_image(image) is simulator
        assert build._vendor_release(image) == vendor_image_release(docker_reference(image))
    for other in (None, 3, ["vllm/vllm-openai-cpu:v0.23.0"]):
        assert build.cpu_image(other) is False
        assert build.simulator_image(other) is False


UNUSABLE_CASES = [
    {"spec": {"gpu": {"count": 2}, "serving": {"max_model_len": 8192}}},
    {"spec": {"serving": {"gpu_memory_utilization": float("nan")}}},
    {"a": [1, [2, [3, 2**63]]]},
    {"a": [1, [2, [3, -(2**63) + 1]]], "b": True, "c": None},
    [{"x": float("-inf")}],
    [],
    {},
    "text",
    2**64,
    1.5,
    {"when": __import__("datetime").date(2026, 1, 2), "flag": False},
]


@pytest.mark.parametrize("data", UNUSABLE_CASES, ids=repr)
def test_any_unusable_says_what_non_finite_finds(data):
    from hbmlint import schema

    assert schema._any_unusable(data) is bool(schema._non_finite(data, ()))


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(TESTS.parent)))
def test_any_unusable_on_the_fixtures(path):
    from hbmlint import schema

    for document in _documents(path):
        assert schema._any_unusable(document.data) is bool(schema._non_finite(document.data, ()))


def test_a_native_manifests_model_config_is_beside_it(tmp_path):
    from hbmlint.formats import native

    text = textwrap.dedent(
        """\
        apiVersion: hbmlint/v1
        kind: ServingManifest
        metadata: {name: local}
        spec:
          gpu: {type: H100}
          model: {name: my/model, config: configs/model.json}
          speculative: {method: draft_model, model: my/draft, config: draft.json}
        """
    )
    manifest = tmp_path / "deploy" / "serve.yaml"
    (document,), _ = load_documents(text)
    (deployment,), findings = native.to_deployments(document, manifest, "serve.yaml")
    assert findings == []
    assert deployment.model.config == tmp_path / "deploy" / "configs" / "model.json"
    assert deployment.speculative.model.config == tmp_path / "deploy" / "draft.json"
    (document,), _ = load_documents(text.replace(", config: configs/model.json", ""))
    (deployment,), _ = native.to_deployments(document, manifest, "serve.yaml")
    assert deployment.model.config is None


def test_a_words_readable_is_kept_with_it_and_no_field():
    import dataclasses
    import pickle

    word = Token("$(MODEL)", Span(3, 4), ("MODEL is not set",))
    assert word.readable is False
    assert Token("Qwen/Qwen3-8B", Span(3, 4)).readable is True
    assert [f.name for f in dataclasses.fields(Token)] == ["text", "span", "unresolved"]
    assert dataclasses.replace(word, unresolved=()).readable is True
    assert pickle.loads(pickle.dumps(word)).readable is False
    assert word == Token("$(MODEL)", Span(3, 4), ("MODEL is not set",))
    assert "readable" not in repr(word)
    with pytest.raises(dataclasses.FrozenInstanceError):
        word.readable = True  # type: ignore[misc]


def test_kubernetes_expands_only_the_words_with_a_variable():
    from hbmlint.engines import read_invocation

    env = {"MODEL": Token("Qwen/Qwen3-8B", Span(9, 20))}
    argv = [
        Token("vllm", Span(1, 1)),
        Token("serve", Span(1, 6)),
        Token("$(MODEL)", Span(2, 3)),
        Token("--max-model-len=$(LEN)", Span(3, 3)),
        Token("$$HOME", Span(4, 3)),
    ]
    command = read_invocation(argv, env, "")
    assert command is not None
    assert command.values["model.name"] == "Qwen/Qwen3-8B"
    assert command.locations["model.name"] == Span(2, 3)
    assert command.unread == {"serving.max_model_len": Span(3, 3)}


def _searched(value: str) -> str | None:
    from hbmlint.engines.args import _PLACEHOLDER

    match = _PLACEHOLDER.search(value)
    return match.group(0) if match else None


def _strings(data: object) -> list[str]:
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [s for key, value in data.items() for s in _strings(key) + _strings(value)]
    if isinstance(data, list):
        return [s for item in data for s in _strings(item)]
    return []


PLACEHOLDERS = [
    "{{ .Values.model }}",
    "x-{{ .Release.Name",
    "${MODEL:-Qwen/Qwen3-8B}",
    "${vLLM.max_model_len}",
    "$MODEL",
    "REPLACE_ME",
    "<your model>",
    "__MODEL__",
    "16384",
    "meta-llama/Llama-3.1-8B-Instruct",
    "$",
    "a$b",
    "{x}",
    "<>",
    "__x__",
    "",
]


@pytest.mark.parametrize("value", PLACEHOLDERS)
def test_a_placeholder_is_what_the_search_finds(value):
    from hbmlint.engines.args import placeholder

    assert placeholder(value) == _searched(value)


def test_placeholders_in_the_fixtures_are_what_the_search_finds():
    from hbmlint.engines.args import placeholder

    for path in FILES:
        for document in _documents(path):
            for value in _strings(document.data):
                assert placeholder(value) == _searched(value), (path, value)
