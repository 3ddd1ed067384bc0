"""Turn an EngineCommand (what an engine invocation sets) plus what the surrounding manifest
says about GPUs into a Deployment, with every field located in the user's file."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import field, fields, replace
from functools import lru_cache
from typing import Any

from ..catalog import release as release_number
from ..catalog import release_at_most, vendor_image_release
from ..diagnostics import Diagnostic, Severity, input_diagnostic
from ..engines import docker_reference, sglang, vllm
from ..engines.args import EngineCommand, Item, Token, refused_at, release_floor
from ..engines.sglang import token_map_assumption, token_map_vocab
from ..lazyre import LazyPattern
from ..records import dataclass
from ..rewrite import ArgvWriter
from ..spec import (
    MOUNTED_FROM,
    Deployment,
    GpuSpec,
    Label,
    ModelRef,
    ParallelSpec,
    ServingSpec,
    SpeculativeSpec,
)
from ..yamlsrc import Span

_NO_MODEL = {
    "sglang": "give it with --model-path",
    "trtllm": "give it as `trtllm-serve MODEL` or, to Dynamo's worker, with --model-path",
}

# each engine as a finding names it
_ENGINE_NAMES = {"vllm": "vLLM", "sglang": "SGLang", "tgi": "TGI", "trtllm": "TensorRT-LLM"}

# Engine images built for CPUs (vLLM's vllm-openai-cpu, vllm-cpu-release-repo, a "-cpu" tag):
# they run without a GPU, so there is no HBM to budget
_CPU_IMAGE = re.compile(r"(^|[/_.-])cpu([/_.:-]|$)|[:-]cpu[\w.-]*$", re.I)
# CPU builds whose name does not say so: OPEA's opea/vllm is vLLM's Dockerfile.cpu for Xeon
# (opea-project/GenAIComps comps/third_parties/vllm; its Gaudi build is opea/vllm-gaudi)
_CPU_REPOSITORIES = frozenset(("opea/vllm", "docker.io/opea/vllm"))


def cpu_image(image: Any) -> bool:
    """Whether ``image`` names an engine build for CPUs (``vllm/vllm-openai-cpu:v0.23.0``)."""
    return isinstance(image, str) and _cpu_image(image)


# The image facts below are keyed on the image as written: each reads only its text (and
# hbmlint's own vendor table, which a run never changes), a case-blind search costs more than
# reading a dozen words, and a run's manifests name a handful of images, each in many files.
@lru_cache(maxsize=256)
def _cpu_image(image: str) -> bool:
    bare = image.rsplit("@", 1)[0]
    if bare.rsplit(":", 1)[0].lower() in _CPU_REPOSITORIES:
        return True
    return bool(_CPU_IMAGE.search(bare))


# llm-d's inference simulator (ghcr.io/llm-d/llm-d-inference-sim, earlier ghcr.io/llm-d/vllm-sim):
# it answers vLLM's API with made-up tokens and loads no model, so there is no HBM to budget
_SIMULATOR_IMAGE = re.compile(r"(^|/)(llm-d-inference-sim|vllm-sim)(:|@|$)", re.I)


def simulator_image(image: Any) -> bool:
    """Whether ``image`` is llm-d's inference simulator (``ghcr.io/llm-d/llm-d-inference-sim``)."""
    return isinstance(image, str) and _simulator_image(image)


@lru_cache(maxsize=256)
def _simulator_image(image: str) -> bool:
    return bool(_SIMULATOR_IMAGE.search(image.strip()))


@lru_cache(maxsize=256)
def _vendor_release(image: str) -> tuple[str, str] | None:
    """The (engine, release) a vendor image ships, as build() asks for it."""
    return vendor_image_release(docker_reference(image))


@dataclass
class GpuFacts:
    """What a manifest says about the GPUs of one replica, with where it says it."""

    type: str | None = None
    type_span: Span | None = None
    memory: Any = None  # pint Quantity of bytes
    memory_span: Span | None = None
    count: int | None = None  # GPUs of one engine instance (the pod, or the LWS group)
    count_span: Span | None = None
    # how the count is known when not from a GPU request ("visible (CUDA_VISIBLE_DEVICES=1)")
    count_why: str | None = None
    # node labels the pod requires; resolve picks the GPU from them (catalog/labels.py)
    labels: list[Label] = field(default_factory=list)
    pods: int | None = None  # GpuSpec.pods


# an entry of CUDA_VISIBLE_DEVICES or NVIDIA_VISIBLE_DEVICES: an index, or a GPU / MIG UUID
_DEVICE = LazyPattern(r"^(\d+|GPU-[0-9a-fA-F-]+|MIG-[0-9a-zA-Z/-]+)$")


def device_count(text: str) -> int | None:
    """How many devices a *_VISIBLE_DEVICES value lists; None for anything but a plain list of
    indices or UUIDs (empty, ``all``, ``-1``, a placeholder)."""
    entries = [part.strip() for part in text.split(",")]
    return len(entries) if text.strip() and all(_DEVICE.match(e) for e in entries) else None


def visible_devices(
    gpu: GpuFacts, visible: Token | None, command: EngineCommand, text: str = ""
) -> GpuFacts:
    """CUDA_VISIBLE_DEVICES in the engine's environment (a compose service's, a script's
    export): the engine sees only the devices it lists, whatever the service reserves
    (``count: all`` included), and vLLM and SGLang refuse a tensor x pipeline size above what
    they see. Only a plain list of indices or UUIDs is read; anything else (empty, -1, a
    placeholder) leaves the count as the reservation says. The list is each node's: with
    ``--nnodes N`` the instance has N times as many, and on a Ray cluster (vLLM's ray backend,
    or a ``text`` that starts or joins one) the other nodes' GPUs are not in the file. (Without
    one, vLLM tries Ray on its own node when the parallelism is more than it sees, and waits
    for GPUs that node does not have.)"""
    if visible is None or not visible.readable:
        return gpu
    listed = device_count(visible.text)
    if listed is None or _on_ray(command, text):
        return gpu
    nodes = command.nodes or 1
    count = listed * nodes
    if gpu.count is not None and gpu.count <= count:
        return gpu
    each = f" on each of {nodes} nodes" if nodes > 1 else ""
    return replace(
        gpu,
        count=count,
        count_span=visible.span,
        count_why=f"visible (CUDA_VISIBLE_DEVICES={visible.text.strip()}{each})",
    )


def nvidia_runtime_devices(gpu: GpuFacts, visible: Token | None) -> GpuFacts:
    """NVIDIA_VISIBLE_DEVICES under the NVIDIA container runtime (compose ``runtime: nvidia``,
    ``docker run --runtime nvidia``) where nothing else requests GPUs: the devices the runtime
    gives the container (a list of indices or UUIDs; ``all`` and anything else leave the count
    open, as before)."""
    if gpu.count is not None or gpu.count_span is not None:
        return gpu  # a device request (--gpus, deploy devices) decides
    if visible is None or not visible.readable:
        return gpu
    count = device_count(visible.text)
    if count is None:
        return gpu
    why = f"given (NVIDIA_VISIBLE_DEVICES={visible.text.strip()} under the NVIDIA runtime)"
    return replace(gpu, count=count, count_span=visible.span, count_why=why)


def container_given(value: Token | None, command: EngineCommand, text: str) -> GpuFacts:
    """The GPUs ``docker run --gpus VALUE`` gives the engine's container (``2``, ``count=2``, a
    quoted ``"device=0,1"``: docker reads the value as one CSV record, so a list of devices is
    quoted inside it), as visible_devices counts a list: each node's, times ``--nnodes``; no
    count for ``all`` or a value hbmlint cannot read, nor on a Ray cluster, whose other nodes'
    GPUs are not in the file."""
    count = docker_gpus(value.text) if value is not None and value.readable else None
    if value is None or count is None or _on_ray(command, text):
        return GpuFacts()
    nodes = command.nodes or 1
    each = f" on each of {nodes} nodes" if nodes > 1 else ""
    return GpuFacts(
        count=count * nodes,
        count_span=value.span,
        count_why=f"given (docker --gpus {value.text}{each})",
    )


def docker_gpus(text: str) -> int | None:
    """How many GPUs ``docker run --gpus TEXT`` gives (``2``, ``count=2``, ``"device=0,1"``);
    None for ``all`` or anything else."""
    import csv

    try:
        rows = list(csv.reader([text]))
    except csv.Error:
        return None
    for entry in rows[0] if len(rows) == 1 else ():
        key, eq, rest = entry.strip().partition("=")
        if not eq and key.isdigit():
            return int(key)
        if key == "count" and rest.isdigit():
            return int(rest)
        if key == "device" and rest:
            return len(rest.split(","))
    return None


# vLLM's examples/online_serving/multi-node-serving.sh runs `ray start` itself: `leader
# --ray_cluster_size=N` starts the head and waits until N nodes (itself and N - 1 workers) joined
_RAY_CLUSTER = LazyPattern(
    r"\bray\s+start\b|\bRAY_ADDRESS\b|\bray\.init\(|\bmulti-node-serving\.sh\b"
)
_RAY_CLUSTER_SIZE = LazyPattern(
    r"(?s)\bmulti-node-serving\.sh\s+leader\b.{0,400}?--ray_cluster_size[= ](\d+)\b"
)


def on_ray_cluster(
    gpu: GpuFacts, command: EngineCommand, argv: Sequence[Token], display: str, name: str
) -> tuple[GpuFacts, list[Diagnostic]]:
    """A pod that starts or joins a Ray cluster itself (``ray start --head`` before the engine,
    or RAY_ADDRESS): vLLM places the tensor x pipeline ranks its own GPUs cannot hold on the
    cluster's other nodes (vllm/config ParallelConfig picks Ray when the world size is more
    than the GPUs it sees), and those nodes' pods are other files. The pod's GPUs then bound
    nothing: the count is left out, with a note, instead of claiming the engine cannot start."""
    need = (command.values.get("parallel.tensor") or 1) * (
        command.values.get("parallel.pipeline") or 1
    )
    if gpu.count is None or gpu.count >= need:
        return gpu, []
    text = " ".join(t.text for t in argv)  # the words joined only here
    if not _RAY_CLUSTER.search(text):
        return gpu, []
    size = _RAY_CLUSTER_SIZE.search(text)
    if size is not None and gpu.count * int(size.group(1)) >= need:
        # the leader waits for a cluster of that many nodes, each a pod like this one: the
        # engine instance spans their GPUs
        return replace(gpu, count=gpu.count * int(size.group(1))), []
    note = input_diagnostic(
        "HBM011",
        f"this pod starts or joins a Ray cluster and requests {gpu.count} "
        f"GPU{'s' if gpu.count != 1 else ''}, fewer than tensor x pipeline parallelism "
        f"({need}): the engine places the other ranks on the cluster's other nodes, whose GPUs "
        "are not in this file, so the GPU count is not checked",
        display,
        gpu.count_span or command.span,
        name,
    )
    return replace(gpu, count=None, count_span=None), [note]


def _tgi_shards_over_unknown_gpus(command: EngineCommand, gpu: GpuFacts) -> bool:
    """TGI with no --num-shard, not told --sharded false, on a GPU count the file leaves open."""
    v = command.values
    if command.engine != "tgi" or gpu.count is not None or not v.get("model.name"):
        return False
    return "parallel.tensor" not in v and v.get("parallel.tgi_sharded") is not False


def _on_ray(command: EngineCommand, text: str) -> bool:
    for item in command.items:
        if item.name == "--distributed-executor-backend" and item.value is not None:
            return item.value.text.strip() == "ray"
    return bool(_RAY_CLUSTER.search(text))


def _too_few_visible(command: EngineCommand, gpu: GpuFacts) -> str | None:
    """Why the engine cannot start on the GPUs CUDA_VISIBLE_DEVICES leaves it, from its
    tensor and pipeline parallelism alone (for a deployment with no model to budget)."""
    if not gpu.count_why or gpu.count is None or gpu.count_span is None:
        return None
    need = (command.values.get("parallel.tensor") or 1) * (
        command.values.get("parallel.pipeline") or 1
    )
    if need <= gpu.count:
        return None
    return (
        f"{gpu.count} GPU{'s' if gpu.count != 1 else ''} {gpu.count_why} but tensor x "
        f"pipeline parallelism is {need}; the "
        "engine cannot start with fewer GPUs than that"
    )


def _pins(engine_version: str | None) -> bool:
    """Whether the manifest pins the engine's release (not an upper bound an image's date
    gives): what that release refuses, it refuses for certain."""
    return release_number(engine_version) is not None and not release_at_most(engine_version)


def notes_as_findings(
    command: EngineCommand,
    display: str,
    name: str,
    engine_version: str | None = None,
    floor: str | None = None,
) -> list[Diagnostic]:
    """The command's notes as findings, less those that hold only from a release after the one
    ``engine_version`` pins; ``floor``: the release an image that pins none holds at least (a
    vLLM nightly), which refuses what was removed by then."""
    have = release_number(engine_version)
    pinned = _pins(engine_version)
    least = release_number(floor) if have is None and floor else None

    def floored(note: Any) -> bool:
        return (
            bool(note.refused_from)
            and least is not None
            and least >= release_number(note.refused_from)
        )

    def severity(note: Any) -> Severity | None:
        if note.refused_from and pinned and have >= release_number(note.refused_from):
            return Severity.ERROR
        if floored(note):
            return Severity.ERROR
        return Severity.parse(note.severity) if note.severity else None

    def message(note: Any) -> str:
        if not floored(note):
            return note.message
        return (
            f"{note.message}; a vLLM nightly image is a build of main from September 2025 on "
            f"(vllm-project/vllm#24102), past {floor}, so every one refuses it"
        )

    return [
        input_diagnostic(n.code, message(n), display, n.span, name, list(n.fixes), severity(n))
        for n in command.notes
        if n.since is None or have is None or have >= release_number(n.since)
    ]


# each engine's table of removed flags, by its name
_REMOVED_FLAGS = {vllm.NAME: vllm.removed_flags, sglang.NAME: sglang.removed_flags}
# the parallel sizes that set the memory each GPU holds
_SHAPE = frozenset(("parallel.tensor", "parallel.pipeline"))


def build(
    command: EngineCommand,
    *,
    name: str,
    display: str,
    document: int,
    gpu: GpuFacts,
    where: Span,
    engine_version: tuple[str, Span] | None = None,
    hints: list[Label] | None = None,
    image: Any = None,
) -> tuple[Deployment | None, list[Diagnostic]]:
    """The Deployment, or None (with the reason as a finding) when it has no readable model.
    ``hints`` are the workload's labels and annotations that may name its model or GPU;
    ``image`` the engine's image: a CPU build that asks for no GPU is an info, not a budget."""
    vendor = _vendor_release(image) if isinstance(image, str) else None
    if vendor is not None and vendor[0] != command.engine:
        engine_version = None  # a Dynamo runtime of one backend running another's command
    release = engine_version[0] if engine_version else None
    floor = release_floor(image) if release is None else None
    findings = notes_as_findings(command, display, name, release, floor)
    removed = _REMOVED_FLAGS.get(command.engine)
    if removed is not None:
        # a release the manifest pins (not an upper bound an image's date gives), or a nightly
        # image past the flag's removal, refuses the flag for certain: argparse stops the
        # server at start-up
        pinned = _pins(release)
        findings += [
            input_diagnostic(
                "HBM010",
                message,
                display,
                span,
                name,
                [fix],
                Severity.ERROR if pinned or certain else None,
            )
            for message, span, fix, certain in removed(
                command, release, image if isinstance(image, str) else None
            )
        ]
    findings += [
        input_diagnostic("HBM004", message, display, span, name, [fix], Severity.parse(severity))
        for message, span, fix, severity in refused_at(
            command, release, _ENGINE_NAMES.get(command.engine, command.engine)
        )
    ]
    v = command.values
    # (most commands leave nothing unread: no set to make then)
    shape = sorted(_SHAPE & command.unread.keys()) if command.unread else []
    if shape and gpu.count != 1 and not command.model_unreadable:
        # the engine default (1) would budget the whole model on each GPU: a false error
        # where the variable spreads it over several
        findings.append(
            input_diagnostic(
                "HBM011",
                "the tensor or pipeline parallelism is a value hbmlint cannot read, and the "
                "memory each GPU holds depends on it"
                + (f" ({gpu.count} GPUs)" if gpu.count else "")
                + ", so this deployment is not budgeted",
                display,
                command.unread[shape[0]],
                name,
                ["Write the parallelism as a number, or lint the rendered manifest"],
            )
        )
        return None, findings
    if _tgi_shards_over_unknown_gpus(command, gpu):
        # TGI's launcher sets --num-shard to the GPUs it sees (find_num_shards); budgeting one
        # would put the whole model on each GPU: a false error where the host has several
        findings.append(
            input_diagnostic(
                "HBM011",
                "TGI splits the model over every GPU it sees unless --num-shard (NUM_SHARD) "
                "says how many, and this file does not say how many GPUs the container sees "
                "(no GPU count, such as docker's --gpus 2 or a GPU request, and no "
                "CUDA_VISIBLE_DEVICES), so this deployment is not budgeted",
                display,
                command.span,
                name,
                ["Set --num-shard N (NUM_SHARD), or CUDA_VISIBLE_DEVICES to the GPUs it uses"],
            )
        )
        return None, findings
    if simulator_image(image):
        findings.append(
            input_diagnostic(
                "HBM014",
                f"the container runs llm-d's inference simulator ({image}), which loads no "
                "model and holds no KV cache: there is no HBM to budget, so this deployment "
                "is not checked",
                display,
                where,
                name,
            )
        )
        return None, findings
    if cpu_image(image) and not gpu.count and not gpu.type and not gpu.labels:
        findings.append(
            input_diagnostic(
                "HBM014",
                f"the engine runs from a CPU image ({image}) and asks for no GPU: there is no "
                "HBM to budget, so this deployment is not checked",
                display,
                where,
                name,
            )
        )
        return None, findings
    if command.launches > 1 and gpu.count:
        # several engines share the container's GPUs: which ones each gets is the script's
        # business (CUDA_VISIBLE_DEVICES per launch); each is budgeted on its own parallelism
        findings.append(
            input_diagnostic(
                "HBM011",
                "the script runs the engine more than once at a time (in the background with "
                f"&, in a loop or on several lines), and the launches share the container's "
                f"{gpu.count} GPUs: each is budgeted like this one, on the GPUs its own "
                "parallelism uses",
                display,
                command.span,
                name,
            )
        )
        gpu = replace(gpu, count=None, count_span=None)
    if v.get("parallel.data_local") == 0:
        findings.append(
            input_diagnostic(
                "HBM014",
                "--data-parallel-size-local 0: this vLLM runs only the API server, and its "
                "engines (with the model's memory) run on other nodes; there is no HBM to "
                "budget here, so this deployment is not checked",
                display,
                command.locations["parallel.data_local"],
                name,
            )
        )
        return None, findings
    if command.model_unreadable:
        # the finding that says why is already among the notes; fewer GPUs visible than the
        # parallelism is a refusal whatever the model (resolve says it where there is one)
        short = _too_few_visible(command, gpu)
        if short:
            findings.append(input_diagnostic("HBM007", short, display, gpu.count_span, name))
        return None, findings
    if not v.get("model.name") and command.engine == "tgi":
        # TGI's launcher reads --model-id from MODEL_ID, then defaults to bigscience/bloom-560m
        # (huggingface/text-generation-inference@db931fc launcher/src/main.rs:588): it starts
        # whatever the file leaves out, on a model hbmlint cannot see from here
        findings.append(
            input_diagnostic(
                "HBM011",
                "text-generation-launcher is given no --model-id here, so TGI takes MODEL_ID "
                "from the environment that runs it (bigscience/bloom-560m when that is unset), "
                "which hbmlint cannot see; this deployment is not checked. To check it, give "
                "the model with --model-id or set MODEL_ID where the file can show it",
                display,
                command.span,
                name,
            )
        )
        return None, findings
    if not v.get("model.name"):
        if command.engine == vllm.NAME:
            message, severity = vllm.without_model(command, release)
        else:
            message = f"the {command.engine} command names no model; {_NO_MODEL[command.engine]}"
            severity = "error"
        findings.append(
            input_diagnostic(
                "HBM003", message, display, command.span, name, severity=Severity.parse(severity)
            )
        )
        return None, findings

    locations = dict(command.locations)
    locations[""] = where
    locations["gpu"] = gpu.type_span or gpu.count_span or where
    for path, span in (
        ("gpu.type", gpu.type_span),
        ("gpu.memory", gpu.memory_span),
        ("gpu.count", gpu.count_span),
    ):
        if span is not None:
            locations[path] = span
    if "model.name" in locations:
        locations.setdefault("model", locations["model.name"])
    if engine_version is not None:
        locations["engine_version"] = engine_version[1]

    speculative = SpeculativeSpec()
    assumed: dict[str, str] = {}
    method = v.get("speculative.method")
    if method:
        draft = v.get("speculative.model")
        token_map = v.get("speculative.token_map")
        hot_vocab = token_map_vocab(token_map) if token_map else None
        if hot_vocab:
            assumed["speculative.hot_vocab_size"] = token_map_assumption(token_map)
        speculative = SpeculativeSpec(
            method=method,
            model=ModelRef(name=draft, quantization=v.get("speculative.quantization"))
            if draft
            else None,
            num_speculative_tokens=v.get("speculative.num_speculative_tokens"),
            tensor_parallel=v.get("speculative.tensor_parallel"),
            kv_cache_dtype=v.get("speculative.kv_cache_dtype"),
            max_model_len=v.get("speculative.max_model_len"),
            token_map=token_map,
            hot_vocab_size=hot_vocab,
            heterogeneous_vocab=v.get("speculative.heterogeneous_vocab"),
        )
    # the command's values placed among each record's arguments (its defaults, in field order)
    # in one pass over the few it sets; the records made with positional arguments: a class
    # called with keywords first makes a dict of them
    model = _MODEL_ARGS.copy()
    parallel = _PARALLEL_ARGS.copy()
    serving = _SERVING_ARGS.copy()
    sections = (model, parallel, serving)
    for path, value in v.items():
        placed = _RECORD_FIELDS.get(path)
        if placed is not None:
            sections[placed[0]][placed[1]] = value
    model[_SERVED_NAME] = _served_name(command.items)
    deployment = Deployment(
        name,
        display,
        document,
        command.engine,
        engine_version[0] if engine_version else None,
        # all the GPUs one engine instance requests: resolve splits them over tensor, pipeline
        # and data parallelism (and says when some would sit idle)
        GpuSpec(gpu.type, gpu.memory, gpu.count, gpu.count_why, list(gpu.labels), gpu.pods),
        ModelRef(*model),
        ParallelSpec(*parallel),
        ServingSpec(*serving),
        speculative,
        None,  # workload
        locations,
        None,  # source_format: lint.py sets it
        list(hints or []),
        assumed,
        {path: span for path, span in command.unread.items() if path != "model.name"},
        ArgvWriter(command.engine, list(command.items)),
    )
    return deployment, findings


# build()'s arguments of the Deployment's model (0), parallel (1) and serving (2) records, each
# record's defaults in its field order, and where a command's value goes by the command's path
# for it ("serving.max_model_len"): (the record, the field's position). A command sets a few of
# them (ServingSpec alone has 34), so its values are looked up here, not each field in its
# values. No field of the three has a default_factory (tests/test_build_positional_records.py).
_MODEL_FIELDS = ("name", "dtype", "quantization", "quantization_method")
_RECORDS = (ModelRef, ParallelSpec, ServingSpec)
_MODEL_ARGS, _PARALLEL_ARGS, _SERVING_ARGS = (
    [spec_field.default for spec_field in fields(record)] for record in _RECORDS
)
_RECORD_FIELDS = {
    f"{prefix}.{spec_field.name}": (section, position)
    for section, (prefix, record) in enumerate(
        zip(("model", "parallel", "serving"), _RECORDS, strict=True)
    )
    for position, spec_field in enumerate(fields(record))
    if prefix != "model" or spec_field.name in _MODEL_FIELDS
}
_SERVED_NAME = [spec_field.name for spec_field in fields(ModelRef)].index("served_name")


def _served_name(items: list[Item]) -> str | None:
    """The first name ``--served-model-name`` gives (every engine and Dynamo's workers spell it
    so), where it is readable."""
    for item in items:
        if item.name == "--served-model-name" and item.value is not None:
            return item.value.text if item.value.readable and item.value.text else None
    return None


def mounted_from(model: Any, host: str, target: str, span: Span) -> Label | None:
    """A MOUNTED_FROM hint at ``span`` where the model path is under a bind mount of ``host``
    at ``target`` (``-v /srv/models/NAME:/model`` for ``--model /model``, a Compose volume
    alike): resolve reads the model from the host directory's name. None for any other."""
    target = target.rstrip("/")
    if not isinstance(model, str) or not model.startswith("/") or "/" not in host or not target:
        return None
    if model != target and not model.startswith(target + "/"):
        return None
    return Label(MOUNTED_FROM, f"{model}\n{host.rstrip('/')}{model[len(target) :]}", span)
