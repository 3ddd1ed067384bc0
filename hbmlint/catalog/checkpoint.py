"""A checkpoint's weights as stored: safetensors headers read into a compact summary, and the
bytes each GPU holds once the engine has split them.

A safetensors file starts with 8 bytes (little-endian header length) and a JSON header giving
each tensor's dtype, shape and byte range; the tensors follow. The header is all hbmlint reads,
never the weights. Tensors of repeated layers (and experts) are grouped by name pattern, so the
summary of a 600B-parameter checkpoint is a few KB: it is what the lock directory and the cache
keep.
"""

from __future__ import annotations

import json
import math
import re
import struct
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..records import dataclass

SUMMARY_VERSION = 1
# Headers are a few hundred KB even for the largest checkpoints; refuse anything absurd.
MAX_HEADER_BYTES = 100 * 1024 * 1024

_LAYER = re.compile(r"(?:^|\.)layers\.(\d+)\.")
_NUMBER = re.compile(r"(?<=\.)\d+(?=\.|$)")
# Tensors the engines do not load as weights: rotary inverse frequencies (a buffer rebuilt at
# load time), EAGLE-3's target-to-draft vocabulary map (vLLM skips t2d).
_NOT_LOADED = re.compile(r"(rotary_emb\.inv_freq|(^|\.)t2d)$")
_MTP = re.compile(r"(^|\.)mtp[._]|(^|\.)mtp$")
_EMBED = re.compile(r"(^|\.)embed_tokens\.weight$")
_LM_HEAD = re.compile(r"(^|\.)lm_head\.weight$")
_VISION = re.compile(r"vision|visual|image_newline|mm_projector|multi_modal_projector")
# A decoder layer's attention (or linear-attention / state) mixer, and its MLP parts
_ATTENTION = re.compile(r"\.(self_attn|attn|attention|linear_attn|mixer)\.")
_SHARED_EXPERT = re.compile(r"\.shared_experts?\.")
_DENSE_MLP = re.compile(r"\.(mlp|feed_forward)\.")


class CheckpointError(ValueError):
    """A safetensors header or index that cannot be read."""


@dataclass(frozen=True)
class TensorGroup:
    """Tensors alike but for their layer (and expert) numbers."""

    name: str  # the name with its numbers replaced by '*'
    dtype: str
    shape: tuple[int, ...]  # of one tensor
    nbytes: int  # stored bytes of one tensor
    layers: tuple[int, ...]  # the decoder layers holding it; () outside the layer stack
    count: int  # tensors per layer (experts), or in all when outside the layer stack

    @property
    def total(self) -> int:
        return self.nbytes * self.count * max(1, len(self.layers))


@dataclass(frozen=True)
class Checkpoint:
    """What the stored checkpoint holds: the index's total and, when headers were read, every
    tensor group."""

    origin: str  # where it was read: "the Hub", "the local Hugging Face cache", a lock file
    revision: str | None = None
    total_size: int | None = None  # model.safetensors.index.json metadata.total_size
    groups: tuple[TensorGroup, ...] = ()

    @property
    def stored_bytes(self) -> int:
        if self.groups:
            return sum(g.total for g in self.groups)
        return int(self.total_size or 0)

    def without_vision(self) -> Checkpoint:
        """The checkpoint less its vision tower and projector tensors (what an engine that
        builds no vision tower loads)."""
        groups = tuple(g for g in self.groups if not _VISION.search(g.name))
        return replace(self, groups=groups, total_size=None)  # the index's total holds the tower

    # ------------------------------------------------------------------ persistence
    def to_json(self) -> dict:
        return {
            "version": SUMMARY_VERSION,
            "revision": self.revision,
            "total_size": self.total_size,
            "groups": [
                {
                    "name": g.name,
                    "dtype": g.dtype,
                    "shape": list(g.shape),
                    "bytes": g.nbytes,
                    "layers": _ranges(g.layers),
                    "count": g.count,
                }
                for g in self.groups
            ],
        }

    @classmethod
    def from_json(cls, data: Any, origin: str) -> Checkpoint:
        """Read a summary written by to_json; CheckpointError if it is not one."""
        try:
            if not isinstance(data, dict) or data.get("version") != SUMMARY_VERSION:
                raise CheckpointError("not a tensor-size summary of this hbmlint version")
            groups = tuple(
                TensorGroup(
                    name=str(g["name"]),
                    dtype=str(g["dtype"]),
                    shape=tuple(int(n) for n in g["shape"]),
                    nbytes=int(g["bytes"]),
                    layers=_unranges(str(g.get("layers") or "")),
                    count=int(g["count"]),
                )
                for g in data.get("groups") or []
            )
            total = data.get("total_size")
            return cls(
                origin=origin,
                revision=data.get("revision"),
                total_size=int(total) if isinstance(total, int) else None,
                groups=groups,
            )
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, CheckpointError):
                raise
            raise CheckpointError(f"malformed tensor-size summary ({exc})") from exc

    # ------------------------------------------------------------------ bytes per rank
    def bytes_per_rank(
        self,
        arch: Any,
        tp: int,
        pp: int = 1,
        expert_parallel: int = 1,
        part: str = "model",
        dtype_bytes: float | None = None,
        redundant_experts: int = 0,
        split: Any = None,
        stage: int | None = None,
    ) -> float:
        """Stored bytes on the busiest GPU (with PP: the heaviest stage's, or stage ``stage``'s).
        ``part`` is "model" (what the engine loads for the model itself: MTP layers and a tied
        lm_head left out) or "mtp" (the MTP layers only).
        Split the way vLLM shards: column/row-parallel linears and embeddings over TP, K/V
        replicated once TP exceeds the KV heads, experts over EP (whole) or TP, norms, routers
        and MLA's down-projections whole on every rank; layers over PP. With ``dtype_bytes``
        the floating-point weights are counted at that width (the engine casts them to the
        model dtype); quantized values and their scales stay as stored."""
        from .architecture import pipeline_stages

        layers = arch.num_layers
        # each stage's own layers as the engine splits them (vLLM get_pp_indices), the
        # embeddings and vision tower on the first, the final norm and lm_head on the last
        stages = pipeline_stages(layers, pp) if pp > 1 and part != "mtp" else [range(layers)]
        where = {layer: i for i, st in enumerate(stages) for layer in st}
        each = [0.0] * len(stages)
        for group in self.groups:
            share = _share(group, arch, tp, expert_parallel, redundant_experts, split)
            if share is None:
                continue
            mtp = bool(_MTP.search(group.name)) or any(i >= layers for i in group.layers)
            if (part == "mtp") != mtp:
                continue
            if part == "model" and group.name == "lm_head.weight" and arch.tie_word_embeddings:
                continue  # tied: the engine reuses the embedding
            if part == "mtp" and re.search(r"embed_tokens|shared_head\.head|lm_head", group.name):
                continue  # vLLM shares the target's embedding and lm_head with MTP layers
            one = group.nbytes * group.count * share * _cast(group, dtype_bytes)
            if len(stages) == 1:
                each[0] += one * max(1, len(group.layers))
            elif group.layers:
                for layer in group.layers:
                    if layer in where:
                        each[where[layer]] += one
            elif re.search(r"lm_head|^output\.weight$|^(model\.)?norm\.weight$", group.name):
                each[-1] += one
            else:  # embeddings, vision tower: the first stage
                each[0] += one
        if stage is not None and len(each) > 1:
            return each[stage]
        return max(each)

    def stored_parts(self) -> frozenset[str]:
        """Which of a speculator head's own "embed_tokens" and "lm_head" the checkpoint holds."""
        names = [g.name for g in self.groups]
        parts = set()
        if any(_EMBED.search(n) for n in names):
            parts.add("embed_tokens")
        if any(_LM_HEAD.search(n) for n in names):
            parts.add("lm_head")
        return frozenset(parts)

    def part_bytes(self, arch: Any, tp: int, part: str, dtype_bytes: float | None = None) -> float:
        """Bytes on one rank of the head's own "embed_tokens" or "lm_head" tensors."""
        pattern = _EMBED if part == "embed_tokens" else _LM_HEAD
        total = 0.0
        for group in self.groups:
            share = _share(group, arch, tp, 1)
            if share is None or not pattern.search(group.name):
                continue
            total += group.nbytes * group.count * share * _cast(group, dtype_bytes)
        return total

    def has_mtp(self, arch: Any) -> bool:
        return any(
            _MTP.search(g.name) or any(i >= arch.num_layers for i in g.layers) for g in self.groups
        )


_FLOAT_WIDTH = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2}


def _cast(group: TensorGroup, dtype_bytes: float | None) -> float:
    """The factor a cast to the model dtype changes a stored tensor's size by."""
    width = _FLOAT_WIDTH.get(group.dtype)
    if not dtype_bytes or width is None:
        return 1.0
    if re.search(r"scale|zero|absmax|quant_map|SCB|e_score_correction", group.name):
        return 1.0
    return dtype_bytes / width


def _share(
    group: TensorGroup,
    arch: Any,
    tp: int,
    expert_parallel: int,
    redundant_experts: int = 0,
    split: Any = None,
) -> float | None:
    """The fraction of this tensor one rank holds, or None when the engine does not load it.
    ``split``: a Sharding whose parts (attention, embed, lm_head, dense_mlp, shared_experts)
    are split over other ranks than TP; 0 or no split: over TP."""
    name = group.name

    def ranks(part: str) -> int:
        return (getattr(split, part, 0) if split is not None else 0) or tp

    if _NOT_LOADED.search(name):
        return None
    if len(group.shape) <= 1:
        return 1.0  # norms, biases, per-tensor scales: small, counted whole
    if re.search(r"(mlp\.gate|router[^.]*|gate)\.(weight|e_score_correction_bias)$", name) or (
        re.search(r"\.(q_a_proj|kv_a_proj_with_mqa|q_a_layernorm|kv_a_layernorm)\.", name)
    ):
        return 1.0  # routers and MLA's down-projections are replicated
    if re.match(r"(model\.)?fc\.", name):
        return 1.0  # EAGLE's fc fusing hidden states: a replicated linear
    if re.search(r"experts|block_sparse_moe\.(input|output)_linear", name) and (
        "shared_expert" not in name
    ):
        experts = max(arch.num_experts, 1)
        if expert_parallel > 1:
            return math.ceil((experts + redundant_experts) / expert_parallel) / experts
        return 1 / tp
    if split is not None and not _VISION.search(name):
        if _EMBED.search(name):
            return 1 / ranks("embed")
        if _LM_HEAD.search(name):
            return 1 / ranks("lm_head")
        if _SHARED_EXPERT.search(name):
            return 1 / ranks("shared_experts")
        if _DENSE_MLP.search(name):
            return 1 / ranks("dense_mlp")
        if _ATTENTION.search(name):
            attention = ranks("attention")
            if re.search(r"\.(k_proj|v_proj|wk|wv)\.", name) and arch.num_kv_heads:
                return arch.kv_heads_per_rank(attention) / arch.num_kv_heads
            return 1 / attention
    if re.search(r"\.(k_proj|v_proj|wk|wv)\.", name) and arch.num_kv_heads:
        return arch.kv_heads_per_rank(tp) / arch.num_kv_heads
    return 1 / tp


def summarize(
    tensors: dict[str, tuple[str, list[int], int]],
    origin: str,
    revision: str | None = None,
    total_size: int | None = None,
) -> Checkpoint:
    """Group {name: (dtype, shape, stored bytes)} by name pattern."""
    groups: dict[tuple, dict[int, int]] = {}
    for name, (dtype, shape, nbytes) in tensors.items():
        match = _LAYER.search(name) if not _VISION.search(name) else None
        layer = int(match.group(1)) if match else -1
        pattern = _NUMBER.sub("*", name)
        key = (pattern, dtype, tuple(shape), nbytes)
        per_layer = groups.setdefault(key, {})
        per_layer[layer] = per_layer.get(layer, 0) + 1
    out = []
    for (pattern, dtype, shape, nbytes), per_layer in sorted(groups.items()):
        outside = per_layer.pop(-1, 0)
        if outside:
            out.append(TensorGroup(pattern, dtype, shape, nbytes, (), outside))
        # layers with the same number of tensors of this kind form one group
        by_count: dict[int, list[int]] = {}
        for layer, count in per_layer.items():
            by_count.setdefault(count, []).append(layer)
        for count, layers in sorted(by_count.items()):
            out.append(TensorGroup(pattern, dtype, shape, nbytes, tuple(sorted(layers)), count))
    return Checkpoint(origin=origin, revision=revision, total_size=total_size, groups=tuple(out))


def parse_header(raw: bytes) -> dict[str, tuple[str, list[int], int]]:
    """{name: (dtype, shape, stored bytes)} from a safetensors header's JSON bytes."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise CheckpointError(f"safetensors header is not JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise CheckpointError("safetensors header is not a JSON object")
    tensors = {}
    for name, info in data.items():
        if name == "__metadata__":
            continue
        try:
            start, end = info["data_offsets"]
            tensors[name] = (str(info["dtype"]), [int(n) for n in info["shape"]], int(end - start))
        except (KeyError, TypeError, ValueError) as exc:
            raise CheckpointError(f"safetensors header entry {name!r} is malformed") from exc
    return tensors


def header_length(first8: bytes) -> int:
    if len(first8) < 8:
        raise CheckpointError("file too short for a safetensors header")
    (length,) = struct.unpack("<Q", first8[:8])
    if length > MAX_HEADER_BYTES:
        raise CheckpointError(f"safetensors header of {length} bytes is implausibly large")
    return length


def read_local_header(path: Path) -> dict[str, tuple[str, list[int], int]]:
    """The header of a safetensors file on disk: 8 bytes, then the header, nothing more."""
    from ..files import FileReadError, open_regular

    try:
        # one open, checked on its descriptor: a FIFO or device named *.safetensors, or a file
        # swapped after a check, is never read
        with open_regular(path) as handle:
            length = header_length(handle.read(8))
            raw = handle.read(length)
    except FileReadError as exc:
        raise CheckpointError(f"{path.name}: {exc.reason}") from None
    if len(raw) < length:
        raise CheckpointError(f"{path.name}: truncated safetensors header")
    return parse_header(raw)


def local_checkpoint(snapshot: Path, origin: str) -> Checkpoint | None:
    """The summary of a checkpoint whose safetensors files are on disk (a serving box's Hugging
    Face cache), or only its index's total when the weights are not; None when neither is."""
    index_path = snapshot / "model.safetensors.index.json"
    total = None
    files: list[str] = []
    if index_path.is_file():
        from ..files import FileReadError, read_bytes

        try:
            index = read_index(read_bytes(index_path, MAX_HEADER_BYTES))
        except FileReadError as exc:
            raise CheckpointError(f"{index_path.name}: {exc.reason}") from exc
        total = index[0]
        files = sorted(set(index[1].values()))
    elif (snapshot / "model.safetensors").exists():
        files = ["model.safetensors"]
    elif (snapshot / "consolidated.safetensors").exists():  # Mistral's own format
        files = ["consolidated.safetensors"]
    if not files and total is None:
        return None
    tensors: dict[str, tuple[str, list[int], int]] = {}
    for name in files:
        path = snapshot / name
        if not path.is_file():  # the index is cached but the weights are not
            return Checkpoint(origin, snapshot.name, total) if total else None
        tensors.update(read_local_header(path))
    return summarize(tensors, origin, snapshot.name, total)


def read_index(raw: bytes) -> tuple[int | None, dict[str, str]]:
    """(metadata.total_size, weight_map) of a model.safetensors.index.json."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise CheckpointError(f"safetensors index is not JSON ({exc})") from exc
    if not isinstance(data, dict) or not isinstance(data.get("weight_map"), dict):
        raise CheckpointError("safetensors index has no weight_map")
    total = (data.get("metadata") or {}).get("total_size")
    weight_map = {str(k): str(v) for k, v in data["weight_map"].items()}
    for shard in weight_map.values():
        if "/" in shard or "\\" in shard or shard.startswith("."):
            raise CheckpointError(f"safetensors index names an unexpected file {shard!r}")
    return (int(total) if isinstance(total, (int, float)) else None), weight_map


def _ranges(layers: tuple[int, ...]) -> str:
    """(0, 1, 2, 5) -> "0-2,5": a 61-layer stack stays one short string."""
    parts = []
    start = prev = None
    for n in layers:
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            parts.append(f"{start}-{prev}" if prev != start else str(start))
            start = prev = n
    if start is not None:
        parts.append(f"{start}-{prev}" if prev != start else str(start))
    return ",".join(parts)


def _unranges(text: str) -> tuple[int, ...]:
    out: list[int] = []
    for part in filter(None, text.split(",")):
        low, _, high = part.partition("-")
        out.extend(range(int(low), int(high or low) + 1))
    return tuple(out)
