"""The catalogs' cache names and checks its entries by BLAKE2b digests (256 bits) of the YAML's
bytes and of the cached data, taken without hashlib, whose import loads OpenSSL: a plain lint
that finds its entries in the cache does not import it."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from hbmlint.catalog import load_yaml_cached

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "llama8b-a10g-full-context.yaml"


def blake2b_256(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=32).hexdigest()


def test_an_entry_is_named_and_checked_by_blake2b_digests(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    source = tmp_path / "gpus.yaml"
    source.write_text("gpus:\n  - {name: X1, memory: 10 GiB}\n")
    assert load_yaml_cached(source) == {"gpus": [{"name": "X1", "memory": "10 GiB"}]}
    [entry] = (tmp_path / "cache" / "hbmlint").iterdir()
    digest = blake2b_256(source.read_bytes())
    assert entry.name == f"gpus-{digest[:32]}.json"
    raw = json.loads(entry.read_text())
    assert raw["source_blake2b"] == digest
    assert raw["data_blake2b"] == blake2b_256(json.dumps(raw["data"]).encode("utf-8"))
    assert load_yaml_cached(source) == {"gpus": [{"name": "X1", "memory": "10 GiB"}]}


def test_a_lint_served_from_the_cache_does_not_load_openssl(tmp_path):
    assert EXAMPLE.is_file()
    script = (
        "import sys\n"
        "from hbmlint.cli import main\n"
        "sys.argv = ['hbmlint', '--jobs', '1', '--format', 'json', sys.argv[1]]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('hashlib' in sys.modules, file=sys.stderr)\n"
    )
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    runs = [
        subprocess.run(
            [sys.executable, "-c", script, str(EXAMPLE)],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            check=False,
        )
        for _ in range(2)  # the first run writes the entries, the second reads them
    ]
    assert json.loads(runs[0].stdout) == json.loads(runs[1].stdout)
    assert runs[1].stderr.strip().splitlines()[-1] == "False"
