"""Encoder-only and encoder-decoder checkpoints: what hbmlint says instead of a budget.

vLLM serves BERT-family embedders and rerankers (BAAI/bge-m3, bge-reranker-v2-m3, intfloat's
e5, nomic-embed, gte, ModernBERT) with its pooling runner. Their attention is bidirectional
(AttentionType.ENCODER_ONLY), and vLLM keeps no KV cache for it: get_kv_cache_spec skips those
layers, and with no KV cache spec left the engine skips the memory profile and gives the KV
cache nothing (vllm-project/vllm v1/worker/gpu_model_runner.py get_kv_cache_spec,
v1/kv_cache_interface.py EncoderOnlyAttentionSpec.max_memory_usage_bytes = 0,
v1/engine/core.py _initialize_kv_caches "Attention free models don't need memory for kv
cache"; read at the snapshot of southfreebird/vllm@c36f0aa3, October 2025), since "Support
encoder-only models without KV-Cache" (vllm-project/vllm pull 21270, merged 2025-07-26, after
0.10.0 was uploaded to PyPI on 2025-07-25: release 0.10.1); unchanged in a vLLM tree of
2026-06-30 (0826joyce/vllm-serving-optimization@4e1f5bb9: EncoderOnlyAttentionSpec still holds 0
bytes, and the engine still gives attention-free models no KV memory). So
--gpu-memory-utilization reserves nothing for them: the GPU holds the weights and one batch's
activations. hbmlint's budget is a KV-cache budget, so these models are named, with their
weights where the arithmetic is known, and not budgeted.

Whisper is an encoder-decoder: vLLM caches the decoder's self-attention and a cross-attention
cache of the encoder's 1,500 frames a request (v1/kv_cache_interface.py CrossAttentionSpec),
which hbmlint's arithmetic does not describe either.
"""

from __future__ import annotations

from typing import Any

# model_type of the encoder-only architectures vLLM's registry serves for pooling (BertModel,
# RobertaModel / XLMRobertaModel and their *ForSequenceClassification rerankers, NomicBertModel,
# GteNewModel "new", Snowflake's GteModel "gte", ModernBertModel; vllm model_executor/models/
# registry.py _EMBEDDING_MODELS and _CROSS_ENCODER_MODELS)
ENCODER_ONLY_TYPES = frozenset(
    {"bert", "roberta", "xlm-roberta", "nomic_bert", "new", "gte", "modernbert"}
)
# the types whose parameters the arithmetic below describes: learned absolute positions, biased
# q/k/v/o and MLP projections, post-LayerNorm (transformers BertModel / XLMRobertaModel)
_ABSOLUTE_POSITION_TYPES = frozenset({"bert", "roberta", "xlm-roberta"})


def _int(config: dict, name: str, default: int = 0) -> int:
    value = config.get(name)
    whole = isinstance(value, int) and not isinstance(value, bool)
    return value if whole and value > 0 else default


def encoder_parameters(config: dict) -> int | None:
    """Parameters of a BERT / RoBERTa / XLM-R encoder, or None where the arithmetic does not
    describe the model: word, position and token-type embeddings with their LayerNorm; each layer
    four biased H x H projections, a biased H -> I -> H MLP and two LayerNorms; a
    *ForSequenceClassification head adds one biased H x H layer (BERT's pooler, RoBERTa's
    classifier.dense) and a biased H x labels output. An embedding model's pooler is left out:
    vLLM's BertModel skips the checkpoint's "pooler." weights (vllm model_executor/models/bert.py
    load_weights, AutoWeightsLoader skip_prefixes) and pools on its own."""
    if config.get("model_type") not in _ABSOLUTE_POSITION_TYPES:
        return None
    hidden, layers = _int(config, "hidden_size"), _int(config, "num_hidden_layers")
    vocab = _int(config, "vocab_size")
    if not (hidden and layers and vocab):
        return None
    ffn = _int(config, "intermediate_size", 4 * hidden)
    positions = _int(config, "max_position_embeddings", 512)
    types = _int(config, "type_vocab_size", 2)
    embeddings = (vocab + positions + types) * hidden + 2 * hidden
    per_layer = 4 * (hidden * hidden + hidden) + 2 * hidden * ffn + ffn + hidden + 4 * hidden
    total = embeddings + layers * per_layer
    architectures = config.get("architectures") or []
    if any(str(a).endswith("ForSequenceClassification") for a in architectures):
        labels = config.get("id2label")
        count = len(labels) if isinstance(labels, dict) and labels else 2
        count = _int(config, "num_labels", count)
        total += hidden * hidden + hidden + hidden * count + count
    return total


def whisper_parameters(config: dict) -> int | None:
    """Parameters of a Whisper checkpoint as transformers builds WhisperForConditionalGeneration:
    a stem of two width-3 convolutions (mel bins -> d_model -> d_model) and 1,500 stored
    positions; encoder layers of self-attention (q, v, out biased, k not), a biased d -> ffn -> d
    MLP and two LayerNorms; decoder layers with a cross-attention of the same shape and a third
    LayerNorm; token and 448 position embeddings; a final LayerNorm on each side; proj_out tied
    to the token embedding."""
    width = _int(config, "d_model")
    encoders, decoders = _int(config, "encoder_layers"), _int(config, "decoder_layers")
    vocab = _int(config, "vocab_size")
    if not (width and encoders and decoders and vocab):
        return None
    attention = 4 * width * width + 3 * width
    norm = 2 * width

    def mlp(ffn: int) -> int:
        return 2 * width * ffn + ffn + width

    mels = _int(config, "num_mel_bins", 80)
    stem = 3 * mels * width + width + 3 * width * width + width
    encoder = stem + _int(config, "max_source_positions", 1500) * width
    encoder += encoders * (attention + mlp(_int(config, "encoder_ffn_dim", 4 * width)) + 2 * norm)
    decoder = (vocab + _int(config, "max_target_positions", 448)) * width
    ffn = _int(config, "decoder_ffn_dim", 4 * width)
    decoder += decoders * (2 * attention + mlp(ffn) + 3 * norm)
    return encoder + decoder + 2 * norm


def _sixteen_bit(params: int) -> str:
    return f"{params / 1e9:.2f}B parameters, {params * 2 / 2**30:.2f} GiB in 16-bit"


def _architecture_names(config: dict) -> str:
    names = config.get("architectures")
    if isinstance(names, list) and names:
        return ", ".join(str(n) for n in names[:2])
    return str(config.get("model_type"))


def not_budgeted_reason(config: dict) -> tuple[str, bool] | None:
    """Why a config.json of an encoder model is not budgeted, and whether that is only a note
    (True: vLLM reserves no KV cache for it, so no fraction or context can be refused for want of
    one) rather than a budget hbmlint cannot check (False). None for any other model."""
    model_type = config.get("model_type")
    if model_type == "whisper":
        params = whisper_parameters(config)
        weights = f"; weights {_sixteen_bit(params)}" if params is not None else ""
        return (
            f"an encoder-decoder speech model (Whisper{weights}): its decoder caches keys and "
            "values beside a cross-attention cache of the encoder's frames for every request "
            "(vLLM's CrossAttentionSpec), which hbmlint's arithmetic does not describe, so its "
            "budget is not checked; the engine's start-up log gives the KV cache it allocated",
            False,
        )
    if model_type not in ENCODER_ONLY_TYPES:
        return None
    params = encoder_parameters(config)
    held = "its weights"
    if params is not None:
        # vLLM loads a float32 pooling checkpoint in float16 (vllm config/model.py
        # _resolve_auto_dtype: pooling models prefer float16; float32 configs are downcast)
        held = f"its weights ({_sixteen_bit(params)})"
    return (
        f"an encoder-only model ({_architecture_names(config)}) that vLLM serves with its "
        "pooling runner: from vLLM 0.10.1 its bidirectional attention keeps no KV cache and the "
        "memory profile is skipped, so --gpu-memory-utilization reserves nothing; the GPU "
        f"holds {held} and one batch's activations. hbmlint budgets the KV cache of decoder "
        "models only, so nothing else is checked",
        True,
    )


def model_parameters(config: dict) -> int | None:
    """The parameters of an encoder or Whisper checkpoint where the arithmetic describes it."""
    if config.get("model_type") == "whisper":
        return whisper_parameters(config)
    return encoder_parameters(config)


def is_encoder_config(config: Any) -> bool:
    return isinstance(config, dict) and (
        config.get("model_type") in ENCODER_ONLY_TYPES or config.get("model_type") == "whisper"
    )
