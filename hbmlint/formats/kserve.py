"""KServe: ``InferenceService`` with the Hugging Face runtime (vLLM backend) and
``LLMInferenceService`` (llm-d), both ``serving.kserve.io``.

Neither holds an engine command line of its own: KServe's controller writes one. So each is turned
into the vLLM argv the controller would run, every word located at the field it comes from, and
read with the engine's own parser (engines.vllm, engines.sglang) and build.py:

- InferenceService with ``modelFormat: vLLM`` (OpenShift AI / Open Data Hub): the engine
  command is in the ``ServingRuntime`` / ``ClusterServingRuntime`` it names (``runtime``, else
  the one that auto-selects vLLM), read when it is in the same file: the runtime's container
  (command, args, env, resources) with the model's ``args`` appended, its ``env`` and
  ``resources`` winning, as KServe merges them; ``/mnt/models`` is the ``storageUri``, and
  ``{{.Name}}`` the service's name. A runtime in another file of the run is read too (lint's
  pre-pass collects them), its values placed at the service's ``runtime:``. A runtime is a
  template: read with each service that uses it, and alone (no service of the run uses it)
  an info, never a deployment.
- InferenceService: ``spec.predictor.model`` (``modelFormat: huggingface``) or
  ``spec.predictor.huggingface``: ``storageUri`` (``hf://``) then ``args``, where KServe's
  ``--model_id`` is vLLM's ``--model`` and vLLM's own flags pass through; multi-node
  ``workerSpec.tensorParallelSize`` / ``pipelineParallelSize``. A custom predictor
  (``spec.predictor.containers`` running an engine) is read as a Kubernetes container.
- LLMInferenceService: ``spec.model.uri``, ``spec.parallelism``, ``spec.speculativeDecoding``
  (camelCase, with ``additionalConfig``) or ``spec.speculator`` (``config`` with vLLM's keys),
  the ``main`` container's ``args`` and its ``VLLM_ADDITIONAL_ARGS`` env string, and a
  ``spec.prefill`` pool as a second deployment. ``spec.runtime`` naming SGLang selects SGLang.

GPUs come from the container's resources and the pod's nodeSelector / node affinity, as for
Kubernetes workloads (kubernetes.py).
"""

from __future__ import annotations

import json
import os
from types import ModuleType
from typing import Any

from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import image_engine, image_version, read_invocation, sglang, vllm
from ..engines.args import Token, normalise, placeholder
from ..engines.shell import Locator, expand_k8s, shell_script, split_words
from ..spec import Deployment
from ..yamlsrc import Span, YamlDocument
from .build import GpuFacts, build, notes_as_findings
from .embedded_pods import engine_containers
from .kubernetes import document_name
from .llmisvc_presets import named_by_a_service, with_presets
from .llmisvc_presets import tree_objects as preset_objects
from .podspec import (
    Elsewhere,
    Path,
    Reader,
    container_argv,
    container_command,
    container_env,
    image_gpu_labels,
    metadata_labels,
    node_labels,
    runs_engine,
    tree_kind,
    value_at,
)

NAME = "kserve"
GROUP = "serving.kserve.io/"
ADDITIONAL_ARGS = "VLLM_ADDITIONAL_ARGS"
MODEL_MOUNT = "/mnt/models"
RUNTIME_KINDS = ("ServingRuntime", "ClusterServingRuntime")
# KServe's LLMInferenceService presets (config/llmisvcconfig): pod templates with Go template
# actions ({{ .Spec.Parallelism.Tensor }}) that the controller fills in and merges into each
# LLMInferenceService that refers to them (spec.baseRefs, or the well-known defaults)
CONFIG_KIND = "LLMInferenceServiceConfig"
# tree_objects' key for "an InferenceService of the run uses this runtime" ("" : auto-selected)
USED_BY = "InferenceService runtime"
# tree_objects' key for "a runtime of this name somewhere in the run runs no engine"
NO_ENGINE = "ServingRuntime without an engine"
_AFFINITY = ("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")

# Deployment-side flags per engine: the names each parser reads for what KServe's fields set.
_ENGINE_FLAGS = {
    "vllm": {
        "model": "--model",
        "tensor": "--tensor-parallel-size",
        "pipeline": "--pipeline-parallel-size",
        "data": "--data-parallel-size",
        "expert": "--enable-expert-parallel",
    },
    "sglang": {
        "model": "--model-path",
        "tensor": "--tp-size",
        "pipeline": "--pp-size",
        "data": "--dp-size",
    },
}
# speculativeDecoding's camelCase fields -> vLLM --speculative-config keys
_SPEC_FIELDS = (
    (("method",), "method"),
    (("numSpeculativeTokens",), "num_speculative_tokens"),
    (("speculator", "model", "uri"), "model"),
    (("speculator", "tensorParallelSize"), "draft_tensor_parallel_size"),
    (("speculator", "maxModelLen"), "max_model_len"),
)


def _is_huggingface(predictor: dict) -> Path | None:
    """The path (below ``spec.predictor``) of a Hugging Face runtime model, if there is one."""
    if isinstance(predictor.get("huggingface"), dict):
        return ("huggingface",)
    model = predictor.get("model")
    if not isinstance(model, dict):
        return None
    fmt = model.get("modelFormat")
    name = fmt.get("name") if isinstance(fmt, dict) else fmt
    runtime = str(model.get("runtime") or "")
    if str(name).lower() == "huggingface" or "huggingface" in runtime.lower():
        return ("model",)
    return None


def _custom_containers(data: dict) -> list[int]:
    items = value_at(data, ("spec", "predictor", "containers"))
    return [
        i
        for i, c in enumerate(items if isinstance(items, list) else [])
        if isinstance(c, dict) and runs_engine(c)
    ]


def _is_runtime_model(predictor: dict) -> bool:
    """A ``predictor.model`` served by a vLLM ServingRuntime (``modelFormat: vLLM``, or a
    ``runtime`` whose name says vLLM)."""
    model = predictor.get("model")
    if not isinstance(model, dict):
        return False
    fmt = model.get("modelFormat")
    name = fmt.get("name") if isinstance(fmt, dict) else fmt
    return str(name).lower() == "vllm" or "vllm" in str(model.get("runtime") or "").lower()


def _served_by_runtime(document: YamlDocument, predictor: dict) -> bool:
    """Whether a ``predictor.model`` runs in a ServingRuntime's container: ``modelFormat:
    vLLM``, or a ``runtime`` named for vLLM, or any ``runtime`` it names that this file or
    another of the run defines with a container running an engine. KServe runs the runtime a
    service names whatever its format (the runtime only has to list it), so ``modelFormat:
    huggingface`` on a runtime of the user's own is that runtime's command, not KServe's
    Hugging Face server (robertgshaw2-neuralmagic/vllm-k8s vllm-kserve-simple/nm-vllm.yml: the
    model is in the runtime's ``--model``), and ``modelFormat: pytorch`` on a vLLM runtime is
    vLLM (alpha-hack-program/doc-bot vllm_runtime/vllm-mistral-7b-instance.yaml)."""
    if _is_huggingface(predictor) is None and _is_runtime_model(predictor):
        return True
    wanted = _runtime_named(predictor)
    if not wanted:
        return False  # KServe picks the runtime (for huggingface: its own server)
    # the runtime of this file, else the run's (several files may each define one of that
    # name, for separate examples: only where every one of them runs an engine)
    named = [r for r in _runtimes(document) if _runtime_name(r.data) == wanted]
    if named:
        return all(_runs_engine(runtime.data) for runtime in named)
    if any(name == wanted for name, _ in tree_kind(NO_ENGINE)):
        return False
    named = _runtimes_elsewhere(wanted, document.key_span(("spec",)))
    return bool(named) and all(_runs_engine(runtime.data) for runtime in named)


def _runtime_named(predictor: dict) -> str:
    """The runtime ``predictor.model.runtime`` names ("" for none)."""
    model = predictor.get("model")
    wanted = model.get("runtime") if isinstance(model, dict) else None
    return str(wanted) if isinstance(wanted, str) and wanted else ""


def _runs_engine(runtime: dict) -> bool:
    cpath = _kserve_container(runtime)
    return cpath is not None and runs_engine(value_at(runtime, cpath))


def detect(data: Any) -> bool:
    if not isinstance(data, dict) or not str(data.get("apiVersion", "")).startswith(GROUP):
        return False
    spec = data.get("spec")
    if not isinstance(spec, dict):
        return False
    if data.get("kind") in ("LLMInferenceService", CONFIG_KIND, *RUNTIME_KINDS):
        return True
    predictor = spec.get("predictor")
    if data.get("kind") != "InferenceService" or not isinstance(predictor, dict):
        return False
    return (
        _is_huggingface(predictor) is not None
        or _is_runtime_model(predictor)
        or bool(_runtime_named(predictor))  # read when that runtime runs an engine
        or bool(_custom_containers(data))
    )


def to_deployments(
    document: YamlDocument, path: Any, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    data = document.data
    reader = Reader(document, display)
    name, where = document_name(document, reader, "InferenceService")
    blank = _blank_model(document, path, display, name)
    if blank is not None:
        return [], [blank]
    if data.get("kind") == "LLMInferenceService":
        deployments = _llm_inference_service(reader, name, where)
    elif data.get("kind") in RUNTIME_KINDS:
        deployments = _runtime_alone(reader, name, where)
    elif data.get("kind") == CONFIG_KIND:
        deployments = _config_alone(reader, name, where)
    elif (nim := _nim_runtime(reader, name)) is not None:
        deployments = nim
    elif _served_by_runtime(document, value_at(data, ("spec", "predictor"))):
        deployments = _with_runtime(reader, name, where)
    else:
        deployments = _inference_service(reader, name, where)
    # a prefill pool runs the service's own container: its flags' findings are reported once
    unique = {(f.code, f.span, f.message): f for f in reversed(reader.findings)}
    return deployments, list(reversed(unique.values()))


def _blank_model(document: YamlDocument, path: Any, display: str, name: str) -> Diagnostic | None:
    """A model URI written as '' (an LLMInferenceService's spec.model.uri with no name, an
    InferenceService's storageUri): in a kustomize base a blank the overlays fill in (an info);
    anywhere else a service with no model to load (an error that says so)."""
    data = document.data
    if data.get("kind") == "LLMInferenceService":
        field: Path = ("spec", "model", "uri")
        if value_at(data, ("spec", "model", "name")):
            return None  # the name is the model (_model_tokens)
    elif data.get("kind") == "InferenceService":
        field = ("spec", "predictor", "model", "storageUri")
    else:
        return None
    if value_at(data, field) != "":
        return None
    shown = ".".join(field)
    from .kustomize import listed_by

    listed = listed_by(path) if path else None
    if listed is None:
        return input_diagnostic(
            "HBM003",
            f"{shown} is empty: KServe has no model to download and the engine none to load; "
            "set it (hf://ORG/NAME)",
            display,
            document.span(field),
            name,
        )
    kustomization, span, _ = listed
    where = f"{os.path.join(os.path.dirname(display), kustomization.name)}:{span.line}"
    return input_diagnostic(
        "HBM014",
        f"{shown} is left blank (''): this file is part of a kustomize base ({where} lists "
        "it), whose overlays fill the model in; nothing in it was checked alone",
        display,
        document.span(field),
        name,
        fixes=[
            "Lint what an overlay builds: `kubectl kustomize OVERLAY_DIR | hbmlint -` "
            "(or `kustomize build OVERLAY_DIR | hbmlint -`)"
        ],
    )


# ----------------------------------------------------------------------------- helpers


def _tokens(document: YamlDocument, path: Path, flag: str, value: Any = None) -> list[Token]:
    """``flag value`` as two words, both placed at the field ``path`` they come from."""
    span = document.span(path)
    if value is None:
        value = value_at(document.data, path)
    if isinstance(value, (dict, list)):
        value = json.dumps(value, default=str)  # a date YAML read: its text
    elif isinstance(value, bool):
        value = str(value).lower()
    return [Token(flag, span), Token(str(value), span)]


def _gpu(reader: Reader, pod_path: Path, cpath: Path, name: str) -> GpuFacts:
    labels = node_labels(
        reader.document, (*pod_path, "nodeSelector"), (*pod_path, *_AFFINITY, "nodeSelectorTerms")
    )
    labels += image_gpu_labels(reader.document, cpath)
    count, count_span = reader.container_gpus(cpath, name)
    return GpuFacts(count=count, count_span=count_span, labels=labels)


def _build(
    reader: Reader,
    command: Any,
    name: str,
    gpu: GpuFacts,
    where: Span,
    image: Any = None,
    image_path: Path = (),
    no_model: str | None = None,
) -> list[Deployment]:
    """The Deployment of ``command``; ``no_model`` says how to name the model in this format,
    where the engine's own advice (``vllm serve MODEL``) would not fit."""
    if command is None:
        return []
    if no_model and not command.values.get("model.name") and not command.model_unreadable:
        reader.findings.extend(notes_as_findings(command, reader.display, name))
        reader.findings.append(
            input_diagnostic("HBM003", no_model, reader.display, command.span, name)
        )
        return []
    model = command.values.get("model.name")
    if isinstance(model, str) and placeholder(model):
        reader.render_first(model, command.locations["model.name"], name)
        return []
    version = image_version(image)
    deployment, findings = build(
        command,
        name=name,
        display=reader.display,
        document=reader.document.index,
        gpu=gpu,
        where=where,
        engine_version=(version, reader.document.span(image_path)) if version else None,
        # the service's own labels and annotations (hbmlint.io/model names a local model)
        hints=metadata_labels(reader.document, ("metadata",)),
        image=image,
    )
    reader.findings.extend(findings)
    return [deployment] if deployment is not None else []


def _env_text(env: dict[str, Token]) -> dict[str, str]:
    return {key: token.text for key, token in env.items() if token.readable}


# ----------------------------------------------------------------------- InferenceService


def _inference_service(reader: Reader, name: str, where: Span) -> list[Deployment]:
    document, data = reader.document, reader.document.data
    pod_path: Path = ("spec", "predictor")
    predictor = value_at(data, pod_path)
    found: list[Deployment] = []
    custom = _custom_containers(data)
    for index in custom:  # a custom predictor: a pod spec whose containers run the engine
        cpath = (*pod_path, "containers", index)
        container = value_at(data, cpath)
        shown = name if len(custom) == 1 else f"{name}/{container.get('name', index)}"
        command = container_command(document, cpath, container_env(document, cpath))
        gpu = _gpu(reader, pod_path, cpath, shown)
        found += _build(
            reader, command, shown, gpu, where, container.get("image"), (*cpath, "image")
        )
    hf = _is_huggingface(predictor)
    if hf is None:
        return found
    mpath = (*pod_path, *hf)
    env = container_env(document, mpath)
    argv: list[Token] = []
    uri = value_at(data, (*mpath, "storageUri"))
    if uri is not None:  # KServe downloads it; an hf:// URI names the model
        argv += _tokens(document, (*mpath, "storageUri"), "--model")
    args = value_at(data, (*mpath, "args"))
    for i, value in enumerate(args if isinstance(args, list) else []):
        token = expand_k8s(Token(str(value), document.span((*mpath, "args", i))), _env_text(env))
        flag, eq, rest = token.text.partition("=")
        if normalise(flag) == "--model-id":  # KServe's name for the model vLLM loads
            token = Token("--model" + eq + rest, token.span, token.unresolved)
        argv.append(token)
    backend = _backend(argv)
    if backend is not None and backend.text.strip().lower() not in ("vllm", "auto"):
        reader.findings.append(
            input_diagnostic(
                "HBM011",
                f"--backend={backend.text}: the Hugging Face backend is not an engine hbmlint "
                "budgets (only vLLM); this deployment is not checked",
                reader.display,
                backend.span,
                name,
            )
        )
        return found
    worker = (*pod_path, "workerSpec")
    pipeline = value_at(data, (*worker, "pipelineParallelSize"))
    # multi-node: KServe sets the engine's parallelism from workerSpec, after the user's args
    for key, flag in (
        ("tensorParallelSize", "--tensor-parallel-size"),
        ("pipelineParallelSize", "--pipeline-parallel-size"),
    ):
        if value_at(data, (*worker, key)) is not None:
            argv += _tokens(document, (*worker, key), flag)
    command = vllm.parse(argv, document.span(mpath), env)
    gpu = _gpu(reader, pod_path, mpath, name)
    nodes = command.values.get("parallel.pipeline") if pipeline is not None else None
    if gpu.count and isinstance(nodes, int) and nodes > 1:
        gpu.count *= nodes  # head + workers, one pipeline stage each, with these GPUs each
    image = value_at(data, (*mpath, "image"))
    runtime = value_at(data, (*mpath, "runtime"))
    if (
        uri is None
        and "model.name" not in command.values
        and not command.model_unreadable
        and isinstance(runtime, str)
        and not runtime.startswith("kserve-huggingfaceserver")
    ):
        # the service runs a runtime of the cluster's (agud97/k8s-vllm: --model=/mnt/models from
        # a PVC), whose own command names the model: not KServe's Hugging Face server, which
        # needs storageUri or --model_id
        reader.findings.append(
            input_diagnostic(
                "HBM014",
                f"the InferenceService runs the runtime '{runtime}', which is not in the files "
                "linted: its command names the model and the engine's settings, so nothing "
                "here was checked",
                reader.display,
                document.span((*mpath, "runtime")),
                name,
                ["Lint it together with the ServingRuntime it names (its file, or a folder)"],
            )
        )
        return found
    no_model = "the InferenceService names no model; set storageUri (hf://ORG/NAME) or --model_id"
    return found + _build(
        reader, command, name, gpu, where, image, (*mpath, "image"), no_model=no_model
    )


def _backend(argv: list[Token]) -> Token | None:
    for i, token in enumerate(argv):
        flag, eq, rest = token.text.partition("=")
        if normalise(flag) == "--backend":
            if eq:
                return Token(rest, token.span)
            return argv[i + 1] if i + 1 < len(argv) else None
    return None


# -------------------------------------------------------------------- LLMInferenceService


def _llm_inference_service(reader: Reader, name: str, where: Span) -> list[Deployment]:
    # the presets its spec.baseRefs name, merged under it as KServe does (llmisvc_presets.py)
    document, findings, missing = with_presets(reader.document, reader.display, name)
    reader.findings += findings
    held, reader = reader.findings, Reader(document, reader.display)
    reader.findings = held  # the same list: to_deployments reports what this reader adds
    data = document.data
    runtime = str(value_at(data, ("spec", "runtime")) or "")
    engine: ModuleType = sglang if "sglang" in runtime.lower() else vllm
    if value_at(data, ("spec", "model")) is None and missing:
        return []  # the model is in a preset the run does not hold: the warning says so
    found = _llm_workload(reader, engine, ("spec",), name, where)
    if isinstance(value_at(data, ("spec", "prefill")), dict):
        found += _llm_workload(reader, engine, ("spec", "prefill"), f"{name}/prefill", where)
    if missing:
        # what the missing presets set was left at KServe's default template: a refusal the
        # budget predicts is not a promise (lint.py makes such an error a warning)
        for deployment in found:
            deployment.unread["spec.baseRefs"] = document.key_span(("spec", "baseRefs"))
    return found


def _main_container(data: dict, template: Path) -> Path | None:
    items = value_at(data, (*template, "containers"))
    items = items if isinstance(items, list) else []
    for i, container in enumerate(items):
        if isinstance(container, dict) and container.get("name") == "main":
            return (*template, "containers", i)
    return (*template, "containers", 0) if items and isinstance(items[0], dict) else None


def _model_tokens(document: YamlDocument, flag: str) -> list[Token]:
    """``spec.model``: an ``hf://`` URI names the model; otherwise (``oci://``, ``pvc://``) the
    model's ``name`` usually does, and the URI itself is the last resort."""
    uri = value_at(document.data, ("spec", "model", "uri"))
    model_name = value_at(document.data, ("spec", "model", "name"))
    if isinstance(uri, str) and (uri.startswith("hf://") or not model_name):
        return _tokens(document, ("spec", "model", "uri"), flag)
    if model_name is not None:
        return _tokens(document, ("spec", "model", "name"), flag)
    return []


def _mount_as_model(token: Token, model: list[Token]) -> Token:
    """KServe puts ``spec.model`` at /mnt/models in the main container (its presets run
    ``vllm serve /mnt/models``), so a main container's ``--model=/mnt/models`` of its own is
    that model, at its line (adnan-drina/rhoai3-nvidia-demo's LLMInferenceServices)."""
    if len(model) != 2:
        return token
    head, eq, value = token.text.rpartition("=")
    if not eq:
        head, value = "", token.text
    if value.rstrip("/") != MODEL_MOUNT:
        return token
    return Token(head + eq + model[1].text, model[1].span)


def _speculative_tokens(reader: Reader, engine: ModuleType, name: str) -> list[Token]:
    """``spec.speculativeDecoding`` / ``spec.speculator`` as dotted ``--speculative-config.KEY``
    words (what the controller injects as JSON), so each key keeps its own line."""
    document, data = reader.document, reader.document.data
    fields: list[tuple[Path, str]] = []
    if isinstance(value_at(data, ("spec", "speculativeDecoding")), dict):
        base: Path = ("spec", "speculativeDecoding")
        fields = [((*base, *p), key) for p, key in _SPEC_FIELDS]
        extra = value_at(data, (*base, "additionalConfig"))  # runtime keys; its method refines
        for key in extra if isinstance(extra, dict) else {}:
            fields.append(((*base, "additionalConfig", key), str(key)))
    elif isinstance(value_at(data, ("spec", "speculator")), dict):
        base = ("spec", "speculator")
        fields = [((*base, "model", "uri"), "model")]
        config = value_at(data, (*base, "config"))
        for key in config if isinstance(config, dict) else {}:
            fields.append(((*base, "config", key), str(key)))
    fields = [(p, key) for p, key in fields if value_at(data, p) is not None]
    if not fields:
        return []
    if engine is not vllm:
        reader.findings.append(
            input_diagnostic(
                "HBM011",
                f"{base[-1]} is applied by KServe to vLLM only; it is not read for the SGLang "
                "runtime, and the drafter is left out of the budget",
                reader.display,
                document.span(base),
                name,
            )
        )
        return []
    tokens: list[Token] = []
    for p, key in fields:
        tokens += _tokens(document, p, f"--speculative-config.{key}")
    return tokens


def _container_args(reader: Reader, engine: ModuleType, cpath: Path) -> list[Token]:
    """The main container's own flags: ``args`` (passed to the runtime's command), or what
    follows the engine launcher where the container sets its own ``command``."""
    document = reader.document
    env = _env_text(container_env(document, cpath))
    container = value_at(document.data, cpath)
    argv = [expand_k8s(t, env) for t in container_argv(document, cpath)]
    if "command" not in container:
        if len(argv) != 1 or len(argv[0].text.split()) < 2:
            return argv
        argv = _launch_line_as_args(reader, engine, argv[0], env)
    else:
        script = shell_script(argv)
        if script is not None:  # `sh -c "vllm serve /mnt/models ..."` (KServe's presets)
            word, words_env = script[0], {**env, ADDITIONAL_ARGS: ""}  # appended below
            argv = split_words(word.text, words_env, Locator(document.text, word.span), word.span)
        start = engine.find(argv)
        argv = argv[start:] if start is not None else []
    if argv and argv[0].text.startswith(MODEL_MOUNT):
        argv = argv[1:]  # where KServe mounts spec.model.uri: the model read above
    return argv


def _launch_line_as_args(
    reader: Reader, engine: ModuleType, word: Token, env: dict[str, str]
) -> list[Token]:
    """``args`` of one word that is a whole launch line (``python3 -m vllm.entrypoints...
    --model=/mnt/models ...``, johnahull/llm-d-xks-gke llmisvc-*.yaml) under KServe's own
    command: the controller runs ``vllm serve /mnt/models`` with the args after it
    (kserve-config-llm-template; a ``bash -c`` script that ends in ``vllm serve /mnt/models
    ... $@`` since 2026-05), so vLLM gets the launcher's words as arguments it does not know.
    A warning, as HBM013 for a repeated entrypoint; the line's flags are read as meant."""
    words = split_words(word.text, env, Locator(reader.document.text, word.span), word.span)
    start = engine.find(words)
    if start is None:
        return [word]
    launcher = " ".join(t.text for t in words[:start])
    reader.findings.append(
        input_diagnostic(
            "HBM013",
            f"the main container's args are one word holding a whole launch line ('{launcher} "
            "...') and the container sets no command: KServe runs its own `vllm serve "
            "/mnt/models` with the args after it, so vLLM most likely rejects these words as "
            "arguments it does not know; hbmlint reads the flags after the launcher",
            reader.display,
            word.span,
            fixes=[
                "Give the flags one per item of args (without the launcher), or set "
                "`command: [/bin/bash, -c]` to run the line yourself"
            ],
        )
    )
    return words[start:]


def _additional_args(reader: Reader, cpath: Path) -> list[Token]:
    document = reader.document
    env = container_env(document, cpath)
    if ADDITIONAL_ARGS not in env:
        return []
    token = env[ADDITIONAL_ARGS]
    others = _env_text({k: v for k, v in env.items() if k != ADDITIONAL_ARGS})
    return split_words(token.text, others, Locator(document.text, token.span), token.span)


def _llm_workload(
    reader: Reader, engine: ModuleType, base: Path, name: str, where: Span
) -> list[Deployment]:
    """One pool (the service itself, or its ``prefill``): its template, parallelism, worker."""
    document, data = reader.document, reader.document.data
    flags = _ENGINE_FLAGS[engine.NAME]
    template = (*base, "template")
    if not isinstance(value_at(data, template), dict):
        template = ("spec", "template")  # a pool without its own template runs the service's
    cpath = _main_container(data, template)
    model = _model_tokens(document, flags["model"])
    argv = list(model)
    parallelism = (*base, "parallelism")
    for key in ("tensor", "pipeline", "data"):
        if value_at(data, (*parallelism, key)) is not None:
            argv += _tokens(document, (*parallelism, key), flags[key])
    if value_at(data, (*parallelism, "expert")) is True and "expert" in flags:
        argv.append(Token(flags["expert"], document.span((*parallelism, "expert"))))
    argv += _speculative_tokens(reader, engine, name)
    env: dict[str, Token] = {}
    if cpath is not None:
        env = container_env(document, cpath)
        argv += [_mount_as_model(t, model) for t in _container_args(reader, engine, cpath)]
        if engine is vllm:
            argv += _additional_args(reader, cpath)  # the runtime appends it to `vllm serve`
    model_path = ("spec", "model") if value_at(data, ("spec", "model")) is not None else ("spec",)
    command = engine.parse(argv, document.key_span(model_path), env)
    if cpath is not None and reader.other_accelerator(cpath, name):
        return []  # a TPU pool (google.com/tpu): said why, not budgeted
    gpu = GpuFacts()
    if cpath is not None:
        gpu = _gpu(reader, template, cpath, name)
    worker = (*base, "worker")
    if gpu.count and isinstance(value_at(data, worker), dict):
        # A worker pool makes one instance span pods; KServe sizes it from the parallelism, so
        # the pods are the GPUs the parallelism needs over the GPUs of one pod.
        v = command.values
        wanted = (v.get("parallel.tensor") or 1) * (v.get("parallel.pipeline") or 1)
        wanted *= v.get("parallel.data") or 1
        if wanted > gpu.count and wanted % gpu.count == 0:
            gpu.count = wanted
    image = value_at(data, (*cpath, "image")) if cpath else None
    no_model = "the LLMInferenceService names no model; set spec.model.uri (hf://ORG/NAME)"
    image_path = (*cpath, "image") if cpath else ()
    return _build(reader, command, name, gpu, where, image, image_path, no_model=no_model)


# ------------------------------------------------------- InferenceService + ServingRuntime


def _runtimes(document: YamlDocument) -> list[YamlDocument]:
    """The ServingRuntime / ClusterServingRuntime documents of the same file (of the same
    kustomize build, for an object an overlay builds: formats/kustomize.py)."""
    from ..yamlsrc import load_documents

    documents = getattr(document, "siblings", None)
    if documents is None:
        if "ServingRuntime" not in document.text:
            return []
        documents, _ = load_documents(document.text)
    return [
        d
        for d in documents
        if isinstance(d.data, dict)
        and d.data.get("kind") in RUNTIME_KINDS
        and str(d.data.get("apiVersion", "")).startswith(GROUP)
    ]


def _runtime_name(data: dict) -> str:
    metadata = data.get("metadata")
    return str(metadata.get("name")) if isinstance(metadata, dict) else ""


def _auto_selects_vllm(data: dict) -> bool:
    formats = value_at(data, ("spec", "supportedModelFormats"))
    return any(
        isinstance(f, dict) and str(f.get("name")).lower() == "vllm" and f.get("autoSelect")
        for f in (formats if isinstance(formats, list) else [])
    )


def _runtimes_named(text: str) -> set[str]:
    """The runtimes the InferenceServices of a file name ("" for one KServe picks itself)."""
    from ..yamlsrc import load_documents

    documents, _ = load_documents(text)
    named: set[str] = set()
    for other in documents:
        data = other.data
        if not isinstance(data, dict) or data.get("kind") != "InferenceService":
            continue
        model = value_at(data, ("spec", "predictor", "model"))
        if isinstance(model, dict) and (
            _is_runtime_model({"model": model}) or _runtime_named({"model": model})
        ):
            named.add(str(model.get("runtime") or ""))
    return named


def _services_using(document: YamlDocument, runtime: dict) -> bool:
    """Whether an InferenceService in the same file, or in another file of the run, is served
    by ``runtime``."""
    named = _runtimes_named(document.text) | {n for n, _ in tree_kind(USED_BY)}
    return _runtime_name(runtime) in named or ("" in named and _auto_selects_vllm(runtime))


def read_elsewhere(data: Any) -> bool:
    """Whether this document is a runtime an InferenceService of the run uses: it is checked
    with that service (in whichever file), so its own file may say nothing."""
    if isinstance(data, dict) and data.get("kind") == CONFIG_KIND:
        return named_by_a_service(data)
    if not isinstance(data, dict) or data.get("kind") not in RUNTIME_KINDS:
        return False
    used = {name for name, _ in tree_kind(USED_BY)}
    return _runtime_name(data) in used or ("" in used and _auto_selects_vllm(data))


def tree_objects(text: str) -> dict[tuple[str, str], dict[str, str]]:
    """For the run's pre-pass (lint.shared_objects): the serving runtimes a file defines, by
    (kind, name), each as its object in JSON, and the runtimes its InferenceServices use."""
    from ..yamlsrc import load_documents

    found: dict[tuple[str, str], dict[str, str]] = {}
    documents, _ = load_documents(text)
    for other in documents:
        data = other.data
        if (
            isinstance(data, dict)
            and data.get("kind") in RUNTIME_KINDS
            and str(data.get("apiVersion", "")).startswith(GROUP)
            and _runtime_name(data)
        ):
            # default=str: a date YAML read (version: 2024-05-01) is kept as its text
            found[(str(data["kind"]), _runtime_name(data))] = {
                "json": json.dumps(data, default=str)
            }
            if not _runs_engine(data):
                found[(NO_ENGINE, _runtime_name(data))] = {}
    for name in _runtimes_named(text):
        found[(USED_BY, name)] = {}
    found.update(preset_objects(documents))
    return found


def _runtimes_elsewhere(wanted: str | None, at: Span) -> list[YamlDocument]:
    """The runtime ``wanted`` (else those that auto-select vLLM) from the other files."""
    found: list[YamlDocument] = []
    for kind in RUNTIME_KINDS:  # KServe looks in the namespace first, then the cluster's
        for name, values in tree_kind(kind):
            if wanted is not None and name != wanted:
                continue
            try:
                data = json.loads(values.get("json", ""))
            except ValueError:
                continue
            if wanted is not None or _auto_selects_vllm(data):
                found.append(Elsewhere(data, at))
    return found


def _runtime_alone(reader: Reader, name: str, where: Span) -> list[Deployment]:
    """A runtime is a template KServe fills in for each InferenceService that uses it; alone
    it names no model and no GPUs, so it is not budgeted. An info says how to check it."""
    data = reader.document.data
    if _services_using(reader.document, data):
        return []  # read with that InferenceService
    items = value_at(data, ("spec", "containers"))
    if not any(isinstance(c, dict) and runs_engine(c) for c in items or ()):
        return []
    reader.findings.append(
        input_diagnostic(
            "HBM014",
            f"{data.get('kind')} '{name}' is a template: KServe runs it for each InferenceService "
            "that names it, with that service's model, args and GPUs; no InferenceService in the "
            "files linted uses it, so nothing in it was checked",
            reader.display,
            where,
            name,
            ["Lint it together with the InferenceService that uses it (its file, or a folder)"],
        )
    )
    return []


def _config_alone(reader: Reader, name: str, where: Span) -> list[Deployment]:
    """An LLMInferenceServiceConfig is a template, never a deployment: its command holds Go
    template actions the controller fills in from the LLMInferenceService it is merged into.
    An info where it runs an engine, so the file does not pass in silence."""
    if not engine_containers(reader.document.data) or named_by_a_service(reader.document.data):
        return []  # a preset a service of the run names is read with that service
    reader.findings.append(
        input_diagnostic(
            "HBM014",
            f"{CONFIG_KIND} '{name}' is a template: KServe fills it in and merges it into each "
            "LLMInferenceService that refers to it (spec.baseRefs, or the defaults it applies "
            "to every service), with that service's model, parallelism and GPUs; nothing in it "
            "was checked alone",
            reader.display,
            where,
            name,
            [
                "Lint the LLMInferenceService that uses it: its model, parallelism and args are "
                "read there"
            ],
        )
    )
    return []


def _kserve_container(data: dict) -> Path | None:
    items = value_at(data, ("spec", "containers"))
    items = items if isinstance(items, list) else []
    for i, container in enumerate(items):
        if isinstance(container, dict) and container.get("name") == "kserve-container":
            return ("spec", "containers", i)
    for i, container in enumerate(items):
        if isinstance(container, dict) and runs_engine(container):
            return ("spec", "containers", i)
    return None


def _with_runtime(reader: Reader, name: str, where: Span) -> list[Deployment]:
    document, data = reader.document, reader.document.data
    pod_path: Path = ("spec", "predictor")
    mpath: Path = (*pod_path, "model")
    model = value_at(data, mpath)
    wanted = model.get("runtime")
    runtimes = _runtimes(document)
    if wanted:
        found = [r for r in runtimes if _runtime_name(r.data) == wanted]
    else:
        found = [r for r in runtimes if _auto_selects_vllm(r.data)]
    span = document.span((*mpath, "runtime")) if wanted else document.key_span(mpath)
    if not found:  # another file of the run: its values are placed at this reference
        found = _runtimes_elsewhere(str(wanted) if wanted else None, span)
    if not found:
        what = f"ServingRuntime '{wanted}'" if wanted else "the ServingRuntime KServe picks"
        reader.findings.append(
            input_diagnostic(
                "HBM014",
                f"the vLLM command line of this InferenceService is in {what}, which is "
                "neither in this file nor in the others linted with it; nothing in it was "
                "checked",
                reader.display,
                span,
                name,
                [
                    "Lint the runtime's file with this one, or put the ServingRuntime (or "
                    "ClusterServingRuntime) in the same file (---), for example the output of "
                    "`oc get servingruntime NAME -o yaml`"
                ],
            )
        )
        return []
    runtime = found[0]
    cpath = _kserve_container(runtime.data)
    if cpath is None:
        return []
    # KServe's merge: the runtime's container, the model's args appended, its env winning
    env = container_env(runtime, cpath)
    env.update(container_env(document, mpath))
    argv = container_argv(runtime, cpath)
    args = value_at(data, (*mpath, "args"))
    for i, value in enumerate(args if isinstance(args, list) else []):
        argv.append(Token(str(value), document.span((*mpath, "args", i))))
    argv = [_filled(t, name, document, mpath) for t in argv]
    worker = (*pod_path, "workerSpec")
    pipeline = value_at(data, (*worker, "pipelineParallelSize"))
    for key, flag in (
        ("tensorParallelSize", "--tensor-parallel-size"),
        ("pipelineParallelSize", "--pipeline-parallel-size"),
    ):
        if value_at(data, (*worker, key)) is not None:
            argv += _tokens(document, (*worker, key), flag)
    container = value_at(runtime.data, cpath)
    image = container.get("image") if "command" not in container else None
    # a script's words are found in the file that holds them (elsewhere: at the reference)
    text = "" if isinstance(runtime, Elsewhere) else document.text
    # the image's place only where read_invocation may read its entrypoint (see podspec)
    image_span = None if image is None else runtime.span((*cpath, "image"))
    command = read_invocation(argv, env, text, image=image, image_span=image_span)
    no_model = "the InferenceService names no model; set storageUri"
    storage = value_at(data, (*mpath, "storageUri")) is not None or value_at(
        data, (*mpath, "storage")
    )
    if storage:
        # KServe downloads the service's storage to /mnt/models; the engine only loads it
        # where the runtime's words name that mount
        no_model = (
            f"ServingRuntime '{_runtime_name(runtime.data)}' passes no model to the engine: "
            f"KServe downloads this InferenceService's storage to {MODEL_MOUNT}, but nothing "
            f"in the runtime's command or the model's args names it (--model {MODEL_MOUNT}), "
            "so the engine serves its default model instead"
        )
    if command is None:
        if storage and not argv and image_engine(image) is not None:  # the image, no words
            reader.findings.append(input_diagnostic("HBM003", no_model, reader.display, span, name))
        return []
    uri = value_at(data, (*mpath, "storageUri"))
    passed = [t for t in argv if MODEL_MOUNT in t.text or (uri and str(uri) in t.text)]
    if passed and not command.values.get("model.name") and not command.model_unreadable:
        # the runtime hands the engine the downloaded model, by a flag hbmlint does not read
        # for it (TGIS's --model-name=/mnt/models/ in openshift-psap/topsail's standalone-tgis
        # runtime): not a missing model
        reader.findings.append(
            input_diagnostic(
                "HBM011",
                f"'{passed[0].text}' gives the engine the model KServe downloads, by a flag "
                "hbmlint does not read for this engine; this deployment is not checked",
                reader.display,
                passed[0].span,
                name,
            )
        )
        return []
    gpu = _gpu(reader, pod_path, mpath, name)
    if gpu.count is None:  # the model sets no resources: the runtime's own apply
        count, count_span = Reader(runtime, reader.display).container_gpus(cpath, name)
        gpu.count, gpu.count_span = count, count_span
    nodes = command.values.get("parallel.pipeline") if pipeline is not None else None
    if gpu.count and isinstance(nodes, int) and nodes > 1:
        gpu.count *= nodes
    return _build(reader, command, name, gpu, where, container.get("image"), (), no_model=no_model)


def _nim_runtime(reader: Reader, name: str) -> list[Deployment] | None:
    """An InferenceService whose ``predictor.model.runtime`` is a runtime (of this file or
    another of the run) running an NVIDIA NIM image, as NVIDIA/nim-deploy's kserve/ examples
    pair them: the NIM's model and release from the runtime's image, its env with the
    model's on top (KServe's merge), the GPUs from the model's resources and the predictor's
    node labels. None where the service names no such runtime."""
    from .nim import nim_image, nim_model_deployment

    document, data = reader.document, reader.document.data
    mpath: Path = ("spec", "predictor", "model")
    model = value_at(data, mpath)
    wanted = model.get("runtime") if isinstance(model, dict) else None
    if not isinstance(wanted, str) or not wanted:
        return None
    span = document.span((*mpath, "runtime"))
    found = [r for r in _runtimes(document) if _runtime_name(r.data) == wanted]
    found = found or _runtimes_elsewhere(wanted, span)
    if not found:
        if "nim" in wanted.lower().split("-"):
            # NIM's runtimes (nvidia-nim-llama3-70b-instruct-1.0.0): say what is not checked
            reader.findings.append(
                input_diagnostic(
                    "HBM014",
                    f"this InferenceService runs ServingRuntime '{wanted}', by its name an "
                    "NVIDIA NIM runtime, which is neither in this file nor in the others "
                    "linted with it; the model it serves is not checked",
                    reader.display,
                    span,
                    name,
                    ["Lint the runtime's file with this one (hbmlint DIR), or put it in this file"],
                )
            )
            return []
        return None
    runtime = found[0]
    cpath = _kserve_container(runtime.data) or ("spec", "containers", 0)
    container = value_at(runtime.data, cpath)
    image = container.get("image") if isinstance(container, dict) else None
    if nim_image(image) is None or "command" in container:
        return None
    env = container_env(runtime, cpath)
    env.update(container_env(document, mpath))
    gpu = _gpu(reader, ("spec", "predictor"), mpath, name)
    if gpu.count is None:  # the model sets no resources: the runtime's own apply
        gpu.count, gpu.count_span = Reader(runtime, reader.display).container_gpus(cpath, name)
    image_span = runtime.span((*cpath, "image"))
    hints = metadata_labels(document, ("metadata",))
    return nim_model_deployment(reader, name, span, str(image), image_span, env, gpu, hints)


def _filled(token: Token, name: str, document: YamlDocument, mpath: Path) -> Token:
    """What KServe writes into a runtime's words: ``{{.Name}}`` is the service's name, and the
    model mount is where ``storageUri`` is downloaded (so the URI names the model, at its line)."""
    text = token.text.replace("{{.Name}}", name).replace("{{ .Name }}", name)
    uri = value_at(document.data, (*mpath, "storageUri"))
    if uri is not None and MODEL_MOUNT in text:
        head, _, tail = text.partition(MODEL_MOUNT)
        if tail.strip("/") == "":
            return Token(head + str(uri), document.span((*mpath, "storageUri")))
    return Token(text, token.span, token.unresolved)
