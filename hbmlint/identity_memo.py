"""Values worked out from an object that never changes (a frozen architecture, a catalog entry,
a GPU's datasheet figures), remembered by the object's identity for the rest of the run.

An entry holds its object, so the identity cannot be reused by another object while the entry
lasts; a hit is checked against it all the same. Bounded: when full, the memo starts over (a
run meets a few dozen such objects; recomputing is always correct, only slower).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

# find()'s answer where nothing is kept (a kept value may be None or False)
NOT_KEPT: Any = object()


class IdentityMemo:
    """``compute()``'s value for ``owner`` (and the other key parts given), computed once."""

    def __init__(self, limit: int) -> None:
        self._entries: dict[tuple, tuple[Any, Any]] = {}
        self._limit = limit

    def get(self, owner: Any, compute: Callable[[], Any], *key: Hashable) -> Any:
        value = self.find(owner, key)
        if value is NOT_KEPT:
            value = self.keep(owner, key, compute())
        return value

    def find(self, owner: Any, key: tuple = ()) -> Any:
        """The value kept for ``owner`` and ``key`` (get's key parts as one tuple), else
        NOT_KEPT. get() without its function: the hottest callers (every budget) spent more on
        making a lambda and packing the key than on the lookup."""
        found = self._entries.get((id(owner), key))
        if found is not None and found[0] is owner:
            return found[1]
        return NOT_KEPT

    def keep(self, owner: Any, key: tuple, value: Any) -> Any:
        """Keep ``value`` for ``owner`` and ``key`` (as find() takes them); returns it."""
        if len(self._entries) >= self._limit:
            self._entries.clear()
        self._entries[(id(owner), key)] = (owner, value)
        return value

    def clear(self) -> None:
        self._entries.clear()
