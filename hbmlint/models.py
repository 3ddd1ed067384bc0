"""`hbmlint models`: where each model's figures come from, and `hbmlint models pull`, which
writes the lock directory (.hbmlint/models/) from the Hub or the local Hugging Face cache."""

from __future__ import annotations

import subprocess
from pathlib import Path

from . import catalog
from .catalog import hf_cache_config, lockdir, read_config_file
from .catalog.architecture import ConfigError
from .catalog.checkpoint import Checkpoint
from .catalog.encoders import is_encoder_config
from .catalog.hub import HubFailure, cached_checkpoint, fetch, hub_cache_dir, is_hub_id


def describe(checkpoint: Checkpoint | None) -> str:
    if checkpoint is not None and checkpoint.groups:
        gib = checkpoint.stored_bytes / 2**30
        return f"stored tensors ({gib:,.2f} GiB, {len(checkpoint.groups)} tensor groups)"
    if checkpoint is not None and checkpoint.total_size:
        gib = checkpoint.total_size / 2**30
        return f"parameter arithmetic (index only: {gib:,.2f} GiB stored)"
    return "parameter arithmetic from config.json"


def rows() -> list[tuple[str, str]]:
    """(model id, where its figures come from), lock directory first as resolution reads it."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for entry in lockdir.entries(None):
        rev = f" @{entry.revision[:12]}" if entry.revision else ""
        out.append((entry.model_id, f"lock {entry.path}{rev}: {describe(entry.checkpoint)}"))
        seen.add(entry.model_id)
    for model_id in catalog.model_ids():
        if model_id not in seen:
            config = (catalog.find_model(model_id) or {}).get("config") or {}
            # DeepSeek V4 and encoder models are listed only to say they are not budgeted
            # (UnmodelledArchitecture; catalog/encoders.py)
            if isinstance(config.get("compress_ratios"), list) or is_encoder_config(config):
                out.append((model_id, "catalog: listed, not budgeted (not modelled)"))
            else:
                out.append((model_id, "catalog: parameter arithmetic from config.json"))
            seen.add(model_id)
    hub = hub_cache_dir()
    for folder in sorted(hub.glob("models--*")) if hub.is_dir() else []:
        model_id = folder.name.removeprefix("models--").replace("--", "/", 1)
        config = hf_cache_config(model_id)
        if model_id in seen or config is None:
            continue
        out.append(
            (model_id, f"Hugging Face cache: {describe(cached_checkpoint(model_id, config))}")
        )
    return out


def default_lock_dir() -> Path:
    """The nearest existing lock directory, else .hbmlint/models/ at the repository root (the
    working directory outside a git repository)."""
    found = lockdir.lock_dir(None)
    if found is not None:
        return found
    try:
        top = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        top = ""
    return Path(top or ".") / lockdir.LOCK_DIR


def models_in(target: str) -> list[str]:
    """The model ids (targets and drafters) the manifests under ``target`` name."""
    from .formats import detect_format
    from .lint import discover
    from .yamlsrc import load_documents

    names: list[str] = []
    for path, display in discover([target]):
        try:
            text = path.read_bytes().decode("utf-8-sig")
        except (OSError, UnicodeDecodeError):
            continue
        documents, _ = load_documents(text)
        for document in documents:
            module = detect_format(document.data)
            if module is None:
                continue
            deployments, _ = module.to_deployments(document, path, display)
            for deployment in deployments:
                for ref in (deployment.model, deployment.speculative.model):
                    name = getattr(ref, "name", None)
                    if name and ref.config is None and name not in names:
                        names.append(name)
    return names


def pull(name: str, destination: Path) -> tuple[str, bool]:
    """Write one model's lock file; (what happened, whether it worked)."""
    if not is_hub_id(name):
        return f"{name}: not a Hugging Face model id (organisation/name)", False
    try:
        fetched = fetch(name)
        config, checkpoint = fetched.config, fetched.checkpoint
        revision, origin = fetched.revision, fetched.origin
    except HubFailure as failure:
        cached = hf_cache_config(name)  # the Hub cannot answer: what this machine has
        if cached is None:
            return f"{name}: {failure.message}", False
        try:
            config = read_config_file(cached)
        except ConfigError as exc:
            return f"{name}: {exc}", False
        checkpoint = cached_checkpoint(name, cached)
        revision, origin = cached.parent.name, "the local Hugging Face cache"
    try:
        catalog.architecture_from_config(config, name, "pull")
    except ConfigError as exc:
        return f"{name}: its config.json cannot be read as a model: {exc}", False
    try:
        path = lockdir.write(destination, name, config, checkpoint, revision, origin)
    except OSError as exc:
        return f"{name}: cannot write the lock directory {destination}: {exc}", False
    size = path.stat().st_size
    return f"{name}: wrote {path} ({size / 1024:,.1f} KB; {describe(checkpoint)})", True
