"""The pre-commit hook, run by the real pre-commit (`pre-commit try-repo`) against this
checkout, in a temporary git repository: a good manifest passes, a bad one stops the commit with
its finding, and only the files pre-commit passes are linted."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO, manifest

pytest.importorskip("pre_commit", reason="pre-commit is not installed (pip install '.[test]')")

GOOD = manifest(
    """
    gpu: {type: H100}
    model: {name: meta-llama/Llama-3.1-8B-Instruct}
    serving: {max_model_len: 8192}
""",
    name="good",
)
BAD = manifest(
    """
    gpu: {type: L4}
    model: {name: meta-llama/Llama-3.1-70B-Instruct}
""",
    name="bad",
)
IGNORED = {".git", ".ci-venv", "venv", ".venv", "build", "dist", "__pycache__", ".pytest_cache"}


def git(*args: str, cwd: Path) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    run = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return run.stdout


def snapshot_of_checkout(target: Path) -> Path:
    """The working tree as it is (tracked and new files, not ignored ones), committed in a
    repository of its own: try-repo would otherwise leave out files not yet committed."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=REPO,
            capture_output=True,
            check=True,
        ).stdout.decode()
        names = [n for n in listed.split("\0") if n and (REPO / n).is_file()]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: copy the tree
        names = [
            str(p.relative_to(REPO))
            for p in REPO.rglob("*")
            if p.is_file()
            and not IGNORED & set(p.relative_to(REPO).parts)
            and ".egg-info" not in str(p)
        ]
    for name in names:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, target / name)
    git("init", "-q", cwd=target)
    git("add", "-A", cwd=target)
    git("commit", "-q", "-m", "snapshot", cwd=target)
    return target


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> Path:
    return snapshot_of_checkout(tmp_path_factory.mktemp("hbmlint-src"))


def try_repo(hook_repo: Path, project: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "PRE_COMMIT"))}
    env["PRE_COMMIT_HOME"] = str(project.parent / "pre-commit-home")
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pre_commit",
            "try-repo",
            str(hook_repo),
            "hbmlint",
            "--color=never",
        ],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_precommit_passes_good_and_stops_bad(hook_repo, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    git("init", "-q", cwd=project)
    (project / "deploy").mkdir()
    (project / "deploy" / "good.yaml").write_text(GOOD)
    (project / "notes.txt").write_text("not yaml\n")
    # Bad manifests pre-commit does not pass: unstaged, so a hook that linted the whole
    # directory (instead of the files it is given) would fail here.
    (project / "deploy" / "unstaged-bad.yaml").write_text(BAD)
    git("add", "deploy/good.yaml", "notes.txt", cwd=project)

    passed = try_repo(hook_repo, project)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "hbmlint" in passed.stdout and "Passed" in passed.stdout
    assert "unstaged-bad" not in passed.stdout

    (project / "deploy" / "bad.yaml").write_text(BAD)
    git("add", "deploy/bad.yaml", cwd=project)
    failed = try_repo(hook_repo, project)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "Failed" in failed.stdout
    assert "deploy/bad.yaml:6:3: error HBM101 [weights-exceed-hbm]" in failed.stdout
    assert "good.yaml" not in failed.stdout.split("- exit code")[-1]  # only findings of bad
    assert "unstaged-bad" not in failed.stdout
    assert "Found 1 finding (1 error) in 2 files, 2 deployments." in failed.stdout
