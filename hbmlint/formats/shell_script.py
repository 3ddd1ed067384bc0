"""Shell launch scripts (``scripts/serve.sh``): each engine command the script runs is one
Deployment.

A file is a script when its name ends in ``.sh`` / ``.bash`` or its first line is a ``#!`` for a
POSIX shell or bash, or when the configuration's ``formats`` maps it to ``shell``; directories
are still searched for YAML only, so a script is read when it is named (or piped in with
``--stdin-filename``). The script is split as the other readers split an ``sh -c`` script
(engines/shell.py): line continuations joined, ``VAR=value`` and ``export VAR=value`` before a
command expanded in it, ``${VAR:-default}`` taking its default; a variable the script does not
set comes from the environment that runs it, which hbmlint cannot see, so a word holding one is
unreadable (HBM011 where it matters), as are the script's own arguments (``$1``, ``"$@"``; a
default written for one outside a function, ``MODEL=${1:-Qwen/Qwen3-8B}``, is what a run with
no argument takes, and is read), and a variable set to different values in several places
(``if``/``else`` branches). A bash array
(``ARGS=( ... )``, grown with ``ARGS+=( ... )``) is its elements where ``"${ARGS[@]}"`` expands
it; what a branch adds is unreadable. Every engine command found (``vllm
serve``, ``python -m sglang.launch_server``, ``trtllm-serve``, ``text-generation-launcher``, a
``docker run`` of an engine image, a command line kept in a variable and run with ``bash -c``)
is read with its engine's parser, its findings at the words' lines and columns. An engine
command inside a shell function is read at each call, with the call's words as the function's
``$1``.. and ``"$@"`` (after a ``shift N`` that runs once, the words it leaves); a function
that calls another (``launch_nccl`` passing its words and ``"$@"`` to ``launch_sglang_server``)
is read through to the engine command at each outermost call, the arguments threaded through
each layer (a function reached again from itself is not followed); a function never called is
read where it is written. A variable a function makes its own (``local NAME=...``,
``declare``/``typeset`` without ``-g``) holds its value in that body only: it is not a second
value of the script's variable, and after the body the script's value holds again. The
functions of a file the script sources (``source "$SCRIPT_DIR/common_launch.sh"``, found as
its variables are) are the script's: a call to one is read as if the function were in the
script, a word the call gives at the caller's word and a word of the sourced file at the call
(its lines are not the linted file's); one the script never calls is not read. Each command
is a deployment of its own, those in ``if``/``else`` branches too: only one branch runs, but
which one hbmlint cannot tell, and each is a way the script may start the engine. A
here-document's body is input (a file written with ``cat``, Python fed to ``python -``), not
commands, unless a shell or a batch job reads it (``bash <<EOF``, ``sbatch <<EOF``); one handed
to ``kubectl apply -f -`` (``cat <<EOF | kubectl apply -f -``) is Kubernetes objects, read as
a manifest at its lines in the script.

A script names no GPU type hbmlint can trust (``CUDA_VISIBLE_DEVICES`` is an index, a comment
is prose): the type comes from ``--gpu``, as for compose files. Their number is what the engine
sees: ``CUDA_VISIBLE_DEVICES`` on the command or exported before it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..catalog.labels import image_build_gpu
from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import (
    EnvFiles,
    container_env,
    container_release,
    note_cut_options,
    option_value,
    read_command,
    read_invocation,
    written_files,
)
from ..engines.args import FLAGS_ONLY, FORWARDED_FLAGS, Token
from ..engines.config_file import ConfigFiles
from ..engines.shell import (
    APPLIED,
    ARGUMENT,
    SHELLS,
    Exported,
    Locator,
    Written,
    shell_functions,
    shell_script,
    split_script,
)
from ..lazyre import LazyPattern
from ..spec import IMAGE_BUILD, ROCM_SAID, Deployment, Label
from ..yamlsrc import Span
from . import SCRIPT_SUFFIXES, accelerators
from .build import (
    GpuFacts,
    build,
    container_given,
    docker_gpus,
    mounted_from,
    nvidia_runtime_devices,
    visible_devices,
)
from .config_files import repository_file, repository_files
from .multihost import needed_gpus
from .shell_comments import comments_ending_commands

NAME = "shell"
# `#!/bin/bash`, `#!/usr/bin/env bash`, `#! /bin/sh -e`, `#!/usr/bin/env -S bash -eu`
_SHEBANG = re.compile(r"#![ \t]*(\S+)(?:[ \t]+(?:-\S*[ \t]+)*(\S+))?")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
# the script's own arguments, which the caller gives when it runs it
_ARGUMENT = re.compile(r"\$(?:[1-9]|\{[1-9]\})")
_ALL_ARGUMENTS = re.compile(r"\$(?:[@*]|\{[@*]\})")
_functions = shell_functions


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


def _arguments(command: list[Token], function: str | None = None) -> list[Token]:
    """The command with the words that hold the script's own arguments (``$1``, ``"$@"``: the
    caller's words, unknown here), or in a function never called its own, marked unreadable."""
    out = []
    for token in command:
        found = _ALL_ARGUMENTS.fullmatch(token.text) or _ARGUMENT.search(token.text)
        if found and token.readable:
            given = f"the function {function}" if function else "the script"
            why = f"{found.group(0)} is what {given} is given when it is run"
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


# Commands that run the rest of the line as a command of its own (`sudo docker run ...`,
# `env VAR=1 vllm serve ...`), with their options that take a value as the next word (sudo(8):
# -u user, -g group, ...; env(1): -u NAME, -C DIR, -S STRING)
_RUNNERS = {
    "exec": ("-a",),
    "nohup": (),
    "time": (),
    "sudo": ("-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "-R"),
    "env": ("-u", "-C", "-S"),
}


def _prefix_env(command: list[Token]) -> tuple[dict[str, Token], list[Token]]:
    """``NAME=value`` words before the command (``MODEL_ID=... text-generation-launcher``): the
    engine's environment for this command, and the words it runs, past the commands that run it
    (``sudo``, ``env``, ``nohup``, ``exec``, ``time``) and their options."""
    env: dict[str, Token] = {}
    words = command
    while words:
        if _ASSIGNMENT.match(words[0].text):
            name, _, value = words[0].text.partition("=")
            env[name] = Token(value, words[0].span, words[0].unresolved)
            words = words[1:]
            continue
        runner = words[0].text
        takes_value = _RUNNERS.get(runner)
        if takes_value is None:
            break
        words = words[1:]
        keeps_env = runner != "sudo"
        while words and words[0].text.startswith("-") and words[0].text != "-":
            option = words[0].text
            words = words[1:]
            if option == "--":
                break
            if option.startswith("--preserve-env") or (
                not option.startswith("--") and "E" in option
            ):
                keeps_env = True
            if option in takes_value and words:
                words = words[1:]  # the option's value
        if not keeps_env:
            env = {}  # sudo resets the environment (env_reset) unless told to keep it (-E)
    return env, words


# `NAME=value` (after `export`, `local`, `readonly`, `declare -x`) as a statement of its own
_SET = re.compile(
    r"(?:^|[;&|{]|\bthen|\belse|\bdo)[ \t]*"
    r"(?:(export|local|readonly|typeset|declare(?:[ \t]+-\w+)*)[ \t]+)?"
    r"([A-Za-z_][A-Za-z0-9_]*)=(\"[^\"\n]*\"|'[^'\n]*'|\$\([^\n]*?\)|[^\s;&|()]*)"
    r"(?=[ \t]*(?:$|[;&|#]))",
    re.M,
)
# `local NAME...` (`declare`, `typeset`) as a statement: in a function, its own variables
_LOCAL_DECLARED = re.compile(
    r"(?:^|[;&|{]|\bthen|\belse|\bdo)[ \t]*(?:local|typeset|declare)((?:[ \t]+-\w+)*)[ \t]+"
    r"([^;&|\n#]*)",
    re.M,
)
_DECLARED_NAME = re.compile(r"(?:^|(?<=\s))([A-Za-z_][A-Za-z0-9_]*)(?=\+?=|\s|$)")
# a bash array assignment, `ARGS=(` ... `)`
_ARRAY = re.compile(r"(?:^|[\s;])[A-Za-z_][A-Za-z0-9_]*\+?=\(", re.M)


# what makes a script run other than line after line: a branch, a loop, a function, a command
# run only on another's success or failure, the script's own arguments (`${1:-...}` defaults)
_CONTROL = re.compile(
    r"^[ \t]*(?:if|elif|case|for|while|until|select|function)\b|\(\)[ \t]*\{|&&|\|\||\$\{?[1-9@*#]",
    re.MULTILINE,
)


def _prepared(text: str) -> tuple[str, dict[str, str]]:
    """The script as the splitter reads it, every character where it was (so that each word is
    found at its own line and column in ``text``), and the variables whose value is not known:

    - a variable set to different values in several places (``if``/``else`` branches, a
      default then an override) has whichever value the run takes, which hbmlint does not
      follow: it is not set in the copy, and a word using it is unreadable;
    - a bash array (``CMD=( python -m sglang.launch_server --model-path ... )``) is one
      line, its comments blanked, so that none of its lines reads as a statement of its own
      (the splitter keeps its elements for ``"${CMD[@]}"``)."""
    values: dict[str, set[str]] = {}
    where: dict[str, list[int]] = {}
    functions = list(_functions(text).values()) if "(" in text or "function" in text else []
    # a function's own variables (`local MODEL_PATH="$1"`): their values there are not the
    # script's, and only where one function gives one of them several is it unknown
    own = _function_locals(text, functions)
    in_function: dict[tuple[tuple[int, int], str], set[str]] = {}
    for match in _SET.finditer(text):
        name, value = match.group(2), match.group(3)
        scope = _scope(functions, match.start(2))
        if scope is not None and (scope, name) in own:
            in_function.setdefault((scope, name), set()).add(value)
            where.setdefault(name, []).append(match.start(2))
            continue
        if ARGUMENT.search(value) and scope is None:
            # `MODEL="$2"` in an option loop, outside a function: a run with no argument keeps
            # the script's default (the splitter skips the branch; engines/shell.py _assigned)
            where.setdefault(name, []).append(match.start(2))
            continue
        values.setdefault(name, set()).add(value)
        where.setdefault(name, []).append(match.start(2))
    for (_, name), seen in in_function.items():
        if len(seen) > 1:  # set to several values in one function: unknown, as in the script
            values.setdefault(name, set()).update(seen)
    chars = list(text)
    origins: dict[str, str] = {}
    # a script with no branch, loop, function or `&&`/`||`: it runs line after line, so each
    # command takes the value set last before it (the splitter sets them in order)
    linear = any(len(seen) > 1 for seen in values.values()) and not _CONTROL.search(text)
    for name, seen in values.items():
        if len(seen) < 2 or linear:
            continue
        origins[name] = (
            f"{name} is set to {len(seen)} different values in the script, and which one a run "
            "takes depends on what hbmlint does not follow (branches, arguments)"
        )
        if all(value.strip("\"'").startswith("-") or not value.strip("\"'") for value in seen):
            # `LORA_ARGS="--enable-lora ..."` or `LORA_ARGS=""`: never a positional model
            origins[name] += f" ({FLAGS_ONLY})"
        for start in where[name]:
            chars[start : start + len(name)] = "_" * len(name)
    for match in _ARRAY.finditer(text):
        _one_line(text, chars, match.end())
    return "".join(chars), origins


def _scope(functions: list[tuple[int, int]], at: int) -> tuple[int, int] | None:
    """The innermost function body (start, end) the offset ``at`` is in; None outside all."""
    inside = [scope for scope in functions if scope[0] <= at < scope[1]]
    return max(inside) if inside else None


def _function_locals(
    text: str, functions: list[tuple[int, int]]
) -> set[tuple[tuple[int, int], str]]:
    """The variables each function makes its own (``local NAME``, ``declare``/``typeset``
    without ``-g``), by the function's body."""
    own: set[tuple[tuple[int, int], str]] = set()
    if not functions:
        return own
    for match in _LOCAL_DECLARED.finditer(text):
        scope = _scope(functions, match.start())
        if scope is None or "g" in match.group(1):
            continue
        for name in _DECLARED_NAME.findall(match.group(2)):
            own.add((scope, name))
    return own


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


def _exported(text: str, variable: Exported | None, name: str = _VISIBLE) -> Token | None:
    """An exported variable's value as a word at its ``NAME=value`` in ``text`` (the prepared
    script keeps every character where it was, so its offsets are the file's)."""
    if variable is None:
        return None
    line = text.count("\n", 0, variable.offset) + 1
    column = variable.offset - (text.rfind("\n", 0, variable.offset) + 1) + 1
    length = len(name) + 1 + len(variable.value)
    return Token(variable.value, Span(line, column, line, column + length), variable.unresolved)


def to_script_deployments(
    text: str, path: Path, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    """Every engine command of the script ``text``, each as a Deployment. A shell function's
    engine command is read where the function is called, with that call's arguments as its
    ``$1``.. and ``"$@"`` (once per call); one never called is read where it is written."""
    start = Span(1, 1)
    crlf = _crlf_endings(text, display) if "\r\n" in text else None
    if crlf is not None:
        # read as the author wrote it (each line's CR dropped: lines and columns stay the
        # file's); the one warning says what bash makes of it
        text = text.replace("\r\n", "\n")
    script, origins = _prepared(text)
    exports: list[dict[str, Exported]] = []
    written: list[tuple[Written, Span]] = []
    job = None
    if "#SBATCH" in text or "#PBS" in text:  # a batch script: the GPUs its directives request
        from .slurm import job_of

        job = job_of(text)
    breaks: list[tuple[int, int]] = []
    functions = _functions(script)

    def outside_functions(offset: int) -> bool:
        return not any(a <= offset < b for a, b in functions.values())

    libraries: dict[str, str] = {}  # the files the script sources, by the name it gives

    def sourced(name: str) -> str | None:
        # `source config/serve.env`: beside the script, or from a folder above it (a script
        # run from the repository's root), as a config file the script names
        found = repository_file(path, name, up="/" in name.strip("./"), above=True)
        if isinstance(found, str):
            libraries.setdefault(name, found)
        return found

    commands = split_script(
        script,
        # $HOME is the user's home folder, whichever it is: `$HOME/models/Qwen3-8B` is the local
        # path ~/models/Qwen3-8B, named by its last part as any local path
        {"HOME": "~", **(job.environment() if job is not None else {})},
        Locator(text, start),
        start,
        origins,
        exports,
        open_env=True,
        written=written,
        comment_breaks=breaks,
        argument_defaults=outside_functions,
        sourced=sourced,
        scoped=True,
    )
    outer = repository_files(path)

    def beside(name: str) -> str | None:
        # `docker run --env-file serve.env`: docker reads it from where it runs, the
        # script's folder as hbmlint takes it
        return repository_file(path, name, up=False)

    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    # the functions of the files the script sources (`source "$SCRIPT_DIR/common_launch.sh"`),
    # read after the script's own text (`joined`), for the calls of the script to reach
    joined, known, bodies, foreign = _library_functions(text, libraries, functions)
    known.update(functions)
    joined_starts = [0] + [m.end() for m in re.finditer("\n", joined)]
    own_lines = text.count("\n") + (not text.endswith("\n"))
    called: set[str] = set()
    found: list[tuple[Any, Span, tuple[str, Span] | None]] = []
    loops = _literal_loops(script) if "for " in script else []
    nim_deployments: list[Deployment] = []  # `docker run nvcr.io/nim/ORG/MODEL:TAG`
    findings_of_nim: list[Diagnostic] = []
    labels: dict[int, str] = {}  # id of a read -> the loop value it was read with
    # asked once, not once a command: a scan of the whole text for each of a script's thousands
    # of commands was quadratic (minutes for a few megabytes)
    mentions_nim = "nim/" in text
    for index, (words, exported) in enumerate(zip(commands, exports, strict=True)):
        files = written_files(written, index, text, outer)
        # where the command starts: past the `{` that opens a body on the definition's line
        # (`f() { vllm serve "$1"; }`), which the function's body starts after
        first = words[1] if len(words) > 1 and words[0].text == "{" else words[0]
        at = starts[first.span.line - 1] + first.span.column - 1
        owner = next((name for name, (a, b) in functions.items() if a <= at < b), None)
        if owner is not None:
            bodies.setdefault(owner, []).append((words, exported))
            continue
        call_env, call = _prefix_env(_after_keywords(words))
        if call and bodies.get(call[0].text):
            run: set[tuple[str, ...]] = set()
            reached = _through(call, bodies, known, joined, joined_starts, called)
            for words_run, body, env in reached:
                if foreign:
                    # a word of a sourced file is placed at the call: its own lines are not
                    # this file's; the words the call gives stay where it writes them
                    words_run = _placed(words_run, own_lines, call[0].span)
                    body = _placed(body, own_lines, call[0].span)
                    placed = _placed(list(env.values()), own_lines, call[0].span)
                    env = dict(zip(env, placed, strict=True))
                # a retry (`"$@" || "$@"`) runs the same command again: one deployment
                said = tuple(w.text for w in words_run)
                if said in run:
                    continue
                run.add(said)
                read = _read(
                    words_run, exported, text, {**call_env, **env}, files=files, env_files=beside
                )
                if read is not None:
                    found.append((read, call[0].span, _release(body)))
            continue
        if mentions_nim:  # nvcr.io/nim/..., or built from variables ("nvcr.io/${REPO}")
            name = f"{Path(display).name}:{words[0].span.line}"
            nim_run = _nim_run(words, text, display, name, findings_of_nim)
            if nim_run:
                nim_deployments += nim_run
                continue
        looped = _loop_runs(loops, at, words)
        if looped:
            # `for MODEL in A B; do vllm serve $MODEL ...; done`: one run per value
            for value, words_run in looped:
                read = _read(words_run, exported, text, files=files, env_files=beside)
                if read is not None:
                    labels[id(read)] = value
                    found.append((read, words[0].span, _release(words_run)))
            continue
        read = _read(words, exported, text, files=files, env_files=beside)
        if read is not None:
            note_cut_options(read[0], commands[index + 1] if index + 1 < len(commands) else ())
            found.append((read, words[0].span, _release(words)))
    for name, body in bodies.items():
        if name in called or name in foreign:
            continue  # (a sourced file's function the script never calls is that file's)
        for words, exported in body:
            read = _read(words, exported, text, function=name, files=outer, env_files=beside)
            if read is not None:
                found.append((read, words[0].span, _release(words)))
    found.sort(key=lambda item: (item[1].line, item[1].column))
    stem = Path(display).name
    deployments: list[Deployment] = []
    findings: list[Diagnostic] = []
    pinned = _pip_pin(text) if "install" in text else None
    for read, where, release in found:
        parsed, gpu, other, hints = read
        if release is None and pinned is not None and parsed.engine in pinned:
            # the script installs the engine it runs at a release (`pip install
            # "sglang[all]==0.5.16"`): the release a run of it has (an image names its own)
            release = pinned[parsed.engine]
        name = stem if len(found) + len(nim_deployments) == 1 else f"{stem}:{where.line}"
        if id(read) in labels:
            name += f" ({labels[id(read)]})"
        if other is not None:
            findings.append(accelerators.not_budgeted(other, display, name))
            continue
        if job is not None:
            gpu = job.applied(gpu, needed_gpus(parsed))
        deployment, problems = build(
            parsed,
            name=name,
            display=display,
            document=0,
            gpu=gpu,
            where=where,
            engine_version=release,
        )
        findings.extend(problems)
        if deployment is not None:
            if hints:  # a bind mount's host directory that names the model
                deployment.hints = [*deployment.hints, *hints]
            deployments.append(deployment)
    if nim_deployments and not deployments and len(nim_deployments) == 1:
        # the script's one deployment: named for the script, as any other would be
        named, [nim] = nim_deployments[0].name, nim_deployments
        nim.name = stem
        findings_of_nim = [
            replace(f, deployment=stem) if f.deployment == named else f for f in findings_of_nim
        ]
    findings += findings_of_nim
    deployments += nim_deployments
    for file, _ in written:
        if file.path == APPLIED:
            applied, said = _applied_manifests(
                file.text, text.count("\n", 0, file.start), path, display
            )
            deployments += applied
            findings += said
    findings += comments_ending_commands(text, breaks, display)
    if crlf is not None and deployments:
        findings.insert(0, crlf)
    return deployments, findings


def _applied_manifests(
    body: str, lines_before: int, path: Path, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    """What the formats make of the Kubernetes objects a here-document hands to ``kubectl
    apply -f -`` (Siryoos/kserve-vllm-mini's deploy.sh: a KServe InferenceService), read at
    their lines in the script. A body that is no YAML (a template a tool fills first) is left
    alone: the script's own commands are what is read of it."""
    from ..yamlsrc import load_documents
    from . import detect_format

    documents, error = load_documents("\n" * lines_before + body)
    if error is not None:
        return [], []
    deployments: list[Deployment] = []
    findings: list[Diagnostic] = []
    for document in documents:
        module = detect_format(document.data)
        if module is None or module.NAME == NAME:
            continue
        found, said = module.to_deployments(document, path, display)
        deployments += found
        findings += said
    return deployments, findings


def _crlf_endings(text: str, display: str) -> Diagnostic:
    """HBM018 for a script saved with Windows line endings: bash keeps each line's CR, so a
    backslash before it continues nothing (the options on the next lines never reach the engine) and
    the last word of each line ends in a CR (a model named 'Qwen/Qwen3-8B\\r')."""
    continued = text.find("\\\r\n")
    at = continued if continued >= 0 else 0
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    return input_diagnostic(
        "HBM018",
        "this script has Windows (CRLF) line endings: bash keeps the CR at the end of each "
        "line, so a `\\` there continues nothing and the engine's options on the lines after it "
        "never reach it (nor does a line's last word arrive as written); hbmlint read it as if "
        "the endings were LF",
        display,
        Span(line, column),
        fixes=[
            "Convert the file to LF line endings (dos2unix FILE, or git's core.autocrlf / "
            "a .gitattributes `*.sh text eol=lf`)"
        ],
    )


# `for NAME in WORD...; do` (or the `do` on the next line), its words plain text
_FOR = re.compile(
    r"(?:^|[;&|({]|\s)for[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]+in[ \t]+([^;\n]*?)[ \t]*"
    r"(?:;|\n)\s*do\b"
)
_DO_DONE = re.compile(r"(?<![\w./-])(do|done)(?![\w./-])")
_LITERAL = re.compile(r"[A-Za-z0-9_./:@+=-]+")


def _literal_loops(script: str) -> list[tuple[str, list[str], int, int]]:
    """Each ``for`` loop over plain words (no variable, glob or command in them), at most 16:
    (its variable, the words, where its body starts and ends in ``script``)."""
    loops = []
    for match in _FOR.finditer(script):
        values = [v.strip("\"'") for v in match.group(2).split()]
        if not values or len(values) > 16 or not all(_LITERAL.fullmatch(v) for v in values):
            continue
        depth, end = 1, None
        for word in _DO_DONE.finditer(script, match.end()):
            depth += 1 if word.group(1) == "do" else -1
            if depth == 0:
                end = word.start()
                break
        if end is not None:  # (from the `for`: a command on its line starts at its `do`)
            loops.append((match.group(1), values, match.start(), end))
    return loops


def _loop_runs(
    loops: list[tuple[str, list[str], int, int]], at: int, words: list[Token]
) -> list[tuple[str, list[Token]]]:
    """The command ``words`` (at offset ``at``) once for each value of the innermost literal
    loop it is in whose variable it uses; nothing where it is in none."""
    for name, values, start, end in sorted(loops, key=lambda loop: loop[2], reverse=True):
        if not start <= at < end:
            continue
        reference = re.compile(rf"\$(?:\{{{name}\}}|{name}(?![A-Za-z0-9_]))")
        if not any(reference.search(w.text) for w in words):
            continue
        runs = []
        for value in values:
            words_run = []
            for w in words:
                if not reference.search(w.text):
                    words_run.append(w)
                    continue
                kept = tuple(why for why in w.unresolved if not reference.match(why))
                words_run.append(Token(reference.sub(value, w.text), w.span, kept))
            runs.append((value, words_run))
        return runs
    return []


def _nim_run(
    words: list[Token], text: str, display: str, name: str, findings: list[Diagnostic]
) -> list[Deployment]:
    """A NIM container the script starts (``docker run --gpus all -e NIM_MAX_MODEL_LEN=8192
    nvcr.io/nim/meta/llama-3.1-8b-instruct:latest``, NVIDIA's quickstart): read as nim.py reads
    one in Compose, with the GPUs ``--gpus`` gives it; its findings go to ``findings``."""
    from ..yamlsrc import YamlDocument
    from .nim import nim_image, nim_model_deployment
    from .podspec import Reader

    _, words_run = _prefix_env(words)
    container = accelerators.container_options(words_run)
    image = next((w for w in words_run if w.readable and nim_image(w.text)), None)
    if container is None or image is None:
        return []
    env, options = container
    given = next((value for option, _, value in options if option == "--gpus"), None)
    count = None
    if given is not None and given.readable:
        count = docker_gpus(given.text)
    gpu = GpuFacts(count=count, count_span=given.span if given is not None else None)
    reader = Reader(YamlDocument(data={}, index=0, text=text), display)
    found = nim_model_deployment(reader, name, words[0].span, image.text, image.span, env, gpu, [])
    findings.extend(reader.findings)
    return found


# `pip install vllm==0.11.0`, `uv pip install "sglang[all]==0.5.16"`: the engine at one release
_PIP_PIN = LazyPattern(
    r"\bpip3?[ \t]+install\b[^\n]*?[\s\"']"
    r"(vllm|sglang|tensorrt[-_]llm)(?:\[[^\]]*\])?==(\d+\.\d+(?:\.\d+)?(?:\.post\d+)?)"
)
_PIN_ENGINES = {
    "vllm": "vllm",
    "sglang": "sglang",
    "tensorrt-llm": "trtllm",
    "tensorrt_llm": "trtllm",
}


def _pip_pin(text: str) -> dict[str, tuple[str, Span]] | None:
    """The release a script pins each engine to with pip, where it pins one once (a line that
    is not a comment); None where it pins none."""
    found: dict[str, set[tuple[str, Span]]] = {}
    for match in _PIP_PIN.finditer(text):
        start = text.rfind("\n", 0, match.start()) + 1
        if text[start : match.start()].lstrip().startswith("#"):
            continue
        line = text.count("\n", 0, match.start(2)) + 1
        column = match.start(2) - start + 1
        engine = _PIN_ENGINES[match.group(1).lower()]
        found.setdefault(engine, set()).add((match.group(2), Span(line, column)))
    pins = {e: next(iter(v)) for e, v in found.items() if len({r for r, _ in v}) == 1}
    return pins or None


def _release(words: list[Token]) -> tuple[str, Span] | None:
    """The engine release the image of the container the words run names, past ``sudo`` and
    the like (``sudo docker run ... IMAGE:TAG``)."""
    return container_release(_prefix_env(words)[1])


def _read(
    words: list[Token],
    exported: dict[str, Exported],
    text: str,
    outer: dict[str, Token] | None = None,
    function: str | None = None,
    files: ConfigFiles | None = None,
    env_files: EnvFiles | None = None,
) -> tuple[Any, GpuFacts, accelerators.OtherAccelerator | None, list[Label]] | None:
    """The engine command ``words`` run, if any, with the GPUs it sees, the device other than a
    GPU that its environment or flags say it runs on (accelerators.py), and the deployment's
    hints (a bind mount that names the model). ``outer``: the
    environment a function call gives its commands (``CUDA_VISIBLE_DEVICES=1 start_server``);
    ``function``: the function the words are in, never called (its ``$1`` is its caller's);
    ``env_files``: reads an env file a ``docker run --env-file`` names."""
    env, words_run = _prefix_env(_arguments(words, function))
    # what the script exports is the engine's environment too (`export
    # VLLM_ALLOW_LONG_MAX_MODEL_LEN=1` on a line of its own), under a call's and the command's own
    exported_env = {
        name: token
        for name, variable in exported.items()
        if (token := _exported(text, variable, name)) is not None
    }
    env = {**exported_env, **(outer or {}), **env}
    if not words_run:
        return None
    # a word that is only a variable hbmlint cannot read, where a flag would start ("$@",
    # $EXTRA_ARGS), adds flags; only where the script names no model is the model taken
    # to be among them. The first word is the program ($PYTHON -m vllm...), not flags.
    loose = [
        t
        for i, t in enumerate(words_run)
        if i and not t.readable and t.text.startswith("$") and not _awaits_value(words_run[:i])
    ]
    plain = [t for t in words_run if t not in loose]
    parsed = read_command(plain, env, text, files, env_files) if loose else None
    # without the loose words the command must still name its model (or say why it cannot be
    # read): a model lost to them (`vllm serve "$MODEL" --served-model-name A B`, where the
    # names then take every word) is not a command without one
    if parsed is not None and any(note.code == "HBM003" for note in parsed.notes):
        parsed = None
    if parsed is not None and (parsed.model_unreadable or parsed.values.get("model.name")):
        for word in loose:
            parsed.note("HBM011", _flags_unread(word), word.span)
        shape = ("parallel.tensor", "parallel.pipeline")
        if not any(f in parsed.values or f in parsed.unread for f in shape):
            # a wrapper's `"$@"` may bring the parallelism the file does not write (`exec vllm
            # serve MODEL "$@"`, run as `serve.sh --tensor-parallel-size 8`): budgeted as
            # written, its memory errors are warnings (lint._unless_a_setting_is_unread)
            parsed.unread[FORWARDED_FLAGS] = loose[0].span
    else:
        parsed = read_command(words_run, env, text, files, env_files)
    if parsed is None:
        # `bash -c "$CMD"`: the command line the script built in a variable, run by a shell;
        # or a shell a launcher starts (`srun apptainer exec IMAGE bash -c "python -m ..."`)
        # (only where a shell or `eval` could start: a copy of the rest of the command at each
        # of its words was quadratic, minutes for a command of a few thousand words)
        shell = next(
            (
                i
                for i, word in enumerate(words_run)
                if (word.text == "eval" or word.text.rsplit("/", 1)[-1] in SHELLS)
                and shell_script(words_run[i:])
            ),
            None,
        )
        if shell is not None:
            argv = list(words_run[shell:])
            script, at = shell_script(argv)  # type: ignore[misc]
            if shell:
                # a script written here: its words are looked for from where it starts on (a
                # quoted script spans lines)
                start = Span(script.span.line, script.span.column)
                argv[at] = Token(script.text, start, script.unresolved)
            # in a container (`docker run IMAGE bash -c '...'`, `docker exec -e X=1 C bash -c`)
            # the script sees the variables docker gives it, not the script's own
            inside = container_env(words_run, env, env_files) if shell else None
            shell_env = env if inside is None else inside
            parsed = read_invocation(argv, shell_env, text, k8s_expansion=False, files=files)
    if parsed is None:
        return None
    # `docker run -e CUDA_VISIBLE_DEVICES=1 --gpus 2 ... IMAGE`: the container's own variables
    # and options (the last of each option wins, as docker's)
    container = accelerators.container_options(words_run)
    run_env, options = container if container is not None else ({}, [])
    given = {option: value for option, _, value in options}
    # the container's own CUDA_VISIBLE_DEVICES (TGI counts its shards by it); the script's
    # reaches a container only where `-e CUDA_VISIBLE_DEVICES` passes it on by name
    script_visible = env.get(_VISIBLE) or _exported(text, exported.get(_VISIBLE))
    if container is None or _passed_by_name(words_run, _VISIBLE):
        visible = run_env.get(_VISIBLE) or script_visible
    else:
        visible = run_env.get(_VISIBLE)
    seen = {name: _exported(text, variable, name) for name, variable in exported.items()}
    other = (
        accelerators.in_environment({**seen, **env})  # type: ignore[dict-item]
        or accelerators.in_container_run(words_run)
        or accelerators.in_command(parsed)
    )
    # `docker run --gpus 2` (or the NVIDIA runtime's NVIDIA_VISIBLE_DEVICES): what the container
    # has, of which CUDA_VISIBLE_DEVICES may show less
    gpu = container_given(given.get("--gpus"), parsed, text)
    if given.get("--runtime") is not None and given["--runtime"].text == "nvidia":
        gpu = nvidia_runtime_devices(gpu, run_env.get("NVIDIA_VISIBLE_DEVICES"))
    gpu = visible_devices(gpu, visible, parsed, text)
    amd = accelerators.amd_gpus({**seen, **env}, words_run)  # type: ignore[dict-item]
    if amd is None and _execs_into_a_container(words_run):
        amd = _kfd_given(text)
    if amd is not None:
        gpu = replace(gpu, labels=[*gpu.labels, Label(ROCM_SAID, amd[0], amd[1])])
    # an image built for one GPU: an AMD family's where the container is AMD's, the DGX Spark's
    # where it is not (a word that is not a path: `-v /srv/dgx-spark:/models` names no image)
    built = next((w for w in words_run if w.readable and _built_for(w.text, amd)), None)
    if built is not None:
        gpu = replace(gpu, labels=[*gpu.labels, Label(IMAGE_BUILD, built.text, built.span)])
    mounted = _mounted_model(options, parsed.values.get("model.name"))
    return parsed, gpu, other, [mounted] if mounted is not None else []


def _mounted_model(options: list[tuple[str, Token, Token]], model: Any) -> Label | None:
    """The host directory a container's model path is bind-mounted from (``docker run -v
    /srv/models/Kimi-K2-Thinking:/model ... --model /model``), as a MOUNTED_FROM hint at the
    option (compose.py gives compose volumes the same), for resolve to read the model from its
    name; None for a model that is not under a mount."""
    if not isinstance(model, str) or not model.startswith("/"):
        return None
    for option, _, value in reversed(options):
        if option == "--volume":
            host, _, rest = value.text.partition(":")
            target = rest.partition(":")[0]
        elif option == "--mount":
            fields = dict(f.partition("=")[::2] for f in value.text.split(","))
            host = fields.get("source") or fields.get("src") or ""
            target = fields.get("target") or fields.get("destination") or fields.get("dst") or ""
        else:
            continue
        found = mounted_from(model, host, target, value.span)
        if found is not None:
            return found
    return None


def _built_for(word: str, amd: object) -> bool:
    if word[:1] in "-/~.$" or "/" not in word and ":" not in word:
        return False
    built = image_build_gpu(word)
    return built is not None and (amd is not None) == (built != "GB10")


def _execs_into_a_container(words: list[Token]) -> bool:
    """``docker exec CONTAINER ...`` (podman, nerdctl): the engine runs in a container another
    command of the script started."""
    return (
        len(words) > 2
        and words[0].text.rsplit("/", 1)[-1] in accelerators.CONTAINER_CLIS
        and words[1].text == "exec"
    )


# `--device /dev/kfd` (or `--device=/dev/kfd`) outside a comment: the ROCm device a `docker run`
# of the script gives the container it then execs into (ROCm/rocm-blogs' MI355X serve scripts:
# `docker run -d --name X --device /dev/kfd ... IMAGE sleep infinity`, then `docker exec X ...`)
_KFD = LazyPattern(r"^[^#\n]*?--device[= ]+/dev/kfd\b", re.M)


def _kfd_given(text: str) -> tuple[str, Span] | None:
    found = _KFD.search(text)
    if found is None:
        return None
    line = text.count("\n", 0, found.end()) + 1
    column = found.end() - len("/dev/kfd") - (text.rfind("\n", 0, found.end()) + 1) + 1
    why = "the script's docker run gives the container the engine runs in /dev/kfd (ROCm's device)"
    return why, Span(line, column)


def _passed_by_name(words: list[Token], name: str) -> bool:
    """Whether a ``docker run`` passes the shell's own ``name`` on (``-e NAME``, no value)."""
    for i in range(len(words)):
        value = option_value(words, i, ("-e", "--env"))
        if value is not None and value.text == name:
            return True
    return False


# words before a command that only say when it runs: `if ! start_vllm "$MODEL"; then`; or
# open a group or a function's body on its line (`f() { g "$@"; }`)
_CONDITION_WORDS = ("if", "elif", "while", "until", "then", "else", "do", "!", "{")


def _after_keywords(words: list[Token]) -> list[Token]:
    at = 0
    while at < len(words) and words[at].text in _CONDITION_WORDS:
        at += 1
    return words[at:]


def _library_functions(
    text: str, libraries: dict[str, str], own: dict[str, tuple[int, int]]
) -> tuple[
    str,
    dict[str, tuple[int, int]],
    dict[str, list[tuple[list[Token], dict[str, Exported]]]],
    set[str],
]:
    """The shell functions the files ``libraries`` (name -> text) define, for a script
    (``text``) that sources them: the script's text with theirs after it (a sourced file's
    words are placed there, after the script's last line), where each body is in that joined
    text, each one's commands (as the splitter reads the file: its own variables, a function's
    locals), and their names. A function the script defines itself (``own``) is the script's."""
    joined = text if text.endswith("\n") or not text else text + "\n"
    # the script's own variables, which a function of the file reads as they are when it is
    # called: not followed (only the call's arguments are), so unreadable, and said so
    callers = {
        name: (
            f"{name} is set by the script that sources this file, and a function of the file "
            "reads it as it is when called, which hbmlint does not follow (only the words a "
            "call passes)"
        )
        for name in {m.group(2) for m in _SET.finditer(text)}
    }
    known: dict[str, tuple[int, int]] = {}
    bodies: dict[str, list[tuple[list[Token], dict[str, Exported]]]] = {}
    for library in libraries.values():
        library = library.replace("\r\n", "\n")
        script, origins = _prepared(library)
        origins = {**callers, **origins}
        functions = {n: f for n, f in _functions(script).items() if n not in own and n not in known}
        if not functions:
            continue
        lines, offset = joined.count("\n"), len(joined)
        joined += library if library.endswith("\n") else library + "\n"
        start = Span(1, 1)
        commands = split_script(
            script,
            {"HOME": "~"},
            Locator(library, start),
            start,
            origins,
            open_env=True,
            argument_defaults=lambda at, f=functions: not any(a <= at < b for a, b in f.values()),
            scoped=True,
        )
        starts = [0] + [m.end() for m in re.finditer("\n", library)]
        for words in commands:
            first = words[1] if len(words) > 1 and words[0].text == "{" else words[0]
            at = starts[first.span.line - 1] + first.span.column - 1
            owner = next((n for n, (a, b) in functions.items() if a <= at < b), None)
            if owner is not None:
                bodies.setdefault(owner, []).append((_moved(words, lines), {}))
        for name, (a, b) in functions.items():
            known[name] = (a + offset, b + offset)
    return joined, known, bodies, set(known)


def _moved(words: list[Token], lines: int) -> list[Token]:
    """``words`` placed ``lines`` lines further down."""
    return [
        Token(
            w.text,
            Span(
                w.span.line + lines,
                w.span.column,
                None if w.span.end_line is None else w.span.end_line + lines,
                w.span.end_column,
            ),
            w.unresolved,
        )
        for w in words
    ]


def _placed(words: list[Token], lines: int, call: Span) -> list[Token]:
    """``words`` with those past the linted file's ``lines`` lines (a sourced file's, read
    after it) placed at ``call``, the call in the linted file that runs them."""
    return [w if w.span.line <= lines else Token(w.text, call, w.unresolved) for w in words]


def _through(
    call: list[Token],
    bodies: dict[str, list[tuple[list[Token], dict[str, Exported]]]],
    functions: dict[str, tuple[int, int]],
    text: str,
    starts: list[int],
    called: set[str],
    stack: tuple[str, ...] = (),
) -> list[tuple[list[Token], list[Token], dict[str, Token]]]:
    """The commands a call of a shell function (``call``: its name, then its arguments) runs,
    each with the call's arguments as its ``$1``.. and ``"$@"``; a command that calls another
    function of the script (``launch_sglang_server "$MODEL_PATH" ... "$@"``) is read through
    it in turn, with the words it passes, to the commands that one runs. A function calling
    itself, directly or through another, is not followed again. Each command comes with the
    body's words it was made from (whose image names the release) and the environment the
    calls on the way give it (``CUDA_VISIBLE_DEVICES=1 inner "$@"``). Every function reached
    goes into ``called``."""
    name = call[0].text
    called.add(name)
    stack = (*stack, name)
    a, b = functions[name]
    written = text[a:b]
    shifts = _shifts(bodies[name], written)
    out: list[tuple[list[Token], list[Token], dict[str, Token]]] = []
    for (body, _), shifted in zip(bodies[name], shifts, strict=True):
        dropped = None
        if shifted:
            # `local model=$1; shift 2; ... "$model" "$@"`: a word writing its parameters takes
            # them as the shifts before it leave them; one holding them through a variable as
            # they were where the variable was set
            dropped = _dropped(text, starts, written, a, shifted)
        words_run = _with_arguments(
            body,
            call[1:],
            lambda t: _from_call(text, starts, t, written),
            shifted is None,
            dropped,
        )
        env, inner = _prefix_env(_after_keywords(words_run))
        if inner and bodies.get(inner[0].text) and inner[0].text not in stack:
            for deeper, deeper_body, deeper_env in _through(
                inner, bodies, functions, text, starts, called, stack
            ):
                out.append((deeper, deeper_body, {**env, **deeper_env}))
            continue
        out.append((words_run, body, {}))
    return out


def _dropped(
    text: str, starts: list[int], written: str, at: int, shifted: int
) -> Callable[[Token], int | None]:
    """For a word of a command of the function body ``written`` (at offset ``at`` in
    ``text``) that the shifts before it drop ``shifted`` of the call's arguments from: how many
    of them the word's parameters are past. Written in the word, ``shifted``; held in a variable
    the body sets (``local model="$1"`` before ``shift 7``), as many as the shifts before that
    assignment dropped; None where that is not one number."""
    shifts = [(m.start(), int(m.group(1) or 1)) for m in _SHIFT.finditer(written)]

    def dropped(token: Token) -> int | None:
        if _in_word(text, starts, token):
            return shifted
        word = _written(text, starts, token)
        counts = set()
        for name in _REFERENCED.findall(word or ""):
            for match in re.finditer(_ASSIGNED_AT.pattern.format(name), written, re.M):
                counts.add(sum(n for offset, n in shifts if offset < match.start()))
        return counts.pop() if len(counts) == 1 else None

    return dropped


# where a function's body sets the variable {} (as a statement: not `echo "NAME=$NAME"`),
# after `local` and the like and the other assignments of the same statement
_ASSIGNED_AT = re.compile(
    r"(?:^|[;&|{{]|\bthen|\belse|\bdo)[ \t]*"
    r"(?:(?:local|declare|typeset|export|readonly)(?:[ \t]+-\w+)*[ \t]+)?"
    r"(?:[A-Za-z_][A-Za-z0-9_]*=(?:\"[^\"\n]*\"|'[^'\n]*'|[^\s;&|]*)[ \t]+)*{}\+?="
)
_REST = re.compile(r"\$\{@:([0-9]+)\}")
# a positional parameter, "$@" or "$*" as a function's words write it
_POSITIONAL_WRITTEN = re.compile(r"\$(?:[1-9@*]|\{[1-9@*])")
# a variable a word names
_REFERENCED = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
# a positional parameter in a word: $1, ${1}, ${1:-default}; "$@" / "$*" as the whole word
_POSITIONAL = re.compile(r"\$(?:([1-9])|\{([1-9])(?::?-([^}]*))?\})")


def _written(text: str, starts: list[int], token: Token) -> str | None:
    """What the file holds where ``token`` is written; None where its place is not in it."""
    span = token.span
    if span.line > len(starts):
        return None
    begin = starts[span.line - 1] + span.column - 1
    if span.end_line is None or span.end_column is None or span.end_line > len(starts):
        return text[begin : begin + len(token.text)]
    if span.end_line == span.line:
        # a word is placed by its start (`CUDA_VISIBLE_DEVICES=` of
        # `CUDA_VISIBLE_DEVICES="$gpus"`): the whole word as written on its line
        return _word_at(text, begin, starts[span.line - 1] + span.end_column - 1)
    return text[begin : starts[span.end_line - 1] + span.end_column - 1]


def _word_at(text: str, begin: int, end: int) -> str:
    """The shell word written from ``begin`` on, on its line (quotes and ``${...}`` kept
    whole), and at least up to ``end``."""
    i, quote, line_end = begin, "", text.find("\n", begin)
    line_end = len(text) if line_end < 0 else line_end
    while i < line_end:
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
        elif c == "$" and text.startswith("${", i):
            close = text.find("}", i, line_end)
            i = line_end if close < 0 else close
        elif c in " \t;&|()<>" and i >= end:
            break
        i += 1
    return text[begin : max(min(i, line_end), end)]


def _in_word(text: str, starts: list[int], token: Token) -> bool:
    """Whether a word's positional parameters are written in it (``"$@"``), not brought in by
    a variable (``local model=$2`` earlier, whose ``$2`` was the one before any shift)."""
    written = _written(text, starts, token)
    return written is not None and _POSITIONAL_WRITTEN.search(written) is not None


def _from_call(text: str, starts: list[int], token: Token, body: str) -> bool:
    """Whether the positional parameters in a function's word are the call's: written in the
    word itself, or in a variable the function's body assigns (``local model=$1``). A global
    variable set from the script's ``$1`` (``MODEL_PATH=$1`` at the top) holds the script's
    argument inside a function too."""
    written = _written(text, starts, token)
    if written is None or _POSITIONAL_WRITTEN.search(written):
        return True
    return any(
        re.search(rf"(?:^|[\s;]){re.escape(name)}\+?=", body, re.M)
        for name in _REFERENCED.findall(written)
    )


# `shift` (or `shift N`) run as a command: the positional parameters move down
_SHIFT = re.compile(r"(?:^|[;&|{(]|\s)shift(?:[ \t]+([0-9]+))?[ \t]*(?:$|[;&|#)])", re.M)
_SHIFTED = (
    "the function shifts its arguments (shift), so which of the call's words this is depends "
    "on where it is read, which hbmlint does not follow"
)


# what makes a function's `shift` run or not, or more than once: a branch, a loop, && or ||
_BODY_CONTROL = re.compile(r"(?:^|[\s;&|({])(?:if|case|while|until|for|select)\b|&&|\|\|")


def _shifts(body: list[tuple[list[Token], Any]], written: str) -> list[int | None]:
    """For each command of a function's body, how many of the call's arguments the ``shift``s
    before it have dropped (``local id=$1; shift 2; "$@"``: the call's words from the third);
    None for every command where a shift may run or not (in a branch or a loop, or written
    where hbmlint does not see it as a command of its own)."""
    if _SHIFT.search(written) is None:
        return [0] * len(body)
    out: list[int | None] = []
    dropped, counted = 0, 0
    for words, _ in body:
        out.append(dropped)
        texts = [w.text for w in words]
        if texts[:1] == ["shift"] and len(texts) <= 2:
            amount = texts[1] if len(texts) == 2 else "1"
            if not amount.isdigit():
                return [None] * len(body)
            dropped += int(amount)
            counted += 1
    found = list(_SHIFT.finditer(written))
    # a branch or loop before the last shift may skip or repeat one (`"$@" || "$@"` after
    # them runs with the arguments they left)
    if counted != len(found) or _BODY_CONTROL.search(written, 0, found[-1].start()):
        return [None] * len(body)
    return out


def _with_arguments(
    words: list[Token],
    args: list[Token],
    from_call: Callable[[Token], bool] | None = None,
    shifted: bool = False,
    dropped: Callable[[Token], int | None] | None = None,
) -> list[Token]:
    """A function's words with its positional parameters as the call gives them: ``"$@"`` is
    the call's arguments, each a word where the call writes it; ``$1``.. the call's words (an
    argument the call does not give is empty, or the ``${1:-default}``'s default). Where
    ``from_call`` says a word's parameters are not the call's (_from_call), it is left as it is:
    the script's own arguments. In a function that runs ``shift`` (``shifted``) a parameter's
    word is unreadable: ``$1`` is then another argument than the call's first. Where the shifts
    before the words are known, ``dropped`` says how many of ``args`` each word's parameters
    are past (_dropped); one where that is not known is unreadable."""
    out: list[Token] = []
    every = args
    for token in words:
        args = every
        if (
            from_call is not None
            and "$" in token.text
            and _POSITIONAL.search(token.text)
            and not from_call(token)
        ):
            out.append(token)
            continue
        parameters = (
            token.text in ("$@", "$*", "${@}", "${*}")
            or _REST.fullmatch(token.text)
            or _POSITIONAL.search(token.text)
        )
        past = dropped(token) if parameters and dropped is not None else 0
        if past is not None:
            args = every[past:]
        if parameters and (shifted or past is None):
            out.append(Token(token.text, token.span, (*token.unresolved, _SHIFTED)))
            continue
        if token.text in ("$@", "$*", "${@}", "${*}"):
            out.extend(args)
            continue
        rest = _REST.fullmatch(token.text)
        if rest is not None:  # "${@:3}": the arguments from the third on
            out.extend(args[max(int(rest.group(1)) - 1, 0) :])
            continue
        whole = _POSITIONAL.fullmatch(token.text)
        if whole is not None and _position(whole) < len(args):
            out.append(args[_position(whole)])  # the word is the call's argument, as written
            continue
        if not _POSITIONAL.search(token.text):
            out.append(token)
            continue
        given = [
            args[_position(m)] for m in _POSITIONAL.finditer(token.text) if _position(m) < len(args)
        ]
        text = _POSITIONAL.sub(lambda m, given=args: _argument_text(m, given), token.text)
        # what stays unreadable: the word's other references, and the arguments' own
        # (a parameter's reason is the reference, or starts with it: "$3 is what the script is
        # given", which the call's argument now answers)
        kept = tuple(why for why in token.unresolved if not _POSITIONAL.match(why))
        out.append(Token(text, token.span, kept + tuple(w for a in given for w in a.unresolved)))
    return out


def _position(match: re.Match) -> int:
    return int(match.group(1) or match.group(2)) - 1


def _argument_text(match: re.Match, args: list[Token]) -> str:
    index = _position(match)
    return args[index].text if index < len(args) else match.group(3) or ""


def to_deployments(document: Any, path: Path, display: str) -> tuple[list, list]:
    """A YAML document is never a script: lint.py reads scripts from their text."""
    return to_script_deployments(document.text, path, display)
