"""dstack run configurations (``.dstack.yml``): a ``type: service`` or ``type: task`` whose
``commands`` run an engine, with ``env`` and dstack's own variables expanded, and the GPUs of
``resources.gpu``.

``gpu`` is dstack's spec (dstackai/dstack src/dstack/_internal/core/models/resources.py
GPUSpec.parse): ``:``-separated tokens, each a vendor, names (``A10G,A100``: any of them), a
memory (``80GB``, a range ``24GB..40GB``, ``40GB..``; dstack's GB are GiB) or a count (``8``,
``1..2``); or a mapping of ``name``, ``memory``, ``count``; or a bare count. dstack may place the
run on any GPU the spec allows, so the budget is made for the one with the least memory, and the
least count of a range: it must hold on every offer. Memory alone (``gpu: 24GB``) is budgeted as
a GPU of that memory. ``nodes`` (a distributed task) run the commands on every node; an engine
whose parallelism needs more GPUs than one node has spans them all. ``replicas`` given as groups
(``- count: ..., commands:, resources:``, prefill and decode) are one deployment each.
Variables dstack sets (docs/reference/env.md): DSTACK_GPUS_NUM (all GPUs of the run),
DSTACK_GPUS_PER_NODE, DSTACK_NODES_NUM, DSTACK_NODE_RANK (0 on the node that serves).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .. import catalog
from ..catalog import devices
from ..diagnostics import Diagnostic
from ..engines import image_version, names_engine, read_invocation
from ..engines.args import Token
from ..spec import Deployment
from ..units import parse_quantity
from ..yamlsrc import YamlDocument
from . import accelerators
from .build import GpuFacts, build
from .multihost import engine_gpus
from .podspec import value_at

NAME = "dstack"
_TYPES = ("service", "task")
_VENDORS = ("nvidia", "amd", "google", "tpu", "intel")


def _groups(data: dict) -> list[tuple[Any, ...]]:
    """Paths of the parts that run commands: the replica groups, else the configuration."""
    replicas = data.get("replicas")
    if isinstance(replicas, list) and any(
        isinstance(g, dict) and "commands" in g for g in replicas
    ):
        return [("replicas", i) for i, g in enumerate(replicas) if isinstance(g, dict)]
    return [()]


def _script(data: dict, base: tuple) -> Any:
    part = value_at(data, base)
    commands = part.get("commands") if isinstance(part, dict) else None
    return commands if commands is not None else data.get("commands")


def detect(data: Any) -> bool:
    if not isinstance(data, dict) or "apiVersion" in data or "kind" in data:
        return False
    if data.get("type") not in _TYPES:
        return False
    for base in _groups(data):
        commands = _script(data, base)
        text = "\n".join(str(c) for c in commands) if isinstance(commands, list) else ""
        if names_engine(text) or "sglang" in text:
            return True
    return False


def _range_min(text: str) -> str:
    """The least value of a dstack range (``1..2``, ``24GB..``, ``..80GB``: that bound)."""
    low, dots, high = text.partition("..")
    return (low or high) if dots else text


def _spec(value: Any) -> dict[str, Any]:
    """dstack's GPU spec as names, memory (GiB, the least allowed) and count (the least)."""
    if isinstance(value, bool):
        return {}
    if isinstance(value, int):
        value = str(value)
    spec: dict[str, Any] = {}
    if isinstance(value, dict):
        names = value.get("name")
        if names is not None:
            spec["names"] = [str(n) for n in (names if isinstance(names, list) else [names])]
        for key in ("memory", "count"):
            if value.get(key) is not None:
                spec[key] = str(value[key])
        if value.get("vendor") is not None:
            spec["vendor"] = str(value["vendor"]).lower()
    elif isinstance(value, str):
        for token in value.replace(" ", "").split(":"):
            if token.lower() in _VENDORS:
                spec["vendor"] = token.lower()
            if not token or token.lower() in _VENDORS:
                continue
            if token[0].isalpha():
                spec["names"] = [n for n in token.split(",") if n]
            elif any(c.isalpha() for c in token):
                spec["memory"] = token
            else:
                spec["count"] = token
    if "memory" in spec:
        spec["memory"] = _gib(_range_min(spec["memory"]))
    if "count" in spec:
        try:
            spec["count"] = int(float(_range_min(spec["count"])))
        except ValueError:
            del spec["count"]
    return spec


def _gib(text: str) -> float | None:
    text = text.strip().lower()
    scale = {"tb": 1024.0, "gb": 1.0, "mb": 1 / 1024}
    for unit, factor in scale.items():
        if text.endswith(unit):
            try:
                return float(text[: -len(unit)]) * factor
            except ValueError:
                return None
    try:
        return float(text)
    except ValueError:
        return None


# dstack's TPU names (v2-8, v5litepod-4, v6e-8; also tpu-v5litepod-4)
_TPU = re.compile(r"(?:tpu-)?v\d+[a-z]*-\d+", re.I)


def _other_accelerator(document: YamlDocument, base: tuple) -> accelerators.OtherAccelerator | None:
    """A run on a device that is not a GPU: dstack's ``tpu``/``google`` vendor or a TPU name
    (``v5litepod-4``: 4 chips, not GPUs), or ``intel`` (Gaudi) with no AMD or NVIDIA name."""
    value, path = _gpu_value(document, base)
    if value is None:
        return None
    spec = _spec(value)
    names = spec.get("names") or []
    device = None
    if spec.get("vendor") in ("tpu", "google") or (names and all(_TPU.fullmatch(n) for n in names)):
        device = devices.TPU
    elif names and all(devices.not_a_gpu(n) for n in names):
        device = devices.not_a_gpu(names[0])
    elif spec.get("vendor") == "intel" and not any(catalog.find_gpu(n) for n in names):
        device = devices.GAUDI
    if device is None:
        return None
    return accelerators.OtherAccelerator(device, f"gpu: {value}", document.span(path))


def _gpu_value(document: YamlDocument, base: tuple) -> tuple[Any, tuple]:
    """The ``resources.gpu`` a group (or the run) asks for, and its path."""
    path = (*base, "resources", "gpu")
    value = value_at(document.data, path)
    if value is None:
        path = ("resources", "gpu")
        value = value_at(document.data, path)
    return value, path


def _gpu(document: YamlDocument, base: tuple) -> GpuFacts:
    value, path = _gpu_value(document, base)
    if value is None:
        return GpuFacts()
    span = document.span(path)
    spec = _spec(value)
    count = spec.get("count", 1)
    memory = spec.get("memory")
    names = spec.get("names") or []
    known = []
    for name in names:
        info = None
        if memory:  # `A100:40GB`: the catalog's entry of that size, where it has one
            info = catalog.find_gpu(f"{name}-{memory:g}GB")
        info = info or catalog.find_gpu(name)
        if info is not None:
            known.append((info.memory.to("GiB").magnitude, info.name))
    facts = GpuFacts(count=count, count_span=span)
    if known:
        # the alternative with the least memory: the budget must hold on every one
        facts.type, facts.type_span = min(known)[1], span
    elif names:
        facts.type, facts.type_span = names[0], span  # resolve says it is unknown
    elif memory:
        facts.memory = parse_quantity(f"{memory:g} GiB", "[information]")
        facts.memory_span = span
    return facts


def _env(document: YamlDocument, base: tuple) -> dict[str, Token]:
    """``env``: a list of ``NAME=VALUE`` (a bare ``NAME`` is taken from the user's shell when
    the run is applied: unknown here) or a mapping; a replica group's own over the whole's."""
    env: dict[str, Token] = {}
    for path in (("env",), (*base, "env") if base else None):
        if path is None:
            continue
        items = value_at(document.data, path)
        if isinstance(items, dict):
            for key, value in items.items():
                span = document.span((*path, key))
                if value is None:
                    env[str(key)] = Token(
                        "", span, (f"{key} is taken from the shell that runs dstack apply",)
                    )
                else:
                    env[str(key)] = Token(str(value), span)
        elif isinstance(items, list):
            for i, item in enumerate(items):
                key, eq, value = str(item).partition("=")
                span = document.span((*path, i))
                if eq:
                    env[key.strip()] = Token(value, span)
                else:
                    origin = f"{key} is taken from the shell that runs dstack apply"
                    env[key.strip()] = Token("", span, (origin,))
    return env


def to_deployments(
    document: YamlDocument, path: Path, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    data = document.data
    run_name = str(data.get("name") or Path(display).name.split(".")[0] or "dstack")
    nodes_raw = str(data.get("nodes", 1)).strip()
    nodes = int(nodes_raw) if nodes_raw.isdecimal() and int(nodes_raw) > 0 else 1
    nodes_span = document.span(("nodes",)) if "nodes" in data else document.span(())
    groups = _groups(data)
    deployments: list[Deployment] = []
    findings: list[Diagnostic] = []
    for base in groups:
        commands = _script(data, base)
        if not isinstance(commands, list):
            continue
        where_path = (
            (*base, "commands") if base and "commands" in value_at(data, base) else ("commands",)
        )
        span = document.span(where_path)
        other = _other_accelerator(document, base)
        gpu = _gpu(document, base)
        env = _env(document, base)
        where_gpu = gpu.count_span or document.span(())
        if gpu.count is not None:
            env["DSTACK_GPUS_PER_NODE"] = Token(str(gpu.count), where_gpu)
            env["DSTACK_GPUS_NUM"] = Token(str(gpu.count * nodes), where_gpu)
        env["DSTACK_NODES_NUM"] = Token(str(nodes), nodes_span)
        env["DSTACK_NODE_RANK"] = Token("0", nodes_span)
        script = "\n".join("" if c is None else str(c) for c in commands)
        argv = [Token("bash", span), Token("-c", span), Token(script, span)]
        command = read_invocation(argv, env, document.text)
        if command is None:
            continue
        name = run_name if len(groups) == 1 else f"{run_name}/{base[-1]}"
        if other is not None:
            findings.append(accelerators.not_budgeted(other, display, name))
            continue
        if gpu.count:
            gpu.count = engine_gpus(command, gpu.count, gpu.count * nodes)
        image = value_at(data, (*base, "image")) if base else None
        image_path = (*base, "image") if image else ("image",)
        image = image or data.get("image")
        version = image_version(image) if isinstance(image, str) else None
        deployment, found = build(
            command,
            name=name,
            display=display,
            document=document.index,
            gpu=gpu,
            where=document.key_span(where_path),
            engine_version=(version, document.span(image_path)) if version else None,
        )
        findings += found
        if deployment is not None:
            deployments.append(deployment)
    return deployments, findings
