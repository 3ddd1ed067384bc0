"""Manifest formats. Each module here recognises one kind of YAML document and turns it into
Deployments; nothing after this stage knows which format a value came from.

A format module provides ``NAME``, ``detect(data) -> bool`` and
``to_deployments(document, path, display) -> (deployments, diagnostics)``; optionally
``read_elsewhere(data) -> bool``: the document is read with another file's deployment (a KServe
runtime an InferenceService of the run uses), so its own file passing in silence is right.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator, Sequence
from collections.abc import Set as AbstractSet
from types import ModuleType
from typing import Any

from ..diagnostics import Diagnostic, input_diagnostic
from ..lazyre import LazyPattern
from ..yamlsrc import Span

# Most specific first: hbmlint's own format, then CRDs that also hold pod templates (KServe),
# then plain workloads, then shapes recognised by their keys alone, and last any object that
# embeds a pod spec (so a document is read by one format only). Each module is imported when a
# document first gets that far: a run over hbmlint's own manifests imports none of the others.
_ORDER = (
    "native",
    "kserve",
    "ome",
    "vllm_runtime",
    "kubeai",
    "kaito",
    "dynamo",
    "ray",
    "llmaz",
    "kthena",
    "kubernetes",
    "nim",
    "srt_slurm",
    "helm_values",
    "kubeai_values",
    "vllm_chart",
    "llm_d",
    "compose",
    "skypilot",
    "dstack",
    "truss",
    "spark_recipe",
    "ray_serve_llm",
    "trtllm_llm_api",  # before vllm_config: both hold a string model and tensor_parallel_size
    "vllm_config",
    "app_template",
    "embedded_pods",  # last: any pod spec no format above reads
    "shell_script",  # never a YAML document: lint.py reads a script's text (is_script)
)


# The kinds each of the first formats of _ORDER reads: each one's detect answers False for a
# document that is not a mapping whose kind is one of these strings (its own test of the kind:
# tests/test_detect_by_kind.py holds each to its module's constants). A document of another
# kind (a Deployment, most documents of a run) is not shown to them, and they are not imported
# for it.
DETECTED_KINDS: dict[str, tuple[str, ...]] = {
    "native": ("ServingManifest",),
    "kserve": (
        "InferenceService",
        "LLMInferenceService",
        "LLMInferenceServiceConfig",
        "ServingRuntime",
        "ClusterServingRuntime",
    ),
    "ome": ("InferenceService", "ServingRuntime", "ClusterServingRuntime"),
    "vllm_runtime": ("VLLMRuntime",),
    "kubeai": ("Model",),
    "kaito": ("Workspace", "InferenceSet", "MultiRoleInference"),
    "dynamo": ("DynamoGraphDeployment",),
    "ray": ("RayCluster", "RayService", "RayJob", "RayClusterFleet"),
    "llmaz": ("Playground", "OpenModel", "BackendRuntime", "Model"),
    "kthena": ("ModelBooster",),
}
_GATED = len(DETECTED_KINDS)
assert _ORDER[:_GATED] == tuple(DETECTED_KINDS)
_UNGATED = tuple(range(_GATED, len(_ORDER)))  # asked of every document, in order


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{name}")


class _Formats(Sequence):
    """The format modules in detection order, each imported on first use."""

    def __init__(self) -> None:
        # each module once imported, at its place in _ORDER (None: not yet): importlib's lookup
        # (sys.modules and its lock) costs more than most formats' detect, and every document
        # asks for the first few
        self._imported: list[ModuleType | None] = [None] * len(_ORDER)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(len(_ORDER))[index])
        module = self._imported[index]  # IndexError past the end, as a sequence
        if module is None:
            module = self._imported[index] = _module(_ORDER[index])
        return module

    def __len__(self) -> int:
        return len(_ORDER)

    def __iter__(self) -> Iterator[ModuleType]:
        for index in range(len(_ORDER)):
            yield self._imported[index] or self[index]


FORMATS = _Formats()

# the places in _ORDER whose detect may accept a document of a kind, by the kind (a run meets a
# few dozen kinds; bounded all the same)
_CANDIDATES: dict[str, tuple[int, ...]] = {}


def _candidates(kind: str) -> tuple[int, ...]:
    found = _CANDIDATES.get(kind)
    if found is None:
        gated = tuple(i for i, name in enumerate(DETECTED_KINDS) if kind in DETECTED_KINDS[name])
        found = gated + _UNGATED
        if len(_CANDIDATES) < 1024:
            _CANDIDATES[kind] = found
    return found


def detect_format(data: Any) -> ModuleType | None:
    """The format module that reads ``data``, or None for YAML that is not a manifest."""
    kind = data.get("kind") if isinstance(data, dict) else None
    imported = FORMATS._imported
    for index in _candidates(kind) if type(kind) is str else _UNGATED:
        module = imported[index] or FORMATS[index]
        if module.detect(data):
            return module
    return None


def format_named(name: str | None) -> ModuleType | None:
    """The format module called ``name`` (its NAME, as the configuration's ``formats`` says)."""
    return next((module for module in FORMATS if name == module.NAME), None)


def read_as(module: ModuleType, data: Any) -> bool:
    """Whether a document the configuration maps to ``module`` can be read by it: its own
    detection, or for the vLLM config format any mapping (detection there is deliberately
    strict, and the mapping is how a user says "this is one")."""
    return module.detect(data) or (module.NAME == "vllm-config" and isinstance(data, dict))


def mentions_engine(text: str) -> bool:
    """Whether a file's text runs an engine or configures one: broken YAML in such a file is
    ours to report, and a Helm template among them is ours to ask to be rendered."""
    from ..engines import names_engine

    def named(t: str) -> bool:
        return "servingEngineSpec" in t or names_engine(t)

    if not named(text):
        return False
    if "{{" not in text:
        return True
    # A Helm template names the engine in its own actions wherever the chart is named after it
    # ({{ include "text-generation-inference.fullname" . }}): its Service, Ingress or
    # ScaledObject runs nothing. It runs the engine where the name is in its YAML (not in a
    # comment line), or where it has a container's image or command for the values to fill in.
    bare = _COMMENT_LINE.sub("", _ACTION.sub(" ", text))
    return named(bare) or _RUNS_SOMETHING.search(bare) is not None


_ACTION = LazyPattern(r"\{\{.*?\}\}", re.S)
_COMMENT_LINE = LazyPattern(r"^[ \t]*#.*$", re.M)
_RUNS_SOMETHING = LazyPattern(r"^[ \t-]*(image|containers|command|args):", re.M)


# TGI's name is its image's only when it is one (ghcr.io/huggingface/text-generation-inference,
# with a tag or none): not in prose, a package name or a bucket (text-generation-inference-ci)
_TGI_IMAGE = LazyPattern(r"/text-generation-inference(?![\w-])")


# kustomize's own file: its images, patches and generators name the engine for what it builds
_KUSTOMIZATION = LazyPattern(r"^kind:\s*Kustomization\s*$", re.M)
# a KServe runtime inside another object: OpenShift AI ships its runtimes as the `objects` of a
# `kind: Template` (opendatahub-io/odh-model-controller config/runtimes/vllm/*-template.yaml)
_WRAPPED_RUNTIME = LazyPattern(r"^[ \t-]*kind:\s*(Cluster)?ServingRuntime\s*$", re.M)


# a chart's values file (values.yaml, values-prod.yaml, lmcache-values.yml): surajssd/llm-k8s
# `cli: "vllm serve ..."`, codewitholi/vllm-k8s `vllm.params.*`, scalable-ml-systems
# `backend.vllmArgs`: every chart names its own keys, read only by its templates
_CHART_VALUES = LazyPattern(r"(^|/)([^/]*[-_.])?values([-_.][^/]*)?\.ya?ml$", re.I)


# an image a chart's values name (`image: lmsysorg/sglang:v0.5.6`, `repository: rocm/vllm-dev`):
# the chart runs it; the name anywhere else (a comment, prose, a build's tags) runs nothing
_IMAGE_KEY = LazyPattern(r"^[ \t-]*(?:image|repository)[ \t]*:[ \t]*[\"']?([^\s\"'#,\[\]{}]+)")


def _engine_image(line: str) -> list[tuple[int, str]]:
    """The engine image at an ``image:`` or ``repository:`` key of ``line`` (an image that
    ships an engine, engines.shipped_engine), as (its column, its repository)."""
    from ..engines import shipped_engine

    match = _IMAGE_KEY.match(line) if "image" in line or "repository" in line else None
    if match is None or shipped_engine(match.group(1)) is None:
        return []
    image = match.group(1).rsplit("@", 1)[0]
    if ":" in image.rpartition("/")[2]:
        image = image.rpartition(":")[0]
    return [(match.start(1), image)]


# a line that only looks the engine up or asks it for its help (`which trtllm-serve`, `pkill -f
# trtllm-serve`, `vllm serve --help`): no engine runs there (engines._find skips the same)
_NOT_RUN = LazyPattern(
    r"(?:^|[\s;&|(`])(?:\S*/)?(?:pkill|pgrep|killall|pidof|which|whereis|type|hash|command\s+-[vV])\s"
    r"|\s--help\b|\s--version\b"
    # a file tool given the engine's path (`chmod +x "$BIN/trtllm-serve"`, `cat > .../vllm <<EOF`)
    r"|^\s*(?:chmod|chown|cp|mv|rm|ln|ls|cat|touch|stat|readlink|realpath|install)\s"
    # an image handled, not run (`docker tag ... vllm/vllm-openai:x86_64`, `docker push`: vLLM's
    # own release scripts)
    r"|(?:^|[\s;&|(`])(?:sudo\s+)?(?:docker|podman|nerdctl)\s+(?:image\s+)?"
    r"(?:tag|push|pull|build|images|rmi|save|load|inspect|manifest)\s"
)
# a web address that holds the engine's name (Docker Hub's tags API for vllm/vllm-openai)
_IN_URL = LazyPattern(r"[a-z]+://\S*$")


# what an engine's image runs when it is not the engine: vLLM's client commands (`vllm bench
# serve`, `vllm chat`: mitchross/talos-argocd-proxmox's benchmark Job) or another entrypoint
# (`docker run --entrypoint bash vllm/vllm-openai ... snapshot_download(...)`, a pull job)
_OTHER_PROGRAM = LazyPattern(
    r"\bvllm[ \t]+(?:bench|chat|complete|collect-env)\b"
    r"|--entrypoint[= \t]+[\"']?(?:/usr)?(?:/bin/)?(?:ba|da|z)?sh\b"
    r"|--entrypoint[= \t]+[\"']?(?:/usr)?(?:/bin/)?(?:python3?|sleep|tail|huggingface-cli|hf)\b"
)
# an engine started by name, not by its image
_SERVER_WORD = LazyPattern(
    r"\bvllm[ \t]+serve\b|vllm\.entrypoints|sglang\.launch_server|text-generation-launcher"
    r"|trtllm-serve|sglang[ \t]+serve\b"
)


def _image_runs_another_program(text: str) -> bool:
    """Whether the file runs an engine's image only to run something else with it (a benchmark
    client, a download in a shell): its image then names no engine that runs."""
    return _OTHER_PROGRAM.search(text) is not None and _SERVER_WORD.search(text) is None


def _runs_here(line: str, word: str) -> bool:
    if _NOT_RUN.search(line):
        return False
    at = line.find(word)
    if "://" in line and at > 0 and _IN_URL.search(line, 0, at):
        return False
    if word == "text-generation-inference":
        return bool(_TGI_IMAGE.search(line))
    return True


# Lines as editors and shells count them: str.splitlines() also breaks at U+2028, NEL, form
# feeds..., which would put the finding on a line no editor shows
_EDITOR_LINES = LazyPattern(r"\r\n|\r|\n")


def unread_file(text: str, documents: Sequence[Any], display: str) -> Diagnostic | None:
    """What to say of a file in which no format read anything and nothing was said: a container
    plainly an engine's that no reader read (unread_pods.py), else an engine command hbmlint
    cannot read (unread_engine); None where the file runs no engine."""
    if documents and "llm.nebari.dev/" in text:
        found = unread_nebari_model(documents, display)
        if found is not None:
            return found
    judged: set[int] = set()  # lines of container images judged with their containers
    if documents and "containers" in text and "image" in text:
        from .unread_pods import container_image_lines, may_hold_one, unread_pod

        if may_hold_one(text):  # only for a file with a pod spec
            pod = unread_pod(documents, display)
            if pod is not None:
                return pod
            judged = container_image_lines(documents)
    found = unread_engine(text, display, judged)
    if found is None and "model" in text and "_size" in text:
        found = unread_engine_arguments(documents, display)
    if found is None and ("vllm" in text or "sglang" in text) and "import" in text:
        found = unread_python_engine(text, display)
    if found is None and "ray.serve.llm" in text and "LLMConfig" in text:
        found = unread_ray_serve_llm_app(text, display)
    if found is None and "backend" in text and display.endswith(".pbtxt"):
        found = unread_triton_model(text, display)
    if found is None and "vllm/vllm-" in text:
        found = unread_device_image(text, display)
    return found


def unread_nebari_model(documents: Sequence[Any], display: str) -> Diagnostic | None:
    """An HBM014 info at the model of the first ``LLMModel`` of nebari-dev/llm-serving-pack
    (``apiVersion: llm.nebari.dev/...``): its operator runs vLLM
    (``python3 -m vllm.entrypoints.openai.api_server``, ``--tensor-parallel-size`` from
    ``serving.tensorParallelism``, then ``serving.vllmArgs``) on ``resources.gpu.count`` GPUs,
    a kind hbmlint does not read; None where there is none."""
    for document in documents:
        data = document.data
        if not (
            isinstance(data, dict)
            and data.get("kind") == "LLMModel"
            and str(data.get("apiVersion", "")).startswith("llm.nebari.dev/")
        ):
            continue
        spec = data.get("spec") if isinstance(data.get("spec"), dict) else {}
        model = spec.get("model") if isinstance(spec.get("model"), dict) else {}
        name = model.get("name")
        metadata = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
        where = ("spec", "model", "name") if name is not None else ("kind",)
        return input_diagnostic(
            "HBM014",
            f"an LLMModel (nebari){' of ' + str(name) if name else ''}: its operator runs "
            "vLLM with serving.vllmArgs on resources.gpu.count GPUs; hbmlint does not read "
            "this kind, so nothing in it was checked",
            display,
            document.span(where),
            str(metadata.get("name")) if metadata.get("name") else None,
            [
                "Lint the Deployment the operator creates from it (`kubectl get deployment "
                "-o yaml | hbmlint -`), or the same vLLM command line in a launch script"
            ],
        )
    return None


# vLLM's images for a device hbmlint does not budget, run by `docker run` or named as a
# service's image: the TPU image has no entrypoint hbmlint reads (engines._NO_ENTRYPOINT), so
# no format reads its command and nothing else would be said
_DEVICE_IMAGE = LazyPattern(r"vllm/vllm-(?:tpu|openai-cpu)[\w.:-]*")
_PULLED = LazyPattern(r"\bdocker\s+(?:pull|push|tag|save|rmi)\b")


def unread_device_image(text: str, display: str) -> Diagnostic | None:
    """An HBM014 info at the first vLLM image for another device (vllm/vllm-tpu,
    vllm/vllm-openai-cpu) in a file that runs a container (``docker run``, ``image:``), not on
    a comment line nor one that only pulls or tags it; None where there is none."""
    from .accelerators import in_image, not_budgeted

    if "docker run" not in text and "image:" not in text:
        return None
    lines = _EDITOR_LINES.split(text)
    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith("#") or _PULLED.search(line):
            continue
        found = _DEVICE_IMAGE.search(line)
        if found is None:
            continue
        # what follows the image: the server's flags (the engine runs), or another program
        # (`tail -f /dev/null` keeps the container alive: nothing runs, nothing to say)
        after = " ".join([line[found.end() :], *lines[number : number + 2]])
        following = after.replace("\\", " ").split()
        if "docker run" in text and not (following and following[0].startswith("--")):
            continue
        other = in_image(found.group(), Span(number, found.start() + 1))
        if other is not None:
            return not_budgeted(other, display, None)
    return None


# a Triton model configuration whose backend runs an LLM engine (config.pbtxt)
_TRITON_BACKEND = LazyPattern(r'^\s*backend\s*:\s*"(tensorrtllm|vllm)"', re.M)


def unread_triton_model(text: str, display: str) -> Diagnostic | None:
    """An HBM014 info at a Triton model configuration's ``backend: "tensorrtllm"`` (or
    ``"vllm"``); None for another backend."""
    found = _TRITON_BACKEND.search(text)
    if found is None:
        return None
    backend = found.group(1)
    where = (
        "the engine it built (its gpt_model_path) and the KV settings here"
        if backend == "tensorrtllm"
        else "the model.json beside it (lint that file by name)"
    )
    return input_diagnostic(
        "HBM014",
        f"a Triton model configuration of the {backend} backend: the engine's memory depends on "
        f"{where}, which hbmlint does not read from this file; nothing in it was checked",
        display,
        Span(
            text.count("\n", 0, found.start(1)) + 1,
            found.start(1) - text.rfind("\n", 0, found.start(1)),
        ),
    )


# An engine started from Python: vLLM's LLM / LLMEngine / AsyncLLMEngine or its engine
# arguments, SGLang's Engine (`sgl.Engine(...)`), in a file that imports the engine
_PYTHON_IMPORT = LazyPattern(
    r"^\s*(?:from\s+(?:vllm|sglang)[\w.]*\s+import|import\s+(?:vllm|sglang))\b", re.M
)
_PYTHON_ENGINE = LazyPattern(
    r"\b(?:vllm\.)?(?:LLM|(?:Async)?LLMEngine(?:\.from_engine_args)?|(?:Async)?EngineArgs)\s*\("
    r"|\b(?:sgl|sglang)\.Engine\s*\("
)


def unread_python_engine(text: str, display: str) -> Diagnostic | None:
    """An HBM014 info at the first call that starts vLLM or SGLang from Python (``LLM(model=
    ...)``, ``sgl.Engine(...)``) in a file that imports the engine; None where there is none."""
    if _PYTHON_IMPORT.search(text) is None:
        return None
    for number, line in enumerate(_EDITOR_LINES.split(text), 1):
        if line.lstrip().startswith("#"):
            continue
        call = _PYTHON_ENGINE.search(line)
        if call is None:
            continue
        word = call.group().rstrip("( \t")
        return input_diagnostic(
            "HBM014",
            f"'{word}(...)' here starts the engine from Python, whose arguments hbmlint does "
            "not read; nothing in it was checked",
            display,
            Span(number, call.start() + 1),
            fixes=[
                "Lint the same settings as a command line (`vllm serve MODEL --flag ...` in a "
                "script) or an engine config file (formats: {FILE: vllm-config})"
            ],
        )
    return None


# A Ray Serve LLM application built in Python (`from ray.serve.llm import LLMConfig,
# build_openai_app`; robbypambudi/ray-vllm-benchmark deployer/qwen.py, Ray's own tutorials):
# each LLMConfig(...) is a vLLM engine whose keyword arguments hbmlint does not evaluate
_RAY_SERVE_LLM_IMPORT = LazyPattern(
    r"^\s*(?:from\s+ray\.serve\.llm[\w.]*\s+import|import\s+ray\.serve\.llm)\b", re.M
)
_RAY_LLM_CONFIG = LazyPattern(r"\bLLMConfig\s*\(")


def unread_ray_serve_llm_app(text: str, display: str) -> Diagnostic | None:
    """An HBM014 info at the first ``LLMConfig(...)`` of a file that imports Ray Serve LLM
    (``from ray.serve.llm import LLMConfig``), as ``LLM(...)`` gets; None where there is none."""
    if _RAY_SERVE_LLM_IMPORT.search(text) is None:
        return None
    for number, line in enumerate(_EDITOR_LINES.split(text), 1):
        if line.lstrip().startswith("#"):
            continue
        call = _RAY_LLM_CONFIG.search(line)
        if call is None:
            continue
        return input_diagnostic(
            "HBM014",
            "'LLMConfig(...)' here starts vLLM through Ray Serve LLM from Python, whose "
            "arguments (model_loading_config, engine_kwargs, accelerator_type) hbmlint does "
            "not read; nothing in it was checked",
            display,
            Span(number, call.start() + 1),
            fixes=[
                "Lint the same settings as a Ray Serve LLM config file (the LLMConfig as YAML, "
                "or a Serve config's applications[].args.llm_configs, as `serve run` takes "
                "it): hbmlint reads those"
            ],
        )
    return None


def unread_engine_arguments(documents: Sequence[Any], display: str) -> Diagnostic | None:
    """An HBM014 info at a mapping of vLLM engine arguments (``model`` and two or more of
    vLLM's serving keys, as a chart of its own hands them to the engine: aws-samples' Ray Serve
    charts' ``engine.config``) inside YAML that no format reads; None when there is none."""
    from .vllm_config import engine_arguments_at

    for document in documents:
        path = engine_arguments_at(document.data)
        if path is None:
            continue
        where = ".".join(map(str, path)) or "the top level"
        return input_diagnostic(
            "HBM014",
            f"the values at {where} are vLLM engine arguments (model and its serving settings) "
            "that this file's own chart or application hands to the engine; hbmlint does not "
            "know how, so that engine was not checked",
            display,
            document.key_span((*path, "model")),
            fixes=[
                "Lint the manifest the chart renders (`helm template ... | hbmlint -`), or put "
                "the arguments in a file of their own and lint it as a vLLM config "
                "(formats: {FILE: vllm-config} in .hbmlint.yaml)"
            ],
        )
    return None


def unread_engine(
    text: str, display: str, judged: AbstractSet[int] = frozenset()
) -> Diagnostic | None:
    """An HBM014 info at the first engine command in ``text`` outside a comment, for a file in
    which no format found anything to read; None when no engine is mentioned. An image's name
    on a line of ``judged`` (a container's image, judged with its container) is not one."""
    from ..engines import engine_words

    values = _CHART_VALUES.search(display.replace("\\", "/")) is not None
    image_runs_other: bool | None = None  # worked out at the first hit
    for number, line in enumerate(_EDITOR_LINES.split(text), 1):
        if line.lstrip().startswith("#"):
            continue
        hits = [(column, word) for column, word in engine_words(line) if _runs_here(line, word)]
        if hits and image_runs_other is None:
            image_runs_other = _image_runs_another_program(text)
        if image_runs_other or number in judged:
            hits = [(column, word) for column, word in hits if "/" not in word]
        if values:
            hits += _engine_image(line)
        if hits:
            column, word = min(hits)
            if _KUSTOMIZATION.search(text):
                return input_diagnostic(
                    "HBM014",
                    f"'{word}' here is part of a Kustomization, which sets what the manifests it "
                    "builds from its bases, patches and generators run; hbmlint reads manifests, "
                    "not the overlay, so nothing in it was checked",
                    display,
                    Span(number, column + 1),
                    fixes=[
                        "Lint what the overlay builds, with the ConfigMaps it generates: "
                        "`kubectl kustomize DIR | hbmlint -` (or `kustomize build DIR | hbmlint -`)"
                    ],
                )
            if _WRAPPED_RUNTIME.search(text):
                return input_diagnostic(
                    "HBM014",
                    f"'{word}' here is in a KServe serving runtime, a template: KServe runs it "
                    "for each InferenceService that names it, with that service's model, args "
                    "and GPUs; nothing in it was checked alone",
                    display,
                    Span(number, column + 1),
                    fixes=[
                        "Lint the InferenceService that uses it together with the runtime, "
                        "the runtime as a document of its own (the Template's `objects` entry)"
                    ],
                )
            if values:
                return input_diagnostic(
                    "HBM014",
                    f"'{word}' here is in Helm chart values: the chart's templates decide how "
                    "these values become the engine's command line and its GPUs (each chart "
                    "names its own keys), so nothing in it was checked",
                    display,
                    Span(number, column + 1),
                    fixes=[
                        "Render the chart with these values and lint the result: "
                        "`helm template RELEASE CHART -f VALUES | hbmlint -`"
                    ],
                )
            names = ", ".join(module.NAME for module in FORMATS)
            return input_diagnostic(
                "HBM014",
                f"'{word}' here runs an inference engine, but hbmlint finds no engine command "
                f"line it can read in this file (formats it reads: {names}); nothing in it was "
                "checked",
                display,
                Span(number, column + 1),
                fixes=[
                    "Put the engine's command line where a format above reads it, or map this "
                    "file to one in the configuration's `formats`"
                ],
            )
    return None


_TEMPLATE = LazyPattern(r"\{\{-?\s*[.$\w(]")
# A line that is nothing but a template action ({{- if ... }}, {{ end }}, {{ toYaml ... }}):
# no YAML file has one, every Helm template does.
_ACTION_LINE = LazyPattern(r"^[ \t]*\{\{-?.*\}\}[ \t]*$", re.M)


def is_template(text: str, error: Span | None = None) -> bool:
    """Whether ``text`` is a template rather than broken YAML: a line that is only a template
    action, or a YAML error at (or just after) a line with ``{{``. A ``{{`` elsewhere in an
    otherwise broken file does not make the file a template: its YAML error is still ours."""
    if _ACTION_LINE.search(text):
        return True
    if error is None:
        return _TEMPLATE.search(text) is not None
    lines = text.split("\n")
    near = lines[max(error.line - 2, 0) : error.line]
    return any("{{" in line for line in near)


# A line that is nothing but one ${NAME} (or __NAME__, a sed substitution's marker): a
# placeholder for a whole block, which envsubst (or a script's substitution) fills in before
# kubectl sees the file; no YAML file has one unquoted.
_BLOCK_PLACEHOLDER = LazyPattern(
    r"^[ \t]*(?:\$\{[A-Za-z_][A-Za-z0-9_]*\}|__[A-Z][A-Z0-9_]*__)[ \t]*$", re.M
)


def _block_placeholder(text: str, display: str, error: Span | None) -> Diagnostic | None:
    """The "render first" finding for a template whose YAML breaks at a line holding only
    ``${NAME}`` (a block filled in before the file is applied; ai-dynamo/dynamo
    benchmarks/frontend/dgd/templates/vllm.yaml's ``${FRONTEND_IMAGE_PULL_SECRETS_BLOCK}``) or
    ``__NAME__`` (MML-coder/spec-decode-perf-benchmark-recipe's ``__VLLM_ARGS__``, replaced with
    sed), at that line."""
    if error is None:
        return None
    lines = text.split("\n")
    for number in range(max(error.line - 1, 1), min(error.line + 1, len(lines)) + 1):
        if _BLOCK_PLACEHOLDER.match(lines[number - 1]):
            from ..engines.args import RENDER_HINT

            column = len(lines[number - 1]) - len(lines[number - 1].lstrip()) + 1
            filled = RENDER_HINT if "${" in lines[number - 1] else FILL_PLACEHOLDERS
            return input_diagnostic(
                "HBM012",
                f"this is a template, not YAML until it is rendered: line {number} is a "
                f"placeholder for a whole block ({lines[number - 1].strip()}), filled in before "
                "the file is applied; hbmlint cannot read it as is",
                display,
                Span(number, column),
                fixes=[filled],
            )
    return None


FILL_PLACEHOLDERS = (
    "Fill the placeholders as your deployment does, and lint the output: `... | hbmlint -`"
)


# Kubernetes kinds that run no engine: routing, storage, access (kustomize overlays patch them;
# a Helm template of one is not a deployment to render first)
NO_ENGINE_KINDS = {
    "Gateway",
    "HTTPRoute",
    "GRPCRoute",
    "Service",
    "Ingress",
    "Route",
    "InferencePool",
    "InferenceModel",
    "InferenceObjective",
    "ServiceAccount",
    "Role",
    "RoleBinding",
    "ClusterRole",
    "ClusterRoleBinding",
    "Namespace",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "NetworkPolicy",
    "HorizontalPodAutoscaler",
    "PodDisruptionBudget",
    "PodMonitor",
    "ServiceMonitor",
    "ResourceClaimTemplate",
    "DestinationRule",
    "ScaledObject",
    "TriggerAuthentication",
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
    "CustomResourceDefinition",
    "APIService",
    "Certificate",
    "Issuer",
    "ClusterIssuer",
    "Secret",
    "PriorityClass",
    "StorageClass",
    "ResourceQuota",
    "LimitRange",
    "ReferenceGrant",
    "AuthorizationPolicy",
    "PeerAuthentication",
    "VirtualService",
    "EnvoyFilter",
}


def render_first(text: str, display: str, error: Span | None = None) -> Diagnostic | None:
    """One "render first" finding for a Helm template (``{{ .Values... }}``), at its first
    template action, or for a template whose YAML breaks at a block placeholder; None when the
    text is not a template (``error``: where YAML broke)."""
    match = _TEMPLATE.search(text)
    if match is None or not is_template(text, error):
        return _block_placeholder(text, display, error)
    from ..engines.args import RENDER_HINT

    line = text.count("\n", 0, match.start()) + 1
    column = match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
    what = "a Helm template"
    fix = RENDER_HINT
    if _BARE_PLACEHOLDER.match(text, match.start()) and not _HELM_ACTION.search(text):
        # `{{NAME}}` / `{{{NAME}}}` and no Go template action anywhere: Mustache, Jinja or a
        # script's own substitution (aws-samples/sample-genai-on-eks-starter-kit's
        # {{{KARPENTER_PREFIX}}}), not a chart
        what = "a template ({{NAME}} placeholders a tool fills in before it is applied)"
        fix = FILL_PLACEHOLDERS
    return input_diagnostic(
        "HBM012",
        f"this is {what}, not YAML until it is rendered; hbmlint cannot read it as is",
        display,
        Span(line, column),
        fixes=[fix],
    )


# a placeholder that is one bare name (`{{NAME}}`, `{{{NAME}}}`), and an action only Go's
# template language (Helm) writes: a field (`.Values`), a variable, a trim marker, a keyword
_BARE_PLACEHOLDER = LazyPattern(r"\{\{\{?\s*[A-Za-z_][A-Za-z0-9_]*\s*\}?\}\}")
_HELM_ACTION = LazyPattern(
    r"\{\{-|\{\{\s*(?:[.$]|(?:include|template|if|range|with|end|define|toYaml)\b)"
)


# files that are never YAML however they are named on the command line: code, which may start an
# engine (an info says it is not read), and prose, whose commands are examples
_CODE_SUFFIXES = (".py", ".ipynb", ".js", ".ts", ".go", ".rs", ".java", ".dockerfile", ".mk")
_CODE_SUFFIXES += (".tf", ".pbtxt")  # Terraform's HCL, Triton's protobuf text: never YAML
# build files by name: their recipes may start an engine (LQR471814/x.vllm-distributed's
# Makefile runs `uv run vllm serve ...`), and are never YAML
_CODE_NAMES = ("dockerfile", "containerfile", "makefile", "gnumakefile", "justfile")
_PROSE_SUFFIXES = (".md", ".rst", ".txt", ".html", ".toml", ".ini", ".cfg")


def code_file(display: str) -> str | None:
    """ "code" or "prose" for a file that is never YAML, by its name; else None."""
    name = display.replace("\\", "/").rpartition("/")[2].lower()
    if name.endswith(_PROSE_SUFFIXES):
        return "prose"
    if name.endswith(_CODE_SUFFIXES) or name in _CODE_NAMES:
        return "code"
    return None


def describe(
    text: str,
    path: Any,
    display: str,
    forced: ModuleType | None = None,
    default_gpu: str | None = None,
) -> str:
    """`hbmlint formats`: which format each document was read as, and for each deployment
    every field that was read, with its value and the line it came from. ``forced`` is the
    format the configuration maps the file to, if any; ``default_gpu`` (--gpu) is shown for a
    deployment that names no GPU, as the lint will use it."""
    from ..yamlsrc import load_documents

    script = script_reader(display, text, forced)
    if script is not None:
        return "\n".join(_describe_script(script, text, path, display, default_gpu)) + "\n"
    kind = code_file(display) if forced is None else None
    if kind is not None:  # as the lint reads it: never YAML (an engine it starts: HBM014)
        return f"{display}: a file of {kind}, not YAML; not a manifest hbmlint reads\n"
    out: list[str] = []
    documents, error = load_documents(text)
    if documents and may_embed_values(text):
        from .embedded_values import embedded_documents

        documents = documents + embedded_documents(documents, text)
    for document in documents:
        module = detect_format(document.data)
        if forced is not None and document.data is not None:
            module = forced if read_as(forced, document.data) else None
        line = document.span(()).line
        where = f"{display}: document {document.index + 1} (line {line})"
        if module is None:
            out.append(f"{where}: not a manifest hbmlint reads; skipped")
            continue
        out.append(f"{where}: read as {module.NAME}")
        read_elsewhere = getattr(module, "read_elsewhere", None)
        if read_elsewhere is not None and read_elsewhere(document.data):
            note = getattr(module, "elsewhere_note", None)
            what = "a template, read with the InferenceService that uses it"
            out.append(f"  {note(document.data) if note else what}")
        deployments, findings = module.to_deployments(document, path, display)
        _describe_read(out, deployments, findings, default_gpu)
    if error is not None:
        finding = (mentions_engine(text) and render_first(text, display, error.span)) or None
        message = finding.message if finding else error.message
        out.append(f"{display}: line {error.span.line}: {message}")
    if not documents and error is None:
        out.append(f"{display}: no YAML documents")
    elif error is None and not any(line.startswith("  ") for line in out):
        unread = unread_file(text, documents, display)
        if unread is not None:
            out.append(f"{display}: line {unread.span.line}: {unread.message}")
    return "\n".join(out) + "\n"


def may_embed_values(text: str) -> bool:
    """Whether ``text`` may hold chart values inside a GitOps object (formats/embedded_values.py):
    a cheap test of its words, so that module stays unloaded for most files."""
    return "values" in text and (
        "Application" in text or "helmCharts" in text or "releases:" in text
    )


# a file named so is a shell script (formats/shell_script.py): Slurm and PBS batch scripts too
SCRIPT_SUFFIXES = (".sh", ".bash", ".slurm", ".sbatch", ".pbs")


def script_reader(display: str, text: str, forced: ModuleType | None) -> ModuleType | None:
    """The shell-script reader for a file mapped to it, or for one that is a script by its
    name or ``#!`` line and is mapped to no other format; else None (read as YAML)."""
    if forced is not None and forced.NAME != "shell":
        return None
    if forced is None and (display.lower().endswith(".service") or "[Service]" in text):
        from . import systemd_unit  # a systemd unit's ExecStart=, read as a script

        if systemd_unit.is_unit(display, text):
            return systemd_unit
    if forced is None and not (display.lower().endswith(SCRIPT_SUFFIXES) or text[:2] == "#!"):
        return None  # the cheap test first: most files are YAML, and the reader stays unloaded
    from . import shell_script

    return shell_script if forced is not None or shell_script.is_script(display, text) else None


def _describe_script(
    script: Any, text: str, path: Any, display: str, default_gpu: str | None
) -> list[str]:
    """`hbmlint formats` on a shell script (or a systemd unit, ``script``'s reader): its engine
    commands, as deployments."""
    out = [f"{display}: read as {script.NAME}"]
    deployments, findings = script.to_script_deployments(text, path, display)
    _describe_read(out, deployments, findings, default_gpu)
    if len(out) == 1:
        unread = unread_engine(text, display)
        if unread is None:
            return [f"{display}: a shell script that runs no engine hbmlint reads; skipped"]
        out.append(f"{display}: line {unread.span.line}: {unread.message}")
    return out


def _describe_read(
    out: list[str], deployments: list, findings: list, default_gpu: str | None
) -> None:
    """Each deployment read, every field with its value and line, then the findings."""
    for deployment in deployments:
        out.append(f"  deployment {deployment.name} ({deployment.engine})")
        names = [n for n in deployment.locations if n and field_value(deployment, n) is not None]
        # a group set as a whole (`model`) is shown through its fields when they are listed
        fields = [
            (deployment.locations[name], name, field_value(deployment, name))
            for name in names
            if not any(other.startswith(name + ".") for other in names)
        ]
        fields += _gpu_from_labels(deployment)
        for span, name, value in sorted(fields, key=lambda f: (f[0].line, f[0].column, f[1])):
            out.append(f"    {name:38} {value!s:40} line {span.line}")
        gpu = deployment.gpu
        names_none = gpu.type is None and gpu.memory is None
        if default_gpu and names_none and not _gpu_from_labels(deployment):
            out.append(f"    {'gpu.type':38} {default_gpu!s:40} --gpu")
        for key, why in deployment.assumed.items():
            out.append(f"    {key:38} assumed: {why}")
    for finding in findings:
        out.append(
            f"  {finding.severity} {finding.code} line {finding.span.line}: {finding.message}"
        )


def _gpu_from_labels(deployment: Any) -> list[tuple[Span, str, Any]]:
    """The GPU the pod's node labels select, as resolve will read it (catalog/labels.py)."""
    from ..catalog import gpu_from_labels

    if deployment.gpu.type is not None or deployment.gpu.memory is not None:
        return []
    choice = gpu_from_labels(deployment.gpu.labels)
    if choice.type is not None and choice.type_span is not None:
        return [(choice.type_span, "gpu.type", choice.type)]
    if choice.memory is not None and choice.memory_span is not None:
        return [(choice.memory_span, "gpu.memory", choice.memory)]
    return []


def field_value(deployment: Any, name: str) -> Any:
    """The deployment's value of a field by its dotted name (``serving.max_model_len``), as
    `hbmlint formats` shows it; None where it is unset or a group of fields."""
    value = deployment
    for part in name.split("."):
        value = getattr(value, part, None)
        if value is None:
            return None
    if hasattr(value, "label") and not isinstance(value, str):
        return value.label
    if not isinstance(value, (str, int, float, bool)) and not hasattr(value, "magnitude"):
        return None  # a group such as `gpu` or `speculative`: its fields are listed instead
    return value
