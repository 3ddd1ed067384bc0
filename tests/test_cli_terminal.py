"""Terminal conventions: colour on a terminal and never in a pipe, NO_COLOR, FORCE_COLOR and
--color; --quiet; --statistics; --stdin-filename; --gpu on `formats`; --version; completion."""

from __future__ import annotations

import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import manifest

from hbmlint import __version__
from hbmlint.cli import main

ESC = "\x1b["
NO_GPU = manifest(
    """
    model: {name: meta-llama/Llama-3.1-8B-Instruct}
    serving: {max_model_len: 8192}
""",
    name="nogpu",
)
TOO_BIG = manifest(
    """
    gpu: {type: L4}
    model: {name: meta-llama/Llama-3.1-70B-Instruct}
""",
    name="toobig",
)
EXE = shutil.which("hbmlint", path=str(Path(sys.executable).parent)) or "hbmlint"


def invoke(*args: str, stdin: str | None = None, env: dict | None = None):
    result = CliRunner().invoke(
        main, [str(a) for a in args], input=stdin, env=env, catch_exceptions=False
    )
    return result.exit_code, result.stdout


def test_piped_output_has_no_colour(write):
    code, out = invoke(write(NO_GPU))
    assert code == 1 and "HBM005" in out and ESC not in out


@pytest.mark.parametrize(
    ("env", "flag", "coloured"),
    [
        ({"FORCE_COLOR": "1"}, None, True),
        ({"NO_COLOR": "1"}, "always", True),  # the command line wins
        ({"FORCE_COLOR": "1"}, "never", False),
        ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, None, False),  # NO_COLOR beats FORCE_COLOR
        ({"FORCE_COLOR": ""}, None, False),  # set but empty counts as unset
        ({}, "always", True),
    ],
)
def test_colour_choice(write, env, flag, coloured):
    args = [write(NO_GPU)] + (["--color", flag] if flag else [])
    code, out = invoke(*args, env=env)
    assert code == 1
    assert (ESC in out) is coloured
    if coloured:
        # severity red, code magenta, location bold; the words themselves unchanged
        assert f"{ESC}31m{ESC}1merror{ESC}0m" in out
        assert f"{ESC}35m{ESC}1mHBM005{ESC}0m" in out
        assert out.startswith(f"{ESC}1m")  # the location, bold
        plain = __import__("click").unstyle(out)
        _, expected = invoke(write(NO_GPU), "--color", "never")
        assert plain == expected


def _on_a_terminal(args: list[str], env_extra: dict[str, str]) -> str:
    """Run hbmlint with its standard output on a pseudo-terminal, as a user's shell does."""
    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(env_extra)
    proc = subprocess.Popen([EXE, *args], stdout=follower, stderr=subprocess.DEVNULL, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=120)
    os.close(leader)
    return b"".join(chunks).decode()


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_a_terminal_gets_colour_unless_no_color(write):
    path = str(write(NO_GPU))
    assert ESC in _on_a_terminal([path], {})
    assert ESC not in _on_a_terminal([path], {"NO_COLOR": "1"})


def test_quiet_prints_the_findings_only(write):
    path = write(TOO_BIG)
    code, out = invoke(path, "--quiet")
    assert code == 1
    assert "HBM101" in out and "fix:" in out
    assert "Found" not in out
    code, out = invoke(
        write(
            manifest(
                "gpu: {type: H100}\nmodel: {name: meta-llama/Llama-3.1-8B-Instruct}\n", name="ok"
            ),
            "ok.yaml",
        ),
        "-q",
    )
    assert code == 0 and out == ""


def test_statistics_counts_per_code(write):
    write(NO_GPU, "a.yaml")
    write(NO_GPU, "b.yaml")
    path = write(TOO_BIG, "c.yaml")
    code, out = invoke(path.parent, "--statistics")
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "2\tHBM005\t[unknown-gpu] error"
    assert any(line.startswith("1\tHBM101\t[weights-exceed-hbm]") for line in lines)
    assert "fix:" not in out and "Found" not in out
    import json

    code, out = invoke(path.parent, "--statistics", "--format", "json")
    rows = json.loads(out)
    assert rows[0] == {"code": "HBM005", "name": "unknown-gpu", "severity": "error", "count": 2}


def test_stdin_filename_names_standard_input(write, tmp_path, monkeypatch):
    text = NO_GPU
    code, out = invoke("-", stdin=text)
    assert out.startswith("<stdin>:")
    code, out = invoke("-", "--stdin-filename", "deploy/llama.yaml", stdin=text)
    assert code == 1 and out.startswith("deploy/llama.yaml:")
    # the name is what per-file-ignores match
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".hbmlint.yaml").write_text("per-file-ignores:\n  'deploy/*': [HBM005]\n")
    code, out = invoke("-", "--stdin-filename", "deploy/llama.yaml", stdin=text)
    assert code == 0, out
    code, out = invoke("budget", "-", "--stdin-filename", "x.yaml", "--gpu", "H100", stdin=text)
    assert code == 0 and out.startswith("x.yaml: nogpu")


def test_formats_takes_gpu(write):
    path = write(NO_GPU)
    code, out = invoke("formats", path)
    assert code == 0 and "gpu.type" not in out
    code, out = invoke("formats", path, "--gpu", "H100")
    assert code == 0
    assert [line.split() for line in out.splitlines() if "gpu.type" in line] == [
        ["gpu.type", "H100", "--gpu"]
    ]
    # a manifest that names its GPU shows its own
    code, out = invoke("formats", write(TOO_BIG, "big.yaml"), "--gpu", "H100")
    assert "--gpu" not in out and "L4" in out


def test_version():
    code, out = invoke("--version")
    assert code == 0 and out == f"hbmlint, version {__version__}\n"


def test_bash_completion_script():
    env = dict(os.environ, _HBMLINT_COMPLETE="bash_source")
    done = subprocess.run([EXE], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert "_hbmlint_completion()" in done.stdout
    assert "complete -o nosort -F _hbmlint_completion hbmlint" in done.stdout
    # and it completes: the subcommands after `hbmlint bu`
    env = dict(
        os.environ, _HBMLINT_COMPLETE="bash_complete", COMP_WORDS="hbmlint bu", COMP_CWORD="1"
    )
    done = subprocess.run([EXE], env=env, capture_output=True, text=True, timeout=60)
    assert "plain,budget" in done.stdout.splitlines()
