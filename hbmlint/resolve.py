"""Resolve a Deployment against the catalogs: which GPU, which target and draft architectures,
how many GPUs and how they are split. Problems become located findings."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace
from typing import Any

from . import catalog
from .catalog import Architecture, ConfigError, GpuInfo
from .diagnostics import Diagnostic, input_diagnostic
from .spec import DRAFT_MODEL_METHODS, HEAD_METHODS, Deployment, ModelRef


@dataclass
class Resolved:
    deployment: Deployment
    gpu: GpuInfo
    target: Architecture
    draft: Architecture | None
    tensor_parallel: int
    pipeline_parallel: int
    gpu_count: int
    gpu_from_default: bool = False  # the manifest named no GPU; --gpu / default-gpu was used


def resolve(
    deployment: Deployment, default_gpu: str | None = None
) -> tuple[Resolved | None, list[Diagnostic]]:
    """``default_gpu`` (from --gpu or the configuration) is used when the manifest names none."""
    findings: list[Diagnostic] = []
    gpu = _resolve_gpu(deployment, findings, default_gpu)
    target = _resolve_model(deployment, deployment.model, "model", findings)
    draft = None
    spec = deployment.speculative
    if spec.model is not None and spec.method in (*DRAFT_MODEL_METHODS, *HEAD_METHODS):
        draft = _resolve_model(deployment, spec.model, "speculative", findings)
    parallel = _resolve_parallel(deployment, findings)
    if (
        gpu is None
        or target is None
        or parallel is None
        or (spec.model is not None and draft is None and spec.method != "mtp")
    ):
        return None, findings
    for arch, where in ((target, "model"), (draft, "speculative.model")):
        for note in arch.approximations if arch else ():
            findings.append(
                input_diagnostic(
                    "HBM008",
                    f"{arch.name}: {note}",
                    deployment.file,
                    deployment.location(where),
                    deployment.name,
                )
            )
    tp, pp, count = parallel
    gpu_from_default = deployment.gpu.type is None and deployment.gpu.memory is None
    resolved = Resolved(deployment, gpu, target, draft, tp, pp, count, gpu_from_default)
    return resolved, findings


def _resolve_gpu(
    deployment: Deployment, findings: list[Diagnostic], default_gpu: str | None
) -> GpuInfo | None:
    spec = deployment.gpu
    if spec.type is None and spec.memory is None:
        if default_gpu is None:
            findings.append(
                input_diagnostic(
                    "HBM005",
                    "the manifest names no GPU type; set one in the manifest, run hbmlint with "
                    "--gpu TYPE (for example --gpu H100), or set default-gpu in the configuration",
                    deployment.file,
                    deployment.location("gpu"),
                    deployment.name,
                )
            )
            return None
        spec = replace(spec, type=default_gpu)
    info = catalog.find_gpu(spec.type) if spec.type else None
    if info is None and spec.memory is None:
        close = difflib.get_close_matches(spec.type or "", catalog.gpu_names(), n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        findings.append(
            input_diagnostic(
                "HBM005",
                f"unknown GPU type '{spec.type}'{hint} Give gpu.memory (for example '80 GiB') to "
                "lint it anyway; `hbmlint gpus` lists the catalog",
                deployment.file,
                deployment.location("gpu.type"),
                deployment.name,
            )
        )
        return None
    if spec.memory is not None:
        name = info.name if info else (spec.type or "custom GPU")
        return GpuInfo(
            name=name,
            memory=spec.memory,
            fp8=info.fp8 if info else False,
            vendor=info.vendor if info else "unknown",
            source="the manifest",
        )
    return info


def _resolve_model(
    deployment: Deployment, ref: ModelRef, where: str, findings: list[Diagnostic]
) -> Architecture | None:
    def from_file(path: Any, label: str, field: str) -> Architecture | None:
        try:
            return catalog.architecture_from_config(
                catalog.read_config_file(path), label, str(path)
            )
        except ConfigError as exc:
            findings.append(
                input_diagnostic(
                    "HBM006",
                    f"{field}: {exc}",
                    deployment.file,
                    deployment.location(field),
                    deployment.name,
                )
            )
            return None

    if ref.config is not None:
        return from_file(ref.config, ref.label, f"{where}.config")
    field = f"{where}.name" if where == "model" else f"{where}.model"
    entry = catalog.find_model(ref.name or "")
    cached = catalog.hf_cache_config(ref.name or "") if entry is None else None
    if cached is not None:  # in the local Hugging Face cache: read it, no network
        return from_file(cached, ref.name or "", field)
    if entry is None:
        close = difflib.get_close_matches(ref.name or "", catalog.model_ids(), n=3, cutoff=0.6)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        findings.append(
            input_diagnostic(
                "HBM006",
                f"model '{ref.name}' is not in hbmlint's catalog nor in the local Hugging Face "
                f"cache.{hint} Point {where}.config "
                "at the model's Hugging Face config.json (a path relative to this manifest) so "
                "hbmlint can read its architecture",
                deployment.file,
                deployment.location(field),
                deployment.name,
            )
        )
        return None
    try:
        return catalog.architecture_from_config(entry["config"], entry["id"], entry["source"])
    except ConfigError as exc:  # a broken catalog entry is our bug, but report it, not crash
        findings.append(
            input_diagnostic(
                "HBM006",
                f"catalog entry {entry['id']}: {exc}",
                deployment.file,
                deployment.location(field),
                deployment.name,
            )
        )
        return None


def _resolve_parallel(
    deployment: Deployment, findings: list[Diagnostic]
) -> tuple[int, int, int] | None:
    count = deployment.gpu.count
    pp = deployment.parallel.pipeline or 1
    tp = deployment.parallel.tensor or (count // pp if count and count % pp == 0 else 1)
    if count is not None and count != tp * pp:
        findings.append(
            input_diagnostic(
                "HBM007",
                f"gpu.count is {count} but tensor x pipeline parallelism is {tp} x {pp} = "
                f"{tp * pp}; a replica uses exactly tensor x pipeline GPUs",
                deployment.file,
                deployment.location("gpu.count"),
                deployment.name,
                fixes=[
                    f"Set gpu.count to {tp * pp}, or parallel.tensor to {count // pp}"
                    if count % pp == 0
                    else f"Set gpu.count to {tp * pp}"
                ],
            )
        )
        return None
    return tp, pp, tp * pp


def with_changes(resolved: Resolved, **changes: object) -> Resolved:
    """A copy with some settings changed, for what-if budgets (see budget.whatif)."""
    return replace(resolved, **changes)
