"""systemd service units that run an engine (``ExecStart=... vllm serve ...``), as homelab and
single-VM deployments keep them (``/etc/systemd/system/vllm.service``).

A unit is not a shell script, but its ``ExecStart=`` is a command line split much as a shell
splits one (quotes, ``\\`` continuing a line, ``$VAR`` / ``${VAR}`` from the unit's
``Environment=``), so it is read by the shell reader (formats/shell_script.py) from a script
written line for line from the unit: each ``Environment=`` assignment an ``export``, each
``ExecStart=`` its command at the same columns, every other line blank. Findings so point at
the unit's own lines. The prefixes ``-``, ``@``, ``:``, ``+`` and ``!`` of ``ExecStart=``
(systemd.service(5), "Command lines") are not part of the command.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from . import shell_script

NAME = "systemd"
SUFFIX = ".service"
_PREFIXES = "-@:+!"


def detect(data: Any) -> bool:
    """Never from a YAML document: a unit is told by its name or its [Service] section."""
    return False


def is_unit(display: str, text: str) -> bool:
    """Whether a file is a systemd service unit: named ``.service``, or, named otherwise but not
    as YAML (a YAML file may hold a unit in a string: cloud-init's write_files, a ConfigMap),
    opening a line with its ``[Service]`` section and having an ``ExecStart=``."""
    name = display.lower()
    if name.endswith(SUFFIX):
        return True
    if name.endswith((".yaml", ".yml", ".json")):
        return False
    return "\n[Service]" in "\n" + text and "ExecStart=" in text


def as_script(text: str) -> str:
    """The unit as a shell script of as many lines, its commands at their columns."""
    out: list[str] = []
    continued = False  # the line before ended in a backslash: this one goes on its command
    for line in text.split("\n"):
        stripped = line.strip()
        if continued:
            out.append(line)
        elif stripped.startswith("ExecStart="):
            start = line.index("ExecStart=") + len("ExecStart=")
            body = line[start:]
            command = body.lstrip(_PREFIXES)
            out.append(" " * (len(line) - len(command)) + command)
        elif stripped.startswith("Environment="):
            out.append(_exports(stripped[len("Environment=") :]))
        else:
            out.append("")
        continued = bool(out[-1]) and line.rstrip().endswith("\\")
    return "\n".join(out)


def _exports(assignments: str) -> str:
    """``Environment="A=1" B=2`` as ``export A=1 B=2`` (each value quoted for the shell)."""
    try:
        words = shlex.split(assignments)
    except ValueError:
        return ""  # an unbalanced quote: systemd ignores the line too
    pairs = [w.partition("=") for w in words if "=" in w]
    return " ".join(f"export {name}={shlex.quote(value)};" for name, _, value in pairs)


def to_script_deployments(text: str, path: Path | None, display: str) -> tuple[list, list]:
    return shell_script.to_script_deployments(as_script(text), path, display)


def to_deployments(document: Any, path: Path, display: str) -> tuple[list, list]:
    """A YAML document is never a unit: lint.py reads units from their text."""
    return to_script_deployments(document.text, path, display)
