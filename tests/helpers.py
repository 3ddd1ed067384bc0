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


def vllm_compose(tmp_path: Path, command: str, version: str, name: str = "compose.yaml") -> Path:
    """A docker compose file whose one service runs ``command`` (``vllm serve MODEL ...``) in
    vLLM's image of ``version`` on one GPU: the shape the engine-flag tests lint."""
    path = tmp_path / name
    path.write_text(
        "services:\n"
        "  vllm:\n"
        f"    image: vllm/vllm-openai:{version}\n"
        f"    command: >-\n      {command}\n"
        "    deploy:\n"
        "      resources:\n"
        "        reservations:\n"
        "          devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]\n"
    )
    return path
