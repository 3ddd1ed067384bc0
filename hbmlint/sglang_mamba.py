"""SGLang's recurrent-state ("mamba") pool of hybrid models, by release.

Hybrid models (gated delta-net, Mamba-2, KDA layers beside full attention) keep one state per
request slot in a pool of their own; SGLang sizes it out of what is left of mem_fraction_static
after the weights, and the KV pool takes the rest. How the slots are counted changed several
times; engines.yaml (sglang: mamba_pool) gives the releases and the sources read. This module
only computes: the budget decides what is left and what a token costs.
"""

from __future__ import annotations

from typing import Any

from . import catalog
from .records import dataclass

# speculative_hook.py _auto_choose_speculative_params (and server_args.py before it): with no
# --speculative-num-steps, 3 steps of one draft token each for the models hbmlint serves
AUTO_STEPS = 3


@dataclass(frozen=True)
class StatePool:
    """What the state pool takes from the memory left after the weights, per GPU."""

    slots: int  # max_mamba_cache_size
    per_slot: float  # bytes of one slot: every state layer's conv window and SSM state
    state_bytes: float  # the slots (and the padding slot, where the release counts it)
    scratch_bytes: float  # per-draft-token states kept for speculative verification
    how: str  # one line for the budget's notes

    @property
    def total(self) -> float:
        return self.state_bytes + self.scratch_bytes


_version = catalog.release


def _reached(version: tuple[int, ...] | None, boundary: str | None) -> bool:
    """Whether ``version`` is at or after ``boundary``; an unnamed release is the newest."""
    return boundary is None or version is None or version >= (_version(boundary) or ())


def era(engine_version: str | None) -> str:
    """The way the release sizes the pool (engines.yaml sglang mamba_pool)."""
    version = _version(engine_version)
    for row in catalog.engine_defaults("sglang")["mamba_pool"]:
        before = row.get("before")
        if before is None or (version is not None and version < (_version(before) or ())):
            return str(row["solve"])
    return "joint_padded"


def ssm_dtype(target: Any, s: Any) -> tuple[str, str]:
    """The SSM state's dtype and why: --mamba-ssm-dtype, else (from the release engines.yaml
    names) the config's mamba_ssm_dtype, else float32 (configs/mamba_utils.py
    mamba2_state_dtype). vLLM's default differs (the model dtype): this is SGLang's alone."""
    spec = catalog.engine_defaults("sglang")["mamba_ssm_dtype"]
    if s.mamba_ssm_dtype:
        return str(s.mamba_ssm_dtype), "--mamba-ssm-dtype"
    config = target.state_ssm_dtype
    if config and _reached(_version(s.engine_version), spec["config_since"]):
        return str(config), "the config's mamba_ssm_dtype"
    return str(spec["default"]), "SGLang's default"


def per_slot_bytes(target: Any, layout: Any, tensor_parallel: int, dtype: str) -> float:
    """One slot: each state layer of the stage keeps its conv window in bfloat16
    (SGLANG_MAMBA_CONV_DTYPE's default) and its SSM state in ``dtype``, split over TP
    (BaseLinearStateParams.mamba_cache_per_req)."""
    ssm = catalog.dtype_bytes(dtype)
    one = target.state_conv_elements * 2 + target.state_ssm_elements * ssm
    return layout.state_layers * one / tensor_parallel


def slots_per_request(target: Any, s: Any) -> int:
    """State slots a running request holds with the radix cache on (_calculate_mamba_ratio): 3,
    and 2 more under the extra_buffer strategy with the overlap scheduler, which --mamba-radix-
    cache-strategy auto picks from the release engines.yaml names for the model types listed
    there (the triton linear-attention backend, the default); 1 with the radix cache off."""
    if s.prefix_caching is False:
        return 1
    spec = catalog.engine_defaults("sglang")["mamba_slots_per_request"]
    version = _version(s.engine_version)
    extra = spec["extra_buffer_model_types"].get(target.model_type, False)
    since = spec["extra_buffer_since"] if extra is True else extra
    if extra is not False and _reached(version, since) and _reached(version, spec["auto_since"]):
        return int(spec["base"] + spec["extra_buffer_overlap"])
    return int(spec["base"])


def radix_off_slots(engine_version: str | None, running: int | None) -> int | None:
    """The pool's slots with --disable-radix-cache and no --max-mamba-cache-size (engines.yaml
    mamba_radix_off): the running requests where SGLang has them (--max-running-requests, or
    its own cap with a speculative algorithm); without, a fixed count before the release
    named, the ratio split (None) from it."""
    spec = catalog.engine_defaults("sglang")["mamba_radix_off"]
    if running:
        return int(running)
    if not _reached(_version(engine_version), spec["ratio_without_running_since"]):
        return int(spec["slots_without_running"])
    return None


def draft_tokens(s: Any) -> int:
    """Tokens a request verifies per step (speculative_num_draft_tokens): steps + 1, as SGLang
    sets it for a draft chain of one token a step (--speculative-eagle-topk 1), the steps
    SGLang picks itself when none are given; 0 without speculative decoding."""
    if s.speculative_method in (None, "", "none"):
        return 0
    return (s.num_speculative_tokens or AUTO_STEPS) + 1


def plan(target: Any, layout: Any, s: Any, rest: float) -> StatePool | None:
    """The state pool of a hybrid model out of ``rest`` bytes (what mem_fraction_static leaves
    after the weights); None for a model without state layers."""
    if not layout.state_layers or not (target.state_conv_elements or target.state_ssm_elements):
        return None
    spec = catalog.engine_defaults("sglang")
    dtype, dtype_why = ssm_dtype(target, s)
    dp = max(s.attention_data_parallel, 1)
    p = per_slot_bytes(target, layout, s.tensor_parallel, dtype)
    if p <= 0:
        return None
    running = max(int(s.max_num_seqs) // dp, 1)
    d = draft_tokens(s)
    ratio = float(s.mamba_full_memory_ratio or spec["mamba_full_memory_ratio"])
    budget = max(rest, 0.0) * ratio / (1 + ratio)
    fixed = s.max_mamba_cache_size
    how = era(s.engine_version)
    scratch = 0.0
    padding = 0
    if how == "per_request":
        slots = running
        state = slots * p
    elif how == "draft_multiple":
        # K = budget // p // (1 + D), each slot holding 1 + D states
        slots = fixed // dp if fixed else int(budget // p // (1 + d))
        state = slots * p * (1 + d)
    elif how == "intermediate_first":
        # the drafts' states for every running request come off first, then the split
        scratch = p * running * d
        budget = max(rest - scratch, 0.0) * ratio / (1 + ratio)
        slots = fixed // dp if fixed else int(budget // p)
        state = slots * p
    else:
        # joint: K slots and the drafts' states of min(running, K // S) requests share the
        # budget; joint_padded also counts the pool's padding slot in both (PR #32184)
        padding = 1 if how == "joint_padded" else 0
        per_request = slots_per_request(target, s)
        if fixed:
            slots = fixed // dp
        elif d:
            slots = int((budget - padding * p * (1 + d)) // (p * (1 + d / per_request)))
        else:
            slots = int((budget - padding * p) // p)
        slots = max(slots, 0)
        if d:
            scratch = p * (min(running, slots // per_request) + padding) * d
        state = (slots + padding) * p
    line = (
        f"SGLang's recurrent-state pool holds {slots} request slots of "
        f"{p / 2**20:.1f} MiB ({(state + scratch) / 2**30:.2f} GiB"
    )
    line += ", one a running request: the radix cache is off" if s.prefix_caching is False else ""
    line += f", {scratch / 2**30:.2f} of it for {d} draft tokens' states" if scratch else ""
    line += f"; SSM state in {dtype}, {dtype_why}) outside the KV cache"
    return StatePool(slots, p, state, scratch, line)


def mm_reserve_bytes(target: Any, s: Any) -> float:
    """What a multimodal model's KV budget leaves for the embedding cache allocated after it
    (kv_cache_configurator.py mm_runtime_reservation_gb, SGLANG_VLM_CACHE_SIZE_MB); 0 before
    the release engines.yaml names, and for text-only models."""
    spec = catalog.engine_defaults("sglang").get("multimodal_reserve")
    if not spec or target.vision is None or not _reached(_version(s.engine_version), spec["since"]):
        return 0.0
    return float(spec["mib"]) * 2**20
