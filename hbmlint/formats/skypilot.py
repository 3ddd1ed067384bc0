"""SkyPilot task YAML (``sky launch`` / ``sky serve up``): the engine command in the ``run:``
script, with ``envs:`` and SkyPilot's own variables expanded, and the GPUs of
``resources.accelerators``.

``accelerators`` is ``H100:8``, ``{A100-80GB: 4}``, or a set or list of alternatives
(``{L4, A10G, A100}``, ``[A100:8, H100:8]``; also under ``resources.any_of`` / ``ordered``).
SkyPilot may place the task on any of them, so the budget is made for the alternative with the
least memory: it must hold on every one. Where the alternatives differ in count
(``{L4:8, A100:4, A100-80GB:2}``, with ``--tensor-parallel-size $SKYPILOT_NUM_GPUS_PER_NODE``),
that is the least memory in all (count x memory per GPU), else the least per GPU.
The count is per node; ``num_nodes`` nodes run the script, and an engine whose parallelism
needs more GPUs than one node has spans them all (vLLM's ``--pipeline-parallel-size
$SKYPILOT_NUM_NODES`` over Ray).
Schema: https://docs.skypilot.co/en/latest/reference/yaml-spec.html
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
from ..yamlsrc import Span, YamlDocument
from . import accelerators
from .build import GpuFacts, build
from .multihost import engine_gpus

NAME = "skypilot"

# Keys of a SkyPilot task besides `run`; one of them must be there with it.
_TASK_KEYS = ("resources", "envs", "setup", "num_nodes", "service", "secrets", "file_mounts")
# `pip install vllm==0.10.1` in `setup`: the engine release the task runs.
_PIN = re.compile(r"\bvllm==(\d+\.\d+(?:\.\d+)?)")


def detect(data: Any) -> bool:
    if not isinstance(data, dict) or "apiVersion" in data or "kind" in data:
        return False
    run = data.get("run")
    if not isinstance(run, str) or not any(key in data for key in _TASK_KEYS):
        return False
    return names_engine(run) or "sglang" in run


def _candidates(
    document: YamlDocument, path: tuple, value: Any
) -> list[tuple[str, float | None, Span]]:
    """(GPU name, count per node or None, where) for each alternative ``accelerators`` allows."""
    found: list[tuple[str, float | None, Span]] = []
    if isinstance(value, str):
        name, _, count = value.partition(":")
        found.append((name.strip(), _number(count) if count else 1, document.span(path)))
    elif isinstance(value, dict):
        for key, count in value.items():
            where = document.key_span((*path, key))
            if count is None:
                # `{L4, A10G}` is a YAML set and `{H100:8, H200:8}` one of "name:count" keys
                # (no space after the colon): the value is null either way
                found += [(n, c, where) for n, c, _ in _candidates(document, path, str(key))]
            else:
                found.append((str(key).strip(), _number(str(count)), where))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _candidates(document, (*path, i), item)
    return found


def _number(text: str) -> float | None:
    try:
        return float(text.strip())
    except ValueError:
        return None


def _gpu(document: YamlDocument) -> tuple[GpuFacts, str | None]:
    """The GPUs the budget is made for, and, where the task offers several alternatives, why
    those (for the budget's assumptions)."""
    resources = document.data.get("resources")
    if not isinstance(resources, dict):
        return GpuFacts(), None
    found = _candidates(document, ("resources", "accelerators"), resources.get("accelerators"))
    for key in ("any_of", "ordered"):
        options = resources.get(key)
        for i, option in enumerate(options if isinstance(options, list) else []):
            if isinstance(option, dict) and "accelerators" in option:
                path = ("resources", key, i, "accelerators")
                found += _candidates(document, path, option["accelerators"])
    if not found:
        return GpuFacts(), None
    known = [(catalog.find_gpu(name), name, count, span) for name, count, span in found]
    usable = [k for k in known if k[0] is not None]
    counts = {k[2] for k in usable}

    def memory(k: tuple) -> tuple:
        per_gpu = k[0].memory.to("GiB").magnitude
        in_all = per_gpu * k[2] if len(counts) > 1 and k[2] else per_gpu
        return (in_all, per_gpu, k[2] or 0)

    # the alternative with the least memory: the budget must hold on every one
    _, name, count, span = min(usable, key=memory) if usable else known[0]
    whole = count is not None and count >= 1 and count == int(count)
    why = None

    def shown(n: str, c: Any) -> str:
        return f"{n}:{c:g}" if c and c != 1 else n

    offered = list(dict.fromkeys(shown(n, c) for n, c, _ in found))
    if len(offered) > 1:
        chosen = shown(name, count)
        why = (
            f"{chosen}, the alternative with the least memory of {', '.join(offered)}: SkyPilot "
            "may place the task on any of them, so the budget must hold on every one"
        )
    # a fraction of a GPU (`T4:0.5`) shares one card: its memory is still the card's
    facts = GpuFacts(
        type=name, type_span=span, count=int(count) if whole else None, count_span=span
    )
    return facts, why


def _other_accelerator(document: YamlDocument) -> accelerators.OtherAccelerator | None:
    """Where every alternative ``accelerators`` offers is a device that is not a GPU (SkyPilot's
    ``tpu-v6e-8``, ``Trainium:16``, ``Inferentia2``, ``Gaudi``): the task runs the engine's
    build for it, and ``tpu-v6e-8``'s 8 is chips, not GPUs."""
    resources = document.data.get("resources")
    if not isinstance(resources, dict):
        return None
    found = _candidates(document, ("resources", "accelerators"), resources.get("accelerators"))
    named = [(devices.not_a_gpu(name), name, span) for name, _, span in found]
    if not named or any(device is None for device, _, _ in named):
        return None
    device, name, span = named[0]
    return accelerators.OtherAccelerator(str(device), f"accelerators: {name}", span)


def _env(document: YamlDocument, gpu: GpuFacts, nodes: int, nodes_span: Span) -> dict:
    """``envs:`` (a null value must be given with ``--env``: unknown here) and the variables
    SkyPilot sets on every node."""
    env: dict[str, Token] = {}
    envs = document.data.get("envs")
    if isinstance(envs, dict):
        for key, value in envs.items():
            if value is not None:
                env[str(key)] = Token(str(value), document.span(("envs", key)))
    where = gpu.count_span or document.span(())
    if gpu.count is not None:
        env["SKYPILOT_NUM_GPUS_PER_NODE"] = Token(str(gpu.count), where)
    env["SKYPILOT_NUM_NODES"] = Token(str(nodes), nodes_span)
    env["SKYPILOT_NODE_RANK"] = Token("0", nodes_span)  # the head runs the engine's server
    return env


def to_deployments(
    document: YamlDocument, path: Path, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    data = document.data
    gpu, gpu_why = _gpu(document)
    nodes = str(data.get("num_nodes", 1)).strip()
    nodes = int(nodes) if nodes.isdecimal() and int(nodes) > 0 else 1
    nodes_span = document.span(("num_nodes",)) if "num_nodes" in data else document.span(())
    env = _env(document, gpu, nodes, nodes_span)
    # the script as one `sh -c` word: the shell reader finds the engine line among the others
    script = [Token("bash", document.span(("run",))), Token("-c", document.span(("run",)))]
    script.append(Token(data["run"], document.span(("run",))))
    command = read_invocation(script, env, document.text)
    if command is None:
        return [], []
    other = _other_accelerator(document)
    if other is not None:
        return [], [accelerators.not_budgeted(other, display, data.get("name"))]
    gpu.count = engine_gpus(command, gpu.count, gpu.count * nodes if gpu.count else None)
    name = str(data.get("name") or Path(display).stem)
    version = None
    resources = data.get("resources") if isinstance(data.get("resources"), dict) else {}
    image = str(resources.get("image_id", ""))
    setup = data.get("setup")
    match = _PIN.search(setup) if isinstance(setup, str) else None
    if image.startswith("docker:") and image_version(image[len("docker:") :]):
        # the task runs inside this image: its tag names the engine release
        found = image_version(image[len("docker:") :])
        version = (found, document.span(("resources", "image_id")))
    elif match and command.engine == "vllm":
        version = (match.group(1), document.span(("setup",)))
    run_key = document.key_span(("run",))
    deployment, findings = build(
        command,
        name=name,
        display=display,
        document=document.index,
        gpu=gpu,
        # the engine's command line in the run script (a finding about a setting left to its
        # default points there), else the run key
        where=command.span if command.span.line > run_key.line else run_key,
        engine_version=version,
    )
    if deployment is not None and gpu_why:
        deployment.assumed["gpu"] = gpu_why
    return ([deployment] if deployment else []), findings
