"""Start-up imports only what a lint uses (issue 18): a clean manifest is linted without pint,
jsonschema, the speculative comparison or the fix stage; a manifest the quick schema check
cannot vouch for still gets jsonschema's located findings."""

from __future__ import annotations

import json
import subprocess
import sys

from helpers import manifest

from hbmlint import rules, speculative

PROBE = """
import json, sys
from hbmlint.cli import main
try:
    main([*sys.argv[1:]], standalone_mode=False)
except SystemExit:
    pass
heavy = ("pint", "jsonschema", "hbmlint.speculative", "hbmlint.roofline", "hbmlint.fixes")
print(json.dumps(sorted(m for m in heavy if m in sys.modules)), file=sys.stderr)
"""


def _loaded(tmp_path, text: str, *args: str) -> tuple[list[str], str]:
    path = tmp_path / "m.yaml"
    path.write_text(text)
    # the installed package (as CI installs it, not the source tree: a regular install has
    # package data the tree lacks), from a folder outside the checkout
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "--jobs", "1", *args, str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    return json.loads(done.stderr.strip().splitlines()[-1]), done.stdout


def test_a_clean_manifest_loads_nothing_it_does_not_use(tmp_path):
    text = manifest(
        """
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving: {max_model_len: 8192}
        """
    )
    loaded, out = _loaded(tmp_path, text)
    assert "no findings" in out
    assert loaded == []


def test_a_schema_violation_still_gets_jsonschemas_located_finding(tmp_path):
    text = manifest(
        """
        gpu: {type: H100, count: 0}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        """
    )
    loaded, out = _loaded(tmp_path, text)
    assert "jsonschema" in loaded
    assert "m.yaml:5:28:" in out and "HBM003" in out and "spec.gpu.count" in out


def test_the_tradeoff_rule_has_one_name():
    assert rules.TRADEOFF_RULE == speculative.TRADEOFF_RULE
