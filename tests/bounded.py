"""Run hbmlint as a child process under the hardening budget: 10 s and 1 GiB of address space.

Every hostile-input reproducer goes through ``run``: a hang fails the test with TimeoutExpired
instead of hanging the suite, and a memory blow-up fails it with a MemoryError (exit 2, caught)
rather than taking the machine down.
"""

from __future__ import annotations

import json
import resource
import shutil
import subprocess
import sys
from pathlib import Path

MEMORY_LIMIT = 1024**3
TIME_LIMIT_S = 10


def run(
    *args: str, stdin: bytes | None = None, cwd: Path | None = None, env: dict | None = None
) -> subprocess.CompletedProcess:
    exe = shutil.which("hbmlint", path=str(Path(sys.executable).parent)) or "hbmlint"

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    run = subprocess.run(
        [exe, *args],
        input=stdin if stdin is not None else b"",
        capture_output=True,
        timeout=TIME_LIMIT_S,
        preexec_fn=limit,
        cwd=cwd,
        env=env,
    )
    run.stdout, run.stderr = (  # type: ignore[assignment]
        run.stdout.decode("utf-8", "replace"),
        run.stderr.decode("utf-8", "replace"),
    )
    assert "Traceback" not in run.stderr, run.stderr
    assert run.returncode in (0, 1, 2), (run.returncode, run.stderr)
    return run


def findings(*args: str, **kwargs) -> list[dict]:
    """The JSON findings of a lint run that completed (exit 0 or 1)."""
    result = run("--format", "json", *args, **kwargs)
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


def usage_error(*args: str, **kwargs) -> str:
    """The one line a run that ends with exit 2 prints on standard error."""
    result = run(*args, **kwargs)
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) >= 1 and len(result.stderr) < 4000, result.stderr
    return result.stderr.strip()
