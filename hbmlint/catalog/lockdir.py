"""The lock directory: `.hbmlint/models/` in the repository, one JSON file per model holding its
config.json and tensor-size summary, written by `hbmlint models pull` and read before the
catalog and the Hub. Committed, it makes CI without network (pre-commit.ci) reproducible: a
lock file for model shapes.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from ..records import dataclass
from .architecture import ConfigError

if TYPE_CHECKING:  # imported where a lock file is read: most runs have none
    from .checkpoint import Checkpoint

LOCK_DIR = Path(".hbmlint") / "models"
LOCK_VERSION = 1
MAX_LOCK_BYTES = 4 * 1024 * 1024  # a lock file is a few KB; anything far larger is not ours


@dataclass(frozen=True)
class Locked:
    model_id: str
    path: Path
    config: dict
    checkpoint: Checkpoint
    revision: str | None
    fetched_from: str


def file_name(model_id: str) -> str:
    return model_id.replace("/", "--") + ".json"


@lru_cache(maxsize=256)
def _lock_dir_from(start: str) -> Path | None:
    """The nearest .hbmlint/models/ from ``start`` up to the filesystem root."""
    here = Path(start)
    for folder in (here, *here.parents):
        candidate = folder / LOCK_DIR
        if candidate.is_dir():
            return candidate
    return None


def lock_dir(near: str | Path | None) -> Path | None:
    """The lock directory for a manifest (searched from its folder up), else from the working
    directory up."""
    if near:
        found = _lock_dir_from(os.path.dirname(os.path.abspath(near)))
        if found is not None:
            return found
    return _lock_dir_from(os.getcwd())


def find(model_id: str, near: str | Path | None) -> Locked | None:
    """The lock entry of a model, None when there is none; ConfigError when it is broken."""
    if not model_id or "/" not in model_id:
        return None
    folder = lock_dir(near)
    if folder is None:
        return None
    path = folder / file_name(model_id)
    if not path.is_file():
        return None
    return read(path, model_id)


@lru_cache(maxsize=256)
def read(path: Path, model_id: str = "") -> Locked:
    import json  # not at import: a plain lint reads no JSON (json's import ~4.6M instructions)

    from ..files import read_text
    from .checkpoint import Checkpoint, CheckpointError

    try:
        data = json.loads(read_text(path, MAX_LOCK_BYTES))
    except ValueError as exc:  # FileReadError (a FIFO, too big, not UTF-8), JSONDecodeError
        raise ConfigError(f"lock file {path} cannot be read: {exc}") from exc
    if not isinstance(data, dict) or data.get("version") != LOCK_VERSION:
        raise ConfigError(
            f"lock file {path} is not an hbmlint {LOCK_VERSION} lock file; run `hbmlint models "
            f"pull {model_id or data.get('id', 'MODEL')}` again"
        )
    if not isinstance(data.get("config"), dict):
        raise ConfigError(f"lock file {path} holds no config")
    origin = f"the lock file {path}"
    try:
        checkpoint = (
            Checkpoint.from_json(data["checkpoint"], origin)
            if data.get("checkpoint")
            else Checkpoint(origin, data.get("revision"))
        )
    except CheckpointError as exc:
        raise ConfigError(f"lock file {path}: {exc}") from exc
    return Locked(
        model_id=str(data.get("id") or model_id),
        path=path,
        config=data["config"],
        checkpoint=checkpoint,
        revision=data.get("revision"),
        fetched_from=str(data.get("fetched_from") or ""),
    )


def write(
    folder: Path,
    model_id: str,
    config: dict,
    checkpoint: Checkpoint,
    revision: str | None,
    fetched_from: str,
) -> Path:
    """Write (atomically) the lock file of one model; returns its path."""
    import json

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / file_name(model_id)
    data = {
        "version": LOCK_VERSION,
        "id": model_id,
        "revision": revision,
        "fetched_from": fetched_from,
        "config": config,
        "checkpoint": checkpoint.to_json() if checkpoint.groups or checkpoint.total_size else None,
    }
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(temporary, path)
    read.cache_clear()
    _lock_dir_from.cache_clear()
    return path


def entries(near: str | Path | None = None) -> list[Locked]:
    """Every readable lock file of the lock directory (broken ones are skipped)."""
    folder = lock_dir(near)
    out = []
    for path in sorted(folder.glob("*.json")) if folder else []:
        try:
            out.append(read(path))
        except ConfigError:
            continue
    return out
