"""How close hbmlint's budget comes to what serving engines really allocated.

Runs the budget on every usable record of the calibration logs (start-up logs reduced to
numbers: model, GPU, settings, and what the engine measured): the project's own files in
benchmarks/calibration/*.yaml and, where it sits beside the clone, ../shared/calibration/
engine-logs.yaml. Every record belongs to a split, `calibration` (the constants may be fitted
on it) or `validation` (never fitted on); see benchmarks/calibration/README.md. It prints
each record, then per engine, per engine version group and per split: weights, KV cache
bytes and tokens, drafter weights, and the start/refuse verdicts.

    python benchmarks/accuracy.py                 # the table and the summaries
    python benchmarks/accuracy.py --fit           # also fit the activation constants
    python benchmarks/accuracy.py --no-shared     # the project's own files only
    python benchmarks/accuracy.py --json out.json

A record is turned into a deployment the way a user would write its manifest: model id, GPU
(the memory the log printed, else the catalog's), parallelism, the settings the log shows, and
the engine version (a version the log only dates is read as the release of that month). Nothing
is tuned per record. Errors are (hbmlint - measured) / measured.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from hbmlint import budget as budget_stage
from hbmlint import catalog
from hbmlint.catalog.variants import variant
from hbmlint.diagnostics import Severity
from hbmlint.engines.sglang import token_map_vocab
from hbmlint.resolve import resolve
from hbmlint.rules import evaluate_rule, forget_scope, load_rules
from hbmlint.spec import (
    SPECULATIVE_METHODS,
    Deployment,
    GpuSpec,
    ModelRef,
    ParallelSpec,
    ServingSpec,
    SpeculativeSpec,
)
from hbmlint.units import Q

GIB = 2**30
DEFAULT_LOGS = Path(__file__).resolve().parents[2] / "shared" / "calibration" / "engine-logs.yaml"
CALIBRATION_DIR = Path(__file__).with_name("calibration")
SPLITS = ("calibration", "validation")

# GPU names as logs print them -> catalog names (the first match wins).
GPU_NAMES = [
    ("rtx 5090", "RTX-5090"),
    ("rtx 5080", "RTX-5080-16GB"),
    ("rtx 5070 ti", "RTX-5070-Ti-16GB"),
    ("rtx 5060 ti 16gb", "RTX-5060-Ti-16GB"),  # the 8 GB card shares the NVML name
    ("rtx 4070 ti super", "RTX-4070-Ti-SUPER-16GB"),
    ("rtx 3060", "RTX-3060-12GB"),
    ("gb10", "GB10-128GB"),
    ("rtx pro 6000", "RTX-PRO-6000-Blackwell-96GB"),
    ("rtx a6000", "RTX-A6000-48GB"),
    ("l40s", "L40S-48GB"),
    ("l40", "L40-48GB"),
    ("l20", "L20-48GB"),
    ("a10g", "A10G-24GB"),
    ("gb200", "GB200-186GB"),
    ("b200", "B200-180GB"),
    ("b300", "B300-288GB"),
    ("mi355x", "MI355X-288GB"),
    ("rtx 4090", "RTX-4090"),
    ("rtx 3090", "RTX-3090"),
    ("mi300x", "MI300X"),
    ("h200", "H200"),
    ("h100", "H100"),
    ("h20", "H20-96GB"),  # after h200 and h100: "H200" contains "h20"
    ("a100-sxm4-40gb", "A100-40GB"),
    ("a100-pcie-40gb", "A100-40GB"),
    ("a100", "A100-80GB"),
    ("nvidia a10", "A10-24GB"),  # after a10g and a100, which contain it
    ("tesla t4", "T4"),
    ("l4", "L4"),
]

# vLLM releases by month, for logs that give only a date ("V1 (Jul 2025)"): github.com/
# vllm-project/vllm/releases. Used only when the record names no x.y version.
VLLM_BY_MONTH = {
    (2024, 7): "0.5.3",
    (2024, 12): "0.6.5",
    (2025, 1): "0.7.0",
    (2025, 2): "0.7.2",
    (2025, 4): "0.8.4",
    (2025, 7): "0.10.0",
    (2025, 8): "0.10.1",
    (2025, 9): "0.10.2",
    (2025, 10): "0.11.0",
    (2025, 11): "0.11.1",
    # 2026, from logs that name their release: 0.24.0 in July (noonghunna/club-3090#652), 0.26
    # out by late July (vllm-project/vllm#49878), 0.29.0 by mid-September (recipes PR #971)
    (2026, 7): "0.24.0",
    (2026, 8): "0.26.0",
    (2026, 9): "0.29.0",
}
# SGLang releases by month (github.com/sgl-project/sglang/releases), for logs dated only
# ("Mar 2025 main"): the release current in that month.
SGLANG_BY_MONTH = {
    (2025, 1): "0.4.1",
    (2025, 2): "0.4.3",
    (2025, 3): "0.4.4",
    (2025, 8): "0.5.0",
    (2025, 12): "0.5.6",
}
MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

# Quantization as logs describe it -> hbmlint's format names.
QUANT_WORDS = [
    ("w8a8", "w8a8"),
    ("mxfp4", "mxfp4"),
    ("nvfp4", "nvfp4"),
    ("fp8", "fp8"),
    ("awq", "awq"),
    ("gptq", "gptq"),
    ("bitsandbytes", "bitsandbytes"),
    ("int4", "int4"),
]


@dataclass
class Outcome:
    id: str
    engine: str
    model: str
    gpu: str
    split: str = "calibration"
    group: str = "?"  # the engine version group (version_group)
    # what happened at start-up: True started, False refused, None not known; and how it is known
    started: bool | None = None
    started_how: str = ""
    predicted_start: bool | None = None
    refusal: str = ""  # the error findings that make hbmlint predict a refusal
    measured: dict[str, float] = field(default_factory=dict)
    predicted: dict[str, float] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)  # quantity -> why not evaluated
    note: str = ""
    method: str = ""  # the speculative method, where the run has a drafter
    drafter_from: str = ""  # how the log's drafter figure is had (drafter_basis)
    # a model hbmlint's catalog lacks, read from its repository name (catalog/variants.py): how
    # hbmlint took it; "" for a catalog model
    from_name: str = ""
    # the KV bytes at the low and the generous edge of hbmlint's estimate (Budget.kv_uncertainty)
    band: tuple[float, float] | None = None

    def error(self, quantity: str) -> float | None:
        if quantity not in self.measured or quantity not in self.predicted:
            return None
        measured = self.measured[quantity]
        if measured <= 0:
            return None
        return (self.predicted[quantity] - measured) / measured


def engine_of(record: dict) -> str | None:
    text = str(record.get("engine") or "").lower()
    if text.startswith("vllm"):
        return "vllm"
    if text.startswith("sglang") and "ktransformers" not in text:
        return "sglang"
    if text.startswith("tensorrt-llm") or text.startswith("trtllm"):
        return "trtllm"
    if text.startswith("tgi") or text.startswith("text-generation-inference"):
        return "tgi"
    return None


def engine_version_of(record: dict) -> str | None:
    text = str(record.get("engine_version") or "")
    if not text or re.search(r"\d+\.\d+", text):
        return text or None
    match = re.search(r"(" + "|".join(MONTHS) + r")[a-z]* (\d{4})", text, re.IGNORECASE)
    if match:
        month = MONTHS.index(match.group(1).lower()[:3]) + 1
        by_month = SGLANG_BY_MONTH if engine_of(record) == "sglang" else VLLM_BY_MONTH
        release = by_month.get((int(match.group(2)), month))
        if release:
            return f"{release} ({text})"
    return text


def gpu_of(record: dict) -> tuple[str | None, Any]:
    """(catalog GPU name, the memory the log printed) of a record; either may be None."""
    text = str(record.get("gpu_model") or "").lower()
    name = next((gpu for key, gpu in GPU_NAMES if key in text), None)
    logged = str(record.get("gpu_total_memory_logged") or "")
    match = re.fullmatch(r"\s*([\d.]+)\s*GiB\s*", logged)
    memory = Q(float(match.group(1)), "GiB") if match else None
    if name == "RTX-5090" and str(record.get("engine", "")).startswith("tensorrt"):
        memory = None  # TensorRT-LLM prints nvidia-smi's total, not what CUDA can allocate
    if memory is None and engine_of(record) == "sglang":
        memory = sglang_total(record.get("memory") or {})
    return name, memory


def sglang_total(memory: dict) -> Any:
    """The card's memory behind what SGLang sizes mem_fraction_static against: the 'avail mem'
    it logs when weight loading begins (its total_gpu_memory), or the 'avail mem' plus 'mem
    usage' of the load-end line, plus the CUDA context the budget takes off again (engines.yaml
    free_at_start_reserved). Read only where the record states these figures (SGLang's "GB"
    are GiB)."""
    reserved = catalog.engine_defaults("sglang").get("free_at_start_reserved", "0 GiB")
    reserved_gib = float(Q(reserved).to("GiB").magnitude) if isinstance(reserved, str) else 0.0
    before = memory.get("avail_mem_before_weights_gb")
    if isinstance(before, (int, float)):
        return Q(float(before) + reserved_gib, "GiB")
    line = str(memory.get("load_weight_end_line") or "")
    match = re.search(r"avail mem=([\d.]+) GB, mem usage=([\d.]+) GB", line)
    if match:
        return Q(float(match.group(1)) + float(match.group(2)) + reserved_gib, "GiB")
    return None


def quantization_of(record: dict) -> str | None:
    text = str(record.get("quantization") or "").lower()
    if not text:
        return None
    return next((fmt for word, fmt in QUANT_WORDS if word in text), None)


def first(mapping: dict, *keys: str) -> Any:
    for key in keys:
        if mapping.get(key) is not None:
            return mapping[key]
    return None


def measured_of(record: dict, engine: str) -> dict[str, float]:
    memory = record.get("memory") or {}
    out: dict[str, float] = {}
    weights = first(memory, "weights_gib", "weights_gb")  # SGLang's "GB" are GiB
    if isinstance(weights, (int, float)):
        out["weights"] = float(weights) * GIB
    kv = memory.get("kv_cache_gib")
    if kv is None and memory.get("k_size_gb") is not None:
        kv = memory["k_size_gb"] + memory["v_size_gb"]
    if isinstance(kv, (int, float)):
        out["kv_bytes"] = float(kv) * GIB
    tokens = first(memory, "kv_cache_tokens", "max_total_num_tokens")
    if tokens is None and memory.get("gpu_blocks") is not None:
        block = memory.get("block_size") or catalog.engine_defaults(engine)["block_size"]
        tokens = memory["gpu_blocks"] * block
    if isinstance(tokens, (int, float)):
        out["kv_tokens"] = float(tokens)
    draft = memory.get("draft_weights_gib")
    if isinstance(draft, (int, float)):
        out["draft_weights"] = float(draft) * GIB
    concurrency = concurrency_of(memory.get("max_concurrency"))
    if concurrency is not None:
        out["max_concurrency"] = concurrency
    # vLLM's hybrid pool: "max_num_seqs (N) exceeds available Mamba cache blocks (M)" gives M
    # vLLM 0.19+: "Estimated CUDA graph memory: X GiB total", the profile's charge for graphs
    graphs = memory.get("cuda_graph_gib_estimated")
    if isinstance(graphs, (int, float)) and engine == "vllm":
        out["cuda_graphs"] = float(graphs) * GIB
    blocks = memory.get("state_blocks")
    if isinstance(blocks, int):
        out["state_blocks"] = float(blocks)
    # vLLM V1 prints target + drafter on one line: the drafter is that line less the same
    # deployment's figure without it, or the target checkpoint's own figure from another log
    alone = first(memory, "weights_without_drafter_gib", "target_alone_weights_gib")
    if isinstance(alone, (int, float)) and "weights" in out and "draft_weights" not in out:
        out["draft_weights"] = out["weights"] - float(alone) * GIB
    return out


def drafter_basis(memory: dict) -> str:
    """How a record's drafter figure is had: "logged" where the engine printed the drafter on
    its own line; "derived, paired runs" (the same deployment without the drafter printed the
    target) or "derived, target elsewhere" (the target checkpoint's figure from another log):
    one printed figure less another (measured_of)."""
    if isinstance(memory.get("draft_weights_gib"), (int, float)):
        return "logged"
    if isinstance(memory.get("weights_without_drafter_gib"), (int, float)):
        return "derived, paired runs"
    if isinstance(memory.get("target_alone_weights_gib"), (int, float)):
        return "derived, target elsewhere"
    return ""


def concurrency_of(value: Any) -> float | None:
    """The x figure of vLLM's "Maximum concurrency for N tokens per request: 9.74x" as a record
    keeps it (the line's tail, or a number)."""
    if isinstance(value, (int, float)):
        return float(value)
    match = re.search(r"([\d.]+)\s*x\s*$", str(value or ""))
    return float(match.group(1)) if match else None


def drafter_only(record: dict) -> dict | None:
    """A record whose model hbmlint's catalog lacks, but whose drafter layers are those of a
    catalog model of the same shape (speculative.drafter_shape_model_id): that model in its
    stored dtype, for the drafter alone. None otherwise."""
    spec = record.get("speculative")
    shape = spec.get("drafter_shape_model_id") if isinstance(spec, dict) else None
    model = str(record.get("model_id"))
    if not shape or catalog.find_model(model) is not None or variant(model) is not None:
        return None
    # the shape model in its stored dtype, or in the format the record names for the drafter
    quantization = spec.get("drafter_shape_quantization")
    return {**record, "model_id": shape, "quantization": quantization, "_drafter_only": True}


def speculative_of(record: dict) -> SpeculativeSpec:
    """The speculative decoding a record's log shows, as a manifest would declare it: the
    method when hbmlint knows it, the drafter when it is named by a Hugging Face id."""
    spec = record.get("speculative")
    if not isinstance(spec, dict):  # a note in words ("non-MTP run ..."): no method to read
        spec = {}
    method = str(spec.get("method") or "none").lower()
    if method not in SPECULATIVE_METHODS:
        return SpeculativeSpec()
    model = spec.get("draft_model_id") or spec.get("draft_model")
    named = isinstance(model, str) and re.fullmatch(r"[\w.-]+/[\w.-]+", model) is not None
    token_map = spec.get("token_map")
    return SpeculativeSpec(
        method=method,
        model=ModelRef(name=model) if named else None,
        num_speculative_tokens=spec.get("num_speculative_tokens"),
        tensor_parallel=spec.get("draft_tensor_parallel_size"),
        # SGLang --speculative-token-map: its size as hbmlint reads it from the flag
        token_map=token_map,
        hot_vocab_size=token_map_vocab(token_map) if token_map else None,
    )


def deployment_of(record: dict, engine: str, gpu: str | None, memory: Any) -> Deployment:
    """The manifest a user would write for this record."""
    fraction = first(
        record,
        "gpu_memory_utilization",
        "mem_fraction_static",
        "kv_cache_free_gpu_mem_fraction",
        "gpu_fraction",
    )
    dtype = record.get("dtype")
    dtype = dtype if dtype in ("bfloat16", "float16", "float32") else None
    kv_dtype = record.get("kv_cache_dtype")
    tp = int(record.get("tensor_parallel_size") or record.get("num_gpus") or 1)
    pp = int(record.get("pipeline_parallel_size") or 1)
    # SGLang --dp-size D --enable-dp-attention: D attention-DP ranks inside the TP group's GPUs
    dp_attention = bool(record.get("enable_dp_attention"))
    data = int(record.get("data_parallel_size") or 1) if dp_attention else None
    return Deployment(
        name=record["id"],
        file=str(record.get("_file") or "engine-logs.yaml"),
        engine=engine,
        engine_version=engine_version_of(record),
        gpu=GpuSpec(type=gpu or "H100", memory=memory, count=tp * pp),
        model=ModelRef(name=record["model_id"], dtype=dtype, quantization=quantization_of(record)),
        parallel=ParallelSpec(
            tensor=tp,
            pipeline=pp,
            data=data,
            dp_attention=dp_attention or None,
            # vLLM --enable-expert-parallel: experts placed whole (the schema's field, README.md)
            expert=bool(record.get("enable_expert_parallel")) or None,
        ),
        serving=ServingSpec(
            max_model_len=record.get("max_model_len"),
            max_num_seqs=first(
                record, "max_num_seqs", "max_running_requests", "max_batch_size", "max_num_requests"
            ),
            max_num_batched_tokens=first(
                record, "max_num_batched_tokens", "chunked_prefill_size", "max_num_tokens"
            ),
            gpu_memory_utilization=fraction,
            kv_cache_dtype=None if kv_dtype in (None, "auto") else kv_dtype,
            block_size=(record.get("memory") or {}).get("block_size") or record.get("page_size"),
            kv_cache_max_tokens=record.get("max_total_tokens"),
            # TGI --max-input-tokens (its --max-total-tokens is the record's max_model_len)
            max_input_tokens=record.get("max_input_tokens"),
            cuda_graph_max_bs=record.get("cuda_graph_max_bs"),
            # vLLM --max-cudagraph-capture-size, where the command or the config dump sets it
            cudagraph_max_capture_size=record.get("max_cudagraph_capture_size"),
            cpu_offload_gb=record.get("cpu_offload_gb"),
            enforce_eager=bool(record.get("enforce_eager"))
            or "--enforce-eager" in str(record.get("notes") or ""),
            # the engine's switch for a length above the model's, and a config override (a
            # YaRN rope entry), where the record's command sets them
            allow_long_max_model_len=record.get("allow_long_max_model_len"),
            model_overrides=record.get("model_overrides"),
            # SGLang's state pool of hybrid models, where the record's command sets it
            mamba_ssm_dtype=record.get("mamba_ssm_dtype"),
            max_mamba_cache_size=record.get("max_mamba_cache_size"),
            mamba_full_memory_ratio=record.get("mamba_full_memory_ratio"),
            # vLLM --language-model-only and --limit-mm-per-prompt's zero limits: no tower
            # built or profiled for those modalities
            language_model_only=record.get("language_model_only"),
            mm_zero_limits=tuple(record.get("mm_zero_limits") or ()),
            # vLLM --[no-]enable-prefix-caching, SGLang --disable-radix-cache (false)
            prefix_caching=record.get("prefix_caching"),
            # vLLM --[no-]async-scheduling: a window layer keeps two batches in flight with it
            async_scheduling=record.get("async_scheduling")
            if "async_scheduling" in record
            else (False if "--no-async-scheduling" in str(record.get("notes") or "") else None),
        ),
        speculative=speculative_of(record),
    )


def evaluate(record: dict) -> Outcome | str:
    """The outcome for a record, or why it cannot be evaluated at all."""
    engine = engine_of(record)
    if engine is None:
        return f"engine '{record.get('engine')}' is not one hbmlint models"
    if not record.get("model_id"):
        return "the model is not named by a Hugging Face id (local path or not in the excerpt)"
    record = drafter_only(record) or record
    from_name = None if catalog.find_model(record["model_id"]) else variant(record["model_id"])
    if catalog.find_model(record["model_id"]) is None and from_name is None:
        return f"{record['model_id']} is not in the catalog"
    if record.get("decode_context_parallel_size"):
        return "decode context parallelism multiplies the token count; not a manifest setting"
    measured = measured_of(record, engine)
    if record.get("_drafter_only"):  # another target's figures would not compare
        measured = {k: v for k, v in measured.items() if k == "draft_weights"}
    if not measured:
        return "the log gives no weights, KV bytes or KV tokens"
    gpu, memory = gpu_of(record)
    deployment = deployment_of(record, engine, gpu, memory)
    resolved, findings = resolve(deployment)
    if resolved is None:
        return "; ".join(f.message for f in findings)
    b = budget_stage.build(resolved)
    outcome = Outcome(
        id=record["id"],
        engine=engine,
        model=record["model_id"],
        gpu=resolved.gpu.name if gpu or memory else "?",
        split=split_of(record),
        group=version_group(engine, engine_version_of(record)),
        measured=measured,
        from_name=from_name.described if from_name else "",
    )
    hybrid = is_hybrid(resolved, b)
    outcome.started, outcome.started_how = happened(record, engine, hybrid)
    outcome.method = deployment.speculative.method if b.has_drafter else ""
    if "draft_weights" in measured:
        outcome.drafter_from = drafter_basis(record.get("memory") or {})
    if (gpu is not None or memory is not None) and not record.get("_drafter_only"):
        # (a drafter-only record's target is a stand-in of the drafter's shape: no verdict)
        refusals, doubts = predicted_refusals(b)
        # a warning that the engine may refuse (the shortfall is inside the KV estimate's
        # uncertainty) is neither a refusal promised nor a clean bill: "?"
        outcome.predicted_start = None if doubts and not refusals else not refusals
        outcome.refusal = "; ".join(refusals or doubts)
    outcome.predicted["weights"] = float(b.weights.to("byte").magnitude)
    # V1 loads the drafter inside the target's memory profiler: its line holds both
    with_drafter = engine == "vllm" and b.has_drafter and not b.settings.legacy_engine
    drafter_bytes = float(b.draft_weights.to("byte").magnitude) if with_drafter else 0.0
    outcome.predicted["weights"] += drafter_bytes
    if "draft_weights" in measured:
        drafter = b.draft_weights + (b.draft_host_weights or Q(0, "byte"))
        if b.has_drafter and (resolved.draft is not None or drafter.magnitude > 0):
            outcome.predicted["draft_weights"] = float(drafter.to("byte").magnitude)
        else:
            outcome.skipped["draft_weights"] = "the drafter is not named by a Hugging Face id"
    if "cuda_graphs" in measured and not b.settings.enforce_eager:
        # what the budget charges from 0.20, computed for the record's settings whatever the
        # release (0.19 logged the estimate without taking it from the KV cache)
        outcome.predicted["cuda_graphs"] = budget_stage.graph_profile_bytes(b.settings)
    stored = stored_weights(resolved, b)
    if stored is not None and "weights" in measured:
        outcome.predicted["weights_stored"] = stored + drafter_bytes
        outcome.measured["weights_stored"] = measured["weights"]
    if gpu is None and memory is None:
        for quantity in ("kv_bytes", "kv_tokens"):
            if quantity in measured:
                outcome.skipped[quantity] = "the log names no GPU"
    else:
        outcome.predicted["kv_bytes"] = float(b.kv_cache.to("byte").magnitude)
        # the band the error rules allow for (HBM102 promises a refusal only below its top)
        outcome.band = (
            float((b.kv_cache - b.kv_uncertainty(False)).to("byte").magnitude),
            float((b.kv_cache + b.kv_uncertainty(True)).to("byte").magnitude),
        )
        outcome.predicted["kv_tokens"] = float(b.kv_tokens.to("token").magnitude)
        outcome.predicted["max_concurrency"] = b.max_concurrency
        if b.kv_pages is not None:
            outcome.predicted["state_blocks"] = float(b.state_blocks_if(b.kv_cache))
    if hybrid and "kv_tokens" in measured:
        # vLLM's "GPU KV cache size" for a model with window or state layers was num_blocks //
        # KV groups x the smallest block size (kv_cache_utils._report_kv_cache_config, through
        # 0.20.0 at least: the 0.18-0.20 logs of Qwen3.5); later builds log max concurrency x
        # max_model_len as hbmlint counts (vllm#40694), from a release not known here. The
        # old figure is predicted from hbmlint's page layout where the model has one; the
        # concurrency compares the two whatever the release.
        reported = vllm_reported_tokens(b) if "kv_tokens" in outcome.predicted else None
        outcome.predicted.pop("kv_tokens", None)
        old_report = (catalog.release(engine_version_of(record)) or ()) <= OLD_TOKEN_REPORT
        if reported is not None and old_report:
            outcome.predicted["kv_tokens"] = reported
        else:
            outcome.skipped["kv_tokens"] = HYBRID_TOKENS
    # The layout check: tokens hbmlint fits in the KV bytes the engine measured.
    if (
        "kv_bytes" in measured
        and "kv_tokens" in measured
        and measured["kv_bytes"] > 0
        and not hybrid
    ):
        per_token = float(b.kv_bytes_per_token.to("byte / token").magnitude)
        outcome.predicted["layout_tokens"] = measured["kv_bytes"] / per_token
        outcome.measured["layout_tokens"] = measured["kv_tokens"]
    return outcome


HYBRID_TOKENS = (
    "window or state layers: vLLM counts one KV group's pages as tokens; see max concurrency"
)


# the last release seen logging vLLM's old "GPU KV cache size" for hybrid models (the 0.20.0
# Qwen3.5 records: one group's blocks x block size, not concurrency x max_model_len); a record
# that names no release is taken to print the old report, as the records that name one do
OLD_TOKEN_REPORT = (0, 20, 0)


def vllm_reported_tokens(b: Any) -> float | None:
    """The "GPU KV cache size" vLLM 0.18-0.20 log for a hybrid attention and state-space
    model: the KV cache's blocks (the budget's page layout: a block of every layer of a group,
    a drafter's joined layers included) shared out evenly over the KV groups, times the
    attention block size; None for a model hbmlint does not page that way (window layers)."""
    pages = b.kv_pages
    kv_bytes = float(b.kv_cache.to("byte").magnitude)
    if pages is None or kv_bytes <= 0:
        return None
    blocks = int(kv_bytes // pages.block_bytes)
    return float(blocks // (pages.full_groups + pages.state_groups) * pages.block)


def is_hybrid(resolved: Any, b: Any) -> bool:
    """Does the model have sliding-window or state-space layers (vLLM's hybrid KV manager)?
    Only vLLM logs one KV group's pages as its token count; SGLang logs its pool's tokens."""
    s = b.settings
    if s.engine != "vllm":
        return False
    layout = resolved.target.kv_layout(
        s.tensor_parallel, s.pipeline_parallel, catalog.kv_dtype_bytes(s.kv_cache_dtype)
    )
    return bool(layout.windows or layout.state_per_sequence)


def happened(record: dict, engine: str, hybrid: bool = False) -> tuple[bool | None, str]:
    """Whether the engine started, and how that is known: the record's `started`; else, for
    vLLM only: refused when its KV cache came out at or below zero or (a model without window
    or state layers) held fewer tokens than one max_model_len sequence (vLLM refuses such a
    start), started (its KV check passed) when it logged at least max_model_len tokens;
    otherwise unknown (None)."""
    if isinstance(record.get("started"), bool):
        return record["started"], "stated"
    if engine != "vllm":
        return None, ""
    memory = record.get("memory") or {}
    kv = memory.get("kv_cache_gib")
    if isinstance(kv, (int, float)) and kv <= 0:
        return False, "no KV cache left"
    tokens = memory.get("kv_cache_tokens")
    length = record.get("max_model_len")
    if isinstance(tokens, (int, float)) and isinstance(length, int) and not hybrid:
        # V1 logs "GPU KV cache size" only after its check that one request fits
        if tokens < length:
            return False, "KV tokens below max_model_len"
        return True, "KV tokens logged, at least max_model_len"
    return None, ""


_RULES: list[Any] = []


# warnings that say the engine may refuse to start (inside the estimate's uncertainty)
MAY_REFUSE = {"HBM105"}


def predicted_refusals(b: Any) -> tuple[list[str], list[str]]:
    """The built-in rules' errors for this budget (each is hbmlint saying the engine refuses),
    and the warnings that it may refuse (MAY_REFUSE)."""
    if not _RULES:
        _RULES.extend(load_rules()[0])
    found, doubts = [], []
    for rule in _RULES:
        finding = evaluate_rule(rule, b)
        if finding is not None and finding.severity == Severity.ERROR:
            found.append(finding.code)
        elif finding is not None and finding.code in MAY_REFUSE:
            doubts.append(finding.code)
    forget_scope(b)
    return found, doubts


# ------------------------------------------------------------------------- records and splits


def hashed_split(record_id: str) -> str:
    """The split rule, fixed before any fitting: `validation` when the first hex digit of the
    SHA-256 of the record's id is 0-7, else `calibration` (about half each, blind to content)."""
    digest = hashlib.sha256(record_id.encode("utf-8")).hexdigest()
    return "validation" if digest[0] in "01234567" else "calibration"


def split_of(record: dict) -> str:
    """A record's split: its own `split` field (the project's files), else the hash rule (the
    shared file, whose records carry none)."""
    return record.get("split") or hashed_split(str(record["id"]))


def load_records(shared: Path | None, folder: Path = CALIBRATION_DIR) -> list[dict]:
    """Every record of the shared file (when given and present) and of folder/*.yaml, each
    with `_file` (where it was read). Raises ValueError for a record of the folder without a
    valid split, and for an id seen twice."""
    records: list[dict] = []
    if shared is not None and shared.exists():
        for record in yaml.safe_load(shared.read_text(encoding="utf-8")) or []:
            records.append({**record, "_file": shared.name})
    for path in sorted(folder.glob("*.yaml")):
        for record in yaml.safe_load(path.read_text(encoding="utf-8")) or []:
            if record.get("split") not in SPLITS:
                raise ValueError(
                    f"{path.name}: record {record.get('id')!r} needs `split: calibration` or "
                    f"`split: validation` (the rule: {hashed_split(str(record.get('id')))})"
                )
            records.append({**record, "_file": path.name})
    seen: set[str] = set()
    for record in records:
        if record["id"] in seen:
            raise ValueError(f"record id {record['id']!r} appears twice ({record['_file']})")
        seen.add(record["id"])
    return records


# Engine version groups: (engine, lower bound) from the newest; a version below every bound
# is "<" the lowest one.
VERSION_GROUPS = {
    "vllm": [((0, 18), "0.18+"), ((0, 12), "0.12-0.17"), ((0, 0), "<0.12")],
    "sglang": [((0, 5), "0.5"), ((0, 4), "0.4"), ((0, 0), "<0.4")],
    "tgi": [((3,), "3.x"), ((2,), "2.x"), ((0,), "<2")],
    "trtllm": [((1,), "1.x"), ((0,), "0.x")],
}


def version_group(engine: str, version_text: str | None) -> str:
    """The version group a record's engine version falls in ("?" when it names no release)."""
    version = budget_stage.release(version_text)
    if version is None:
        return "?"
    for bound, name in VERSION_GROUPS.get(engine, []):
        if version >= bound:
            return name
    return ".".join(str(p) for p in version[:2])


CHECKPOINT_SIZES = Path(__file__).with_name("checkpoint-sizes.yaml")


def _sizes() -> dict[str, int]:
    sizes: dict[str, int] = {}
    for entry in yaml.safe_load(CHECKPOINT_SIZES.read_text(encoding="utf-8")) or []:
        for name in [entry["id"], *entry.get("same_as", [])]:
            sizes[name] = int(entry["total_size"])
    return sizes


def stored_weights(resolved: Any, b: Any) -> float | None:
    """The weights per rank from the checkpoint's stored size, or None when unknown: exact from
    a lock directory's tensor summary (the budget used it), else the index's total split the
    way the arithmetic splits it (plus the RoPE cache), for a checkpoint loaded as stored."""
    target, s = resolved.target, b.settings
    if target.stored_weights_apply(s.quantization, s.dtype):
        return float(b.weights.to("byte").magnitude)
    total = _sizes().get(resolved.deployment.model.name or "")
    if total is None or s.quantization not in (None, target.quantization):
        return None
    if catalog.dtype_bytes(s.dtype) != catalog.dtype_bytes(target.dtype):
        return None
    rope = target.rotary_positions * target.rotary_dim * catalog.dtype_bytes(s.dtype)
    per_rank = float(b.weights.to("byte").magnitude) - rope
    whole = float(target.weight_bytes_per_rank(1, 1, s.quantization, s.dtype).to("byte").m)
    return total * per_rank / (whole - rope) + rope


# Speculator heads weighed from their own config or stored tensors (issue 12's 5% target);
# Medusa heads are left out: their count is rarely in the log
HEAD_WEIGHT_METHODS = ("eagle", "eagle3", "mtp")

QUANTITIES = [
    ("weights", "weights"),
    ("weights_stored", "weights from checkpoint sizes"),
    ("kv_bytes", "KV bytes"),
    ("kv_tokens", "KV tokens"),
    ("layout_tokens", "tokens in measured KV bytes"),
    ("max_concurrency", "max concurrency"),
    ("state_blocks", "state blocks (hybrid)"),
    ("draft_weights", "drafter weights"),
    ("cuda_graphs", "CUDA graph estimate (vLLM)"),
]


def fmt_pct(value: float | None) -> str:
    return "" if value is None else f"{value * 100:+.1f}%"


def summary(outcomes: list[Outcome], from_name: bool = False) -> dict[str, dict[str, Any]]:
    """Error figures per quantity over the records of models with their config.json, or with
    ``from_name`` over those of models read from their repository names (a guess at their
    quantization layout, summed apart: see main)."""
    result: dict[str, dict[str, Any]] = {}
    chosen = [o for o in outcomes if bool(o.from_name) == from_name]
    for key, _ in QUANTITIES:
        errors = [e for o in chosen if (e := o.error(key)) is not None]
        if not errors:
            continue
        sizes = sorted(abs(e) for e in errors)
        result[key] = {
            "records": len(errors),
            "median_abs_error": statistics.median(sizes),
            "worst_abs_error": sizes[-1],
            "within_2pct": sum(s <= 0.02 for s in sizes) / len(sizes),
            "within_5pct": sum(s <= 0.05 for s in sizes) / len(sizes),
            "within_10pct": sum(s <= 0.10 for s in sizes) / len(sizes),
        }
    return result


def fit_activation(records: list[dict]) -> tuple[float, float, int]:
    """Fit activation = max(a * X_mlp, b * X_logits) on the records that print the profile
    run's activation peak; returns (a, b, records used)."""
    rows = []
    for record in records:
        engine = engine_of(record)
        peak = (record.get("memory") or {}).get("activation_peak_gib")
        if engine != "vllm" or peak is None or not record.get("model_id"):
            continue
        if catalog.find_model(record["model_id"]) is None:
            continue
        gpu, memory = gpu_of(record)
        resolved, _ = resolve(deployment_of(record, engine, gpu, memory))
        if resolved is None:
            continue
        s, _ = budget_stage.settings_for(resolved)
        target = resolved.target
        x_mlp = (
            s.max_num_batched_tokens
            * target.active_intermediate_size
            / s.tensor_parallel
            * catalog.dtype_bytes(s.dtype)
        )
        x_logits = min(s.max_num_seqs, s.max_num_batched_tokens) * target.vocab_size
        rows.append((x_mlp, x_logits, peak * GIB))
    # activation = max(a x1, b x2): assign each record to the term that dominates it, take
    # the median ratio per term, and repeat until the assignment settles
    a, b = 4.0, 39.0
    for _ in range(10):
        mlp = [y / x1 for x1, x2, y in rows if a * x1 >= b * x2]
        logits = [y / x2 for x1, x2, y in rows if a * x1 < b * x2]
        a = statistics.median(mlp) if mlp else a
        b = statistics.median(logits) if logits else b
    return a, b, len(rows)


def group_summary(outcomes: list[Outcome]) -> dict[tuple[str, str, str], dict[str, Any]]:
    """Per (engine, version group, split): the figures issue 13's targets are stated in."""
    groups: dict[tuple[str, str, str], list[Outcome]] = {}
    for o in outcomes:
        groups.setdefault((o.engine, o.group, o.split), []).append(o)
    result = {}
    for key in sorted(groups, key=lambda k: (k[0], _group_order(k[0], k[1]), k[2])):
        members = groups[key]
        totals = summary(members)
        verdicts = [o for o in members if o.started is not None and o.predicted_start is not None]
        wrong = [o.id for o in verdicts if o.started != o.predicted_start]
        result[key] = {
            "records": len(members),
            **{
                k: totals[k]
                for k in ("weights", "kv_bytes", "kv_tokens", "draft_weights")
                if k in totals
            },
            "verdicts": {
                "known": len(verdicts),
                "right": len(verdicts) - len(wrong),
                "wrong": wrong,
            },
        }
    return result


def _group_order(engine: str, group: str) -> int:
    names = [name for _, name in reversed(VERSION_GROUPS.get(engine, []))]
    return names.index(group) if group in names else len(names)


# issue 13's done-when targets, for the validation split of these (engine, version group)s
TARGET_GROUPS = [("vllm", "0.18+"), ("sglang", "0.4"), ("sglang", "0.5")]


def targets(figures: dict[str, Any]) -> list[tuple[str, float | None, str, bool | None]]:
    """(what, value, target, met) for one group's figures; value None where no record has it."""

    def get(quantity: str, key: str) -> float | None:
        return figures[quantity][key] if quantity in figures else None

    rows = [
        ("weights median |error|", get("weights", "median_abs_error"), "<= 2%", 0.02, False),
        ("weights max |error|", get("weights", "worst_abs_error"), "<= 5%", 0.05, False),
        ("KV cache median |error|", get("kv_bytes", "median_abs_error"), "<= 5%", 0.05, False),
        ("KV cache within 10%", get("kv_bytes", "within_10pct"), ">= 80%", 0.80, True),
        (
            "drafter weights max |error|",
            get("draft_weights", "worst_abs_error"),
            "<= 10%",
            0.10,
            False,
        ),
    ]
    out: list[tuple[str, float | None, str, bool | None]] = []
    for name, value, text, bound, at_least in rows:
        met = None if value is None else (value >= bound if at_least else value <= bound)
        out.append((name, value, text, met))
    v = figures["verdicts"]
    out.append(
        ("start/refuse verdicts right", float(v["right"]), f"all {v['known']}", not v["wrong"])
    )
    return out


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"


def print_groups(groups: dict[tuple[str, str, str], dict[str, Any]]) -> None:
    print(
        f"{'engine':7} {'versions':10} {'split':11} {'recs':>4} {'weights med':>11} {'max':>6}"
        f" {'KV med':>7} {'<=10%':>6} {'KVtok med':>9} {'<=10%':>6} {'draft med':>9} {'max':>6}"
        f" {'verdicts':>9}"
    )
    for (engine, group, split), g in groups.items():
        w, kv, tok, dr = (
            g.get(k, {}) for k in ("weights", "kv_bytes", "kv_tokens", "draft_weights")
        )
        v = g["verdicts"]
        print(
            f"{engine:7} {group:10} {split:11} {g['records']:>4} "
            f"{_pct(w.get('median_abs_error')):>11} {_pct(w.get('worst_abs_error')):>6} "
            f"{_pct(kv.get('median_abs_error')):>7} {_pct(kv.get('within_10pct')):>6} "
            f"{_pct(tok.get('median_abs_error')):>9} {_pct(tok.get('within_10pct')):>6} "
            f"{_pct(dr.get('median_abs_error')):>9} {_pct(dr.get('worst_abs_error')):>6} "
            f"{v['right']:>4}/{v['known']:<4}"
        )
    print(
        "\n(|error| of hbmlint against the log: median and max; <=10%: share of records within"
        " 10%;\n KV med: KV cache bytes; KVtok: KV cache tokens; verdicts: start/refuse right /"
        " known)"
    )


def fit_logit_bytes(records: list[dict]) -> dict[str, list[tuple[str, float]]]:
    """The dummy sampler run's bytes a logit implied by each vLLM record that logs its weights
    and KV cache, per version group: (usable - logged weights - logged KV - non-torch - CUDA
    graphs where in the budget) / (min(max_num_seqs, max_num_batched_tokens) x vocabulary).
    Only records where the sampler is the activation peak count: no vision tower, no drafter,
    no CPU offload, one GPU, and the forward pass estimate below the result. With several GPUs
    the rest also holds the communicators' memory, which the logs show varies far more than
    hbmlint's flat non-torch figure: 1.70 GiB "consumed" beyond "Model loading took" on four
    RTX PRO 6000 (vllm-0271-qwen3-235b-2507-fp8-4xpro6000-tp4), 0.21 GiB on eight L40S."""
    out: dict[str, list[tuple[str, float]]] = {}
    for record in records:
        memory = record.get("memory") or {}
        weights, kv = memory.get("weights_gib"), memory.get("kv_cache_gib")
        if engine_of(record) != "vllm" or not isinstance(weights, (int, float)):
            continue
        if not isinstance(kv, (int, float)) or kv <= 0 or record.get("cpu_offload_gb"):
            continue
        if (record.get("speculative") or {}).get("method"):
            continue
        if not record.get("model_id") or catalog.find_model(record["model_id"]) is None:
            continue
        gpus = int(record.get("tensor_parallel_size") or record.get("num_gpus") or 1)
        if gpus * int(record.get("pipeline_parallel_size") or 1) > 1:
            continue
        gpu, memory_logged = gpu_of(record)
        if gpu is None and memory_logged is None:
            continue
        resolved, _ = resolve(deployment_of(record, "vllm", gpu, memory_logged))
        if resolved is None or resolved.target.vision is not None:
            continue
        b = budget_stage.build(resolved)
        s, target = b.settings, resolved.target
        spec = budget_stage.overhead_constants(s)
        graphs = b.overhead.get("cuda_graphs")
        rest = (
            float(b.usable.to("byte").magnitude)
            - (weights + kv) * GIB
            - float(b.overhead["non_torch"].to("byte").magnitude)
            - (float(graphs.to("byte").magnitude) if graphs is not None else 0.0)
        )
        forward = (
            s.max_num_batched_tokens
            * float(spec["mlp_factor"])
            * target.active_intermediate_size
            / s.tensor_parallel
            * catalog.dtype_bytes(s.dtype)
        )
        if rest <= forward:
            continue
        logits = min(s.max_num_seqs, s.max_num_batched_tokens) * target.vocab_size
        group = version_group("vllm", engine_version_of(record))
        out.setdefault(group, []).append((record["id"], rest / logits))
    return out


def print_drafters(outcomes: list[Outcome]) -> None:
    """The drafter-weights table: each record's drafter as the log has it (printed on its own
    line, or derived from two printed figures) against hbmlint's, and the share within bounds."""
    drafters = [o for o in outcomes if "draft_weights" in o.measured]
    if not drafters:
        return
    print("\nDrafter weights (the drafter alone, where the logs separate it):")
    for o in drafters:
        print(
            f"  {o.id[:44]:44} {o.method:11} {_pair(o, 'draft_weights', GIB, '{:.2f}'):>19} "
            f"{fmt_pct(o.error('draft_weights')):>7}  {o.drafter_from:26}"
            f"{o.skipped.get('draft_weights', '')}".rstrip()
        )
    print(
        "  (logged: the engine printed the drafter on its own line; derived: one printed\n"
        "   figure less another, with and without the drafter, see speculative.yaml)"
    )
    for label, methods, bound in (
        ("speculator heads (EAGLE, EAGLE-3, MTP)", HEAD_WEIGHT_METHODS, 0.05),
        ("drafters, every method", None, 0.10),
    ):
        errors = [
            abs(e)
            for o in drafters
            if (methods is None or o.method in methods)
            and (e := o.error("draft_weights")) is not None
        ]
        if errors:
            within = sum(e <= bound for e in errors)
            print(
                f"  {label}: {len(errors)} records, worst {max(errors) * 100:.1f}%, "
                f"{within} of {len(errors)} within {bound:.0%}"
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=Path, default=DEFAULT_LOGS, help="the shared log file")
    parser.add_argument("--no-shared", action="store_true", help="only benchmarks/calibration")
    parser.add_argument("--calibration-dir", type=Path, default=CALIBRATION_DIR)
    parser.add_argument(
        "--fit", action="store_true", help="fit the activation constants (calibration split)"
    )
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    args = parser.parse_args(argv)
    shared = None if args.no_shared else args.logs
    records = load_records(shared, args.calibration_dir)
    files = sorted({r["_file"] for r in records})

    outcomes: list[Outcome] = []
    unusable: list[tuple[str, str]] = []
    for record in records:
        result = evaluate(record)
        if isinstance(result, str):
            unusable.append((record["id"], result))
        else:
            outcomes.append(result)

    print(f"{len(outcomes)} of {len(records)} records evaluated ({', '.join(files)})\n")
    header = f"{'record':44} {'s':1} {'versions':9} {'weights GiB':>19} {'err':>7}"
    header += f" {'KV GiB':>15} {'err':>7} {'KV tokens':>21} {'err':>7} {'layout':>7} {'start':>9}"
    print(header)
    for o in outcomes:
        w = _pair(o, "weights", GIB, "{:.2f}")
        kv = _pair(o, "kv_bytes", GIB, "{:.2f}")
        tok = _pair(o, "kv_tokens", 1, "{:,.0f}")
        split = o.split[0].upper() if o.from_name else o.split[0]
        print(
            f"{o.id[:44]:44} {split:1} {o.group:9} {w:>19} {fmt_pct(o.error('weights')):>7} "
            f"{kv:>15} {fmt_pct(o.error('kv_bytes')):>7} {tok:>21} "
            f"{fmt_pct(o.error('kv_tokens')):>7} {fmt_pct(o.error('layout_tokens')):>7} "
            f"{_verdict(o):>9}"
        )
    print("\n(s: c calibration, v validation, C / V: a model read from its repository name, see")
    print(" below; measured -> hbmlint; layout: tokens hbmlint fits in")
    print(" the KV bytes the engine measured, against the tokens it reported: the KV layout")
    print(" without the overhead; start: what happened -> what hbmlint predicts, y started,")
    print(" n refused, ? not known)\n")
    # A model read from its name is weighed from a guess at its quantization layout: its records
    # are summed apart and kept out of the groups and issue 13's targets, which measure the budget
    # of a model whose config.json hbmlint has
    named = [o for o in outcomes if o.from_name]
    configured = [o for o in outcomes if not o.from_name]
    totals = summary(configured)
    print(f"All records with the model's config.json ({len(configured)}), both splits:")
    print(f"{'quantity':30} {'records':>7} {'median':>8} {'worst':>8} {'<=5%':>6} {'<=10%':>6}")
    for key, label in QUANTITIES:
        if key in totals:
            t = totals[key]
            print(
                f"{label:30} {t['records']:>7} {t['median_abs_error'] * 100:>7.1f}% "
                f"{t['worst_abs_error'] * 100:>7.1f}% {t['within_5pct'] * 100:>5.0f}% "
                f"{t['within_10pct'] * 100:>5.0f}%"
            )
    print_named(named)
    groups = group_summary(configured)
    print("\nPer engine, version group and split (models with their config.json):")
    print_groups(groups)
    print("\nIssue 13 targets on the validation split (never fitted on):")
    for engine, group in TARGET_GROUPS:
        figures = groups.get((engine, group, "validation"))
        if figures is None:
            print(f"  {engine} {group}: no validation records")
            continue
        print(f"  {engine} {group} ({figures['records']} records):")
        for name, value, text, met in targets(figures):
            shown = f"{value:.0f}" if name.startswith("start") else _pct(value)
            state = {True: "met", False: "NOT MET", None: "no records"}[met]
            print(f"    {name:30} {shown:>7}  target {text:8} {state}")
        wrong = figures["verdicts"]["wrong"]
        if wrong:
            print(f"    wrong verdicts: {', '.join(wrong)}")
    graphs = [o for o in outcomes if "cuda_graphs" in o.measured]
    print(f"\nvLLM's CUDA graph estimate ({len(graphs)} records that log it):")
    for o in graphs:
        print(
            f"  {o.id[:44]:44} {o.split[:5]:5} {_pair(o, 'cuda_graphs', GIB, '{:.2f}'):>14} GiB "
            f"{fmt_pct(o.error('cuda_graphs')):>7}"
        )
    print_band(outcomes)
    stored = [o for o in outcomes if "weights_stored" in o.predicted]
    print(
        f"\nWeights from checkpoint sizes ({len(stored)} of {len(outcomes)} records: "
        f"{CHECKPOINT_SIZES.name} and the lock directory know their models' stored bytes):"
    )
    for o in stored:
        print(
            f"  {o.id[:44]:44} {_pair(o, 'weights_stored', GIB, '{:.2f}'):>19} "
            f"{fmt_pct(o.error('weights_stored')):>7}  (arithmetic {fmt_pct(o.error('weights'))})"
        )
    missing = sorted({o.model for o in outcomes} - {o.model for o in stored})
    print(
        f"  not known offline for {len(missing)} models; `hbmlint models pull` them where the "
        "Hub is reachable to add them"
    )
    print_drafters(outcomes)
    not_evaluated = [(o.id, q, why) for o in outcomes for q, why in o.skipped.items()]
    failed = [o for o in outcomes if o.measured.get("kv_bytes", 1) <= 0]
    for o in failed:
        print(
            f"\n{o.id}: the engine measured {o.measured['kv_bytes'] / GIB:.2f} GiB of KV (it "
            f"failed to start); hbmlint predicts {o.predicted.get('kv_bytes', 0) / GIB:.2f} GiB"
        )
    print(f"\nNot evaluated ({len(unusable)} records):")
    for rid, why in unusable:
        print(f"  {rid}: {why}")
    for rid, quantity, why in not_evaluated:
        print(f"  {rid} ({quantity}): {why}")

    if args.fit:
        fitted_on = [r for r in records if split_of(r) == "calibration"]
        a, b, n = fit_activation(fitted_on)
        print(
            f"\nactivation fit on {n} calibration records: mlp_factor {a:.2f}, logit_bytes {b:.1f}"
        )
        print("\nsampler bytes a logit implied by logged weights and KV (calibration split):")
        for group, rows in fit_logit_bytes(fitted_on).items():
            values = ", ".join(f"{rid} {value:.1f}" for rid, value in rows)
            median = statistics.median(value for _, value in rows)
            print(f"  vLLM {group}: median {median:.1f} over {len(rows)} ({values})")
    if args.json:
        data = {
            "records": [o.__dict__ for o in outcomes],
            "summary": totals,
            "groups": [
                {"engine": e, "versions": g, "split": sp, **figures}
                for (e, g, sp), figures in groups.items()
            ],
            "not_evaluated": [{"id": rid, "why": why} for rid, why in unusable],
        }
        args.json.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return 0


def print_band(outcomes: list[Outcome]) -> None:
    """Where the logged KV cache falls against the band hbmlint's error rules allow for: above
    its generous edge, a rule such as HBM102 could call refused a start the engine makes (the
    worst error a linter can make); below its low edge, a refusal may go unreported."""
    banded = [o for o in outcomes if o.band and o.measured.get("kv_bytes", 0) > 0]
    above = [o for o in banded if o.measured["kv_bytes"] > o.band[1]]
    below = [o for o in banded if o.measured["kv_bytes"] < o.band[0]]
    inside = len(banded) - len(above) - len(below)
    print(
        f"\nKV cache against hbmlint's uncertainty band ({len(banded)} records that log the "
        f"bytes): {inside} inside, {len(above)} above its generous edge (an error rule could "
        f"call such a start refused), {len(below)} below its low edge (more KV predicted than "
        "the engine found)"
    )
    for o in above + below:
        low, high = o.band
        edge = high if o in above else low
        side = "above" if o in above else "below"
        logged = o.measured["kv_bytes"]
        print(
            f"  {o.id[:44]:44} {o.split[:5]:5} {side}  logged {logged / GIB:.2f}, "
            f"band {low / GIB:.2f}-{high / GIB:.2f} GiB ({(logged - edge) / GIB:+.2f})"
        )


def print_named(named: list[Outcome]) -> None:
    """The records of models hbmlint read from their repository names, on their own."""
    print(
        f"\nModels read from their repository names ({len(named)} records; the catalog lacks them"
        " and the quantization layout is a guess from the publisher and family):"
    )
    for o in named:
        errors = ", ".join(
            f"{label} {fmt_pct(o.error(key))}"
            for key, label in (("weights", "weights"), ("kv_bytes", "KV"), ("kv_tokens", "KV tok"))
            if o.error(key) is not None
        )
        print(
            f"  {o.id[:44]:44} {o.split[:5]:5} {_pair(o, 'weights', GIB, '{:.2f}'):>15}  {errors}"
        )
        print(f"    {o.from_name}")
    totals = summary(named, from_name=True)
    for key, label in QUANTITIES:
        if key in totals:
            t = totals[key]
            print(
                f"  {label:30} {t['records']:>3} records, median {t['median_abs_error'] * 100:.1f}%"
                f", worst {t['worst_abs_error'] * 100:.1f}%"
            )


def _verdict(o: Outcome) -> str:
    def yn(value: bool | None) -> str:
        return "?" if value is None else ("y" if value else "n")

    if o.started is None and o.predicted_start is None:
        return ""
    mark = (
        " !"
        if None not in (o.started, o.predicted_start) and o.started != o.predicted_start
        else ""
    )
    return f"{yn(o.started)} -> {yn(o.predicted_start)}{mark}"


def _pair(o: Outcome, key: str, scale: float, pattern: str) -> str:
    if key not in o.measured:
        return ""
    measured = pattern.format(o.measured[key] / scale)
    if key not in o.predicted:
        return f"{measured} -> ?"
    return f"{measured} -> {pattern.format(o.predicted[key] / scale)}"


if __name__ == "__main__":
    sys.exit(main())
