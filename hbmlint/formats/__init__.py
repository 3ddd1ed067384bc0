"""Manifest formats. Each module here recognises one kind of YAML document and turns it into
Deployments; nothing after this stage knows which format a value came from.

A format module provides ``NAME``, ``detect(data) -> bool`` and
``to_deployments(document, path, display) -> (deployments, diagnostics)``.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from . import native

FORMATS: tuple[ModuleType, ...] = (native,)


def detect_format(data: Any) -> ModuleType | None:
    """The format module that reads ``data``, or None for YAML that is not a manifest."""
    for module in FORMATS:
        if module.detect(data):
            return module
    return None
