"""SGLang's data-parallel attention: which parts of a model each GPU holds whole, split over the
attention-TP group, or split over the whole TP group (catalog/engines.yaml sglang.dp_attention
says what SGLang's model files do, with the releases read).

With ``--tp T --dp D --enable-dp-attention`` the T GPUs of one TP group run D attention-DP
ranks; each rank's attention (and KV heads) is split over T / D GPUs, the MoE and dense MLP
over all T (or the EP group), lm_head over T unless ``--enable-dp-lm-head``.
"""

from __future__ import annotations

from typing import Any

from . import catalog
from .catalog.architecture import Sharding

_version = catalog.release


def _since(boundary: str | None, engine_version: str | None) -> bool:
    """Whether the release is at or after ``boundary`` (no boundary: every release; a manifest
    that names no release runs the newest)."""
    version = _version(engine_version)
    return boundary is None or version is None or version >= _version(boundary)


def forced_data(
    target: Any,
    engine: str,
    engine_version: str | None,
    tensor_parallel: int,
    enabled: bool = False,
) -> int:
    """The attention-DP size SGLang sets itself, else 0: TP where ``enabled``
    (--enable-dp-attention) on a release before engines.yaml dp_size_is_tp_before, and for
    DeepSeek V3.2 on some releases whatever the command says (forced_model_types). A manifest
    that names no release runs the newest, which sets none."""
    if engine != "sglang":  # (every other engine's budget asks)
        return 0
    spec = catalog.engine_defaults("sglang").get("dp_attention") or {}
    version = _version(engine_version)
    if version is None:
        return 0
    before = spec.get("dp_size_is_tp_before")
    if enabled and before and version < _version(before):
        return tensor_parallel
    window = (spec.get("forced_model_types") or {}).get(getattr(target, "model_type", ""))
    if not window:
        return 0
    since, until = window
    return tensor_parallel if _version(since) <= version < _version(until) else 0


def attention_ranks(tensor_parallel: int, data: int) -> int:
    """The attention-TP size: TP / D (SGLang asserts that D divides TP; where it does not, the
    engine refuses, and the budget keeps plain TP)."""
    if data <= 1 or tensor_parallel % data:
        return tensor_parallel
    return tensor_parallel // data


def sharding(
    target: Any,
    engine: str,
    engine_version: str | None,
    tensor_parallel: int,
    data: int,
    whole_parts: tuple[str, ...] = (),
) -> Sharding | None:
    """How ``target``'s parts are split on one GPU under SGLang's DP attention with ``data``
    attention-DP ranks in a TP group of ``tensor_parallel``, and with the flags in
    ``whole_parts`` ("dp_lm_head", "dense_mlp_whole", "shared_experts_whole"); None where
    nothing differs from plain TP (another engine, D of 1 and no such flag, or a model whose
    SGLang file keeps its parts over TP)."""
    if engine == "vllm":
        return _vllm_sharding(target, whole_parts)
    if engine == "trtllm":
        # enable_attention_dp: attention runs at a TP size of 1 on every GPU of the group, each
        # serving requests of its own, so its projections and every KV head are whole there
        # (tensorrt_llm/_torch: the Mapping's attention TP size is 1 with attention DP). What a
        # model file keeps whole besides (a dense MLP) differs by model: not counted, so the
        # weights here are at least what the engine holds.
        return Sharding(attention=1) if data > 1 else None
    if engine != "sglang":
        return None
    spec = catalog.engine_defaults("sglang").get("dp_attention") or {}
    model_type = getattr(target, "model_type", "")
    parts: dict[str, int] = {}
    attention_since = spec.get("attention_since") or {}
    attention = attention_ranks(tensor_parallel, data)
    if (
        attention != tensor_parallel
        and model_type in attention_since
        and _since(attention_since[model_type], engine_version)
    ):
        embed_since = (spec.get("embed_attention_tp_since") or {}).get(model_type, "")
        if embed_since == "":
            embed = tensor_parallel  # not read for this model: over the whole TP group
        elif _since(embed_since, engine_version):
            embed = attention
        else:
            embed = 1  # whole on every GPU
        parts.update(attention=attention, embed=embed, lm_head=tensor_parallel)
        if "dp_lm_head" in whole_parts:  # --enable-dp-lm-head: over the attention-TP group
            parts["lm_head"] = attention
    if model_type in (spec.get("whole_mlp_model_types") or ()):
        if "dense_mlp_whole" in whole_parts:
            parts["dense_mlp"] = 1
        if "shared_experts_whole" in whole_parts and getattr(target, "is_moe", False):
            parts["shared_experts"] = 1
    return Sharding(**parts) if parts else None


# Text model types of the vLLM model classes that set supports_encoder_tp_data (vllm-project/
# vllm@v0.33.0 vllm/model_executor/models: qwen2_vl.py, qwen2_5_vl.py, qwen3_vl.py and
# qwen3_vl_moe.py's subclass, glm4_1v.py, mllama4.py, kimi_k25.py, ...); other towers fall back
# to splitting their weights over TP ("falls back to weights", config/multimodal.py)
_ENCODER_DATA_PARALLEL = (
    "qwen2_vl",
    "qwen2_5_vl",
    "qwen3_vl",
    "qwen3_vl_moe",
    "glm4v",
    "glm4v_moe",
    "llama4",
    "kimi_k2",  # Kimi-K2.5's text model under its MoonViT tower
)


def _vllm_sharding(target: Any, whole_parts: tuple[str, ...]) -> Sharding | None:
    """vLLM's --mm-encoder-tp-mode data ("vision_whole"): the vision tower's full weights on
    every TP rank, each encoding part of the batch, for the towers that support it."""
    if "vision_whole" not in whole_parts or not getattr(target, "vision_params", 0):
        return None
    model_type = str(getattr(target, "model_type", "")).removesuffix("_text")
    return Sharding(vision=1) if model_type in _ENCODER_DATA_PARALLEL else None


def nextn_sharding(target: Any, s: Any) -> Sharding | None:
    """The split of SGLang's MTP (NextN) draft model of ``target`` under budget settings ``s``:
    the target's, for the model types whose NextN file builds its layer, embedding and lm_head
    as the target's (engines.yaml sglang.dp_attention nextn_model_types); else None."""
    spec = catalog.engine_defaults("sglang").get("dp_attention") or {}
    if getattr(target, "model_type", "") not in (spec.get("nextn_model_types") or ()):
        return None
    return sharding(
        target,
        s.engine,
        s.engine_version,
        s.tensor_parallel,
        s.attention_data_parallel,
        s.whole_parts,
    )


def describe(split: Sharding, tensor_parallel: int, data: int, engine: str = "sglang") -> str:
    """The `assumed` line for a budget whose parts are not all split over TP."""

    def where(ranks: int) -> str:
        ranks = ranks or tensor_parallel
        return "whole on each GPU" if ranks == 1 else f"split over {ranks} GPUs"

    said = []
    if split.attention:
        if engine == "trtllm":
            said.append(
                "attention weights and KV heads whole on each GPU (TensorRT-LLM attention DP "
                f"over {tensor_parallel} GPUs, each serving requests of its own; a model that "
                "keeps more whole there holds more weights than counted)"
            )
        else:
            said.append(
                f"attention weights and KV heads {where(split.attention)} (SGLang DP attention: "
                f"TP {tensor_parallel} / DP {data}), the input embedding {where(split.embed)}, "
                f"lm_head {where(split.lm_head)}"
            )
    if split.dense_mlp:
        said.append(f"the dense layers' MLP {where(split.dense_mlp)} (--moe-dense-tp-size 1)")
    if split.shared_experts:
        said.append(f"the shared experts {where(split.shared_experts)} (DeepEP all-to-all)")
    if split.vision:
        said.append(f"the vision tower {where(split.vision)} (--mm-encoder-tp-mode data)")
    return "; ".join(said) + "; the rest as without them"
