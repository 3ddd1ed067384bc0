"""NVIDIA NIM for LLMs: a container from ``nvcr.io/nim/<org>/<name>:<tag>``, in three shapes: a
Kubernetes workload whose container runs a NIM image, the NIM Operator's ``NIMService``
(``apps.nvidia.com/v1alpha1``: ``spec.image.repository``/``tag``, ``spec.env``,
``spec.resources``, ``spec.storage.nimCache.profile``, ``spec.multiNode.parallelism``;
NVIDIA/k8s-nim-operator config/samples/nim), and the values of NVIDIA's ``nim-llm`` Helm chart
(``image.repository``, ``env``, ``resources``, ``nodeSelector``; NVIDIA/nim-deploy
helm/nim-llm/values.yaml).

What NIM does with it (NIM for LLMs docs, docs.nvidia.com/nim/large-language-models: "Model
Profiles", "Configure Your NIM", "Environment Variables"):

- The image serves one model (an LLM-specific NIM), or the model ``NIM_MODEL_NAME`` (1.x
  multi-LLM container) or ``NIM_MODEL_PATH`` (2.x model-free container) names, ``hf://ORG/NAME``
  for a Hugging Face repository.
- At start-up NIM picks one *profile* from the image's manifest for the GPUs it finds: a backend
  (TensorRT-LLM, vLLM or SGLang), a precision (bf16/fp16, fp8, nvfp4, int4_awq...), a tensor
  and a pipeline parallelism; ``NIM_MODEL_PROFILE`` pins one by id or by its name
  (``vllm-bf16-tp2-pp1``, ``tensorrt_llm-h100-fp8-tp1-pp1-throughput``).
- ``NIM_MAX_MODEL_LEN`` sets the context length, ``NIM_TENSOR_PARALLEL_SIZE`` /
  ``NIM_PIPELINE_PARALLEL_SIZE`` the parallelism, ``NIM_MAX_NUM_SEQS`` the batch,
  ``NIM_KVCACHE_PERCENT`` the engine's memory fraction; ``NIM_USE_SGLANG=1`` the SGLang backend
  (k8s-nim-operator multi-node sample); ``NIM_SERVED_MODEL_NAME`` only names the model in the
  API.

How hbmlint budgets it. A pinned profile is budgeted as its backend, precision and
parallelism. An unpinned one is budgeted so that an error is claimed only when every profile
NIM could pick fails: the weights at 4 bits a weight (the smallest format NIM profiles use), the
tensor parallelism over all the GPUs the pod has, and TensorRT-LLM's memory rule (the KV cache
from the memory left after the weights), the least strict of NIM's backends. Each is in the
budget's ``assumed`` list with how to pin it. Without ``NIM_MAX_MODEL_LEN`` the length is
NIM's to choose, so only the weights with one KV block are checked (an info says so). An image
whose model hbmlint cannot name is an info that says how to name it, never silence.
"""

from __future__ import annotations

import re
from typing import Any

from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import sglang, trtllm, vllm
from ..engines.args import EngineCommand, Token, placeholder
from ..spec import Deployment, Label
from ..yamlsrc import Span, YamlDocument
from .build import GpuFacts, build
from .kubernetes import document_name
from .podspec import (
    Reader,
    container_env,
    containers,
    metadata_labels,
    node_labels,
    pod_specs,
    value_at,
)

NAME = "nim"

# nvcr.io/nim/<org>/<name>[:tag] (or a mirror's <registry>/nim/<org>/<name>)
_IMAGE = re.compile(r"^(?:[\w.-]+(?::\d+)?/)*nim/([\w.-]+)/([\w.-]+?)(?::([\w.-]+))?(?:@[\w:]+)?$")

# NIM image -> the Hugging Face repository it serves, where the name alone does not say it
# (NIM for LLMs 1.1.0 "Models" page lists the images: docs.nvidia.com/nim/large-language-models/
# 1.1.0/models.html). Other names are matched against the catalog's ids by their last part
# (meta/llama-3.1-8b-instruct -> meta-llama/Llama-3.1-8B-Instruct).
MODELS = {
    "meta/llama3-8b-instruct": "meta-llama/Meta-Llama-3-8B-Instruct",
    "meta/llama3-70b-instruct": "meta-llama/Meta-Llama-3-70B-Instruct",
    "mistralai/mistral-7b-instruct-v03": "mistralai/Mistral-7B-Instruct-v0.3",
    "mistralai/mixtral-8x7b-instruct-v01": "mistralai/Mixtral-8x7B-Instruct-v0.1",
    "mistralai/mixtral-8x22b-instruct-v01": "mistralai/Mixtral-8x22B-Instruct-v0.1",
    # NVIDIA's Nemotron 3 NIMs serve the checkpoints of the same names (build.nvidia.com model
    # cards nvidia/nemotron-3-super-120b-a12b and nemotron-3-nano-30b-a3b); the profile picks
    # the precision, so the BF16 upload stands for the shape
    "nvidia/nemotron-3-super-120b-a12b": "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16",
    "nvidia/nemotron-3-nano-30b-a3b": "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
}

# The multi-LLM (1.x) and model-free (2.x) containers take the model from their env
MODEL_VARIABLES = ("NIM_MODEL_NAME", "NIM_MODEL_PATH")
PROFILE = "NIM_MODEL_PROFILE"
# 4 bits a weight with a 16-bit scale per 128 (catalog/quantization.yaml int4): no NIM profile
# stores its weights in fewer bytes (nvfp4 takes 0.5625 a weight, fp8 1, bf16 2)
LOWER_BOUND = "int4"
# one KV block: the length is NIM's to choose when NIM_MAX_MODEL_LEN is unset
ONE_BLOCK = 16
BATCHED_TOKENS = 2048
BATCH = 256
_PRECISIONS = {
    "bf16": ("bfloat16", None),
    "fp16": ("float16", None),
    "fp8": (None, "fp8"),
    "nvfp4": (None, "nvfp4"),
    "mxfp4": (None, "mxfp4"),
    "int4_awq": (None, "awq"),
    "awq": (None, "awq"),
    "int8_wo": (None, "int8"),
}
_BACKENDS = {"tensorrt_llm": "trtllm", "trtllm": "trtllm", "vllm": "vllm", "sglang": "sglang"}
_HEX_ID = re.compile(r"^[0-9a-f]{32,64}$")


def nim_image(image: Any) -> tuple[str, str, str | None] | None:
    """(org, name, tag) of a NIM image reference, or None."""
    if not isinstance(image, str):
        return None
    match = _IMAGE.match(image.strip())
    if match is None:
        return None
    return match.group(1), match.group(2), match.group(3)


def _nim_containers(data: dict) -> list[tuple[tuple, dict]]:
    found = []
    pods = pod_specs(data)
    if data.get("kind") == "InferenceService" and isinstance(value_at(data, _PREDICTOR), dict):
        pods = [(_PREDICTOR, "pod")]  # KServe: the predictor is the pod spec
    for pod_path, role in pods:
        if role == "worker":
            continue
        for i, container in containers(data, pod_path):
            if nim_image(container.get("image")) is not None:
                found.append(((*pod_path, "containers", i), container))
    return found


def _is_service(data: dict) -> bool:
    return (
        str(data.get("apiVersion", "")).startswith("apps.nvidia.com/")
        and data.get("kind") == "NIMService"
        and isinstance(data.get("spec"), dict)
    )


def _chart_image(data: dict) -> str | None:
    image = data.get("image")
    if "apiVersion" in data or not isinstance(image, dict):
        return None
    repository = image.get("repository")
    return repository if nim_image(repository) is not None else None


def _chart_base(data: dict) -> tuple[str, ...] | None:
    """Where the nim-llm chart's values start: the document, or the key an umbrella chart
    passes them to its nim-llm subchart under (``nim-llm:`` in NVIDIA's blueprints' values,
    nim-deploy's AIQ RAG workshop); None where neither runs a NIM image. A subchart switched
    off (``enabled: false``) runs nothing."""
    if _chart_image(data) is not None:
        return ()
    if "apiVersion" in data:
        return None
    for key, values in data.items():
        enabled = isinstance(values, dict) and values.get("enabled") is not False
        if enabled and _chart_image(values) is not None:
            return (str(key),)
    return None


def _compose_services(data: dict) -> list[tuple[str, dict]]:
    """The services of a docker-compose file that run a NIM image (NVIDIA/GenerativeAIExamples
    RAG/examples/local_deploy/docker-compose-nim-ms.yaml)."""
    services = data.get("services")
    if "apiVersion" in data or not isinstance(services, dict):
        return []
    return [
        (str(key), service)
        for key, service in services.items()
        if isinstance(service, dict) and nim_image(service.get("image")) is not None
    ]


def detect(data: Any) -> bool:
    if not isinstance(data, dict):
        return False
    if _is_service(data):
        return True
    if "kind" in data and "apiVersion" in data:
        return bool(_nim_containers(data))
    if _compose_services(data):
        from . import compose

        return not compose.detect(data)  # a file that also runs an engine is compose's
    return _chart_base(data) is not None


def to_deployments(
    document: YamlDocument, path: Any, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    data = document.data
    reader = Reader(document, display)
    if _is_service(data):
        name, where = document_name(document, reader, "NIMService")
        return _service(reader, name, where), reader.findings
    if "kind" in data:
        name, where = document_name(document, reader, "workload")
        found = []
        nims = _nim_containers(data)
        for cpath, container in nims:
            label = name if len(nims) == 1 else f"{name}/{container.get('name', cpath[-1])}"
            pod_path = cpath[:-2]
            gpu = _gpu(reader, cpath, pod_path, label)
            image = str(container.get("image"))
            env = container_env(document, cpath)
            hints = metadata_labels(document, ("metadata",), (*pod_path[:-1], "metadata"))
            found += nim_model_deployment(
                reader, label, where, image, document.span((*cpath, "image")), env, gpu, hints
            )
        return found, reader.findings
    if _compose_services(data):
        found = []
        for key, service in _compose_services(data):
            spath = ("services", key)
            image_span = document.span((*spath, "image"))
            gpu = _compose_gpus(document, spath)
            env = _compose_env(document, spath)
            found += nim_model_deployment(
                reader, key, document.span(spath), str(service["image"]), image_span, env, gpu, []
            )
        return found, reader.findings
    # the nim-llm chart's values: the chart runs one container from image.repository:tag
    base = _chart_base(data) or ()
    values = value_at(data, base) if base else data
    where = document.span((*base, "image", "repository"))
    # the chart's name, or the umbrella chart's key for it; the release's is not in the values
    name = base[0] if base else "nim-llm"
    image = str(_chart_image(values))
    tag = value_at(values, ("image", "tag"))
    if tag:
        image = f"{image}:{tag}"
    env = container_env(document, base)
    gpu = _gpu(reader, base, base, name)
    if gpu.count is None and not isinstance(values.get("resources"), dict):
        # the chart's own default (NVIDIA/nim-deploy helm/nim-llm/values.yaml: resources.limits
        # nvidia.com/gpu: 1) stands where the values set no resources of their own
        gpu.count, gpu.count_span = 1, document.span(base or ("image",))
    model = values.get("model")
    for key in ("resources", "persistence", "imagePullSecrets"):
        if isinstance(model, dict) and key in model:
            # keys of the chart's top level written under `model:`, which the chart never reads
            reader.findings.append(
                input_diagnostic(
                    "HBM016",
                    f"model.{key} is not read by the nim-llm chart, which takes {key} at the top "
                    "level of its values: it never reaches the pod",
                    reader.display,
                    document.key_span((*base, "model", key)),
                    name,
                    [f"Move {key} out of model:, to the top level of the values"],
                )
            )
    hints = metadata_labels(document, (*base, "model"))
    return nim_model_deployment(reader, name, where, image, where, env, gpu, hints), reader.findings


_PREDICTOR = ("spec", "predictor")
_INTERPOLATION = re.compile(r"\$\{?\w")


def _compose_env(document: YamlDocument, spath: tuple) -> dict[str, Token]:
    """A service's ``environment`` (a map or a list of NAME=VALUE); a value docker compose
    interpolates (``${VAR}``) comes from the shell or .env, which this reader does not see."""
    items = value_at(document.data, (*spath, "environment"))
    pairs: list[tuple[str, Any, tuple]] = []
    if isinstance(items, dict):
        pairs = [(str(k), v, (*spath, "environment", k)) for k, v in items.items()]
    elif isinstance(items, list):
        for i, item in enumerate(items):
            name, _, value = str(item).partition("=")
            pairs.append((name, value, (*spath, "environment", i)))
    env = {}
    for name, value, where in pairs:
        text = "" if value is None else str(value)
        unresolved = ()
        if _INTERPOLATION.search(text):
            unresolved = (f"{name} is {text}, set by docker compose from the shell or .env",)
        env[name] = Token(text, document.span(where), unresolved)
    return env


def _compose_gpus(document: YamlDocument, spath: tuple) -> GpuFacts:
    """The GPUs ``deploy.resources.reservations.devices`` reserves: ``count`` (``all`` or an
    interpolated count: unknown), else one a ``device_ids`` entry."""
    path = (*spath, "deploy", "resources", "reservations", "devices")
    devices = value_at(document.data, path)
    for i, device in enumerate(devices if isinstance(devices, list) else []):
        if not isinstance(device, dict):
            continue
        span = document.span((*path, i))
        count = device.get("count")
        if isinstance(count, int):
            return GpuFacts(count=count, count_span=document.span((*path, i, "count")))
        ids = device.get("device_ids")
        if isinstance(ids, list) and ids:
            number = sum(len(str(d).split(",")) for d in ids)
            return GpuFacts(count=number, count_span=document.span((*path, i, "device_ids")))
        if count is not None:
            span = document.span((*path, i, "count"))  # `all` or a variable: not known here
        return GpuFacts(count_span=span)
    return GpuFacts()


def _gpu(reader: Reader, cpath: tuple, pod_path: tuple, name: str) -> GpuFacts:
    count, span = reader.container_gpus(cpath, name)
    terms = (
        *pod_path,
        "affinity",
        "nodeAffinity",
        "requiredDuringSchedulingIgnoredDuringExecution",
        "nodeSelectorTerms",
    )
    labels = node_labels(reader.document, (*pod_path, "nodeSelector"), terms)
    return GpuFacts(count=count, count_span=span, labels=labels)


def _service(reader: Reader, name: str, where: Span) -> list[Deployment]:
    document = reader.document
    spec = ("spec",)
    repository = value_at(document.data, (*spec, "image", "repository"))
    tag = value_at(document.data, (*spec, "image", "tag"))
    image = f"{repository}:{tag}" if repository and tag else str(repository)
    image_span = document.span((*spec, "image", "repository"))
    env = container_env(document, spec)
    profile = value_at(document.data, (*spec, "storage", "nimCache", "profile"))
    if profile and PROFILE not in env:
        # the operator sets NIM_MODEL_PROFILE from the cache's profile (k8s-nim-operator
        # api/apps/v1alpha1 nimservice_types.go: storage.nimCache.profile)
        env[PROFILE] = Token(str(profile), document.span((*spec, "storage", "nimCache", "profile")))
    gpu = _gpu(reader, spec, spec, name)
    pp_path = (*spec, "multiNode", "parallelism", "pp")
    pp = reader.count(pp_path, name)
    if pp and pp > 1 and gpu.count:
        # a multi-node NIMService runs pp pods of spec.resources' GPUs each, one pipeline stage
        # a pod (k8s-nim-operator config/samples/nim/serving/advanced/multi-node)
        gpu.count, gpu.count_span = gpu.count * pp, document.span(pp_path)
        env.setdefault("NIM_PIPELINE_PARALLEL_SIZE", Token(str(pp), document.span(pp_path)))
    hints = metadata_labels(document, ("metadata",))
    return nim_model_deployment(reader, name, where, image, image_span, env, gpu, hints)


def hf_id(org: str, name: str) -> str | None:
    """The Hugging Face id a NIM image serves, where hbmlint knows it."""
    known = MODELS.get(f"{org}/{name}".lower())
    if known is not None:
        return known
    from ..catalog import model_ids

    matches = [i for i in model_ids() if i.rsplit("/", 1)[-1].lower() == name.lower()]
    return matches[0] if len(matches) == 1 else None


def _model(
    reader: Reader,
    name: str,
    image: str,
    image_span: Span,
    env: dict[str, Token],
    hints: list[Label],
) -> tuple[str, Span] | None:
    """The model the container serves, or None with a finding that says how to name it."""
    for variable in MODEL_VARIABLES:
        token = env.get(variable)
        if token is None:
            continue
        text = token.text.strip()
        if not token.readable or placeholder(text):
            reader.findings.append(
                input_diagnostic(
                    "HBM011",
                    f"the model is {variable}={text}, which hbmlint cannot read here; this NIM is "
                    "not checked",
                    reader.display,
                    token.span,
                    name,
                )
            )
            return None
        if text.startswith("hf://"):
            return text.removeprefix("hf://").split("?", 1)[0].strip("/"), token.span
        if "://" not in text and not text.startswith(("/", ".", "~")) and text.count("/") == 1:
            return text, token.span
        reader.findings.append(
            input_diagnostic(
                "HBM014",
                f"{variable}={text}: NIM loads the model from that location, whose files hbmlint "
                "does not read; this NIM is not checked",
                reader.display,
                token.span,
                name,
                [
                    "Name the Hugging Face repository it holds with the workload annotation "
                    "`hbmlint.io/model: ORG/NAME`"
                ],
            )
        )
        return None
    hint = next((h for h in hints if h.key == "hbmlint.io/model" and h.value.strip()), None)
    if hint is not None:
        return hint.value.strip(), hint.span
    parts = nim_image(image)
    model = hf_id(parts[0], parts[1]) if parts else None
    if model is None:
        reader.findings.append(
            input_diagnostic(
                "HBM014",
                f"the NIM image {image} serves a model hbmlint does not know by the image's "
                "name (or not an LLM: an embedding, reranking or speech NIM); this NIM is not "
                "checked",
                reader.display,
                image_span,
                name,
                [
                    _COMPOSE_UNNAMED
                    if _compose_services(reader.document.data)
                    else "If it serves an LLM, name its Hugging Face repository with the "
                    "workload annotation `hbmlint.io/model: ORG/NAME`"
                ],
            )
        )
        return None
    return model, image_span


# a compose service has no annotations to name the model with
_COMPOSE_UNNAMED = (
    "hbmlint names a NIM's model from its image, from NIM_MODEL_NAME / NIM_MODEL_PATH "
    "(hf://ORG/NAME, the multi-LLM image's) or from a Kubernetes annotation; a compose "
    "service of a model-specific image has none of them, so it cannot be named here"
)


def read_profile(text: str) -> dict[str, Any] | None:
    """A profile's name (``vllm-bf16-tp2-pp1``, ``tensorrt_llm-h100-fp8-tp1-pp1-throughput``)
    read into backend, precision, tp and pp; None for an id (a hash) or a name not read."""
    words = text.strip().lower().split("-")
    backend = _BACKENDS.get(words[0]) if words else None
    if backend is None:
        return None
    found: dict[str, Any] = {"backend": backend}
    for word in words[1:]:
        if word in _PRECISIONS:
            found["precision"] = word
        elif re.fullmatch(r"tp\d+", word):
            found["tp"] = int(word[2:])
        elif re.fullmatch(r"pp\d+", word):
            found["pp"] = int(word[2:])
    return found if "precision" in found else None


def nim_model_deployment(
    reader: Reader,
    name: str,
    where: Span,
    image: str,
    image_span: Span,
    env: dict[str, Token],
    gpu: GpuFacts,
    hints: list[Label],
) -> list[Deployment]:
    """The deployment of a NIM image: of a workload, a NIMService, compose, the chart's values,
    or a KServe runtime's container (kserve.py)."""
    model = _model(reader, name, image, image_span, env, hints)
    if model is None:
        return []
    model_name, model_span = model
    assumed: dict[str, str] = {}
    unwritten: list[str] = []
    token = env.get(PROFILE)
    profile = read_profile(token.text) if token is not None and token.readable else None
    pin = f"pin one with {PROFILE} (its name from `list-model-profiles` in the image)"
    if token is not None and profile is None and token.text.strip():
        if not token.readable:
            what = f"{PROFILE} is a value hbmlint cannot read here ({token.unresolved[0]})"
        elif _HEX_ID.match(token.text.strip()):
            what = f"{PROFILE}={token.text.strip()} is a profile id, whose backend, precision "
            what += "and parallelism are in the image's manifest, not in the file"
        else:
            what = f"{PROFILE}={token.text.strip()} names no backend and precision hbmlint reads"
        reader.findings.append(
            input_diagnostic(
                "HBM011",
                f"{what}; hbmlint budgets it as the least demanding profile NIM could pick",
                reader.display,
                token.span,
                name,
                [
                    f"Set {PROFILE} to the profile's name (vllm-bf16-tp2-pp1) instead of its "
                    "id: NIM accepts either"
                ],
            )
        )
    engine = profile["backend"] if profile else "trtllm"
    sglang_env = env.get("NIM_USE_SGLANG")
    if profile is None and sglang_env is not None and sglang_env.text.strip() in ("1", "true"):
        engine = "sglang"
    flags = _FLAGS[engine]
    argv = [Token(flags["model"], model_span), Token(model_name, model_span)]

    def add(field: str, value: str | Token, span: Span) -> None:
        word = value if isinstance(value, Token) else Token(value, span)
        argv.extend([Token(flags[field], span), word])

    tp = env.get("NIM_TENSOR_PARALLEL_SIZE")
    pp = env.get("NIM_PIPELINE_PARALLEL_SIZE")
    if gpu.count is None and tp is None and not (profile and "tp" in profile):
        # NIM picks the profile's TP from the GPUs it finds; one GPU would be a guess that
        # claims errors the GPUs it really gets avoid
        reader.findings.append(
            input_diagnostic(
                "HBM011",
                "the file does not say how many GPUs this NIM gets (no GPU limit, or a count "
                "of `all` or a variable), and NIM picks the profile's parallelism from the GPUs "
                "it finds; this NIM is not budgeted",
                reader.display,
                gpu.count_span or image_span,
                name,
                [
                    "Give the container a GPU count, or set NIM_TENSOR_PARALLEL_SIZE or a "
                    f"profile name in {PROFILE}"
                ],
            )
        )
        return []
    stages = int(pp.text) if pp is not None and pp.text.isdigit() else None
    if tp is not None:
        add("tp", tp, tp.span)
    elif profile and "tp" in profile:
        add("tp", str(profile["tp"]), token.span)
    elif gpu.count and gpu.count > 1:
        shards = gpu.count // (stages or (profile or {}).get("pp") or 1) or 1
        add("tp", str(shards), gpu.count_span or where)
        unwritten.append("parallel.tensor")
        assumed["tensor_parallel"] = (
            f"{shards}: the profile is not pinned, and a NIM profile's TP is at most the GPUs it "
            f"finds; the widest spread is the least memory a GPU; {pin}"
        )
    if pp is not None and "pp" in flags:
        add("pp", pp, pp.span)
    elif profile and profile.get("pp", 1) > 1 and "pp" in flags:
        add("pp", str(profile["pp"]), token.span)
    length = env.get("NIM_MAX_MODEL_LEN")
    if length is not None:
        add("len", length, length.span)
    else:
        add("len", str(ONE_BLOCK), model_span)
        unwritten.append("serving.max_model_len")
        assumed["max_model_len"] = (
            f"{ONE_BLOCK} (one KV block): NIM_MAX_MODEL_LEN is not set, so the context length "
            "is NIM's to choose for the profile; set it to check a length"
        )
        reader.findings.append(
            input_diagnostic(
                "HBM011",
                "NIM_MAX_MODEL_LEN is not set, so NIM chooses the context length with the "
                "profile; hbmlint checks only that the weights fit with room for one KV block",
                reader.display,
                model_span,
                name,
                ["Set NIM_MAX_MODEL_LEN in the container's env to check a context length"],
            )
        )
    seqs = env.get("NIM_MAX_NUM_SEQS")
    if seqs is not None:
        add("seqs", seqs, seqs.span)
    elif profile is None and engine == "trtllm":
        # TensorRT-LLM's own default batch (2048) holds a logits buffer of GiBs that NIM's
        # engines, built for their profile, need not have
        add("seqs", str(BATCH), where)
        unwritten.append("serving.max_num_seqs")
        assumed["max_num_seqs"] = (
            f"{BATCH} (vLLM's default batch, the smallest among NIM's backends; the logits "
            f"buffer grows with it): the profile is not pinned; {pin}"
        )
    fraction = env.get("NIM_KVCACHE_PERCENT")
    if fraction is not None:
        add("fraction", fraction, fraction.span)
    if profile is None and "batched" in flags:
        # the activations grow with the tokens of one step: the smallest default among NIM's
        # backends (vLLM's 2048 on most GPUs), as the rest of the unpinned budget is the least
        add("batched", str(BATCHED_TOKENS), where)
        unwritten.append("serving.max_num_batched_tokens")
        assumed["max_num_batched_tokens"] = (
            f"{BATCHED_TOKENS} (the fewest tokens a step of NIM's backends takes by default; "
            f"the activations grow with it): the profile is not pinned; {pin}"
        )
    command = _parse(engine, argv, where)
    deployment, findings = build(
        command,
        name=name,
        display=reader.display,
        document=reader.document.index,
        gpu=gpu,
        where=where,
        hints=hints,
    )
    reader.findings.extend(findings)
    if deployment is None:
        return []
    deployment.source_format = NAME
    # the command line is hbmlint's reading of NIM's env, not text of the file: no edit to write
    deployment.writer = None
    for field in unwritten:
        # a value hbmlint chose, not one the file writes: listed as assumed, at no line
        deployment.locations.pop(field, None)
    if profile is not None:
        dtype, quantization = _PRECISIONS[profile["precision"]]
        deployment.model.dtype = dtype or deployment.model.dtype
        deployment.model.quantization = quantization
        deployment.locations["model.quantization"] = token.span
        assumed["engine"] = (
            f"{engine}, {profile['precision']}: the pinned profile {token.text.strip()}"
        )
    else:
        deployment.model.quantization = LOWER_BOUND
        backend = (
            "SGLang (NIM_USE_SGLANG)"
            if engine == "sglang"
            else (
                "TensorRT-LLM's memory rule (the KV cache from what the weights leave), the least "
                "strict of NIM's backends"
            )
        )
        assumed["quantization"] = (
            "4 bits a weight: the profile is not pinned, and no profile NIM ships stores "
            f"weights in less (nvfp4, int4_awq), so a refusal holds for any it picks; {pin}"
        )
        assumed["engine"] = f"{backend}: the profile is not pinned; {pin}"
        if deployment.serving.kv_cache_dtype in (None, "auto"):
            # FP8 (one byte) is the smallest KV cache a NIM backend keeps (TensorRT-LLM's
            # FP8 profiles, vLLM's and SGLang's fp8 caches): a refusal then holds for any
            deployment.serving.kv_cache_dtype = "fp8"
            assumed["kv_cache_dtype"] = (
                "fp8 (one byte a value, the smallest KV cache NIM's backends keep): the "
                f"profile is not pinned, so a refusal holds whichever it picks; {pin}"
            )
    parts = nim_image(image)
    release = parts[2] if parts else None
    assumed["engine_version"] = (
        f"the backend release inside NIM {release or '(untagged)'}, which the image's tag does "
        "not name: the budget takes the backend's current defaults"
    )
    deployment.assumed.update(assumed)
    return [deployment]


_FLAGS = {
    "vllm": {
        "model": "--model",
        "tp": "--tensor-parallel-size",
        "pp": "--pipeline-parallel-size",
        "len": "--max-model-len",
        "seqs": "--max-num-seqs",
        "fraction": "--gpu-memory-utilization",
    },
    "trtllm": {
        "model": "--model",
        "tp": "--tensor-parallel-size",
        "pp": "--pipeline-parallel-size",
        "len": "--max-seq-len",
        "seqs": "--max-batch-size",
        "fraction": "--free-gpu-memory-fraction",
        "batched": "--max-num-tokens",
    },
    "sglang": {
        "model": "--model-path",
        "tp": "--tp-size",
        "pp": "--pp-size",
        "len": "--context-length",
        "seqs": "--max-running-requests",
        "fraction": "--mem-fraction-static",
        "batched": "--chunked-prefill-size",
    },
}


def _parse(engine: str, argv: list[Token], where: Span) -> EngineCommand:
    if engine == "vllm":
        return vllm.parse(argv, where, {})
    if engine == "sglang":
        return sglang.parse(argv, where, {})
    return trtllm.parse_dynamo(argv, where)
