"""srt-slurm recipes (NVIDIA/srt-slurm's ``srtctl``; SemiAnalysisAI/InferenceX
benchmarks/multi_node/srt-slurm-recipes): one YAML per benchmark run of SGLang or vLLM on Slurm,
aggregated or as prefill and decode workers, each worker one engine instance.

What srtctl runs, and hbmlint with it (NVIDIA/srt-slurm@c88ef73):

- ``model.path`` is ``hf:ORG/NAME`` (the Hugging Face id, passed as the model) or a directory
  on the cluster mounted at ``/model`` (src/srtctl/core/runtime.py); hbmlint reads the path
  as the model's name (a local path: named by the configuration's ``model-paths`` where it is
  not a catalog model's name);
- each worker runs the backend's launcher with the model, ``--disaggregation-mode prefill`` /
  ``decode`` for a disaggregated worker, ``--nnodes`` where the worker spans nodes, then every
  key of ``backend.sglang_config.<mode>`` / ``backend.vllm_config.<mode>`` (``prefill``,
  ``decode``, ``aggregated``) as a flag: ``_`` as ``-``, ``true`` a bare flag, ``false`` left
  out, a list its items (src/srtctl/backends/sglang.py, vllm.py ``_config_to_cli_args``);
  ``model-path`` and ``served-model-name`` there are replaced by srtctl's own;
- ``backend.<mode>_environment`` is the worker's environment;
- ``resources``: ``gpu_type`` (``b200``, ``gb200``, ``gb300``, ``h100``, ``h200``, ``mi355x``), and
  the GPUs of one worker ``gpus_per_prefill`` / ``gpus_per_decode`` / ``gpus_per_agg``, else
  its nodes x ``gpus_per_node`` (4 by default) over its workers, else ``gpus_per_node``
  (src/srtctl/core/schema.py ResourceConfig);
- ``model.container`` is the image, whose tag names the release: a Docker reference, an
  enroot URI or .sqsh file (engines.docker_reference), or an alias of the cluster's
  srtslurm.yaml, read where the alias names a release.

TensorRT-LLM recipes (``backend.type: trtllm``): srtctl writes the mode's
``backend.trtllm_config.<mode>`` mapping to a file and runs ``python3 -m dynamo.trtllm
--model-path MODEL --extra-engine-args FILE`` (src/srtctl/backends/trtllm.py), so the mapping
is read as TensorRT-LLM's LLM API options (engines/trtllm.py), each at its key.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..catalog import released_by
from ..catalog.labels import looks_like_path
from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import image_version, read_invocation, trtllm
from ..engines.args import EngineCommand, Token
from ..engines.config_file import settings_as_flags
from ..spec import SERVED_AS, Deployment, Label
from ..yamlsrc import Span, YamlDocument
from .build import GpuFacts, build
from .podspec import value_at

NAME = "srt-slurm"
# backend type: the config key, the launcher srtctl runs with the standalone frontend
_BACKENDS = {
    "sglang": ("sglang_config", ["python3", "-m", "sglang.launch_server", "--model-path"]),
    "vllm": ("vllm_config", ["vllm", "serve"]),
    "trtllm": ("trtllm_config", ["python3", "-m", "dynamo.trtllm", "--model-path"]),
}
# worker mode: its key under <backend>_config and its environment, its resources' prefix
_MODES = {"prefill": "prefill", "decode": "decode", "agg": "aggregated"}


def detect(data: Any) -> bool:
    if not isinstance(data, dict) or "apiVersion" in data or "kind" in data:
        return False
    model, resources = data.get("model"), data.get("resources")
    return (
        isinstance(model, dict)
        and "path" in model
        and "container" in model
        and isinstance(resources, dict)
        and "gpu_type" in resources
    )


def to_deployments(
    document: YamlDocument, path: Path, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    data = document.data
    name = str(data.get("name") or Path(display).stem)
    backend = data.get("backend") if isinstance(data.get("backend"), dict) else {}
    kind = str(backend.get("type") or "sglang")  # srtctl's default backend (schema.py)
    if kind not in _BACKENDS:
        return [], [
            input_diagnostic(
                "HBM014",
                f"an srt-slurm recipe of the {kind} backend: its engine settings are in files "
                "hbmlint does not read, so nothing in it was checked",
                display,
                document.span(("backend", "type")),
                name,
                ["Lint the engine's own command line or configuration instead"],
            )
        ]
    config_key, launcher = _BACKENDS[kind]
    resources = data["resources"]
    disaggregated = any(
        resources.get(key) is not None
        for key in ("prefill_nodes", "decode_nodes", "prefill_workers", "decode_workers")
    )
    modes = ["prefill", "decode"] if disaggregated else ["agg"]
    deployments: list[Deployment] = []
    findings: list[Diagnostic] = []
    for mode in modes:
        if disaggregated and not _count(resources.get(f"{mode}_workers")):
            continue  # no worker of this kind
        config_path = ("backend", config_key, _MODES[mode])
        config = value_at(data, config_path)
        config = config if isinstance(config, dict) else {}
        gpus, gpus_path = _gpus_per_worker(resources, mode)
        per_node = _count(resources.get("gpus_per_node")) or 4
        where = document.key_span(config_path) if config else document.key_span(("resources",))
        model, model_path, why = _model(data)
        argv = [Token(w, where) for w in launcher]
        argv.append(Token(model, document.span(model_path)))
        if mode != "agg":
            argv += [Token("--disaggregation-mode", where), Token(mode, where)]
        nodes = -(-gpus // per_node) if gpus else 1
        if nodes > 1 and kind == "sglang":
            argv += [Token("--nnodes", document.span(gpus_path)), Token(str(nodes), where)]
        env = _environment(document, ("backend", f"{_MODES[mode]}_environment"))
        if kind == "trtllm":
            command = _trtllm_worker(document, argv, where, env, config_path, config, data)
        else:
            argv += _flags(document, config_path, config, _sweep_names(data))
            command = read_invocation(argv, env, "")
        if command is None:
            continue
        gpu_type = str(resources.get("gpu_type"))
        facts = GpuFacts(
            type=gpu_type,
            type_span=document.span(("resources", "gpu_type")),
            count=gpus,
            count_span=document.span(gpus_path),
        )
        image_path: tuple = ("model", "container")
        if isinstance(value_at(data, ("identity", "container", "image")), str):
            image_path = ("identity", "container", "image")  # model.container may be an alias
        image = value_at(data, image_path)
        version = image_version(image) if isinstance(image, str) else None
        if version is None and isinstance(image, str) and image_path == ("model", "container"):
            version = _alias_release(kind, image)
        served = _served_as(document, config_path, config, model)
        deployment, found = build(
            command,
            name=name if mode == "agg" else f"{name}/{mode}",
            display=display,
            document=document.index,
            gpu=facts,
            where=where,
            engine_version=(version, document.span(image_path)) if version else None,
            image=image,
            hints=[served] if served is not None else None,
        )
        findings += found
        if deployment is not None:
            if why:
                deployment.assumed["model"] = why
            deployments.append(deployment)
    return deployments, findings


# srtctl looks model.container up in the cluster's srtslurm.yaml `containers:` map, of "version
# aliases" to .sqsh images (NVIDIA/srt-slurm@c88ef73 docs/installation.md "Adding Containers",
# src/srtctl/core/config.py); that file is the cluster's, not the recipe's. An alias that is a
# release, alone or after the backend's name (v0.5.7, 0.5.6.post2, sglang-v0.5.11-cu130), is
# read as that release of the backend; one that names the backend's nightly and a day
# (sglang-nightly-dev-cu13-20260510) as the newest release by that day. Any other alias (dev,
# dynamo-sglang) names none.
_ALIAS_RELEASE = re.compile(
    r"^(?:(?P<engine>sglang|vllm)[-_])?v?(?P<release>\d+\.\d+\.\d+(?:\.post\d+)?)(?=$|[-_])"
)
_ALIAS_NIGHTLY = re.compile(r"^(?P<engine>sglang|vllm)[-_]nightly\b.*?[-_](20\d\d)(\d\d)(\d\d)$")


def _alias_release(backend: str, alias: str) -> str | None:
    """The backend release a container alias names, said as read from the alias; None where it
    names none or another engine's."""
    text = alias.strip().lower()
    if "/" in text or ":" in text or text.endswith(".sqsh"):
        return None  # an image or a file, not an alias
    match = _ALIAS_RELEASE.match(text)
    if match and match.group("engine") in (None, backend):
        return f"{match.group('release')} (read from the container alias '{alias.strip()}')"
    nightly = _ALIAS_NIGHTLY.match(text)
    if nightly and nightly.group("engine") == backend:
        return released_by(backend, "-".join(nightly.groups()[1:]))
    return None


def _model(data: dict) -> tuple[str, tuple, str]:
    """The model's name, the field it is read from, and why where it is not ``model.path``:
    ``hf:ORG/NAME`` is the Hugging Face id; a directory of the cluster is named by
    ``identity.model.repo``, the id srtctl checks the files against, where the recipe gives it
    (schema.py IdentityModelConfig), else by its own name."""
    path = str(value_at(data, ("model", "path")))
    if path.startswith("hf:"):
        return path[3:], ("model", "path"), ""
    repo = value_at(data, ("identity", "model", "repo"))
    if isinstance(repo, str) and "/" in repo.strip():
        why = f"identity.model.repo: the repository srtctl checks model.path '{path}' against"
        return repo.strip(), ("identity", "model", "repo"), why
    return path, ("model", "path"), ""


def _served_as(
    document: YamlDocument, config_path: tuple, config: dict, model: str
) -> Label | None:
    """The worker's ``served-model-name`` where it is a Hugging Face id and model.path is an
    alias of the cluster's (``dsr1-fp8``, no folder in it): srtctl serves the model under its
    own name, but the recipe's says which checkpoint the alias is, a guess resolve tries."""
    if "/" in model or model.startswith("hf:"):
        return None
    for key in ("served-model-name", "served_model_name"):
        value = config.get(key)
        if isinstance(value, list) and value:
            value = value[0]
        if isinstance(value, str) and value.count("/") == 1 and not looks_like_path(value):
            return Label(SERVED_AS, value.strip(), document.span((*config_path, key)))
    return None


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return None
    text = str(value).strip()
    return int(text) if text.isdecimal() else None


def _gpus_per_worker(resources: dict, mode: str) -> tuple[int, tuple]:
    """One worker's GPUs as ResourceConfig.gpus_per_<mode> computes them, and the field that
    says so."""
    per_node = _count(resources.get("gpus_per_node")) or 4
    explicit = _count(resources.get(f"gpus_per_{mode}"))
    if explicit:
        return explicit, ("resources", f"gpus_per_{mode}")
    nodes, workers = (
        _count(resources.get(f"{mode}_nodes")),
        _count(resources.get(f"{mode}_workers")),
    )
    if nodes and workers:
        return max(1, nodes * per_node // workers), ("resources", f"{mode}_nodes")
    if mode == "decode" and nodes == 0 and workers:  # decode shares the prefill nodes
        return _gpus_per_worker(resources, "prefill")
    where = ("resources", "gpus_per_node") if "gpus_per_node" in resources else ("resources",)
    return per_node, where


def _sweep_names(data: dict) -> tuple[str, ...]:
    """The parameters of a sweep: srtctl runs one job per combination of the ``sweep:`` lists,
    writing each value where the recipe says ``{name}`` (src/srtctl/core/sweep.py
    expand_template)."""
    sweep = data.get("sweep")
    return tuple(str(k) for k in sweep) if isinstance(sweep, dict) else ()


def _swept(text: str, names: tuple[str, ...]) -> tuple[str, ...]:
    """Why a value is unreadable: the sweep parameters it holds, one value per job."""
    return tuple(
        f"{{{name}}} is filled in by the recipe's sweep, one value per job"
        for name in names
        if f"{{{name}}}" in text
    )


def _flags(
    document: YamlDocument, base: tuple, config: dict, sweep: tuple[str, ...] = ()
) -> list[Token]:
    """The worker's config as srtctl writes it on the command line, each word at its key; a
    value holding a sweep parameter is unreadable (each job has its own)."""
    kept = {
        key: value
        for key, value in config.items()
        # srtctl writes its own model flags
        if "--" + str(key).replace("_", "-")
        not in ("--model-path", "--served-model-name", "--model")
    }
    return settings_as_flags(
        kept,
        lambda path: document.span((*base, *path)),
        lambda text, span: Token(text, span, _swept(text, sweep)),
    )


def _trtllm_worker(
    document: YamlDocument,
    argv: list[Token],
    where: Span,
    env: dict[str, Token],
    config_path: tuple,
    config: dict,
    data: dict,
) -> EngineCommand:
    """dynamo.trtllm with the mode's trtllm_config as its --extra-engine-args file."""
    sweep = _sweep_names(data)
    return trtllm.parse_dynamo(
        argv[3:],  # the words after `python3 -m dynamo.trtllm`
        where,
        env,
        config,
        lambda key: document.span((*config_path, *key)),
        lambda value, span: Token(str(value), span, _swept_value(value, sweep)),
    )


def _swept_value(value: Any, sweep: tuple[str, ...]) -> tuple[str, ...]:
    """_swept of a value as YAML gave it: an unquoted ``{tp}`` is a mapping to YAML, though
    srtctl fills it in as text before the recipe is read."""
    if isinstance(value, dict) and value and all(v is None for v in value.values()):
        return _swept("".join(f"{{{key}}}" for key in value), sweep)
    return _swept(str(value), sweep)


def _environment(document: YamlDocument, base: tuple) -> dict[str, Token]:
    env = value_at(document.data, base)
    if not isinstance(env, dict):
        return {}
    return {
        str(k): Token("" if v is None else str(v), document.span((*base, k)))
        for k, v in env.items()
    }
