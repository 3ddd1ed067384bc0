"""`--set KEY=VALUE`: what-if without editing. Each override replaces one field of every
Deployment a format reader produced, before resolve, so it works the same for every format
(`parallel.tensor=2`, `gpu.type=H200`, `serving.max_model_len=32k`, `speculative.method=ngram`).

An unknown key or a value of the wrong kind is a usage error (exit 2): a typo must not pass as
a what-if that changed nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

from .engines.args import BadValue, boolean, human_int
from .records import dataclass
from .schema import load_schema
from .spec import ENGINES, Deployment, ModelRef, WorkloadSpec
from .units import UnitError, parse_quantity


class OverrideError(ValueError):
    """A --set hbmlint cannot apply; the message names the key and says why."""


def _text(value: str) -> str:
    if not value.strip():
        raise BadValue("an empty value")
    return value.strip()


def _count(value: str) -> int:
    return human_int(value)  # raises BadValue for 0, words, fractions


def _fraction(value: str) -> float:
    text = value.strip()
    number = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    if not 0 < number <= 1:
        raise BadValue(f"'{value}' is not a fraction in (0, 1] (0.9 or 90%)")
    return number


def _gib(value: str) -> float:
    number = float(value)
    if number < 0:
        raise BadValue(f"'{value}' is negative")
    return number


def _bytes(value: str) -> Any:
    return parse_quantity(value, "[information]")


def _engine(value: str) -> str:
    name = value.strip().lower()
    if name not in ENGINES:
        raise BadValue(f"'{value}' is not one of {', '.join(ENGINES)}")
    return name


@cache
def _methods() -> tuple[str, ...]:
    # the schema shipped in the wheel (hbmlint.schemas), not a path beside the source tree
    spec = load_schema("manifest")["properties"]["spec"]["properties"]["speculative"]["properties"][
        "method"
    ]
    return tuple(spec["enum"])


def _method(value: str) -> str:
    name = value.strip().lower()
    if name not in _methods():
        raise BadValue(f"'{value}' is not one of {', '.join(_methods())}")
    return name


# key -> how its value is read. Keys are the manifest's own field paths (schemas/).
KEYS: dict[str, Callable[[str], Any]] = {
    "engine": _engine,
    "engine_version": _text,
    "gpu.type": _text,
    "gpu.memory": _bytes,
    "gpu.count": _count,
    "model.name": _text,
    "model.dtype": _text,
    "model.quantization": _text,
    "parallel.tensor": _count,
    "parallel.pipeline": _count,
    "serving.max_model_len": _count,
    "serving.max_num_seqs": _count,
    "serving.max_num_batched_tokens": _count,
    "serving.gpu_memory_utilization": _fraction,
    "serving.kv_cache_dtype": _text,
    "serving.block_size": _count,
    "serving.enforce_eager": boolean,
    "serving.cpu_offload_gb": _gib,
    "speculative.method": _method,
    "speculative.model": _text,
    "speculative.quantization": _text,
    "speculative.num_speculative_tokens": _count,
    "speculative.tensor_parallel": _count,
    "speculative.kv_cache_dtype": _text,
    "workload.concurrency": _count,
    "workload.context_tokens": _count,
}


@dataclass(frozen=True)
class Override:
    key: str
    value: Any
    text: str  # as the user wrote it, for headings

    def __str__(self) -> str:
        return f"{self.key}={self.text}"


def parse(items: Iterable[str]) -> tuple[Override, ...]:
    """Read each KEY=VALUE; the last of a repeated key wins."""
    found: dict[str, Override] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep:
            raise OverrideError(f"--set {item!r}: write KEY=VALUE, e.g. parallel.tensor=2")
        if key not in KEYS:
            raise OverrideError(
                f"--set {item!r}: unknown key {key!r}; the keys are {', '.join(KEYS)}"
            )
        try:
            value = KEYS[key](text)
        except (BadValue, UnitError, ValueError) as exc:
            raise OverrideError(f"--set {item!r}: {exc}") from None
        found.pop(key, None)
        found[key] = Override(key, value, text.strip())
    return tuple(found.values())


def apply(deployment: Deployment, overrides: tuple[Override, ...]) -> None:
    """Replace the fields in place. Where the file sets a field its location is kept, so a
    finding still points at the line to edit. Setting tensor or pipeline parallelism without
    gpu.count makes the GPU count follow (see below)."""
    for override in overrides:
        group, _, name = override.key.rpartition(".")
        # the value is the user's now, not the orchestrator's default
        for key in (name, override.key, f"{name}_{group}"):  # tensor_parallel: parallel.tensor
            deployment.assumed.pop(key, None)
        if not group:
            setattr(deployment, name, override.value)
        elif override.key == "speculative.model":
            spec = deployment.speculative
            spec.model = ModelRef(
                name=override.value, quantization=spec.model.quantization if spec.model else None
            )
        elif override.key == "speculative.quantization":
            if deployment.speculative.model is not None:  # a drafter without weights has none
                deployment.speculative.model.quantization = override.value
        else:
            if group == "workload" and deployment.workload is None:
                deployment.workload = WorkloadSpec()
            setattr(getattr(deployment, group), name, override.value)
    keys = {o.key for o in overrides}
    if keys & {"parallel.tensor", "parallel.pipeline"} and "gpu.count" not in keys:
        # "what if TP 8" means a replica on 8 GPUs: a pod that requests fewer is given them,
        # and hbmlint's own format, where gpu.count is one replica's, follows exactly
        needed = (deployment.parallel.tensor or 1) * (deployment.parallel.pipeline or 1)
        count = deployment.gpu.count
        exact = deployment.written_for_hbmlint
        if count is not None and (count < needed or (exact and count != needed)):
            deployment.gpu.count = needed
