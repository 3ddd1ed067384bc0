"""Values worked out from an object that never changes (a frozen architecture, a catalog entry,
a GPU's datasheet figures), remembered by the object's identity for the rest of the run.

An entry holds its object, so the identity cannot be reused by another object while the entry
lasts; a hit is checked against it all the same. Bounded: when full, the memo starts over (a
run meets a few dozen such objects; recomputing is always correct, only slower).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any


class IdentityMemo:
    """``compute()``'s value for ``owner`` (and the other key parts given), computed once."""

    def __init__(self, limit: int) -> None:
        self._entries: dict[tuple, tuple[Any, Any]] = {}
        self._limit = limit

    def get(self, owner: Any, compute: Callable[[], Any], *key: Hashable) -> Any:
        full = (id(owner), *key)
        found = self._entries.get(full)
        if found is not None and found[0] is owner:
            return found[1]
        value = compute()
        if len(self._entries) >= self._limit:
            self._entries.clear()
        self._entries[full] = (owner, value)
        return value

    def clear(self) -> None:
        self._entries.clear()
