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
from .catalog.architecture import FULL
from .resolve import Resolved
from .spec import DRAFT_MODEL_METHODS, HEAD_METHODS
from .units import DECIMAL_BYTE_UNITS, Q, parse_quantity

# The overhead constants live per engine in catalog/engines.yaml ("overhead"), fitted on
# ../shared/calibration/engine-logs.yaml by benchmarks/accuracy.py.


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
    # ranks the experts of a MoE model are spread over (1: each expert split over TP instead)
    expert_parallel: int = 1
    # the vLLM V0 engine: no hybrid KV manager, graphs outside the budget
    legacy_engine: bool = False


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
    # One max_model_len request's worst case (vLLM's max_memory_usage_bytes): full-attention
    # layers keep every token, window layers the window plus a batch, state layers a fixed state.
    # With such layers kv_bytes_per_token_* are this / max_model_len, not a constant rate.
    kv_bytes_per_sequence: Any = None
    kv_state_bytes_per_sequence: Any = None  # part of the above: recurrent state

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
    if not dep.engine_version and (defaults["memory_fraction"].get("before") or "v0" in defaults):
        assumed["engine_version"] = f"the newest {engine} (set engine_version for older defaults)"
    legacy = _is_legacy(defaults, dep.engine_version)
    serving = dep.serving

    fraction = serving.gpu_memory_utilization
    if fraction is None:
        fraction, why = _default_fraction(defaults, dep.engine_version)
        assumed["gpu_memory_utilization"] = f"{fraction} ({why})"
    large = _is_large_gpu(resolved, defaults)
    tier = "large_gpu" if large else "other"
    max_model_len = serving.max_model_len
    if max_model_len is None:
        max_model_len = resolved.target.max_position_embeddings or 4096
        assumed["max_model_len"] = f"{max_model_len} (the model's max_position_embeddings)"
    max_num_seqs = serving.max_num_seqs
    if max_num_seqs is None:
        if legacy:
            max_num_seqs = int(defaults["v0"]["max_num_seqs"])
            assumed["max_num_seqs"] = f"{max_num_seqs} ({engine} V0 engine default)"
        else:
            max_num_seqs = int(defaults["max_num_seqs"][tier])
            assumed["max_num_seqs"] = f"{max_num_seqs} ({engine} default for this GPU)"
    batched = serving.max_num_batched_tokens
    if batched is None:
        if legacy:
            v0 = defaults["v0"]
            chunked = max_model_len > int(v0["chunked_prefill_above"]) and (
                resolved.gpu.vendor in v0.get("chunked_prefill_vendors", [resolved.gpu.vendor])
            )
            floor = int(v0["max_num_batched_tokens"])
            batched = floor if chunked else max(int(max_model_len), floor)
            why = "chunked prefill" if chunked else "no chunked prefill: a whole max_model_len"
            assumed["max_num_batched_tokens"] = f"{batched} ({engine} V0 engine, {why})"
        else:
            batched = int(defaults["max_num_batched_tokens"][tier])
            assumed["max_num_batched_tokens"] = f"{batched} ({engine} default for this GPU)"
    block_size = serving.block_size
    if block_size is None:
        block_size = int(defaults["block_size"])
        assumed["block_size"] = f"{block_size} ({engine} default)"
    target = resolved.target
    if dep.model.dtype in (None, "auto"):
        dtype = target.dtype
        assumed["dtype"] = f"{dtype} (config.json torch_dtype)"
    else:
        dtype = dep.model.dtype
    kv_dtype = serving.kv_cache_dtype or "auto"
    if kv_dtype == "auto":
        kv_dtype = target.kv_cache_dtype or dtype
        if serving.kv_cache_dtype is None:
            what = "the checkpoint's KV scheme" if target.kv_cache_dtype else "the model dtype"
            assumed["kv_cache_dtype"] = f"{kv_dtype} (auto: {what})"
    quantization = dep.model.quantization or target.quantization
    if dep.model.quantization is None and target.quantization:
        assumed["quantization"] = f"{target.quantization} (config.json quantization_config)"
    spec = dep.speculative
    draft_tp = spec.tensor_parallel or resolved.tensor_parallel
    if spec.method in (*DRAFT_MODEL_METHODS, *HEAD_METHODS) and spec.tensor_parallel is None:
        assumed["speculative.tensor_parallel"] = f"{draft_tp} (vLLM default: the target's TP)"
    draft_quant = None
    if spec.model is not None:
        draft_quant = spec.model.quantization or (
            resolved.draft.quantization if resolved.draft else None
        )
    expert_parallel = 1
    if getattr(dep.parallel, "expert", None) and target.is_moe:
        # vLLM --enable-expert-parallel: experts spread over TP x DP ranks, whole
        expert_parallel = resolved.tensor_parallel * (getattr(dep.parallel, "data", None) or 1)
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
        expert_parallel=expert_parallel,
        legacy_engine=legacy,
    )
    return settings, assumed


def build(resolved: Resolved) -> Budget:
    """The budget of a resolved deployment, with engine defaults filled in."""
    settings, assumed = settings_for(resolved)
    return compute(resolved, settings, assumed)


def overhead_lines(resolved: Resolved, s: Settings) -> dict[str, Any]:
    """Non-torch memory, the activation peak of the profile run and CUDA graphs, per GPU."""
    target = resolved.target
    spec = catalog.engine_defaults(s.engine)["overhead"]
    tp = s.tensor_parallel
    non_torch = (
        spec["non_torch_tp1"] if tp * s.pipeline_parallel == 1 else spec["non_torch_tp_many"]
    )
    # The profile run's peak is the larger of two moments, not their sum: the forward pass of
    # max_num_batched_tokens tokens (the MLP's intermediate activations are the widest), and
    # the dummy sampler run after it, which turns one token per sequence into fp32 logits over
    # the vocabulary plus probabilities and the sort/top-k copies (~39 bytes a logit; the
    # calibration logs agree on 38.5-41 across seven models and GPUs).
    sampled = min(s.max_num_seqs, s.max_num_batched_tokens)
    mlp = float(spec["mlp_factor"]) * target.active_intermediate_size / tp
    forward = s.max_num_batched_tokens * mlp * catalog.dtype_bytes(s.dtype)
    sampler = sampled * target.vocab_size * float(spec["logit_bytes"])
    activation = max(forward, sampler)
    overhead = {
        "non_torch": parse_quantity(non_torch, "[information]").to("byte"),
        "activation": Q(activation, "byte"),
    }
    if not s.enforce_eager and _graphs_in_budget(s):
        overhead["cuda_graphs"] = parse_quantity(spec["cuda_graphs"], "[information]").to("byte")
    return overhead


def compute(resolved: Resolved, s: Settings, assumed: dict[str, str] | None = None) -> Budget:
    target = resolved.target
    tp, pp = s.tensor_parallel, s.pipeline_parallel
    total = resolved.gpu.memory.to("byte")
    weights = target.weight_bytes_per_rank(tp, pp, s.quantization, s.dtype, s.expert_parallel)
    kv_bytes = catalog.kv_dtype_bytes(s.kv_cache_dtype)
    layout = target.kv_layout(tp, pp, kv_bytes, s.kv_cache_dtype)
    draft_weights, kv_draft = _draft_cost(resolved, s, kv_bytes)

    overhead = overhead_lines(resolved, s)
    overhead_total = sum(overhead.values(), Q(0, "byte"))

    meaning = catalog.engine_defaults(s.engine)["memory_fraction"]["meaning"]
    fixed = weights + draft_weights
    # SGLang keeps the recurrent state of hybrid models in its own pool, one slot per running
    # request; vLLM pages it with the KV cache (one slot per request, counted per sequence).
    state_pool = (
        Q(layout.state_per_sequence * s.max_num_seqs, "byte")
        if meaning == "weights_and_kv_of_total"
        else Q(0, "byte")
    )
    if meaning == "of_free":  # TensorRT-LLM: a share of what is free after loading
        free = total - fixed - overhead_total
        kv_cache = free * s.memory_fraction if free.magnitude > 0 else free
        usable = fixed + overhead_total + (kv_cache if kv_cache.magnitude > 0 else Q(0, "byte"))
    elif meaning == "weights_and_kv_of_total":  # SGLang: activations live outside the fraction
        usable = total * s.memory_fraction
        kv_cache = usable - fixed - state_pool
    else:  # vLLM, TGI: a share of the whole card
        usable = total * s.memory_fraction
        kv_cache = usable - fixed - overhead_total

    # One full-length request's worst case; its per-token average is the "bytes per token"
    # (constant, and exact, when every layer is full attention).
    mml = s.max_model_len
    per_request = layout.request_bytes(
        mml, s.max_num_batched_tokens, s.block_size, hybrid=not s.legacy_engine
    )
    if state_pool.magnitude:
        per_request -= layout.state_per_sequence
    full_only = per_request == layout.full_per_token * mml
    target_per_token = layout.full_per_token if full_only else per_request / mml
    draft_per_token = float(kv_draft.to("byte / token").magnitude)
    per_request += draft_per_token * mml
    per_token = target_per_token + draft_per_token
    block_bytes = per_token * s.block_size
    kv_magnitude = float(kv_cache.to("byte").magnitude)
    blocks = math.floor(kv_magnitude / block_bytes) if kv_magnitude > 0 and block_bytes else 0
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
        kv_bytes_per_token_target=Q(target_per_token, "byte / token"),
        kv_bytes_per_token_draft=kv_draft,
        kv_tokens=kv_tokens,
        assumed=dict(assumed or {}),
        byte_unit=byte_unit,
        kv_bytes_per_sequence=Q(per_request, "byte"),
        kv_state_bytes_per_sequence=Q(layout.state_per_sequence, "byte"),
    )


def _draft_cost(resolved: Resolved, s: Settings, kv_bytes: float) -> tuple[Any, Any]:
    """Weights per GPU and KV bytes per token per GPU of the speculative drafter."""
    zero = (Q(0, "byte"), Q(0, "byte / token"))
    method, target, draft = s.speculative_method, resolved.target, resolved.draft
    if method == "mtp" and draft is None:
        # MTP layers ship in the target checkpoint: decoder layers like the target's last one
        # (full attention), sharing its embeddings and lm_head; with their own KV.
        n = max(target.mtp_layers, 1)
        last = target.num_layers - 1
        layer = replace(
            target,
            num_layers=n,
            mixers=(FULL,) * n,
            ffns=(target.ffn(last),) * n,
            vocab_size=0,
            vision_params=0,
        )
        return (
            layer.weight_bytes_per_rank(s.tensor_parallel, 1, s.quantization, s.dtype),
            layer.kv_bytes_per_token_per_rank(s.tensor_parallel, 1, kv_bytes),
        )
    if draft is None or method not in (*DRAFT_MODEL_METHODS, *HEAD_METHODS):
        return zero
    tp = s.draft_tensor_parallel
    # A draft with tensor_parallel 1 sits whole on every rank of the target.
    weights = draft.weight_bytes_per_rank(tp, 1, s.draft_quantization)
    if method in ("eagle", "eagle3"):
        # EAGLE heads share the target's embeddings; EAGLE-3 brings its own lm_head over a
        # reduced draft vocabulary. Both add an fc layer fusing 2 (3) hidden states.
        heads = replace(draft, vocab_size=0, tie_word_embeddings=True)
        weights = heads.weight_bytes_per_rank(tp, 1, s.draft_quantization)
        h = draft.hidden_size
        extra = (3 if method == "eagle3" else 2) * h * h
        extra += draft.draft_vocab_size * h if method == "eagle3" else 0
        weights += Q(extra / tp * catalog.dtype_bytes(draft.dtype), "byte")
    if method == "medusa":  # heads only: no attention, no KV
        return weights, zero[1]
    return weights, draft.kv_bytes_per_token_per_rank(tp, 1, kv_bytes)


def _version(text: str | None) -> tuple[int, ...] | None:
    """The release in an engine version text ("0.14.1", "v0.8.5.post1 (V0 engine)"), or None
    when it names none ("V1 (Jul 2025)")."""
    match = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", text or "")
    if match is None:
        return None
    return tuple(int(p) for p in match.groups() if p is not None)


def _is_legacy(defaults: dict, engine_version: str | None) -> bool:
    """vLLM's V0 engine: the default before 0.8, or named in the version text."""
    if "v0_before" not in defaults or not engine_version:
        return False
    if re.search(r"\bV0\b(?!\.\d)|VLLM_USE_V1=0", engine_version, re.IGNORECASE):
        return True
    if re.search(r"\bV1\b(?!\.\d)|VLLM_USE_V1=1", engine_version, re.IGNORECASE):
        return False
    version = _version(engine_version)
    return version is not None and version < _version(defaults["v0_before"])


def _default_fraction(defaults: dict, engine_version: str | None) -> tuple[float, str]:
    spec = defaults["memory_fraction"]
    version = _version(engine_version)
    if version is not None:
        for boundary, value in sorted(
            (spec.get("before") or {}).items(), key=lambda item: _version(item[0])
        ):
            if version < _version(boundary):
                return float(value), f"default before {boundary}"
    if spec.get("before"):
        since = max(spec["before"], key=_version)
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
