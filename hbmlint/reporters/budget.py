"""The budget report: where every GiB of one GPU goes, as a table with a bar, or as JSON."""

from __future__ import annotations

import json
from typing import Any

from ..budget import Budget
from ..results import DeploymentResult, FileResult, RenderOptions, Report
from ..units import Q, bytes_of, format_bytes

BAR_WIDTH = 50
_OVERHEAD_LABELS = {
    "non_torch": "non-torch",
    "activation": "activations",
    "cuda_graphs": "CUDA graphs",
    "margin": "kept free",
}
_SEGMENTS = (
    ("W", "target weights"),
    ("D", "draft weights"),
    ("o", "overhead"),
    ("K", "KV cache"),
    (".", "held back"),
)


def budget_dict(result: FileResult, item: DeploymentResult) -> dict[str, Any]:
    dep = item.deployment
    if item.budget is None:
        return {"file": result.display, "name": dep.name, "error": item.error}
    b = item.budget
    s = b.settings
    workload = b.workload_tokens
    return {
        "file": result.display,
        "name": dep.name,
        "engine": s.engine,
        "gpu": b.resolved.gpu.name,
        "gpu_count": b.resolved.gpu_count,
        "tensor_parallel": s.tensor_parallel,
        "pipeline_parallel": s.pipeline_parallel,
        "total_bytes": bytes_of(b.total),
        "usable_bytes": bytes_of(b.usable),
        "weights_bytes": bytes_of(b.weights),
        "draft_weights_bytes": bytes_of(b.draft_weights),
        "overhead_bytes": bytes_of(b.overhead_total),
        "overhead": {name: bytes_of(value) for name, value in b.overhead.items()},
        "kv_cache_bytes": bytes_of(b.kv_cache),
        "kv_bytes_per_token": int(b.kv_bytes_per_token.to("byte/token").magnitude),
        "kv_cache_tokens": int(b.kv_tokens.to("token").magnitude),
        "block_size": s.block_size,
        "max_model_len": s.max_model_len,
        "max_concurrency": round(b.max_concurrency, 4),
        # decode context parallelism: each GPU holds 1/N of every sequence's KV cache, so the
        # tokens and sequences above (a GPU's, whole) reach N times as far (not modelled: lint.py)
        "decode_context_parallel": dep.parallel.decode_context or 1,
        "workload_tokens": None if workload is None else int(workload.magnitude),
        "verify_tokens": b.verify_tokens,
        "draft_host_bytes": bytes_of(b.draft_host_weights) if b.draft_host_weights else 0,
        "assumed": dict(b.assumed),
    }


def file_error(result: FileResult) -> str | None:
    """Why a file yielded no deployment at all (unreadable, not YAML, schema errors)."""
    return result.error()


def render_json(results: list[FileResult]) -> str:
    items = []
    for result in results:
        error = file_error(result)
        if error:
            items.append({"file": result.display, "name": None, "error": error})
        items.extend(budget_dict(result, item) for item in result.deployments)
    return json.dumps(items, indent=2) + "\n"


def render_text(results: list[FileResult]) -> str:
    blocks = []
    for result in results:
        error = file_error(result)
        if error:
            blocks.append(f"{result.display}\n  cannot compute a budget: {error}\n")
        for item in result.deployments:
            if item.budget is None:
                blocks.append(
                    f"{result.display}: {item.deployment.name}\n"
                    f"  cannot compute a budget: {item.error}\n"
                )
            else:
                blocks.append(_table(result.display, item.budget))
    if not blocks:
        return "No deployments found.\n"
    return "\n".join(blocks)


def _bar(b: Budget) -> str:
    total = b.total.to("byte").magnitude
    kv = max(b.kv_cache.to("byte").magnitude, 0)
    parts = [
        b.weights.to("byte").magnitude,
        b.draft_weights.to("byte").magnitude,
        b.overhead_total.to("byte").magnitude,
        kv,
    ]
    used = sum(parts)
    parts.append(max(total - used, 0))
    scale = BAR_WIDTH / max(total, used)
    cells, edge, drawn = "", 0.0, 0
    for (symbol, _), value in zip(_SEGMENTS, parts, strict=True):
        edge += value * scale  # round the running edge, so the segments always fill the bar
        cells += symbol * (round(edge) - drawn)
        drawn = round(edge)
    over = (
        " needs " + format_bytes(Q(used - total, "byte")) + " more than the GPU has"
        if used > total
        else ""
    )
    return f"[{cells.ljust(BAR_WIDTH)}]{over}"


def _kv_note(b: Budget) -> str:
    """The KV cache's dtype, or, where nothing is left for it, by how much (not a negative
    size)."""
    if b.kv_cache.magnitude >= 0:
        return b.settings.kv_cache_dtype
    short = format_bytes(-b.kv_cache, b.byte_unit)
    return f"none: no room left ({short} short)"


def _table(display: str, b: Budget) -> str:
    s = b.settings
    unit = b.byte_unit
    gpu = b.resolved.gpu
    dep = b.deployment

    def size(q: Any) -> str:
        return format_bytes(q, unit).rjust(12)

    overhead_parts = ", ".join(
        f"{_OVERHEAD_LABELS.get(name, name)} {format_bytes(v, unit)}"
        for name, v in b.overhead.items()
    )
    kv_target = int(b.kv_bytes_per_token_target.magnitude)
    kv_draft = int(b.kv_bytes_per_token_draft.magnitude)
    per_token = f"{kv_target + kv_draft:,} bytes"
    if kv_draft:
        per_token += f" (target {kv_target:,} + draft {kv_draft:,})"
    lines = [
        f"{display}: {dep.name}",
        f"  {s.engine} on {b.resolved.gpu_count} x {gpu.name} ({format_bytes(b.total, unit)} "
        f"each), TP {s.tensor_parallel} x PP {s.pipeline_parallel}; per GPU:",
        f"  {_bar(b)}",
        "  " + "  ".join(f"{sym} {label}" for sym, label in _SEGMENTS),
        f"    usable           {size(b.usable)}   "
        + (
            "weights + overhead + --kv-cache-memory-bytes (no fraction applies)"
            if s.kv_cache_memory_bytes
            else _usable_basis(b, unit)
        ),
        f"    target weights   {size(b.weights)}   {b.resolved.target.name}"
        f"{' (' + s.quantization + ')' if s.quantization else ''}",
    ]
    host = b.draft_host_weights
    if b.draft_weights.magnitude or kv_draft or (host is not None and host.magnitude):
        draft = b.resolved.draft.name if b.resolved.draft else s.speculative_method
        lines.append(
            f"    draft weights    {size(b.draft_weights)}   {draft}"
            f"{' (' + s.draft_quantization + ')' if s.draft_quantization else ''}"
            + (
                f"; {format_bytes(host, unit)} held in host memory"
                if host and host.magnitude
                else ""
            )
        )
    lines += [
        f"    overhead         {size(b.overhead_total)}   {overhead_parts}",
        f"    KV cache         {size(max(b.kv_cache, Q(0, 'byte')))}   {_kv_note(b)}",
        f"    KV per token     {per_token}",
        f"    KV capacity      {int(b.kv_tokens.magnitude):,} tokens (blocks of {s.block_size})",
        f"    max concurrency  {b.max_concurrency:.2f} sequences of {s.max_model_len:,} tokens",
    ]
    split = dep.parallel.decode_context or 1
    if split > 1 and b.has_drafter:
        # with a drafter the engine's figure is not N times a GPU's (Kimi-K2.6 with an EAGLE-3
        # head at DCP 8 logged 1,769,600 tokens, against 3,424,256 without it): not said
        lines[-2] += f" a GPU (decode context parallelism {split} with a drafter: not modelled)"
    elif split > 1:
        # each GPU holds 1/N of every sequence's KV cache: the engine reports N times the
        # tokens and sequences a GPU's cache holds whole (vLLM's "GPU KV cache size")
        lines[-2:] = [
            f"    KV capacity      {int(b.kv_tokens.magnitude):,} tokens a GPU (blocks of "
            f"{s.block_size}); about {int(b.kv_tokens.magnitude) * split:,} with each sequence "
            f"split over {split} GPUs (decode context parallelism, not modelled)",
            f"    max concurrency  {b.max_concurrency:.2f} sequences of {s.max_model_len:,} tokens "
            f"a GPU; about {b.max_concurrency * split:.2f} split over {split} GPUs",
        ]
    if b.has_drafter and s.num_speculative_tokens:
        lines.append(
            f"    decode step      {b.verify_tokens:,} tokens ({s.max_num_seqs:,} sequences x "
            f"(1 + {s.num_speculative_tokens}) verified)"
        )
    if b.workload_tokens is not None:
        w = dep.workload
        lines.append(
            f"    workload needs   {int(b.workload_tokens.magnitude):,} tokens "
            f"({w.concurrency} x {w.context_tokens:,})"
        )
    if b.assumed:
        lines.append("  assumed:")
        lines += [f"    {key} = {why}" for key, why in b.assumed.items()]
    return "\n".join(lines) + "\n"


def report_text(result: Report, options: RenderOptions) -> str:
    return render_text(result.files)


def report_json(result: Report, options: RenderOptions) -> str:
    return render_json(result.files)


def _usable_basis(b: Any, unit: str) -> str:
    """How the engine arrives at its usable memory: a fraction of the card, or (TensorRT-LLM)
    a fraction of what is free once the weights and the overhead are in."""
    s = b.settings
    if s.extensible_kv_cache:  # vLLM 0.34: no more than was free at start
        return f"{b.usable_share:.0%} of {format_bytes(b.total, unit)}, what is free at start"
    if not b.fraction_of_free:
        return f"{s.memory_fraction:.0%} of {format_bytes(b.total, unit)}"
    trtllm_state = s.engine == "trtllm" and b.kv_state_bytes_per_sequence.magnitude
    state = "Mamba cache + " if trtllm_state else ""
    basis = f"weights + overhead + {state}{s.memory_fraction:.0%} of the memory free after them"
    if b.usable >= b.total:  # weights and overhead at or past the card: nothing is free
        basis += f" (none: they take all of the {format_bytes(b.total, unit)})"
    return basis
