"""The memory model: a resolved Deployment -> a per-GPU Budget of pint quantities.

Per GPU (tensor-parallel rank of the busiest pipeline stage), in the engine's own meaning of its
memory fraction:

    usable   = what the engine lets itself use (vLLM: total x gpu_memory_utilization)
    weights  = target weights on this rank;  draft = the speculative drafter's weights
    overhead = non-torch memory + activation peak + CUDA graphs (estimates, shown apart)
    KV cache = usable - weights - draft - overhead, counted in whole blocks of tokens, each
               token costing the target's K and V plus the draft's.

Everything a rule needs is computed here, once; ``whatif`` re-runs it with settings changed.
The arithmetic runs on plain numbers in canonical units (bytes, bytes per token, tokens); the
Budget's figures are made Quantities once, at the end, for the rules and reports that read them
with their units.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection
from dataclasses import MISSING, field, fields, replace
from functools import cached_property, lru_cache
from typing import Any

from . import catalog, cudagraphs, dp_attention, lora, sglang_mamba
from .catalog.architecture import FULL, STATE, HybridPages, pipeline_stages
from .identity_memo import NOT_KEPT, IdentityMemo
from .records import dataclass
from .resolve import Resolved
from .spec import DRAFT_MODEL_METHODS, HEAD_METHODS, SELF_METHODS
from .units import (
    DECIMAL_BYTE_UNITS,
    Q,
    bytes_per_token_quantity,
    bytes_quantity,
    in_bytes,
    in_bytes_per_token,
    parse_quantity,
    reader,
    tokens_quantity,
)

# The overhead constants live per engine in catalog/engines.yaml ("overhead"), fitted on
# ../shared/calibration/engine-logs.yaml by benchmarks/accuracy.py.

# How far the KV cache estimate may be off, as (share of the estimated runtime overhead, share
# of the weights). On the calibration split of benchmarks/calibration (accuracy.py) the KV bytes
# of ordinary text models are within 0.35 GiB of the logs, but the overhead (activations, CUDA
# graphs, non-torch memory) was overestimated by up to a third (-0.9 GiB of KV on an L4 with
# vLLM 0.11, -1.3 GiB on a vLLM 0.7 TP-2 4090 pair) and unusual checkpoints weigh 1-3% off
# their parameter arithmetic. Upward (the engine finds more KV than estimated) bounds the
# errors: HBM102 promises a refusal only when one sequence does not fit even then. Downward
# (less KV) bounds the clean bills: inside it HBM105 warns that the engine may refuse.
KV_UNCERTAINTY_UP = (0.30, 0.01)
KV_UNCERTAINTY_DOWN = (0.10, 0.005)


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
    redundant_experts: int = 0  # vLLM EPLB's extra expert copies, over the EP ranks
    # the vLLM V0 engine: no hybrid KV manager, graphs outside the budget
    legacy_engine: bool = False
    # vLLM's CUDA graph mode and capture sizes as the manifest sets them (cudagraphs.py)
    cudagraph_mode: str | None = None
    cudagraph_max_capture_size: int | None = None
    cudagraph_capture_sizes: tuple[int, ...] | None = None
    # the drafter's own KV dtype (None: the target's) and whether its weights live in host memory
    draft_kv_cache_dtype: str | None = None
    draft_offload: bool = False
    # vLLM --max-model-len auto, on a release that takes it: the engine fits the length
    max_model_len_auto: bool = False
    # SGLang --max-total-tokens: a cap on the KV pool's tokens (None: what the memory holds)
    kv_cache_max_tokens: int | None = None
    # vLLM --kv-cache-memory-bytes: the KV cache's bytes per GPU, as set (the engine skips its
    # memory profiling and ignores the fraction for the KV cache: v1/worker/gpu_worker.py
    # determine_available_memory returns the value as it is)
    kv_cache_memory_bytes: int | None = None
    # vLLM 0.34+: the extensible KV cache, sized from the memory free after warm-up and graph
    # capture, within the fraction (1.0 when unset): what is in use at start and its margin stay
    # free of the card (_extensible_held, _extensible_margin)
    extensible_kv_cache: bool = False
    # vLLM --cpu-offload-gb: GiB of the target's weights per GPU kept in host memory
    cpu_offload_gib: float = 0.0
    # SGLang --speculative-token-map (FR-Spec) and its hot vocabulary (None: not known)
    draft_token_map: str | None = None
    draft_hot_vocab: int | None = None
    # SGLang --enable-dp-attention: the attention-DP ranks inside the TP group (1: none), and
    # the parts flags keep whole on each GPU (ParallelSpec.whole_parts; dp_attention.py)
    attention_data_parallel: int = 1
    whole_parts: tuple[str, ...] = ()
    # SGLang's state pool of hybrid models (sglang_mamba.py): --mamba-ssm-dtype,
    # --max-mamba-cache-size, --mamba-full-memory-ratio (None: the engine's own)
    mamba_ssm_dtype: str | None = None
    max_mamba_cache_size: int | None = None
    mamba_full_memory_ratio: float | None = None
    # vLLM --enable-prefix-caching / --no-enable-prefix-caching and --mamba-cache-mode, as
    # written (None: the release's default): how many state pages a hybrid model's request holds
    prefix_caching: bool | None = None
    mamba_cache_mode: str | None = None
    # vLLM --disable-hybrid-kv-cache-manager, SGLang --disable-hybrid-swa-memory: window layers
    # hold the whole context
    disable_hybrid_kv_cache_manager: bool = False
    # SGLang --swa-full-tokens-ratio (None: engines.yaml's default)
    swa_full_tokens_ratio: float | None = None
    # vLLM: the batches a window layer keeps the tokens of beyond its window (_in_flight_batches)
    in_flight_batches: int = 1
    # vLLM --enable-lora: adapter slots (0: off), their rank, and --fully-sharded-loras
    lora_slots: int = 0
    lora_rank: int = 16
    lora_fully_sharded: bool = False


_SETTING_NAMES = frozenset(f.name for f in fields(Settings))  # what whatif() may change
_SETTING_DEFAULTS = {f.name: f.default for f in fields(Settings) if f.default is not MISSING}


# The dict literals settings_for and compute hand to _settings and _budget, by name, whose
# keys have been checked against the fields: a literal's keys are the code's, the same on every
# call, so each is checked once a run. Checking every budget's cost more than the rest of
# _settings (42 names looked up one by one) and _budget together.
_LITERALS_CHECKED: set[str] = set()


def _settings(
    values: dict[str, Any] | None = None, literal: str | None = None, /, **named: Any
) -> Settings:
    """``Settings(**values, **named)`` without the frozen dataclass's __init__, which sets each
    of its 42 fields through object.__setattr__: the fields given, with the defaults of those
    left out, become the instance's __dict__ as they are; a missing or unknown name is refused
    as __init__ refuses it. settings_for passes one dict: a call with 42 keyword arguments,
    copied into the instance's own dict, cost more than the rest of settings_for together.
    ``literal`` names the dict literal ``values`` is (its keys checked once, see above)."""
    if (
        values is not None
        and not named
        and (literal in _LITERALS_CHECKED or values.keys() == _SETTING_NAMES)
    ):
        fields_ = values  # every field given (settings_for hands its dict over): used as it is
        if literal is not None:
            _LITERALS_CHECKED.add(literal)
    else:
        fields_ = {**_SETTING_DEFAULTS, **(values or {}), **named}
        if fields_.keys() != _SETTING_NAMES:
            wrong = sorted(_SETTING_NAMES ^ fields_.keys())
            raise TypeError(f"Settings: missing or unknown {', '.join(wrong)}")
    made = object.__new__(Settings)
    object.__setattr__(made, "__dict__", fields_)
    return made


def _changed(settings: Settings, changes: dict[str, Any]) -> Settings:
    """``settings`` with ``changes`` (names checked by the caller): dataclasses.replace's
    result, without its frozen __init__'s object.__setattr__ per field (every what-if budget
    of every deployment makes one; Settings has no __post_init__ and nothing but fields)."""
    made = object.__new__(Settings)
    object.__setattr__(made, "__dict__", {**settings.__dict__, **changes})
    return made


assert not hasattr(Settings, "__post_init__")  # _settings and _changed would skip it


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
    # draft weights kept in host memory (speculative.offload): not in HBM, read over PCIe
    draft_host_weights: Any = None
    # vLLM's hybrid pool (attention and state layers paged alike, a drafter's joined layers
    # included): block, page and groups; None for other models and engines
    kv_pages: HybridPages | None = None
    # vLLM's hybrid allocator pads a window or full-attention kind's last group of layers
    # (KvLayout.grouped_request_bytes): a request's pages there over its bytes as kv_tokens
    # counts them (1: nothing padded). vLLM's start-up check sums the layers unpadded, so only
    # the concurrency it reports (and the sequences that fit at once) shrink by it.
    kv_group_padding: float = 1.0
    # TGI: the memory left above its warm-up batch's KV blocks after the warm-up; the warm-up
    # runs out of memory (the engine refuses) when the overhead is this much larger
    warmup_margin: Any = None

    @property
    def verify_tokens(self) -> int:
        """Tokens one decode step schedules when every running sequence verifies its k draft
        tokens plus the bonus token: max_num_seqs x (1 + k)."""
        k = self.settings.num_speculative_tokens if self.has_drafter else 0
        return self.settings.max_num_seqs * (1 + k)

    @property
    def has_drafter(self) -> bool:
        return self.settings.speculative_method not in ("none", "")

    @property
    def deployment(self) -> Any:
        return self.resolved.deployment

    @property
    def draft_weights_in_fraction(self) -> bool:
        """Whether the drafter's weights count against the engine's memory fraction: they do
        but in SGLang before draft_weights_in_fraction_since, which sized the target's KV pool
        before the drafter loaded (its weights then take the reserve outside the fraction)."""
        if self.settings.engine != "sglang":
            return True
        return sglang_draft_weights_in_fraction(_version(self.settings.engine_version))

    @property
    def weights_in_fraction(self) -> Any:
        """The weights the engine's memory fraction must hold: target and draft, or the target
        alone where the drafter loads outside it (draft_weights_in_fraction)."""
        if self.draft_weights_in_fraction:
            return self.weights + self.draft_weights
        return self.weights

    @property
    def fraction_of_free(self) -> bool:
        """Whether the engine's memory fraction is of the memory free after the weights and
        the overhead (TensorRT-LLM), not of the card."""
        return fraction_meaning(self.settings.engine) == "of_free"

    @property
    def usable_share(self) -> float:
        """The share of the card the engine may use: the fraction as set, or where the fraction
        is of the memory free after loading (or no more than was free at start: vLLM 0.34's
        extensible KV cache), what usable comes to of the card."""
        if self.fraction_of_free or self.settings.extensible_kv_cache:
            return float((self.usable / self.total).to("").magnitude)
        return self.settings.memory_fraction

    @cached_property  # the rules, the KV band and the reporters ask for it again and again
    def overhead_total(self) -> Any:
        return sum(self.overhead.values(), Q(0, "byte"))

    def kv_uncertainty(self, up: bool) -> Any:
        """Bytes the KV cache estimate may be off by, upward or downward (KV_UNCERTAINTY_*)."""
        # asked for by several rules and fixes of each budget: worked out once each way
        known = self.__dict__.get("_kv_uncertainty_memo")
        if known is None:
            known = self.__dict__["_kv_uncertainty_memo"] = {}
        if up not in known:
            known[up] = self._uncertainty(up)
        return known[up]

    def _uncertainty(self, up: bool) -> Any:
        return bytes_quantity(self._spreads()[up])

    def _spreads(self) -> tuple[Any, Any]:
        """kv_uncertainty's bytes as plain numbers, (down, up): both worked out in one pass, as
        every vLLM budget's rules read both edges of the band."""
        s = self.settings
        if s.kv_cache_memory_bytes:
            return 0, 0  # the manifest sets the KV cache's bytes: nothing is estimated
        # in plain bytes, each product and sum in the order the Quantity arithmetic took: the
        # numbers compute made the figures of, where it kept them (the figures' magnitudes)
        # (figure_magnitude's reads, inline: every budget and what-if works out its band)
        plain = self.__dict__.get("_plain")
        if plain is None:  # made another way (dataclasses.replace): read from the figures
            weights = in_bytes(self.weights) + in_bytes(self.draft_weights)
            overhead_total = in_bytes(self.overhead_total)
            graphs = self.overhead.get("cuda_graphs")
            graphs = None if graphs is None else in_bytes(graphs)
            margin = self.warmup_margin
            margin = None if margin is None else in_bytes(margin)
        else:
            weights = plain[_WEIGHTS] + plain[_DRAFT_WEIGHTS]
            overhead_total = plain[_OVERHEAD_TOTAL]
            graphs = plain[_OVERHEAD].get("cuda_graphs")
            margin = plain[_WARMUP_MARGIN]
        of_overhead, of_weights = KV_UNCERTAINTY_DOWN
        down = overhead_total * of_overhead + weights * of_weights
        if margin is not None and down >= margin:
            # TGI: at the low edge its warm-up batch no longer fits, so no cache at all
            down = max(down, in_bytes(self.kv_cache))
        of_overhead, of_weights = KV_UNCERTAINTY_UP
        up = (overhead_total - self._counted_overhead(plain)) * of_overhead + weights * of_weights
        if graphs is not None and _graphs_maybe_uncharged_for(s.engine, s.engine_version):
            # Model Runner V2 may leave the graphs out of the KV budget (engines.yaml
            # graphs_maybe_uncharged): the generous edge goes without them
            up = up + graphs * (1 - of_overhead)
        if plain is None:
            kept = self.overhead.get("margin")
            kept = None if kept is None else in_bytes(kept)
        else:
            kept = plain[_OVERHEAD].get("margin")
        if (
            kept is not None
            and s.engine_version is None
            and self.resolved.deployment.serving.gpu_memory_utilization is not None
        ):
            # vLLM 0.34's extensible KV cache keeps a margin free that earlier releases do not
            # (_extensible_margin): a manifest that sets the fraction and names no release may
            # run one of those, so the generous edge, which the error rules promise a refusal
            # by, goes without it. (Left unset, the fraction of the earlier releases, 0.9,
            # leaves less than the newest does.)
            up = up + kept * (1 - of_overhead)
        state = _trtllm_state_bytes(self, plain)
        if state and not _release_before(s.engine, s.engine_version, "mamba_state_pooled_since"):
            # TensorRT-LLM's later releases may keep the Mamba state inside the KV pool and
            # hold fewer slots than max_batch_size where it does not fit (engines.yaml
            # trtllm mamba_state_pooled_since): the generous edge, which the error rules
            # promise a refusal by, goes without the state
            up = up + state * s.memory_fraction
        group = nvswitch_group_bytes(self.resolved.gpu, s)
        if group > 0:
            # The NVLink switch board's communicator memory rests on one record, and NVIDIA's
            # aiconfigurator tables give a fifth of it (engines.yaml multi_gpu): the generous
            # edge, the one the error rules promise a refusal by, goes without it. vLLM counts
            # it among the overhead (of_overhead of it is in the spread already); SGLang takes
            # it out of the memory free at start.
            in_overhead = fraction_meaning(s.engine) != "weights_and_kv_of_total"
            up = up + (group * (1 - of_overhead) if in_overhead else group)
        return down, up

    def kv_tokens_if(self, kv_bytes: Any) -> Any:
        """Tokens a KV cache of ``kv_bytes`` holds at this budget's cost per token, in whole
        blocks (the band's edges: kv_cache -/+ kv_uncertainty(...))."""
        return self._tokens_in(float(in_bytes(kv_bytes)))

    def _tokens_in(self, magnitude: float) -> Any:
        """kv_tokens_if of a cache of ``magnitude`` bytes."""
        plain = self.__dict__.get("_plain")  # (figure_magnitude's reads, inline: a hot path)
        if plain is None:  # made another way (dataclasses.replace): read from the figures
            per_token = in_bytes_per_token(self.kv_bytes_per_token_target) + in_bytes_per_token(
                self.kv_bytes_per_token_draft
            )
        else:  # the figures' magnitudes, as compute kept them
            per_token = plain[_PER_TOKEN_TARGET] + plain[_PER_TOKEN_DRAFT]
        per_block = float(per_token) * self.settings.block_size
        if magnitude <= 0 or per_block <= 0:
            return tokens_quantity(0)
        return tokens_quantity(math.floor(magnitude / per_block) * self.settings.block_size)

    def state_blocks_if(self, kv_bytes: Any) -> int:
        """The blocks of vLLM's hybrid pool a KV cache of ``kv_bytes`` holds: each running
        sequence keeps its recurrent state in one ("Mamba cache blocks"); 0 for other models."""
        return self._blocks_in(float(in_bytes(kv_bytes)))

    def _blocks_in(self, magnitude: float) -> int:
        """state_blocks_if of a cache of ``magnitude`` bytes."""
        if self.kv_pages is None or magnitude <= 0:
            return 0
        return math.floor(magnitude / self.kv_pages.block_bytes)

    @property
    def warmup_attention(self) -> Any:
        """TGI's dense attention over its warm-up prefill (_tgi_dense_prefill: Gemma 3's scores
        and masks), in bytes per GPU, counted in the activation peak; 0 for other engines and
        models."""
        s = self.settings
        if s.engine != "tgi" or self.resolved.target.vision is None:
            return Q(0.0, "byte")
        dense = _tgi_dense_prefill(self.resolved, s)
        return Q(dense[0] if dense is not None else 0.0, "byte")

    @property
    def trtllm_state_cache(self) -> Any:
        """TensorRT-LLM's Mamba cache on each GPU (max_batch_size slots of a hybrid model's
        state, _trtllm_state), in bytes; 0 for other engines and models."""
        return Q(_trtllm_state_bytes(self, None), "byte")

    @property
    def trtllm_state_slots_half_fit(self) -> int:
        """Half the max_batch_size slots of TensorRT-LLM's Mamba cache that fit beside the
        weights and overhead (the other half of that memory left to the KV cache); 0 where
        there is no such cache or not one slot fits."""
        state = _trtllm_state_bytes(self, None)
        if not state:
            return 0
        free = state + float(in_bytes(self.kv_cache))  # before the state: kv_cache is what is left
        return max(int(self.settings.max_num_seqs * free / state / 2), 0)

    def _counted_overhead(self, plain: Any) -> float:
        """Bytes of the overhead that are tensors the engine allocates, counted from their
        shapes, not a fitted estimate: TGI's dense warm-up attention (_tgi_dense_prefill) where
        it is the activation peak. The engine holds at least that much (TGI #3105 logged the
        very tensor), so the generous edge of the band does not discount it."""
        s = self.settings
        if s.engine != "tgi" or self.resolved.target.vision is None:
            return 0.0
        dense = _tgi_dense_prefill(self.resolved, s)
        if dense is None:
            return 0.0
        if plain is None:
            activation = float(in_bytes(self.overhead["activation"]))
        else:
            activation = float(plain[_OVERHEAD]["activation"])
        return dense[0] if dense[0] >= activation else 0.0

    def kv_band_tokens(self, up: bool) -> Any:
        """``kv_tokens_if(kv_cache + kv_uncertainty(up=True))`` (``up``), or of ``kv_cache -
        kv_uncertainty(up=False)``: the band's edges, which the rules read on every vLLM
        deployment (kv.tokens_high, kv.tokens_low)."""
        return self._tokens_in((self.__dict__.get("_kv_edges") or self._band_edges())[up])

    def kv_band_blocks(self, up: bool) -> int:
        """``state_blocks_if`` of the band's edge (kv.state_blocks_high, kv.state_blocks_low)."""
        return self._blocks_in((self.__dict__.get("_kv_edges") or self._band_edges())[up])

    def _band_edges(self) -> tuple[float, float]:
        """The bytes of ``kv_cache`` minus and plus ``kv_uncertainty``, (low, high), as
        kv_tokens_if and state_blocks_if read them, kept on the budget (the rules read both
        edges, and the blocks at one): from the plain number compute kept for the cache where
        it did (the sum the Quantities make, without making it one), else from the figure."""
        plain = self.__dict__.get("_plain")
        if plain is None:  # made another way (dataclasses.replace): the Quantities' sums
            kv_cache = self.kv_cache
            low = float(in_bytes(kv_cache - self.kv_uncertainty(False)))
            high = float(in_bytes(kv_cache + self.kv_uncertainty(True)))
        else:
            down, up = self._spreads()
            kv_cache = plain[_KV_CACHE]
            low, high = float(kv_cache - down), float(kv_cache + up)
        edges = self.__dict__["_kv_edges"] = (low, high)
        return edges

    @property
    def kv_bytes_per_token(self) -> Any:
        return self.kv_bytes_per_token_target + self.kv_bytes_per_token_draft

    @property
    def max_model_len(self) -> Any:
        return tokens_quantity(self.settings.max_model_len)

    @property
    def max_concurrency(self) -> float:
        """Full-length sequences the KV cache holds at once (vLLM's "Maximum concurrency")."""
        plain = self.__dict__.get("_plain")
        if plain is None:  # made another way (dataclasses.replace): the figures' quotient
            quotient = (self.kv_tokens / self.max_model_len).to("dimensionless").magnitude
            return float(quotient) / self.kv_group_padding
        # tokens over tokens, as the Quantities divide them (a whole number made a float first)
        return float(plain[_KV_TOKENS]) / self.settings.max_model_len / self.kv_group_padding

    @property
    def workload_tokens(self) -> Any | None:
        workload = self.deployment.workload
        if workload is None:
            return None
        return Q(workload.concurrency * workload.context_tokens, "token")

    def whatif(self, **changes: Any) -> Budget:
        """This budget with some settings changed (names as in Settings)."""
        # Rules and the speculative advisor ask for the same few what-ifs of one budget (no
        # drafter, another TP size): each is computed once, and dropped with the rules' scope.
        memo = self.__dict__.setdefault("_whatifs", {})
        try:
            key = tuple(sorted(changes.items()))
            found = memo.get(key)
        except TypeError:  # a setting that cannot be hashed: no memo
            key = found = None
        if found is not None:
            return found
        unknown = set(changes) - _SETTING_NAMES
        if unknown:
            raise ValueError(f"whatif() does not know {', '.join(sorted(unknown))}")
        found = compute_from(self, self.resolved, _changed(self.settings, changes), changes)
        if key is not None:
            memo[key] = found
        return found


class _NotesOnDemand:
    """Budget.assumed where a budget does not hold it: one made without its notes
    (build(notes=False), compute_from) writes them when first read, as they would have been
    written then. A budget that holds them has them in its own __dict__, which Python reads
    before this descriptor (it has no __set__); a descriptor rather than a __getattr__, which
    would slow every attribute read of every budget."""

    def __get__(self, budget: Budget | None, owner: type | None = None) -> Any:
        if budget is None:
            return self
        recipe = budget.__dict__.pop("_notes_of", None)
        if recipe is None:
            raise AttributeError(
                "'Budget' object has no attribute 'assumed'", name="assumed", obj=budget
            )
        base, resolved, settings = recipe
        if base is None:
            notes = build(resolved).assumed
        else:
            notes = compute(resolved, settings, base.assumed).assumed
        budget.__dict__["assumed"] = notes
        return notes


# set on the class after the dataclass is made, which takes the field's default_factory
Budget.assumed = _NotesOnDemand()  # type: ignore[assignment]


# The Budget's fields in order, and after them its overhead_total, which compute works out
# with the rest (the cached property's value, so the property never computes it).
_BUDGET_KEYS = [*(f.name for f in fields(Budget)), "overhead_total"]
assert not hasattr(Budget, "__post_init__")  # _budget would skip it


def _budget(values: dict[str, Any], literal: str | None = None) -> Budget:
    """``Budget(**values)`` without the dataclass's __init__, whose 18 keyword arguments cost
    more than the dict they end in: ``values`` (every field, in the fields' order, then
    overhead_total) becomes the instance's __dict__ as it is. Every budget and what-if makes
    one. ``literal`` names the dict literal ``values`` is (its keys checked once, as
    _settings')."""
    if literal not in _LITERALS_CHECKED:
        if list(values) != _BUDGET_KEYS:
            raise TypeError(f"Budget: the fields are {', '.join(_BUDGET_KEYS)}")
        if literal is not None:
            _LITERALS_CHECKED.add(literal)
    made = object.__new__(Budget)
    made.__dict__ = values
    return made


def _notes_later(
    budget: Budget, base: Budget | None, resolved: Resolved, settings: Settings | None
) -> Budget:
    """``budget`` with its ``assumed`` left to be written when first read (_NotesOnDemand):
    by build(resolved) where ``base`` is None, else by compute(resolved, settings,
    base.assumed)."""
    del budget.__dict__["assumed"]
    budget.__dict__["_notes_of"] = (base, resolved, settings)
    return budget


def compute_from(
    base: Budget, resolved: Resolved, settings: Settings, changed: Collection[str] = ()
) -> Budget:
    """``compute(resolved, settings, base.assumed)``: another budget of ``base``'s deployment
    (a what-if), whose notes follow base's. Where base's notes are not written yet, neither
    are its own. Its figures are made Quantities when read (_WhatIfBudget). ``changed``: the
    names of the settings that differ from base's, where the caller knows them (whatif): where
    ``resolved`` is base's and none of them is one _target_side reads (a what-if of the
    drafter), the what-if takes base's target side instead of working it out again. Not with
    pipeline stages: which stage binds follows the KV cache and the activations too (another
    max_model_len or max_num_seqs can make the other stage the one with the fewest tokens)."""
    side = None
    if (
        changed
        and resolved is base.resolved
        and _SIDE_NAMES.isdisjoint(changed)
        and base.settings.pipeline_parallel <= 1
    ):
        side = base.__dict__.get("_target_side")
    if "assumed" in base.__dict__:
        return compute(resolved, settings, base.assumed, figures_when_read=True, side=side)
    budget = compute(resolved, settings, figures_when_read=True, side=side)
    return _notes_later(budget, base, resolved, settings)


class _FigureWhenRead:
    """A what-if budget's figure, made a Quantity of its plain number (kept in the budget's
    ``_plain``) when first read and kept in the budget's own __dict__, which Python reads
    before this descriptor from then on (it has no __set__)."""

    __slots__ = ("_name", "_index", "_make")

    def __init__(self, name: str, index: int, make: Any) -> None:
        self._name, self._index, self._make = name, index, make

    def __get__(self, budget: Budget | None, owner: type | None = None) -> Any:
        if budget is None:
            return self
        known = budget.__dict__
        plain = known.get("_plain")
        if plain is None:  # made otherwise (dataclasses.replace sets every field)
            if self._name == "overhead_total":
                value = known["overhead_total"] = Budget.overhead_total.func(budget)
                return value
            raise AttributeError(
                f"'{type(budget).__name__}' object has no attribute '{self._name}'",
                name=self._name,
                obj=budget,
            )
        value = known[self._name] = self._make(plain[self._index])
        return value


def _overhead_quantities(overhead: dict[str, Any]) -> dict[str, Any]:
    return {name: bytes_quantity(line) for name, line in overhead.items()}


def _bytes_or_none(value: Any) -> Any:
    return None if value is None else bytes_quantity(value)


class _WhatIfBudget(Budget):
    """A what-if's budget (whatif(), compute_from): the same figures as compute() gives, each
    made a Quantity when first read. Readers ask a what-if for one or two of its thirteen
    (kv_tokens, the weights): making every one cost a sixth of a what-if."""


# compute's plain figures, in the order it keeps them, and how each becomes what Budget holds
_PLAIN_FIGURES = (
    ("usable", bytes_quantity),
    ("weights", bytes_quantity),
    ("draft_weights", bytes_quantity),
    ("overhead", _overhead_quantities),
    ("kv_cache", bytes_quantity),
    ("kv_bytes_per_token_target", bytes_per_token_quantity),
    ("kv_bytes_per_token_draft", bytes_per_token_quantity),
    ("kv_tokens", tokens_quantity),
    ("kv_bytes_per_sequence", bytes_quantity),
    ("kv_state_bytes_per_sequence", bytes_quantity),
    ("draft_host_weights", bytes_quantity),
    ("warmup_margin", _bytes_or_none),
    ("overhead_total", bytes_quantity),
)
# where figure_magnitude and the KV band (Budget._uncertainty, kv_tokens_if) find a figure in a
# budget's _plain
_AT = {name: index for index, (name, _) in enumerate(_PLAIN_FIGURES)}
_WEIGHTS, _DRAFT_WEIGHTS, _OVERHEAD, _OVERHEAD_TOTAL, _WARMUP_MARGIN = (
    _AT[name]
    for name in ("weights", "draft_weights", "overhead", "overhead_total", "warmup_margin")
)
_PER_TOKEN_TARGET, _PER_TOKEN_DRAFT = (
    _AT["kv_bytes_per_token_target"],
    _AT["kv_bytes_per_token_draft"],
)
_KV_CACHE, _KV_TOKENS = _AT["kv_cache"], _AT["kv_tokens"]
# how a figure that is a Quantity becomes its plain number again (q.to(unit).magnitude)
_MAGNITUDE_OF = {
    "usable": in_bytes,
    "weights": in_bytes,
    "draft_weights": in_bytes,
    "kv_cache": in_bytes,
    "kv_bytes_per_token_target": in_bytes_per_token,
    "kv_bytes_per_token_draft": in_bytes_per_token,
    "kv_tokens": reader("token"),
    "kv_bytes_per_sequence": in_bytes,
    "kv_state_bytes_per_sequence": in_bytes,
    "draft_host_weights": in_bytes,
    "warmup_margin": in_bytes,
    "overhead_total": in_bytes,
}


def figure_magnitude(budget: Budget, name: str) -> Any:
    """A budget figure's magnitude in bytes, tokens or bytes a token, None for a figure that is
    None: the plain number compute kept and made the figure of (a what-if makes its figures
    only when read), else the figure read back (a budget made another way:
    dataclasses.replace)."""
    plain = budget.__dict__.get("_plain")
    if plain is not None:
        return plain[_AT[name]]
    value = getattr(budget, name)
    return None if value is None else _MAGNITUDE_OF[name](value)


for _index, (_name, _make) in enumerate(_PLAIN_FIGURES):
    setattr(_WhatIfBudget, _name, _FigureWhenRead(_name, _index, _make))
# every field and overhead_total is either in a what-if's __dict__ from the start or made
assert {name for name, _ in _PLAIN_FIGURES} | {
    "resolved",
    "settings",
    "total",
    "assumed",
    "byte_unit",
    "kv_pages",
    "kv_group_padding",
} == set(_BUDGET_KEYS)


def settings_for(resolved: Resolved) -> tuple[Settings, dict[str, str]]:
    """The deployment's settings with the engine's documented defaults filled in; the second
    value says which defaults were assumed and why."""
    settings, assumed, _ = _settings_for(resolved)
    return settings, assumed


def _settings_for(
    resolved: Resolved, notes: bool = True
) -> tuple[Settings, dict[str, str], dict[str, Any]]:
    """settings_for's two values and the engine's derived defaults it read (_derived_defaults),
    which build reads again. Without ``notes`` the second value is empty: the settings are the
    same, the text saying what was assumed and why is not written."""
    dep = resolved.deployment
    engine = dep.engine
    defaults = catalog.engine_defaults(engine)
    # what resolve assumed (model, TP, ...), and below what the defaults filled in
    assumed: dict[str, str] = dict(resolved.assumed) if notes else {}
    if notes and resolved.gpu_from_default:
        assumed["gpu"] = (
            f"{resolved.gpu.name} (given by --gpu or default-gpu; the manifest names none)"
        )
    if notes and not dep.engine_version and _release_matters(engine):
        assumed["engine_version"] = (
            f"the newest {engine}: the manifest names no release hbmlint can read (an image "
            "tag naming one, or engine_version, gives an older release's defaults)"
        )
    legacy, entry, tier, huge_batched = _release_on_gpu(resolved, defaults)
    serving = dep.serving

    # engines whose defaults depend on the release, the GPU and the model (engines.yaml derived)
    derived = _derived_defaults(resolved, entry)
    fraction = serving.gpu_memory_utilization
    if fraction is None and "fraction" in derived:
        fraction, why = derived["fraction"]
        if notes:
            assumed["gpu_memory_utilization"] = f"{fraction} ({why})"
    elif fraction is None:
        fraction, why = default_fraction(engine, dep.engine_version)
        if notes:
            assumed["gpu_memory_utilization"] = f"{fraction} ({why})"
    extensible = (
        engine == "vllm"
        and not serving.kv_cache_memory_bytes
        and _at_least(dep, "extensible_kv_cache_since")
    )
    if extensible and serving.gpu_memory_utilization is None:
        fraction = 1.0
        if notes:
            assumed["gpu_memory_utilization"] = (
                f"1.0 (vLLM {defaults['extensible_kv_cache_since']}+ with it unset: the "
                "extensible KV cache takes the memory free after warm-up and graph capture, "
                "less a margin of max(1 GiB, 0.75 x the activation peak), 3 GiB at least on "
                "ROCm, and the peak itself; the CUDA context is not free at start)"
            )
    if engine == "sglang" and resolved.target.vision is not None:
        factor, why = _sglang_vlm_factor(
            resolved, defaults, dep.engine_version, serving.gpu_memory_utilization is not None
        )
        if factor != 1.0:
            fraction = float(fraction) * factor
            if notes:
                assumed["gpu_memory_utilization"] = f"{fraction:.3f} ({why})"
    if notes and defaults.get("free_at_start_reserved"):
        assumed["free_at_start"] = (
            f"the card less {defaults['free_at_start_reserved']} (CUDA context): "
            f"{engine} takes its memory fraction of what is free when it starts"
        )
    max_model_len = serving.max_model_len
    if max_model_len is None and "max_model_len" in derived:
        max_model_len, why = derived["max_model_len"]
        if notes:
            assumed["max_model_len"] = f"{max_model_len} ({why})"
    elif max_model_len is None:
        max_model_len = resolved.target.max_position_embeddings or 4096
        if notes:
            assumed["max_model_len"] = f"{max_model_len} (the model's max_position_embeddings)"
    throughput = ""  # vLLM --performance-mode throughput doubles the batch defaults
    if serving.performance_mode == "throughput" and _at_least(dep, "performance_mode_since"):
        throughput = "--performance-mode throughput"
    max_num_seqs = serving.max_num_seqs
    spec_cap = defaults.get("speculative_max_running_requests")
    if max_num_seqs is None and spec_cap and dep.speculative.method not in (None, "", "none"):
        max_num_seqs = int(spec_cap)
        if notes:
            assumed["max_num_seqs"] = f"{max_num_seqs} ({engine} with a speculative algorithm)"
    running_set = max_num_seqs  # SGLang's state pool without a radix cache is sized by it
    if max_num_seqs is None:
        if legacy:
            max_num_seqs = int(defaults["v0"]["max_num_seqs"])
            if notes:
                assumed["max_num_seqs"] = f"{max_num_seqs} ({engine} V0 engine default)"
        else:
            max_num_seqs = int(defaults["max_num_seqs"][tier])
            if notes:
                assumed["max_num_seqs"] = f"{max_num_seqs} ({engine} default for this GPU)"
            if throughput:
                max_num_seqs *= 2
                if notes:
                    assumed["max_num_seqs"] = f"{max_num_seqs} ({engine} default x 2: {throughput})"
    batched = serving.max_num_batched_tokens
    if batched is None:
        if legacy:
            v0 = defaults["v0"]
            chunked = max_model_len > int(v0["chunked_prefill_above"]) and (
                resolved.gpu.vendor in v0.get("chunked_prefill_vendors", [resolved.gpu.vendor])
            )
            if serving.chunked_prefill is not None:  # --(no-)enable-chunked-prefill, as written
                chunked = serving.chunked_prefill
            floor = int(v0["max_num_batched_tokens"])
            batched = floor if chunked else max(int(max_model_len), floor)
            why = "chunked prefill" if chunked else "no chunked prefill: a whole max_model_len"
            if notes:
                assumed["max_num_batched_tokens"] = f"{batched} ({engine} V0 engine, {why})"
        elif "batched" in derived:
            batched, why = derived["batched"]
            if serving.chunked_prefill is False and "max_prefill_tokens" in defaults:
                # SGLang's --chunked-prefill-size -1: a prompt is prefilled whole
                batched = max(int(defaults["max_prefill_tokens"]), int(max_model_len))
                why = f"{engine} without chunked prefill: max(max_prefill_tokens, context length)"
            if notes:
                assumed["max_num_batched_tokens"] = f"{batched} ({why})"
        else:
            batched = int(defaults["max_num_batched_tokens"][tier])
            if huge_batched is not None:  # vLLM: cards of 160 GiB or more, from 0.28
                batched = huge_batched
            if notes:
                assumed["max_num_batched_tokens"] = f"{batched} ({engine} default for this GPU)"
            if throughput:
                batched *= 2
                if notes:
                    assumed["max_num_batched_tokens"] = (
                        f"{batched} ({engine} default x 2: {throughput})"
                    )
            if serving.chunked_prefill is False and _at_least(dep, "chunked_prefill_off_since"):
                # V1 honours --no-enable-chunked-prefill: one step prefills a whole prompt
                batched = min(int(max_num_seqs) * int(max_model_len), max(max_model_len, batched))
                if notes:
                    assumed["max_num_batched_tokens"] = (
                        f"{batched} (--no-enable-chunked-prefill: {engine} prefills a whole "
                        "max_model_len in one step)"
                    )
    block_size = serving.block_size
    if block_size is None and "block_size" in derived:
        block_size, why = derived["block_size"]
        if notes:
            assumed["block_size"] = f"{block_size} ({why})"
    elif block_size is None:
        block_size = int(defaults["block_size"])
        if notes:
            assumed["block_size"] = f"{block_size} ({engine} default)"
    target = resolved.target
    if dep.model.dtype in (None, "auto"):
        dtype = target.dtype
        if notes:
            assumed["dtype"] = f"{dtype} (config.json torch_dtype)"
        if dtype == "float32":
            # "auto" never serves float32 checkpoints in float32 (Gemma 2 ships them): vLLM
            # downcasts to the platform's first dtype, bfloat16 from Ampere on, else float16
            # (vllm/config/model.py _resolve_auto_dtype); SGLang and TGI do the same in 2 bytes
            dtype = "float16" if _no_bfloat16(resolved.gpu.name) else "bfloat16"
            if notes:
                assumed["dtype"] = f"{dtype} (auto: {engine} downcasts a float32 checkpoint)"
    else:
        dtype = dep.model.dtype
    kv_dtype = serving.kv_cache_dtype or "auto"
    if kv_dtype == "auto" and _sglang_dsa_fp8(engine, target, resolved.gpu):
        # SGLang defaults a DSA model's cache (DeepSeek-V3.2, GLM-5) to FP8 on Blackwell
        # (compute capability 10 and up), bfloat16 before it (server_args.py
        # _set_default_nsa_kv_cache_dtype at v0.5.9; arg_groups/overrides.py
        # _dsa_kv_cache_dtype_default at v0.5.23; at v0.5.4 the same test, set whatever the
        # flag said)
        kv_dtype = "fp8_e4m3"
        if notes and serving.kv_cache_dtype is None:
            assumed["kv_cache_dtype"] = "fp8_e4m3 (auto: SGLang's default for DSA on Blackwell)"
    elif kv_dtype == "auto":
        kv_dtype = target.kv_cache_dtype or dtype
        if notes and serving.kv_cache_dtype is None:
            what = "the checkpoint's KV scheme" if target.kv_cache_dtype else "the model dtype"
            assumed["kv_cache_dtype"] = f"{kv_dtype} (auto: {what})"
    quantization = dep.model.quantization or target.quantization
    if notes and dep.model.quantization is None and target.quantization:
        assumed["quantization"] = f"{target.quantization} (config.json quantization_config)"
    spec = dep.speculative
    draft_tp = spec.tensor_parallel or resolved.tensor_parallel
    if notes and spec.tensor_parallel is None and spec.method in _SEPARATE_DRAFT_METHODS:
        assumed["speculative.tensor_parallel"] = f"{draft_tp} ({engine} default: the target's TP)"
    draft_quant = None
    if spec.model is not None:
        draft_quant = spec.model.quantization or (
            resolved.draft.quantization if resolved.draft else None
        )
    draft_kv = getattr(spec, "kv_cache_dtype", None)
    if draft_kv in (None, "auto") or draft_kv not in catalog.kv_dtype_names():
        draft_kv = None  # follows the target's (vLLM: unless speculative_config.kv_cache_dtype)
    expert_parallel = 1
    if getattr(dep.parallel, "expert", None) and target.is_moe:
        # vLLM --enable-expert-parallel: experts spread over TP x DP ranks, whole. SGLang's
        # expert-parallel group lies inside one TP group, DP attention or not: its DP ranks
        # share the TP group's GPUs, and without DP attention each --dp-size replica is a TP
        # group of its own (managers/data_parallel_controller.py launch_dp_schedulers; world
        # = tp x pp and the moe_ep groups are cut from each TP group, distributed/
        # parallel_state.py initialize_model_parallel)
        one_group = engine == "sglang" or dep.parallel.dp_attention
        data = 1 if one_group else (getattr(dep.parallel, "data", None) or 1)
        expert_parallel = resolved.tensor_parallel * data
    attention_dp = (getattr(dep.parallel, "data", None) or 1) if dep.parallel.dp_attention else 1
    if engine == "trtllm" and dep.parallel.dp_attention:
        attention_dp = resolved.tensor_parallel  # enable_attention_dp: every GPU a rank of its own
    enabled = bool(dep.parallel.dp_attention)
    forced = dp_attention.forced_data(
        target, engine, dep.engine_version, resolved.tensor_parallel, enabled
    )
    if forced > 1 and forced != attention_dp and (enabled or not dep.parallel.data):
        attention_dp = forced
        if notes:
            what = "sets" if enabled else "turns DP attention on for this model with"
            assumed["dp_attention"] = (
                f"DP {forced} ({engine} {dep.engine_version} {what} the DP size equal to TP, "
                "whatever the command says)"
            )
    if engine == "sglang" and attention_dp > 1 and serving.max_num_seqs:
        # --max-running-requests is the whole DP group's: each attention-DP rank schedules its
        # share (SGLang's scheduler divides it by dp_size with DP attention)
        max_num_seqs = max(1, int(serving.max_num_seqs) // attention_dp)
        if notes:
            assumed["max_num_seqs"] = (
                f"{max_num_seqs} per GPU (--max-running-requests {serving.max_num_seqs} over "
                f"{attention_dp} attention-DP ranks)"
            )
    whole = tuple(getattr(dep.parallel, "whole_parts", None) or ())
    tp_size = resolved.tensor_parallel
    if notes:
        # the split is for the note alone (compute works it out again for the weights)
        split = dp_attention.sharding(
            target, engine, dep.engine_version, tp_size, attention_dp, whole
        )
        if split is not None:
            assumed["sharding"] = dp_attention.describe(split, tp_size, attention_dp, engine)
        for label, arch, quant in (
            ("weights", target, quantization),
            ("draft_weights", resolved.draft, draft_quant),
        ):
            if arch is not None and arch.checkpoint is not None:
                assumed[label] = weights_source(arch, quant, dtype if arch is target else None)
            elif arch is not None and arch.parameters:  # the catalog's, or a config.json's
                assumed[label] = (
                    "parameter arithmetic from config.json (no safetensors headers read)"
                )
        # the orchestrator's own choices (formats/*), where it made them, say why instead
        assumed.update(dep.assumed)
    settings = _settings(
        {
            "engine": engine,
            "engine_version": dep.engine_version,
            "memory_fraction": float(fraction),
            "max_model_len": int(max_model_len),
            "max_num_seqs": int(max_num_seqs),
            "max_num_batched_tokens": int(batched),
            "kv_cache_dtype": kv_dtype,
            "block_size": int(block_size),
            "enforce_eager": bool(serving.enforce_eager) or serving.cudagraph_mode == "NONE",
            "cudagraph_mode": serving.cudagraph_mode,
            "cudagraph_max_capture_size": serving.cudagraph_max_capture_size,
            "cudagraph_capture_sizes": serving.cudagraph_capture_sizes,
            "quantization": None if quantization == "none" else quantization,
            "dtype": dtype,
            "tensor_parallel": resolved.tensor_parallel,
            "pipeline_parallel": resolved.pipeline_parallel,
            "speculative_method": spec.method,
            "draft_quantization": None if draft_quant == "none" else draft_quant,
            "draft_tensor_parallel": draft_tp,
            "num_speculative_tokens": spec.num_speculative_tokens or 0,
            "expert_parallel": expert_parallel,
            "redundant_experts": (getattr(dep.parallel, "redundant_experts", None) or 0)
            if expert_parallel > 1
            else 0,
            "legacy_engine": legacy,
            "draft_kv_cache_dtype": draft_kv,
            "draft_offload": bool(getattr(spec, "offload", False)),
            "kv_cache_max_tokens": serving.kv_cache_max_tokens if engine == "sglang" else None,
            "kv_cache_memory_bytes": serving.kv_cache_memory_bytes if engine == "vllm" else None,
            "extensible_kv_cache": extensible,
            "attention_data_parallel": attention_dp,
            "whole_parts": whole,
            "cpu_offload_gib": float(getattr(serving, "cpu_offload_gb", None) or 0.0),
            "draft_token_map": getattr(spec, "token_map", None),
            "draft_hot_vocab": getattr(spec, "hot_vocab_size", None),
            # SGLang's own flags (its state pool: sglang_mamba.py)
            "mamba_ssm_dtype": serving.mamba_ssm_dtype if engine == "sglang" else None,
            "max_mamba_cache_size": serving.max_mamba_cache_size
            or (
                sglang_mamba.radix_off_slots(dep.engine_version, running_set)
                if serving.prefix_caching is False
                else None
            )
            if engine == "sglang"
            else None,
            "mamba_full_memory_ratio": serving.mamba_full_memory_ratio
            if engine == "sglang"
            else None,
            "prefix_caching": serving.prefix_caching if engine in ("vllm", "sglang") else None,
            "mamba_cache_mode": serving.mamba_cache_mode if engine == "vllm" else None,
            "disable_hybrid_kv_cache_manager": engine in ("vllm", "sglang")
            and bool(serving.disable_hybrid_kv_cache_manager),
            "swa_full_tokens_ratio": serving.swa_full_tokens_ratio if engine == "sglang" else None,
            "in_flight_batches": _in_flight_batches(resolved)
            if engine == "vllm" and resolved.target.sliding_window
            else 1,
            "lora_slots": (serving.lora_slots or 0) if engine == "vllm" else 0,
            "lora_rank": serving.lora_rank or 16,  # vllm/config/lora.py max_lora_rank default
            "lora_fully_sharded": bool(serving.lora_fully_sharded),
            "max_model_len_auto": False,  # build() sets it where the engine takes auto
        },
        "settings_for",
    )
    if not notes:
        return settings, assumed, derived
    if spec.method == "medusa" and not (resolved.draft and resolved.draft.medusa_heads):
        heads = max(settings.num_speculative_tokens, 1)
        assumed["draft_weights"] = (
            f"{heads} Medusa heads, one per speculative token: the heads' config "
            "(medusa_num_heads) is not known, and vLLM loads every head the checkpoint holds"
        )
    if spec.method == "mtp" and resolved.draft is None and engine == "sglang":
        extra = bytes_quantity(sglang_mtp_vocab_bytes(settings, target)).to("GiB").magnitude
        note = (
            f"the MTP draft's own embed_tokens and lm_head counted ({extra:.2f} GiB per GPU): "
            "SGLang builds them, loads neither and takes the target's only after the load "
            "and the KV pool sizing"
        )
        _add_note(assumed, "draft_weights", note)
    if spec.method == "mtp" and is_gemma4_assistant(resolved.draft):
        _add_note(assumed, "draft_weights", _assistant_note(resolved.draft, settings))
        _add_note(
            assumed,
            "draft_kv",
            "none: every layer of the Gemma 4 assistant is KV-shared, reading the target's "
            "last sliding- and full-attention layers' cache (vLLM wires the assistant to the "
            "target's KV cache, gemma4.py _setup_gemma4_kv_sharing); it keeps none of its own",
        )
    if spec.method in ("eagle", "eagle3") and resolved.draft is not None:
        note = "; ".join(
            n
            for n in (
                _head_note(resolved.draft, resolved.target, settings),
                _eagle3_lm_head_note(resolved.draft, resolved.target, settings),
                _token_map_note(resolved.draft, settings),
            )
            if n
        )
        if note:
            _add_note(assumed, "draft_weights", note)
    return settings, assumed, derived


# the methods whose drafter has a TP size of its own (the target's unless set)
_SEPARATE_DRAFT_METHODS = frozenset((*DRAFT_MODEL_METHODS, *HEAD_METHODS))


@lru_cache(maxsize=64)  # engines.yaml is read once a process
def _release_matters(engine: str) -> bool:
    """Whether the engine's defaults depend on its release (engines.yaml)."""
    defaults = catalog.engine_defaults(engine)
    versioned = defaults["memory_fraction"].get("before") or "v0" in defaults
    return bool(versioned or "derived" in defaults)


def _sglang_vlm_factor(
    resolved: Resolved, defaults: dict, engine_version: str | None, explicit: bool
) -> tuple[float, str]:
    """SGLang's cut to mem_fraction_static for a multimodal model (engines.yaml vlm_fraction):
    a flat factor on any fraction in older releases, later one scaled by the vision tower's
    size and applied to the default only. (1.0, "") when none applies."""
    spec = defaults.get("vlm_fraction")
    if not spec:
        return 1.0, ""
    base = float(spec["base"])
    version = _version(engine_version)
    if version is not None and version < _version(spec["flat_before"]):
        return base, f"mem_fraction_static x {base}: SGLang cuts it for a multimodal model"
    if explicit:
        return 1.0, ""
    tower = resolved.target.vision
    layers = tower.num_hidden_layers or int(spec["default_layers"])
    width = tower.width or int(spec["default_width"])
    ratio = layers * width**2 / (int(spec["default_layers"]) * int(spec["default_width"]) ** 2)
    low, high = (float(v) for v in spec["clamp"])
    factor = base * max(low, min(high, 1.0 - float(spec["sensitivity"]) * (ratio - 1.0)))
    return factor, (
        f"the default x {factor:.3f}: SGLang cuts it for a multimodal model by the size of its "
        f"vision tower ({layers} layers of {width})"
    )


def _in_flight_batches(resolved: Resolved) -> int:
    """The batches whose tokens vLLM keeps in a sliding-window layer beyond its window, per
    request: from 0.26 its SlidingWindowSpec charges min(window - 1 + max_in_flight_tokens,
    max_model_len), max_in_flight_tokens being max_concurrent_batches x max_num_batched_tokens,
    and async scheduling keeps two batches in flight (vllm/v1/kv_cache_interface.py and
    config/vllm.py, read in the 0.26.0-0.34.0 wheels). Async scheduling is on by default there
    but with --no-async-scheduling, a drafter other than EAGLE or MTP (vllm-project/vllm#31998)
    or a recurrent-state model with prefix caching. Read as one batch, the smaller charge:
    pipeline parallelism (its batches in flight follow the stage count) and every
    recurrent-state model."""
    dep = resolved.deployment
    if _release_before("vllm", dep.engine_version, "window_in_flight_since"):
        return 1
    method = dep.speculative.method
    if (
        dep.serving.async_scheduling is False
        or method not in ("none", "eagle", "eagle3", "mtp")
        or (dep.parallel.pipeline or 1) > 1
        or STATE in resolved.target.layer_mixers
    ):
        return 1
    return 2


def _windows_kept_full(resolved: Resolved, s: Settings) -> bool:
    """Whether the engine gives sliding-window layers the whole context: vLLM's V0 engine or
    with its hybrid KV cache manager turned off (kv_cache_utils.unify_hybrid_kv_cache_specs
    makes every window layer a full-attention one), and SGLang for the model types it keeps
    out of its hybrid SWA pool (engines.yaml)."""
    return _windows_kept_full_for(
        s.engine,
        s.engine_version,
        resolved.target.model_type,
        s.legacy_engine or s.disable_hybrid_kv_cache_manager,
        s.speculative_method in ("eagle", "eagle3"),
    )


# keyed on everything the answer reads (engines.yaml is read once a process); every budget and
# what-if asks, and a run has a few engines, releases and model types
@lru_cache(maxsize=1024)
def _windows_kept_full_for(
    engine: str, engine_version: str | None, kind: str, whole_context: bool, eagle: bool
) -> bool:
    defaults = catalog.engine_defaults(engine)
    if whole_context or defaults.get("windows_kept_full"):
        return True  # TGI: every layer holds the whole context
    since = (defaults.get("windows_hybrid_since_by_model_type") or {}).get(kind)
    version = _version(engine_version)
    if since is not None and version is not None and version < _version(since):
        return True  # vLLM before 0.14: Llama 4's chunked layers hold the whole context
    if eagle and kind in (defaults.get("windows_kept_full_with_eagle_model_types") or []):
        return True
    return kind in (defaults.get("windows_kept_full_model_types") or [])


def _head_note(head: Any, target: Any, s: Settings) -> str:
    """What of an EAGLE head's own embedding (and EAGLE-1 lm_head) the draft weights count."""
    method = s.speculative_method
    stores = head_stores(head) - ({"lm_head"} if method == "eagle3" else set())
    shared = head_shared_parts(s, method, head, target)
    release = f"{s.engine} {s.engine_version}" if s.engine_version else f"the newest {s.engine}"
    if s.engine == "sglang":
        size = head.vocab_size * head.hidden_size / s.draft_tensor_parallel
        gib = size * catalog.dtype_bytes(head.dtype) / 2**30
        return (
            f"the head's own embed_tokens counted ({gib:.2f} GiB per GPU): {release} builds "
            "one whatever the head stores and takes the target's only after the load"
        )
    if stores & shared:
        names = " and ".join(sorted(stores & shared))
        extra = len(stores & shared) * head.vocab_size * head.hidden_size / s.draft_tensor_parallel
        gib = extra * catalog.dtype_bytes(s.dtype) / 2**30
        window = catalog.engine_defaults(s.engine).get("eagle_shares_target_embeddings") or {}
        version = _version(s.engine_version)
        if s.engine == "vllm" and (version is None or version >= _version(window["before"])):
            return (
                f"the head's stored {names} not counted: {release} uses the target's when they "
                f"are equal bit for bit, as the frozen copy published heads save; a head "
                f"trained with {names} of its own keeps them, {gib:.2f} GiB more per GPU"
            )
        return f"the head's stored {names} not counted: {release} uses the target's"
    if stores:
        names = " and ".join(sorted(stores))
        return f"the head's own {names} counted ({release} loads what the head stores)"
    if head.checkpoint is not None and head.checkpoint.groups:
        return "the head's layers only: it stores no embed_tokens, so it uses the target's"
    return (
        "the head's layers only, on the target's embedding: hbmlint does not know whether the "
        "head stores embed_tokens of its own (its safetensors headers would say)"
    )


def _eagle3_lm_head_note(head: Any, target: Any, s: Settings) -> str:
    """What the draft weights count of an EAGLE-3 head's lm_head where that is the engine's or
    the head's call: it is over the whole vocabulary (a reduced one is always the head's own)."""
    rows = head.draft_vocab_size or head.vocab_size
    if s.speculative_method != "eagle3" or rows != target.vocab_size:
        return ""
    release = f"{s.engine} {s.engine_version}" if s.engine_version else f"the newest {s.engine}"
    gib = rows * head.hidden_size / s.draft_tensor_parallel * catalog.dtype_bytes(head.dtype)
    size = f"{rows:,} tokens, {gib / 2**30:.2f} GiB per GPU"
    if s.engine == "sglang":
        return (
            f"the head's lm_head counted ({size}): SGLang builds it and takes the target's, "
            "where it does, only after the draft worker's load"
        )
    stored = eagle3_stores_lm_head(head)
    rule = catalog.engine_defaults(s.engine).get("eagle3_lm_head_from_target")
    if not rule:
        return ""
    if eagle3_lm_head_shared(s, head, target):
        version = _version(s.engine_version)
        if version is not None and version < _version(rule["checkpoint_since"]):
            why = "one of the same shape"
        elif stored is False:
            why = "the head stores none"
        else:
            why = "the head's is a copy of it, its card says"
        return f"the head's lm_head not counted ({size}): {release} uses the target's ({why})"
    if stored is None:
        return (
            f"the head's own lm_head counted ({size}): {release} uses the target's where the "
            "head stores none, which its safetensors headers would say"
        )
    return f"the head's own lm_head counted ({size}): {release} keeps it"


def _token_map_note(head: Any, s: Settings) -> str:
    """What the draft weights count for the lm_head an engine builds an EAGLE head (SGLang's
    --speculative-token-map, FR-Spec); "" where nothing needs saying."""
    mapped = bool(s.draft_token_map or s.draft_hot_vocab)
    if s.engine != "sglang":
        return "hot_vocab_size is SGLang's (--speculative-token-map): not applied" if mapped else ""
    if s.speculative_method == "eagle3":
        vocab = head.draft_vocab_size or head.vocab_size
        return (
            f"SGLang ignores --speculative-token-map for an EAGLE-3 head: its lm_head keeps the "
            f"head's own {vocab:,} tokens"
            if mapped
            else ""
        )
    rows = sglang_eagle_lm_head(s, s.speculative_method, head)
    if rows is None:
        return ""
    gib = rows * head.hidden_size / s.draft_tensor_parallel * catalog.dtype_bytes(head.dtype)
    size = f"{rows:,} tokens, {gib / 2**30:.2f} GiB per GPU"
    if not mapped:
        return (
            f"SGLang builds the head an lm_head of its own over the whole vocabulary ({size}) "
            "before it takes the target's; --speculative-token-map cuts it to the hot tokens"
        )
    if head.model_type != "llama":
        return (
            f"SGLang's {head.model_type or 'non-Llama'} EAGLE head builds its lm_head over the "
            f"whole vocabulary ({size}), token map or not; only the Llama head takes the map's size"
        )
    if s.draft_hot_vocab:
        return f"SGLang builds the head's lm_head over the token map's hot tokens ({size})"
    return (
        f"the token map's size is not known (its file name gives none): the head's lm_head is "
        f"counted over the whole vocabulary ({size}), the most it can be"
    )


# GPUs before Ampere (compute capability < 8.0) have no bfloat16.
_PRE_AMPERE = ("T4", "V100", "P100", "P40", "P4-", "K80", "QUADRO-RTX", "RTX-8000", "RTX-6000-24")


def _no_bfloat16(gpu_name: str) -> bool:
    name = gpu_name.upper().replace(" ", "-")
    return name.startswith(_PRE_AMPERE)


def weights_source(arch: Any, quantization: str | None, dtype: str | None) -> str:
    """Where a model's weight figure comes from, for a model read beyond the catalog."""
    stored = arch.checkpoint
    where = stored.origin + (f" @{stored.revision[:12]}" if stored.revision else "")
    if arch.stored_weights_apply(quantization, dtype):
        total = stored.stored_bytes / 2**30
        return (
            f"stored checkpoint tensors ({total:,.2f} GiB in all, safetensors headers from {where})"
        )
    if stored.groups:
        why = "the deployment quantizes it differently from how it is stored"
    elif stored.total_size:
        stored_gib = stored.total_size / 2**30
        why = f"no safetensors headers read; its index says {stored_gib:,.2f} GiB stored"
    else:
        why = "no safetensors index or headers available"
    return f"parameter arithmetic from config.json ({why}; {where})"


def build(resolved: Resolved, notes: bool = True) -> Budget:
    """The budget of a resolved deployment, with engine defaults filled in. Without ``notes``
    the budget's ``assumed`` (which defaults were assumed, and why) is written when something
    first reads it, from the same inputs: a lint that keeps no budget reads none, and writing
    them was a tenth of the budget's cost."""
    given = resolved
    resolved = _vllm_state_dtype(_text_only(resolved))
    settings, assumed, derived = _settings_for(resolved, notes)
    budget = compute(resolved, settings, assumed)
    fits = derived.get("fits")
    serving = resolved.deployment.serving
    unset = serving.max_model_len is None
    if unset and serving.max_model_len_auto and settings.engine == "vllm":
        since = catalog.engine_defaults(settings.engine).get("max_model_len_auto_since")
        version = _version(settings.engine_version)
        if since is not None and version is not None and version < _version(since):
            budget.assumed["max_model_len"] = (
                f"{settings.max_model_len} (--max-model-len auto: vLLM {settings.engine_version} "
                f"does not take it, {since} and later do; the model's length)"
            )
        else:
            fits = "--max-model-len auto takes min(the model's length, what fits in the KV cache)"
            settings = _changed(settings, {"max_model_len_auto": True})
            cap = serving.max_model_len_cap
            if cap and cap < settings.max_model_len:
                assumed["max_model_len"] = f"{cap} (--max-model-len auto, --max-model-len-cap)"
                settings = _changed(settings, {"max_model_len": int(cap)})
            budget = compute(resolved, settings, assumed)
    tokens = int(budget.kv_tokens.magnitude)
    if fits and unset and 0 < tokens < settings.max_model_len:
        # the engine lowers its longest sequence to what the KV cache holds
        assumed["max_model_len"] = (
            f"{tokens} ({fits}: the model's {settings.max_model_len} does not fit)"
        )
        budget = compute(resolved, _changed(settings, {"max_model_len": tokens}), assumed)
    return budget if notes else _notes_later(budget, None, given, None)


def _text_only(resolved: Resolved) -> Resolved:
    """vLLM told to serve text only (--language-model-only, or --limit-mm-per-prompt 0 for
    every modality of the vision tower: image, and video where the tower takes frames) builds
    no vision tower and skips the encoder's profile run (engines.yaml
    mm_zero_tower_skipped_since, language_model_only_since). The budget then counts the
    language model alone."""
    dep, target = resolved.deployment, resolved.target
    serving = dep.serving
    if target.vision is None or dep.engine not in ("vllm", "sglang"):
        return resolved
    if dep.engine == "sglang":
        # --language-only (encoder disaggregation: encoder servers run the tower) or
        # --language-model-only: the model is built without the tower (a release without the
        # flags refuses them), but the config still has its vision_config, so SGLang's cut to
        # the default fraction for a multimodal model (adjust_mem_fraction_for_vlm) and its
        # multimodal reserve stay: only the tower's weights go (the vision shape is kept).
        # sgl-project/sglang@001067ff server_args.py; Qwen3-VL test_language_only_*
        if not serving.language_model_only:
            return resolved
        tower_gone = _without_tower(
            resolved, "--language-only: SGLang builds no vision tower", profiled=True
        )
        target = replace(tower_gone.target, vision=target.vision)
        return replace(tower_gone, target=target)
    modalities = {"image", "video"} if target.vision.temporal > 1 else {"image"}
    how, key = "--language-model-only", "language_model_only_since"
    if not serving.language_model_only:
        if not modalities <= set(serving.mm_zero_limits or ()):
            return resolved
        how = f"--limit-mm-per-prompt 0 for {' and '.join(sorted(modalities))}"
        key = "mm_zero_tower_skipped_since"
    since = catalog.engine_defaults("vllm").get(key)
    version = _version(dep.engine_version)
    if since is not None and version is not None and version < _version(since):
        return resolved  # an older release: its models may build the tower all the same
    return _without_tower(resolved, f"{how}: vLLM builds no vision tower")


def _vllm_state_dtype(resolved: Resolved) -> Resolved:
    """vLLM's --mamba-ssm-cache-dtype (or --mamba-cache-dtype): the SSM state in that dtype
    instead of the config's mamba_ssm_dtype or the model dtype; without the flag, a Nemotron-H
    checkpoint's own mamba_ssm_cache_dtype from the release that reads it (engines.yaml
    nemotron_h_ssm_cache_dtype_since)."""
    dep, target = resolved.deployment, resolved.target
    if dep.engine != "vllm" or not target.state_ssm_elements:
        return resolved
    wanted = getattr(dep.serving, "mamba_ssm_dtype", None)
    how = "--mamba-ssm-cache-dtype"
    if not wanted and target.state_ssm_cache_dtype and target.model_type == "nemotron_h":
        since = catalog.engine_defaults("vllm").get("nemotron_h_ssm_cache_dtype_since")
        version = _version(dep.engine_version)
        if since is None or version is None or version >= _version(since):
            wanted, how = target.state_ssm_cache_dtype, "config.json mamba_ssm_cache_dtype"
    if not wanted:
        return resolved
    assumed = {**resolved.assumed, "mamba_ssm_dtype": f"{wanted} ({how})"}
    return replace(resolved, target=replace(target, state_ssm_dtype=wanted), assumed=assumed)


def _without_tower(resolved: Resolved, why: str, profiled: bool = False) -> Resolved:
    target = resolved.target
    gib = (target.vision_params * catalog.dtype_bytes(target.dtype)) / 2**30
    assumed = dict(resolved.assumed)
    how = "not loaded" if profiled else "not loaded and not profiled"
    assumed["vision_tower"] = f"{how} ({why}; about {gib:.2f} GiB of tower weights left out)"
    return replace(resolved, target=target.without_vision(), assumed=assumed)


# --- defaults that depend on the engine's release, the GPU and the model ----------------------


def _derived_entry(defaults: dict, engine_version: str | None) -> dict | None:
    """The engine's `derived` entry (engines.yaml) for this release; the newest when the
    manifest names no release."""
    entries = defaults.get("derived") or []
    version = _version(engine_version)
    for entry in entries:
        if "before" not in entry:
            return entry
        if version is not None and version < _version(entry["before"]):
            return entry
    return None


def _derived_defaults(resolved: Resolved, entry: dict | None) -> dict[str, Any]:
    """Defaults computed as the engine computes them: {"fraction": (value, why), ...};
    ``entry``: the release's `derived` entry (_derived_entry)."""
    if entry is None:
        return {}
    dep = resolved.deployment
    release = f"{dep.engine} {dep.engine_version}" if dep.engine_version else f"newest {dep.engine}"
    if dep.engine == "sglang":
        return _sglang_defaults(resolved, entry, release)
    if dep.engine == "tgi":
        return _tgi_defaults(resolved, entry, release)
    return {}


def _tier(table: list, value: float, scale: float = 1) -> list:
    """The first row of ``table`` whose limit (its first item, None: no limit) is above
    ``value``."""
    return next(row for row in table if row[0] is None or value < row[0] * scale)


def _sglang_defaults(resolved: Resolved, entry: dict, release: str) -> dict[str, Any]:
    """SGLang's mem_fraction_static and chunked_prefill_size when unset (server_args.py)."""
    gpu_mib = float(_gpu_memory(resolved.gpu, "MiB").magnitude)
    tp, pp = resolved.tensor_parallel, resolved.pipeline_parallel
    method = resolved.deployment.speculative.method
    drafting = method not in (None, "", "none", "ngram", "suffix", "prompt_lookup")
    parallel = resolved.deployment.parallel
    attention_dp = (parallel.data or 1) if parallel.dp_attention else 0  # its DP size; 0: off
    # A prefill worker captures no decode graphs: SGLang 0.5.23 adds no DP graph reserve for it.
    # Left out for every release (an older one may add it): that overstates the pool, never
    # claims a refusal that does not happen.
    prefill_worker = resolved.deployment.serving.disaggregation_mode == "prefill"
    # (DP attention SGLang turns on itself for a model, dp_attention.forced_data, comes after
    # these defaults in server_args.py __post_init__ at v0.5.3-v0.5.6: not counted here)
    out: dict[str, Any] = {}
    if "fraction_by_tp" in entry:
        fraction = _tier_at_least(entry["fraction_by_tp"], tp)
        chunked = int(_tier(entry["chunked"], gpu_mib)[1])
        why = f"{release}: mem_fraction_static for TP {tp}"
    elif "reserved_gib" in entry:
        _, base, per = _tier(entry["reserved_gib"], gpu_mib, 1024)
        reserved = (float(base) + tp * pp * float(per)) * 1024
        reserved += float(entry.get("speculative_gib", 0)) * 1024 if drafting else 0
        reserved += float(entry.get("dp_attention_gib", 0)) * 1024 if attention_dp else 0
        fraction = round((gpu_mib - reserved) / gpu_mib, 3)
        chunked = int(_tier(entry["chunked"], gpu_mib)[1])
        why = f"{release}: (GPU {gpu_mib:.0f} MiB - {reserved:.0f} MiB reserved) / GPU"
        why += " (4 GiB of it for DP attention)" if attention_dp else ""
    else:
        _, chunked, small, large = _tier(entry["tiers"], gpu_mib)
        graphs = small if tp < 4 else large
        # SGLang fills in its defaults first, so a chunked prefill size or a largest CUDA graph
        # batch set on the command line is what the reservation counts
        serving = resolved.deployment.serving
        chunked = serving.max_num_batched_tokens or chunked
        explicit_graphs = getattr(serving, "cuda_graph_max_bs", None)
        graphs = explicit_graphs or graphs
        if entry.get("decode_graphs_capped_by_running") and not explicit_graphs:
            # a default largest decode graph above --max-running-requests comes down to it
            graphs = min(graphs, serving.max_num_seqs or graphs)
        reserved = 512 + max(chunked, 2048) * 1.5 + graphs * 2 + tp * pp / 8 * 1024
        if "piecewise_graph_sizes" in entry and not resolved.deployment.serving.enforce_eager:
            if "mla_prefill_graph_mib" in entry and resolved.target.is_mla:
                # an MLA attention backend: a flat reserve, whatever the graph sizes
                reserved += float(entry["mla_prefill_graph_mib"])
            else:
                sizes = int(_tier(entry["piecewise_graph_sizes"], chunked)[1] if chunked else 0)
                reserved += sizes * float(entry["piecewise_mib_each"])
        if attention_dp and not prefill_worker and "dp_attention_graph_mib" in entry:
            per, more, over = entry["dp_attention_graph_mib"]
            reserved += graphs * attention_dp * (per + (more if graphs > over else 0))
        above, floor = entry["floor_above"]
        if gpu_mib > above:
            reserved = max(reserved, floor)
        if drafting and "speculative_mib" in entry:
            extra = entry["speculative_mib"]
            reserved += extra.get(method, extra["default"])
        fraction = round((gpu_mib - reserved) / gpu_mib, 3)
        why = (
            f"{release}: (GPU {gpu_mib:.0f} MiB - {reserved:.0f} MiB reserved for activations "
            "and CUDA graphs) / GPU"
        )
        if attention_dp and not prefill_worker and "dp_attention_graph_mib" in entry:
            why += f" (DP attention: {graphs} graph batches x DP {attention_dp} of the reserve)"
    out["fraction"] = (fraction, why)
    out["batched"] = (int(chunked), f"{release}: chunked_prefill_size for this GPU's memory")
    mpe = resolved.target.max_position_embeddings or 4096
    out["max_model_len"] = (mpe, f"{release}: --context-length unset, the model's own")
    return out


def _tier_at_least(table: list, value: int) -> float:
    return float(next(share for least, share in table if value >= least))


def _tgi_defaults(resolved: Resolved, entry: dict, release: str) -> dict[str, Any]:
    """TGI's --max-total-tokens and --max-batch-prefill-tokens when unset, and the KV block of
    the attention backend it picks (launcher; catalog/tgi_warmup.py)."""
    from .catalog import tgi_warmup

    spec = catalog.engine_defaults("tgi")
    version = resolved.deployment.engine_version
    mpe = resolved.target.max_position_embeddings or 4096
    out: dict[str, Any] = {}
    _, block, why = tgi_warmup.attention(spec, version, resolved.target, resolved.gpu)
    out["block_size"] = (block, why)
    if "max_total_tokens" in entry:
        total = int(entry["max_total_tokens"])
        out["max_model_len"] = (total, f"{release}: --max-total-tokens default")
        prefill = int(entry["max_batch_prefill_tokens"])
        out["batched"] = (prefill, f"{release}: --max-batch-prefill-tokens default")
    elif "max_total_tokens_cap" in entry:
        total = min(mpe, int(entry["max_total_tokens_cap"]))
        out["max_model_len"] = (
            total,
            f"{release}: min(max_position_embeddings, {entry['max_total_tokens_cap']})",
        )
        # --max-input-tokens defaults to that cap less one (launcher/src/main.rs, v2.0.0-v2.4.0)
        max_input = resolved.deployment.serving.max_input_tokens or total - 1
        prefill = max_input + int(entry["prefill_over_input"])
        out["batched"] = (prefill, f"{release}: max_input_tokens + {entry['prefill_over_input']}")
    else:
        out["max_model_len"] = (mpe, f"{release}: the model's max_position_embeddings, or less")
        out["fits"] = f"{release} takes min(max_position_embeddings, what fits in the KV cache)"
        prefill = min(int(entry["max_batch_prefill_tokens"]), mpe)
        out["batched"] = (prefill, f"{release}: min(4096, max_position_embeddings)")
        fraction = resolved.deployment.serving.gpu_memory_utilization
        optimal = tgi_warmup.prefill_default(
            spec,
            version,
            resolved.target,
            resolved.gpu.name,
            float(_gpu_memory(resolved.gpu, "byte").magnitude),
            resolved.tensor_parallel,
            float(spec["memory_fraction"]["default"] if fraction is None else fraction),
        )
        if optimal is not None:
            out["batched"] = optimal
        why = tgi_warmup.no_prefill_chunking(spec, resolved.target, block, resolved.deployment)
        if why:
            # then max_total_tokens is the warm-up batch's length: its prefill tokens
            prefill = resolved.deployment.serving.max_num_batched_tokens or out["batched"][0]
            out["max_model_len"] = (
                prefill,
                f"{release}: no prefill chunking ({why}), so the "
                "warm-up's max_batch_prefill_tokens",
            )
            del out["fits"]
    return out


def overhead_bytes(resolved: Resolved, s: Settings, group: Any) -> dict[str, Any]:
    """Non-torch memory, the activation peak of the profile run and CUDA graphs, per GPU, in
    bytes; ``group``: nvswitch_group_bytes."""
    target = resolved.target
    figures = _overhead_figures(s.engine, s.engine_version, s.legacy_engine)
    tp = s.tensor_parallel
    non_torch = (
        figures.non_torch_tp1 if tp * s.pipeline_parallel == 1 else figures.non_torch_tp_many
    )
    if group > 0 and figures.meaning != "weights_and_kv_of_total":
        # SGLang's is charged where its pool is sized, as memory not free at start
        non_torch = figures.non_torch_tp1 + group
    # The profile run's peak is the larger of two moments, not their sum: the forward pass of
    # max_num_batched_tokens tokens (the MLP's intermediate activations are the widest), and
    # the dummy sampler run after it, which turns one token per sequence into fp32 logits over
    # the vocabulary plus probabilities and, up to vLLM 0.11, the sort/top-k copies (~39 bytes
    # a logit; ~14 in the 0.17 and 0.19 logs: engines.yaml overhead_since).
    sampled = min(s.max_num_seqs, s.max_num_batched_tokens)
    if figures.context_requests:
        # TensorRT-LLM's profile: dummy context requests of min(batched, max_model_len) tokens
        # filling max_num_batched_tokens, one sampled token each (engines.yaml)
        sampled = math.ceil(
            s.max_num_batched_tokens / min(s.max_num_batched_tokens, s.max_model_len)
        )
    dense = catalog.dtype_bytes(s.dtype)
    mlp = figures.mlp_factor * target.active_intermediate_size / tp
    forward = s.max_num_batched_tokens * mlp * dense
    # the rejection sampler's rows on top (engines.yaml overhead verify_rows): not k-dependent,
    # the profile gives every request one draft token
    speculating = s.speculative_method not in ("none", "") and s.num_speculative_tokens > 0
    verify = figures.verify_rows * dense if speculating else 0.0
    sampler = sampled * target.vocab_size * (figures.logit_bytes + verify)
    activation = max(forward, sampler)
    if figures.prefill_logit_bytes is not None:
        # TGI's warm-up before 3.0: logprobs over every prefill token
        prefill = s.max_num_batched_tokens * target.vocab_size * figures.prefill_logit_bytes
        activation = max(activation, prefill)
    if target.vision is not None:
        video = _qwen3_vl_video(target, s, resolved.deployment.serving.mm_zero_limits)
        if video is not None:
            # the one modality vLLM profiles: its encoder outputs held through the language
            # model's dummy pass and the sampler's
            factor = figures.vision_mlp_factor or figures.mlp_factor
            activation = _video_profile(target, s, video, factor, activation)
        else:
            activation = max(
                activation,
                _vision_profile(target, s, figures.mlp_factor, figures.vision_mlp_factor),
            )
    if s.engine == "tgi" and target.vision is not None:
        dense_prefill = _tgi_dense_prefill(resolved, s)
        if dense_prefill is not None:
            # Gemma 3's warm-up prefill through dense SDPA: a moment of its own, in the
            # attention, while the MLP's intermediates are not held
            activation = max(activation, dense_prefill[0])
    overhead = {"non_torch": non_torch, "activation": activation}
    if not s.enforce_eager and figures.graphs_in_budget:
        overhead["cuda_graphs"] = graph_profile_bytes(s)
    if s.extensible_kv_cache:
        # vLLM 0.34's KV cache takes min(fraction x card - the rest, what is free after warm-up
        # less its margin) less the peak: the margin beyond what the fraction leaves free
        total = float(_gpu_memory(resolved.gpu, "byte").magnitude)
        free = total - _extensible_held(resolved)
        kept = _extensible_margin(resolved, activation) - (
            free - min(total * s.memory_fraction, free)
        )
        if kept > 0:
            overhead["margin"] = kept
    return overhead


class _OverheadFigures:
    """What overhead_bytes reads of an engine release's overhead constants (engines.yaml
    `overhead`, as overhead_constants gives them) and of its release boundaries, as plain
    numbers. A plain class, not a record: a dataclass compiles its methods at import, which
    every run's start-up would pay."""

    __slots__ = (
        "meaning",  # fraction_meaning
        "non_torch_tp1",
        "non_torch_tp_many",
        "context_requests",  # sampled_sequences: context_requests (TensorRT-LLM)
        "mlp_factor",
        "vision_mlp_factor",
        "logit_bytes",
        "verify_rows",
        "prefill_logit_bytes",  # None: the release keeps no prefill logprobs
        "graphs_in_budget",  # _graphs_in_budget_for
    )

    def __init__(self, **figures: Any) -> None:
        for name in self.__slots__:
            setattr(self, name, figures.pop(name))
        if figures:
            raise TypeError(f"_OverheadFigures: unknown {', '.join(sorted(figures))}")


# keyed on everything the figures read (engines.yaml is read once a process): every budget and
# what-if asks, and a run has a few engines and releases
@lru_cache(maxsize=256)
def _overhead_figures(engine: str, engine_version: str | None, legacy: bool) -> _OverheadFigures:
    spec = _overhead_constants(engine, engine_version, legacy)
    prefill = "prefill_logit_bytes" in spec and _release_before(
        engine, engine_version, "prefill_logprobs_before"
    )
    return _OverheadFigures(
        meaning=fraction_meaning(engine),
        non_torch_tp1=spec[_PARSED + "non_torch_tp1"],
        non_torch_tp_many=spec[_PARSED + "non_torch_tp_many"],
        context_requests=spec.get("sampled_sequences") == "context_requests",
        mlp_factor=float(spec["mlp_factor"]),
        vision_mlp_factor=float(spec.get("vision_mlp_factor", spec["mlp_factor"])),
        logit_bytes=float(spec["logit_bytes"]),
        verify_rows=float(spec.get("verify_rows", 0)),
        prefill_logit_bytes=float(spec["prefill_logit_bytes"]) if prefill else None,
        graphs_in_budget=_graphs_in_budget_for(engine, engine_version),
    )


def nvswitch_group_bytes(gpu: Any, s: Settings) -> Any:
    """The device memory, in bytes, a tensor-parallel group's communicators take on an NVLink
    switch board beyond a single GPU's non-torch memory (engines.yaml multi_gpu): 0 elsewhere,
    where the engine's flat multi-GPU figure stands."""
    if s.tensor_parallel < 2:
        return 0
    perf = getattr(gpu, "performance", None)
    if perf is None:
        return 0
    key = (s.engine,)
    # every budget, what-if and KV band asks: worked out once per engine and GPU datasheet
    found = _NVSWITCH_GROUPS.find(perf, key)
    if found is NOT_KEPT:
        found = _NVSWITCH_GROUPS.keep(perf, key, _nvswitch_group(s.engine, perf, gpu.name))
    return found


_NVSWITCH_GROUPS = IdentityMemo(limit=256)


def _nvswitch_group(engine: str, perf: Any, name: str) -> Any:
    """nvswitch_group_bytes on GPU ``name`` with datasheet figures ``perf``, in a group of two
    or more (or the PCIe P2P group figure of the cards engines.yaml names)."""
    spec = catalog.engine_defaults(engine).get("multi_gpu") or {}
    if "nvswitch_group" not in spec:
        return 0
    least = _catalog_quantity(spec["nvswitch_min_nvlink"], "[information] / [time]")
    if perf.nvlink is None or perf.nvlink < least:
        if name in (spec.get("pcie_p2p_gpus") or ()):
            return in_bytes(_catalog_quantity(spec["pcie_p2p_group"], "[information]"))
        return 0
    return in_bytes(_catalog_quantity(spec["nvswitch_group"], "[information]"))


@lru_cache(maxsize=256)  # keyed on the text itself; quantities are never changed in place
def _catalog_quantity(text: str, dimension: str) -> Any:
    """A quantity engines.yaml writes ("1.8 GiB"), parsed once: every budget and KV band asks."""
    return parse_quantity(text, dimension)


def graph_profile_bytes(s: Settings) -> float:
    """CUDA graph memory in the budget: vLLM's profile estimate from the graphs the settings
    capture (cudagraphs.py, engines.yaml cuda_graph_profile); other engines' constant."""
    profile = _graph_constants(s.engine)
    if profile is None or s.legacy_engine:
        spec = _overhead_constants(s.engine, s.engine_version, s.legacy_engine)
        return float(spec[_PARSED + "cuda_graphs"])
    k = s.num_speculative_tokens if s.speculative_method not in ("", "none") else 0
    return _graph_bytes(
        profile,
        s.max_num_seqs,
        s.max_num_batched_tokens,
        k,
        s.cudagraph_max_capture_size,
        s.cudagraph_capture_sizes,
        s.cudagraph_mode,
    )


@lru_cache(maxsize=1024)  # every budget and what-if asks; a run has a few batch shapes
def _graph_bytes(
    profile: tuple[float, float],
    max_num_seqs: int,
    max_num_batched_tokens: int,
    speculative_tokens: int,
    max_capture_size: int | None,
    capture_sizes: tuple[int, ...] | None,
    mode: str | None,
) -> float:
    sizes = cudagraphs.capture_sizes(
        max_num_seqs, max_num_batched_tokens, speculative_tokens, max_capture_size, capture_sizes
    )
    counts = cudagraphs.graph_counts(sizes, mode, max_num_seqs, speculative_tokens)
    return cudagraphs.profile_estimate(counts, *profile)


@lru_cache(maxsize=16)
def _graph_constants(engine: str) -> tuple[float, float] | None:
    """engines.yaml cuda_graph_profile in bytes (first capture, per graph), parsed once."""
    profile = catalog.engine_defaults(engine).get("cuda_graph_profile")
    if profile is None:
        return None
    first, per = (
        float(parse_quantity(profile[key], "[information]").to("byte").magnitude)
        for key in ("first_capture", "per_graph")
    )
    return first, per


def overhead_constants(s: Settings) -> dict[str, Any]:
    """The engine's overhead constants for this release: engines.yaml `overhead`, updated by
    each `overhead_since` entry the release has reached. A settings without a release number
    gets the newest; the V0 engine keeps the base values."""
    spec = _overhead_constants(s.engine, s.engine_version, s.legacy_engine)
    return {k: v for k, v in spec.items() if not k.startswith(_PARSED)}


@lru_cache(maxsize=256)  # a few engines and releases a run; every budget and what-if asks
def _overhead_constants(engine: str, engine_version: str | None, legacy: bool) -> dict[str, Any]:
    defaults = catalog.engine_defaults(engine)
    spec = dict(defaults["overhead"])
    version = _version(engine_version)
    if not legacy:
        for since, changes in sorted(
            (defaults.get("overhead_since") or {}).items(), key=lambda item: _version(item[0])
        ):
            if version is None or version >= _version(since):
                spec.update({k: v for k, v in changes.items() if k != "source"})
    # the memory sizes, parsed once (units checked on the way in), in bytes
    for key in ("non_torch_tp1", "non_torch_tp_many", "cuda_graphs"):
        if key in spec:
            spec[_PARSED + key] = in_bytes(parse_quantity(spec[key], "[information]"))
    return spec


_PARSED = "parsed:"  # the key prefix of overhead_constants' parsed memory sizes


def _vision_profile(
    target: Any, s: Settings, mlp_factor: float, encoder_factor: float | None = None
) -> float:
    """The profile run's peak for a multimodal model: vLLM feeds the vision encoder dummy
    images of the largest size. Decoder-only models get as many as the batch holds (at least
    one); the V0 encoder-decoder runner (cross-attention models: Llama 3.2 Vision) gives every
    one of max_num_seqs dummy sequences an image. The peak is the larger of the encoder's own
    MLP pass over all patches and the language model's forward pass with the float32 pixel
    values and the image embeddings still held. From vLLM 0.18 (engines.yaml
    vision_full_image_since) the dummy image has its largest size whatever max_model_len is:
    the 0.18.1 logs of Qwen3.5 profile "1 image items of the maximum feature size" (16,384
    tokens) with max_model_len 1,024."""
    tower = target.vision
    since = catalog.engine_defaults(s.engine).get("vision_full_image_since")
    capped = s.legacy_engine or since is None or _before(s, "vision_full_image_since")
    length = s.max_model_len if capped else None
    patches_per_image = tower.image_patches(length)
    tokens_per_image = tower.image_tokens(length)
    if tower.cross_attention and s.legacy_engine:
        images = s.max_num_seqs
    else:
        budget = max(s.max_num_batched_tokens, tokens_per_image)
        images = max(1, min(s.max_num_seqs, budget // tokens_per_image))
    dtype = catalog.dtype_bytes(s.dtype)
    tp = s.tensor_parallel
    patches = images * patches_per_image
    pixels = patches * tower.pixel_bytes_per_patch
    embeddings = images * tokens_per_image * target.hidden_size * dtype
    factor = mlp_factor if encoder_factor is None else encoder_factor
    encoder = patches * factor * tower.intermediate / tp * dtype
    forward = s.max_num_batched_tokens * mlp_factor * target.active_intermediate_size / tp * dtype
    return max(encoder + pixels, forward + pixels + embeddings)


class _VideoDummy:
    """The dummy video vLLM profiles a Qwen3-VL tower with (engines.yaml qwen3_vl_video_dummy):
    ``tokens`` its language-model tokens, ``counted`` what vLLM counts them as (x 12.5),
    ``items`` how many the profile feeds, ``padded`` the tokens each held output is padded to
    with zeros."""

    __slots__ = ("counted", "items", "padded", "tokens")

    def __init__(self, tokens: int, counted: int, items: int, padded: int) -> None:
        self.tokens, self.counted, self.items, self.padded = tokens, counted, items, padded


def _qwen3_vl_video(target: Any, s: Settings, zero: tuple[str, ...] | None) -> Any:
    """The dummy video of vLLM 0.11-0.12's profile run for a Qwen3-VL tower, or None where the
    release, the model or --limit-mm-per-prompt (video 0) leaves the image profiled."""
    tower = target.vision
    if tower is None or s.engine != "vllm" or s.legacy_engine or tower.temporal <= 1:
        return None
    if "video" in (zero or ()):
        return None  # vLLM leaves a modality limited to 0 out of the profile
    spec = catalog.engine_defaults("vllm").get("qwen3_vl_video_dummy") or {}
    version = _version(s.engine_version)
    if not spec or tower.family not in spec.get("model_types", ()) or version is None:
        return None  # a manifest naming no release runs the newest, which counts no x 12.5
    if not _version(spec["since"]) <= version < _version(spec["before"]):
        return None
    tokens = int(spec["max_pixels"]) // (tower.temporal * tower.patch * tower.patch * tower.merge)
    counted = int(tokens * float(spec["token_factor"]))
    image = "image" not in (zero or ()) and tower.image_tokens(None) or 0
    if counted <= image:
        return None
    # MultiModalBudget: the encoder budget and how many items of it the profile feeds
    budget = max(s.max_num_batched_tokens, counted)
    per_prompt = max(1, s.max_model_len // counted)
    items = max(1, min(budget // counted, s.max_num_seqs * per_prompt))
    padded = counted if version >= _version(spec["padded_to_item_since"]) else budget
    return _VideoDummy(tokens, counted, items, max(padded, tokens))


def _video_profile(target: Any, s: Settings, video: Any, factor: float, held_over: float) -> float:
    """The profile run's peak when vLLM profiles a dummy video (_qwen3_vl_video): the larger of
    the encoder's MLP pass over the video's patches (with its float32 pixels), and the
    outputs padded with zeros and the pixels held while the language model's dummy pass and
    the sampler's run (``held_over``: the larger of those two)."""
    tower = target.vision
    dtype = catalog.dtype_bytes(s.dtype)
    patches = video.items * video.tokens * tower.merge
    pixels = patches * tower.pixel_bytes_per_patch
    width = tower.out_width or target.hidden_size
    held = video.items * video.padded * width * dtype
    encoder = patches * factor * tower.intermediate / s.tensor_parallel * dtype
    return max(encoder + pixels, held + pixels + held_over)


def _video_note(resolved: Resolved, s: Settings) -> str | None:
    """What the budget says of the dummy video of vLLM's profile run, where one is counted."""
    video = _qwen3_vl_video(resolved.target, s, resolved.deployment.serving.mm_zero_limits)
    if video is None:
        return None
    width = resolved.target.vision.out_width or resolved.target.hidden_size
    return (
        f"vLLM {s.engine_version} profiles the encoder with {video.items} dummy video of "
        f"{video.tokens:,} tokens, counted as {video.counted:,} (Qwen3-VL's x 12.5 in 0.11-0.12), "
        f"its output padded with zeros to {video.padded:,} x {width:,} and held through the "
        "profile; the video processor's default max pixels (24576 x 32 x 32) assumed, and a "
        "short max_model_len may stop vLLM's frame search at ~1.5% fewer tokens. "
        "--limit-mm-per-prompt '{\"video\": 0}' profiles the image instead"
    )


def _add_note(assumed: dict[str, str], key: str, note: str) -> None:
    """Say ``note`` in ``assumed[key]``, after what it says already."""
    before = assumed.get(key)
    assumed[key] = f"{before}; {note}" if before else note


# The settings _target_side reads, and so what a what-if must leave unchanged to take its base
# budget's side (compute_from): the drafter's settings are not among them, and most what-ifs
# change only those (no drafter, an n-gram one, another draft quantization or KV dtype).
_SIDE_SETTINGS = (
    "engine",
    "engine_version",
    "tensor_parallel",
    "pipeline_parallel",
    "attention_data_parallel",
    "whole_parts",
    "quantization",
    "dtype",
    "expert_parallel",
    "redundant_experts",
    "cpu_offload_gib",
    "lora_slots",
    "lora_rank",
    "lora_fully_sharded",
    "kv_cache_dtype",
)
_SIDE_NAMES = frozenset(_SIDE_SETTINGS)


def _vllm_mxfp4_marlin(target: Any, s: Settings, gpu: Any) -> Any:
    """The weight format vLLM lays MXFP4 experts out in on a GPU below Hopper (the Marlin
    kernel's: engines.yaml mxfp4_marlin), or None where quantization.yaml's layout holds."""
    if s.engine != "vllm" or not target.num_experts:
        return None
    fmt = catalog.weight_format(s.quantization, target)
    capability = getattr(gpu, "compute_capability", None)
    marlin = catalog.engine_defaults("vllm").get("mxfp4_marlin") or {}
    if fmt is None or fmt.name != "mxfp4" or not capability or not marlin:
        return None
    if capability >= float(marlin["below_capability"]):
        return None
    return replace(
        fmt, expert_align=int(marlin["expert_align"]), hidden_align=int(marlin["hidden_align"])
    )


def _target_side(resolved: Resolved, s: Settings, split: Any, stage: int | None = None) -> tuple:
    """What compute works out of the target model and the GPU alone, from the settings named in
    _SIDE_SETTINGS and the DP-attention split (``split``, dp_attention.sharding's, of those
    too): (the GPU's memory, the target's weights in bytes, the notes on them as (key, text)
    pairs, the KV dtype's bytes, the KV layout, the NVLink switch board's group bytes)."""
    target = resolved.target
    tp, pp = s.tensor_parallel, s.pipeline_parallel
    total = _gpu_memory(resolved.gpu, "byte")
    marlin = _vllm_mxfp4_marlin(target, s, resolved.gpu)
    weights = in_bytes(
        target.weight_bytes_per_rank(
            tp,
            pp,
            marlin or s.quantization,
            s.dtype,
            s.expert_parallel,
            s.redundant_experts,
            split,
            stage,
        )
    )
    notes: tuple[tuple[str, str], ...] = ()
    if marlin is not None:
        notes += (
            (
                "weights",
                f"MXFP4 experts in the Marlin kernel's layout ({resolved.gpu.name} is older than "
                f"Hopper): each expert's width rounded up to {marlin.expert_align}, the hidden "
                f"size to {marlin.hidden_align}",
            ),
        )
    slack = _sglang_allocator_slack(target, s)
    rope = _sglang_rope_fp32(target, s)
    if slack or rope:
        weights = weights + (slack + rope)
        note = (
            f"{(slack + rope) / 2**30:.2f} GiB per GPU more: what PyTorch's allocator holds "
            "beyond the weight tensors, which SGLang counts as it reads the device's free "
            "memory, and its RoPE cache kept in float32"
        )
        notes += (("weights", note),)
    if target.rotary_extra_positions and s.engine == "vllm":  # Gemma 3's scaled RoPE (_rotary)
        weights = weights + target.rotary_extra_positions * target.rotary_dim * catalog.dtype_bytes(
            s.dtype or target.dtype
        )
    if s.engine == "tgi":  # the LM head as TGI's server builds it
        weights, note = _tgi_head(target, s, weights)
        notes += (("weights", note),) if note else ()
    if s.cpu_offload_gib:
        # vLLM and SGLang keep --cpu-offload-gb GiB of each GPU's weights in pinned host memory
        # (streamed in every forward pass): only the rest is in HBM. They offload whole decoder
        # layers (each layer make_layers builds is wrapped by the offloader), so the embedding
        # and the LM head, in 16 bits, stay on the GPU (an SGLang 0.5.9 log of Qwen3-14B at
        # TP 2 with 48 GB offloaded: "mem usage=1.50 GB" of weights, its two 1.56 GB tables / 2)
        offload = in_bytes(Q(s.cpu_offload_gib, "GiB"))
        table = target.vocab_size * target.hidden_size * 2 / max(resolved.tensor_parallel, 1)
        tables = (
            table if target.tie_word_embeddings or resolved.pipeline_parallel > 1 else 2 * table
        )
        kept = min(weights, tables)
        weights = weights - offload if weights - offload > kept else kept
    if s.lora_slots:
        weights, note = _with_lora(target, s, weights)
        notes += (("weights", note),)
    kv_bytes = catalog.kv_dtype_bytes(s.kv_cache_dtype)
    # KV heads follow the attention's split (SGLang DP attention: TP / D)
    kv_ranks, cell = (
        (split.attention if split else 0) or tp,
        _cell_dtype(s, target, s.kv_cache_dtype),
    )
    if stage is None:
        layout = target.kv_layout(kv_ranks, pp, kv_bytes, cell)
    else:
        layout = target.stage_kv_layouts(kv_ranks, pp, kv_bytes, cell)[stage]
    group = nvswitch_group_bytes(resolved.gpu, s)
    return total, weights, notes, kv_bytes, layout, group


def _pipeline_stages(resolved: Resolved, s: Settings, split: Any) -> int:
    """How many pipeline stages to budget one by one: each holds its own layers (and the first
    the embedding, the last the lm_head) and sizes its KV cache from its own free memory, and
    the engine keeps the fewest blocks of any (vLLM's get_kv_cache_configs). 0 where one
    budget stands for them all: no PP, or layers other than full attention (windows, state),
    whose layout the heaviest stage's figures bound."""
    pp = s.pipeline_parallel
    if pp <= 1:
        return 0
    target = resolved.target
    kv_bytes = catalog.kv_dtype_bytes(s.kv_cache_dtype)
    kv_ranks = (split.attention if split else 0) or s.tensor_parallel
    layouts = target.stage_kv_layouts(
        kv_ranks, pp, kv_bytes, _cell_dtype(s, target, s.kv_cache_dtype)
    )
    return len(layouts)


def _binding_stage(
    resolved: Resolved,
    s: Settings,
    assumed: dict[str, str] | None,
    figures_when_read: bool,
    split: Any,
    stages: int,
) -> Budget:
    """The budget of the pipeline stage that binds: one whose weights do not fit (the most
    short) or else the one with the fewest KV tokens after its own weights."""
    sides = [_target_side(resolved, s, split, stage) for stage in range(stages)]
    heaviest = max(side[1] for side in sides)
    layers = pipeline_stages(resolved.target.num_layers, stages)
    budgets = []
    for stage, side in enumerate(sides):
        noted = dict(assumed or {})
        own = layers[stage]
        note = (
            f"pipeline stage {stage + 1} of {stages} (layers {own.start}-{own.stop - 1}), the "
            "one with the fewest KV tokens after its own weights"
        )
        if side[1] < heaviest:
            note += f"; the heaviest stage holds {heaviest / 2**30:.2f} GiB of weights per GPU"
        noted["pipeline_stage"] = note  # a what-if of a budget: its base said it already
        budgets.append(compute(resolved, s, noted, figures_when_read=figures_when_read, side=side))

    def room(b: Budget) -> tuple[bool, float]:
        kv = in_bytes(b.kv_cache)
        tokens = b.kv_tokens
        return (kv >= 0, float(getattr(tokens, "magnitude", tokens)) if kv >= 0 else kv)

    return min(budgets, key=room)


def compute(
    resolved: Resolved,
    s: Settings,
    assumed: dict[str, str] | None = None,
    *,
    figures_when_read: bool = False,
    side: tuple | None = None,
) -> Budget:
    """The budget of a resolved deployment with these settings. Memory is counted in plain
    bytes (KV costs in bytes per token, capacity in tokens) and made Quantities at the end; a
    sum or product here takes its operands in the order the Quantity arithmetic did, so the
    figures are the same to the last bit. With ``figures_when_read`` each figure is made a
    Quantity when first read (_WhatIfBudget): a what-if's reader asks for one or two.
    ``side``: _target_side's, where the caller has it (a what-if: its base's)."""
    target = resolved.target
    if side is None:
        split = dp_attention.sharding(
            target,
            s.engine,
            s.engine_version,
            s.tensor_parallel,
            s.attention_data_parallel,
            s.whole_parts,
        )
        stages = _pipeline_stages(resolved, s, split)
        if stages:
            return _binding_stage(resolved, s, assumed, figures_when_read, split, stages)
        side = _target_side(resolved, s, split)
    total, weights, notes, kv_bytes, layout, group = side
    total_bytes = total.magnitude
    if notes:
        assumed = dict(assumed or {})
        for key, note in notes:
            _add_note(assumed, key, note)
    draft_weights, kv_draft = _draft_cost(resolved, s, kv_bytes)
    host_weights = 0
    if s.draft_offload and draft_weights:
        # offloaded: the weights sit in pinned host memory and stream over PCIe each draft pass
        host_weights, draft_weights = draft_weights, 0

    overhead = overhead_bytes(resolved, s, group)
    video_note = _video_note(resolved, s) if resolved.target.vision is not None else None
    if video_note:
        assumed = dict(assumed or {})
        _add_note(assumed, "overhead", video_note)
    if s.engine == "tgi" and resolved.target.vision is not None:
        dense_prefill = _tgi_dense_prefill(resolved, s)
        if dense_prefill is not None:
            assumed = dict(assumed or {})
            _add_note(assumed, "overhead", dense_prefill[1])
    if resolved.gpu.unified_memory and s.engine == "vllm" and not s.extensible_kv_cache:
        # what loading the weights leaves in use of the host's memory (engines.yaml
        # unified_memory_weights_held), counted as non-torch memory
        held = catalog.engine_defaults("vllm").get("unified_memory_weights_held", 0)
        overhead["non_torch"] = overhead["non_torch"] + float(held) * (weights + draft_weights)
    overhead_total = 0
    for line in overhead.values():  # one by one, as sum() of Quantities added them
        overhead_total = overhead_total + line

    meaning = fraction_meaning(s.engine)
    warmup_margin = None
    fixed = weights + draft_weights
    # SGLang keeps the recurrent state of hybrid models in a pool of its own (sglang_mamba.py);
    # vLLM pages it with the KV cache (one slot per request, counted per sequence).
    state_pool = 0
    state_per_sequence = layout.state_per_sequence
    draft_in = True  # the drafter's KV is sized inside the budget (all but an older SGLang)
    trt_state = 0.0  # TensorRT-LLM's Mamba cache (trtllm_state), taken before the fraction
    if meaning == "of_free":  # TensorRT-LLM: a share of what is free after loading
        mamba = _trtllm_state(resolved, s, layout)
        if mamba is not None:
            trt_state, state_per_sequence, line = mamba
            state_pool = trt_state
            assumed = dict(assumed or {})
            _add_note(assumed, "kv_cache", line)
        free = total_bytes - fixed - overhead_total - trt_state
        kv_cache = free * s.memory_fraction if free > 0 else free
        usable = fixed + overhead_total + trt_state + (kv_cache if kv_cache > 0 else 0)
        if usable > total_bytes:
            # weights and overhead past the card: the engine may use the card, no more (the
            # fraction of a negative "free" is nothing), so the weights' check sees the card
            usable = total_bytes
    elif meaning == "weights_and_kv_of_total":  # SGLang: activations live outside the fraction
        usable, kv_cache, draft_in, pool = _sglang_pool(
            s, total_bytes - group, weights, draft_weights, target, layout
        )
        if group > 0:
            assumed = dict(assumed or {})
            _add_note(
                assumed,
                "free_at_start",
                f"and {bytes_quantity(group).to('GiB').magnitude:.1f} GiB less for the "
                "tensor-parallel group's communicators on an NVLink switch board",
            )
        if pool is not None:
            state_pool, state_per_sequence = pool.total, pool.per_slot
            assumed = dict(assumed or {})
            _add_note(assumed, "kv_cache", pool.how)
    elif s.kv_cache_memory_bytes:  # vLLM with the KV cache's bytes set: no fraction applies
        kv_cache = s.kv_cache_memory_bytes
        usable = fixed + overhead_total + kv_cache
    else:  # vLLM, TGI: a share of the whole card
        usable = total_bytes * s.memory_fraction
        if s.extensible_kv_cache:  # (vLLM 0.34: no more than was free at start)
            usable = min(usable, total_bytes - _extensible_held(resolved))
        kv_cache = usable - fixed - overhead_total
        if s.engine == "tgi":
            kv_cache, warmup_margin = _tgi_warmup_kv(
                resolved, s, kv_cache, usable, layout.full_per_token
            )

    # One full-length request's worst case; its per-token average is the "bytes per token"
    # (constant, and exact, when every layer is full attention).
    mml = s.max_model_len
    per_request = layout.request_bytes(
        mml,
        s.max_num_batched_tokens * s.in_flight_batches,
        s.block_size,
        hybrid=not _windows_kept_full(resolved, s),
    )
    if s.disable_hybrid_kv_cache_manager and layout.windows:
        assumed = dict(assumed or {})
        _add_note(
            assumed,
            "kv_cache",
            "every sliding-window layer keeps the whole context ("
            + (
                "--disable-hybrid-swa-memory"
                if s.engine == "sglang"
                else "--disable-hybrid-kv-cache-manager"
            )
            + ")",
        )
    hybrid = layout.state_layers and layout.full_layers
    pages_shape = None  # vLLM's hybrid pool: its block, page and groups
    group_padding = 1.0
    if (
        layout.windows
        and s.engine == "vllm"
        and not s.legacy_engine
        and per_request > 0
        and not _windows_kept_full(resolved, s)
    ):
        grouped = layout.grouped_request_bytes(
            mml, s.max_num_batched_tokens * s.in_flight_batches, s.block_size
        )
        if grouped is not None:
            group_padding = grouped / per_request
    if (
        hybrid
        and s.engine == "vllm"
        and not s.legacy_engine
        and not _before(s, "hybrid_pages_since")
    ):
        # vLLM pages attention and state layers alike: whole blocks, padded state pages
        pages, how = _vllm_state_pages(s, target)
        paged = layout.paged_request_bytes(mml, state_pages=pages)
        if paged:
            per_request = paged
            pages_shape = layout.hybrid_pages()
            # a drafter's attention layers (MTP, an EAGLE head) join the target's in vLLM's
            # groups: a group of more layers, so more padding in the state groups
            joined = layout.with_drafter_layers(float(kv_draft))
            if joined is not layout and _drafter_layers_match(resolved, s, layout, kv_bytes):
                with_draft = joined.paged_request_bytes(mml, state_pages=pages)
                kv_draft = (with_draft - paged) / mml
                pages_shape = joined.hybrid_pages()
            if how:
                assumed = dict(assumed or {})
                _add_note(assumed, "kv_cache", how)
    if state_pool:
        per_request -= layout.state_per_sequence
    swa_pool = None
    if meaning == "weights_and_kv_of_total" and layout.windows and not state_pool:
        swa_pool = _sglang_swa_pool(resolved, s, kv_bytes)
        if swa_pool is not None:
            # SGLang's hybrid SWA pool: a full-attention pool of N tokens and a window pool of
            # swa_full_tokens_ratio x N for the window layers; N is what it reports, and a
            # request holds its length in the full pool
            per_request = swa_pool[0] * mml
            assumed = dict(assumed or {})
            _add_note(assumed, "kv_cache", swa_pool[1])
    full_only = per_request == layout.full_per_token * mml
    target_per_token = layout.full_per_token if full_only else per_request / mml
    draft_per_token = float(kv_draft)
    per_request += draft_per_token * mml
    per_token = target_per_token + draft_per_token
    # the bytes a token costs inside the budget (an older SGLang sized its pool on the
    # target's cells alone and put the drafter's pool in the reserve)
    sizing = per_token if meaning != "weights_and_kv_of_total" or draft_in else target_per_token
    # SGLang sizes a DSA model's fp8 pool on a smaller cell than the one it stores
    # (KvLayout.counted_per_token): the pool takes tokens x the stored cell, past the budget
    counted = layout.counted_per_token if meaning == "weights_and_kv_of_total" and full_only else 0
    if counted:
        sizing += counted - target_per_token
    block_bytes = sizing * s.block_size
    kv_magnitude = float(kv_cache)
    blocks = math.floor(kv_magnitude / block_bytes) if kv_magnitude > 0 and block_bytes else 0
    if s.kv_cache_max_tokens and blocks * s.block_size > s.kv_cache_max_tokens:
        # SGLang --max-total-tokens caps the pool (rounded down to pages); the rest stays free
        blocks = s.kv_cache_max_tokens // s.block_size
        kv_cache = blocks * s.block_size * sizing
    if counted and blocks > 0:  # (no pool at all: nothing outgrows the fraction)
        stored = blocks * s.block_size * (per_token if draft_in else target_per_token)
        usable = usable + stored - kv_cache
        kv_cache = stored
        assumed = dict(assumed or {})
        _add_note(
            assumed,
            "kv_cache",
            f"SGLang counts a token at {counted / 2**10:.1f} KiB (the MLA latent in fp8 and the "
            f"DSA indexer's keys) but its NSA pool stores {target_per_token / 2**10:.1f} KiB "
            "(the 656-byte FlashMLA fp8 cell): the pool outgrows mem_fraction_static by the "
            "difference",
        )

    unit = resolved.deployment.gpu.memory
    byte_unit = "GB" if unit is not None and f"{unit.units:~}" in DECIMAL_BYTE_UNITS else "GiB"
    # the figures in plain numbers, in _PLAIN_FIGURES' order: a what-if's figures are made of
    # them when read, and every budget's KV band (kv_uncertainty, kv_tokens_if) reads them
    plain = (
        usable,
        weights,
        draft_weights,
        overhead,
        kv_cache,
        target_per_token,
        kv_draft,
        blocks * s.block_size,
        per_request,
        state_per_sequence,
        host_weights,
        warmup_margin,
        overhead_total,
    )
    if figures_when_read:
        made = object.__new__(_WhatIfBudget)
        made.__dict__ = {
            "resolved": resolved,
            "settings": s,
            "total": total,
            "assumed": dict(assumed or {}),
            "byte_unit": byte_unit,
            "kv_pages": pages_shape,
            "kv_group_padding": group_padding,
            "_plain": plain,
            "_target_side": side,
        }
        return made
    # the overhead's sum, worked out above as overhead_total would (0 + each line in order),
    # is the cached property's value from the start
    made = _budget(
        {
            "resolved": resolved,
            "settings": s,
            "total": total,
            "usable": bytes_quantity(usable),
            "weights": bytes_quantity(weights),
            "draft_weights": bytes_quantity(draft_weights),
            "overhead": {name: bytes_quantity(line) for name, line in overhead.items()},
            "kv_cache": bytes_quantity(kv_cache),
            "kv_bytes_per_token_target": bytes_per_token_quantity(target_per_token),
            "kv_bytes_per_token_draft": bytes_per_token_quantity(kv_draft),
            "kv_tokens": tokens_quantity(blocks * s.block_size),
            "assumed": dict(assumed or {}),
            "byte_unit": byte_unit,
            "kv_bytes_per_sequence": bytes_quantity(per_request),
            "kv_state_bytes_per_sequence": bytes_quantity(state_per_sequence),
            "draft_host_weights": bytes_quantity(host_weights),
            "kv_pages": pages_shape,
            "kv_group_padding": group_padding,
            "warmup_margin": None if warmup_margin is None else bytes_quantity(warmup_margin),
            "overhead_total": bytes_quantity(overhead_total),
        },
        "compute",
    )
    made.__dict__["_plain"] = plain
    made.__dict__["_target_side"] = side
    return made


def _with_lora(target: Any, s: Settings, weights: Any) -> tuple[Any, str]:
    """The weights (bytes) with the LoRA slots vLLM preallocates while loading (lora.py), and
    the budget's note on them."""
    why = lora.unmodelled(target, s.expert_parallel)
    if why is not None:
        return weights, f"the LoRA slots' A/B matrices not counted ({why})"
    extra = lora.vllm_lora_bytes(
        target,
        s.tensor_parallel,
        s.pipeline_parallel,
        s.lora_slots,
        s.lora_rank,
        s.lora_fully_sharded,
        s.dtype,
    )
    note = (
        f"{extra / 2**30:.2f} GiB per GPU of LoRA A/B matrices: {s.lora_slots} slot"
        f"{'s' if s.lora_slots != 1 else ''} (--max-loras) of rank {s.lora_rank} "
        "(--max-lora-rank) for every linear layer, preallocated while the model loads"
    )
    return weights + extra, note


def _drafter_layers_match(resolved: Resolved, s: Settings, layout: Any, kv_bytes: float) -> bool:
    """Whether the drafter's attention layers have the target's page (one token of one layer,
    the same bytes): the checkpoint's own MTP layers do; an EAGLE head or a draft model only
    where its KV heads and head size give the same. Another shape makes a group of its own."""
    if s.speculative_method == "mtp" and resolved.draft is None:
        return True
    draft = resolved.draft
    if draft is None:
        return False
    try:
        own = draft.kv_layout(s.draft_tensor_parallel, 1, kv_bytes)
    except (AttributeError, TypeError, ValueError):
        return False
    return own.attention_per_token_layer == layout.attention_per_token_layer


def _trtllm_state_bytes(b: Any, plain: tuple | None) -> float:
    """The bytes of TensorRT-LLM's Mamba cache a budget counted (_trtllm_state): its slots (max
    max_batch_size) of kv_state_bytes_per_sequence each; 0 for another engine."""
    s = b.settings
    if s.engine != "trtllm":
        return 0.0
    if plain is None:  # made another way (dataclasses.replace): read from the figures
        per_slot = float(in_bytes(b.kv_state_bytes_per_sequence))
    else:
        per_slot = plain[_AT["kv_state_bytes_per_sequence"]]
    return max(int(s.max_num_seqs), 1) * per_slot if per_slot else 0.0


def _trtllm_state(resolved: Resolved, s: Settings, layout: Any) -> tuple[float, float, str] | None:
    """TensorRT-LLM's Mamba cache of a hybrid model (Mamba-2 or gated delta-net layers), per
    GPU: (bytes, bytes of one slot, the budget's note); None for other models or engines.

    The PyTorch backend allocates one slot per max_batch_size request (of each attention-DP
    rank) for every state layer of the stage: the conv window and the SSM state, split over TP
    (whole on each GPU under attention DP), before the KV cache is sized from
    free_gpu_memory_fraction of what is left (engines.yaml trtllm mamba_state)."""
    target = resolved.target
    spec = catalog.engine_defaults(s.engine).get("mamba_state")
    if not spec or not layout.state_layers:
        return None
    elements = (target.state_conv_elements or 0) + (target.state_ssm_elements or 0)
    if elements <= 0:
        return None
    whole = s.attention_data_parallel > 1  # enable_attention_dp: tp_size 1 for the state
    split = 1 if whole else max(int(s.tensor_parallel), 1)
    dtype = target.dtype or "bfloat16"
    per_slot = layout.state_layers * elements * catalog.dtype_bytes(dtype) / split
    slots = max(int(s.max_num_seqs), 1)
    total = slots * per_slot
    how = "whole on each GPU under attention DP" if whole else f"split over TP {split}"
    line = (
        f"TensorRT-LLM's Mamba cache holds {slots} slots (max_batch_size) of "
        f"{per_slot / 2**20:.1f} MiB: {total / 2**30:.2f} GiB for {layout.state_layers} state "
        f"layers' conv and SSM state in {dtype} ({how}), allocated before the KV cache is sized "
        "from the memory left; a checkpoint's float32 mamba_ssm_cache_dtype, which later "
        "releases keep, doubles the SSM part and is not counted"
    )
    return total, per_slot, line


def _vllm_state_pages(s: Settings, target: Any) -> tuple[int | None, str]:
    """The state pages one request of a hybrid model holds in each state group under vLLM's
    mamba cache mode (kv_cache_interface.py MambaSpec.max_memory_usage_bytes): 1 + the
    speculative tokens without prefix caching ("none"), 2 + them in "align", one a block of
    max_model_len in "all" (None). With a note on the mode where it is not "none"."""
    defaults = catalog.engine_defaults("vllm")
    # no speculation ("none", as the what-ifs without a drafter set it): no draft tokens' pages
    speculating = s.speculative_method not in ("", "none")
    speculative = s.num_speculative_tokens if speculating else 0
    # from this release prefix caching is on for hybrid models, in "align"
    newer = not _before(s, "hybrid_prefix_caching_default_since")
    if not (newer if s.prefix_caching is None else s.prefix_caching):
        return 1 + speculative, ""
    model_type = getattr(target, "model_type", "")
    supports_all = model_type in defaults.get("mamba_prefix_caching_model_types", ())
    mode = s.mamba_cache_mode if s.mamba_cache_mode in ("align", "all") else None
    if mode is None:  # the engine picks one (model_executor/models/config.py)
        picks_align = newer or (
            speculative and not _before(s, "mamba_align_with_speculation_since")
        )
        mode = "align" if picks_align or not supports_all else "all"
    if mode == "all" and not supports_all:
        mode = "align"  # the engine falls back: the model keeps no state per block
    caching = "prefix caching" + ("" if s.prefix_caching else " (vLLM's default)")
    if mode == "all":
        return None, f"{caching} in mamba cache mode 'all': a state page per block, per request"
    pages = 2 + speculative
    return pages, f"{caching} in mamba cache mode 'align': {pages} state pages per request"


def _sglang_allocator_slack(target: Any, s: Settings) -> float:
    """Bytes per GPU the CUDA caching allocator holds beyond SGLang's weight tensors
    (catalog/allocator.py), for weights in the model dtype; 0 elsewhere. QwQ-32B at TP 4 logs
    15.54 GiB against 15.29 of tensors, Qwen3-14B at TP 4 7.08 against 6.89
    (benchmarks/calibration/sglang.yaml); this counts 0.22 and 0.18 GiB."""
    if s.engine != "sglang" or s.quantization or target.quantization:
        return 0.0
    from .catalog.allocator import weights_slack

    dense = catalog.dtype_bytes(s.dtype or target.dtype)
    slack = weights_slack(target, s.tensor_parallel, s.pipeline_parallel, dense)
    return slack if slack >= 2**20 else 0.0


def _sglang_rope_fp32(target: Any, s: Settings) -> float:
    """The bytes SGLang's RoPE cos/sin cache holds beyond the model dtype the weights count it
    in: on CUDA it stays float32 ("cache needs to be in FP32 for numerical stability",
    layers/rotary_embedding.py)."""
    if s.engine != "sglang" or not target.vocab_size:
        return 0.0
    dense = catalog.dtype_bytes(s.dtype or target.dtype)
    return float(target.rotary_positions * target.rotary_dim * max(4 - dense, 0))


def _tgi_head(target: Any, s: Settings, weights: Any) -> tuple[Any, str | None]:
    """The weights (bytes) with TGI's LM head as its server holds it (catalog/tgi_head.py), and
    the budget's note on it (None: no difference)."""
    from .catalog import tgi_head

    extra, why = tgi_head.head_bytes_difference(
        catalog.engine_defaults("tgi"),
        s.engine_version,
        target,
        s.tensor_parallel,
        s.quantization,
        s.dtype,
    )
    if not extra:
        return weights, None
    return weights + extra, f"{extra / 2**30:+.2f} GiB per GPU: {why}"


def _tgi_warmup_limits(resolved: Resolved, s: Settings) -> tuple[int | None, int | None]:
    """(max_input_tokens, max_total_tokens) the router's warm-up is given."""
    spec = catalog.engine_defaults("tgi")
    serving = resolved.deployment.serving
    max_total = serving.max_model_len
    max_input = serving.max_input_tokens
    # before 2.4.1 the launcher passes its defaults to the warm-up; later ones pass none
    passes_defaults = _derived_entry(spec, s.engine_version) is not _derived_entry(spec, None)
    if max_total is None and passes_defaults:
        max_total = s.max_model_len
    if max_input is None and max_total is not None and passes_defaults:
        max_input = max_total - 1
    return max_input, max_total


def _tgi_dense_prefill(resolved: Resolved, s: Settings) -> tuple[float, str] | None:
    """(bytes per GPU, why) of the warm-up prefill's dense attention where TGI runs the model's
    prefill through SDPA (catalog/tgi_warmup.py dense_prefill: Gemma 3), else None."""
    from .catalog import tgi_warmup

    spec = catalog.engine_defaults("tgi")
    if not spec.get("dense_prefill"):
        return None
    # the backend the block size stands for (the launcher's pick, or ATTENTION's)
    backends = {int(size): name for name, size in spec["attention_block_size"].items()}
    backend = backends.get(int(s.block_size))
    if _release_before("tgi", s.engine_version, "attention_since"):
        backend = None
    max_input, _ = _tgi_warmup_limits(resolved, s)
    lengths = tgi_warmup.warmup_requests(s.max_num_batched_tokens, max_input, s.max_num_seqs)
    return tgi_warmup.dense_prefill(
        spec, s.engine_version, resolved.target, backend, s.tensor_parallel, lengths
    )


def _tgi_warmup_kv(
    resolved: Resolved, s: Settings, free: Any, usable: Any, per_token: float
) -> tuple[Any, Any]:
    """TGI's KV cache after its warm-up (catalog/tgi_warmup.py), and the memory left above the
    warm-up batch's blocks, in bytes: ``free`` is the fraction of the card less the weights
    and the warm-up's peak, the warm-up batch's KV blocks not yet taken."""
    from .catalog import tgi_warmup

    spec = catalog.engine_defaults("tgi")
    max_input, max_total = _tgi_warmup_limits(resolved, s)
    slots = tgi_warmup.warmup_batch_tokens(
        s.block_size,
        s.max_num_batched_tokens,
        max_input,
        max_total,
        s.num_speculative_tokens,
        s.max_num_seqs,
    )
    block_bytes = per_token * s.block_size
    kv = tgi_warmup.kv_after_warmup(
        spec,
        s.engine_version,
        float(free),
        float(usable),
        block_bytes,
        slots // s.block_size,
    )
    margin = float(free) - slots // s.block_size * block_bytes
    return kv, margin


def _sglang_dsa_fp8(engine: str, target: Any, gpu: Any) -> bool:
    """Whether SGLang's "auto" KV cache of this model on this GPU is FP8: a DSA model (one with
    the lightning indexer's cache) on an NVIDIA GPU of compute capability 10 or more."""
    if engine != "sglang" or not target.dsa_indexer_bytes:
        return False
    capability = getattr(gpu, "compute_capability", None)
    return capability is not None and capability >= 10


def _cell_dtype(s: Settings, target: Any, kv_dtype: str) -> str:
    """The cache layout an fp8 KV cache of a DSA model takes: FlashMLA's 656-byte cell in vLLM
    (models/config.py DeepseekV32ForCausalLM turns fp8* into fp8_ds_mla) and SGLang (the NSA
    pool's fp8 store); TensorRT-LLM keeps the 576-byte latent (sparse/dsa.py
    get_cache_size_per_token)."""
    # the engine and the model first: most budgets end there (compute and _draft_cost look
    # every KV dtype up before they ask, so the order refuses nothing the other order would)
    if s.engine not in ("vllm", "sglang") or not target.dsa_indexer_bytes:
        return kv_dtype
    return "fp8_ds_mla" if catalog.kv_dtype_bytes(kv_dtype) == 1 else kv_dtype


def sglang_draft_weights_in_fraction(version: Any) -> bool:
    """Whether SGLang (of ``version``, a parsed release or None for the newest) sizes its KV
    pool after the drafter's weights are loaded, so that they count against
    --mem-fraction-static (engines.yaml draft_weights_in_fraction_since, PR #28855); before,
    the target's pool was sized first and the drafter loaded into the reserve outside it."""
    boundary = catalog.engine_defaults("sglang").get("draft_weights_in_fraction_since")
    return boundary is None or version is None or version >= _version(boundary)


def _sglang_pool(
    s: Settings,
    total: Any,
    weights: Any,
    draft_weights: Any,
    target: Any,
    layout: Any,
) -> tuple[Any, Any, bool, Any]:
    """SGLang's KV pool (model_runner profile_max_num_token; kv_cache_configurator.py from
    0.5.16): usable = the memory free when the worker starts (the device less the CUDA context
    and distributed init) x mem_fraction_static; the pool is what is left of it after the
    weights, a multimodal model's embedding-cache reserve and, for hybrid models, the
    recurrent-state pool (sglang_mamba.plan, by release). In bytes: returns (usable, KV bytes,
    whether the drafter's weights and KV are inside the fraction, which depends on the release:
    engines.yaml, and the state pool or None)."""
    spec = catalog.engine_defaults("sglang")
    reserved = _catalog_quantity(spec.get("free_at_start_reserved", "0 GiB"), "[information]")
    free = total - in_bytes(reserved)
    usable = free * s.memory_fraction
    version = _version(s.engine_version)

    def since(key: str) -> bool:
        boundary = spec.get(key)
        return boundary is None or version is None or version >= _version(boundary)

    draft_in = since("draft_kv_in_fraction_since")
    fixed = weights + (draft_weights if sglang_draft_weights_in_fraction(version) else 0 * weights)
    rest = usable - fixed - sglang_mamba.mm_reserve_bytes(target, s)
    pool = sglang_mamba.plan(target, layout, s, float(rest))
    state = pool.total if pool is not None else 0.0
    return usable, rest - state, draft_in, pool


def _sglang_swa_pool(resolved: Resolved, s: Settings, kv_bytes: float) -> tuple[float, str] | None:
    """(bytes a token of SGLang's full-attention pool costs, the note) for a model of window
    and full-attention layers in SGLang's hybrid SWA pool; None where SGLang keeps the window
    layers whole (engines.yaml windows_kept_full_model_types). SGLang sizes both pools at once:
    N tokens for the full layers, swa_full_tokens_ratio x N (--swa-full-tokens-ratio, 0.8 by
    default) for the window layers, every layer of the model with a pool of its own, Gemma 4's
    KV-shared layers too (its logs: "swa size: 798276, full size: 997846" for gemma-4-E4B, 79.94
    GiB; "171008 / 213761" for gemma-4-26B-A4B, 36.69 GiB; mem_cache/swa_memory_pool.py)."""
    if _windows_kept_full(resolved, s):
        return None
    default = float(catalog.engine_defaults("sglang").get("swa_full_tokens_ratio", 0.8))
    ratio = s.swa_full_tokens_ratio or default
    full, window = resolved.target.swa_pool_bytes(s.tensor_parallel, s.pipeline_parallel, kv_bytes)
    if not window:
        return None
    how = "as set" if s.swa_full_tokens_ratio else "its default"
    note = (
        f"SGLang's hybrid SWA pool: the window layers hold {ratio:g} x the full layers' tokens "
        f"(--swa-full-tokens-ratio, {how}); the capacity is the full pool's"
    )
    return full + ratio * window, note


def _draft_cost(resolved: Resolved, s: Settings, kv_bytes: float) -> tuple[Any, Any]:
    """Weights per GPU (bytes) and KV bytes per token per GPU of the speculative drafter, by
    method:

    draft_model  the whole draft with its own TP (TP 1: whole on every rank) and its own KV
    eagle/eagle3 one (or a few) decoder layers + the fc fusing 2 (3) hidden states; EAGLE-3 has
                 its own lm_head over a reduced vocabulary; a stored embedding only where the
                 engine keeps it (head_shared_parts). Its KV sits in the target's pool. The
                 drafter's CUDA graphs are not a line of their own: vLLM 0.19 estimated 0.27
                 GiB with an EAGLE-3 head against 0.26 GiB without (speculative.yaml)
    medusa       heads only (residual blocks + an lm_head each): no KV
    mtp          the checkpoint's MTP layers, sharing embeddings and lm_head, with their KV
    early_exit   the target's own first layers: no weights; an exit-query vector per token
    ngram, suffix, prompt_lookup, lookahead: nothing on the GPU (a host-side table)
    """
    method, target, draft = s.speculative_method, resolved.target, resolved.draft
    if s.draft_kv_cache_dtype:  # vLLM speculative_config.kv_cache_dtype (PR #32165)
        kv_bytes = catalog.kv_dtype_bytes(s.draft_kv_cache_dtype)
    if method == "mtp" and is_gemma4_assistant(draft):
        # a Gemma 4 assistant named as MTP's model: its own checkpoint (its layers, pre/post
        # projections and tied lm_head, split over TP, in its own dtype or format); its layers
        # read the target's KV cache and keep none (catalog/architecture.py assistant_backbone)
        weights = draft.weight_bytes_per_rank(s.draft_tensor_parallel, 1, s.draft_quantization)
        return in_bytes(weights), 0
    if method == "mtp" and draft is None:
        kv_dtype = _cell_dtype(s, target, s.draft_kv_cache_dtype or s.kv_cache_dtype)
        split = dp_attention.nextn_sharding(target, s)
        weights, per_token = mtp_cost(
            target, s.tensor_parallel, s.quantization, s.dtype, kv_bytes, kv_dtype, split
        )
        vocab = sglang_mtp_vocab_bytes(s, target)
        return in_bytes(weights) + vocab, in_bytes_per_token(per_token)
    if method in SELF_METHODS:
        # LayerSkip reuses the first E layers' KV for verification (its "cache reuse"); what is
        # left is the exit layer's query cache: one hidden vector per token on each rank.
        return 0, target.hidden_size / s.tensor_parallel * kv_bytes
    if method == "medusa":
        heads = (draft.medusa_heads if draft else 0) or max(s.num_speculative_tokens, 1)
        layers = (draft.medusa_layers if draft else 0) or 1
        return in_bytes(medusa_weights(target, heads, layers, s.draft_tensor_parallel, s.dtype)), 0
    if draft is None or method not in _SEPARATE_DRAFT_METHODS:
        return 0, 0
    tp = s.draft_tensor_parallel
    if method in ("eagle", "eagle3"):
        shared = head_shared_parts(s, method, draft, target)
        lm_head = sglang_eagle_lm_head(s, method, draft)
        # SGLang's head classes build an embed_tokens whatever the head stores (llama_eagle.py,
        # llama_eagle3.py); the target's replaces it only after the load
        own = s.engine == "sglang"
        weights = eagle_weights(draft, method, tp, s.draft_quantization, shared, lm_head, own)
    elif method == "dflash":
        weights = dflash_weights(draft, target, tp, s.draft_quantization)
    else:  # a draft with tensor_parallel 1 sits whole on every rank of the target
        weights = draft.weight_bytes_per_rank(tp, 1, s.draft_quantization)
    per_token = draft.kv_bytes_per_token_per_rank(tp, 1, kv_bytes)
    return in_bytes(weights), in_bytes_per_token(per_token)


def is_gemma4_assistant(draft: Any) -> bool:
    """Whether a drafter's architecture is a Gemma 4 assistant checkpoint's (gemma4_assistant)."""
    return bool(getattr(draft, "assistant_backbone", 0))


def _assistant_note(draft: Any, s: Settings) -> str:
    """What the draft weights count for a Gemma 4 assistant, for the budget's `assumed`."""
    tp = s.draft_tensor_parallel
    split = f", split over TP {tp}" if tp > 1 else ""
    quant = s.draft_quantization or draft.quantization
    stored = quant if quant and quant != "none" else draft.dtype
    return (
        f"{draft.name}, the Gemma 4 assistant checkpoint the MTP config names (a drafter of its "
        f"own, not the target's MTP layers): {draft.num_layers} Q-only decoder layers of "
        f"{draft.hidden_size:,}, pre/post projections to the target's {draft.assistant_backbone:,} "
        f"and its own tied {draft.vocab_size:,} x {draft.hidden_size:,} lm_head, "
        f"{draft.parameters / 1e6:,.0f}M parameters by arithmetic from its config, in "
        f"{stored}{split} (vLLM gemma4_mtp.py)"
    )


def sglang_mtp_vocab_bytes(s: Settings, target: Any) -> Any:
    """Bytes per rank of the embed_tokens and lm_head SGLang's MTP (NextN) draft model builds
    of its own: vocab-parallel, in the model dtype (no quant_config reaches the embedding),
    one tensor when the model ties them. Neither is loaded (the checkpoint's MTP keys hold
    none, or the loader skips them); the target's replace them in set_embed_and_head, which
    runs after "Load weight end" and after the KV pool is sized (deepseek_nextn.py,
    qwen3_5_mtp.py; sgl-project/sglang#36452, and #32468 on v0.5.19: "Load weight end.
    type=Qwen3_5ForCausalLMMTP, ... mem usage=2.57 GB" at TP 2, of which 2 x 124,160 x 5,120
    x 2 B are these). With DP attention they are split as the target's (deepseek_nextn.py:
    the embedding whole on each GPU before v0.5.8; dp_attention.nextn_sharding)."""
    if s.engine != "sglang":
        return 0
    split = dp_attention.nextn_sharding(target, s)
    embed = (split.embed if split is not None else 0) or s.tensor_parallel
    lm_head = (split.lm_head if split is not None else 0) or s.tensor_parallel
    size = target.vocab_size * target.hidden_size / embed
    if not target.tie_word_embeddings:
        size += target.vocab_size * target.hidden_size / lm_head
    return size * catalog.dtype_bytes(s.dtype)


def dflash_weights(head: Any, target: Any, tp: int, quantization: str | None) -> Any:
    """Bytes per rank of a DFlash drafter: its decoder layers, the fc that fuses the hidden
    states of the target layers it reads (target_layer_ids x the target's width, into its own;
    counted whole on every rank, as EAGLE-3's fc) and the norm after it. It embeds and
    reads logits with the target's embed_tokens and lm_head (z-lab's checkpoints store neither:
    their keys are fc, hidden_norm, layers.* and norm), so a copy it stores is not counted."""
    dense = catalog.dtype_bytes(head.dtype)
    if head.stored_weights_apply(quantization, None):  # the drafter's own tensors, as stored
        stored = head.checkpoint.bytes_per_rank(head, tp, dtype_bytes=dense)
        for part in head_stores(head) & {"embed_tokens", "lm_head"}:
            stored -= head.checkpoint.part_bytes(head, tp, part, dtype_bytes=dense)
        return Q(stored, "byte")
    weights = _layers_of(head).weight_bytes_per_rank(tp, 1, quantization)
    fmt = catalog.weight_format(quantization, head)
    linear = fmt.bytes_per_param if fmt else dense
    reads = head.dflash_target_layers or 1
    fc = reads * target.hidden_size * head.hidden_size * linear
    hidden_norm = head.hidden_size * dense  # on the fused hidden state
    return weights + Q(fc + hidden_norm, "byte")


# A drafter's decoder layers alone (no vocabulary, no checkpoint), whose weights eagle_weights and
# dflash_weights count before adding their own parts: one copy per drafter architecture a run,
# so that its memo answers every what-if budget's weights (architectures are frozen).
_LAYERS = IdentityMemo(limit=256)


def _layers_of(head: Any) -> Any:
    return _LAYERS.get(
        head, lambda: replace(head, vocab_size=0, tie_word_embeddings=True, checkpoint=None)
    )


def head_stores(head: Any) -> frozenset[str]:
    """What a speculator head stores of its own beyond its layers ("embed_tokens", "lm_head"):
    read from its safetensors headers when known, else what its catalog entry says."""
    if head.checkpoint is not None and head.checkpoint.groups:
        return head.checkpoint.stored_parts()
    return head.head_stores


def head_shared_parts(s: Settings, method: str, head: Any, target: Any) -> frozenset[str]:
    """The parts an EAGLE head takes from the target instead of loading its own. vLLM releases
    between PR #17326 and PR #28549 (engines.yaml eagle_shares_target_embeddings) always share
    the embedding, and EAGLE-1 heads the lm_head, at pipeline parallel 1; earlier ones load what
    the head stores; later ones share a stored embedding (lm_head) only when it equals the
    target's bit for bit. hbmlint cannot compare weights: it takes one of the target's shape for
    the frozen copy published heads save, and one of another shape as the head's own. SGLang's
    draft worker loads all the head stores before it sets the target's embedding on it: its
    "Load weight end ... mem usage" counts the copy (1.77 GiB for the Llama-3.1-8B EAGLE-3
    head, benchmarks/calibration/sglang.yaml), so nothing is taken off there."""
    eagle1 = {"lm_head"} if method == "eagle" else set()
    if s.engine == "sglang" or s.pipeline_parallel > 1:
        return frozenset()
    eagle3 = {"lm_head"} if method == "eagle3" and eagle3_lm_head_shared(s, head, target) else set()
    window = catalog.engine_defaults(s.engine).get("eagle_shares_target_embeddings")
    version = _version(s.engine_version)
    if not window:
        return frozenset(eagle3)
    if version is not None and version < _version(window["since"]):
        return frozenset(eagle3)
    if version is not None and version < _version(window["before"]):
        return frozenset({"embed_tokens", *eagle1, *eagle3})
    same = head.hidden_size == target.hidden_size and head.vocab_size == target.vocab_size
    return frozenset({"embed_tokens", *eagle1, *eagle3}) if same else frozenset(eagle3)


def eagle3_stores_lm_head(head: Any) -> bool | None:
    """Whether an EAGLE-3 head's checkpoint holds an lm_head: its safetensors headers, else its
    catalog entry's `stores`; None when neither says."""
    if head.checkpoint is not None and head.checkpoint.groups:
        return "lm_head" in head.checkpoint.stored_parts()
    return "lm_head" in head.head_stores if head.head_stores_known else None


def eagle3_lm_head_shared(s: Settings, head: Any, target: Any) -> bool:
    """Whether the engine runs an EAGLE-3 head on the target's lm_head, so that the head's own
    (draft_vocab_size rows) is not in the weights it sizes the KV cache with (engines.yaml
    eagle3_lm_head_from_target: vLLM keeps it before 0.11, takes the target's for one of the
    same shape in 0.11.0, and from 0.11.1 where the checkpoint holds none or a copy equal to the
    target's; TensorRT-LLM where it holds none). SGLang builds the head's own lm_head and swaps
    in the target's only after the draft worker's load: counted there, as its embedding. A
    stored lm_head is taken for the head's own unless its catalog entry names it a copy
    (`target_copies`); one whose storage is unknown is counted. A target whose lm_head is
    quantized never equals a 16-bit copy."""
    rule = catalog.engine_defaults(s.engine).get("eagle3_lm_head_from_target")
    version = _version(s.engine_version)
    if not rule or s.pipeline_parallel > 1:
        return False
    rows = head.draft_vocab_size or head.vocab_size
    same_shape = (
        rows == target.vocab_size
        and head.hidden_size == target.hidden_size
        and "lm_head" not in dict(target.part_formats)
    )
    checkpoint_since = _version(rule["checkpoint_since"])
    if version is not None and checkpoint_since is not None and version < checkpoint_since:
        shape_since = _version(rule.get("shape_since"))
        return shape_since is not None and version >= shape_since and same_shape
    stored = eagle3_stores_lm_head(head)
    if stored is False:
        return True
    copy = "lm_head" in head.head_target_copies
    return bool(stored and rule.get("equal_copy") and copy and same_shape)


def sglang_eagle_lm_head(s: Settings, method: str, head: Any) -> int | None:
    """The rows of the lm_head SGLang builds for an EAGLE-1 head, whatever the head stores
    (None: not SGLang EAGLE-1). Its head classes make an lm_head of their own unless the head
    ties it to the embedding, and skip loading one; the draft worker swaps in the target's
    (cut to the hot tokens) only after "Load weight end". The Llama head builds it over
    config.hot_vocab_size, which the worker sets to the size of --speculative-token-map; the
    other classes (Qwen2) over the whole vocabulary (python/sglang/srt/models/llama_eagle.py,
    qwen2_eagle.py; speculative/eagle_worker.py). EAGLE-3 ignores the map: its head carries
    its own reduced vocabulary. 1.70 GiB for lmsys/sglang-EAGLE-LLaMA3-Instruct-8B with
    freq_32768.pt: its layer, fc and embedding (1.45 GiB) + 32,768 x 4,096 x 2 B (0.25 GiB)."""
    if s.engine != "sglang" or method != "eagle" or head.tie_word_embeddings:
        return None
    if head.model_type == "llama" and s.draft_hot_vocab:
        return min(s.draft_hot_vocab, head.vocab_size)
    return head.vocab_size


def eagle_weights(
    head: Any,
    method: str,
    tp: int,
    quantization: str | None,
    shared: frozenset[str] = frozenset(),
    lm_head: int | None = None,
    embedding: bool = False,
) -> Any:
    """Bytes per rank of an EAGLE (EAGLE-3) head: its decoder layer(s), the replicated fc
    fusing 2 (3) hidden states, and for EAGLE-3 the wider first layer (its q/k/v read
    [embedding; fused hidden], 2h wide), one more norm and its own lm_head over draft_vocab_size
    (vocab-parallel). The embed_tokens (and an EAGLE-1 head's lm_head) count when the head
    stores its own and the engine keeps them (``shared`` names the parts it takes from the
    target instead); a head that stores none uses the target's. ``lm_head``: the rows of an
    EAGLE-1 lm_head the engine builds whatever the head stores (sglang_eagle_lm_head);
    ``embedding``: the engine builds the head an embed_tokens whether it stores one or not."""
    stores = head_stores(head) | ({"embed_tokens"} if embedding else set())
    dense = catalog.dtype_bytes(head.dtype)
    if head.stored_weights_apply(quantization, None):  # the head's own tensors, as stored
        stored = head.checkpoint.bytes_per_rank(head, tp, dtype_bytes=dense)
        for part in shared & stores:
            stored -= head.checkpoint.part_bytes(head, tp, part, dtype_bytes=dense)
        if method == "eagle3" and not ({"lm_head"} & (shared | stores)):
            # the lm_head the head class builds over draft_vocab_size, none stored to load
            stored += (head.draft_vocab_size or head.vocab_size) * head.hidden_size / tp * dense
        if lm_head is not None:  # the engine's own, in place of what the head stores
            if "lm_head" in stores:
                stored -= head.checkpoint.part_bytes(head, tp, "lm_head", dtype_bytes=dense)
            stored += lm_head * head.hidden_size / tp * dense
        if embedding and "embed_tokens" not in head.checkpoint.stored_parts():
            stored += head.vocab_size * head.hidden_size / tp * dense
        return Q(stored, "byte")
    weights = _layers_of(head).weight_bytes_per_rank(tp, 1, quantization)
    h = head.hidden_size
    fmt = catalog.weight_format(quantization, head)
    linear = fmt.bytes_per_param if fmt else dense
    extra = (3 if method == "eagle3" else 2) * h * h * linear  # fc: replicated on every rank
    if method == "eagle3":
        if head.kv_lora_rank:
            # an MLA head (vLLM deepseek_eagle3.py, SGLang kimi_k25_eagle3.py): the 2h input
            # reaches the replicated q_a and kv_a projections only (q_proj, split over TP,
            # without a q_lora_rank); kv_b, q_b and o_proj read the latent / the heads
            rope = head.qk_rope_head_dim
            q = head.q_lora_rank or head.num_attention_heads * (head.qk_nope_head_dim + rope) / tp
            q, kv = h * q, h * (head.kv_lora_rank + rope)
        else:
            q = h * head.num_attention_heads * head.head_dim / tp
            kv = 2 * h * head.head_dim * head.kv_heads_per_rank(tp)
        extra += (q + kv) * linear + h * dense  # the second input half, and hidden_norm
        if "lm_head" not in shared:  # its own, over the draft vocabulary
            extra += (head.draft_vocab_size or head.vocab_size) * h / tp * dense
    elif lm_head is not None:
        extra += lm_head * h / tp * dense
    elif "lm_head" in stores - shared:
        extra += head.vocab_size * h / tp * dense
    if "embed_tokens" in stores - shared:
        extra += head.vocab_size * h / tp * dense
    return weights + Q(extra, "byte")


def medusa_weights(target: Any, heads: int, layers: int, tp: int, dtype: str | None) -> Any:
    """Medusa heads sit on the target's last hidden state: each is ``layers`` residual blocks
    (an h x h linear with bias, replicated) and its own lm_head (vocab-parallel), in the model
    dtype. No attention, so no KV cache."""
    h, vocab = target.hidden_size, target.vocab_size
    per_head = layers * (h * h + h) + vocab * h / tp
    return Q(heads * per_head * catalog.dtype_bytes(dtype or target.dtype), "byte")


def mtp_cost(
    target: Any,
    tp: int,
    quantization: str | None,
    dtype: str | None,
    kv_bytes: float,
    kv_dtype: str = "",
    split: Any = None,
) -> tuple[Any, Any]:
    """MTP layers ship in the target checkpoint and load only when MTP is on: decoder layers
    like the target's last one (full attention), sharing its embeddings and lm_head, each with
    an eh_proj fusing [embedding; hidden] (2h x h, replicated) and two norms; with their own KV.
    ``split``: their parts split as the target's (SGLang DP attention, dp_attention.py)."""
    n = max(target.mtp_layers, 1)
    if "mtp" in target.unquantized:  # ignore: ["mtp*"]: the MTP layers stay in the model dtype
        quantization = None
    stored = None
    if target.stored_weights_apply(quantization, dtype) and target.checkpoint.has_mtp(target):
        dense = catalog.dtype_bytes(dtype or target.dtype)
        stored = target.checkpoint.bytes_per_rank(
            target, tp, part="mtp", dtype_bytes=dense, split=split
        )
        stored = Q(stored, "byte")
    last = target.num_layers - 1
    layer = replace(
        target,
        num_layers=n,
        # the config's own kinds where it lists the MTP layers (Step-3.5-Flash: sliding, dense)
        mixers=target.mtp_mixers[:n] if len(target.mtp_mixers) >= n else (FULL,) * n,
        ffns=target.mtp_ffns[:n] if len(target.mtp_ffns) >= n else (target.ffn(last),) * n,
        vocab_size=0,
        vision_params=0,
        checkpoint=None,  # the layers' shape only; stored MTP tensors are counted above
    )
    weights = layer.weight_bytes_per_rank(tp, 1, quantization, dtype, split=split)
    h = target.hidden_size
    weights += Q(n * (2 * h * h + 2 * h) * catalog.dtype_bytes(dtype or target.dtype), "byte")
    if stored is not None:  # the checkpoint's MTP tensors, as stored
        weights = stored
    # the same KV layout as the target's layers (fp8_ds_mla included)
    kv_ranks = (split.attention if split is not None else 0) or tp
    per_token = layer.kv_layout(kv_ranks, 1, kv_bytes, kv_dtype).all_layers_per_token
    return weights, Q(per_token, "byte / token")


# The release an engine version text names (catalog.release), as rules and the budget read it
release = _version = catalog.release


@lru_cache(maxsize=64)  # engines.yaml is read once a process; each budget asks several times
def fraction_meaning(engine: str) -> str:
    """What the engine's memory fraction is a fraction of (engines.yaml memory_fraction.meaning:
    of_total, of_free, weights_and_kv_of_total)."""
    return catalog.engine_defaults(engine)["memory_fraction"]["meaning"]


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


@lru_cache(maxsize=256)  # a few engines and releases a run; engines.yaml is read once a process
def default_fraction(engine: str, engine_version: str | None) -> tuple[float, str]:
    """The engine's memory fraction when the file sets none, for its release (the newest's
    where it names none), and why."""
    spec = catalog.engine_defaults(engine)["memory_fraction"]
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


def _extensible_held(resolved: Resolved) -> float:
    """What is in use on the card when vLLM 0.34's extensible KV cache measures from (bytes):
    the CUDA context; on memory the CPU shares, what the host holds (engines.yaml
    extensible_kv_cache)."""
    spec = catalog.engine_defaults("vllm")["extensible_kv_cache"]
    held = spec["host_held_unified" if resolved.gpu.unified_memory else "context"]
    return in_bytes(_catalog_quantity(held, "[information]"))


def _extensible_margin(resolved: Resolved, activation: float) -> float:
    """The margin vLLM 0.34's measure_kv_cache_bytes keeps free of what is free after warm-up,
    beside the activation peak itself: max(1 GiB, 3 GiB on ROCm, 0.75 x the peak)."""
    spec = catalog.engine_defaults("vllm")["extensible_kv_cache"]
    floor = spec["margin_floor_rocm" if resolved.gpu.vendor == "amd" else "margin_floor"]
    return max(
        in_bytes(_catalog_quantity(floor, "[information]")), spec["margin_share"] * activation
    )


def _at_least(dep: Any, key: str) -> bool:
    """Whether the deployment's release has reached the engine's ``key`` boundary
    (engines.yaml); a manifest that names no release runs the newest."""
    boundary = catalog.engine_defaults(dep.engine).get(key)
    version = _version(dep.engine_version)
    return boundary is not None and (version is None or version >= _version(boundary))


def _before(s: Settings, key: str) -> bool:
    """Whether the deployment's release is older than the engine's ``key`` boundary
    (engines.yaml); a manifest that names no release runs the newest."""
    return _release_before(s.engine, s.engine_version, key)


def _release_before(engine: str, engine_version: str | None, key: str) -> bool:
    boundary = catalog.engine_defaults(engine).get(key)
    version = _version(engine_version)
    return boundary is not None and version is not None and version < _version(boundary)


@lru_cache(maxsize=256)  # a few engines and releases a run; every budget and what-if asks
def _graphs_in_budget_for(engine: str, engine_version: str | None) -> bool:
    defaults = catalog.engine_defaults(engine)
    if defaults.get("cuda_graphs_in_budget") is False:
        return False  # captured after the KV cache is sized (TGI)
    since = defaults.get("cuda_graphs_in_budget_since")
    if since is None:
        return True  # other engines: count them, conservatively
    version = _version(engine_version)
    return version is None or version >= _version(since)


@lru_cache(maxsize=256)  # a few engines and releases a run; every KV band's upper edge asks
def _graphs_maybe_uncharged_for(engine: str, engine_version: str | None) -> bool:
    window = catalog.engine_defaults(engine).get("graphs_maybe_uncharged")
    version = _version(engine_version)
    if not window or version is None:
        return False
    return _version(window[0]) <= version < _version(window[1])


def _is_large_gpu(resolved: Resolved, defaults: dict) -> bool:
    """Whether the engine gives this GPU its large-GPU batch defaults (``defaults``: the
    deployment's engine's, engines.yaml). Worked out once per GPU, engine and release: it
    reads only those."""
    dep, gpu = resolved.deployment, resolved.gpu
    key = (dep.engine, dep.engine_version)
    found = _LARGE_GPUS.find(gpu, key)
    if found is NOT_KEPT:
        found = _LARGE_GPUS.keep(gpu, key, _large_gpu(gpu, defaults, dep))
    return found


_LARGE_GPUS = IdentityMemo(limit=256)


def _release_on_gpu(resolved: Resolved, defaults: dict) -> tuple:
    """What settings_for reads of the engine's release and the GPU alone (``defaults``: the
    deployment's engine's, engines.yaml): whether it is vLLM's V0 engine (_is_legacy), the
    release's `derived` entry (_derived_entry), the batch defaults' tier ("large_gpu" or
    "other": _is_large_gpu) and the huge-GPU batched tokens default where it applies, else
    None. Worked out once per GPU, engine and release: every deployment asks, and they read
    only those."""
    dep, gpu = resolved.deployment, resolved.gpu
    key = (dep.engine, dep.engine_version)
    found = _RELEASES_ON_GPUS.find(gpu, key)
    if found is NOT_KEPT:
        huge = defaults.get("huge_gpu")
        gib = float(_gpu_memory(gpu, "GiB").magnitude)
        found = _RELEASES_ON_GPUS.keep(
            gpu,
            key,
            (
                _is_legacy(defaults, dep.engine_version),
                _derived_entry(defaults, dep.engine_version),
                "large_gpu" if _is_large_gpu(resolved, defaults) else "other",
                int(huge["max_num_batched_tokens"])
                if huge and gib >= float(huge["min_gib"]) and _at_least(dep, "huge_gpu_since")
                else None,
            ),
        )
    return found


_RELEASES_ON_GPUS = IdentityMemo(limit=256)


def _gpu_memory(gpu: Any, units: str) -> Any:
    """``gpu.memory.to(units)``, worked out once per GPU and unit: every budget and what-if asks
    (the conversion parses the unit's name each time), and a run has a few GPUs."""
    key = (units,)
    found = _GPU_MEMORY.find(gpu, key)
    if found is NOT_KEPT:
        found = _GPU_MEMORY.keep(gpu, key, gpu.memory.to(units))
    return found


_GPU_MEMORY = IdentityMemo(limit=256)


def _large_gpu(gpu: Any, defaults: dict, dep: Any) -> bool:
    gib = float(gpu.memory.to("GiB").magnitude)
    small = defaults.get("small_tier_capability")  # vLLM: GB10 from 0.33
    if (
        small
        and gpu.compute_capability == float(small["capability"])
        and _at_least(dep, "small_tier_capability_since")
    ):
        return False
    return gib >= float(defaults["large_gpu_min_gib"]) and "a100" not in gpu.name.lower()
