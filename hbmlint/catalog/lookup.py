"""The model sources beyond the catalog that resolve.py's MODEL_SOURCES reads: the repository's
lock directory (`hbmlint models pull`), the local Hugging Face cache's stored checkpoint, and
the Hub. Each gives config.json's fields with the stored checkpoint's tensor sizes when known."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .hub import (
    HubFailure,
    cached_checkpoint,
    endpoint,
    fetch,
    first_report,
    is_hub_id,
    mistral_config,
)

__all__ = [
    "HubFailure",
    "cached_checkpoint",
    "first_report",
    "from_hub",
    "locked",
    "mistral_config",
]


@dataclass(frozen=True)
class FromHub:
    config: dict
    source: str
    checkpoint: Any


def locked(name: str) -> Any:
    """The lock directory's entry of a model (searched from the working directory up), or None;
    ConfigError when its file is broken."""
    from . import lockdir

    return lockdir.find(name, None)


def from_hub(name: str) -> FromHub | None:
    """The model from the Hub: None when the name is no Hub repository id; HubFailure when the
    Hub cannot give it."""
    if not is_hub_id(name):
        return None
    fetched = fetch(name)
    revision = f"@{fetched.revision[:12]}" if fetched.revision else ""
    return FromHub(fetched.config, f"{endpoint()}/{name}{revision}", fetched.checkpoint)
