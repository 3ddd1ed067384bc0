"""docker-compose files: each service that runs vLLM, SGLang or TGI (by its ``command`` /
``entrypoint``, or an engine image's own entrypoint) is one Deployment.

``command`` may be a list or one string (Compose splits it like a shell, without running one);
``${VAR}`` in it is Compose interpolation from the host's environment, which hbmlint cannot see.
The GPU count comes from ``deploy.resources.reservations.devices`` (``count`` or
``device_ids``); Compose never names a GPU type, so that comes from ``--gpu``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import ENGINE_WORDS, image_engine, image_version, read_invocation
from ..engines.args import Token
from ..engines.shell import Locator, split_words
from ..spec import Deployment
from ..yamlsrc import YamlDocument
from .build import GpuFacts, build

NAME = "compose"


def _runs_engine(service: Any) -> bool:
    if not isinstance(service, dict):
        return False
    text = " ".join(str(service.get(k, "")) for k in ("command", "entrypoint"))
    if any(word in text for word in ENGINE_WORDS):
        return True
    return "entrypoint" not in service and image_engine(service.get("image")) is not None


def detect(data: Any) -> bool:
    if not isinstance(data, dict) or not isinstance(data.get("services"), dict):
        return False
    return any(_runs_engine(s) for s in data["services"].values())


def _words(document: YamlDocument, path: tuple) -> list[Token]:
    value = document.data
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    if value is None:
        return []
    if isinstance(value, list):
        return [Token(str(v), document.span((*path, i))) for i, v in enumerate(value)]
    span = document.span(path)
    return split_words(str(value), {}, Locator(document.text, span), span)


def _environment(document: YamlDocument, path: tuple, env: Any) -> dict[str, Token]:
    out: dict[str, Token] = {}
    if isinstance(env, dict):
        for key, value in env.items():
            if value is not None:
                out[str(key)] = Token(str(value), document.span((*path, key)))
    elif isinstance(env, list):
        for i, item in enumerate(env):
            name, eq, value = str(item).partition("=")
            if eq:
                out[name] = Token(value, document.span((*path, i)))
    return out


def to_deployments(
    document: YamlDocument, path: Path, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    deployments: list[Deployment] = []
    findings: list[Diagnostic] = []
    for service_name, service in document.data["services"].items():
        if not _runs_engine(service):
            continue
        spath = ("services", service_name)
        env = _environment(document, (*spath, "environment"), service.get("environment"))
        argv = _words(document, (*spath, "entrypoint")) + _words(document, (*spath, "command"))
        image = service.get("image") if "entrypoint" not in service else None
        command = read_invocation(
            argv,
            env,
            document.text,
            image=image,
            image_span=document.span((*spath, "image")),
            k8s_expansion=False,
        )
        if command is None:
            continue
        name = str(service_name)
        gpu = _gpus(document, spath, service, findings, name, display)
        version = image_version(service.get("image"))
        deployment, found = build(
            command,
            name=name,
            display=display,
            document=document.index,
            gpu=gpu,
            where=document.key_span(spath),
            engine_version=(version, document.span((*spath, "image"))) if version else None,
        )
        findings.extend(found)
        if deployment is not None:
            deployments.append(deployment)
    return deployments, findings


def _gpus(
    document: YamlDocument, spath: tuple, service: dict, findings: list, name: str, display: str
) -> GpuFacts:
    devices_path = (*spath, "deploy", "resources", "reservations", "devices")
    devices = service.get("deploy", {}) or {}
    for key in ("resources", "reservations", "devices"):
        devices = devices.get(key) if isinstance(devices, dict) else None
    total, span = 0, None
    for i, device in enumerate(devices if isinstance(devices, list) else []):
        if not isinstance(device, dict):
            continue
        if "count" in device:
            value = device["count"]
            where = document.span((*devices_path, i, "count"))
            if str(value).lower() == "all":
                return GpuFacts(count_span=where)  # every GPU of the host: count unknown
            try:
                total += int(str(value))
            except ValueError:
                findings.append(
                    input_diagnostic(
                        "HBM004",
                        f"devices count: '{value}' is not a whole number or all",
                        display,
                        where,
                        name,
                    )
                )
                continue
            span = span or where
        elif isinstance(device.get("device_ids"), list):
            total += len(device["device_ids"])
            span = span or document.span((*devices_path, i, "device_ids"))
    return GpuFacts(count=total or None, count_span=span)
