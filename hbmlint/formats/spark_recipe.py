"""Recipes of eugr/spark-vllm-docker (``./run-recipe.sh RECIPE``), the DGX Spark launcher many
``*spark-vllm*`` forks copy: a YAML file with ``recipe_version``, ``container``, ``defaults``,
``env`` and a ``command`` template that run-recipe.py fills with ``str.format``.

How run-recipe.py runs one (eugr/spark-vllm-docker run-recipe.py, generate_launch_script and
main): the parameters are ``defaults`` with the CLI's overrides on top (``--port``, ``--host``,
``--tp``, ``--gpu-mem``, ``--max-model-len``); ``command.format(**params)`` fills each
``{name}`` and turns ``{{`` / ``}}`` into literal braces (JSON flags are written
``'{{"method":"mtp"}}'``); a ``{name}`` that is in neither stops it ("Missing parameter in
recipe command"). ``env`` is exported before the command runs. ``mods`` patch the container,
``build_args`` build it, ``model`` is only what ``--setup`` downloads (the command names the
model the engine serves). With ``--solo`` (or no cluster nodes configured) it runs on one node
with ``tensor_parallel`` 1 unless ``--tp`` says otherwise; ``solo_only`` recipes always do.

Each DGX Spark has one GB10, so an engine with tensor x pipeline parallelism N spans N Spark
nodes (over Ray, or PyTorch distributed with ``--no-ray``): the GPU is GB10 and the count is
what the engine's parallelism needs, the recipe's cluster mode. Words filled from ``defaults``
are placed at the ``defaults`` entry that sets them, so a finding about the value lands on the
line to change; a ``{name}`` no default sets is a value hbmlint cannot read (HBM011). The
release is known only where ``container`` is an image whose tag names it (most recipes build
their own ``vllm-node`` image from vLLM's main branch: unknown).

Only version 1 is read: sparkrun's ``recipe_version: "2"`` (``runtime:``, ``{model}`` from the
top-level model, ``{{`` left as written) is another tool's format.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic, Edit
from ..engines import image_version, names_engine, read_invocation
from ..engines.args import EngineCommand, Token
from ..engines.shell import Locator
from ..rewrite import ArgvWriter, Source
from ..spec import Deployment
from ..yamlsrc import Span, YamlDocument
from .build import GpuFacts, build
from .multihost import engine_gpus, needed_gpus

NAME = "spark-recipe"

# what str.format reads: `{{`, `}}` and a field `{name}`; any other brace is left as written
# (str.format would refuse it, which is run-recipe.py's error to report, not the engine's)
_FIELD = re.compile(r"\{\{|\}\}|\{([A-Za-z_]\w*)\}")
# a placeholder no default fills, while the script is split: private-use characters no shell
# treats specially, put back as `{name}` in the words read
_MISSING = re.compile("\ue000([A-Za-z_]\\w*)\ue001")
# the GPU of every DGX Spark (catalog/gpus.yaml)
_GPU = "GB10-128GB"


def detect(data: Any) -> bool:
    if not isinstance(data, dict) or "apiVersion" in data or "kind" in data:
        return False
    command, container = data.get("command"), data.get("container")
    if not isinstance(command, str) or not isinstance(container, str):
        return False
    # run-recipe.py requires the version (load_recipe), and `container` with `command`
    if str(data.get("recipe_version", "")).strip() != "1":
        return False
    return names_engine(command) or "sglang" in command


def _text(value: Any) -> str:
    """A default as str.format writes it into the command (``0.80`` is ``0.8``, ``true`` is
    ``True``)."""
    return format(value, "")


class _Filled:
    """The command template filled as run-recipe.py fills it: the ``script`` the shell runs,
    the file's ``text`` with the command's own source filled the same way (where the words are
    searched for), and how to place a place in that text back in the file."""

    def __init__(self, document: YamlDocument, params: Mapping[str, tuple[str, Span]]):
        self.params = params
        text = document.text
        self._starts = _line_starts(text)
        span = document.span(("command",))
        start = _offset(self._starts, text, span.line, span.column)
        end = (
            _offset(self._starts, text, span.end_line, span.end_column)
            if span.end_line
            else len(text)
        )
        self.script, _ = self._fill(document.data["command"], 0)
        filled, pieces = self._fill(text[start:end], start)
        self.text = text[:start] + filled + text[end:]
        self._vstarts = _line_starts(self.text)
        # (offset in the filled text, its length, offset in the file, length there, the
        # defaults entry a filled value comes from), in order; and the shift after the command
        self._pieces = pieces
        self._at = [piece[0] for piece in pieces]
        self._tail = (start + len(filled), end)
        self.span = Span(span.line, span.column)

    def _fill(self, template: str, base: int) -> tuple[str, list[tuple]]:
        out: list[str] = []
        pieces: list[tuple] = []
        last = 0
        length = 0  # of what is written so far
        for match in _FIELD.finditer(template):
            out.append(template[last : match.start()])
            length += match.start() - last
            name = match.group(1)
            target = None
            if name is None:
                value = match.group()[0]
            elif name in self.params:
                value, target = self.params[name]
            else:
                value = f"\ue000{name}\ue001"
            real = (base + match.start(), len(match.group()))
            pieces.append((base + length, len(value), *real, target))
            out.append(value)
            length += len(value)
            last = match.end()
        out.append(template[last:])
        return "".join(out), pieces

    def place(self, where: Span) -> Span:
        """Where a word the locator found in the filled text is in the file: the ``defaults``
        entry for a filled value, else the same characters in the file."""
        begin = _offset(self._vstarts, self.text, where.line, where.column)
        index = bisect.bisect_right(self._at, begin) - 1
        if index >= 0:
            at, length, _, _, target = self._pieces[index]
            if target is not None and begin < at + max(length, 1):
                return target
        start = self._real(begin)
        line, column = _position(self._starts, start)
        if where.end_line is None:
            return Span(line, column)
        stop = self._real(_offset(self._vstarts, self.text, where.end_line, where.end_column))
        end_line, end_column = _position(self._starts, max(stop, start))
        return Span(line, column, end_line, end_column)

    def _real(self, offset: int) -> int:
        filled_end, end = self._tail
        if offset >= filled_end:
            return offset - filled_end + end
        index = bisect.bisect_right(self._at, offset) - 1
        if index < 0:
            return offset
        at, length, real, real_length, _ = self._pieces[index]
        if offset < at + length:
            return real  # inside a filled value or an unescaped brace: where the field starts
        return real + real_length + (offset - at - length)

    def words(self, command: list[Token]) -> list[Token]:
        """The words of a command with each placeholder no default fills put back as written,
        and said to be unreadable."""
        out = []
        for word in command:
            names = _MISSING.findall(word.text)
            if not names:
                out.append(word)
                continue
            text = _MISSING.sub(r"{\1}", word.text)
            why = tuple(
                f"{{{name}}} is filled by run-recipe.py from the recipe's `defaults` or a "
                f"command-line override, and `defaults` has no {name}"
                for name in dict.fromkeys(names)
            )
            out.append(Token(text, word.span, word.unresolved + why))
        return out


class _Locator(Locator):
    """Finds each word in the filled text, and places it in the file (_Filled.place)."""

    def __init__(self, filled: _Filled):
        super().__init__(filled.text, filled.span)
        self.filled = filled

    def locate(self, raw: str) -> Span:
        return self.filled.place(super().locate(raw))


def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


def _offset(starts: list[int], text: str, line: int, column: int | None) -> int:
    if line - 1 >= len(starts):
        return len(text)
    return min(starts[line - 1] + (column or 1) - 1, len(text))


def _position(starts: list[int], offset: int) -> tuple[int, int]:
    line = bisect.bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1


def _params(document: YamlDocument) -> dict[str, tuple[str, Span]]:
    """run-recipe.py's parameters, each with the line that sets it: ``defaults``, and for a
    ``solo_only`` recipe ``tensor_parallel`` 1 (what --solo sets where --tp does not)."""
    data = document.data
    params: dict[str, tuple[str, Span]] = {}
    defaults = data.get("defaults")
    if isinstance(defaults, dict):
        for key, value in defaults.items():
            params[str(key)] = (_text(value), document.span(("defaults", key)))
    if data.get("solo_only") is True:
        params["tensor_parallel"] = ("1", document.span(("solo_only",)))
    return params


def _env(document: YamlDocument) -> dict[str, Token]:
    """``env``, which the launch script exports before the command."""
    env: dict[str, Token] = {}
    values = document.data.get("env")
    if isinstance(values, dict):
        for key, value in values.items():
            if value is not None:
                env[str(key)] = Token(str(value), document.span(("env", key)))
    return env


def _at_defaults(command: EngineCommand, defaults: set[Span]) -> None:
    """A flag whose value is a whole default (``--max-model-len {max_model_len}``): what is
    said about its setting lands on the ``defaults`` entry, the line to change."""
    moved = {
        item.word.span: item.value.span
        for item in command.items
        if item.value is not None
        and item.value.span in defaults
        and item.value.span != item.word.span
    }
    if moved:
        for path, span in command.locations.items():
            if span in moved:
                command.locations[path] = moved[span]


class _TemplateWriter(ArgvWriter):
    """run-recipe.py fills the command with str.format, so a brace a fix would write into it
    (a JSON flag added) would be read as a field: such a fix is shown, not applied. A value
    filled from ``defaults`` is rewritten there, where the word is found as written."""

    def edits(self, changes: dict[str, Any], source: Source, locator: Any) -> list[Edit] | None:
        edits = super().edits(changes, source, locator)
        if edits and any("{" in e.replacement or "}" in e.replacement for e in edits):
            return None
        return edits


def to_deployments(
    document: YamlDocument, path: Path, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    data = document.data
    filled = _Filled(document, _params(document))
    where = document.span(("command",))
    script = [Token("bash", where), Token("-c", where), Token(filled.script, where)]
    command = read_invocation(
        script, _env(document), filled.text, locator=_Locator(filled), words=filled.words
    )
    if command is None:
        return [], []
    _at_defaults(command, {span for _, span in filled.params.values()})
    solo = data.get("solo_only") is True
    gpu = GpuFacts(type=_GPU, type_span=document.key_span(("container",)))
    if solo:
        gpu.count, gpu.count_span = 1, document.span(("solo_only",))
        gpu.count_why = "on the one DGX Spark a solo_only recipe runs on"
    elif not ({"parallel.tensor", "parallel.pipeline"} & command.unread.keys()):
        # one GB10 a node: the engine spans as many Spark nodes as its parallelism needs
        gpu.count = engine_gpus(command, 1, needed_gpus(command))
        gpu.count_span = next(
            (
                command.locations[key]
                for key in ("parallel.tensor", "parallel.pipeline")
                if key in command.locations
            ),
            document.key_span(("command",)),
        )
    name = str(data.get("name") or Path(display).stem)
    version = None
    found = image_version(data["container"])
    if found is not None:
        version = (found, document.span(("container",)))
    command_key = document.key_span(("command",))
    deployment, findings = build(
        command,
        name=name,
        display=display,
        document=document.index,
        gpu=gpu,
        where=command.span if command.span.line > command_key.line else command_key,
        engine_version=version,
        image=data["container"],
    )
    if deployment is not None:
        deployment.writer = _TemplateWriter(command.engine, list(command.items))
    if deployment is not None and not solo:
        deployment.assumed["gpu"] = (
            "one GB10 on each DGX Spark node, as many nodes as tensor x pipeline parallelism "
            "(the recipe in cluster mode; run-recipe.py --solo runs tensor_parallel 1 on one)"
        )
    return ([deployment] if deployment else []), findings
