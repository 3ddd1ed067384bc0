"""Pod specs no format read, though a person sees an engine deployment in them: not a format
(it reads no deployment), the finding lint.py and ``hbmlint formats`` give a file in which
nothing was read and nothing said, before formats.unread_engine looks for an engine's words.

Two shapes, each seen in public repositories where hbmlint said "All clear":

- a template filled before it is applied (``envsubst < vllm-deployment.yaml | kubectl apply``,
  felipemoz/vllm-on-azure k8s/vllm-deployment.yaml): the container's image is a placeholder
  (``${VLLM_IMAGE}``), so what runs is not known until it is rendered (HBM012, "render first",
  as for a Helm template), where the container is plainly an engine's: its arguments hold a
  flag only an engine takes (``--max-model-len``), or it asks for a GPU and its name or the
  placeholder's names one. A placeholder in a few flags of a container hbmlint reads stays an
  info at each (HBM011): that container is read, and never comes here.
- an engine's image whose container runs a script the file does not hold (``bash -c
  /bin/boot.sh`` on ``lmsysorg/sglang``, zhaotyer/lws_usage): the engine command line is in
  the script, so nothing was checked (HBM014), where the container asks for a GPU. Any other
  program on an engine's image (SGLang's router, a benchmark, ``sleep infinity``) is not an
  engine hbmlint failed to read, and says nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import VLLM_ONLY_FLAGS, image_named_for, shipped_engine
from ..engines.args import RENDER_HINT, placeholder
from ..lazyre import LazyPattern
from ..yamlsrc import YamlDocument
from .accelerators import OtherAccelerator, not_budgeted
from .embedded_pods import pod_spec_paths
from .podspec import (
    GPU_RESOURCES,
    OTHER_ACCELERATORS,
    object_name,
    runs_engine,
    serving_containers,
)

_ENGINE_NAMES = {"vllm": "vLLM", "sglang": "SGLang", "tgi": "TGI", "trtllm": "TensorRT-LLM"}

# Flags of an engine's server that no common program shares (vLLM's, SGLang's, TGI's
# launcher's): a container given one runs that engine, whatever its image is called.
_ENGINE_FLAGS = VLLM_ONLY_FLAGS | frozenset(
    ("--tensor-parallel-size", "--pipeline-parallel-size", "--kv-cache-dtype")
    + ("--mem-fraction-static", "--context-length", "--tp-size", "--model-path")
    + ("--max-total-tokens", "--max-input-tokens", "--max-input-length", "--num-shard")
    + ("--max-batch-prefill-tokens",)
)
# an engine named in a container's or a placeholder's name (VLLM_IMAGE, sglang-head, tgi)
_NAMES_ENGINE = LazyPattern(
    r"(?<![a-z])(?:vllm|sglang|tgi|trtllm|tensorrt|text-generation)(?![a-z])", re.I
)
# an image written as a name in capitals (`image: IMAGE_NAME`, CI's sed target): Docker
# references are lower case, so it can only be a placeholder something fills in
_UPPER_NAME = LazyPattern(r"[A-Z][A-Z0-9_]*(?::[\w.-]+)?")
_SHELLS = frozenset(("sh", "bash", "dash", "zsh", "ash"))
_SCRIPT = (".sh", ".bash")
_SEPARATORS = LazyPattern(r"[;&|\n()]+")
_ASSIGNMENT = LazyPattern(r"^[A-Za-z_]\w*=")


def unread_pod(documents: Sequence[YamlDocument], display: str) -> Diagnostic | None:
    """The finding for the first container of ``documents`` that is plainly an engine's but
    was not read (a template's placeholder image, HBM012; an engine image running a script the
    file does not hold, HBM014), or None."""
    for document, cpath, container in _containers(documents):
        if runs_engine(container):
            continue  # a format reads it (or said why not)
        found = (
            _unrendered(document, cpath, container, display)
            or shell_given_flags(document, cpath, container, display)
            or _script_run(document, cpath, container, display)
            or _other_device(document, cpath, container, display)
        )
        if found is not None:
            return found
    for document, cpath, container in _chart_containers(documents):
        if not runs_engine(container):
            found = _script_run(document, cpath, container, display)
            if found is not None:
                return found
    return None


def _chart_containers(
    documents: Sequence[YamlDocument],
) -> Iterator[tuple[YamlDocument, tuple, dict]]:
    """Each container bjw-s's app-template renders from ``documents`` (its values, or a Flux
    HelmRelease / Argo CD Application holding them), as a pod spec would hold it: the
    app-template reader reads those that run an engine; one that runs a script on an engine's
    image is judged here as a pod's is (Tanguille/cluster's SGLang release)."""
    from .app_template import rendered_containers

    for document in documents:
        data = document.data
        if isinstance(data, dict):
            for cpath, container in rendered_containers(data):
                yield document, cpath, container


def _containers(documents: Sequence[YamlDocument]) -> Iterator[tuple[YamlDocument, tuple, dict]]:
    """Each serving container of ``documents``' pod specs: its document, path and mapping."""
    for document in documents:
        data = document.data
        if not isinstance(data, dict):
            continue
        for pod in pod_spec_paths(data):
            for key, container in serving_containers(data, pod):
                yield document, (*pod, *key), container


def container_image_lines(documents: Sequence[YamlDocument]) -> set[int]:
    """The lines of the ``image`` of every container in ``documents``' pod specs: an engine's
    image named there was judged by its container (read, said why not, or running another
    program), so formats.unread_engine does not take the image's name for an engine run."""
    lines: set[int] = set()
    for document, cpath, container in _containers(documents):
        if "image" in container:
            span = document.span((*cpath, "image"))
            if span is not None:
                lines.add(span.line)
    return lines


def _words(value: Any) -> list[str]:
    if isinstance(value, list):
        return ["" if v is None else str(v) for v in value]
    return [] if value is None else [str(value)]


def _placed(container: dict, cpath: tuple, key: str) -> list[tuple[str, tuple]]:
    """The words of a container's ``command`` or ``args``, each with its path (a string is one
    word, at its key)."""
    value = container.get(key)
    if isinstance(value, list):
        return [("" if v is None else str(v), (*cpath, key, i)) for i, v in enumerate(value)]
    return [] if value is None else [(str(value), (*cpath, key))]


def _asks_for_gpu(container: dict) -> bool:
    resources = container.get("resources")
    for section in ("limits", "requests"):
        asked = resources.get(section) if isinstance(resources, dict) else None
        if isinstance(asked, dict) and any(
            r in GPU_RESOURCES or str(r).startswith("nvidia.com/mig-") for r in asked
        ):
            return True
    return False


# a generic device plugin's share of the host's /dev/dri (squat/generic-device-plugin's
# `squat.ai/dri`, smarter-device-manager's `smarter-devices/dri`): how a home lab hands an AMD
# (or Intel) GPU's render nodes to a container without the vendor's plugin (Tanguille/cluster's
# SGLang on an R9700). A GPU asked for, to say that a script was not read; never a count to
# budget.
_DRI_DEVICE = LazyPattern(r"[\w.-]+/dri(?:[-_.][\w.-]*)?")


def _asks_for_dri(container: dict) -> bool:
    resources = container.get("resources")
    for section in ("limits", "requests"):
        asked = resources.get(section) if isinstance(resources, dict) else None
        if isinstance(asked, dict) and any(_DRI_DEVICE.fullmatch(str(r)) for r in asked):
            return True
    return False


def _other_device(
    document: YamlDocument, cpath: tuple, container: dict, display: str
) -> Diagnostic | None:
    """An engine's build for a device hbmlint does not budget, named by its image or container
    (ghcr.io/huggingface/tgi-gaudi, registry.redhat.io/rhaiis/vllm-tpu-rhel9), in a container
    that asks for that device (habana.ai/gaudi, google.com/tpu): the info a read engine on it
    gets, rather than nothing."""
    if _NAMES_ENGINE.search(f"{container.get('image', '')} {container.get('name', '')}") is None:
        return None
    resources = container.get("resources")
    for section in ("limits", "requests"):
        asked = resources.get(section) if isinstance(resources, dict) else None
        for resource in asked if isinstance(asked, dict) else {}:
            device = OTHER_ACCELERATORS.get(resource)
            if device is not None:
                return not_budgeted(
                    OtherAccelerator(
                        device,
                        f"the container asks for {resource}",
                        document.span((*cpath, "resources", section, resource)),
                    ),
                    display,
                    object_name(document.data) or None,
                )
    return None


def _unrendered(
    document: YamlDocument, cpath: tuple, container: dict, display: str
) -> Diagnostic | None:
    image = container.get("image")
    if (placeholder(image) is None and not _UPPER_NAME.fullmatch(str(image or ""))) or (
        shipped_engine(image) is not None
    ):
        return None
    command = _words(container.get("command"))
    if command and placeholder(command[0]) is None:
        return None  # a program of its own runs, whatever the image: not the image's choice
    words = command + _words(container.get("args"))
    flag = any(w.partition("=")[0].replace("_", "-") in _ENGINE_FLAGS for w in words)
    named = _NAMES_ENGINE.search(f"{image} {container.get('name', '')}") is not None
    if not (flag or (named and _asks_for_gpu(container))):
        return None
    return input_diagnostic(
        "HBM012",
        f"this is a template, filled in before it is applied: the container's image ({image}) "
        "is a placeholder, so which engine runs here, and with what model and GPUs, is known "
        "only once it is rendered; hbmlint cannot read it as is, so nothing in it was checked",
        display,
        document.span((*cpath, "image")),
        object_name(document.data) or None,
        [RENDER_HINT],
    )


def _script_run(
    document: YamlDocument, cpath: tuple, container: dict, display: str
) -> Diagnostic | None:
    image = container.get("image")
    engine = shipped_engine(image)
    own = None if engine is not None else image_named_for(image)
    if (engine or own) is None or not (_asks_for_gpu(container) or _asks_for_dri(container)):
        return None
    words = _placed(container, cpath, "command") + _placed(container, cpath, "args")
    found = _script([word for word, _ in words])
    if found is None:
        return None
    index, script = found
    repository = str(image).strip().rsplit("@", 1)[0]
    if ":" in repository.rpartition("/")[2]:
        repository = repository.rpartition(":")[0]
    name = script.rpartition("/")[2]
    if engine is not None:
        whose = f"{_ENGINE_NAMES.get(engine, engine)}'s image ({repository})"
    else:
        whose = f"an image named for {_ENGINE_NAMES.get(own or '', own)} ({repository})"
    return input_diagnostic(
        "HBM014",
        f"this container runs {script} on {whose}, a script that is not in this file: the "
        "engine command line it starts "
        "(model, parallelism, memory settings) is not one hbmlint can see, so nothing in it "
        "was checked",
        display,
        document.span(words[index][1]),
        object_name(document.data) or None,
        [
            f"Lint the script too (`hbmlint {name}`: hbmlint reads launch scripts), or write the "
            "engine's command line in the container's command and args, where hbmlint reads "
            "it with the pod's GPUs"
        ],
    )


# The long options bash takes (`bash --help`: GNU long options); dash and the other shells
# take none. Any other `--word` before the script is refused: "bash: --model: invalid option".
_BASH_LONG_OPTIONS = frozenset(
    ("--debug", "--debugger", "--dump-po-strings", "--dump-strings", "--help", "--init-file")
    + ("--login", "--noediting", "--noprofile", "--norc", "--posix", "--pretty-print")
    + ("--rcfile", "--restricted", "--verbose", "--version")
)


def shell_given_flags(
    document: YamlDocument, cpath: tuple, container: dict, display: str
) -> Diagnostic | None:
    """HBM020 where a container's shell takes ``-c`` and then an engine's flags, with no engine
    program (``command: [/bin/bash, -c]``, ``args: [--model, ...]``: ai-dynamo/dynamo's
    recipes/deepseek-r1/vllm/disagg/deploy_hopper_prefill_dep16_decode_dep16.yaml @ 4806fa82):
    the shell takes the first flag for an option of its own and stops ("bash: --model:
    invalid option"), so no engine starts."""
    words = _placed(container, cpath, "command") + _placed(container, cpath, "args")
    texts = [word for word, _ in words]
    if not texts or texts[0].rsplit("/", 1)[-1] not in _SHELLS:
        return None
    i = 1
    while i < len(texts) and texts[i].startswith("-") and not texts[i].startswith("--"):
        i += 1  # the shell's own short options: -c, -lc, -ec
    if not any("c" in option for option in texts[1:i]) or i >= len(texts):
        return None
    flag = texts[i]
    if not flag.startswith("--") or flag in _BASH_LONG_OPTIONS or flag == "--":
        return None
    if not _ENGINE_FLAGS & {word.partition("=")[0] for word in texts[i:]} and flag not in (
        "--model",
        "--model-path",
        "--model-id",
    ):
        return None
    shell = texts[0].rsplit("/", 1)[-1]
    return input_diagnostic(
        "HBM020",
        f"this container runs `{shell} {' '.join(texts[1:i])}` with {flag} as its first "
        f"word after it: {shell} takes {flag} for an option of its own and stops ('{shell}: "
        f"{flag}: invalid option'), so the engine whose flags follow never starts, and "
        "nothing in them was checked",
        display,
        document.span(words[i][1]),
        object_name(document.data) or None,
        [
            "Name the engine before its flags (`python3 -m dynamo.vllm --model ...`, `vllm "
            "serve MODEL ...`), as one command string after -c or as command and args without "
            "the shell"
        ],
    )


def _script(words: list[str]) -> tuple[int, str] | None:
    """(the index of the word that holds it, the script) where ``words`` (a container's command
    then args) run a shell script: ``/boot.sh``, ``bash /scripts/start.sh``, ``bash -c
    "/bin/boot.sh"`` or a ``-c`` line whose commands run one (``cd /app && ./start.sh``). A
    script only sourced (``source env.sh && python ...``) is not what runs."""
    if not words:
        return None
    first = words[0]
    if first.endswith(_SCRIPT):
        return 0, first
    if first.rpartition("/")[2] not in _SHELLS:
        return None
    for i in range(1, len(words)):
        word = words[i]
        if word.startswith("-"):
            if "c" in word[1:] and not word.startswith("--") and i + 1 < len(words):
                line = _script_in_line(words[i + 1])
                return (i + 1, line) if line else None
            continue
        return (i, word) if word.endswith(_SCRIPT) else None
    return None


def _script_in_line(line: str) -> str | None:
    """The script the first command of a ``sh -c`` line that runs one runs."""
    for part in _SEPARATORS.split(line):
        words = [w.strip("\"'") for w in part.split()]
        while words and (words[0] == "exec" or _ASSIGNMENT.match(words[0])):
            words = words[1:]
        if not words:
            continue
        if words[0].rpartition("/")[2] in _SHELLS:
            words = [w for w in words[1:] if not w.startswith("-")]
        if words and words[0].endswith(_SCRIPT):
            return words[0]
    return None


def may_hold_one(text: str) -> bool:
    """The cheap test of a file's text before its documents are walked: a container and an
    image, with a placeholder or an engine's name in it."""
    if "containers" not in text or "image" not in text:
        return False
    return "${" in text or "{{" in text or _NAMES_ENGINE.search(text) is not None
