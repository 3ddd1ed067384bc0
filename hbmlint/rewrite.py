"""Writing a setting back into the user's file the way its author wrote the others.

A format reader knows where each setting came from (the words of an engine command line, the
fields of hbmlint's own manifest). This module turns "set serving.max_model_len to 11696" into
text edits of that file: the value changed in place (a quoted word stays quoted, ``--flag=value``
stays joined, JSON in ``--speculative-config`` stays JSON), a missing flag added after the last
one in the same style (a list item ``- --flag``, a word in a ``sh -c`` script or a folded
``command: >``), and nothing else touched. Where it cannot be sure how the file writes a
setting (a word it cannot find verbatim, a scalar style it cannot write into), it returns no
edit rather than a guess: the fix is then shown, not applied.

Writers are attached to Deployments by the format readers (``Deployment.writer``); the fix
stage (fixes.py) asks them for settings and edits. Nothing here reads a format or a budget.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Iterator
from functools import cached_property, lru_cache, wraps
from typing import Any, TypeVar

import yaml

from .diagnostics import Edit
from .engines.args import FlagTable, Item, Token, json_loads
from .lazyre import LazyPattern
from .records import dataclass
from .spec import DRAFT_ONLY_FIELDS
from .yamlsrc import Span, YamlDocument, load_plain

Path = tuple[Any, ...]

# Deployment field -> the --speculative-config key that sets it
SPEC_KEYS = {
    "speculative.method": "method",
    "speculative.model": "model",
    "speculative.quantization": "quantization",
    "speculative.num_speculative_tokens": "num_speculative_tokens",
    "speculative.tensor_parallel": "draft_tensor_parallel_size",
    "speculative.kv_cache_dtype": "kv_cache_dtype",
    "speculative.max_model_len": "max_model_len",
}
# methods that draft from the prompt: no model, no draft parallelism, quantization or KV cache
WEIGHTLESS = ("ngram", "suffix")
DRAFT_ONLY_KEYS = (
    "model",
    "draft_tensor_parallel_size",
    "quantization",
    "kv_cache_dtype",
    "max_model_len",
)
# the same in hbmlint's own manifest (spec.speculative): the draft model's keys (a name or a
# config, with its dtype and quantization) and the other fields only such a drafter takes
NATIVE_DRAFT_ONLY_KEYS = ("config", "dtype", "quantization", *DRAFT_ONLY_FIELDS)
_PLAIN_WORD = LazyPattern(r"[A-Za-z0-9_./@%+=:,-]+")
_PLAIN_SCALAR = re.compile(r"[A-Za-z0-9_./@%+=-][A-Za-z0-9_./@%+=:,-]*")


class Source:
    """A file's text, with offsets to and from 1-based lines and columns."""

    def __init__(self, text: str, file: str):
        self.text = text
        self.file = file
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def offset(self, line: int, column: int) -> int:
        # min(found, end) without min(): a call of it cost a third of this method
        starts, end = self.starts, len(self.text)
        if line - 1 >= len(starts):
            return end
        found = starts[line - 1] + column - 1
        return found if found < end else end

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1

    def edit(self, start: int, end: int, replacement: str) -> Edit:
        line, column = self.position(start)
        end_line, end_column = self.position(end)
        return Edit(self.file, line, column, end_line, end_column, replacement)

    def line_bounds(self, offset: int) -> tuple[int, int]:
        """(start of the line holding ``offset``, start of the next line or the end)."""
        line = bisect.bisect_right(self.starts, offset)
        start = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.text)
        return start, end


def apply_edits(text: str, source: Source, edits: Iterable[Edit]) -> str:
    """``text`` with ``edits`` applied (they must not overlap)."""
    spans = sorted(
        (
            (source.offset(e.line, e.column), source.offset(e.end_line, e.end_column), e)
            for e in edits
        ),
        key=lambda item: (item[0], item[1]),
        reverse=True,
    )
    for start, end, edit in spans:
        text = text[:start] + edit.replacement + text[end:]
    return text


# --- encoding a value the way the file writes its neighbours ---------------------------------


def yaml_scalar(text: str, style: str, flow: bool = False) -> str:
    """``text`` as a YAML scalar in ``style`` (plain, ``"`` or ``'``); a plain scalar that
    would not read back as the same string is single-quoted."""
    if style == '"':
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if style == "'" or not _plain_ok(text, flow):
        return "'" + text.replace("'", "''") + "'"
    return text


def _plain_ok(text: str, flow: bool) -> bool:
    if not _PLAIN_SCALAR.fullmatch(text) or (flow and "," in text):
        return False
    return _reads_as_plain_string(text)


# _reads_as_plain_string and _decode (and fixes.py's _alone) read a scalar's text with libyaml,
# a loader built per call; their answers depend on the text alone, and fixes ask them of the
# same few words (flags, values, --speculative-config JSON) file after file: each text of up to
# _REMEMBERED_LENGTH characters is read once a run, the last _REMEMBERED_SCALARS of them kept
# (at most 2 Mi characters in all); a longer one (a quoted script) is read each time.
_REMEMBERED_SCALARS = 4096
_REMEMBERED_LENGTH = 256
_Answer = TypeVar("_Answer")


def remembered(read: Callable[[str], _Answer]) -> Callable[[str], _Answer]:
    """``read``, its answers remembered for short texts (see above)."""
    cached = lru_cache(maxsize=_REMEMBERED_SCALARS)(read)

    @wraps(read)
    def answer(text: str) -> _Answer:
        return cached(text) if len(text) <= _REMEMBERED_LENGTH else read(text)

    return answer


@remembered
def _reads_as_plain_string(text: str) -> bool:
    """Whether ``text`` as a plain scalar loads as neither a bool nor null."""
    try:
        loaded = load_plain(text)
    except yaml.YAMLError:
        return False
    return not isinstance(loaded, (bool, type(None)))


def shell_word(text: str, quote: str = "") -> str:
    """``text`` as one shell word: bare where it can be, else in the quote the author used
    (double quotes only where nothing in it would expand), else single quotes."""
    if not quote and _PLAIN_WORD.fullmatch(text):
        return text
    if quote == '"' and not re.search(r'["$`\\!]', text):
        return f'"{text}"'
    return "'" + text.replace("'", "'\"'\"'") + "'"


def _in_scalar(raw: str, style: str) -> str | None:
    """Shell text written inside a YAML scalar of ``style``, or None where that scalar style
    cannot hold it unchanged (a plain scalar with ``: `` or `` #``)."""
    if "\n" in raw:
        return None
    if style == '"':
        return raw.replace("\\", "\\\\").replace('"', '\\"')
    if style == "'":
        return raw.replace("'", "''")
    if style == "plain" and (": " in raw or " #" in raw or raw.endswith(":")):
        return None
    return raw


@remembered
def _decode(raw: str) -> str | None:
    """A YAML scalar's value as the string a reader sees, or None."""
    try:
        value = load_plain(raw)
    except yaml.YAMLError:
        return None
    if isinstance(value, (dict, list)) or value is None:
        return None
    if isinstance(value, bool):
        return None
    return str(value)


# --- where a word sits in the file ------------------------------------------------------------


@dataclass(frozen=True)
class Site:
    """Where one word of a command line is written: ``start``..``end`` is its raw text.

    ``node``: the word is a YAML scalar of its own (a list item), in ``style`` (plain, ``"``,
    ``'``), at ``path``; ``flow`` when its list is ``[...]``. Otherwise the word is part of a
    script held by the scalar at ``path`` of style ``style`` (plain, quoted, ``|`` or ``>``),
    and ``quote`` is the shell quote around it."""

    start: int
    end: int
    node: bool
    style: str
    path: Path
    flow: bool = False
    quote: str = ""

    def encode(self, text: str) -> str | None:
        """``text`` written in this site's style, or None where it cannot be."""
        if self.node:
            return yaml_scalar(text, self.style, self.flow)
        return _in_scalar(shell_word(text, self.quote), self.style)


class Locator:
    """Finds the raw text of command-line words in one YAML document of a file."""

    def __init__(self, source: Source, document: YamlDocument):
        self.source = source
        self.document = document

    @cached_property
    def by_span(self) -> dict[Span, Path]:
        """The path of each span: made when a command word is first looked up (hbmlint's own
        manifest is written by its field paths and never asks)."""
        return {span: path for path, span in self.document.spans.items()}

    def path_at(self, span: Span) -> Path | None:
        """``by_span.get(span)``, from the nodes that start on the span's line (the path
        recorded last with that span: the walk's order), without every node's span."""
        if type(span) is not Span or type(span.line) is not int:
            return self.by_span.get(span)
        on_line = self._starting_on.get(span.line)
        if on_line is None:
            on_line = self._starting_on[span.line] = self.document.starting_on(span.line)[0]
        found = None
        for path, place in on_line:
            if place == span:
                found = path
        return found

    @cached_property
    def _starting_on(self) -> dict[int, list[tuple[Path, Span]]]:
        return {}

    def _style(self, start: int) -> str:
        char = self.source.text[start : start + 1]
        return char if char in ("'", '"', "|", ">") else "plain"

    def _scalar(self, path: Path) -> Any:
        data = self.document.data
        for key in path:
            try:
                data = data[key]
            except (KeyError, IndexError, TypeError):
                return None
        return data

    @cached_property
    def _sites(self) -> dict[int, tuple[Token, Site | None]]:
        return {}

    def site(self, token: Token) -> Site | None:
        """Where ``token``'s raw text is written, or None. A deployment's fixes ask for the
        same words again (each fix of --speculative-config, a neighbour's style): each token's
        answer is worked out once a locator, whose source and document do not change; kept by
        the token's identity, with the token, so the identity is not reused meanwhile."""
        known = self._sites.get(id(token))
        if known is not None and known[0] is token:
            return known[1]
        found = self._site(token)
        self._sites[id(token)] = (token, found)
        return found

    def _site(self, token: Token) -> Site | None:
        span = token.span
        if not token.readable:
            return None
        path = self.path_at(span) if span.end_line is not None else None
        if path is not None and not isinstance(self._scalar(path), (dict, list)):
            start = self.source.offset(span.line, span.column)
            end = self.source.offset(span.end_line or span.line, span.end_column or span.column)
            style = self._style(start)
            if style in ("|", ">") or _decode(self.source.text[start:end]) != token.text:
                return self._word(token, span)
            parent = self.document.recorded(path[:-1])[1]
            flow = False
            if parent is not None and path and isinstance(path[-1], int):
                flow = self.source.text[self.source.offset(parent.line, parent.column)] == "["
            return Site(start, end, True, style, path, flow)
        return self._word(token, span)

    def _container(self, offset: int) -> tuple[Path, int, int] | None:
        """The smallest string scalar whose text holds ``offset``."""
        best = None
        for path, span in self.document.spans.items():
            if span.end_line is None or not isinstance(self._scalar(path), str):
                continue
            start = self.source.offset(span.line, span.column)
            end = self.source.offset(span.end_line, span.end_column)
            if start <= offset < end and (best is None or end - start < best[2] - best[1]):
                best = (path, start, end)
        return best

    def _word(self, token: Token, span: Span) -> Site | None:
        text = self.source.text
        offset = self.source.offset(span.line, span.column)
        found = self._container(offset)
        if found is None:
            return None
        path, lo, hi = found
        style = self._style(lo)
        if style in ('"', "'"):
            lo, hi = lo + 1, hi - 1
        start = offset
        while start > lo and text[start - 1] not in " \t\n;&|()":
            start -= 1
        end = _word_end(text, start, hi)
        raw = text[start:end]
        from .engines.shell import split_words

        words = split_words(raw, {}, None, span)
        if len(words) != 1 or words[0].text != token.text or words[0].unresolved:
            return None
        quote = raw[0] if raw[:1] in ("'", '"') and raw[-1:] == raw[0] else ""
        return Site(start, end, False, style, path, quote=quote)


def _word_end(text: str, start: int, limit: int) -> int:
    """Where the shell word starting at ``start`` ends (quotes and escapes kept together)."""
    i = start
    while i < limit:
        c = text[i]
        if c in " \t\n;&|()":
            break
        if c == "\\":
            i += 2
        elif c == "'":
            close = text.find("'", i + 1, limit)
            i = limit if close < 0 else close + 1
        elif c == '"':
            i += 1
            while i < limit and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
        else:
            i += 1
    return min(i, limit)


# --- the writer for an engine command line ----------------------------------------------------

# values whose equality (with their type) says that they write the same JSON
_KEYED = frozenset((str, int, bool, type(None)))


@dataclass
class ArgvWriter:
    """Writes settings into the engine command line a reader found (its scanned ``items``):
    the flag a setting comes from is rewritten in place; a missing one is added after the
    last word of the command, in the style of the others."""

    engine: str
    items: list[Item]

    # -- which word sets what

    def _flag_names(self) -> dict[str, str]:
        """Deployment field -> the engine's own long flag for it (shared: not to be changed)."""
        if self.engine != "vllm":
            return {}
        from .engines.vllm import FLAGS

        return _long_flags(FLAGS)

    def _item_for(self, path: str) -> Item | None:
        found = None
        for item in self.items:
            if item.flag is not None and item.flag.field == path and item.value is not None:
                found = item  # the last one wins, as in argparse
        return found

    def _spec_item(self) -> Item | None:
        found = None
        for item in self.items:
            if item.flag is not None and item.flag.names[0] == "--speculative-config":
                found = item
        return found

    def legacy(self) -> list[Item]:
        if self.engine != "vllm":
            return []
        from .engines.vllm import _LEGACY

        return [i for i in self.items if i.flag is not None and i.flag.names[0] in _LEGACY]

    # -- what to write

    @cached_property
    def _spec_jsons(self) -> dict[tuple[Any, ...], tuple[Item, dict[str, Any], str] | None]:
        """_spec_json's answers by their changes: a fix asks setting() and then edits() for the
        same ones (the items, and so the answer, do not change while the writer is used)."""
        return {}

    def _spec_json(self, changes: dict[str, Any]) -> tuple[Item, dict[str, Any], str] | None:
        """The --speculative-config item, its object with ``changes`` made (shared by the
        callers: not to be changed), and its JSON as the file would write it (the author's
        separators), or None."""
        # by value and type: True == 1 == 1.0 but each writes its own JSON; a value of
        # another type (0.0 == -0.0) is worked out each time
        if all(type(value) in _KEYED for value in changes.values()):
            key = tuple((path, type(value), value) for path, value in changes.items())
            answers = self._spec_jsons
            if key not in answers:
                answers[key] = self._spec_json_of(changes)
            return answers[key]
        return self._spec_json_of(changes)

    def _spec_json_of(self, changes: dict[str, Any]) -> tuple[Item, dict[str, Any], str] | None:
        item = self._spec_item()
        if item is None or item.value is None or not item.value.readable:
            return None
        import json  # here: most fixes edit no JSON (json's import ~4.6M instructions)

        try:
            loaded = json_loads(item.value.text)
        except json.JSONDecodeError:
            return None
        if not isinstance(loaded, dict):
            return None
        for path, value in changes.items():
            loaded[SPEC_KEYS[path]] = value
            if path == "speculative.method" and value in WEIGHTLESS:
                for key in DRAFT_ONLY_KEYS:  # a drafter without weights takes none of these
                    loaded.pop(key, None)
        return item, loaded, _dumps(loaded, compact=": " not in item.value.text)

    def setting(self, changes: dict[str, Any], locator: Locator | None = None) -> str | None:
        """The changes as the author would write them: on this command line, or as the
        mapping key a chart reads the flag from (``maxModelLen: 11696``)."""
        parts = []
        spec = {p: v for p, v in changes.items() if p in SPEC_KEYS}
        if spec:
            found = self._spec_json(spec)
            if found is None:
                return None
            parts.append(f"--speculative-config '{found[2]}'")
        for path, value in changes.items():
            if path in SPEC_KEYS:
                continue
            item = self._item_for(path)
            name = item.name if item is not None else self._flag_names().get(path)
            if name is None:
                return None
            site = locator.site(item.value) if item and item.value and locator else None
            if site is not None and site.node and isinstance(site.path[-1], str):
                parts.append(f"{site.path[-1]}: {_text(value)}")  # a chart's own key
                continue
            joined = (
                item is not None and item.value is not None and item.value.span == item.word.span
            )
            parts.append(f"{name}={_text(value)}" if joined else f"{name} {_text(value)}")
        return " ".join(parts) if parts else None

    def edits(self, changes: dict[str, Any], source: Source, locator: Locator) -> list[Edit] | None:
        """The edits that make these changes, or None where one cannot be written."""
        edits: list[Edit] = []
        spec = {p: v for p, v in changes.items() if p in SPEC_KEYS}
        if spec:
            found = self._spec_json(spec)
            if found is None:
                return None
            item, loaded, written = found
            edit = self._replace_value(item, loaded, source, locator, written)
            if edit is None:
                return None
            edits.append(edit)
        added: list[tuple[str, str]] = []
        for path, value in changes.items():
            if path in SPEC_KEYS:
                continue
            item = self._item_for(path)
            if item is None:
                names = self._flag_names()
                if path not in names:
                    return None
                added.append((names[path], _text(value)))
                continue
            edit = self._replace_value(item, _text(value), source, locator)
            if edit is None:
                return None
            edits.append(edit)
        if added:
            edit = self._insert(added, source, locator)
            if edit is None:
                return None
            edits.append(edit)
        return edits

    def _replace_value(
        self,
        item: Item,
        value: Any,
        source: Source,
        locator: Locator,
        written: str | None = None,
    ) -> Edit | None:
        """The edit writing ``value`` in place of the item's value. A dict is written as JSON
        in the item's own separators, else in the others where those cannot be encoded;
        ``written``: the first of these, where the caller has it (_spec_json's)."""
        assert item.value is not None
        joined = item.value.span == item.word.span
        site = locator.site(item.word if joined else item.value)
        if site is None:
            return None
        for text in _variants(value, item.value.text, written):
            if joined:
                raw = source.text[site.start : site.end]
                head, eq, _ = raw.partition("=")
                if not eq:
                    return None
                if site.node:
                    name = item.word.text.partition("=")[0]
                    encoded = site.encode(f"{name}={text}")
                elif "'" in head or '"' in head:
                    return None
                else:
                    after = raw[len(head) + 1 : len(head) + 2]
                    quote = after if after in ("'", '"') else ""
                    encoded = _in_scalar(f"{head}={shell_word(text, quote)}", site.style)
            else:
                encoded = site.encode(text)
            if encoded is not None:
                return source.edit(site.start, site.end, encoded)
        return None

    def _insert(
        self, added: list[tuple[str, str]], source: Source, locator: Locator
    ) -> Edit | None:
        """New flags after the last word of the command, as its neighbours are written."""
        if not self.items:
            return None
        last = self.items[-1]
        anchor = last.values[-1] if last.values else last.word
        site = locator.site(anchor)
        if site is None:
            return None
        flagged = [i for i in self.items if i.flag is not None or i.name]
        joined = bool(flagged) and sum(
            1 for i in flagged if i.value is not None and i.value.span == i.word.span
        ) * 2 > sum(1 for i in flagged if i.value is not None)
        words = [f"{n}={v}" for n, v in added] if joined else [w for pair in added for w in pair]
        text = source.text
        if site.node:
            flag_style = _neighbour_style(self.items, locator, value=False) or site.style
            value_style = _neighbour_style(self.items, locator, value=True) or flag_style
            styles = [flag_style] * len(words) if joined else [flag_style, value_style] * len(added)
            encoded = [yaml_scalar(w, s, site.flow) for w, s in zip(words, styles, strict=True)]
            if site.flow:
                return source.edit(site.end, site.end, "".join(f", {e}" for e in encoded))
            line_start, _ = source.line_bounds(site.start)
            prefix = text[line_start : site.start]
            if not re.fullmatch(r"\s*-\s+", prefix):
                return None
            line_end = text.find("\n", site.end)
            line_end = len(text) if line_end < 0 else line_end
            return source.edit(line_end, line_end, "".join(f"\n{prefix}{e}" for e in encoded))
        shell = " ".join(shell_word(w) for w in words)
        inner = _in_scalar(shell, site.style)
        if inner is None:
            return None
        # the last flag on a line of its own: a new line like it (a folded scalar reads the
        # line break as a space; a script needs the author's backslash continuation)
        flag_site = locator.site(last.word) if last.name else site
        if flag_site is not None and not flag_site.node:
            line_start, _ = source.line_bounds(flag_site.start)
            before = text[line_start : flag_site.start]
            if not before.strip() and line_start > 0:
                previous = text[: line_start - 1].rstrip(" \t\r")
                if site.style == ">":
                    return source.edit(site.end, site.end, f"\n{before}{inner}")
                if previous.endswith("\\") and site.style in ("|", "plain"):
                    return source.edit(site.end, site.end, f" \\\n{before}{inner}")
        return source.edit(site.end, site.end, f" {inner}")

    # -- vLLM's removed speculative flags

    def migration(
        self, source: Source, locator: Locator
    ) -> tuple[str, bool, list[Edit] | None] | None:
        """The removed flags replaced by --speculative-config: (the new flag as written, whether
        it keeps the engine's behaviour, the edits or None), or None without removed flags."""
        legacy = self.legacy()
        if not legacy:
            return None
        from .engines.vllm import legacy_replacement

        replacement, keeps = legacy_replacement(legacy)
        if not replacement:
            setting = "remove " + ", ".join(i.name for i in legacy)
        else:
            setting = f"--speculative-config '{_dumps(replacement, compact=False)}'"
        if self._spec_item() is not None:
            return setting, keeps, None  # both spellings: merging them is the author's call
        edits = self._migration_edits(legacy, replacement, source, locator)
        return setting, keeps, edits

    def _migration_edits(
        self, legacy: list[Item], replacement: dict[str, Any], source: Source, locator: Locator
    ) -> list[Edit] | None:
        edits: list[Edit] = []
        first = next((i for i in legacy if i.value is not None), None) if replacement else None
        for item in legacy:
            if item is first:
                continue
            removal = self._removal(item, source, locator)
            if removal is None:
                return None
            edits.extend(removal)
        if first is not None:
            assert first.value is not None
            joined = first.value.span == first.word.span
            word_site = locator.site(first.word)
            if word_site is None:
                return None
            if joined:
                for compact in (False, True):
                    text = "--speculative-config=" + _dumps(replacement, compact)
                    if word_site.node:
                        encoded = word_site.encode(text)
                    else:
                        encoded = _in_scalar(
                            "--speculative-config=" + shell_word(_dumps(replacement, compact), "'"),
                            word_site.style,
                        )
                    if encoded is not None:
                        edits.append(source.edit(word_site.start, word_site.end, encoded))
                        break
                else:
                    return None
            else:
                flag = word_site.encode("--speculative-config")
                value_site = locator.site(first.value)
                if flag is None or value_site is None:
                    return None
                encoded = None
                for compact in (False, True):
                    text = _dumps(replacement, compact)
                    encoded = (
                        value_site.encode(text)
                        if value_site.node
                        else _in_scalar(shell_word(text, "'"), value_site.style)
                    )
                    if encoded is not None:
                        break
                if encoded is None:
                    return None
                edits.append(source.edit(word_site.start, word_site.end, flag))
                edits.append(source.edit(value_site.start, value_site.end, encoded))
        return edits

    def _removal(self, item: Item, source: Source, locator: Locator) -> list[Edit] | None:
        """Edits deleting a flag and its value: whole lines where they stand alone on them,
        else the words with the space before them."""
        tokens = [item.word, *(v for v in item.values if v.span != item.word.span)]
        sites = [locator.site(t) for t in tokens]
        if any(s is None for s in sites):
            return None
        text = source.text
        edits = []
        for site in sites:
            assert site is not None
            line_start, next_line = source.line_bounds(site.start)
            if site.node and not site.flow:
                if re.fullmatch(r"\s*-\s+", text[line_start : site.start]) and not text[
                    site.end : next_line
                ].strip(" \t\r\n"):
                    edits.append(source.edit(line_start, next_line, ""))
                    continue
                return None
            if site.node:  # an item of a [...] list: with its comma (never one in a comment)
                removal = _flow_removal(site, source, locator)
                if removal is None:
                    return None
                edits.append(removal)
                continue
            start = site.start
            while start > 0 and text[start - 1] in " \t":
                start -= 1
            edits.append(source.edit(start, site.end, ""))
        # a flag and its value alone on a continued line of a script: drop the line too
        return _merge_line_removals(edits, source)


def _flow_removal(site: Site, source: Source, locator: Locator) -> Edit | None:
    """Delete an item of a ``[...]`` list with the comma between it and its neighbour: the one
    before it, or for the first item the one after it."""
    text = source.text
    index = site.path[-1]
    spans = locator.document.spans
    if index > 0 and (*site.path[:-1], index - 1) in spans:
        before = spans[(*site.path[:-1], index - 1)]
        end = source.offset(before.end_line or before.line, before.end_column or before.column)
        comma = text.find(",", end, site.start)
        return None if comma < 0 else source.edit(comma, site.end, "")
    after = spans.get((*site.path[:-1], index + 1))
    if after is None:
        return None
    start = source.offset(after.line, after.column)
    comma = text.find(",", site.end, start)
    return None if comma < 0 else source.edit(site.start, start, "")


def _merge_line_removals(edits: list[Edit], source: Source) -> list[Edit]:
    """Word removals that leave only whitespace and a line continuation on their line become
    the removal of that line."""
    text = source.text
    by_line: dict[int, list[Edit]] = {}
    for edit in edits:
        by_line.setdefault(edit.line, []).append(edit)
    out: list[Edit] = []
    for line, group in sorted(by_line.items()):
        start = source.offset(line, 1)
        _, next_line = source.line_bounds(start)
        whole = text[start:next_line]
        if len(group) == 1 and group[0].end_line > line:
            out.extend(group)
            continue
        kept = whole
        for edit in sorted(group, key=lambda e: e.column, reverse=True):
            a = edit.column - 1
            b = edit.end_column - 1 if edit.end_line == line else len(whole)
            kept = kept[:a] + kept[b:]
        if not kept.strip() or (kept.strip() == "\\" and whole.rstrip().endswith("\\")):
            out.append(source.edit(start, next_line, ""))
        else:
            out.extend(group)
    return out


# the last flag table _long_flags read, its size then, and its answer: vLLM's table is built at
# import and the same for every fix of a run (its size is checked as FlagTable.lookup checks it)
_LONG_FLAGS: tuple[FlagTable, int, dict[str, str]] | None = None


def _long_flags(table: FlagTable) -> dict[str, str]:
    """Deployment field -> the first long flag of ``table`` that sets it and is read."""
    global _LONG_FLAGS
    known = _LONG_FLAGS
    if known is not None and known[0] is table and known[1] == len(table.by_name):
        return known[2]
    names: dict[str, str] = {}
    for flag in table.by_name.values():
        if flag.field and flag.parse is not None and flag.field not in names:
            names[flag.field] = flag.names[0]
    _LONG_FLAGS = (table, len(table.by_name), names)
    return names


def _neighbour_style(items: list[Item], locator: Locator, value: bool) -> str | None:
    """The YAML style of the command's other flags (or values), the last one's."""
    style = None
    for item in items:
        token = item.value if value else (item.word if item.name else None)
        if token is None or (
            value and item.value is not None and item.value.span == item.word.span
        ):
            continue
        site = locator.site(token)
        if site is not None and site.node:
            style = site.style
    return style


def _variants(value: Any, was: str, written: str | None) -> Iterator[str]:
    """The texts that may write ``value`` in place of ``was``, in order: a dict as JSON in
    ``was``'s separators (``written`` where given), then in the others, each made only where
    the one before cannot be encoded; anything else as its str()."""
    if not isinstance(value, dict):
        yield str(value)
        return
    compact = ": " not in was
    yield _dumps(value, compact) if written is None else written
    yield _dumps(value, not compact)


def _dumps(value: dict[str, Any], compact: bool) -> str:
    import json

    return json.dumps(value, separators=(",", ":") if compact else (", ", ": "))


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


# --- the writer for hbmlint's own manifest ----------------------------------------------------


@dataclass
class FieldWriter:
    """Writes settings into hbmlint's own manifest: ``spec.<field path>`` changed in place, or
    added at the end of its mapping with that mapping's indentation."""

    root: Path = ("spec",)

    def setting(self, changes: dict[str, Any], locator: Locator | None = None) -> str | None:
        return ", ".join(f"{path}: {_text(value)}" for path, value in changes.items()) or None

    def edits(self, changes: dict[str, Any], source: Source, locator: Locator) -> list[Edit] | None:
        edits = []
        for path, value in changes.items():
            edit = self._edit((*self.root, *path.split(".")), _text(value), source, locator)
            if edit is None:
                return None
            edits.append(edit)
            if path == "speculative.method" and value in WEIGHTLESS:
                # the drafter's own keys go with it, as ArgvWriter drops them from
                # --speculative-config: left in place, the manifest would still name a draft
                # model (and the fix check would refuse the edit)
                removals = []
                section = (*self.root, "speculative")
                # only the keys the section writes: one look at it, not one search a key
                written = {child[-1] for child in locator.document.keys_below(section)}
                for key in NATIVE_DRAFT_ONLY_KEYS:
                    if key not in written:
                        continue  # _removal's None: no such entry
                    removal = self._removal((*section, key), source, locator)
                    if removal is False:
                        return None
                    if removal is not None:
                        removals.append(removal)
                edits += sorted(removals, key=lambda e: (e.line, e.column))  # in file order
        return edits

    def _removal(self, path: Path, source: Source, locator: Locator) -> Edit | None | bool:
        """The edit that deletes the block-mapping entry at ``path`` (its lines, a trailing
        comment with them); None where there is no such entry, False where it cannot be
        deleted line by line (a flow mapping, a block scalar, a neighbour on its lines)."""
        key, value = locator.document.recorded(path)
        if key is None:
            return None
        if value is None or value.end_line is None or value.end_column is None:
            return False
        if isinstance(locator._scalar(path), (dict, list)):
            return False
        text = source.text
        start = source.offset(key.line, key.column)
        line_start, _ = source.line_bounds(start)
        if text[line_start:start].strip() or locator._style(
            source.offset(value.line, value.column)
        ) in ("|", ">"):
            return False  # not the first thing on its line, or a block scalar
        end = source.offset(value.end_line, value.end_column)
        _, line_end = source.line_bounds(max(end - 1, start))
        if not re.fullmatch(r"[ \t]*(#[^\r\n]*)?\r?\n?", text[end:line_end]):
            return False  # something else follows on the value's last line
        return source.edit(line_start, line_end, "")

    def _edit(self, path: Path, value: str, source: Source, locator: Locator) -> Edit | None:
        document = locator.document
        text = source.text
        span = document.recorded(path)[1]
        if span is not None:
            if span.end_line is None or isinstance(locator._scalar(path), (dict, list)):
                return None
            start = source.offset(span.line, span.column)
            end = source.offset(span.end_line, span.end_column)
            style = locator._style(start)
            if style in ("|", ">"):
                return None
            flow = _in_flow(text, source, document, path)
            return source.edit(start, end, yaml_scalar(value, style, flow))
        parent = path[:-1]
        span = document.recorded(parent)[1]
        if span is None or not isinstance(locator._scalar(parent), dict):
            return None
        key = path[-1]
        start = source.offset(span.line, span.column)
        end = source.offset(span.end_line or span.line, span.end_column or span.column)
        if text[start : start + 1] == "{":
            inside = text[start + 1 : end - 1].strip()
            return source.edit(end - 1, end - 1, f"{', ' if inside else ''}{key}: {value}")
        children = [document.recorded(child) for child in document.keys_below(parent)]
        if not children:
            return None
        first = children[0][0]
        indent = " " * (first.column - 1)
        # after the last line of the mapping's last entry
        last_end = max(source.offset(c.end_line, c.end_column) for _, c in children)
        line_end = text.find(
            "\n", last_end - 1 if text[last_end - 1 : last_end] == "\n" else last_end
        )
        if line_end < 0:
            return source.edit(
                len(text), len(text), f"\n{indent}{key}: {yaml_scalar(value, 'plain')}\n"
            )
        return source.edit(line_end, line_end, f"\n{indent}{key}: {yaml_scalar(value, 'plain')}")


def _in_flow(text: str, source: Source, document: YamlDocument, path: Path) -> bool:
    parent = document.recorded(path[:-1])[1]
    if parent is None:
        return False
    return text[source.offset(parent.line, parent.column)] in "{["
