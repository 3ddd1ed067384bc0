"""GPU and model catalogs, and reading Hugging Face config.json files into an Architecture.

The data lives in YAML files beside this module, each entry naming its source. A model is
described by its config.json fields, verbatim, whether it comes from the catalog or from a file,
so both go through the same code.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from ..units import Q, parse_quantity

_HERE = Path(__file__).parent


def _load(name: str) -> Any:
    with open(_HERE / name, encoding="utf-8") as handle:
        return yaml.load(handle, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _key(name: str) -> str:
    """Catalog lookups ignore case and treat spaces, underscores and hyphens alike."""
    return re.sub(r"[\s_\-]+", "-", name.strip().lower())


@dataclass(frozen=True)
class GpuInfo:
    name: str
    memory: Any  # pint Quantity: what the device reports to the engine
    fp8: bool
    vendor: str = "nvidia"
    source: str = ""


@cache
def _gpu_index() -> dict[str, GpuInfo]:
    index: dict[str, GpuInfo] = {}
    for entry in _load("gpus.yaml")["gpus"]:
        info = GpuInfo(
            name=entry["name"],
            memory=parse_quantity(entry["memory"], "[information]"),
            fp8=bool(entry.get("fp8", False)),
            vendor=entry.get("vendor", "nvidia"),
            source=entry.get("source", ""),
        )
        for alias in [entry["name"], *entry.get("aliases", [])]:
            index[_key(str(alias))] = info
    return index


def find_gpu(name: str) -> GpuInfo | None:
    """The catalog GPU for a name or alias (``H100``, ``NVIDIA-H100-80GB-HBM3``), or None."""
    return _gpu_index().get(_key(name))


def gpu_names() -> list[str]:
    return sorted({info.name for info in _gpu_index().values()})


@cache
def _model_index() -> dict[str, dict]:
    index: dict[str, dict] = {}
    for entry in _load("models.yaml")["models"]:
        for alias in [entry["id"], *entry.get("aliases", [])]:
            index[_key(alias)] = entry
    return index


def find_model(name: str) -> dict | None:
    """The catalog entry (id, source, config) for a Hugging Face id or alias, or None."""
    return _model_index().get(_key(name))


def model_ids() -> list[str]:
    return sorted({entry["id"] for entry in _model_index().values()})


def dtype_bytes(dtype: str) -> int:
    return int(_formats()["dtypes"][dtype])


@cache
def _formats() -> dict:
    return _load("quantization.yaml")


def weight_format_bytes(quantization: str | None) -> float | None:
    """Bytes per parameter of a quantized linear layer, or None for the model dtype."""
    if not quantization or quantization == "none":
        return None
    value = _formats()["formats"].get(quantization)
    return None if value is None else float(value)


def kv_dtype_bytes(kv_cache_dtype: str) -> int:
    return int(_formats()["kv_cache_dtypes"][kv_cache_dtype])


@cache
def engine_defaults(engine: str) -> dict:
    return _load("engines.yaml")[engine]


class ConfigError(ValueError):
    """A config.json that cannot be read as a transformer model."""


@dataclass(frozen=True)
class Architecture:
    """What hbmlint needs to know of a decoder-only transformer, from its config.json."""

    name: str
    source: str
    hidden_size: int
    num_layers: int
    num_attention_heads: int
    num_kv_heads: int
    head_dim: int
    intermediate_size: int
    vocab_size: int
    tie_word_embeddings: bool
    dtype: str
    max_position_embeddings: int | None = None
    attention_bias: bool = False
    quantization: str | None = None  # from config.json's quantization_config
    # features present in the config that this version does not model (MLA, MoE, ...)
    approximations: tuple[str, ...] = ()

    @property
    def parameters(self) -> int:
        """Total parameters, as a model card counts them."""
        layer = self._attention_params(1) + self._mlp_params() + 2 * self.hidden_size
        embed = self.vocab_size * self.hidden_size
        lm_head = 0 if self.tie_word_embeddings else embed
        return self.num_layers * layer + embed + lm_head + self.hidden_size

    def _attention_params(self, kv_heads_share: float) -> float:
        h, hd = self.hidden_size, self.head_dim
        q_and_o = 2 * h * self.num_attention_heads * hd
        k_and_v = 2 * h * self.num_kv_heads * hd * kv_heads_share
        bias = (self.num_attention_heads + 2 * self.num_kv_heads * kv_heads_share) * hd
        return q_and_o + k_and_v + (bias if self.attention_bias else 0)

    def _mlp_params(self) -> int:
        return 3 * self.hidden_size * self.intermediate_size  # gate, up and down projections

    def kv_heads_per_rank(self, tensor_parallel: int) -> int:
        """KV heads each TP rank holds: replicated once TP exceeds the KV head count."""
        return max(1, self.num_kv_heads // tensor_parallel)

    def weight_bytes_per_rank(
        self,
        tensor_parallel: int,
        pipeline_parallel: int,
        quantization: str | None,
        dtype: str | None = None,
    ) -> Any:
        """Bytes of weights on the busiest GPU: linear layers split over TP (KV projections
        replicated when TP exceeds the KV heads), embeddings vocab-parallel, layers over PP."""
        tp, pp = tensor_parallel, pipeline_parallel
        dense_bytes = dtype_bytes(dtype or self.dtype)
        linear_bytes = weight_format_bytes(quantization) or dense_bytes
        kv_share = self.kv_heads_per_rank(tp) / self.num_kv_heads  # of the k/v projections
        layers = -(-self.num_layers // pp)
        attention = (
            2 * self.hidden_size * self.num_attention_heads * self.head_dim / tp
            + 2 * self.hidden_size * self.num_kv_heads * self.head_dim * kv_share
        )
        linear = layers * (attention + self._mlp_params() / tp)
        norms = layers * 2 * self.hidden_size + self.hidden_size
        embed = self.vocab_size * self.hidden_size / tp
        lm_head = 0 if self.tie_word_embeddings else embed
        # with PP the first stage holds the embedding and the last the lm_head
        vocab_params = embed + lm_head if pp == 1 else max(embed, lm_head)
        total = linear * linear_bytes + (norms + vocab_params) * dense_bytes
        return Q(total, "byte")

    def kv_bytes_per_token_per_rank(
        self, tensor_parallel: int, pipeline_parallel: int, kv_bytes: int
    ) -> Any:
        """K and V for every attention layer of the busiest PP stage, this rank's heads."""
        layers = -(-self.num_layers // pipeline_parallel)
        heads = self.kv_heads_per_rank(tensor_parallel)
        return Q(layers * 2 * heads * self.head_dim * kv_bytes, "byte / token")


def architecture_from_config(config: dict, name: str, source: str) -> Architecture:
    """Read the fields hbmlint needs from a Hugging Face config.json dictionary."""
    if not isinstance(config, dict):
        raise ConfigError("config.json must hold a JSON object")
    text = config.get("text_config") if isinstance(config.get("text_config"), dict) else config
    approximations: list[str] = []
    if text is not config:
        approximations.append("multimodal model: the vision tower's weights are not counted")

    def need(field: str) -> int:
        value = text.get(field)
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise ConfigError(f"config.json has no positive integer '{field}'")
        return value

    hidden = need("hidden_size")
    heads = need("num_attention_heads")
    layers = need("num_hidden_layers")
    kv_heads = text.get("num_key_value_heads") or heads
    head_dim = text.get("head_dim") or hidden // heads
    intermediate = text.get("intermediate_size") or 4 * hidden
    vocab = need("vocab_size")
    if not all(isinstance(v, int) and v > 0 for v in (kv_heads, head_dim, intermediate)):
        raise ConfigError(
            "config.json has a non-integer num_key_value_heads, head_dim or intermediate_size"
        )
    if text.get("kv_lora_rank"):
        approximations.append("MLA attention (kv_lora_rank) is counted as standard attention")
    experts = (
        text.get("num_local_experts")
        or text.get("num_experts")
        or text.get("n_routed_experts")
        or 0
    )
    if isinstance(experts, int) and experts > 1:
        approximations.append(f"mixture of experts ({experts} experts) is counted as one dense MLP")
    window_layers = text.get("layer_types") or []
    if (text.get("sliding_window") and text.get("use_sliding_window", True)) or any(
        "sliding" in str(t) for t in window_layers
    ):
        approximations.append("sliding-window layers are charged the full context")
    quant = None
    qconfig = config.get("quantization_config")
    if isinstance(qconfig, dict):
        method = str(qconfig.get("quant_method", "")).lower()
        quant = _formats()["config_quant_methods"].get(method)
    dtype = str(
        config.get("torch_dtype") or config.get("dtype") or text.get("torch_dtype") or "bfloat16"
    )
    if dtype not in _formats()["dtypes"]:
        dtype = "bfloat16"
    return Architecture(
        name=name,
        source=source,
        hidden_size=hidden,
        num_layers=layers,
        num_attention_heads=heads,
        num_kv_heads=kv_heads,
        head_dim=head_dim,
        intermediate_size=intermediate,
        vocab_size=vocab,
        tie_word_embeddings=bool(
            config.get("tie_word_embeddings", text.get("tie_word_embeddings", False))
        ),
        dtype=dtype,
        max_position_embeddings=text.get("max_position_embeddings"),
        attention_bias=bool(text.get("attention_bias", text.get("model_type") == "qwen2")),
        quantization=quant,
        approximations=tuple(approximations),
    )


def read_config_file(path: Path) -> dict:
    """Parse a config.json; ConfigError with a reason a user can act on."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except FileNotFoundError as exc:
        raise ConfigError(f"config file {path} does not exist") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"config file {path} cannot be read: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"config file {path} is not valid JSON: {exc.msg} at line {exc.lineno}"
        ) from exc
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path} does not hold a JSON object")
    return data
