"""Issue 11, item 4: a repository's configuration is hostile input. Globs are checked when it
loads (a located error, exit 2) and matched in linear time; rules-dirs and catalogs that leave
the repository need --allow-outside-paths; errors never echo a rejected value in full."""

from __future__ import annotations

import time

import pytest
from bounded import findings, run, usage_error
from helpers import manifest

from hbmlint.globs import GlobError, compile_glob, glob_matches

CATASTROPHIC = "*a" * 12 + "*b"  # as a regular expression: minutes of backtracking
GOOD = manifest("gpu: {type: H100}\nmodel: {name: meta-llama/Llama-3.1-8B-Instruct}")


def repository(tmp_path, config: str):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".hbmlint.yaml").write_text(config)
    (tmp_path / "deploy.yaml").write_text(GOOD)
    return tmp_path


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("*.yaml", "deploy/a.yaml", True),
        ("deploy/*.yaml", "deploy/a.yaml", True),
        ("deploy/*.yaml", "x/deploy/a.yaml", False),
        ("**/gen/**", "a/b/gen/c.yaml", True),
        ("**/c.yaml", "c.yaml", True),
        ("deploy", "deploy/sub/a.yaml", True),  # a folder covers what is inside
        ("a?.yaml", "ab.yaml", True),
        ("a?.yaml", "a/.yaml", False),
        ("[!x]*.yaml", "b.yaml", True),
        ("[a-c]*.yaml", "d.yaml", False),
    ],
)
def test_globs_keep_their_meaning(pattern, path, expected):
    assert glob_matches(pattern, path) is expected


def test_a_catastrophic_glob_matches_in_linear_time():
    # CPU time, not wall time (a loaded CI machine); exponential backtracking over 5,000
    # characters would take longer than the universe's age, so the bound can be loose
    start = time.process_time()
    assert not glob_matches(CATASTROPHIC, "a" * 5000 + "/" + "a" * 250)
    assert time.process_time() - start < 10


@pytest.mark.parametrize("pattern", ["[z-a].yaml", "x" * 600, "", "a\x00b"])
def test_invalid_globs_are_refused(pattern):
    with pytest.raises(GlobError):
        compile_glob(pattern)


@pytest.mark.parametrize("key", ["exclude", "per-file-ignores", "formats"])
def test_invalid_glob_in_configuration_is_a_located_usage_error(tmp_path, key):
    value = {
        "exclude": "exclude:\n  - ok/*\n  - '[z-a]*.yaml'\n",
        "per-file-ignores": "per-file-ignores:\n  '[z-a]*.yaml': [HBM101]\n",
        "formats": "formats:\n  '[z-a]*.yaml': kubernetes\n",
    }[key]
    repo = repository(tmp_path, value)
    message = usage_error("deploy.yaml", cwd=repo)
    assert message.startswith(".hbmlint.yaml:") and "is not a glob" in message
    assert int(message.split(":")[1]) >= 2 and len(message.splitlines()) == 1


def test_catastrophic_glob_in_configuration_on_a_long_path(tmp_path):
    repo = repository(
        tmp_path, f"exclude: ['{CATASTROPHIC}']\nper-file-ignores:\n  '{CATASTROPHIC}': [HBM1]\n"
    )
    deep = repo / ("a" * 200) / ("a" * 200)
    deep.mkdir(parents=True)
    (deep / ("a" * 200 + ".yaml")).write_text(GOOD)
    assert findings(".", cwd=repo) == []


def test_a_long_glob_is_not_echoed_in_full(tmp_path):
    repo = repository(tmp_path, f"exclude: ['{'[z-a]' + 'x' * 5000}']\n")
    message = usage_error("deploy.yaml", cwd=repo)
    assert len(message) < 300


def test_a_long_unknown_selector_is_not_echoed_in_full(tmp_path):
    repo = repository(tmp_path, f"ignore: ['{'Q' * 10_000}']\n")
    message = usage_error("deploy.yaml", cwd=repo)
    assert "unknown rule selector" in message and len(message) < 300
    message = usage_error("--ignore", "Z" * 10_000, "deploy.yaml", cwd=repo)
    assert "unknown rule selector" in message and len(message) < 300


def rule_dir(folder):
    folder.mkdir(parents=True)
    (folder / "HBM901.yaml").write_text(
        "id: HBM901\nname: always\nsummary: s\nseverity: warning\ncheck: 'False'\nat: gpu\n"
        "message: planted rule\n"
    )
    return folder


@pytest.mark.parametrize("how", ["relative", "absolute", "symlink"])
def test_rules_dirs_outside_the_repository_need_the_flag(tmp_path, how):
    outside = rule_dir(tmp_path / "elsewhere" / "rules")
    repo = tmp_path / "repo"
    repo.mkdir()
    if how == "symlink":
        (repo / "rules").symlink_to(outside, target_is_directory=True)
        where = "rules"
    else:
        where = "../elsewhere/rules" if how == "relative" else str(outside)
    repository(repo, f"rules-dirs: ['{where}']\n")
    message = usage_error("deploy.yaml", cwd=repo)
    assert message.startswith(".hbmlint.yaml:1:") and "--allow-outside-paths" in message
    allowed = findings("--allow-outside-paths", "deploy.yaml", cwd=repo)
    assert [f["code"] for f in allowed] == ["HBM901"]


def test_rules_dirs_inside_the_repository_need_no_flag(tmp_path):
    rule_dir(tmp_path / "ci" / "rules")
    repo = repository(tmp_path, "rules-dirs: [ci/rules]\n")
    assert [f["code"] for f in findings("deploy.yaml", cwd=repo)] == ["HBM901"]


def test_catalogs_outside_the_repository_need_the_flag(tmp_path):
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text("gpus:\n  - {name: X1, memory: 10 GiB}\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    repository(repo, f"catalogs: ['{outside}']\n")
    message = usage_error("deploy.yaml", cwd=repo)
    assert "catalogs" in message and "--allow-outside-paths" in message
    assert run("--allow-outside-paths", "deploy.yaml", cwd=repo).returncode == 0
