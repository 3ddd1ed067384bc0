"""Models hbmlint has never seen, read from the Hugging Face Hub with the official client.

What is fetched: config.json (or Mistral's params.json), model.safetensors.index.json, and the
header of each safetensors file by ranged reads (never the weights). config.json and the index
land in the shared Hugging Face cache, as any huggingface_hub download does (vLLM reuses it);
the tensor-size summary built from the headers is kept in hbmlint's cache, keyed by commit, so
a second run needs no network. The client honours HF_TOKEN and the token `hf auth login`
saved, HF_ENDPOINT, HF_HUB_OFFLINE, HF_HOME / HF_HUB_CACHE and the proxy variables.

Every failure is a HubFailure saying how to unblock it; the caller reports it once per model
as a warning. The Hub gets one time budget for the whole run (HBMLINT_HUB_TIMEOUT seconds,
default 20): each request waits at most what is left of it, and the fetch runs in a worker
thread that is abandoned when the budget is spent, so a Hub that never answers cannot hang a
CI job. huggingface_hub is imported only here, and only when a model needs it.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from pathlib import Path
from typing import Any

from ..records import dataclass
from .checkpoint import Checkpoint, CheckpointError, local_checkpoint, read_index, summarize

DEFAULT_BUDGET_S = 20.0
# A repository id as the Hub accepts it: one slash, letters, digits, - _ . (no "..")
_REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$")
MAX_JSON_BYTES = 16 * 1024 * 1024  # config.json / index files larger than this are refused
HEADER_WORKERS = 8


class HubFailure(Exception):
    """Why a model could not be read from the Hub; ``kind`` for tests and reporters."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


@dataclass(frozen=True)
class Fetched:
    config: dict
    checkpoint: Checkpoint  # groups empty when no safetensors header could be read
    revision: str | None
    origin: str  # "the Hugging Face Hub" or "the local Hugging Face cache"


def is_hub_id(name: str) -> bool:
    return bool(_REPO_ID.match(name)) and ".." not in name


# ---------------------------------------------------------------------- run-wide state
_memo: dict[str, Fetched | HubFailure] = {}
_reported: set[str] = set()
_deadline: float | None = None
_spent: HubFailure | None = None  # set once the run's budget is gone: later fetches fail fast
_lock = threading.Lock()


def budget_seconds() -> float:
    try:
        return max(0.1, float(os.environ.get("HBMLINT_HUB_TIMEOUT", DEFAULT_BUDGET_S)))
    except ValueError:
        return DEFAULT_BUDGET_S


def _remaining() -> float:
    global _deadline
    if _deadline is None:
        _deadline = time.monotonic() + budget_seconds()
    return _deadline - time.monotonic()


def first_report(model_id: str) -> bool:
    """True the first time a failure of this model is reported in this run: one warning per
    model, not one per file naming it."""
    with _lock:
        if model_id in _reported:
            return False
        _reported.add(model_id)
        return True


def reset() -> None:
    """Forget this run's results (tests, and a long-lived process between runs)."""
    global _deadline, _spent
    _memo.clear()
    _reported.clear()
    _deadline = None
    _spent = None


def offline() -> bool:
    value = os.environ.get("HF_HUB_OFFLINE") or os.environ.get("TRANSFORMERS_OFFLINE") or ""
    return value.strip().upper() in {"1", "ON", "YES", "TRUE"}


def endpoint() -> str:
    return (os.environ.get("HF_ENDPOINT") or "https://huggingface.co").rstrip("/")


# ---------------------------------------------------------------------- the local cache
def hub_cache_dir() -> Path:
    """The shared Hugging Face cache, as huggingface_hub finds it."""
    hub = os.environ.get("HF_HUB_CACHE") or os.environ.get("HUGGINGFACE_HUB_CACHE")
    if not hub:
        home = os.environ.get("HF_HOME") or os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.join("~", ".cache"), "huggingface"
        )
        hub = os.path.join(home, "hub")
    return Path(hub).expanduser()


def _summary_path(model_id: str, revision: str) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = "models--" + model_id.replace("/", "--")
    return Path(base) / "hbmlint" / "checkpoints" / folder / f"{revision}.json"


def _store_summary(model_id: str, checkpoint: Checkpoint) -> None:
    if not checkpoint.revision:
        return
    path = _summary_path(model_id, checkpoint.revision)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps(checkpoint.to_json()), encoding="utf-8")
        os.replace(temporary, path)
    except OSError:
        pass  # a read-only home: the next run reads the headers again


def _stored_summary(model_id: str, revision: str, origin: str) -> Checkpoint | None:
    from ..files import read_text

    path = _summary_path(model_id, revision)
    try:  # bounded: never a FIFO, never a huge file (FileReadError is a ValueError)
        return Checkpoint.from_json(json.loads(read_text(path, MAX_JSON_BYTES)), origin)
    except ValueError:
        return None


def cached_checkpoint(model_id: str, config_path: Path) -> Checkpoint:
    """What hbmlint knows of the stored checkpoint of a model in the local Hugging Face cache,
    without the network: the summary kept when it was fetched, else the headers of the
    safetensors files on disk, else the index's total, else nothing (groups empty)."""
    snapshot = config_path.parent
    origin = "the local Hugging Face cache"
    found = _stored_summary(model_id, snapshot.name, origin)
    if found is not None:
        return found
    try:
        local = local_checkpoint(snapshot, origin)
    except (OSError, CheckpointError):
        local = None
    return local or Checkpoint(origin, snapshot.name)


# ---------------------------------------------------------------------- fetching
def fetch(model_id: str) -> Fetched:
    """config.json and the tensor-size summary of a Hub model; HubFailure if not possible.
    Memoised for the run."""
    global _spent
    with _lock:
        known = _memo.get(model_id)
    if isinstance(known, Fetched):
        return known
    if isinstance(known, HubFailure):
        raise known
    if offline():
        failure = HubFailure(
            "offline",
            f"model '{model_id}' is not in hbmlint's catalog nor cached, and HF_HUB_OFFLINE is "
            "set. Run `hbmlint models pull " + model_id + "` where the Hub is reachable and "
            "commit .hbmlint/models/, or unset HF_HUB_OFFLINE",
        )
        _memo[model_id] = failure
        raise failure
    if _spent is not None:  # the run's budget is gone: fail at once, in this model's words
        failure = _spent_failure(model_id)
        _memo[model_id] = failure
        raise failure
    left = _remaining()
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["value"] = _fetch(model_id)
        except BaseException as exc:  # reported in the caller's thread
            outcome["error"] = exc

    worker = threading.Thread(target=work, name=f"hbmlint-hub-{model_id}", daemon=True)
    worker.start()
    worker.join(max(0.0, left))
    if worker.is_alive():  # the budget is spent: abandon the thread, fail this and later ones
        _spent = _spent_failure(model_id)
        _memo[model_id] = _spent
        raise _spent
    if "error" in outcome:
        failure = _explain(model_id, outcome["error"])
        if failure.kind == "timeout":
            _spent = failure  # a request timed out: the Hub is too slow for this run
        _memo[model_id] = failure
        raise failure
    _memo[model_id] = outcome["value"]
    return outcome["value"]


def _spent_failure(model_id: str) -> HubFailure:
    return HubFailure(
        "timeout",
        f"model '{model_id}' was not budgeted: the Hugging Face Hub ({endpoint()}) did not "
        f"answer within {budget_seconds():g} s (hbmlint's budget for the whole run). Run "
        f"`hbmlint models pull {model_id}` once and commit .hbmlint/models/, or raise "
        "HBMLINT_HUB_TIMEOUT",
    )


def _timeout() -> float:
    return max(0.1, min(10.0, _remaining()))


def _fetch(model_id: str) -> Fetched:
    from huggingface_hub import HfApi, hf_hub_download

    api = HfApi(endpoint=endpoint())
    info = api.model_info(model_id, timeout=_timeout())
    revision = info.sha
    files = {s.rfilename for s in (info.siblings or [])}

    def download(name: str) -> dict:
        path = hf_hub_download(
            model_id, name, revision=revision, etag_timeout=_timeout(), endpoint=endpoint()
        )
        return _read_json(Path(path), name)

    if "config.json" in files or not files:
        config = download("config.json")
    elif "params.json" in files:  # Mistral's own format
        config = mistral_config(download("params.json"))
    else:
        raise HubFailure(
            "no-config",
            f"model '{model_id}' on the Hub has no config.json or params.json; point the "
            "manifest's model config at one",
        )
    origin = "the Hugging Face Hub"
    checkpoint = _stored_summary(model_id, revision, origin) if revision else None
    if checkpoint is None:
        checkpoint = _remote_checkpoint(api, model_id, revision, files, download, origin)
        _store_summary(model_id, checkpoint)
    return Fetched(config, checkpoint, revision, origin)


def _remote_checkpoint(
    api: Any, model_id: str, revision: str | None, files: set[str], download: Any, origin: str
) -> Checkpoint:
    """Headers of every safetensors file by ranged reads: the index names the shards."""
    total = None
    if "model.safetensors.index.json" in files:
        index = download("model.safetensors.index.json")
        total, weight_map = read_index(json.dumps(index).encode())
        shards = sorted(set(weight_map.values()))
    elif "model.safetensors" in files:
        shards = ["model.safetensors"]
    elif "consolidated.safetensors" in files:  # Mistral's own format (params.json beside it)
        shards = ["consolidated.safetensors"]
    else:  # only .bin / GGUF weights: the config's arithmetic it is
        return Checkpoint(origin, revision)
    from concurrent.futures import ThreadPoolExecutor

    tensors: dict[str, tuple[str, list[int], int]] = {}

    def header(shard: str) -> dict:
        meta = api.parse_safetensors_file_metadata(
            model_id, shard, revision=revision, timeout=_timeout()
        )
        return {
            name: (str(t.dtype), list(t.shape), int(t.data_offsets[1] - t.data_offsets[0]))
            for name, t in meta.tensors.items()
        }

    with ThreadPoolExecutor(max_workers=min(HEADER_WORKERS, len(shards))) as pool:
        for part in pool.map(header, shards):
            tensors.update(part)
    return summarize(tensors, origin, revision, total)


def _read_json(path: Path, name: str) -> dict:
    from ..files import read_text

    try:
        data = json.loads(read_text(path, MAX_JSON_BYTES))
    except ValueError as exc:  # FileReadError, JSONDecodeError
        raise HubFailure("bad-file", f"{name} from the Hub cannot be read: {exc}") from exc
    if not isinstance(data, dict):
        raise HubFailure("bad-file", f"{name} from the Hub does not hold a JSON object")
    return data


def mistral_config(params: dict) -> dict:
    """Mistral's params.json in config.json's terms (the fields hbmlint reads)."""
    config = {
        "hidden_size": params.get("dim"),
        "num_hidden_layers": params.get("n_layers"),
        "num_attention_heads": params.get("n_heads"),
        "num_key_value_heads": params.get("n_kv_heads"),
        "head_dim": params.get("head_dim"),
        "intermediate_size": params.get("hidden_dim"),
        "vocab_size": params.get("vocab_size"),
        "tie_word_embeddings": bool(params.get("tied_embeddings", False)),
        "torch_dtype": "bfloat16",
        "max_position_embeddings": params.get("max_position_embeddings")
        or params.get("max_seq_len"),
        "model_type": "mistral",
    }
    moe = params.get("moe")
    mla = params.get("qk_nope_head_dim")
    if isinstance(moe, dict) and (moe.get("num_shared_experts") or 0) > 0:
        # Mistral Large 3: DeepSeek-V3's layers under Mistral's names, as vLLM's adapt_config_dict
        # (transformers_utils/configs/mistral.py, _remap_moe_args) reads them
        config["model_type"] = "deepseek_v3"
        config["n_routed_experts"] = moe.get("num_experts")
        config["n_shared_experts"] = moe.get("num_shared_experts")
        config["moe_intermediate_size"] = moe.get("expert_hidden_dim")
        config["first_k_dense_replace"] = moe.get("first_k_dense_replace")
        config["moe_layer_freq"] = moe.get("route_every_n")
        config["num_experts_per_tok"] = moe.get("num_experts_per_tok")
    elif isinstance(moe, dict):
        config["num_local_experts"] = moe.get("num_experts")
        config["num_experts_per_tok"] = moe.get("num_experts_per_tok")
    if mla:  # multi-head latent attention: its latent is the KV cache
        config["model_type"] = "deepseek_v3"
        config.pop("head_dim")  # qk_nope + qk_rope: the MLA fields below give it
        for key in ("q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim"):
            config[key] = params.get(key)
        config["v_head_dim"] = params.get("v_head_dim")
    yarn = params.get("yarn")
    if isinstance(yarn, dict) and yarn.get("factor"):
        config["rope_scaling"] = {
            "type": "yarn",
            "factor": yarn["factor"],
            "original_max_position_embeddings": yarn.get("original_max_position_embeddings"),
        }
    if params.get("sliding_window"):
        config["sliding_window"] = params["sliding_window"]
    config = {k: v for k, v in config.items() if v is not None}
    quantization = params.get("quantization_config")
    vision = params.get("vision_encoder")
    if isinstance(vision, dict):  # a Pixtral tower beside the text model (vLLM's remap)
        tower = {"model_type": "pixtral", "hidden_act": "silu", **vision}
        config = {"model_type": "pixtral", "text_config": config, "vision_config": tower}
        config["torch_dtype"] = config["text_config"]["torch_dtype"]
    if isinstance(quantization, dict):  # compressed-tensors, written as config.json writes it
        config["quantization_config"] = quantization
    return config


def _explain(model_id: str, error: BaseException) -> HubFailure:
    """The failure, named the way a user can act on, from huggingface_hub's exception chain."""
    if isinstance(error, HubFailure):
        return error
    chain = []
    seen = error
    while seen is not None and seen not in chain:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    names = [type(e).__name__ for e in chain]
    status = next(
        (
            getattr(getattr(e, "response", None), "status_code", None)
            for e in chain
            if getattr(getattr(e, "response", None), "status_code", None)
        ),
        None,
    )
    where = endpoint()
    if "GatedRepoError" in names or (status == 403):
        return HubFailure(
            "gated",
            f"model '{model_id}' is gated on the Hub: request access at {where}/{model_id} and "
            "set HF_TOKEN (or run `hf auth login`) to a token that has it",
        )
    if "RepositoryNotFoundError" in names or status == 401:
        return HubFailure(
            "not-found",
            f"model '{model_id}' was not found on the Hub ({where}): check the name, or if it is "
            "private set HF_TOKEN (or run `hf auth login`) to a token that can read it",
        )
    if "RevisionNotFoundError" in names or "RemoteEntryNotFoundError" in names:
        return HubFailure(
            "not-found", f"model '{model_id}' on the Hub has no such revision or file ({error})"
        )
    if status == 429:
        return HubFailure(
            "rate-limited",
            f"the Hub rate-limited hbmlint while reading '{model_id}'; set HF_TOKEN for a higher "
            f"limit, or run `hbmlint models pull {model_id}` once and commit .hbmlint/models/",
        )
    if status is not None and status >= 500:
        return HubFailure(
            "server-error",
            f"the Hub ({where}) answered HTTP {status} for '{model_id}'; try again later, or run "
            f"`hbmlint models pull {model_id}` when it is up and commit .hbmlint/models/",
        )
    if any("Timeout" in n for n in names):
        return HubFailure(
            "timeout",
            f"the Hugging Face Hub ({where}) did not answer in time for '{model_id}'; run "
            f"`hbmlint models pull {model_id}` once and commit .hbmlint/models/, or raise "
            "HBMLINT_HUB_TIMEOUT",
        )
    if "OfflineModeIsEnabled" in names:
        return HubFailure(
            "offline",
            f"model '{model_id}' is not cached and HF_HUB_OFFLINE is set; run `hbmlint models "
            f"pull {model_id}` where the Hub is reachable and commit .hbmlint/models/",
        )
    if any(n in ("ConnectError", "ProxyError", "LocalEntryNotFoundError") for n in names):
        return HubFailure(
            "unreachable",
            f"the Hugging Face Hub ({where}) cannot be reached to read '{model_id}' (check the "
            f"network, HF_ENDPOINT and proxy settings), or run `hbmlint models pull {model_id}` "
            "where it is reachable and commit .hbmlint/models/",
        )
    if isinstance(error, (CheckpointError, ValueError)):
        return HubFailure("bad-file", f"'{model_id}' on the Hub: {error}")
    detail = str(error).splitlines()[0] if str(error) else type(error).__name__
    return HubFailure("error", f"'{model_id}' could not be read from the Hub: {detail}")
