"""Shell launch scripts (``scripts/serve.sh``): each engine command the script runs is one
Deployment.

A file is a script when its name ends in ``.sh`` / ``.bash`` or its first line is a ``#!`` for a
POSIX shell or bash, or when the configuration's ``formats`` maps it to ``shell``; directories
are still searched for YAML only, so a script is read when it is named (or piped in with
``--stdin-filename``). The script is split as the other readers split an ``sh -c`` script
(engines/shell.py): line continuations joined, ``VAR=value`` and ``export VAR=value`` before a
command expanded in it, ``${VAR:-default}`` taking its default; a variable the script does not
set comes from the environment that runs it, which hbmlint cannot see, so a word holding one is
unreadable (HBM011 where it matters), as are the script's own arguments (``$1``, ``"$@"``), and
a variable set to different values in several places (``if``/``else`` branches). A bash array
(``CMD=( ... )``) is one command line across its lines. Every engine command found (``vllm
serve``, ``python -m sglang.launch_server``, ``trtllm-serve``, ``text-generation-launcher``, a
``docker run`` of an engine image, a command line kept in a variable and run with ``bash -c``)
is read with its engine's parser, its findings at the words' lines and columns. Each command
is a deployment of its own, those in ``if``/``else`` branches too: only one branch runs, but
which one hbmlint cannot tell, and each is a way the script may start the engine. A
here-document's body is input (a file written with ``cat``, Python fed to ``python -``), not
commands, unless a shell or a batch job reads it (``bash <<EOF``, ``sbatch <<EOF``).

A script names no GPU type hbmlint can trust (``CUDA_VISIBLE_DEVICES`` is an index, a comment
is prose): the type comes from ``--gpu``, as for compose files. Their number is what the engine
sees: ``CUDA_VISIBLE_DEVICES`` on the command or exported before it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic
from ..engines import read_command, read_invocation
from ..engines.args import Token
from ..engines.shell import SHELLS, Exported, Locator, shell_script, split_script
from ..spec import Deployment
from ..yamlsrc import Span
from . import SCRIPT_SUFFIXES
from .build import GpuFacts, build, visible_devices

NAME = "shell"
# `#!/bin/bash`, `#!/usr/bin/env bash`, `#! /bin/sh -e`, `#!/usr/bin/env -S bash -eu`
_SHEBANG = re.compile(r"#![ \t]*(\S+)(?:[ \t]+(?:-\S*[ \t]+)*(\S+))?")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
# the script's own arguments, which the caller gives when it runs it
_ARGUMENT = re.compile(r"\$(?:[1-9]|\{[1-9]\})")
_ALL_ARGUMENTS = re.compile(r"\$(?:[@*]|\{[@*]\})")


def detect(data: Any) -> bool:
    """Never from a YAML document: a script is told by its name or first line (is_script)."""
    return False


def _shebang_shell(text: str) -> bool:
    match = _SHEBANG.match(text)
    if match is None:
        return False
    program = match.group(1).rsplit("/", 1)[-1]
    if program == "env":
        program = (match.group(2) or "").rsplit("/", 1)[-1]
    return program in SHELLS


def is_script(display: str, text: str) -> bool:
    """Whether a file is a shell script by its name (``.sh``, ``.bash``) or its ``#!`` line."""
    return display.lower().endswith(SCRIPT_SUFFIXES) or _shebang_shell(text)


def _arguments(command: list[Token]) -> list[Token]:
    """The command with the words that hold the script's own arguments (``$1``, ``"$@"``: the
    caller's words, unknown here) marked unreadable."""
    out = []
    for token in command:
        found = _ALL_ARGUMENTS.fullmatch(token.text) or _ARGUMENT.search(token.text)
        if found and token.readable:
            why = f"{found.group(0)} is what the script is given when it is run"
            token = Token(token.text, token.span, (why,))
        out.append(token)
    return out


def _awaits_value(before: list[Token]) -> bool:
    """Whether the word after ``before`` is a flag's value (``--tp $TP``), as far as the words
    say: the last one is a flag without ``=``."""
    return bool(before) and before[-1].text.startswith("-") and "=" not in before[-1].text


def _flags_unread(word: Token) -> str:
    why = word.unresolved[0]
    if " is " not in why:
        why = f"{word.text} is not set earlier in the script (it comes from what runs it)"
    return f"{why}; any flags it holds are not checked"


def _prefix_env(command: list[Token]) -> tuple[dict[str, Token], list[Token]]:
    """``NAME=value`` words before the command (``MODEL_ID=... text-generation-launcher``): the
    engine's environment for this command, and the words it runs."""
    env: dict[str, Token] = {}
    at = 0
    while at < len(command) and _ASSIGNMENT.match(command[at].text):
        name, _, value = command[at].text.partition("=")
        env[name] = Token(value, command[at].span, command[at].unresolved)
        at += 1
    words = command[at:]
    while words and words[0].text in ("exec", "nohup", "time"):
        words = words[1:]
    return env, words


# `NAME=value` (after `export`, `local`, `readonly`, `declare -x`) as a statement of its own
_SET = re.compile(
    r"(?:^|[;&|{]|\bthen|\belse|\bdo)[ \t]*"
    r"(?:(?:export|local|readonly|declare(?:[ \t]+-\w+)*)[ \t]+)?"
    r"([A-Za-z_][A-Za-z0-9_]*)=(\"[^\"\n]*\"|'[^'\n]*'|\$\([^\n]*?\)|[^\s;&|()]*)"
    r"(?=[ \t]*(?:$|[;&|#]))",
    re.M,
)
# a bash array assignment, `ARGS=(` ... `)`
_ARRAY = re.compile(r"(?:^|[\s;])[A-Za-z_][A-Za-z0-9_]*\+?=\(", re.M)


def _prepared(text: str) -> tuple[str, dict[str, str]]:
    """The script as the splitter reads it, every character where it was (so that each word is
    found at its own line and column in ``text``), and the variables whose value is not known:

    - a variable set to different values in several places (``if``/``else`` branches, a
      default then an override) has whichever value the run takes, which hbmlint does not
      follow: it is not set in the copy, and a word using it is unreadable;
    - a bash array (``CMD=( python -m sglang.launch_server --model-path ... )``) is one
      command line across its lines, so that an engine command built in one is read whole."""
    values: dict[str, set[str]] = {}
    where: dict[str, list[int]] = {}
    for match in _SET.finditer(text):
        values.setdefault(match.group(1), set()).add(match.group(2))
        where.setdefault(match.group(1), []).append(match.start(1))
    chars = list(text)
    origins: dict[str, str] = {}
    for name, seen in values.items():
        if len(seen) < 2:
            continue
        origins[name] = (
            f"{name} is set to {len(seen)} different values in the script, and which one a run "
            "takes depends on what hbmlint does not follow (branches, arguments)"
        )
        for start in where[name]:
            chars[start : start + len(name)] = "_" * len(name)
    for match in _ARRAY.finditer(text):
        _one_line(text, chars, match.end())
    return "".join(chars), origins


def _one_line(text: str, chars: list[str], at: int) -> None:
    """Blank the line breaks (and comments) of the array whose ``(`` ends before ``at``."""
    depth, quote = 1, ""
    i = at
    while i < len(text) and depth:
        c = text[i]
        if quote:
            if c == quote:
                quote = ""
            elif c == "\\" and quote == '"':
                i += 1
        elif c in "'\"":
            quote = c
        elif c == "\\":
            i += 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "#" and (i == at or text[i - 1] in " \t\n"):
            end = text.find("\n", i)
            end = len(text) if end < 0 else end
            chars[i:end] = " " * (end - i)
            i = end
            continue
        if c == "\n":
            chars[i] = " "
        i += 1


# the devices the engine sees (on the command, `CUDA_VISIBLE_DEVICES=0,1 vllm serve ...`, or
# exported before it): its GPU count, as in a compose service's environment
_VISIBLE = "CUDA_VISIBLE_DEVICES"


def _exported(text: str, variable: Exported | None) -> Token | None:
    """An exported variable's value as a word at its ``NAME=value`` in ``text`` (the prepared
    script keeps every character where it was, so its offsets are the file's)."""
    if variable is None:
        return None
    line = text.count("\n", 0, variable.offset) + 1
    column = variable.offset - (text.rfind("\n", 0, variable.offset) + 1) + 1
    length = len(_VISIBLE) + 1 + len(variable.value)
    return Token(variable.value, Span(line, column, line, column + length), variable.unresolved)


def to_script_deployments(
    text: str, path: Path, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    """Every engine command of the script ``text``, each as a Deployment."""
    start = Span(1, 1)
    script, origins = _prepared(text)
    exports: list[dict[str, Exported]] = []
    commands = split_script(script, {}, Locator(text, start), start, origins, exports)
    found: list[tuple[Any, Span, GpuFacts]] = []
    for words, exported in zip(commands, exports, strict=True):
        env, words_run = _prefix_env(_arguments(words))
        if not words_run:
            continue
        # a word that is only a variable hbmlint cannot read, where a flag would start ("$@",
        # $EXTRA_ARGS), adds flags; only where the script names no model is the model taken
        # to be among them. The first word is the program ($PYTHON -m vllm...), not flags.
        loose = [
            t
            for i, t in enumerate(words_run)
            if i and not t.readable and t.text.startswith("$") and not _awaits_value(words_run[:i])
        ]
        plain = [t for t in words_run if t not in loose]
        parsed = read_command(plain, env, text) if loose else None
        if parsed is not None and (parsed.model_unreadable or parsed.values.get("model.name")):
            for word in loose:
                parsed.note("HBM011", _flags_unread(word), word.span)
        else:
            parsed = read_command(words_run, env, text)
        if parsed is None and shell_script(words_run) is not None:
            # `bash -c "$CMD"`: the command line the script built in a variable, run by a shell
            parsed = read_invocation(words_run, env, text, k8s_expansion=False)
        if parsed is not None:
            visible = env.get(_VISIBLE) or _exported(text, exported.get(_VISIBLE))
            found.append((parsed, words_run[0].span, visible_devices(GpuFacts(), visible)))
    stem = Path(display).name
    deployments: list[Deployment] = []
    findings: list[Diagnostic] = []
    for parsed, where, gpu in found:
        name = stem if len(found) == 1 else f"{stem}:{where.line}"
        deployment, problems = build(
            parsed, name=name, display=display, document=0, gpu=gpu, where=where
        )
        findings.extend(problems)
        if deployment is not None:
            deployments.append(deployment)
    return deployments, findings


def to_deployments(document: Any, path: Path, display: str) -> tuple[list, list]:
    """A YAML document is never a script: lint.py reads scripts from their text."""
    return to_script_deployments(document.text, path, display)
