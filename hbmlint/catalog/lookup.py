"""The model sources beyond the catalog that resolve.py's MODEL_SOURCES reads: the repository's
lock directory (`hbmlint models pull`), the local Hugging Face cache's stored checkpoint, and
the Hub. Each gives config.json's fields with the stored checkpoint's tensor sizes when known."""

from __future__ import annotations

from typing import Any

# the lock directory is looked in for every model of every run (no network, no Hub client)
from ..records import dataclass
from . import lockdir

# The Hub client (and the checkpoint reader it uses) is imported when a model is looked up
# beyond the catalog: a run whose models are all in the catalog does not pay for it.
__all__ = ["cached_checkpoint", "first_report", "from_hub", "locked", "mistral_config"]


def __getattr__(name: str) -> Any:
    if name == "HubFailure":  # resolve.py's `except lookup.HubFailure`, looked up on a raise
        from .hub import HubFailure

        return HubFailure
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def cached_checkpoint(name: str, folder: Any) -> Any:
    from .hub import cached_checkpoint

    return cached_checkpoint(name, folder)


def first_report(name: str) -> bool:
    from .hub import first_report

    return first_report(name)


def mistral_config(config: dict) -> dict:
    from .hub import mistral_config

    return mistral_config(config)


@dataclass(frozen=True)
class FromHub:
    config: dict
    source: str
    checkpoint: Any


def locked(name: str) -> Any:
    """The lock directory's entry of a model (searched from the working directory up), or None;
    ConfigError when its file is broken."""
    return lockdir.find(name, None)


def from_hub(name: str) -> FromHub | None:
    """The model from the Hub: None when the name is no Hub repository id; HubFailure when the
    Hub cannot give it."""
    from .hub import endpoint, fetch, is_hub_id

    if not is_hub_id(name):
        return None
    fetched = fetch(name)
    revision = f"@{fetched.revision[:12]}" if fetched.revision else ""
    return FromHub(fetched.config, f"{endpoint()}/{name}{revision}", fetched.checkpoint)
