"""Patterns compiled when first used: one that only an unusual file needs (a Helm template,
broken YAML, a file in which nothing could be read, a pyproject.toml) should not cost every
run's start-up its compilation."""

from __future__ import annotations

import re
from typing import Any


class LazyPattern:
    """``re.compile(pattern, flags)``, made on first use; its methods and attributes are the
    compiled pattern's (``search``, ``match``, ``fullmatch``, ``sub``, ``split``, ...)."""

    __slots__ = ("_compiled", "_flags", "_pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._pattern, self._flags = pattern, flags
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self._pattern, self._flags)
        return self._compiled

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # our own slots, unset (copy, pickle): never the pattern's
            raise AttributeError(name)
        return getattr(self.compiled(), name)

    def __repr__(self) -> str:
        return f"LazyPattern({self._pattern!r}, {self._flags!r})"
