"""Kthena ``ModelBooster`` (``workload.serving.volcano.sh/v1alpha1``, volcano-sh/kthena): the
controller turns the backend into a ModelServing whose engine container runs
``python3 -m vllm.entrypoints.openai.api_server --model PATH`` and then each key of the worker's
``config`` as ``--key value`` (keys sorted, ``_`` made ``-``, an empty value a bare flag), on
pods with the worker's ``resources``; ``vLLMDisaggregated`` gives a prefill and a decode engine,
one per worker of that type; a server worker of several ``pods`` is one engine over Ray.

Facts from kthena at 3cc0572 (2026-08-21): pkg/apis/workload/v1alpha1/model_booster_types.go,
pkg/model-booster-controller/convert/model_serving.go (BuildModelServing: vLLM and
vLLMDisaggregated only; buildCommands), pkg/model-booster-controller/utils/template.go
(ConvertVLLMArgsFromJson: values printed with Go's %v), webhook/model_validator.go.

PATH is where the downloader put ``modelURI``; the model it holds is ``modelURI`` itself
(``hf://ORG/NAME`` the Hub id; another scheme a storage URI to name with model-paths).
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import read_invocation
from ..engines.args import Token
from ..spec import Deployment
from ..yamlsrc import YamlDocument
from .build import GpuFacts
from .kubernetes import document_name
from .podspec import Path, Reader, env_list, node_labels, value_at

NAME = "kthena"
GROUP = "workload.serving.volcano.sh/"
KIND = "ModelBooster"
# the backend types kthena builds a workload for (BuildModelServing), and the worker types each
# runs an engine in
_WORKERS = {"vLLM": ("server",), "vLLMDisaggregated": ("prefill", "decode")}


def detect(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and data.get("kind") == KIND
        and str(data.get("apiVersion", "")).startswith(GROUP)
        and isinstance(data.get("spec"), dict)
    )


def go_value(value: Any) -> str:
    """``value`` as Go's ``fmt.Sprintf("%v")`` prints what encoding/json decoded it to (how
    kthena writes a config value on the command line): numbers are float64 (``1e+06`` from a
    million), booleans true/false, objects ``map[k:v ...]`` with sorted keys, lists ``[a b]``."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return _go_float(float(value))
    if isinstance(value, dict):
        items = " ".join(f"{k}:{go_value(value[k])}" for k in sorted(value, key=str))
        return f"map[{items}]"
    if isinstance(value, list):
        return "[" + " ".join(go_value(v) for v in value) + "]"
    return str(value)


def _go_float(number: float) -> str:
    """strconv.FormatFloat(number, 'g', -1, 64), as %v prints a float64: the shortest digits,
    in exponent form where the exponent is below -4 or 6 and above."""
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "+Inf" if number > 0 else "-Inf"
    if number == 0:
        return "0"
    sign, digits, exponent = Decimal(repr(number)).normalize().as_tuple()
    text = "".join(map(str, digits))
    point = len(text) + int(exponent)  # digits before the decimal point
    power = point - 1
    minus = "-" if sign else ""
    if power < -4 or power >= 6:
        mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
        return f"{minus}{mantissa}e{'-' if power < 0 else '+'}{abs(power):02d}"
    if point <= 0:
        return f"{minus}0.{'0' * -point}{text}"
    if point >= len(text):
        return f"{minus}{text}{'0' * (point - len(text))}"
    return f"{minus}{text[:point]}.{text[point:]}"


def to_deployments(
    document: YamlDocument, path: Any, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    reader = Reader(document, display)
    name, where = document_name(document, reader, KIND)
    data = document.data
    backend: Path = ("spec", "backend")
    kind = value_at(data, (*backend, "type"))
    if str(kind) not in _WORKERS:
        span = document.span((*backend, "type")) if kind is not None else where
        reader.findings.append(
            input_diagnostic(
                "HBM014",
                f"backend type {kind}: kthena builds a workload for vLLM and vLLMDisaggregated "
                "backends only (other types are refused by its controller, or run an engine "
                "hbmlint does not budget); this ModelBooster is not checked",
                display,
                span,
                name,
                ["Use backend type vLLM (or vLLMDisaggregated) to have its memory checked"],
            )
        )
        return [], reader.findings
    model = _model(document, backend)
    if model is None:
        reader.findings.append(
            input_diagnostic(
                "HBM014",
                "the backend names no modelURI, so the model is unknown; this ModelBooster is "
                "not checked",
                display,
                document.key_span(backend),
                name,
                ["Set spec.backend.modelURI (hf://ORG/NAME)"],
            )
        )
        return [], reader.findings
    env = env_list(document, (*backend, "env"))
    found: list[Deployment] = []
    workers = value_at(data, (*backend, "workers"))
    for i, worker in enumerate(workers if isinstance(workers, list) else []):
        if not isinstance(worker, dict) or str(worker.get("type")) not in _WORKERS[str(kind)]:
            continue
        at: Path = (*backend, "workers", i)
        role = str(worker.get("type"))
        label = name if kind == "vLLM" else f"{name}/{role}"
        found += _worker(reader, at, model, env, label)
    return found, reader.findings


def _model(document: YamlDocument, backend: Path) -> Token | None:
    uri = value_at(document.data, (*backend, "modelURI"))
    if uri is None or str(uri) == "":
        return None
    return Token(str(uri).removeprefix("hf://"), document.span((*backend, "modelURI")))


def _worker(
    reader: Reader, at: Path, model: Token, env: dict[str, Token], label: str
) -> list[Deployment]:
    if reader.other_accelerator(at, label):  # an Ascend NPU, a Gaudi...: an info, not budgeted
        return []
    document = reader.document
    launcher = document.key_span(at)
    argv = [
        Token(word, launcher)
        for word in ("python3", "-m", "vllm.entrypoints.openai.api_server", "--model")
    ]
    argv.append(model)
    config = value_at(document.data, (*at, "config"))
    for key in sorted(config if isinstance(config, dict) else {}, key=str):
        span = document.span((*at, "config", key))
        argv.append(Token("--" + str(key).replace("_", "-"), span))
        value = go_value(config[key])
        if value != "":
            argv.append(Token(value, span))
    image = value_at(document.data, (*at, "image"))
    image = None if image is None else str(image)
    image_span = document.span((*at, "image")) if image is not None else None
    command = read_invocation(argv, env, document.text, image, image_span)
    if command is None:
        return []
    return reader.build(command, label, _gpus(reader, at, label), launcher, image, image_span)


def _gpus(reader: Reader, at: Path, label: str) -> GpuFacts:
    """One engine's GPUs: the worker's GPU request per pod, times its pods for a server (one
    engine over Ray across them: buildCommands, workerReplicas = pods - 1); node labels from
    its affinity."""
    document = reader.document
    terms = (*at, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
    gpu = GpuFacts(labels=node_labels(document, None, (*terms, "nodeSelectorTerms")))
    count, span = reader.container_gpus(at, label)  # the worker's resources, as a container's
    pods = value_at(document.data, (*at, "pods"))
    # the vLLMDisaggregated template has no worker pods (workerReplicas: 0): a prefill or decode
    # engine is one pod whatever ``pods`` says
    server = value_at(document.data, (*at, "type")) == "server"
    if count is not None and server and isinstance(pods, int) and pods > 1:
        count *= pods
    gpu.count, gpu.count_span = count, span
    return gpu
