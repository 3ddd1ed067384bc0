"""Issue 18 (speed): the JSON schemas that ship with hbmlint come with the package as Python
constants (hbmlint/schema_data.py, written by tools/write_schema_data.py), used only for a file
of the very text they were written from; a run reads its schema without importing json, and a
clean manifest is linted without json at all. Any other text of a schema is parsed, as before."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path

from helpers import manifest

from hbmlint import schema, schema_data
from hbmlint.schema_data import SCHEMAS

ROOT = Path(__file__).parent.parent


def _file_text(name: str) -> str:
    folder = Path(next(iter(importlib.import_module("hbmlint.schemas").__path__)))
    return (folder / f"{name}.schema.json").read_text(encoding="utf-8")


def test_the_module_is_written_for_the_schema_files_as_they_are():
    path = ROOT / "tools" / "write_schema_data.py"
    spec = importlib.util.spec_from_file_location("write_schema_data", path)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    written = (ROOT / "hbmlint" / "schema_data.py").read_text(encoding="utf-8")
    assert written == tool.data_module(), "run: python tools/write_schema_data.py"
    assert set(SCHEMAS) == {p.name[: -len(".schema.json")] for p in ROOT.glob("schemas/*.json")}


def test_each_schema_is_its_files_data():
    for name in sorted(SCHEMAS):
        schema.load_schema.cache_clear()
        try:
            loaded = schema.load_schema(name)
            assert loaded is SCHEMAS[name][1]  # the shipped data, not a parse
            assert loaded == json.loads(_file_text(name)), name
        finally:
            schema.load_schema.cache_clear()


def test_a_schema_of_other_text_is_parsed(monkeypatch):
    edited = {name: (text + " ", data) for name, (text, data) in SCHEMAS.items()}
    monkeypatch.setattr(schema_data, "SCHEMAS", edited)
    schema.load_schema.cache_clear()
    try:
        loaded = schema.load_schema("manifest")
        assert loaded is not SCHEMAS["manifest"][1]
        assert loaded == json.loads(_file_text("manifest"))
    finally:
        schema.load_schema.cache_clear()


PROBE = """
import sys
from hbmlint.cli import main
try:
    main([*sys.argv[1:]], standalone_mode=False)
except SystemExit:
    pass
print("json" in sys.modules, file=sys.stderr)
"""

DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: llm}
spec:
  template:
    metadata:
      annotations: {hbmlint.io/gpu: H100}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.1
          args: ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192"]
          resources:
            limits: {nvidia.com/gpu: 1}
"""


def _json_imported(tmp_path: Path, text: str) -> tuple[bool, str]:
    path = tmp_path / "m.yaml"
    path.write_text(text)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "--jobs", "1", str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    return done.stderr.strip().splitlines()[-1] == "True", done.stdout


def test_a_clean_lint_imports_no_json(tmp_path):
    native = manifest(
        """
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving: {max_model_len: 8192}
        """
    )
    for text in (native, textwrap.dedent(DEPLOYMENT)):
        imported, out = _json_imported(tmp_path, text)
        assert "no findings" in out, out
        assert not imported
