"""benchmarks/stages.py: the per-stage CPU report the README points to runs on a generated
corpus and names every stage it times."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _stages_module():
    spec = importlib.util.spec_from_file_location("stages", ROOT / "benchmarks" / "stages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_stages_reports_every_stage_on_a_generated_corpus(capsys, monkeypatch):
    stages = _stages_module()
    # the wrappers are set on hbmlint's modules: undone after the test
    for module, name, _ in stages.STAGES:
        monkeypatch.setattr(module, name, getattr(module, name))
    assert stages.main(["--count", "12"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("whole pass, best of 3: ")
    for _, _, label in stages.STAGES:
        assert f"  {label} " in out, label
    shares = [float(line.split()[-1].rstrip("%")) for line in out.splitlines() if "%" in line]
    assert shares and all(0 <= share <= 100 for share in shares)
