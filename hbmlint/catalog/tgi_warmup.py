"""How Hugging Face TGI sizes its KV cache at start-up, per release (engines.yaml ``tgi``).

The launcher picks the attention backend (and with it the KV block) and, from 3.0, a
compute-optimal ``max_batch_prefill_tokens``; the router sends one warm-up batch of that many
prefill tokens; the server runs it with the batch's own KV blocks allocated, reads the memory
still free, keeps a wiggle room back and turns the rest into blocks, adding the warm-up batch's
blocks again. Every constant lives in engines.yaml with the tag it was read at; these functions
only apply them. ``spec`` is ``catalog.engine_defaults("tgi")``.
"""

from __future__ import annotations

import math
from typing import Any

from . import release  # the package's reading of version texts


def _before(version: tuple[int, ...] | None, boundary: str | None) -> bool:
    """Whether ``version`` is older than ``boundary``; a manifest naming no release runs the
    newest."""
    return boundary is not None and version is not None and version < release(boundary)


def _by_release(entries: list[dict], version: tuple[int, ...] | None) -> Any:
    for entry in entries:
        if "before" not in entry or _before(version, entry["before"]):
            return entry
    return entries[-1]


def wiggle_room(spec: dict, version_text: str | None) -> float:
    """The share TGI keeps of the memory it sizes the cache from (TGI_WIGGLE_ROOM's default)."""
    entries = spec.get("wiggle_room_by_release")
    if not entries:
        return 1.0
    return float(_by_release(entries, release(version_text))["value"])


def attention(
    spec: dict, version_text: str | None, target: Any, gpu: Any
) -> tuple[str | None, int, str]:
    """(backend, block size, why) the launcher's resolve_attention picks; backend None before
    TGI chose one (block 16)."""
    version = release(version_text)
    where = f"TGI {version_text}" if version_text else "the newest TGI"
    if _before(version, spec.get("attention_since")):
        size = int(spec["block_size"])
        return None, size, f"{where}: paged attention, blocks of {size} tokens"
    sizes = spec["attention_block_size"]
    forced = _by_release(spec["attention_forced"], version)["model_types"]
    head = launcher_head_dim(spec, version, target)
    model_type = str(getattr(target, "model_type", "") or "")
    if head in spec["attention_head_sizes"] and model_type not in forced:
        backend, why = "flashinfer", "the default backend"
    else:
        capability = str(getattr(gpu, "compute_capability", "") or "")
        major = int(capability.split(".")[0]) if capability[:1].isdigit() else None
        paged = not _before(version, spec.get("attention_paged_below_capability_since"))
        old_card = paged and (major is None or major < 8)
        backend = "paged" if old_card else "flashdecoding"
        if model_type in forced:
            reason = f"model type {model_type} is forced off flashinfer"
        elif head == 0:
            # resolve_attention's `_` arm: "Forcing attention to '...' because head dim is not
            # supported by flashinfer, also disabling prefix caching"
            reason = (
                "the launcher finds no head size in config.json's top level (the text model's "
                "is under text_config), so it falls back and turns prefix caching off"
            )
        else:
            reason = f"head size {head} is not one flashinfer takes"
        why = reason + (" and the card is below compute capability 8.0" if old_card else "")
    size = int(sizes[backend])
    return backend, size, f"{where}: attention {backend} ({why}), blocks of {size} tokens"


def launcher_head_dim(spec: dict, version: tuple[int, ...] | None, target: Any) -> int:
    """The head size TGI's launcher reads from config.json (0: none): the top level's
    (head_dim, or hidden_size / num_attention_heads); for a config nesting its text model under
    text_config, from 3.2.1 text_config's stated head_dim, and from 3.3 a per-model-type value
    where text_config states none (engines.yaml head_dim_*)."""
    top = getattr(target, "config_top_head_dim", None)
    if top is None:  # the top level is the text model
        return int(getattr(target, "head_dim", 0) or 0)
    if top:
        return int(top)
    stated = int(getattr(target, "text_config_head_dim", 0) or 0)
    if stated and not _before(version, spec.get("head_dim_from_text_config_since")):
        return stated
    if _before(version, spec.get("head_dim_by_model_type_since")):
        return 0
    # the launcher matches the top-level model_type; the catalog keeps the text model's
    model_type = str(getattr(target, "model_type", "") or "").split("_text")[0]
    return int((spec.get("head_dim_by_model_type") or {}).get(model_type, 0))


def _flops_per_token(target: Any) -> float | None:
    """The launcher's Config::flop: none for a vision model."""
    if getattr(target, "vision", None) is not None:
        return None
    heads, kv_heads = target.num_attention_heads, target.num_kv_heads
    head, hidden = target.head_dim, target.hidden_size
    # the config's intermediate_size x (experts per token + shared experts); 1 + 0 for a dense
    # model (a MoE config's own naming of these is approximated by the catalog's fields)
    shared = 0
    if target.shared_intermediate_size and target.moe_intermediate_size:
        shared = target.shared_intermediate_size // target.moe_intermediate_size
    per_token = (target.experts_per_token or 1) if target.num_experts else 1
    intermediate = target.intermediate_size * (per_token + shared)
    attention = 2 * head * hidden * (4 * heads + 2 * kv_heads)
    return float(target.num_layers * (attention + 6 * hidden * intermediate))


def _vram_maximum(target: Any, gpu_bytes: float, shards: int, fraction: float) -> int | None:
    """The launcher's vram_maximum: prefill tokens the card holds besides the model, at TGI's
    own rough count (none for a quantized model)."""
    if target.quantization:
        return None
    experts = max(int(target.num_experts or 0), 1)
    head, layers, hidden = target.head_dim, target.num_layers, target.hidden_size
    intermediate = target.intermediate_size
    # model_vram: the attention term lacks the hidden size in TGI's own count
    attn = (target.num_attention_heads + 2 * target.num_kv_heads) * head
    layer = 3 * intermediate * experts * hidden + attn + target.num_attention_heads * head * hidden
    model = (layer * layers + 2 * hidden * target.vocab_size) * 2
    per_token = target.num_kv_heads * 2 * head * 2 * layers + (
        (intermediate + intermediate // 2) * experts * 2 * 3
    )
    available = gpu_bytes * shards * fraction * 0.95 - model
    if available < 0:
        return None
    return int(available // per_token)


def prefill_default(
    spec: dict,
    version_text: str | None,
    target: Any,
    gpu_name: str,
    gpu_bytes: float,
    shards: int,
    fraction: float,
) -> tuple[int, str] | None:
    """max_batch_prefill_tokens the 3.x launcher picks when unset, and why; None before 3.0."""
    version = release(version_text)
    if _before(version, spec.get("prefill_optimal_since")):
        return None
    where = f"TGI {version_text}" if version_text else "the newest TGI"
    card = (spec.get("smi_card") or {}).get(gpu_name)
    tflops = (spec.get("card_f16_tflops") or {}).get(card)
    for since, names in (spec.get("cards_since") or {}).items():
        if card in names and _before(version, since):
            tflops = None
    flops = _flops_per_token(target)
    optimal = int(tflops * 1e12 * shards / flops) if tflops and flops else None
    if optimal is not None and optimal > 100:
        value, why = optimal, f"{card}'s {tflops} TFLOPS x {shards} / the model's FLOPs a token"
    else:
        value, why = 4096, "the default (TGI knows no FLOPS for this card or model)"
        if not _before(version, spec.get("prefill_default_by_model_type_since")):
            model_type = str(getattr(target, "model_type", "") or "")
            by_type = spec.get("prefill_default_by_model_type") or {}
            # the launcher reads the top-level model_type; the catalog keeps the text model's
            key = next((k for k in by_type if model_type.split("_text")[0] == k), None)
            if key and getattr(target, "vision", None) is not None:
                value, why = int(by_type[key]), f"the default for {key}"
    mpe = target.max_position_embeddings
    if mpe and mpe < value:
        value, why = int(mpe), why + ", capped at max_position_embeddings"
    cap = _vram_maximum(target, gpu_bytes, shards, fraction)
    if cap is not None and cap < value:
        value, why = cap, why + ", cut to what the card's memory allows (vram_maximum)"
    return value, f"{where}: {why}"


def no_prefill_chunking(spec: dict, target: Any, block: int, deployment: Any) -> str | None:
    """Why the server runs without prefill chunking, or None: then, from 2.4.1, an unset
    max_total_tokens becomes the warm-up batch's length instead of what the KV cache holds
    (flash_causal_lm.py warmup, "sum(batch.cache_lengths)"). Chunking is off for the
    vision-language models (models/__init__.py: support_chunking=False for Gemma 3, Qwen2-VL,
    Qwen2.5-VL, Mllama, ...), with speculation, and with the paged backend (model.py)."""
    if getattr(target, "vision", None) is not None:
        return "a vision-language model"
    method = getattr(getattr(deployment, "speculative", None), "method", None)
    if method not in (None, "", "none"):
        return "speculation"
    if block == spec["attention_block_size"]["paged"]:
        return "paged attention"
    return None


def warmup_batch_tokens(
    block: int,
    prefill: int,
    max_input: int | None,
    max_total: int | None,
    speculate: int,
    max_requests: int,
) -> int:
    """KV token slots the warm-up batch holds: the router fills max_batch_prefill_tokens with
    requests of at most max_input_tokens each, every request asking for up to max_total_tokens
    (1 new token when neither is set: 2.4.1 and 3.x find them after the warm-up), and the
    server gives each request ceil((prompt + new - 1 + speculate) / block) blocks."""
    slots = 0
    for prompt in warmup_requests(prefill, max_input, max_requests):
        new = max(max_total - prompt, 1) if max_total else 1
        slots += math.ceil((prompt + new - 1 + speculate) / block) * block
    return slots


def warmup_requests(prefill: int, max_input: int | None, max_requests: int) -> list[int]:
    """The prompt lengths of the router's warm-up requests: max_batch_prefill_tokens cut into
    requests of at most max_input_tokens (backends/v3/src/client/grpc_client.rs warmup)."""
    lengths: list[int] = []
    done = 0
    while done < prefill and len(lengths) < max(max_requests, 1):
        prompt = min(max_input, prefill - done) if max_input else prefill - done
        lengths.append(prompt)
        done += prompt
    return lengths


def dense_prefill(
    spec: dict,
    version_text: str | None,
    target: Any,
    backend: str | None,
    tensor_parallel: int,
    lengths: list[int],
) -> tuple[float, str] | None:
    """(bytes, why) of the warm-up prefill's dense attention where the model's prefill with an
    image runs through SDPA on a padded batch (engines.yaml dense_prefill: Gemma 3 in 3.2.x, and
    later off flashinfer); None where it does not. The warm-up's first request carries an image,
    so its prefill takes that path: per shard, the scores and their softmax in fp32 over the
    batch padded to its longest request, and the dense masks beside them."""
    dense = spec.get("dense_prefill")
    if not dense or not lengths or getattr(target, "vision", None) is None:
        return None
    model_type = str(getattr(target, "model_type", "") or "").split("_text")[0]
    if model_type not in dense["model_types"]:
        return None
    version = release(version_text)
    if _before(version, dense.get("since")):
        return None
    if not _before(version, dense.get("flashinfer_mask_since")) and backend == "flashinfer":
        return None
    batch, longest = len(lengths), max(lengths)
    heads = max(int(target.num_attention_heads) // max(tensor_parallel, 1), 1)
    square = float(batch) * longest * longest
    copies, element = int(dense["score_copies"]), float(dense["score_bytes"])
    scores = copies * heads * square * element
    masks = int(_by_release(dense["masks_by_release"], version)["value"])
    mask_bytes = masks * square * float(dense["mask_bytes"])
    where = f"TGI {version_text}" if version_text else "the newest TGI"
    path = (
        "whatever the attention backend"
        if _before(version, dense.get("flashinfer_mask_since"))
        else f"as its backend is {backend}, not flashinfer"
    )
    shape = f"{batch} x {heads} x {longest:,}^2" if batch > 1 else f"{heads} x {longest:,}^2"
    why = (
        f"{where}: the warm-up sends an image, and {model_type}'s prefill with an image runs "
        f"through dense SDPA ({path}): scores and softmax in fp32, {copies} x {shape} x "
        f"{element:g} B = "
        f"{scores / 2**30:.2f} GiB per GPU ({heads} heads a shard), beside {masks} dense "
        f"mask{'s' if masks > 1 else ''} of {mask_bytes / masks / 2**30:.2f} GiB"
    )
    return scores + mask_bytes, why


def kv_after_warmup(
    spec: dict,
    version_text: str | None,
    free: float,
    usable: float,
    block_bytes: float,
    batch_blocks: int,
) -> float:
    """The KV bytes TGI allocates: ``free`` is cuda_memory_fraction x the card less what the
    process holds after the warm-up besides the warm-up batch's blocks (weights, activations,
    the CUDA context), ``usable`` the fraction of the card, both in bytes."""
    batch = batch_blocks * block_bytes
    if free - batch <= 0 or block_bytes <= 0:
        # the warm-up batch's blocks and its prefill do not fit under the fraction (torch's
        # per-process memory fraction): "Not enough memory to handle N prefill tokens"
        return free - batch
    wiggle = wiggle_room(spec, version_text)
    if _before(release(version_text), spec.get("wiggle_of_card_since")):
        # 2.x: the wiggle room of what is free above (1 - fraction) of the card
        room = wiggle * (free - batch)
    else:
        # 3.x: free above (1 - fraction x wiggle) of the card
        room = max(free - batch - (1 - wiggle) * usable, 0.0)
    return (math.floor(room / block_bytes) + batch_blocks) * block_bytes
