"""An engine's settings in a YAML file its command line names (vLLM's and SGLang's ``--config
FILE``, TensorRT-LLM's ``--extra_llm_api_options FILE``): the file as a format reader found it
(a ConfigMap the pod mounts, a here-document the script writes, a file of the repository),
with where each of its keys is written, and its settings as the flags the engine makes of
them.

vLLM (vllm-project/vllm@00da11e vllm/utils/argparse_utils.py, FlexibleArgumentParser
``_pull_args_from_config`` / ``load_config_file``; ``--config`` since pull 7737, v0.6.1): each
key becomes ``--KEY`` (underscores in it then read as dashes, as on the command line), ``true``
a bare flag, ``false`` the ``--no-KEY`` form where the flag has one, a list its items, a
mapping its JSON. The file's flags go right after the model and before the command line's
own, so the command line wins (argparse keeps the last value). SGLang does the same
(sgl-project/sglang python/sglang/srt/server_args_config_parser.py ConfigArgumentMerger).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import yaml

from ..records import dataclass
from ..yamlsrc import Span, load_plain
from .args import Token


@dataclass
class ConfigFile:
    """A config file's settings; ``span_of`` places a key path (``("kv_cache_config",
    "dtype")``) in the file being linted; ``unresolved`` names the shell references in it that
    hbmlint could not expand (``$DP_ATTENTION``): a value holding one is not read."""

    settings: dict
    span_of: Callable[[tuple], Span]
    # what hbmlint could not read in it: (the word standing in for it in the settings, the
    # reference as written, why)
    unresolved: tuple[tuple[str, str, str], ...] = ()
    origin: str = ""  # where it was found, for messages: "ConfigMap 'x'"
    # why its settings cannot be known though it was found (the script changes it after
    # writing it); they are then not read
    why: str = ""

    def token(self, value: Any, span: Span) -> Token:
        """A value of the file as a word, unreadable where it holds an unexpanded reference
        (written back as the script wrote it)."""
        text = str(value).lower() if isinstance(value, bool) else str(value)
        missing = []
        for stand_in, raw, why in self.unresolved:
            if stand_in in text:
                text = text.replace(stand_in, raw)
                missing.append(why)
        return Token(text, span, tuple(missing))


# Finds the file a command names (the word after --config), or None when it is nowhere
# hbmlint can see.
ConfigFiles = Callable[[Token], ConfigFile | None]


def load_settings(text: str) -> dict | None:
    """The mapping a config file's text holds; None for anything else or broken YAML."""
    try:
        data = load_plain(text)
    except (yaml.YAMLError, ValueError, RecursionError):  # a bad date, a deep nest
        return None
    return data if isinstance(data, dict) else None


def key_line(lines: list[str], first: int, path: tuple) -> int | None:
    """The index (into ``lines``, from ``first`` on) of the line where the key path is
    written in a block of YAML: the first key at the block's own indent, each other one
    inside its parent's block, at a deeper indent."""
    end = min(len(lines), first + 2000)
    base = next((_indent(lines[i]) for i in range(first, end) if _content(lines[i])), 0)
    start, indent, found = first, -1, None
    for depth, key in enumerate(k for k in path if isinstance(k, str)):
        pattern = re.compile(rf"^(\s*)(['\"]?){re.escape(key)}\2\s*:")
        found = None
        for index in range(start, end):
            line = lines[index]
            if depth and _content(line) and _indent(line) <= indent:
                break  # past the parent's block
            match = pattern.match(line)
            if match and (len(match.group(1)) == base if not depth else True):
                found = index
                break
        if found is None:
            return None
        start, indent = found + 1, _indent(lines[found])
    return found


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _content(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def block_text_line(lines: list[str], value: Span) -> int:
    """The line a YAML string value's text starts on: the line after its key for a block
    scalar (``key: |``), else the value's own line."""
    line = lines[value.line - 1] if 0 < value.line <= len(lines) else ""
    if line[value.column - 1 :].lstrip().startswith(("|", ">")):
        return value.line + 1
    return value.line


def block_spans(lines: list[str], first_line: int, at: Span) -> Callable[[tuple], Span]:
    """``span_of`` for a YAML block written from line ``first_line`` (1-based) of the file
    being linted: each key at its line, ``at`` where it is not found."""

    def span_of(path: tuple) -> Span:
        index = key_line(lines, first_line - 1, tuple(path))
        if index is None:
            return at
        key = next((p for p in reversed(path) if isinstance(p, str)), "")
        column = lines[index].find(key) + 1 if key else 1
        return Span(index + 1, max(column, 1), index + 1, max(column, 1) + len(key))

    return span_of


def settings_as_flags(
    settings: Mapping[Any, Any],
    span_of: Callable[[tuple], Span],
    word: Callable[[str, Span], Token] = Token,
    negated: Callable[[str], str | None] | None = None,
) -> list[Token]:
    """A YAML mapping of an engine's arguments as the flags its launcher writes from it (a
    ``--config FILE``, a recipe's config): ``true`` a bare flag, ``false`` the flag
    ``negated`` gives for the key (vLLM's ``--no-KEY``) or left out, null left out, a list its
    values after the flag, a mapping as JSON. ``span_of`` places a key's words (``(key,)``)
    and a list's items (``(key, index)``); ``word`` makes a value's token (one that marks a
    value unreadable, say)."""
    words: list[Token] = []
    for key, value in settings.items():
        flag = "--" + str(key).replace("_", "-")
        span = span_of((key,))
        if isinstance(value, bool):
            off = negated(str(key)) if negated is not None and not value else None
            words += [Token(flag, span)] if value else [Token(off, span)] if off else []
        elif isinstance(value, list):
            words.append(Token(flag, span))
            words += [word(str(v), span_of((key, i))) for i, v in enumerate(value)]
        elif isinstance(value, dict):
            import json  # here: most settings hold no mapping (json's import ~4.6M instructions)

            words += [Token(flag, span), word(json.dumps(value), span)]
        elif value is not None:
            words += [Token(flag, span), word(str(value), span)]
    return words


def config_reference(words: list[Token]) -> tuple[int, int, Token] | None:
    """Where ``--config FILE`` (``--config=FILE``) is among ``words``: the index of the flag,
    how many words it takes, and the file's word."""
    for i, word in enumerate(words):
        if word.text == "--config" and i + 1 < len(words):
            return i, 2, words[i + 1]
        if word.text.startswith("--config="):
            file = word.text.split("=", 1)[1]
            return i, 1, Token(file, word.span, word.unresolved)
    return None


def with_config_file(
    words: list[Token],
    files: ConfigFiles | None,
    negated: Callable[[str], str | None] | None = None,
) -> list[Token]:
    """vLLM's or SGLang's ``--config FILE`` where ``files`` finds FILE: its settings as flags
    before the command line's own (which win), each at its line; the words unchanged where
    the file is not found (the engine reader then says its settings are not followed).
    ``negated``: the flag a ``false`` key becomes, if any."""
    if files is None:  # nothing to find the file with: the words as they are
        return words
    found = config_reference(words)
    if found is None:
        return words
    at, count, reference = found
    if not reference.readable:
        return words
    config = files(reference)
    if config is None or not config.settings:
        return words
    flags = settings_as_flags(
        config.settings,
        lambda path: config.span_of(path[:1]),  # a list's items sit at their key
        config.token,
        negated,
    )
    rest = [*words[:at], *words[at + count :]]
    # after the model where it is the first word (vllm serve MODEL), else first
    model = 1 if rest and not rest[0].text.startswith("-") else 0
    return [*rest[:model], *flags, *rest[model:]]
