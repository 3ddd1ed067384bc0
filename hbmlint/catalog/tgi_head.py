"""TGI's LM head as its server builds it, against the architecture's count (engines.yaml ``tgi``).

The architecture counts a tied model's head once (it is the embedding) and keeps every head in
the model dtype. TGI's modelling files load the head as a tensor of its own, from the
embedding's weights when the model ties them, and through 2.1 build it with the deployment's
``--quantize`` like any linear layer. ``spec`` is ``catalog.engine_defaults("tgi")``.
"""

from __future__ import annotations

from typing import Any

from . import dtype_bytes, release, weight_format


def head_bytes_difference(
    spec: dict,
    version_text: str | None,
    target: Any,
    tensor_parallel: int,
    quantization: str | None,
    dtype: str | None,
) -> tuple[float, str]:
    """(bytes per GPU to add to the architecture's weights, why; 0 and "" when none)."""
    params = target.vocab_size * target.hidden_size / max(tensor_parallel, 1)
    if not params:
        return 0.0, ""
    dense = dtype_bytes(dtype or target.dtype)
    head = dense
    version = release(version_text)
    boundary = spec.get("head_quantized_before")
    fmt = weight_format(quantization, target) if quantization else None
    quantized = (
        fmt is not None
        and quantization in spec.get("head_quantized_formats", ())
        and boundary is not None
        and version is not None
        and version < release(boundary)
    )
    if quantized:
        head = fmt.bytes_per_param
    notes = []
    if target.tie_word_embeddings and spec.get("tied_head_own_copy"):
        # the architecture counted no head at all
        notes.append("the LM head is its own copy of the tied embedding")
        return params * head, _why(notes, quantized, quantization)
    if quantized:
        return params * (head - dense), _why(notes, quantized, quantization)
    return 0.0, ""


def _why(notes: list[str], quantized: bool, quantization: str | None) -> str:
    if quantized:
        notes.append(f"TGI before 2.2 builds the LM head in {quantization} like the linear layers")
    return "; ".join(notes)
