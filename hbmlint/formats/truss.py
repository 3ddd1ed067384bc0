"""Baseten Truss ``config.yaml`` (``truss push``) running an engine's own server: the command
in ``docker_server.start_command``, the GPUs of ``resources.accelerator``.

``start_command`` is one shell line (most often ``sh -c "python3 -m sglang.launch_server ..."``),
run inside ``base_image.image`` with ``environment_variables`` set; its tag names the engine
release. ``accelerator`` is ``TYPE`` or ``TYPE:COUNT`` with Truss's own type names (truss
``truss/base/truss_config.py``, ``class Accelerator``): ``A100`` is the 80 GB card (``A100_40GB``
is the other), ``H100_40GB`` a MIG slice of an H100 (Baseten, "Using fractional H100 GPUs for
efficient model serving": two MIG instances per H100, 3g.40gb), ``RTX_PRO_6000`` the server
edition of the RTX PRO 6000 Blackwell. A model Truss downloads for the server is mounted where
the command reads it: ``weights`` at each entry's ``mount_location``, ``model_cache`` (with
``use_volume``) at ``/app/model_cache/<volume_folder>``; the directory is read as the
repository downloaded into it.

A Truss whose ``trt_llm`` block asks Baseten's TensorRT-LLM engine builder for the server is an
info: the builder's own schema sets the engine, and hbmlint does not read it.
Schema: https://docs.baseten.co/development/model/configuration
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic, input_diagnostic
from ..downloads import downloaded_label
from ..engines import image_version, read_invocation
from ..engines.args import Token
from ..spec import Deployment, Label
from ..yamlsrc import YamlDocument
from .build import GpuFacts, build

NAME = "truss"

# Truss's accelerator names, as the catalog names the card (a MIG slice as the node label GPU
# feature discovery writes for it, so the budget gets the slice's memory)
_ACCELERATORS = {
    "T4": "T4",
    "L4": "L4",
    "A10G": "A10G",
    "V100": "V100-SXM2-16GB",
    "A100": "A100-SXM4-80GB",
    "A100_40GB": "A100-SXM4-40GB",
    "H100": "H100-SXM-80GB",
    "H200": "H200-SXM-141GB",
    "B200": "B200",
    "L40S": "L40S",
    "RTX_PRO_6000": "RTX-PRO-6000-Blackwell-96GB",
}
_MIG = {"H100_40GB": "NVIDIA-H100-80GB-HBM3-MIG-3g.40gb"}
_MODEL_CACHE = "/app/model_cache"


def detect(data: Any) -> bool:
    if not isinstance(data, dict) or "apiVersion" in data or "kind" in data:
        return False
    server = data.get("docker_server")
    if isinstance(server, dict) and isinstance(server.get("start_command"), str):
        return True
    return isinstance(data.get("trt_llm"), dict) and isinstance(data.get("resources"), dict)


def _gpu(document: YamlDocument) -> GpuFacts:
    resources = document.data.get("resources")
    value = resources.get("accelerator") if isinstance(resources, dict) else None
    if not isinstance(value, str) or not value.strip():
        return GpuFacts()
    where = document.span(("resources", "accelerator"))
    kind, _, count = value.strip().partition(":")
    kind = kind.strip()
    number = int(count) if count.strip().isdecimal() and int(count) > 0 else None
    facts = GpuFacts(count=1 if not count else number, count_span=where)
    if kind in _MIG:
        facts.labels = [Label("nvidia.com/gpu.product", _MIG[kind], where)]
    else:
        facts.type, facts.type_span = _ACCELERATORS.get(kind, kind), where
    return facts


def _downloads(document: YamlDocument) -> list[Label]:
    """A DOWNLOADED label for each model Truss puts in a directory before the server starts."""
    found: list[Label] = []
    data = document.data
    weights = data.get("weights")
    for i, entry in enumerate(weights if isinstance(weights, list) else []):
        if not isinstance(entry, dict):
            continue
        source, mount = entry.get("source"), entry.get("mount_location")
        if isinstance(source, str) and source.startswith("hf://") and isinstance(mount, str):
            repository = source[len("hf://") :].partition("@")[0]
            span = document.span(("weights", i, "source"))
            found.append(downloaded_label(mount, repository, span))
    cache = data.get("model_cache")
    for i, entry in enumerate(cache if isinstance(cache, list) else []):
        if not isinstance(entry, dict):
            continue
        repository, folder = entry.get("repo_id"), entry.get("volume_folder")
        if isinstance(repository, str) and isinstance(folder, str) and folder.strip("/"):
            span = document.span(("model_cache", i, "repo_id"))
            found.append(downloaded_label(f"{_MODEL_CACHE}/{folder.strip('/')}", repository, span))
    return found


def to_deployments(
    document: YamlDocument, path: Path, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    data = document.data
    server = data.get("docker_server")
    if not isinstance(server, dict) or not isinstance(server.get("start_command"), str):
        return [], [
            input_diagnostic(
                "HBM014",
                "this Truss asks Baseten's TensorRT-LLM engine builder (`trt_llm`) for its "
                "server; hbmlint does not read the builder's configuration, so nothing in it "
                "was checked",
                display,
                document.key_span(("trt_llm",)),
                str(data.get("model_name") or Path(display).stem),
                ["Check the engine's memory with the builder's own logs after `truss push`"],
            )
        ]
    env: dict[str, Token] = {}
    variables = data.get("environment_variables")
    if isinstance(variables, dict):
        for key, value in variables.items():
            if value is not None and not isinstance(value, (dict, list)):
                env[str(key)] = Token(str(value), document.span(("environment_variables", key)))
    where = document.span(("docker_server", "start_command"))
    script = [Token("sh", where), Token("-c", where), Token(server["start_command"], where)]
    command = read_invocation(script, env, document.text)
    if command is None:
        return [], []
    gpu = _gpu(document)
    base = data.get("base_image")
    image = base.get("image") if isinstance(base, dict) else None
    version = None
    if isinstance(image, str) and image_version(image):
        version = (image_version(image), document.span(("base_image", "image")))
    deployment, findings = build(
        command,
        name=str(data.get("model_name") or Path(display).stem),
        display=display,
        document=document.index,
        gpu=gpu,
        where=command.span,
        engine_version=version,
        hints=_downloads(document),
        image=image,
    )
    return ([deployment] if deployment else []), findings
