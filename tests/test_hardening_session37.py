"""Broken promises found in hardening session 37 (benchmarks/fuzz.py seeds 3701, 3702 and 4101,
and by hand): a file hbmlint cannot read is a finding at its file, line and column, never an
internal error nor a usage error that stops the run; the other files are still linted; and a
file of megabytes is still read (how its time grows: benchmarks/hostile_inputs.py)."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from hbmlint.lint import lint_file
from hbmlint.rules import load_rules

GOOD = """\
apiVersion: hbmlint/v1
kind: ServingManifest
metadata: {name: neighbour}
spec:
  gpu: {type: L4}
  model: {name: meta-llama/Llama-3.1-70B-Instruct}
  serving: {max_model_len: 8192}
"""
# what the neighbour always gets: its 70B weights do not fit an L4
NEIGHBOUR = ("good.yaml", "HBM101", 6)


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def found(run) -> set[tuple[str, str, int]]:
    return {(Path(f["file"]).name, f["code"], f["line"]) for f in run.json()}


# --- files the user may not read ----------------------------------------------------------


def _denied(monkeypatch, denied: Path, *, stat_too: bool) -> None:
    """Make ``denied`` (and what is below it) unreadable, as it is to a user without
    permission (the tests run as root, who reads everything): os.access says no, os.open
    refuses, and with ``stat_too`` os.stat refuses too (a path in a folder the user may not
    search)."""
    real_access, real_open, real_stat = os.access, os.open, os.stat

    def inside(path) -> bool:
        try:
            return Path(os.path.abspath(os.fsdecode(path))).is_relative_to(denied)
        except TypeError:  # a descriptor
            return False

    def access(path, mode, *args, **kwargs):
        return False if inside(path) else real_access(path, mode, *args, **kwargs)

    def open_(path, flags, *args, **kwargs):
        if inside(path):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    def stat(path, *args, **kwargs):
        if inside(path) and path != denied:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "access", access)
    monkeypatch.setattr(os, "open", open_)
    if stat_too:
        monkeypatch.setattr(os, "stat", stat)


def test_an_unreadable_file_named_on_the_command_line_is_a_finding_and_the_rest_linted(
    cli, tmp_path, monkeypatch
):
    # click's readable check ended the run with a usage error (exit 2, "Path 'secret.yaml' is
    # not readable") before any file was linted; the same file found by a folder walk was an
    # HBM001 finding
    secret, good = tmp_path / "secret.yaml", tmp_path / "good.yaml"
    secret.write_text(GOOD)
    good.write_text(GOOD)
    _denied(monkeypatch, secret, stat_too=False)
    run = cli("--format", "json", secret, good)
    assert run.exit_code == 1
    assert found(run) == {("secret.yaml", "HBM001", 1), NEIGHBOUR}
    [finding] = [f for f in run.json() if f["code"] == "HBM001"]
    assert (finding["column"], "Permission denied" in finding["message"]) == (1, True)


@pytest.mark.parametrize("command", ["lint", "budget", "formats"])
def test_a_file_in_a_folder_that_cannot_be_searched_is_reported_not_a_crash(
    cli, tmp_path, monkeypatch, command
):
    # Path.is_dir() raises PermissionError before Python 3.14 for `locked/x.yaml` when
    # `locked` may not be searched: "hbmlint: internal error: PermissionError" (exit 2), and
    # nothing else was linted
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "x.yaml").write_text(GOOD)
    good = tmp_path / "good.yaml"
    good.write_text(GOOD)
    _denied(monkeypatch, locked, stat_too=True)
    if command == "lint":
        run = cli("--format", "json", locked / "x.yaml", good)
        assert run.exit_code == 1
        assert found(run) == {("x.yaml", "HBM001", 1), NEIGHBOUR}
    elif command == "budget":
        run = cli("budget", "--format", "json", locked / "x.yaml", good)
        assert "internal error" not in run.output + run.stderr
        [locked_out, budget] = run.json()
        assert (
            locked_out["error"] == "HBM001 at line 1, column 1: cannot read file: Permission denied"
        )
        assert (Path(budget["file"]).name, budget["name"]) == ("good.yaml", "neighbour")
    else:
        run = cli("formats", locked / "x.yaml", good)
        assert "internal error" not in run.output + run.stderr
        assert "x.yaml: cannot read: cannot read file: Permission denied" in run.stderr
        assert "good.yaml: document 1 (line 1): read as hbmlint" in run.output


# --- JSON nested past Python's recursion limit in an engine flag ---------------------------

DEEP = "[" * 100_000 + "]" * 100_000
DEEP_OBJECT = '{"a": ' * 50_000 + "1" + "}" * 50_000


def _k8s(flag: str, value: str) -> str:
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: deep}}
spec:
  template:
    spec:
      nodeSelector: {{cloud.google.com/gke-accelerator: nvidia-l4}}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.11.0
        command: ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"]
        args:
        - --max-model-len=8192
        - {flag}
        - '{value}'
        resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""


@pytest.mark.parametrize(
    ("value", "code"),
    [
        (DEEP, "HBM004"),
        ('{"model": ' + DEEP + "}", "HBM004"),
        # a variable the container does not set: the JSON is unreadable (HBM011), not wrong
        ('{"model": "$(DRAFT)", "x": ' + DEEP + "}", "HBM011"),
    ],
    ids=["array", "in-an-object", "beside-a-variable"],
)
def test_speculative_config_json_nested_too_deeply_is_a_finding_at_the_flag(
    cli, tmp_path, value, code
):
    # json.loads raised RecursionError, which `except json.JSONDecodeError` did not catch: the
    # whole file was HBM000 (fuzz seed 3702, a heredoc'd --speculative-config)
    (tmp_path / "deep.yaml").write_text(_k8s("--speculative-config", value))
    (tmp_path / "good.yaml").write_text(GOOD)
    run = cli("--format", "json", tmp_path / "deep.yaml", tmp_path / "good.yaml")
    assert run.exit_code == 1
    assert found(run) == {("deep.yaml", code, 15), NEIGHBOUR}
    [finding] = [f for f in run.json() if f["code"] == code]
    assert finding["column"] == 11
    if code == "HBM004":
        assert "nested too deeply" in finding["message"]


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--compilation-config", '{"a": ' + DEEP + "}"),
        ("-O", '{"a": ' + DEEP + "}"),
        ("--eplb-config", DEEP_OBJECT),
        ("--limit-mm-per-prompt", DEEP),
    ],
)
def test_other_json_flags_nested_too_deeply_leave_the_budget_standing(cli, tmp_path, flag, value):
    # each was HBM000 for the whole file; vLLM reports its own JSON errors, so hbmlint reads
    # the rest of the command as it does for any other JSON it cannot parse
    (tmp_path / "deep.yaml").write_text(_k8s(flag, value))
    (tmp_path / "good.yaml").write_text(GOOD)
    run = cli("--format", "json", tmp_path / "deep.yaml", tmp_path / "good.yaml")
    assert "HBM000" not in {f["code"] for f in run.json()}
    assert NEIGHBOUR in found(run)
    assert run.exit_code == 1


# --- inputs whose reading grew with the square of the file -----------------------------


# What these inputs cost as they grow is measured in benchmarks/hostile_inputs.py (linear, not
# quadratic); the tests hold what a user sees of them: the engine command still read.
def _lint_big(path: Path, rules) -> object:
    return lint_file(path, path.name, rules)


def test_a_megabyte_comment_line_is_read_in_linear_time(tmp_path, rules):
    # the comment scan for a GPU's name (HBM005's hint) blanked paths with \S*[/\\]\S*, which
    # tried each of a line's characters to its end: a 1 MB comment took minutes (fuzz seed
    # 4101, a 300,000-character comment took 12 s); the splitter also stepped through a
    # comment one character at a time
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\n# "
        + "y" * 1_000_000
        + "\n# on an L4\nvllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192\n"
    )
    result = _lint_big(path, rules)
    [hbm005] = [f for f in result.diagnostics if f.code == "HBM005"]
    assert "the comment at line 3 names L4-24GB" in hbm005.message  # still found after it


def test_a_command_of_many_words_is_read_in_linear_time(tmp_path, rules):
    # looking for `sh -c` / `eval` in a command copied the rest of the command at each word
    # (quadratic: 60,000 words took 34 s)
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\necho "
        + "w " * 60_000
        + "\nvllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192\n"
    )
    result = _lint_big(path, rules)
    [deployment] = result.deployments
    assert deployment.deployment.serving.max_model_len == 8192


def test_thousands_of_deeply_indented_lines_are_read_in_linear_time(tmp_path, rules):
    # fuzz's deep_nesting in a script: 2,000 lines indented up to 4,000 blanks (4 MB) took
    # 23 s to a minute: each command scanned the whole text for "nim/", each word copied its
    # line up to itself, and the splitter stepped through blanks one at a time
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\n"
        + "".join(" " * (2 * i) + "k:\n" for i in range(2000))
        + "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192\n"
    )
    result = _lint_big(path, rules)
    [deployment] = result.deployments
    assert deployment.deployment.serving.max_model_len == 8192


def test_a_megabyte_line_in_a_here_document_is_read_in_linear_time(tmp_path, rules):
    # a here-document's body was expanded into a string grown a character at a time: a 3 MB
    # line in `cat > gen.yml << EOF` took minutes (fuzz seed 3703)
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\ncat > extra.yml << EOF\nprint_iter_log: true\n# "
        + "y" * 1_000_000
        + "\nEOF\nvllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192\n"
    )
    result = _lint_big(path, rules)
    [deployment] = result.deployments
    assert deployment.deployment.serving.max_model_len == 8192
