"""The memory model: a resolved Deployment -> a per-GPU Budget of pint quantities.

Per GPU (tensor-parallel rank of the busiest pipeline stage), in the engine's own meaning of its
memory fraction:

    usable   = what the engine lets itself use (vLLM: total x gpu_memory_utilization)
    weights  = target weights on this rank;  draft = the speculative drafter's weights
    overhead = non-torch memory + activation peak + CUDA graphs (estimates, shown apart)
    KV cache = usable - weights - draft - overhead, counted in whole blocks of tokens, each
               token costing the target's K and V plus the draft's.

Everything a rule needs is computed here, once; ``whatif`` re-runs it with settings changed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, fields, replace
from typing import Any

from . import catalog
from .resolve import Resolved
from .spec import DRAFT_MODEL_METHODS, HEAD_METHODS
from .units import DECIMAL_BYTE_UNITS, Q

# Overhead estimates, calibrated on ../shared/calibration/engine-logs.yaml (vLLM records):
# non-torch memory (CUDA context, cuBLAS, NCCL) was 0.13-0.25 GiB on one GPU; llm-d's capacity
# planner uses 0.15 GiB for TP=1 and 0.6 GiB beyond, which we follow.
NON_TORCH_TP1 = Q(0.15, "GiB")
NON_TORCH_TP_MANY = Q(0.6, "GiB")
# vLLM's profile run holds fp32 logits for every batched token (vocab x 4 bytes) plus the MLP's
# intermediate activations; 4 x intermediate x dtype bytes per token fits llmd-llama31-8b-h100
# (4.76 GiB measured, 4.79 modelled) and over-estimates llmd-qwen3-32b-tp1-h100 by 10%.
LOGIT_BYTES = 4
MLP_ACTIVATION_FACTOR = 4
# CUDA-graph memory: 0.17-1.15 GiB in the calibration logs; a mid estimate.
CUDA_GRAPHS = Q(0.5, "GiB")


@dataclass(frozen=True)
class Settings:
    """Every knob the budget depends on, after defaults are filled in."""

    engine: str
    engine_version: str | None
    memory_fraction: float
    max_model_len: int
    max_num_seqs: int
    max_num_batched_tokens: int
    kv_cache_dtype: str
    block_size: int
    enforce_eager: bool
    quantization: str | None
    dtype: str
    tensor_parallel: int
    pipeline_parallel: int
    speculative_method: str
    draft_quantization: str | None
    draft_tensor_parallel: int
    num_speculative_tokens: int


@dataclass
class Budget:
    resolved: Resolved
    settings: Settings
    total: Any
    usable: Any
    weights: Any
    draft_weights: Any
    overhead: dict[str, Any]
    kv_cache: Any
    kv_bytes_per_token_target: Any
    kv_bytes_per_token_draft: Any
    kv_tokens: Any
    assumed: dict[str, str] = field(default_factory=dict)
    byte_unit: str = "GiB"

    @property
    def deployment(self) -> Any:
        return self.resolved.deployment

    @property
    def overhead_total(self) -> Any:
        return sum(self.overhead.values(), Q(0, "byte"))

    @property
    def kv_bytes_per_token(self) -> Any:
        return self.kv_bytes_per_token_target + self.kv_bytes_per_token_draft

    @property
    def max_model_len(self) -> Any:
        return Q(self.settings.max_model_len, "token")

    @property
    def max_concurrency(self) -> float:
        """Full-length sequences the KV cache holds at once (vLLM's "Maximum concurrency")."""
        return float((self.kv_tokens / self.max_model_len).to("dimensionless").magnitude)

    @property
    def workload_tokens(self) -> Any | None:
        workload = self.deployment.workload
        if workload is None:
            return None
        return Q(workload.concurrency * workload.context_tokens, "token")

    def whatif(self, **changes: Any) -> Budget:
        """This budget with some settings changed (names as in Settings)."""
        unknown = set(changes) - {f.name for f in fields(Settings)}
        if unknown:
            raise ValueError(f"whatif() does not know {', '.join(sorted(unknown))}")
        return compute(self.resolved, replace(self.settings, **changes), self.assumed)


def settings_for(resolved: Resolved) -> tuple[Settings, dict[str, str]]:
    """The deployment's settings with the engine's documented defaults filled in; the second
    value says which defaults were assumed and why."""
    dep = resolved.deployment
    engine = dep.engine
    defaults = catalog.engine_defaults(engine)
    assumed: dict[str, str] = {}
    if resolved.gpu_from_default:
        assumed["gpu"] = f"{resolved.gpu.name} (the default GPU; the manifest names none)"
    serving = dep.serving

    fraction = serving.gpu_memory_utilization
    if fraction is None:
        fraction, why = _default_fraction(defaults, dep.engine_version)
        assumed["gpu_memory_utilization"] = f"{fraction} ({why})"
    large = _is_large_gpu(resolved, defaults)
    tier = "large_gpu" if large else "other"
    max_num_seqs = serving.max_num_seqs
    if max_num_seqs is None:
        max_num_seqs = int(defaults["max_num_seqs"][tier])
        assumed["max_num_seqs"] = f"{max_num_seqs} ({engine} default for this GPU)"
    batched = serving.max_num_batched_tokens
    if batched is None:
        batched = int(defaults["max_num_batched_tokens"][tier])
        assumed["max_num_batched_tokens"] = f"{batched} ({engine} default for this GPU)"
    max_model_len = serving.max_model_len
    if max_model_len is None:
        max_model_len = resolved.target.max_position_embeddings or 4096
        assumed["max_model_len"] = f"{max_model_len} (the model's max_position_embeddings)"
    block_size = serving.block_size
    if block_size is None:
        block_size = int(defaults["block_size"])
        assumed["block_size"] = f"{block_size} ({engine} default)"
    kv_dtype = serving.kv_cache_dtype or "auto"
    dtype = dep.model.dtype if dep.model.dtype not in (None, "auto") else resolved.target.dtype
    if kv_dtype == "auto":
        kv_dtype = dtype
        if serving.kv_cache_dtype is None:
            assumed["kv_cache_dtype"] = f"{dtype} (auto: the model dtype)"
    quantization = dep.model.quantization or resolved.target.quantization
    spec = dep.speculative
    draft_tp = spec.tensor_parallel or resolved.tensor_parallel
    if spec.method in (*DRAFT_MODEL_METHODS, *HEAD_METHODS) and spec.tensor_parallel is None:
        assumed["speculative.tensor_parallel"] = f"{draft_tp} (vLLM default: the target's TP)"
    draft_quant = None
    if spec.model is not None:
        draft_quant = spec.model.quantization or (
            resolved.draft.quantization if resolved.draft else None
        )
    settings = Settings(
        engine=engine,
        engine_version=dep.engine_version,
        memory_fraction=float(fraction),
        max_model_len=int(max_model_len),
        max_num_seqs=int(max_num_seqs),
        max_num_batched_tokens=int(batched),
        kv_cache_dtype=kv_dtype,
        block_size=int(block_size),
        enforce_eager=bool(serving.enforce_eager),
        quantization=None if quantization == "none" else quantization,
        dtype=dtype,
        tensor_parallel=resolved.tensor_parallel,
        pipeline_parallel=resolved.pipeline_parallel,
        speculative_method=spec.method,
        draft_quantization=None if draft_quant == "none" else draft_quant,
        draft_tensor_parallel=draft_tp,
        num_speculative_tokens=spec.num_speculative_tokens or 0,
    )
    return settings, assumed


def build(resolved: Resolved) -> Budget:
    """The budget of a resolved deployment, with engine defaults filled in."""
    settings, assumed = settings_for(resolved)
    return compute(resolved, settings, assumed)


def compute(resolved: Resolved, s: Settings, assumed: dict[str, str] | None = None) -> Budget:
    target = resolved.target
    tp, pp = s.tensor_parallel, s.pipeline_parallel
    total = resolved.gpu.memory.to("byte")
    weights = target.weight_bytes_per_rank(tp, pp, s.quantization, s.dtype)
    kv_bytes = catalog.kv_dtype_bytes(s.kv_cache_dtype)
    kv_target = target.kv_bytes_per_token_per_rank(tp, pp, kv_bytes)

    draft_weights, kv_draft = _draft_cost(resolved, s, kv_bytes)

    non_torch = NON_TORCH_TP1 if tp * pp == 1 else NON_TORCH_TP_MANY
    activation = Q(
        s.max_num_batched_tokens
        * (
            target.vocab_size * LOGIT_BYTES
            + MLP_ACTIVATION_FACTOR * target.intermediate_size * catalog.dtype_bytes(s.dtype) / tp
        ),
        "byte",
    )
    overhead = {"non_torch": non_torch.to("byte"), "activation": activation}
    if not s.enforce_eager and _graphs_in_budget(s):
        overhead["cuda_graphs"] = CUDA_GRAPHS.to("byte")
    overhead_total = sum(overhead.values(), Q(0, "byte"))

    meaning = catalog.engine_defaults(s.engine)["memory_fraction"]["meaning"]
    fixed = weights + draft_weights
    if meaning == "of_free":  # TensorRT-LLM: a share of what is free after loading
        free = total - fixed - overhead_total
        kv_cache = free * s.memory_fraction if free.magnitude > 0 else free
        usable = fixed + overhead_total + (kv_cache if kv_cache.magnitude > 0 else Q(0, "byte"))
    elif meaning == "weights_and_kv_of_total":  # SGLang: activations live outside the fraction
        usable = total * s.memory_fraction
        kv_cache = usable - fixed
    else:  # vLLM, TGI: a share of the whole card
        usable = total * s.memory_fraction
        kv_cache = usable - fixed - overhead_total

    per_token = kv_target + kv_draft
    block_bytes = per_token * Q(s.block_size, "token")
    blocks = (
        math.floor(float((kv_cache / block_bytes).to("dimensionless").magnitude))
        if kv_cache.magnitude > 0
        else 0
    )
    kv_tokens = Q(blocks * s.block_size, "token")

    unit = resolved.deployment.gpu.memory
    byte_unit = "GB" if unit is not None and f"{unit.units:~}" in DECIMAL_BYTE_UNITS else "GiB"
    return Budget(
        resolved=resolved,
        settings=s,
        total=total,
        usable=usable.to("byte"),
        weights=weights,
        draft_weights=draft_weights,
        overhead=overhead,
        kv_cache=kv_cache.to("byte"),
        kv_bytes_per_token_target=kv_target,
        kv_bytes_per_token_draft=kv_draft,
        kv_tokens=kv_tokens,
        assumed=dict(assumed or {}),
        byte_unit=byte_unit,
    )


def _draft_cost(resolved: Resolved, s: Settings, kv_bytes: int) -> tuple[Any, Any]:
    """Weights per GPU and KV bytes per token per GPU of the speculative drafter."""
    zero = (Q(0, "byte"), Q(0, "byte / token"))
    method, target, draft = s.speculative_method, resolved.target, resolved.draft
    if method == "mtp" and draft is None:
        # MTP layers ship in the target checkpoint: one more decoder layer, with its KV.
        layer = replace(target, num_layers=1, vocab_size=0)
        return (
            layer.weight_bytes_per_rank(s.tensor_parallel, 1, s.quantization, s.dtype),
            layer.kv_bytes_per_token_per_rank(s.tensor_parallel, 1, kv_bytes),
        )
    if draft is None or method not in (*DRAFT_MODEL_METHODS, *HEAD_METHODS):
        return zero
    # A draft with tensor_parallel 1 sits whole on every rank of the target.
    weights = draft.weight_bytes_per_rank(s.draft_tensor_parallel, 1, s.draft_quantization)
    if method == "medusa":  # heads only: no attention, no KV
        return weights, zero[1]
    return weights, draft.kv_bytes_per_token_per_rank(s.draft_tensor_parallel, 1, kv_bytes)


def _version(text: str | None) -> tuple[int, ...] | None:
    if not text:
        return None
    parts = re.findall(r"\d+", text)
    return tuple(int(p) for p in parts[:3]) if parts else None


def _default_fraction(defaults: dict, engine_version: str | None) -> tuple[float, str]:
    spec = defaults["memory_fraction"]
    version = _version(engine_version)
    if version is not None:
        for boundary, value in sorted((spec.get("before") or {}).items()):
            if version < _version(boundary):
                return float(value), f"default before {boundary}"
    if spec.get("before"):
        since = max(spec["before"])
        why = f"default since {since}" + ("" if version else "; set engine_version if older")
        return float(spec["default"]), why
    return float(spec["default"]), "engine default"


def _graphs_in_budget(s: Settings) -> bool:
    since = catalog.engine_defaults(s.engine).get("cuda_graphs_in_budget_since")
    if since is None:
        return True  # other engines: count them, conservatively
    version = _version(s.engine_version)
    return version is None or version >= _version(since)


def _is_large_gpu(resolved: Resolved, defaults: dict) -> bool:
    gib = float(resolved.gpu.memory.to("GiB").magnitude)
    return gib >= float(defaults["large_gpu_min_gib"]) and "a100" not in resolved.gpu.name.lower()
