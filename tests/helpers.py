"""Helpers the tests import (tests/ is on sys.path under pytest's default import mode)."""

from __future__ import annotations

import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
SHARED = REPO.parent / "shared"


def manifest(spec: str, name: str = "test") -> str:
    """A native manifest around an indented ``spec:`` body."""
    body = textwrap.indent(textwrap.dedent(spec).strip("\n"), "  ")
    header = f"apiVersion: hbmlint/v1\nkind: ServingManifest\nmetadata: {{name: {name}}}\n"
    return f"{header}spec:\n{body}\n"
