"""Patterns compiled when first used: one that only an unusual file needs (a Helm template,
broken YAML, a file in which nothing could be read, a pyproject.toml, a shell script, an image
tag of an unusual form) should not cost every run's start-up its compilation."""

from __future__ import annotations

import re
from typing import Any


class LazyPattern:
    """``re.compile(pattern, flags)``, made on first use; its methods and attributes are the
    compiled pattern's (``search``, ``match``, ``fullmatch``, ``sub``, ``split``, ...).

    Each method or attribute asked for is kept on the instance when first looked up, so that
    later uses find it there as they would on the compiled pattern, without the Python call to
    ``__getattr__`` that a failed lookup makes (five times the cost of a short search)."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._pattern, self._flags = pattern, flags
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self._pattern, self._flags)
        return self._compiled

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # our own attributes, unset (copy, pickle): never the pattern's
            raise AttributeError(name)
        value = getattr(self.compiled(), name)
        setattr(self, name, value)
        return value

    def __reduce__(self) -> tuple[type, tuple[str, int]]:
        # a copy or a pickle is made from the text alone, not the methods kept
        return LazyPattern, (self._pattern, self._flags)

    def __repr__(self) -> str:
        return f"LazyPattern({self._pattern!r}, {self._flags!r})"
