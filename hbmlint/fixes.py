"""The fix stage: after the rules, each fix that says which settings it changes gets its
message in the manifest's own terms and the edits that apply it; ``--fix`` then picks and
applies them.

Rules say what to change in hbmlint's terms (``set: {serving.max_model_len: ...}``); the
format reader's writer (rewrite.py) says how this file writes it (``--max-model-len 11696``)
and where. Every edit is checked before it is offered: the edited file must still be YAML and
read back, with the same format reader, as the same deployment with exactly the changed
settings changed. An edit that does not is dropped, and the fix is shown, not applied.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Callable
from dataclasses import field, fields
from functools import cache, cached_property
from typing import Any

from .diagnostics import SAFE, UNSAFE, Diagnostic, Edit, Fix
from .lazyre import LazyPattern
from .records import dataclass
from .rewrite import WEIGHTLESS, Locator, Path, Source, apply_edits, remembered
from .spec import (
    DRAFT_ONLY_FIELDS,
    Deployment,
    GpuSpec,
    ModelRef,
    ParallelSpec,
    ServingSpec,
    SpeculativeSpec,
    WorkloadSpec,
)
from .yamlsrc import MAX_EXPANDED_NODES, Span, YamlDocument, load_plain

# Reads the edited text back: the deployments of the same document, or None when the text no
# longer reads (not YAML, another number of documents, the reader fails).
Reread = Callable[[str], "list[Deployment] | None"]
# Reads the edited document back from its data, built here without composing the edited text
# again (an edit inside one scalar): the edited text and the document's data.
ReadData = Callable[[str, Any], "list[Deployment] | None"]

# "(serving.max_model_len)" or "(speculative.quantization: fp8)" in a rule's fix text: the
# setting in hbmlint's terms, which the manifest's own terms replace.
_FIELD_NOTE = re.compile(
    r"\s*\((?:gpu|model|parallel|serving|speculative|workload)\.[a-z_.]+(?::[^()]*)?\)"
)
# _FIELD_NOTE from its "(": re finds a pattern's first character with a quick scan, where
# \s* had the whole pattern tried at every position of a message (~33k instructions a fix).
# A note's blanks are the whitespace just before that "(" (_field_note), as \s* takes them.
_FIELD_NOTE_OPEN = re.compile(
    r"\((?:gpu|model|parallel|serving|speculative|workload)\.[a-z_.]+(?::[^()]*)?\)"
)
_FLAG_NOTE = re.compile(
    r"(--[a-z0-9-]+) \((?:gpu|model|parallel|serving|speculative|workload)\.[a-z_.]+\)"
)
# where a field lives on the Deployment, where that is not its path
_ATTRIBUTES = {
    "speculative.quantization": ("speculative", "model", "quantization"),
    "speculative.model": ("speculative", "model", "name"),
}
_NOT_COMPARED = ("locations", "writer", "hints", "source_format")


def field_value(deployment: Deployment, path: str) -> Any:
    value: Any = deployment
    for part in _ATTRIBUTES.get(path, tuple(path.split("."))):
        value = getattr(value, part, None)
    return value


def _with_field(comparable: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """``comparable`` (a deployment's ``_comparable`` form) with ``path`` set as a reader would
    have set it on the deployment; the mappings on the way are copied, the rest is shared."""
    top = dict(comparable)
    if path == "speculative.method" and value in WEIGHTLESS:
        spec = top.get("speculative")
        if isinstance(spec, dict):
            top["speculative"] = {
                **spec,
                **dict.fromkeys(DRAFT_ONLY_FIELDS),
            }
    parts = _ATTRIBUTES.get(path, tuple(path.split(".")))
    target: dict[str, Any] = top
    for part in parts[:-1]:
        child = target.get(part)
        if not isinstance(child, dict):
            return top
        target[part] = target = dict(child)
    if parts[-1] in target:
        target[parts[-1]] = value
    return top


_SCALARS = (str, int, float, bool, type(None))


def _plain(value: Any) -> Any:
    """``value`` as plain data: dataclasses as dicts of their fields, containers of the same
    type, scalars as they are (dataclasses.asdict does the same, a few times slower)."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is Span:
        return None  # where a value is written moves with an edit; it is not a setting
    names = _field_names(kind) if hasattr(kind, "__dataclass_fields__") else None
    if names is not None:
        # most fields hold a scalar or None: kept without a call of this function each
        plain = {}
        for name in names:
            field_value = getattr(value, name)
            plain[name] = field_value if type(field_value) in _SCALARS else _plain(field_value)
        return plain
    if kind is list or kind is tuple:
        return kind(_plain(item) for item in value)
    if kind is dict:
        return {key: _plain(item) for key, item in value.items()}
    return copy.deepcopy(value)


@cache
def _field_names(kind: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(kind))


def _comparable(deployment: Deployment) -> dict[str, Any]:
    """The deployment's settings as plain data, without what an edit may move (locations) or
    what is not a setting."""
    return {name: _plain(getattr(deployment, name)) for name in _compared(type(deployment))}


@cache
def _compared(kind: type) -> tuple[str, ...]:
    return tuple(name for name in _field_names(kind) if name not in _NOT_COMPARED)


# The deployment's settings records: their equality compares every field with ``==`` (records
# made by records.dataclass, no field left out: tests/test_fix_compare_unchanged.py), so two
# equal ones have equal plain forms (a Span equal to a Span is None and None in both). Unequal
# ones may still have equal plain forms (a label's position): those are compared plain.
_SETTINGS_RECORDS = frozenset(
    (GpuSpec, ModelRef, ParallelSpec, ServingSpec, SpeculativeSpec, WorkloadSpec)
)


# Containers whose equality is their items' (the same length and keys, items equal or the
# same object): as _plain compares them, for items whose equality implies their plain forms'
# (scalars, settings records, Labels and Spans: what a deployment's assumed and unread hold)
_CONTAINERS = frozenset((dict, list, tuple))


# The kinds for which ``was == now`` (of the same kind) says that their plain forms are equal;
# for any other, equality says nothing and the plain forms are compared
_EQUALITY_KNOWN = frozenset(_SCALARS).union(_SETTINGS_RECORDS, _CONTAINERS)


def _touched(changes: dict[str, Any]) -> set[str]:
    """The deployment's top-level fields that _with_field may change for ``changes``."""
    names = set()
    for path, value in changes.items():
        names.add(_ATTRIBUTES.get(path, tuple(path.split(".")))[0])
        if path == "speculative.method" and value in WEIGHTLESS:
            names.add("speculative")
    return names


class _Lines:
    """A document's one-line values and its keys on each line an edit asks about, each found
    once (YamlDocument.starting_on: around that line only, while the spans are not recorded;
    a fix asks about two or three lines of a file)."""

    __slots__ = ("document", "_seen")

    def __init__(self, document: YamlDocument):
        self.document = document
        self._seen: dict[int, tuple[list[tuple[Path, Span]], list[tuple[Path, Span]]]] = {}

    def on(self, line: int) -> tuple[list[tuple[Path, Span]], list[tuple[Path, Span]]]:
        found = self._seen.get(line)
        if found is None:
            values, keys = self.document.starting_on(line)
            one_line = [(path, span) for path, span in values if span.end_line == line]
            found = self._seen[line] = (one_line, keys)
        return found


class _ByLine:
    """``{line: [(path, span), ...]}`` of the one-line values (``which`` 0) or the keys (1) of
    a document, as far as its callers ask: ``get`` alone, answered by _Lines."""

    __slots__ = ("_lines", "_which")

    def __init__(self, lines: _Lines, which: int):
        self._lines, self._which = lines, which

    def get(self, line: int, default: Any = ()) -> Any:
        if type(line) is not int:
            return default
        return self._lines.on(line)[self._which] or default


@dataclass
class FixContext:
    """What the fix stage needs of one deployment's file."""

    text: str
    document: YamlDocument
    reread: Reread
    position: int  # the deployment's index among its document's deployments
    # the deployment as the reader built it from ``text``: the unedited side of every check
    # (reading the text again would give the same settings, at a second read's cost)
    deployment: Deployment | None = None
    # given where every document of ``text`` loaded without a YAML error: an edit inside one
    # scalar is read back from the document's data with that scalar changed (_one_scalar_edit)
    read_data: ReadData | None = None

    # each edited text read back once: two findings often offer the same fix (a drafter's
    # weights and its share of the memory both suggest n-gram lookup), whose edits give the
    # same text, and a reading depends on the text alone. Per deployment, so bounded by its
    # fixes
    _read: dict[str, Deployment | None] = field(default_factory=dict, repr=False)
    # _plain_before's fields
    _before_fields: dict[str, Any] = field(default_factory=dict, repr=False)

    def _nth(self, text: str, edits: list[Edit] | None = None) -> Deployment | None:
        if text in self._read:
            return self._read[text]
        data = None if edits is None else self._edited_data(edits)
        if data is not None:
            assert self.read_data is not None  # _edited_data answers only with it
            found = self.read_data(text, data[0])
        else:
            found = self.reread(text)
        nth = None if found is None or self.position >= len(found) else found[self.position]
        self._read[text] = nth
        return nth

    @cached_property
    def _source(self) -> Source:
        """``text``'s line starts, for placing every fix's edits: worked out once, not per fix."""
        return Source(self.text, "")

    def source_for(self, file: str) -> Source:
        """``text``'s Source naming ``file``, for writing the fixes' edits; the checks place
        them with the same one (its line starts, never its file name), not with one of their
        own."""
        source = self.__dict__.get("_source")
        if source is None or source.file != file:
            source = self.__dict__["_source"] = Source(self.text, file)
        return source

    @cached_property
    def _before(self) -> dict[str, Any] | None:
        """The unedited deployment's comparable form, read once for every fix."""
        before = self._unedited
        return None if before is None else _comparable(before)

    @cached_property
    def _unedited(self) -> Deployment | None:
        """The unedited deployment, read once for every fix."""
        return self.deployment if self.deployment is not None else self._nth(self.text)

    def _plain_before(self, name: str) -> Any:
        """The unedited deployment's field ``name`` as plain data (its _comparable entry), made
        once and only for a field a check compares in plain form."""
        plain = self._before_fields
        if name not in plain:
            plain[name] = _plain(getattr(self._unedited, name))
        return plain[name]

    @cached_property
    def _scalars_by_line(self) -> _ByLine | None:
        """The paths and spans of the document's one-line nodes by line; None where no edit of
        this text is read from data (_one_scalar_edit says why each condition is needed)."""
        text = self.text
        document = self.document
        if (
            self.read_data is None
            # read without positions (spans not recorded, nor a tree to find them in)
            or (document._tree is None and not document.spans)
            or not text.isascii()
            or any(mark in text for mark in _NOT_FROM_DATA)
            or text.startswith("%")
            or len(text) > MAX_EXPANDED_NODES
        ):
            return None
        return _ByLine(self._lines, 0)

    @cached_property
    def _keys_by_line(self) -> _ByLine:
        """The paths and key spans of the document's mapping entries by the key's line: where a
        line that adds or deletes an entry sits (_inserted_entry, _deleted_entry)."""
        return _ByLine(self._lines, 1)

    @cached_property
    def _lines(self) -> _Lines:
        return _Lines(self.document)

    def _edited_data(self, edits: list[Edit]) -> tuple[Any] | None:
        """(the document's data with ``edits`` made) where each changes one scalar in place or
        adds or deletes one ``key: value`` line of a block mapping, each on a line of its own;
        None where the edited text must be read in full."""
        lines = self._scalars_by_line
        if lines is None or not edits:
            return None
        changes = []
        touched: set[int] = set()
        for edit in edits:
            if edit.line in touched or "\r" in edit.replacement:
                # two edits of one line: each is proved for the line as it was; a CR is a line
                # break to YAML, inside a quoted scalar too
                return None
            touched.add(edit.line)
            if edit.column == edit.end_column and edit.replacement[:1] == "\n":
                change = _inserted_entry(
                    self.text, self._source, self.document, lines, self._keys_by_line, edit
                )
            elif not edit.replacement and edit.end_line == edit.line + 1:
                change = _deleted_entry(
                    self.text, self._source, self.document, lines, self._keys_by_line, edit
                )
            else:
                change = _one_scalar_edit(self.text, self._source, self.document, lines, edit)
            if change is None:
                return None
            changes.append(change)
        data = self.document.data
        for kind, path, value in changes:
            # each change was proved against the unedited data; made one after another, each
            # meets its containers as the changes before it left them (copies, never the
            # document's own)
            if kind is _SCALAR:
                parents, _ = _at(data, path)
                if parents is None:
                    return None
                data = _replaced(data, parents, path, value)
                continue
            parents, mapping = _at(data, path[:-1])
            if parents is None or type(mapping) is not dict:
                return None
            if kind is _INSERTED:
                if path[-1] in mapping:
                    return None
                mapping = {**mapping, path[-1]: value}
            else:
                mapping = {key: item for key, item in mapping.items() if key != path[-1]}
                if not mapping:
                    return None  # an emptied mapping reads as null: not proved here
            data = _replaced(data, parents, path[:-1], mapping)
        return (data,)

    def reads_as(self, edits: list[Edit], changes: dict[str, Any], file: str) -> bool:
        """Whether the file with ``edits`` reads as the same deployment with ``changes``."""
        before = self._unedited
        if before is None:
            return False
        after = self._nth(apply_edits(self.text, self._source, edits), edits)
        if after is None:
            return False
        names = _compared(type(before))
        if type(after) is not type(before):  # compared whole, as plain forms
            whole = self._before
            assert whole is not None  # made from ``before``
            for path, value in changes.items():
                whole = _with_field(whole, path, value)
            return whole == _comparable(after)
        # ``_with_field(_comparable(before), ...) == _comparable(after)``, field by field: the
        # fields the changes touch in plain form, each other one first by its own equality
        # (an edit leaves most of them as they were, and the plain forms of both were most of
        # a check's cost), in plain form where that says no (a label's position)
        touched = _touched(changes).intersection(names)
        expected = {name: self._plain_before(name) for name in names if name in touched}
        for path, value in changes.items():
            expected = _with_field(expected, path, value)
        for name in names:
            now, was = getattr(after, name), getattr(before, name)
            kind = type(was)
            if (
                name not in touched
                and kind is type(now)
                and kind in _EQUALITY_KNOWN
                and (was is now or was == now)
            ):
                continue  # equal by their own equality: equal plain forms (see above)
            plain = _plain(now)
            wanted = expected[name] if name in touched else self._plain_before(name)
            if not (wanted is plain or wanted == plain):  # as a dict compares its values
                return False
        return True


# --- an edit inside one scalar, read without composing the file again ------------------------
#
# Composing the edited text is about half of reading it back. Where the edit replaces text
# inside one scalar written on one line, and the scalar as edited is still one complete token of
# the same style, YAML's scanner meets the same tokens as in the unedited text with only that
# scalar's text changed: the edited document is the unedited one with that value changed, and
# the other documents are as they were. Anything else is composed in full.
#
# Texts read in full: aliases and merge keys (a value may stand in several places), tags and
# anchors (a scalar's properties), tabs and CR (breaks and indentation as YAML counts them), a
# directive, non-ASCII text (offsets in characters and libyaml's marks agree only for ASCII).
_NOT_FROM_DATA = ("*", "&", "!", "<<", "\t", "\r", "\n%")
# A scalar token of each style that is complete on its own: a double-quoted one without a
# line break (escapes checked by reading it), a single-quoted one, a plain one of characters
# that end no plain scalar and start none of YAML's indicators in block or flow context. The
# quoted ones are written "unrolled" (a run of ordinary characters, then each escape or '' with
# the run after it): a run is matched a step, and no text can be split two ways, so a failed
# match never backtracks (a character a step cost ~300 instructions a character, and a
# --speculative-config JSON word is ~100; tests/test_fix_token_runs.py). Python 3.10 has no
# possessive quantifiers.
_TOKENS = {
    '"': re.compile(r'"[^"\\\n]*(?:\\[^\n][^"\\\n]*)*"'),
    "'": LazyPattern(r"'[^'\n]*(?:''[^'\n]*)*'"),
    "": re.compile(r"-{0,2}[A-Za-z0-9_./+=][A-Za-z0-9_./+=-]*"),
}
# What may follow the scalar on its line: blanks, a comment, or a flow collection going on
_AFTER_SCALAR = re.compile(r"[ \t]*(?:#.*|[,\]}].*)?")
_LEAVES = (str, int, float, bool, type(None))


def _one_scalar_edit(
    text: str,
    source: Source,
    document: YamlDocument,
    lines: _ByLine,
    edit: Edit,
) -> tuple[object, Path, Any] | None:
    """(_SCALAR, the path, the value read from the edited token) where ``edit`` changes one
    scalar written on one line and nothing else (see above); None where that is not sure."""
    replacement = edit.replacement
    if edit.line != edit.end_line or not replacement.isascii() or "\n" in replacement:
        return None
    # the narrowest one-line node holding the edit: a scalar, or a flow collection around it
    holding = [
        (path, span)
        for path, span in lines.get(edit.line, ())
        if span.column <= edit.column and edit.end_column <= span.end_column  # type: ignore[operator]
    ]
    if not holding:
        return None
    path, span = min(holding, key=lambda found: found[1].end_column - found[1].column)  # type: ignore[operator]
    parents, value = _at(document.data, path)
    if parents is None or type(value) not in _LEAVES:
        return None
    start, end = source.offset(span.line, span.column), source.offset(span.line, span.end_column)  # type: ignore[arg-type]
    was = text[start:end]
    style = was[:1] if was[:1] in ('"', "'") else ""
    cut, cut_end = source.offset(edit.line, edit.column), source.offset(edit.line, edit.end_column)
    now = text[start:cut] + replacement + text[cut_end:end]
    token = _TOKENS[style]
    line_end = text.find("\n", end)
    if (
        not token.fullmatch(was)
        or not token.fullmatch(now)
        or now.startswith(("---", "..."))
        or not _AFTER_SCALAR.fullmatch(text, end, len(text) if line_end < 0 else line_end)
    ):
        return None
    unedited, edited = _alone(was), _alone(now)
    if unedited is None or edited is None:
        return None  # a text the loader refuses: the full reading says so
    (unedited,), (edited,) = unedited, edited
    if (
        type(unedited) is not type(value)
        or unedited != value
        or type(edited) not in _LEAVES
        or (style and type(edited) is not str)
    ):
        return None  # the scalar alone does not read as it does in the file: not sure
    return _SCALAR, path, edited


# --- a `key: value` line added to or deleted from a block mapping -----------------------------
#
# A block mapping's entry written on one line of its own (spaces, the key, a colon, a one-line
# scalar, blanks or a comment) is one KEY, one VALUE and one scalar token each, at the mapping's
# indentation. The edited text loaded, so the line after such an entry is one the scanner meets
# at the mapping's indentation or left of it (more indented, it would continue a plain scalar
# or not load): another entry of the same kind before or after it, or none, leaves the tokens
# around it as they were. Added after the mapping's last key (in the data's order) it is the
# data's last key; deleted where the mapping writes each key once, the others keep their order.
_SCALAR, _INSERTED, _DELETED = object(), object(), object()
_NEW_ENTRY = re.compile(r"\n( *)([A-Za-z_][A-Za-z0-9_-]*): (.*)")
_KEY_TO_VALUE = re.compile(r"[ ]*:[ ]+")
_AFTER_ENTRY = re.compile(r"[ \t]*(?:#.*)?")


def _entry_on(
    text: str,
    source: Source,
    document: YamlDocument,
    lines: _ByLine,
    path: Path,
    key: Span,
) -> tuple[dict[str, Any], Span] | None:
    """(the mapping, its span) where the entry at ``path``, whose key is at ``key``, is written
    as described above, in a block mapping with string keys; else None."""
    value = next((span for found, span in lines.get(key.line, ()) if found == path), None)
    if value is None or key.end_line != key.line or value.column < key.end_column:  # type: ignore[operator]
        return None
    parents, leaf = _at(document.data, path)
    mapping_span = document.recorded(path[:-1])[1]
    if parents is None or type(leaf) not in _LEAVES or mapping_span is None:
        return None
    key_end = source.offset(key.line, key.end_column)  # type: ignore[arg-type]
    start = source.offset(value.line, value.column)
    end = source.offset(value.line, value.end_column)  # type: ignore[arg-type]
    line_end = text.find("\n", end)
    if (
        not _KEY_TO_VALUE.fullmatch(text, key_end, start)
        or not _AFTER_ENTRY.fullmatch(text, end, len(text) if line_end < 0 else line_end)
        or text[source.offset(mapping_span.line, mapping_span.column) :][:1] == "{"
    ):
        return None
    return parents[-1], mapping_span


def _inserted_entry(
    text: str,
    source: Source,
    document: YamlDocument,
    lines: _ByLine,
    keys: _ByLine,
    edit: Edit,
) -> tuple[object, Path, Any] | None:
    """(_INSERTED, the new key's path, its value) where ``edit`` adds a ``key: value`` line
    after the line of a block mapping's last entry, at that entry's indentation; else None."""
    line = edit.line
    found = _NEW_ENTRY.fullmatch(edit.replacement)
    if (
        found is None
        or edit.end_line != line
        or not edit.replacement.isascii()
        or line >= len(source.starts)
        # at the end of the line, before its line break
        or source.starts[line - 1] + edit.column != source.starts[line]
    ):
        return None
    indent, key, written = found.groups()
    after = [(path, span) for path, span in keys.get(line, ()) if span.column == len(indent) + 1]
    if len(after) != 1:
        return None
    path, key_span = after[0]
    entry = _entry_on(text, source, document, lines, path, key_span)
    if entry is None:
        return None
    mapping, _ = entry
    if next(reversed(mapping)) != path[-1] or key in mapping:
        return None
    style = written[:1] if written[:1] in ('"', "'") else ""
    if not _TOKENS[style].fullmatch(written) or _alone(key) != (key,):
        return None
    value = _alone(written)
    if value is None or type(value[0]) not in _LEAVES or (style and type(value[0]) is not str):
        return None
    return _INSERTED, (*path[:-1], key), value[0]


def _deleted_entry(
    text: str,
    source: Source,
    document: YamlDocument,
    lines: _ByLine,
    keys: _ByLine,
    edit: Edit,
) -> tuple[object, Path, None] | None:
    """(_DELETED, the entry's path, None) where ``edit`` deletes the one line of a block
    mapping's entry, a mapping that writes each of its keys once; else None."""
    line = edit.line
    on_line = keys.get(line, ())
    if (
        edit.column != 1
        or edit.end_column != 1
        or edit.end_line != line + 1
        or line >= len(source.starts)
        or len(on_line) != 1
    ):
        return None
    path, key_span = on_line[0]
    line_start = source.starts[line - 1]
    if text[line_start : line_start + key_span.column - 1].strip(" "):
        return None  # something before the key: a sequence item's dash, an explicit key's ?
    entry = _entry_on(text, source, document, lines, path, key_span)
    if entry is None:
        return None
    mapping, span = entry
    indent = key_span.column - 1
    first = source.offset(span.line, span.column)
    if (
        span.column != key_span.column
        or span.end_line is None
        or text[source.starts[span.line - 1] : first].strip(" ")
    ):
        return None
    # every key of the mapping starts a line at its indentation: fewer such lines than keys
    # in the data means none is written twice (a repeated key's value is its last one's)
    written = 0
    for start in source.starts[span.line - 1 : span.end_line]:
        head = text[start : start + indent + 1]
        if len(head) == indent + 1 and not head[:indent].strip(" ") and head[-1] not in " #\n":
            written += 1
    if written != len(mapping) or written < 2:
        return None
    return _DELETED, path, None


@remembered
def _alone(token: str) -> tuple[Any] | None:
    """(the value the loader reads from ``token`` alone: its tag resolution, its escapes), or
    None where it refuses it."""
    try:
        return (load_plain(token),)
    except Exception:
        return None


def _at(data: Any, path: Path) -> tuple[list[Any] | None, Any]:
    """The containers on the way to ``path`` in ``data`` and the value there; (None, None)
    where a step is not a mapping with string keys or a list (a key the path holds as text,
    not the value the loader built)."""
    parents = []
    for part in path:
        parents.append(data)
        if type(data) is dict and type(part) is str and part in data:
            for key in data:  # every key a str (a loop: cheaper than a map of type's calls)
                if type(key) is not str:
                    return None, None
            data = data[part]
        elif type(data) is list and type(part) is int and 0 <= part < len(data):
            data = data[part]
        else:
            return None, None
    return parents, data


def _replaced(data: Any, parents: list[Any], path: Path, value: Any) -> Any:
    """``data`` with ``value`` at ``path``: the containers on the way copied, the rest shared
    (readers do not change the data they read: tests/test_readers_leave_data.py)."""
    for container, part in zip(reversed(parents), reversed(path), strict=True):
        copied = dict(container) if type(container) is dict else list(container)
        copied[part] = value
        value = copied
    return value


def complete(findings: list[Diagnostic], deployment: Deployment, context: FixContext) -> None:
    """Give the fixes of ``deployment``'s findings their manifest terms and edits. A failure
    here never costs the findings: they keep the fixes the rules gave them."""
    try:
        _complete_all(findings, deployment, context)
    except Exception:  # a bug in writing a fix must not turn a lint into an internal error
        if os.environ.get("HBMLINT_TRACEBACK"):
            raise


def _complete_all(findings: list[Diagnostic], deployment: Deployment, context: FixContext) -> None:
    writer = getattr(deployment, "writer", None)
    mine = [
        f
        for f in findings
        if f.deployment == deployment.name
        and f.file == deployment.file
        and (f.code == "HBM010" or any(fix.changes and not fix.setting for fix in f.fixes))
    ]
    if writer is None or not mine:
        return
    source = context.source_for(deployment.file)
    locator = Locator(source, context.document)
    for finding in mine:
        if finding.code == "HBM010":
            if "speculative" not in finding.message:
                continue  # a removed flag with no replacement to write (--swap-space)
            migrated = _migration(writer, deployment, source, locator, context)
            if migrated is not None:
                finding.fixes = [migrated]
            continue
        finding.fixes = [
            _complete(fix, writer, deployment.file, source, locator, context)
            for fix in finding.fixes
        ]


def _complete(
    fix: Fix, writer: Any, file: str, source: Source, locator: Locator, context: FixContext
) -> Fix:
    if not fix.changes or fix.setting:
        return fix
    setting = writer.setting(fix.changes, locator)
    if setting is None:
        return fix
    message, effect = _worded(fix.message, setting)
    edits = writer.edits(fix.changes, source, locator)
    if edits and not context.reads_as(edits, fix.changes, file):
        edits = None
    return fix.replaced(message=message, setting=setting, effect=effect, edits=tuple(edits or ()))


def _field_note(text: str, start: int = 0) -> tuple[int, int] | None:
    """(start, end) of ``_FIELD_NOTE.search(text, start)``'s match, or None. Its \\s* takes
    the whitespace run before the first "(" where the rest matches: a match must meet "(" at
    its first character that is not whitespace, and an earlier "(" ends any earlier run."""
    found = _FIELD_NOTE_OPEN.search(text, start)
    if found is None:
        return None
    begin = found.start()
    while begin > start and text[begin - 1].isspace():  # \s: str.isspace's characters
        begin -= 1
    return begin, found.end()


def _without_notes(text: str, start: int) -> str:
    """``_FIELD_NOTE.sub("", text[start:])``: each match of the search on from the last."""
    kept = []
    note = _field_note(text, start)
    while note is not None:
        kept.append(text[start : note[0]])
        start = note[1]
        note = _field_note(text, start)
    kept.append(text[start:])
    return "".join(kept)


def _worded(text: str, setting: str) -> tuple[str, str]:
    """A fix's message with ``setting`` in place of its note of the setting in hbmlint's terms
    (or after it), and its effect: the message without those notes."""
    message = written = text
    # each note replaced where its search found it, as re.sub(..., count=1) replaces the
    # first match, not searched for again
    note = None
    flag = _FLAG_NOTE.search(message)
    if flag:  # "Lower --max-model-len (serving.max_model_len) to N."
        message = message[: flag.start()] + flag[1] + message[flag.end() :]  # sub's r"\1"
        message = f"{message.rstrip('.')} ({setting})."
    else:
        note = _field_note(message)
        if note and "\\" in setting:  # re.sub reads its escapes and group references
            message = _FIELD_NOTE.sub(f" ({setting})", message, count=1)
        elif note:
            message = f"{message[: note[0]]} ({setting}){message[note[1] :]}"
        else:
            message = f"{message.rstrip('.')} ({setting})."
    # the effect: the message without its field notes (without the flag's too)
    if note:  # those after the first: the pattern reads nothing before where it starts
        written = written[: note[0]] + _without_notes(written, note[1])
    elif flag:
        written = _without_notes(written, 0)
    # (else the search found no field note: nothing to take out)
    return message, " ".join(written.split())


def _migration(
    writer: Any, deployment: Deployment, source: Source, locator: Locator, context: FixContext
) -> Fix | None:
    """vLLM's removed speculative flags, replaced by --speculative-config."""
    found = writer.migration(source, locator) if hasattr(writer, "migration") else None
    if found is None:
        return None
    setting, keeps, edits = found
    if edits and not context.reads_as(edits, {}, deployment.file):
        edits = None
    if setting.startswith("remove "):
        message = f"Remove {setting[len('remove ') :]}: vLLM 0.8.3 and later do not take it"
        effect = "nothing the engine still does is lost"
    else:
        message = f"Use {setting} instead"
        effect = "the same drafter, written the way vLLM 0.8.3 and later read it"
    if not keeps:
        effect = (
            "the drafter moves to --speculative-config; the removed flags without a key there "
            "are dropped, which changes what the engine does"
        )
    return Fix(
        message,
        applicability=SAFE if keeps else UNSAFE,
        edits=tuple(edits or ()),
        setting=setting,
        effect=effect,
    )


# --- choosing and applying ---------------------------------------------------------------------


def chosen(findings: list[Diagnostic], unsafe: bool) -> list[Fix]:
    """The fix to apply for each finding: its first safe fix with edits; with ``unsafe``, its
    first fix with edits, safe or not (the rule lists its preferred fix first)."""
    picked = []
    for finding in findings:
        for fix in finding.fixes:
            if isinstance(fix, Fix) and fix.edits and (unsafe or fix.safe):
                picked.append(fix)
                break
    return picked


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    if a[0] == a[1] or b[0] == b[1]:  # an insertion touching another edit: order unclear
        return a[0] <= b[1] and b[0] <= a[1]
    return a[0] < b[1] and b[0] < a[1]


def apply(text: str, file: str, fixes: list[Fix]) -> tuple[str, list[Fix]]:
    """``text`` with as many of ``fixes`` applied as do not conflict, in order (the same fix
    offered by several findings counts once); returns the new text and the fixes applied."""
    source = Source(text, file)
    taken: list[tuple[int, int]] = []
    seen: set[tuple[Edit, ...]] = set()
    applied: list[Fix] = []
    edits: list[Edit] = []
    for fix in fixes:
        mine = tuple(e for e in fix.edits if e.file == file)
        if not mine or mine in seen:
            continue
        ranges = [
            (source.offset(e.line, e.column), source.offset(e.end_line, e.end_column)) for e in mine
        ]
        if any(_overlaps(r, t) for r in ranges for t in taken) or any(
            _overlaps(a, b) for i, a in enumerate(ranges) for b in ranges[i + 1 :]
        ):
            continue
        seen.add(mine)
        taken.extend(ranges)
        edits.extend(mine)
        applied.append(fix)
    return apply_edits(text, source, edits), applied
