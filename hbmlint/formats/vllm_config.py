"""vLLM ``--config`` YAML files: the keys are vLLM's long flag names (``max-model-len`` or
``max_model_len``), ``true`` is the bare switch and ``false`` its ``--no-`` form, and a map
(``speculative-config``) is passed as JSON, as vLLM's own FlexibleArgumentParser does.

Such a file names no GPU: it takes the GPU from ``--gpu`` or the configuration. It is recognised
only when it has ``model`` and at least one other vLLM serving key, so that unrelated YAML with a
``model`` key is left alone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import vllm
from ..engines.args import Token, normalise
from ..spec import Deployment
from ..yamlsrc import YamlDocument
from .build import GpuFacts, build

NAME = "vllm-config"

# Keys that say "this is a vLLM serving config" (beyond model).
_SERVING_KEYS = {
    normalise("--" + key)
    for key in (
        "tensor-parallel-size",
        "pipeline-parallel-size",
        "max-model-len",
        "max-num-seqs",
        "max-num-batched-tokens",
        "gpu-memory-utilization",
        "kv-cache-dtype",
        "speculative-config",
        "quantization",
        "enforce-eager",
        "block-size",
        "served-model-name",
    )
}


def _flag(key: Any) -> str:
    return normalise("--" + str(key))


# Keys of a Helm chart's values file that no vLLM flag is named after: vLLM turns every key of
# its config file into ``--KEY`` and refuses one it does not know, so a file holding any of these
# (or a camelCase key: vLLM's flags are all lower case) is some chart's values, read by that
# chart's templates, not by vLLM (substratusai/helm charts/vllm/values.yaml: ``model``,
# ``quantization: ""`` next to ``replicaCount``, ``resources`` and ``nodeSelector``).
_CHART_KEYS = {"image", "resources", "tolerations", "affinity", "service", "ingress", "env"}


def detect(data: Any) -> bool:
    if not isinstance(data, dict) or "apiVersion" in data or "kind" in data:
        return False
    if not isinstance(data.get("model"), str):
        return False
    if any(str(key) in _CHART_KEYS or str(key).lower() != str(key) for key in data):
        return False
    return any(_flag(key) in _SERVING_KEYS for key in data)


def engine_arguments_at(data: Any, depth: int = 4) -> tuple | None:
    """The path of the first mapping within ``depth`` levels of ``data`` that holds vLLM engine
    arguments: a string ``model`` and two or more of vLLM's serving keys; None where none."""
    if not isinstance(data, dict) or depth < 0:
        return None
    if isinstance(data.get("model"), str) and sum(_flag(k) in _SERVING_KEYS for k in data) >= 2:
        return ()
    for key, value in data.items():
        if isinstance(value, dict):
            found = engine_arguments_at(value, depth - 1)
            if found is not None:
                return (key, *found)
    return None


def mapping_argv(
    document: YamlDocument, base: tuple, mapping: dict, display: str, *, kwargs: bool = False
) -> tuple[list[Token], list[Diagnostic]]:
    """A mapping of vLLM engine arguments (this file's keys, Ray Serve LLM's ``engine_kwargs``)
    as the command line vLLM would parse, each word at its key or value in the file.

    ``kwargs``: the mapping is handed to ``AsyncEngineArgs(**mapping)``, not to vLLM's argument
    parser (Ray Serve LLM's engine_kwargs, Triton's model.json), so a switch written as the
    string "true" or "false" is that boolean (vLLM's pydantic configs read it so), where a
    ``--config`` file would pass it as a word the switch refuses."""
    argv: list[Token] = []
    problems: list[Diagnostic] = []
    for key, value in mapping.items():
        flag = _flag(key)
        where = document.key_span((*base, key))
        at = document.span((*base, key))
        if value is None:
            continue
        textual = isinstance(value, str) and value.lower() in ("true", "false")
        if kwargs and textual and vllm.FLAGS.is_switch(flag):
            value = value.lower() == "true"
        if value is True:
            argv.append(Token(flag, where))
        elif value is False:
            argv.append(Token("--no-" + flag[2:], where))
        elif isinstance(value, dict):
            argv += [Token(flag, where), Token(json.dumps(value), at)]
        elif isinstance(value, list):
            known = vllm.FLAGS.lookup(flag)
            if known is not None and not known.multi:
                problems.append(
                    input_diagnostic("HBM004", f"{key}: takes one value, not a list", display, at)
                )
                continue
            argv.append(Token(flag, where))
            argv += [Token(str(v), document.span((*base, key, i))) for i, v in enumerate(value)]
        else:
            argv += [Token(flag, where), Token(str(value), at)]
    return argv, problems


def to_deployments(
    document: YamlDocument, path: Path, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    # Triton's vLLM backend reads <model>/<version>/model.json into AsyncEngineArgs(**...)
    # (triton-inference-server/vllm_backend src/model.py, _VLLM_ENGINE_ARGS_FILENAME)
    kwargs = path.name == "model.json"
    argv, problems = mapping_argv(document, (), document.data, display, kwargs=kwargs)
    command = vllm.parse(argv, document.span(()))
    deployments, findings = config_deployment(command, document, path, display, "model.json")
    return deployments, problems + findings


def config_deployment(
    command: Any, document: YamlDocument, path: Path, display: str, triton_file: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    """The deployment of an engine's own config file (GPU named by nothing in it), named as
    Triton names a model whose folder holds it (<repository>/<model>/<version>/``triton_file``),
    else after the file."""
    stem = path.absolute().parent.parent.name if path.name == triton_file else ""
    stem = stem or Path(display).stem
    name = stem if document.index == 0 else f"{stem}[{document.index}]"
    deployment, findings = build(
        command,
        name=name,
        display=display,
        document=document.index,
        gpu=GpuFacts(),
        where=document.key_span(("model",)),
    )
    return ([deployment] if deployment else []), findings
