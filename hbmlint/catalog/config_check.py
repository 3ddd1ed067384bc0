"""Parse and check a config.json before anything is computed from it.

A config.json comes from a repository, a pull request or a download: every field hbmlint reads
is checked here for its type and a sane range, so that a hostile or broken file ends in one
located finding that names the field (never an internal error, never minutes of arithmetic for
a billion layers). The ranges are wide: one hundred times the largest real model's figure or
more, so that no real checkpoint is refused.
"""

from __future__ import annotations

import math
from typing import Any

from .architecture import ConfigError

MAX_DEPTH = 64
MAX_LIST = 100_000

# field -> (lowest, highest) allowed integer; a list of such integers is accepted where some
# hybrids write one value per layer. The largest real figures (2025): 126 layers (Llama 3.1
# 405B), hidden 16,384, vocab 262,144, 10M positions (Llama 4 Scout), 512 experts.
INT_FIELDS: dict[str, tuple[int, int]] = {
    "num_hidden_layers": (0, 10_000),
    "n_layer": (0, 10_000),  # GPT-2 / GPTBigCode names
    "n_embd": (0, 1 << 20),
    "n_head": (0, 1 << 16),
    "n_inner": (0, 1 << 24),
    "n_positions": (0, 1 << 34),
    "num_layers": (0, 10_000),
    "depth": (0, 10_000),
    "num_global_layers": (0, 10_000),
    "hidden_size": (0, 1 << 20),
    "embed_dim": (0, 1 << 20),
    "width": (0, 1 << 20),
    "num_attention_heads": (0, 1 << 16),
    "num_key_value_heads": (0, 1 << 16),
    "head_dim": (0, 1 << 16),
    "attention_head_dim": (0, 1 << 16),
    "intermediate_size": (0, 1 << 24),
    "moe_intermediate_size": (0, 1 << 24),
    "expert_intermediate_size": (0, 1 << 24),
    "shared_expert_intermediate_size": (0, 1 << 24),
    "moe_shared_expert_intermediate_size": (0, 1 << 24),
    "vocab_size": (0, 1 << 26),
    "draft_vocab_size": (0, 1 << 26),
    "max_position_embeddings": (0, 1 << 34),
    "original_max_position_embeddings": (0, 1 << 34),
    "sliding_window": (0, 1 << 34),
    "sliding_window_pattern": (0, 10_000),
    "attn_layer_period": (0, 10_000),
    "attn_layer_offset": (0, 10_000),
    "full_attention_interval": (0, 10_000),
    "first_k_dense_replace": (0, 10_000),
    "interleave_moe_layer_step": (0, 10_000),
    "decoder_sparse_step": (0, 10_000),
    "moe_layer_freq": (0, 10_000),
    "num_local_experts": (0, 1 << 16),
    "num_experts": (0, 1 << 16),
    "n_routed_experts": (0, 1 << 16),
    "moe_num_experts": (0, 1 << 16),
    "n_shared_experts": (0, 1 << 16),
    "num_shared_experts": (0, 1 << 16),
    "num_experts_per_tok": (0, 1 << 16),
    "experts_per_token": (0, 1 << 16),
    "moe_topk": (0, 1 << 16),
    "kv_lora_rank": (0, 1 << 20),
    "q_lora_rank": (0, 1 << 20),
    "qk_rope_head_dim": (0, 1 << 16),
    "qk_nope_head_dim": (0, 1 << 16),
    "v_head_dim": (0, 1 << 16),
    "rotary_dim": (0, 1 << 16),
    "num_nextn_predict_layers": (0, 1024),
    "mtp_num_hidden_layers": (0, 1024),
    "medusa_num_heads": (0, 1024),
    "medusa_num_layers": (0, 1024),
    "linear_num_key_heads": (0, 1 << 16),
    "linear_num_value_heads": (0, 1 << 16),
    "linear_key_head_dim": (0, 1 << 16),
    "linear_value_head_dim": (0, 1 << 16),
    "linear_conv_kernel_dim": (0, 1024),
    "mamba_num_heads": (0, 1 << 16),
    "mamba_head_dim": (0, 1 << 16),
    "n_groups": (0, 1 << 16),
    "ssm_state_size": (0, 1 << 16),
    "conv_kernel": (0, 1024),
    "mamba_expand": (0, 1024),
    "mamba_d_state": (0, 1 << 16),
    "mamba_d_conv": (0, 1024),
    "mamba_dt_rank": (0, 1 << 20),
    "patch_size": (0, 1 << 12),
    "in_channels": (0, 1 << 12),
    "num_channels": (0, 1 << 12),
    "in_chans": (0, 1 << 12),
    "temporal_patch_size": (0, 1 << 12),
    "out_hidden_size": (0, 1 << 20),
    "projection_dim": (0, 1 << 20),
    "spatial_merge_size": (0, 1 << 8),
    "image_size": (0, 1 << 20),
    "max_num_tiles": (0, 1 << 12),
    "mm_tokens_per_image": (0, 1 << 24),
}
# numbers that may be fractional
FLOAT_FIELDS: dict[str, tuple[float, float]] = {
    "mlp_ratio": (0.0, 1024.0),
    "partial_rotary_factor": (0.0, 1.0),
    "rotary_pct": (0.0, 1.0),
    "factor": (0.0, 1e6),  # rope_scaling.factor
}
# text a config names a kind with; a list or object there is malformed
STRING_FIELDS = (
    "model_type",
    "torch_dtype",
    "dtype",
    "mamba_ssm_dtype",
    "hidden_act",
    "mlp_hidden_act",
    "position_embedding_type",
    "hybrid_override_pattern",
    "quant_method",
    "quant_algo",
)
QUANT_INT_FIELDS = {
    "bits": (1, 64),
    "w_bit": (1, 64),
    "num_bits": (1, 64),
    "group_size": (-1, 1 << 24),
    "q_group_size": (-1, 1 << 24),
}


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def parse_config_json(text: str, where: str) -> dict:
    """A config.json's object; ConfigError (naming the file) when it is not valid JSON, holds
    NaN or Infinity, nests absurdly deep, or fails ``check_config``."""
    import json  # here: most runs read no config.json (json's import ~4.6M instructions)

    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"config file {where} is not valid JSON: {exc.msg} at line {exc.lineno}"
        ) from None
    except RecursionError:
        raise ConfigError(f"config file {where} nests too deeply") from None
    except ValueError as exc:  # NaN / Infinity, or an integer of thousands of digits
        raise ConfigError(f"config file {where} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"config file {where} does not hold a JSON object")
    check_config(data)
    return data


def _depth_ok(value: Any, limit: int = MAX_DEPTH) -> bool:
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return False
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return True


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_int(section: str, key: str, value: Any, low: int, high: int) -> None:
    values = value if isinstance(value, list) else [value]
    if isinstance(value, list) and len(value) > MAX_LIST:
        raise ConfigError(f"config.json {section}{key} has {len(value):,} entries")
    for item in values:
        if item is None:
            continue
        if not _is_int(item):
            shown = type(item).__name__
            raise ConfigError(f"config.json {section}{key} must be an integer, not a {shown}")
        if not low <= item <= high:
            shown = f"{item:,}" if abs(item) < 10**30 else "an integer of over 30 digits"
            raise ConfigError(
                f"config.json {section}{key} is {shown}, outside {low:,}..{high:,}: "
                "no real model has that"
            )


def _check_section(section: str, fields: dict) -> None:
    for key, value in fields.items():
        if key in INT_FIELDS:
            _check_int(section, key, value, *INT_FIELDS[key])
        elif key in FLOAT_FIELDS and value is not None:
            low, high = FLOAT_FIELDS[key]
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ConfigError(f"config.json {section}{key} must be a number")
            if not (math.isfinite(value) and low <= value <= high):
                raise ConfigError(f"config.json {section}{key} is {value}, outside {low}..{high}")
        elif key in STRING_FIELDS and value is not None and not isinstance(value, str):
            raise ConfigError(f"config.json {section}{key} must be a string")
        elif key in ("mlp_only_layers", "layer_types", "layers_block_type") and value is not None:
            if not isinstance(value, list) or len(value) > MAX_LIST:
                raise ConfigError(f"config.json {section}{key} must be a list (one per layer)")
            if key == "mlp_only_layers" and not all(_is_int(v) for v in value):
                raise ConfigError(f"config.json {section}{key} must list layer numbers")
            if key != "mlp_only_layers" and not all(isinstance(v, str) for v in value):
                raise ConfigError(f"config.json {section}{key} must list layer kinds (strings)")
    pattern = fields.get("hybrid_override_pattern")
    if isinstance(pattern, str) and len(pattern) > MAX_LIST:
        raise ConfigError(f"config.json {section}hybrid_override_pattern is too long")


def _check_pair(section: str, key: str, value: Any) -> None:
    if value is None:
        return
    if not (
        isinstance(value, list)
        and len(value) == 2
        and all(_is_int(v) and 0 < v <= 1 << 16 for v in value)
    ):
        raise ConfigError(f"config.json {section}{key} must be two positive integers")


def _check_quantization(qconfig: Any) -> None:
    if not isinstance(qconfig, dict):
        return
    section = "quantization_config."
    for key, value in qconfig.items():
        if key in QUANT_INT_FIELDS and value is not None:
            _check_int(section, key, value, *QUANT_INT_FIELDS[key])
        elif key in STRING_FIELDS and value is not None and not isinstance(value, str):
            raise ConfigError(f"config.json {section}{key} must be a string")
    _check_pair(section, "weight_block_size", qconfig.get("weight_block_size"))
    groups = qconfig.get("config_groups")
    if isinstance(groups, dict):
        for name, group in groups.items():
            weights = group.get("weights") if isinstance(group, dict) else None
            if not isinstance(weights, dict):
                continue
            where = f"{section}config_groups.{name}.weights."
            for key in ("num_bits", "group_size"):
                if weights.get(key) is not None:
                    _check_int(where, key, weights[key], *QUANT_INT_FIELDS[key])
            _check_pair(where, "block_structure", weights.get("block_structure"))
    for key in ("modules_to_not_convert", "ignore", "llm_int8_skip_modules", "exclude_modules"):
        value = qconfig.get(key)
        if value is not None and (not isinstance(value, list) or len(value) > MAX_LIST):
            raise ConfigError(f"config.json {section}{key} must be a list of module names")


def check_config(config: dict) -> None:
    """ConfigError naming the first field hbmlint reads whose type or range is not sane."""
    if not _depth_ok(config):
        raise ConfigError(f"config.json nests deeper than {MAX_DEPTH} levels")
    sections: list[tuple[str, Any]] = [("", config)]
    for name in ("text_config", "vision_config"):
        if isinstance(config.get(name), dict):
            sections.append((f"{name}.", config[name]))
    for prefix, fields in sections:
        _check_section(prefix, fields)
        for key in ("rope_scaling", "rope_parameters"):
            if isinstance(fields.get(key), dict):
                _check_section(f"{prefix}{key}.", fields[key])
        _check_quantization(fields.get("quantization_config"))
