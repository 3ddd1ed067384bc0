"""Hostile and broken files: each ends in a located finding, in bounded time and memory, and
the other files in the same run are still linted.

hbmlint runs here as a child process under a 1 GiB address-space limit and a generous timeout,
so an input that made it expand an alias bomb, recurse without end or block on a pipe would
fail the test rather than hang the suite. (Speed itself is measured in benchmarks/.)
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import manifest

MEMORY_LIMIT = 1024**3
TIME_LIMIT_S = 60

GOOD = manifest(
    """
    gpu: {type: H100}
    model: {name: meta-llama/Llama-3.1-8B-Instruct}
    serving: {max_model_len: 8192}
""",
    name="good",
)


def hbmlint(*args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("hbmlint", path=str(Path(sys.executable).parent)) or "hbmlint"

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    return subprocess.run(
        [exe, "--format", "json", *args],
        capture_output=True,
        text=True,
        timeout=TIME_LIMIT_S,
        preexec_fn=limit,
    )


def findings_by_file(run: subprocess.CompletedProcess) -> dict[str, list[dict]]:
    assert run.returncode in (0, 1), run.stderr
    assert "Traceback" not in run.stderr
    out: dict[str, list[dict]] = {}
    for finding in json.loads(run.stdout):
        out.setdefault(Path(finding["file"]).name, []).append(finding)
    return out


def lint_beside_a_good_file(tmp_path: Path, name: str, content: bytes) -> dict[str, list[dict]]:
    (tmp_path / "good.yaml").write_text(GOOD)
    # trips HBM102, and HBM303: the model's own maximum is 131,072 tokens
    (tmp_path / "bad.yaml").write_text(GOOD.replace("8192", "131072000"))
    (tmp_path / name).write_bytes(content)
    found = findings_by_file(hbmlint(str(tmp_path)))
    assert "good.yaml" not in found
    assert [f["code"] for f in found["bad.yaml"]] == ["HBM102", "HBM303"]  # still linted
    return found


def test_billion_laughs(tmp_path):
    lines = ["apiVersion: hbmlint/v1", "kind: ServingManifest", 'a: &a ["x","x","x","x","x"]']
    for prev, name in zip("abcdefghijklm", "bcdefghijklmn", strict=True):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 5) + "]")
    found = lint_beside_a_good_file(tmp_path, "bomb.yaml", "\n".join(lines).encode())
    [finding] = found["bomb.yaml"]
    assert finding["code"] == "HBM002" and "aliases" in finding["message"]
    assert finding["line"] > 1


def test_deep_nesting(tmp_path):
    depth = 100_000
    text = "apiVersion: hbmlint/v1\nkind: ServingManifest\nspec: " + "[" * depth + "]" * depth
    found = lint_beside_a_good_file(tmp_path, "deep.yaml", text.encode())
    [finding] = found["deep.yaml"]
    assert finding["code"] == "HBM002" and "nest" in finding["message"]


def test_fifty_megabyte_file(tmp_path):
    content = GOOD.encode() + b"# padding\n" * (5 * 1024 * 1024)
    found = lint_beside_a_good_file(tmp_path, "huge.yaml", content)
    [finding] = found["huge.yaml"]
    assert finding["code"] == "HBM001" and "MiB limit" in finding["message"]


def test_binary_and_non_utf8(tmp_path):
    (tmp_path / "latin1.yaml").write_bytes(GOOD.replace("good", "caf\xe9").encode("latin-1"))
    found = lint_beside_a_good_file(tmp_path, "binary.yaml", os.urandom(4096) + b"\x00\xff")
    assert [f["code"] for f in found["binary.yaml"]] == ["HBM001"]
    assert [f["code"] for f in found["latin1.yaml"]] == ["HBM001"]
    assert "not UTF-8" in found["latin1.yaml"][0]["message"]


def test_symlink_loops(tmp_path):
    (tmp_path / "loop.yaml").symlink_to(tmp_path / "loop2.yaml")
    (tmp_path / "loop2.yaml").symlink_to(tmp_path / "loop.yaml")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "up").symlink_to(tmp_path, target_is_directory=True)
    found = lint_beside_a_good_file(tmp_path, "plain.yaml", b"just: yaml\n")
    assert {f["code"] for f in found["loop.yaml"] + found["loop2.yaml"]} == {"HBM001"}
    assert "plain.yaml" not in found  # YAML that is not a manifest: skipped silently


def test_fifo_is_not_opened(tmp_path):
    os.mkfifo(tmp_path / "pipe.yaml")
    found = lint_beside_a_good_file(tmp_path, "other.yaml", b"a: 1\n")
    [finding] = found["pipe.yaml"]
    assert finding["code"] == "HBM001" and "not a regular file" in finding["message"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their permissions")
def test_unreadable_file(tmp_path):
    path = tmp_path / "secret.yaml"
    path.write_text(GOOD)
    path.chmod(0)
    found = lint_beside_a_good_file(tmp_path, "other.yaml", b"a: 1\n")
    assert [f["code"] for f in found["secret.yaml"]] == ["HBM001"]


@pytest.mark.parametrize(
    ("fragment", "code"),
    [
        ("serving: {max_model_len: -5}", "HBM003"),
        ("serving: {max_model_len: 0}", "HBM003"),
        ("serving: {gpu_memory_utilization: .nan}", "HBM003"),
        ("serving: {gpu_memory_utilization: .inf}", "HBM003"),
        # integral floats are integers to JSON Schema; an absurd length cannot be served, and
        # is far above the model's own maximum
        ("serving: {max_model_len: 1.0e+18}", ("HBM102", "HBM303")),
        # an absurd batch leaves no room for the KV cache
        ("serving: {max_num_batched_tokens: 1000000000000000000}", "HBM102"),
        ("workload: {concurrency: 1000000000000000000, context_tokens: 8}", "HBM103"),
        # beyond int64, which no engine holds (and where the budget's arithmetic overflowed)
        ("serving: {max_model_len: 1.0e+300}", "HBM003"),
        ("serving: {max_num_batched_tokens: 1000000000000000000000000000000}", "HBM003"),
        ("workload: {concurrency: 1000000000000000000000000000000, context_tokens: 8}", "HBM003"),
    ],
)
def test_absurd_numbers_in_serving(tmp_path, fragment, code):
    text = GOOD.replace("  serving: {max_model_len: 8192}", "  " + fragment)
    found = lint_beside_a_good_file(tmp_path, "absurd.yaml", text.encode())
    expected = [code] if isinstance(code, str) else list(code)
    assert [f["code"] for f in found["absurd.yaml"]] == expected
    assert found["absurd.yaml"][0]["line"] >= 5


@pytest.mark.parametrize("memory", ["-80 GiB", "0 GiB", ".inf", ".nan", "nan GiB", "1e30 GiB"])
def test_absurd_gpu_memory(tmp_path, memory):
    text = GOOD.replace("{type: H100}", f"{{type: H100, memory: {memory}}}")
    found = lint_beside_a_good_file(tmp_path, "absurd.yaml", text.encode())
    if memory == "1e30 GiB":  # absurd but well-formed: a budget, with finite figures
        assert "absurd.yaml" not in found
        [entry] = json.loads(hbmlint_budget(tmp_path / "absurd.yaml"))
        assert entry["kv_cache_tokens"] > 10**20
    else:
        [finding] = found["absurd.yaml"]
        assert finding["code"] in ("HBM003", "HBM004") and finding["line"] == 5


def hbmlint_budget(path: Path) -> str:
    exe = shutil.which("hbmlint", path=str(Path(sys.executable).parent)) or "hbmlint"
    run = subprocess.run(
        [exe, "budget", "--format", "json", str(path)],
        capture_output=True,
        text=True,
        timeout=TIME_LIMIT_S,
    )
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_python_tags_are_refused_and_never_run(tmp_path):
    marker = tmp_path / "pwned"
    text = GOOD + f"extra: !!python/object/apply:os.system ['touch {marker}']\n"
    found = lint_beside_a_good_file(tmp_path, "tagged.yaml", text.encode())
    [finding] = found["tagged.yaml"]
    assert finding["code"] == "HBM002" and "tag not allowed" in finding["message"]
    assert finding["line"] == 8
    assert not marker.exists()
