"""Golden outputs: text, github and json for the fixed manifests in tests/golden/manifests.

Each expected file was read and checked by hand (lines and columns against the manifests,
escaping of ',', ':' and '%' in the github format, the suppressed and the unused suppression).
The figures too were read against `hbmlint budget` for the same files; a change to the memory
model changes them, and then the diff must be read again. Regenerate and read it with:

    HBMLINT_UPDATE_GOLDEN=1 pytest tests/test_golden.py
"""

from __future__ import annotations

import os

import pytest
from helpers import REPO

GOLDEN = REPO / "tests" / "golden"


@pytest.mark.parametrize("output_format", ["text", "github", "json"])
def test_golden_output(cli, monkeypatch, output_format):
    monkeypatch.chdir(GOLDEN)  # findings name files as manifests/...
    run = cli("--format", output_format, "manifests")
    assert run.exit_code == 1
    expected = GOLDEN / f"expected.{output_format}"
    if os.environ.get("HBMLINT_UPDATE_GOLDEN"):
        expected.write_text(run.output)
    assert run.output == expected.read_text()
