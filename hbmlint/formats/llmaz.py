"""llmaz (InftyAI/llmaz): a ``Playground`` (``inference.llmaz.io/v1alpha1``) serves the
``OpenModel``\\ s (``llmaz.io/v1alpha1``) it claims with a ``BackendRuntime``: the engine is the
runtime's command, its arguments the runtime's recommended config (``default``, or
``speculative-decoding`` when a claimed model has the role ``draft``) with the model paths filled
in, then the Playground's ``backendRuntimeConfig.args``; the GPUs are the main model's flavor
(``inferenceConfig.flavors``: the claim's first ``inferenceFlavors`` name, else the first
flavor), its ``limits`` and its ``nodeSelector``.

Facts from llmaz at 3c13ff3 (2025-10-30): api/core/v1alpha1/model_types.go,
api/inference/v1alpha1/{playground,backendruntime,config}_types.go,
pkg/controller_helper/backendruntime/backendruntime.go (Args: ``{{ .ModelPath }}``,
``{{ .ModelName }}``, ``{{ .DraftModelPath }}``), pkg/controller_helper/helper.go
(RecommendedConfigName), pkg/controller/inference/service_controller.go (injectModelFlavor),
and the runtimes its chart installs (chart/templates/backends/*.yaml, BUILTIN_RUNTIMES below).

The OpenModels and a BackendRuntime may be in the Playground's file or in another file of the
run (lint.shared_objects); one from another file is placed at the Playground's reference to it.
An OpenModel is never a deployment of its own; a BackendRuntime alone is a template (an info
says so where no Playground of the run uses it).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import read_invocation
from ..engines.args import Token
from ..spec import Deployment
from ..yamlsrc import Span, YamlDocument
from .build import GpuFacts
from .kubernetes import document_name
from .podspec import (
    GPU_RESOURCES,
    Path,
    Reader,
    env_list,
    node_labels,
    object_elsewhere,
    tree_kind,
    value_at,
)

NAME = "llmaz"

MODEL_GROUP = "llmaz.io/"
INFERENCE_GROUP = "inference.llmaz.io/"
PLAYGROUND, OPEN_MODEL, RUNTIME = "Playground", "OpenModel", "BackendRuntime"
# llmaz's first API (before 0.0.5, 2024) called the model kind ``Model``
OLD_MODEL = "Model"
KINDS = (PLAYGROUND, OPEN_MODEL, RUNTIME, OLD_MODEL)
# tree_objects' keys (the kinds with the group: other projects have a "Playground" too)
_TREE = "llmaz:"
# "a Playground of the run uses the runtime of this name"
USED_BY = "llmaz:runtime-used-by-a-playground"

# The runtimes llmaz's chart installs (chart/templates/backends/*.yaml at 3c13ff3): the command
# (TGI's image runs its launcher itself), the image, and the recommended configs' arguments.
# The image's tag is the chart's value (chart/values.global.yaml: vllm v0.7.3, sglang
# v0.4.5-cu121, tgi 2.3.1, tritonserver 25.03-trtllm-python-py3), which a cluster may change:
# it is not assumed (see _read_playground).
_DEFAULT_ARGS = ["--served-model-name", "{{ .ModelName }}", "--host", "0.0.0.0", "--port", "8080"]
BUILTIN_RUNTIMES: dict[str, dict[str, Any]] = {
    "vllm": {
        "command": ["python3", "-m", "vllm.entrypoints.openai.api_server"],
        "image": "vllm/vllm-openai",
        "configs": {
            "default": ["--model", "{{ .ModelPath }}", *_DEFAULT_ARGS],
            "speculative-decoding": [
                "--model",
                "{{ .ModelPath }}",
                "--served-model-name",
                "{{ .ModelName }}",
                "--speculative_model",
                "{{ .DraftModelPath }}",
                "--host",
                "0.0.0.0",
                "--port",
                "8080",
                "--num_speculative_tokens",
                "5",
                "-tp",
                "1",
            ],
        },
    },
    "sglang": {
        "command": ["python3", "-m", "sglang.launch_server"],
        "image": "lmsysorg/sglang",
        "configs": {"default": ["--model-path", "{{ .ModelPath }}", *_DEFAULT_ARGS]},
    },
    "tgi": {
        "command": ["text-generation-launcher"],
        "image": "ghcr.io/huggingface/text-generation-inference",
        "configs": {"default": ["--model-id", "{{ .ModelPath }}", "--port", "8080"]},
    },
    "tensorrt-llm": {
        "command": ["trtllm-serve"],
        "image": "nvcr.io/nvidia/tritonserver",
        "configs": {"default": ["{{ .ModelPath }}", "--host", "0.0.0.0", "--port", "8080"]},
    },
}
# runtimes of the chart whose engines hbmlint does not budget
_NOT_BUDGETED = {"llamacpp": "llama.cpp", "ollama": "Ollama"}
# what Args fills in (renderFlags: `{{ .Name }}` with blanks allowed inside the braces)
_FIELD = re.compile(r"\{\{\s*\.(\w+)\s*\}\}")
# llmaz's chart writes its runtimes' fields in Helm's raw-string form, {{`{{ .ModelPath }}`}},
# which Helm renders to {{ .ModelPath }}; a copy of the chart's file holds the escaped form
_HELM_RAW = re.compile(r"\{\{`(.*?)`\}\}")


def detect(data: Any) -> bool:
    if not isinstance(data, dict) or not isinstance(data.get("spec"), dict):
        return False
    kind, group = data.get("kind"), str(data.get("apiVersion", ""))
    if kind in (OPEN_MODEL, OLD_MODEL):
        return group.startswith(MODEL_GROUP)
    return kind in (PLAYGROUND, RUNTIME) and group.startswith(INFERENCE_GROUP)


def _name(data: Any) -> str:
    return str(value_at(data, ("metadata", "name")) or "")


def _claims(data: dict) -> list[tuple[str, str, Path]]:
    """The models a Playground claims: (name, role, where the name is written). llmaz 0.0.x
    wrote a speculative pair as ``multiModelsClaim(s)``' ``modelNames``, target first."""
    single = value_at(data, ("spec", "modelClaim", "modelName"))
    if single is not None:
        return [(str(single), "main", ("spec", "modelClaim", "modelName"))]
    models = value_at(data, ("spec", "modelClaims", "models"))
    found = []
    for i, model in enumerate(models if isinstance(models, list) else []):
        if isinstance(model, dict) and model.get("name") is not None:
            role = str(model.get("role") or "main")  # +kubebuilder:default=main
            found.append((str(model["name"]), role, ("spec", "modelClaims", "models", i, "name")))
    for claim in (("spec", "multiModelsClaim"), ("spec", "multiModelsClaims", 0)):
        names = value_at(data, (*claim, "modelNames"))
        if not found and isinstance(names, list):
            for i, name in enumerate(names[:2]):
                role = "main" if i == 0 else "draft"
                found.append((str(name), role, (*claim, "modelNames", i)))
    return found


def _config_path(data: dict) -> Path:
    """Where a Playground configures its backend: ``backendRuntimeConfig`` (llmaz 0.1 on), or
    ``backendConfig`` (0.0.x)."""
    if value_at(data, ("spec", "backendConfig")) is not None:
        return ("spec", "backendConfig")
    return ("spec", "backendRuntimeConfig")


def _backend_path(data: dict) -> Path:
    config = _config_path(data)
    # ``name`` before llmaz 0.1's ``backendName``
    if value_at(data, (*config, "name")) is not None:
        return (*config, "name")
    return (*config, "backendName")


def _backend(data: dict) -> str:
    return str(value_at(data, _backend_path(data)) or "vllm")


def tree_objects(text: str) -> dict[tuple[str, str], dict[str, str]]:
    """For the run's pre-pass (lint.shared_objects): the OpenModels and BackendRuntimes a file
    defines, by (kind, name), each as its object in JSON, and the runtimes its Playgrounds use."""
    from ..yamlsrc import load_documents

    found: dict[tuple[str, str], dict[str, str]] = {}
    documents, _ = load_documents(text)
    for document in documents:
        data = document.data
        if not detect(data) or not _name(data):
            continue
        if data["kind"] == PLAYGROUND:
            found[(USED_BY, _backend(data))] = {}
        else:
            found[(_TREE + data["kind"], _name(data))] = {"json": json.dumps(data, default=str)}
    return found


def read_elsewhere(data: Any) -> bool:
    """An OpenModel is read with the Playground that claims it (it runs nothing itself); a
    BackendRuntime with the Playgrounds of the run that use it."""
    if not isinstance(data, dict):
        return False
    if data.get("kind") in (OPEN_MODEL, OLD_MODEL):
        return True
    return data.get("kind") == RUNTIME and any(n == _name(data) for n, _ in tree_kind(USED_BY))


def elsewhere_note(data: dict) -> str:
    """What ``hbmlint formats`` says of a document read_elsewhere answers True for."""
    if data.get("kind") in (OPEN_MODEL, OLD_MODEL):
        return "a model, read with the Playground that claims it"
    return "a template, read with the Playground that uses it"


def _siblings(document: YamlDocument) -> list[YamlDocument]:
    from ..yamlsrc import load_documents

    documents = getattr(document, "siblings", None)
    if documents is None:
        documents, _ = load_documents(document.text)
    return [d for d in documents if detect(d.data)]


def _find(
    document: YamlDocument, kinds: tuple[str, ...], name: str, at: Span
) -> YamlDocument | None:
    """The object of one of ``kinds`` called ``name``: in the same file, else in another file
    of the run (placed at ``at``), else None."""
    for other in _siblings(document):
        if other.data.get("kind") in kinds and _name(other.data) == name:
            return other
    return object_elsewhere(kinds, name, at, _TREE)


def to_deployments(
    document: YamlDocument, path: Any, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    reader = Reader(document, display)
    kind = document.data.get("kind")
    name, where = document_name(document, reader, str(kind))
    if kind == PLAYGROUND:
        return _read_playground(reader, name, where), reader.findings
    if (
        kind == RUNTIME
        and not read_elsewhere(document.data)
        and not any(
            other.data.get("kind") == PLAYGROUND and _backend(other.data) == name
            for other in _siblings(document)
        )
    ):
        reader.findings.append(
            input_diagnostic(
                "HBM014",
                f"BackendRuntime '{name}' is a template: llmaz runs it for each Playground "
                "whose backendName names it, with that Playground's models and their GPUs; "
                "no Playground in the files linted uses it, so nothing in it was checked",
                display,
                where,
                name,
                ["Lint it together with a Playground that uses it (its file, or a folder)"],
            )
        )
    return [], reader.findings


def _not_checked(reader: Reader, name: str, span: Span, text: str, hint: str) -> list[Deployment]:
    reader.findings.append(input_diagnostic("HBM014", text, reader.display, span, name, [hint]))
    return []


def _model_token(model: YamlDocument, at: Span) -> Token | None:
    """What ``{{ .ModelPath }}`` becomes for an OpenModel: its Hub id (the engine reads the
    download of it, or the Hub itself with llmaz.io/skip-model-loader), or its URI's path."""
    # the Hub id, its URI, or (llmaz's first API, kind Model) dataSource.modelID
    for path in (
        ("spec", "source", "modelHub", "modelID"),
        ("spec", "source", "uri"),
        ("spec", "dataSource", "modelID"),
    ):
        value = value_at(model.data, path)
        if value is not None:
            return Token(str(value), model.span(path))
    return None


def _flavor(reader: Reader, model: YamlDocument, data: dict, name: str) -> GpuFacts:
    """The GPUs of the main model's flavor: the Playground's first inferenceFlavors name, else
    the model's first flavor (injectModelFlavor), its limits (``requests`` before llmaz 0.1,
    whose flavors were the model's ``inferenceFlavors``). A model with no flavor leaves the
    GPUs to the Playground's backend resources (_backend_gpus)."""
    flavors_path: Path = ("spec", "inferenceConfig", "flavors")
    if value_at(model.data, flavors_path) is None:
        flavors_path = ("spec", "inferenceFlavors")
    flavors = value_at(model.data, flavors_path)
    if not isinstance(flavors, list) or not flavors:
        return _backend_gpus(reader, data, name)
    wanted = None
    claims = ("modelClaim",), ("modelClaims",), ("multiModelsClaim",), ("multiModelsClaims", 0)
    for claim in claims:
        if wanted is None:
            wanted = value_at(data, ("spec", *claim, "inferenceFlavors", 0))
    index = 0
    if wanted is not None:
        named = [
            i for i, f in enumerate(flavors) if isinstance(f, dict) and f.get("name") == wanted
        ]
        if not named:
            return _backend_gpus(reader, data, name)  # no flavor of the model's applies
        index = named[0]
    flavor: Path = (*flavors_path, index)
    gpu = GpuFacts(labels=node_labels(model, (*flavor, "nodeSelector"), None))
    counted = Reader(model, reader.display)  # the flavor is in the model's document
    count, span = _gpu_count(counted, flavor, name)
    reader.findings.extend(counted.findings)
    if count is None:
        return _backend_gpus(reader, data, name, gpu)
    gpu.count, gpu.count_span = count, span
    return gpu


def _gpu_count(reader: Reader, owner: Path, name: str) -> tuple[int | None, Span | None]:
    """The GPUs ``owner``'s ``limits`` (else ``requests``) ask for, and where; a value that is
    not a count is a finding of ``reader``'s."""
    for section in ("limits", "requests"):
        asked = value_at(reader.document.data, (*owner, section))
        for resource in GPU_RESOURCES:
            if isinstance(asked, dict) and asked.get(resource) is not None:
                where = (*owner, section, resource)
                return reader.count(where, name), reader.document.span(where)
    return None, None


def _backend_gpus(reader: Reader, data: dict, name: str, gpu: GpuFacts | None = None) -> GpuFacts:
    """``gpu`` (or none) with the GPU count the Playground's backend resources ask for, which
    llmaz gives the container where no flavor of the model sets one."""
    gpu = gpu or GpuFacts()
    count, span = _gpu_count(reader, (*_config_path(data), "resources"), name)
    if count is not None:
        gpu.count, gpu.count_span = count, span
    return gpu


def _read_playground(reader: Reader, name: str, where: Span) -> list[Deployment]:
    document, data = reader.document, reader.document.data
    claims = _claims(data)
    if not claims:
        return []  # no model claimed: llmaz's webhook refuses the Playground
    models: dict[str, tuple[YamlDocument, Token]] = {}
    claimed: dict[str, Span] = {}  # where the Playground names each role's model
    for model_name, role, at_path in claims:
        if role in models or role not in ("main", "draft"):
            continue
        at = claimed[role] = document.span(at_path)
        model = _find(document, (OPEN_MODEL, OLD_MODEL), model_name, at)
        if model is None:
            return _not_checked(
                reader,
                name,
                at,
                f"the {role} model of this Playground is OpenModel '{model_name}', which is "
                "neither in this file nor in the others linted with it; nothing in it was "
                "checked",
                "Lint the OpenModel's file with this one, or put it in the same file (---)",
            )
        token = _model_token(model, at)
        if token is None:
            return _not_checked(
                reader,
                name,
                at,
                f"OpenModel '{model_name}' names its model neither by modelHub.modelID nor by "
                "uri; nothing in this Playground was checked",
                "Set spec.source.modelHub.modelID to the model's Hub id",
            )
        models[role] = (model, token)
    if "main" not in models:
        return []
    backend = _backend(data)
    backend_path = _backend_path(data)
    settings = _config_path(data)
    backend_span = document.span(backend_path) if value_at(data, backend_path) else where
    if backend in _NOT_BUDGETED:
        return _not_checked(
            reader,
            name,
            backend_span,
            f"backendName {backend} runs {_NOT_BUDGETED[backend]}, which hbmlint does not "
            "budget (vLLM, SGLang, TensorRT-LLM and TGI only); this Playground is not checked",
            "Serve it with backendName vllm or sglang to have its memory checked",
        )
    config_path: Path = (*settings, "configName")
    config = value_at(data, config_path)
    if config is None:
        config = "speculative-decoding" if "draft" in models else "default"
    runtime = _find(document, (RUNTIME,), backend, backend_span)
    version: Any = None
    version_span: Span | None = None
    if runtime is not None:
        argv, env, image = _runtime_words(runtime, str(config))
        version = value_at(runtime.data, ("spec", "version"))
        if version is not None:
            version_span = runtime.span(("spec", "version"))
    elif backend in BUILTIN_RUNTIMES:
        builtin = BUILTIN_RUNTIMES[backend]
        words = [*builtin["command"], *builtin["configs"].get(str(config), ())]
        argv = _placed(words, claimed) if str(config) in builtin["configs"] else []
        env, image = {}, builtin["image"]
    else:
        return _not_checked(
            reader,
            name,
            backend_span,
            f"backendName {backend} names a BackendRuntime that is neither in this file nor in "
            "the others linted with it, nor one llmaz's chart installs; nothing in this "
            "Playground was checked",
            "Lint the BackendRuntime's file with this one",
        )
    if not argv:
        return _not_checked(
            reader,
            name,
            document.span(config_path) if value_at(data, config_path) else backend_span,
            f"BackendRuntime '{backend}' has no recommended config '{config}' with a command "
            "line hbmlint can read; nothing in this Playground was checked",
            "Name one of the runtime's recommendedConfigs in backendRuntimeConfig.configName",
        )
    filled = {
        "ModelPath": models["main"][1],
        "ModelName": Token(_name(models["main"][0].data), models["main"][1].span),
    }
    if "draft" in models:
        filled["DraftModelPath"] = models["draft"][1]
    argv = [_filled(token, filled) for token in argv]
    extra: Path = (*settings, "args")
    args = value_at(data, extra)
    for i, value in enumerate(args if isinstance(args, list) else []):
        argv.append(Token(str(value), document.span((*extra, i))))
    env.update(env_list(document, (*settings, "envs")))
    # the Playground's version replaces the runtime's (the image's tag)
    version_path: Path = (*settings, "version")
    if value_at(data, version_path) is not None:
        version, version_span = value_at(data, version_path), document.span(version_path)
    tag = f"{image}:{version}" if image and version is not None else None
    command = read_invocation(argv, env, document.text, tag or image, version_span)
    if command is None:
        return _not_checked(
            reader,
            name,
            backend_span,
            f"BackendRuntime '{backend}' runs no engine command hbmlint reads; this Playground "
            "is not checked",
            "Give the runtime a command that starts vLLM, SGLang, TensorRT-LLM or TGI",
        )
    gpu = _flavor(reader, models["main"][0], data, name)
    found = reader.build(command, name, gpu, where, tag, version_span)
    for deployment in found:
        if runtime is None:
            deployment.assumed["runtime"] = (
                f"BackendRuntime '{backend}' as llmaz's chart installs it (recommended config "
                f"'{config}'), the cluster's object not being in the files linted; lint it with "
                "this file where the cluster's differs"
            )
        if deployment.engine_version is None and tag is None:
            deployment.assumed["engine_version"] = (
                f"the newest {command.engine}: the Playground sets no {settings[-1]}.version, "
                f"so llmaz runs the image its BackendRuntime '{backend}' names (the chart's "
                "backendRuntime values), which this file cannot tell; set "
                f"{settings[-1]}.version to check that release"
            )
    return found


# the words of the chart's speculative-decoding config that are about the draft
_DRAFT_WORDS = ("--speculative_model", "{{ .DraftModelPath }}", "--num_speculative_tokens")


def _placed(words: list[str], claimed: dict[str, Span]) -> list[Token]:
    """The words of a runtime of the chart (in no file), each placed where the Playground
    names the model it is about: the draft's at the draft's claim, the others at the main's."""
    main = claimed["main"]
    draft = claimed.get("draft", main)
    placed = []
    for i, word in enumerate(words):
        about_draft = word in _DRAFT_WORDS or (i > 0 and words[i - 1] == "--num_speculative_tokens")
        placed.append(Token(word, draft if about_draft else main))
    return placed


def _runtime_words(
    runtime: YamlDocument, config: str
) -> tuple[list[Token], dict[str, Token], str | None]:
    """A BackendRuntime's command and the recommended config ``config``'s arguments (none where
    it has no such config), its envs and its image (without the tag its version gives)."""
    data = runtime.data
    configs = value_at(data, ("spec", "recommendedConfigs"))
    chosen = next(
        (
            i
            for i, c in enumerate(configs if isinstance(configs, list) else [])
            if isinstance(c, dict) and c.get("name") == config
        ),
        None,
    )
    if chosen is None:
        return [], {}, None
    argv = []
    for key in (("spec", "command"), ("spec", "recommendedConfigs", chosen, "args")):
        words = value_at(data, key)
        for i, word in enumerate(words if isinstance(words, list) else []):
            argv.append(Token(str(word), runtime.span((*key, i))))
    image = value_at(data, ("spec", "image"))
    return argv, env_list(runtime, ("spec", "envs")), None if image is None else str(image)


def _filled(token: Token, filled: dict[str, Token]) -> Token:
    """``token`` with llmaz's ``{{ .Field }}`` filled in; a word that is one field whole is the
    value's own token (a finding on the model points at the OpenModel's id)."""
    if "{{" not in token.text:
        return token
    if "{{`" in token.text:
        token = Token(_HELM_RAW.sub(r"\1", token.text), token.span)
    whole = _FIELD.fullmatch(token.text.strip())
    if whole and whole.group(1) in filled:
        return filled[whole.group(1)]
    text = _FIELD.sub(
        lambda m: filled[m.group(1)].text if m.group(1) in filled else m.group(0), token.text
    )
    return Token(text, token.span)
