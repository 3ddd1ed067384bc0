"""Where a file downloads a Hugging Face model to a directory the engine then serves.

Deployments often fetch their model in an init container or at the top of a start-up script
(``hf download ORG/NAME --local-dir /models/x``, ``huggingface-cli download``, or
``snapshot_download(repo_id=..., local_dir=...)`` in ``python -c``) and start the engine on
that directory. The directory alone names no model; the download says which one it holds.
This module finds those downloads in a file's text: each directory with the repository
downloaded into it and where the command is written. resolve.py then reads a model served
from exactly that directory as that repository (not a guess: the file itself puts it there).

Only literal directories and ids are read, and ``$NAME`` where the file assigns NAME once to
a literal (a script's ``NAME=value``, a container's ``- name: NAME`` / ``value: ...``). A
directory two downloads fill with different repositories is left alone, as are dataset
downloads, commands in comments and commands only printed (``echo``).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from .spec import DOWNLOADED, Label
from .yamlsrc import Span

# huggingface_hub's CLI: `huggingface-cli download` and, since 0.34, `hf download`
_CLI = re.compile(r"(?<![\w./-])(?:huggingface-cli|hf)[ \t]+download(?=[ \t])")
_PYTHON = re.compile(r"\bsnapshot_download\(")
# a command ends at a line break without a backslash before it, or at a shell operator
_COMMAND_END = re.compile(r"(?<!\\)(?<!\\\r)\n|&&|\|\||[;|]")
# options of `download` that take one value, and those that take several (huggingface_hub's
# commands/download.py: --include/--exclude are nargs="*")
_ONE_VALUE = {
    "--local-dir",
    "--repo-type",
    "--revision",
    "--cache-dir",
    "--token",
    "--max-workers",
    "--local-dir-use-symlinks",
}
_MANY_VALUES = {"--include", "--exclude"}
_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_VARIABLE = re.compile(r"^\$(?:\{(\w+)(?::?-([^}]*))?\}|(\w+))$")
_ASSIGNED = re.compile(r"^[ \t]*(?:export[ \t]+)?([A-Za-z_]\w*)=(\S*)[ \t]*(?:#.*)?$", re.M)
_ENV_ENTRY = re.compile(
    r"-[ \t]+name:[ \t]*[\"']?([A-Za-z_]\w*)[\"']?[ \t]*\n[ \t]+value:[ \t]*(\S+)[ \t]*$", re.M
)
_KEYWORD = re.compile(r"\b(repo_id|local_dir|repo_type)[ \t]*=[ \t]*(?:[rf]?)(['\"])([^'\"]*)\2")
# repo_id=os.environ.get("MODEL_ID") / os.getenv("MODEL_ID", "default") / os.environ["MODEL_ID"]:
# the variable the container or script sets (validatedpatterns/rag-llm-gitops's init container)
_ENV_KEYWORD = re.compile(
    r"\b(repo_id|local_dir)[ \t]*=[ \t]*os\.(?:environ\.get|getenv)\([ \t]*(['\"])(\w+)\2"
    r"(?:[ \t]*,[ \t]*(['\"])([^'\"]*)\4)?[ \t]*\)"
    r"|\b(repo_id|local_dir)[ \t]*=[ \t]*os\.environ\[[ \t]*(['\"])(\w+)\7[ \t]*\]"
)
_FIRST_STRING = re.compile(r"^\s*(['\"])([^'\"]+)\1\s*[,)]")


@dataclass(frozen=True)
class Download:
    directory: str  # normalised
    repository: str
    line: int  # 1-based, of the command's first word
    column: int  # 1-based
    length: int  # of the command's name (`hf download`)


def downloads_in(text: str) -> list[Download]:
    """The downloads ``text`` writes, one per directory (those filled twice, differently,
    left out)."""
    if "download" not in text:
        return []
    variables = _variables(text) if "$" in text or "os." in text else {}
    found: list[Download] = []
    for match in _CLI.finditer(text):
        if _not_run(text, match.start()):
            continue
        end = _COMMAND_END.search(text, match.end())
        words = _words(text[match.end() : end.start() if end else len(text)])
        target = _cli_target(words, variables)
        if target is not None:
            found.append(_download(text, match, *target))
    for match in _PYTHON.finditer(text):
        if _not_run(text, match.start()):
            continue
        close = _closing(text, match.end())
        target = _python_target(text[match.end() : close], variables)
        if target is not None:
            found.append(_download(text, match, *target))
    by_directory: dict[str, Download | None] = {}
    for download in found:
        known = by_directory.get(download.directory, download)
        same = known is not None and known.repository == download.repository
        by_directory[download.directory] = known if same else None
    return [d for d in by_directory.values() if d is not None]


def labels_for(model_names: list[str | None], downloads: list[Download]) -> list[Label]:
    """The labels saying which downloaded repository each served directory holds: those of
    ``downloads`` into a directory one of ``model_names`` names."""
    wanted = {posixpath.normpath(n) for n in model_names if n and "/" in n}
    return [
        downloaded_label(
            d.directory, d.repository, Span(d.line, d.column, d.line, d.column + d.length)
        )
        for d in downloads
        if d.directory in wanted
    ]


def downloaded_label(directory: str, repository: str, span: Span) -> Label:
    """The label saying that ``directory`` holds ``repository``, written at ``span`` (what
    resolve.downloaded_into reads): a download the file makes, or a mount a format knows to
    hold that repository (a Truss's weights)."""
    return Label(DOWNLOADED, f"{posixpath.normpath(directory)}\n{repository}", span)


def _not_run(text: str, at: int) -> bool:
    """Whether the command at ``at`` is in a comment or printed, not run."""
    line = text[text.rfind("\n", 0, at) + 1 : at]
    return "#" in line or re.search(r"\b(?:echo|printf)\b", line) is not None


def _words(segment: str) -> list[str]:
    segment = segment.replace("\\\r\n", " ").replace("\\\n", " ")
    return [w.strip("\"'`,[]") for w in segment.split()]


def _cli_target(words: list[str], variables: dict[str, str]) -> tuple[str, str] | None:
    repository = directory = None
    i = 0
    while i < len(words):
        word = words[i]
        name, eq, value = word.partition("=")
        if name in _ONE_VALUE:
            if not eq:
                i += 1
                value = words[i] if i < len(words) else ""
            if name == "--local-dir":
                directory = value
            elif name == "--repo-type" and value != "model":
                return None  # a dataset or a space: no model
        elif word in _MANY_VALUES:
            while i + 1 < len(words) and not words[i + 1].startswith("-"):
                i += 1
        elif word.startswith("-"):
            pass  # a switch (--quiet, --force-download)
        elif repository is None:
            repository = word
        i += 1
    if repository is None or directory is None:
        return None
    repository, directory = _value(repository, variables), _value(directory, variables)
    if repository is None or directory is None or not _REPO_ID.match(repository):
        return None
    return directory, repository


def _closing(text: str, start: int) -> int:
    """Where the call whose arguments start at ``start`` closes (nested calls' parentheses
    counted), or the end of the text."""
    depth = 1
    for i in range(start, min(len(text), start + 2000)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return len(text)


def _python_target(arguments: str, variables: dict[str, str]) -> tuple[str, str] | None:
    # a YAML single-quoted scalar writes each quote of its text twice
    arguments = arguments.replace("''", "'")
    keywords = {m.group(1): m.group(3) for m in _KEYWORD.finditer(arguments)}
    for m in _ENV_KEYWORD.finditer(arguments):
        key = m.group(1) or m.group(6)
        name = m.group(3) or m.group(8)
        value = variables.get(name) or m.group(5)  # set once to a literal, else the default
        if key and value:
            keywords[key] = value
    if keywords.get("repo_type", "model") != "model":
        return None
    repository = keywords.get("repo_id")
    if repository is None:
        first = _FIRST_STRING.match(arguments)
        repository = first.group(2) if first else None
    directory = keywords.get("local_dir")
    if repository is None or not directory or not _REPO_ID.match(repository):
        return None
    if "{" in directory or "$" in directory or "{" in repository or "$" in repository:
        return None  # an f-string or a shell variable
    return directory, repository


def _value(word: str, variables: dict[str, str]) -> str | None:
    """``word`` with a lone variable read; None where it cannot be read."""
    if "$" not in word:
        return word or None
    match = _VARIABLE.match(word)
    if match is None:
        return None
    name = match.group(1) or match.group(3)
    if name in variables:
        return variables[name] or None
    return match.group(2) or None  # ${NAME:-default} with NAME never assigned


def _variables(text: str) -> dict[str, str]:
    """The variables the file assigns exactly once, to a literal."""
    seen: dict[str, str | None] = {}
    for pattern in (_ASSIGNED, _ENV_ENTRY):
        for match in pattern.finditer(text):
            name, value = match.group(1), match.group(2).strip("\"'")
            default = _VARIABLE.match(value)
            if default is not None and (default.group(1) or default.group(3)) == name:
                value = default.group(2) or ""  # NAME=${NAME:-default}
            if "$" in value or "`" in value:
                value = None
            seen[name] = value if name not in seen or seen[name] == value else None
    return {name: value for name, value in seen.items() if value is not None}


def _download(text: str, match: re.Match[str], directory: str, repository: str) -> Download:
    at = match.start()
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    length = len(match[0].rstrip("("))
    return Download(posixpath.normpath(directory), repository, line, column, length)
