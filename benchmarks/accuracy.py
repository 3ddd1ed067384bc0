"""How close hbmlint's budget comes to what serving engines really allocated.

Runs the budget on every usable record of ../shared/calibration/engine-logs.yaml (startup logs
reduced to numbers: model, GPU, settings, and what the engine measured) and prints, per record
and in total, the error of the weights, the KV cache bytes and the KV token capacity.

    python benchmarks/accuracy.py                 # the table and the summary
    python benchmarks/accuracy.py --fit           # also fit the activation constants
    python benchmarks/accuracy.py --json out.json

A record is turned into a deployment the way a user would write its manifest: model id, GPU
(the memory the log printed, else the catalog's), parallelism, the settings the log shows, and
the engine version (a version the log only dates is read as the release of that month). Nothing
is tuned per record. Errors are (hbmlint - measured) / measured.
"""

from __future__ import annotations

import argparse
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
from hbmlint.resolve import resolve
from hbmlint.spec import Deployment, GpuSpec, ModelRef, ParallelSpec, ServingSpec
from hbmlint.units import Q

GIB = 2**30
DEFAULT_LOGS = Path(__file__).resolve().parents[2] / "shared" / "calibration" / "engine-logs.yaml"

# GPU names as logs print them -> catalog names (the first match wins).
GPU_NAMES = [
    ("rtx 5090", "RTX-5090"),
    ("rtx 4090", "RTX-4090"),
    ("rtx 3090", "RTX-3090"),
    ("mi300x", "MI300X"),
    ("h200", "H200"),
    ("h100", "H100"),
    ("a100", "A100-80GB"),
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
    measured: dict[str, float] = field(default_factory=dict)
    predicted: dict[str, float] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)  # quantity -> why not evaluated
    note: str = ""

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
    return None


def engine_version_of(record: dict) -> str | None:
    text = str(record.get("engine_version") or "")
    if not text or re.search(r"\d+\.\d+", text):
        return text or None
    match = re.search(r"(" + "|".join(MONTHS) + r")[a-z]* (\d{4})", text, re.IGNORECASE)
    if match:
        month = MONTHS.index(match.group(1).lower()[:3]) + 1
        release = VLLM_BY_MONTH.get((int(match.group(2)), month))
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
    """The memory SGLang sizes mem_fraction_static against: the 'avail mem' it logs when weight
    loading begins (its total_gpu_memory), or the 'avail mem' plus 'mem usage' of the load-end
    line. Read only where the record states these figures (SGLang's "GB" are GiB)."""
    before = memory.get("avail_mem_before_weights_gb")
    if isinstance(before, (int, float)):
        return Q(float(before), "GiB")
    line = str(memory.get("load_weight_end_line") or "")
    match = re.search(r"avail mem=([\d.]+) GB, mem usage=([\d.]+) GB", line)
    if match:
        return Q(float(match.group(1)) + float(match.group(2)), "GiB")
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
    return out


def deployment_of(record: dict, engine: str, gpu: str | None, memory: Any) -> Deployment:
    """The manifest a user would write for this record."""
    fraction = first(
        record,
        "gpu_memory_utilization",
        "mem_fraction_static",
        "kv_cache_free_gpu_mem_fraction",
        "gpu_fraction",
    )
    dtype = record.get("dtype") if record.get("dtype") in ("bfloat16", "float16") else None
    kv_dtype = record.get("kv_cache_dtype")
    tp = int(record.get("tensor_parallel_size") or record.get("num_gpus") or 1)
    pp = int(record.get("pipeline_parallel_size") or 1)
    return Deployment(
        name=record["id"],
        file="engine-logs.yaml",
        engine=engine,
        engine_version=engine_version_of(record),
        gpu=GpuSpec(type=gpu or "H100", memory=memory, count=tp * pp),
        model=ModelRef(name=record["model_id"], dtype=dtype, quantization=quantization_of(record)),
        parallel=ParallelSpec(tensor=tp, pipeline=pp),
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
            block_size=(record.get("memory") or {}).get("block_size"),
            enforce_eager="--enforce-eager" in str(record.get("notes") or ""),
        ),
    )


def evaluate(record: dict) -> Outcome | str:
    """The outcome for a record, or why it cannot be evaluated at all."""
    engine = engine_of(record)
    if engine is None:
        return f"engine '{record.get('engine')}' is not one hbmlint models"
    if not record.get("model_id"):
        return "the model is not named by a Hugging Face id (local path or not in the excerpt)"
    if catalog.find_model(record["model_id"]) is None:
        return f"{record['model_id']} is not in the catalog"
    if record.get("decode_context_parallel_size"):
        return "decode context parallelism multiplies the token count; not a manifest setting"
    measured = measured_of(record, engine)
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
        measured=measured,
    )
    outcome.predicted["weights"] = float(b.weights.to("byte").magnitude)
    stored = stored_weights(resolved, b)
    if stored is not None and "weights" in measured:
        outcome.predicted["weights_stored"] = stored
        outcome.measured["weights_stored"] = measured["weights"]
    if gpu is None and memory is None:
        for quantity in ("kv_bytes", "kv_tokens"):
            if quantity in measured:
                outcome.skipped[quantity] = "the log names no GPU"
    else:
        outcome.predicted["kv_bytes"] = float(b.kv_cache.to("byte").magnitude)
        outcome.predicted["kv_tokens"] = float(b.kv_tokens.to("token").magnitude)
    # The layout check: tokens hbmlint fits in the KV bytes the engine measured.
    if "kv_bytes" in measured and "kv_tokens" in measured and measured["kv_bytes"] > 0:
        per_token = float(b.kv_bytes_per_token.to("byte / token").magnitude)
        outcome.predicted["layout_tokens"] = measured["kv_bytes"] / per_token
        outcome.measured["layout_tokens"] = measured["kv_tokens"]
    return outcome


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


QUANTITIES = [
    ("weights", "weights"),
    ("weights_stored", "weights from checkpoint sizes"),
    ("kv_bytes", "KV bytes"),
    ("kv_tokens", "KV tokens"),
    ("layout_tokens", "tokens in measured KV bytes"),
]


def fmt_pct(value: float | None) -> str:
    return "" if value is None else f"{value * 100:+.1f}%"


def summary(outcomes: list[Outcome]) -> dict[str, dict[str, Any]]:
    result: dict[str, dict[str, Any]] = {}
    for key, _ in QUANTITIES:
        errors = [e for o in outcomes if (e := o.error(key)) is not None]
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=Path, default=DEFAULT_LOGS)
    parser.add_argument("--fit", action="store_true", help="fit the activation constants")
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    args = parser.parse_args(argv)
    records = yaml.safe_load(args.logs.read_text(encoding="utf-8"))

    outcomes: list[Outcome] = []
    unusable: list[tuple[str, str]] = []
    for record in records:
        result = evaluate(record)
        if isinstance(result, str):
            unusable.append((record["id"], result))
        else:
            outcomes.append(result)

    print(f"{len(outcomes)} of {len(records)} records evaluated ({args.logs})\n")
    header = f"{'record':44} {'weights GiB':>19} {'err':>7} {'KV GiB':>15} {'err':>7}"
    header += f" {'KV tokens':>21} {'err':>7} {'layout':>7}"
    print(header)
    for o in outcomes:
        w = _pair(o, "weights", GIB, "{:.2f}")
        kv = _pair(o, "kv_bytes", GIB, "{:.2f}")
        tok = _pair(o, "kv_tokens", 1, "{:,.0f}")
        print(
            f"{o.id[:44]:44} {w:>19} {fmt_pct(o.error('weights')):>7} {kv:>15} "
            f"{fmt_pct(o.error('kv_bytes')):>7} {tok:>21} {fmt_pct(o.error('kv_tokens')):>7} "
            f"{fmt_pct(o.error('layout_tokens')):>7}"
        )
    print("\n(measured -> hbmlint; layout: tokens hbmlint fits in the KV bytes the engine")
    print(" measured, against the tokens it reported: the KV layout without the overhead)\n")
    totals = summary(outcomes)
    print(f"{'quantity':30} {'records':>7} {'median':>8} {'worst':>8} {'<=5%':>6} {'<=10%':>6}")
    for key, label in QUANTITIES:
        if key in totals:
            t = totals[key]
            print(
                f"{label:30} {t['records']:>7} {t['median_abs_error'] * 100:>7.1f}% "
                f"{t['worst_abs_error'] * 100:>7.1f}% {t['within_5pct'] * 100:>5.0f}% "
                f"{t['within_10pct'] * 100:>5.0f}%"
            )
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
        a, b, n = fit_activation(records)
        print(f"\nactivation fit on {n} records: mlp_factor {a:.2f}, logit_bytes {b:.1f}")
    if args.json:
        data = {
            "records": [o.__dict__ for o in outcomes],
            "summary": totals,
            "not_evaluated": [{"id": rid, "why": why} for rid, why in unusable],
        }
        args.json.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return 0


def _pair(o: Outcome, key: str, scale: float, pattern: str) -> str:
    if key not in o.measured:
        return ""
    measured = pattern.format(o.measured[key] / scale)
    if key not in o.predicted:
        return f"{measured} -> ?"
    return f"{measured} -> {pattern.format(o.predicted[key] / scale)}"


if __name__ == "__main__":
    sys.exit(main())
