"""Load YAML and keep the position of every node, so findings point at the line that causes them.

PyYAML's composer gives each node a start and end mark; we build the plain Python data with the
safe constructor (no tags that run code) and keep a map from each value's path to its span.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import field
from functools import lru_cache
from typing import Any

import yaml

from .records import dataclass

# The C loader is several times faster where libyaml is installed; same behaviour otherwise.
_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# A plain scalar's tag depends on its text alone (the safe loader has no path resolvers), and
# manifests write the same keys and values file after file: each text is matched against the
# implicit resolvers' patterns once a run, not once a node.
_PLAIN_TAGS: dict[str, str] = {}
_MAX_REMEMBERED = 8192
_MAX_REMEMBERED_LENGTH = 80

_ScalarNode, _SequenceNode, _MappingNode = yaml.ScalarNode, yaml.SequenceNode, yaml.MappingNode
_STR, _SEQ, _MAP = "tag:yaml.org,2002:str", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"


class _Loader(_BaseLoader):  # type: ignore[misc, valid-type]
    # The composer calls these for every node to track path resolvers; with none registered
    # (asserted below) PyYAML's return at once. Builtins that take the same arguments and do
    # nothing save a Python call a node, the most of composing a file in Python.
    descend_resolver = staticmethod(slice)  # (parent, index)
    ascend_resolver = staticmethod(tuple)  # ()

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        # libyaml's composer calls this for every node without an explicit tag. What
        # BaseResolver.resolve answers without path resolvers (asserted below), minus its
        # Python call for the nodes whose tag needs no pattern: a quoted scalar, a mapping, a
        # sequence take the default tag of their kind.
        if kind is _ScalarNode:
            if not implicit[0]:
                return _STR
            if type(value) is str:
                tag = _PLAIN_TAGS.get(value)
                if tag is None:
                    tag = super().resolve(kind, value, implicit)
                    if len(value) <= _MAX_REMEMBERED_LENGTH and len(_PLAIN_TAGS) < _MAX_REMEMBERED:
                        _PLAIN_TAGS[value] = tag
                return tag
        elif kind is _MappingNode:
            return _MAP
        elif kind is _SequenceNode:
            return _SEQ
        return super().resolve(kind, value, implicit)

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except _UNREADABLE_SCALAR:
            self.recursive_objects.pop(node, None)  # PyYAML's mark of a node being built
            value = self.constructed_objects[node] = _unreadable_scalar(self, node)
            return value


# What PyYAML's scalar constructors raise for a value their tag cannot hold: `!!int x`,
# `!!bool maybe`, `!!timestamp x`, a plain 2026-13-45, an integer of more than Python's 4,300
# digits.
_UNREADABLE_SCALAR = (ValueError, TypeError, KeyError, AttributeError, OverflowError)


def _unreadable_scalar(loader: Any, node: yaml.Node) -> str:
    """A plain scalar that merely looks like a date or a number is the string it is written as
    (how YAML 1.2 and Kubernetes' Go parser read it); an explicit tag the value cannot satisfy
    is an error at the value."""
    if (
        isinstance(node, yaml.ScalarNode)
        and not node.style  # plain: None from PyYAML's parser, "" from libyaml's
        and loader.resolve(yaml.ScalarNode, node.value, (True, False)) == node.tag
    ):
        return node.value
    shown = node.value if len(str(node.value)) <= 40 else f"{str(node.value)[:37]}..."
    kind = str(node.tag).rsplit(":", 1)[-1]
    raise YamlLoadError(
        f"YAML value {shown!r} is not a valid !!{kind}",
        Span.of_node(node),
    )


# a tag from the text alone holds only without path resolvers, and the defaults are these
assert not _Loader.yaml_path_resolvers
assert (_Loader.DEFAULT_SCALAR_TAG, _Loader.DEFAULT_SEQUENCE_TAG, _Loader.DEFAULT_MAPPING_TAG) == (
    _STR,
    _SEQ,
    _MAP,
)

# A document that expands, through aliases, to more nodes than this is refused ("billion laughs").
MAX_EXPANDED_NODES = 1_000_000
# Nor one nested deeper than this: the readers and rules walk data recursively (two frames a
# level, under Python's limit of 1,000). A Kubernetes object nests some twenty levels, a CRD's
# schema (properties within properties) a few dozen.
MAX_DEPTH = 200

Path = tuple[Any, ...]


@dataclass(frozen=True)
class Span:
    """A region of a file, 1-based lines and columns; the end column is exclusive."""

    line: int
    column: int
    end_line: int | None = None
    end_column: int | None = None

    @classmethod
    def of_node(cls, node: yaml.Node) -> Span:
        return _span_of(node)

    @classmethod
    def of_mark(cls, mark: Any) -> Span:
        if mark is None:
            return cls(1, 1)
        return cls(mark.line + 1, mark.column + 1)


def _span_of(node: yaml.Node) -> Span:
    """Span.of_node. Made without the frozen dataclass's __init__ (four object.__setattr__
    calls): one span a node, every file. The same fields in the same order, so the same
    equality, hash and repr; stored item by item, half the cost of __dict__.update(**fields)."""
    start, end = node.start_mark, node.end_mark
    span = object.__new__(Span)
    fields = span.__dict__
    fields["line"] = start.line + 1
    fields["column"] = start.column + 1
    fields["end_line"] = end.line + 1
    fields["end_column"] = end.column + 1
    return span


@dataclass
class YamlDocument:
    """One document of a YAML file: its data and where each value sits."""

    data: Any
    index: int
    spans: dict[Path, Span] = field(default_factory=dict)
    key_spans: dict[Path, Span] = field(default_factory=dict)
    # The whole file's text, so format adapters can locate words inside a scalar (a shell
    # script in a block scalar) on their own line.
    text: str = ""

    def span(self, path: Path | str) -> Span:
        """The span of the value at ``path`` (a tuple or a dotted string), or of its nearest
        ancestor that exists, so a missing field points at the mapping that should hold it."""
        spans = self.spans
        if not spans:  # read without positions (fix verification): every path is the start
            return _START
        found = _recorded(spans, path)
        if found is not None:
            return found
        path = _normalise(path)
        while path and path not in spans:
            path = path[:-1]
        found = spans.get(path)
        return _START if found is None else found

    def key_span(self, path: Path | str) -> Span:
        """The span of the mapping key at ``path`` where there is one, else of its value."""
        found = _recorded(self.key_spans, path)
        if found is not None:
            return found
        path = _normalise(path)
        return self.key_spans.get(path) or self.span(path)


# The start of a file, for every path of a document read without positions: one object, as a
# Span is frozen (a reader asks for a dozen spans a container, and fix verification reads each
# edited file without positions)
_START = Span(1, 1)


def _recorded(spans: dict[Path, Span], path: Path | str) -> Span | None:
    """The span recorded at ``path`` as it is given, without normalising it first: readers
    build their paths from the keys (strings) and indices (ints) the walk records, and ask
    for a dozen spans a document. A tuple equal to a recorded path normalises to it; a float
    equal to an index (1.0 == 1) finds that index here, as _normalised's cache finds it once
    it has met the index (no reader indexes with a float). None where no span is recorded at
    ``path`` as given, for _normalise to decide."""
    if type(path) is not tuple:
        return None  # a dotted string
    try:
        return spans.get(path)
    except TypeError:  # an unhashable part
        return None


def _normalise(path: Path | str) -> Path:
    try:
        return _normalised(path)  # rules and readers ask for the same few paths in every file
    except TypeError:  # an unhashable part
        return _normalise_now(path)


@lru_cache(maxsize=4096)
def _normalised(path: Path | str) -> Path:
    return _normalise_now(path)


def _normalise_now(path: Path | str) -> Path:
    if isinstance(path, str):
        path = tuple(int(part) if part.isdecimal() else part for part in path.split(".") if part)
    return tuple(p if isinstance(p, int) else str(p) for p in path)


def key_in_block(lines: list[str], block: Span, key: str) -> Span:
    """Where ``key:`` is written inside a literal block of YAML held in a string (a ConfigMap's
    config file, an engine-args block), searching the 500 lines from the block's start; the
    block's start when it is not found."""
    for number in range(block.line, min(len(lines), block.line + 500) + 1):
        text = lines[number - 1]
        if text.strip().startswith(f"{key}:"):
            return Span(number, text.index(key) + 1)
    return block


def load_plain(text: str) -> Any:
    """One YAML document's data without positions (yaml.safe_load with libyaml where it is
    installed: the pure-Python loader costs several times more, and fixes call this per word).
    A text with aliases is measured first, as load_documents measures a file: an alias bomb
    in a config embedded in a ConfigMap is a YAMLError, not a hang."""
    if "*" not in text:
        return yaml.load(text, Loader=_Loader)
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        try:
            _check_expansion(node)
        except YamlLoadError as exc:
            raise yaml.YAMLError(exc.message) from None
        return loader.construct_document(node)
    finally:
        loader.dispose()


class YamlLoadError(Exception):
    """The YAML could not be parsed or constructed; ``span`` says where."""

    def __init__(self, message: str, span: Span):
        super().__init__(message)
        self.message = message
        self.span = span


# the line breaks PyYAML counts lines by
_LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


def _within(error: YamlLoadError, text: str) -> YamlLoadError:
    """The error, at the end of the last line where PyYAML puts it past that line (the end of
    a file that has no final line break, as a truncated file has none; after a final line
    break, the empty line an editor shows is a place)."""
    lines = _LINE_BREAK.split(text)
    if error.span.line > len(lines):
        error.span = Span(len(lines), len(lines[-1]) + 1)
    return error


def _offset_span(text: str, offset: int) -> Span:
    """Where the character at ``offset`` sits; libyaml counts the offset in UTF-8 bytes."""
    if not text.isascii():
        offset = len(text.encode("utf-8", "surrogatepass")[:offset].decode("utf-8", "ignore"))
    lines = _LINE_BREAK.split(text[:offset])  # as PyYAML counts lines (CR too)
    return Span(len(lines), len(lines[-1]) + 1)


def load_documents(text: str) -> tuple[list[YamlDocument], YamlLoadError | None]:
    """Parse every document of ``text``. Documents before a syntax error are still returned,
    with the error, so a broken second document does not hide findings in the first."""
    documents, error = _load_documents(text)
    error = None if error is None else _within(error, text)
    # an ASCII text (almost every manifest) holds none of these breaks: one C scan, not the
    # regex's charset test of every character
    if not text.isascii() and _UNICODE_BREAK.search(text):
        _to_editor_lines(text, documents, error)
    return documents, error


# PyYAML (as libyaml and go-yaml) also breaks lines at NEL, LS and PS; editors, diff views and
# the shell locator count only CR and LF, so a finding after one would sit lines too low
_UNICODE_BREAK = re.compile("[\x85\u2028\u2029]")
_EDITOR_BREAK = re.compile("\r\n|[\r\n]")


def _to_editor_lines(text: str, documents: list[YamlDocument], error: YamlLoadError | None) -> None:
    """Every span of ``documents`` (and ``error``), counted in PyYAML's lines, moved to the line
    and column an editor shows for the same character."""
    yaml_starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]
    editor_starts = [0] + [m.end() for m in _EDITOR_BREAK.finditer(text)]

    def place(line: int, column: int) -> tuple[int, int]:
        offset = yaml_starts[min(line, len(yaml_starts)) - 1] + column - 1
        row = bisect.bisect_right(editor_starts, offset)
        return row, offset - editor_starts[row - 1] + 1

    def moved(span: Span) -> Span:
        line, column = place(span.line, span.column)
        if span.end_line is None or span.end_column is None:
            return Span(line, column)
        return Span(line, column, *place(span.end_line, span.end_column))

    for document in documents:
        document.spans = {path: moved(span) for path, span in document.spans.items()}
        document.key_spans = {path: moved(span) for path, span in document.key_spans.items()}
    if error is not None:
        error.span = moved(error.span)


def _load_documents(text: str) -> tuple[list[YamlDocument], YamlLoadError | None]:
    documents: list[YamlDocument] = []
    loader = _Loader(text)
    # Without aliases or merge keys, the node graph is a tree: one walk builds the data of the
    # standard types and records the spans (PyYAML's constructor and a second walk for the
    # spans cost three times as much). Anything else takes PyYAML's constructor.
    try:
        index = 0
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                break
            if "*" in text or len(text) > MAX_EXPANDED_NODES:
                # only an alias (``*name``) makes a document expand past its own text's size
                _check_expansion(node)
            document = YamlDocument(data=None, index=index, text=text)
            built = _build(loader, node, (), document, set() if "*" in text else None)
            if built is _Unbuilt:
                document.spans.clear()
                document.key_spans.clear()
                document.data = loader.construct_document(node)
                _record_spans(node, (), document, set())
            else:
                document.data = built
            documents.append(document)
            index += 1
    except yaml.constructor.ConstructorError as exc:
        # Typically a !!python/... tag: hbmlint reads plain data and never builds objects.
        return documents, YamlLoadError(
            f"YAML tag not allowed: {exc.problem}; manifests may only hold plain data",
            Span.of_mark(exc.problem_mark),
        )
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or str(exc)
        if exc.context and exc.problem:
            problem = f"{exc.problem} ({exc.context})"
        return documents, YamlLoadError(f"YAML syntax error: {problem}", Span.of_mark(mark))
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow (NUL, ESC)
        code = exc.character if isinstance(exc.character, int) else ord(exc.character)
        return documents, YamlLoadError(
            f"YAML error: unacceptable character #x{code:04x}: {exc.reason}",
            _offset_span(text, exc.position),
        )
    except yaml.YAMLError as exc:
        return documents, YamlLoadError(f"YAML error: {exc}", Span(1, 1))
    except YamlLoadError as exc:
        return documents, exc
    except RecursionError:
        return documents, YamlLoadError("YAML document is nested too deeply to read", Span(1, 1))
    finally:
        loader.dispose()
    return documents, None


def load_documents_without_positions(text: str) -> list[YamlDocument] | None:
    """Every document's data, without the spans (what fix verification compares: the settings a
    reader builds, not where they sit); None where the text does not load. The same walk as
    load_documents, recording no span: the most of reading a file."""
    if "*" in text or len(text) > MAX_EXPANDED_NODES:
        documents, error = load_documents(text)  # aliases: the expansion check first
        return None if error is not None else documents
    documents: list[YamlDocument] = []
    loader = _Loader(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                break
            data = _build(loader, node, (), None, None)
            if data is _Unbuilt:
                data = loader.construct_document(node)
            documents.append(YamlDocument(data=data, index=len(documents), text=text))
    except (yaml.YAMLError, YamlLoadError, RecursionError):
        return None
    finally:
        loader.dispose()
    return documents


def _check_expansion(root: yaml.Node) -> None:
    """Refuse documents whose aliases expand to an absurd size before anything walks them."""
    sizes: dict[int, int] = {}
    measuring: set[int] = set()

    def size(node: yaml.Node) -> int:
        key = id(node)
        if key in measuring:
            # an alias inside its own anchor: data that contains itself, which every walk
            # over it refuses, as go-yaml (Kubernetes' parser) does: "anchor 'a' value contains
            # itself" (go-yaml/yaml decode_test.go)
            raise YamlLoadError(
                "YAML anchor contains an alias to itself; refusing to read it", Span.of_node(node)
            )
        if key in sizes:
            return sizes[key]
        measuring.add(key)
        total = 1
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                total += size(k) + size(v)
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                total += size(item)
        measuring.discard(key)
        sizes[key] = total
        if total > MAX_EXPANDED_NODES:
            raise YamlLoadError(
                f"YAML document expands to more than {MAX_EXPANDED_NODES:,} nodes through "
                "aliases; refusing to read it",
                Span.of_node(node),
            )
        return total

    size(root)


class _Unbuilt:
    """_build's answer for a document PyYAML's constructor must build."""


_MERGE = "tag:yaml.org,2002:merge"


def _build(
    loader: Any, node: yaml.Node, path: Path, doc: YamlDocument | None, seen: set[int] | None
) -> Any:
    """The data of ``node`` as PyYAML's safe constructor builds it, with each value's span (and
    each key's) recorded in ``doc`` as _record_spans records them (none without a ``doc``);
    _Unbuilt where it would differ: an alias (a node met twice), a merge key, a tag without
    a safe constructor. ``seen``: the nodes met so far, None where the text holds no alias (no
    ``*``), so none can be met twice (the common case: this walk is most of reading a file)."""
    if doc is None:
        return _walk(loader, node, path, None, None, seen)
    return _walk(loader, node, path, doc.spans, doc.key_spans, seen)


def _walk(
    loader: Any,
    node: yaml.Node,
    path: Path,
    spans: dict[Path, Span] | None,
    key_spans: dict[Path, Span] | None,
    seen: set[int] | None,
) -> Any:
    """_build's walk, with the document's span maps (None: no spans, and ``path`` stays ())."""
    if seen is not None:
        if id(node) in seen:
            return _Unbuilt
        seen.add(id(node))
    if spans is not None:
        spans[path] = _span_of(node)
    kind = type(node)
    if kind is _ScalarNode:
        return node.value if node.tag == _STR else _scalar(loader, node)
    if spans is not None and len(path) >= MAX_DEPTH:
        raise _too_deep(node)
    if kind is _SequenceNode and node.tag == _SEQ:
        items = []
        for i, item in enumerate(node.value):
            child = path if spans is None else (*path, i)
            if seen is None and type(item) is _ScalarNode and item.tag == _STR:
                # a string item (most leaves): its value and span without a call of this walk
                if spans is not None:
                    spans[child] = _span_of(item)
                items.append(item.value)
                continue
            value = _walk(loader, item, child, spans, key_spans, seen)
            if value is _Unbuilt:
                return _Unbuilt
            items.append(value)
        return items
    if kind is _MappingNode and node.tag == _MAP:
        mapping: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if type(key_node) is not _ScalarNode or key_node.tag == _MERGE:
                return _Unbuilt  # a complex or merge key: PyYAML's constructor handles it
            if seen is not None:
                if id(key_node) in seen:
                    return _Unbuilt
                seen.add(id(key_node))
            key = key_node.value if key_node.tag == _STR else _scalar(loader, key_node)
            if key is _Unbuilt:
                return _Unbuilt
            if key_spans is None:
                child = path
            else:
                child = (*path, str(key_node.value))
                key_spans[child] = _span_of(key_node)
            if seen is None and type(value_node) is _ScalarNode and value_node.tag == _STR:
                if spans is not None:  # as for a string item above
                    spans[child] = _span_of(value_node)
                mapping[key] = value_node.value
                continue
            value = _walk(loader, value_node, child, spans, key_spans, seen)
            if value is _Unbuilt:
                return _Unbuilt
            mapping[key] = value
        return mapping
    return _Unbuilt


# Plain scalars of these tags are built from their text alone (SafeConstructor's int, float,
# bool and null constructors read nothing else), and manifests write the same few numbers file
# after file: each (tag, text) is built once a run, the value shared (ints, floats, bools and
# None are immutable). Bounded as _PLAIN_TAGS is.
_BUILT: dict[str, dict[str, Any]] = {
    f"tag:yaml.org,2002:{kind}": {} for kind in ("int", "float", "bool", "null")
}


def _scalar(loader: Any, node: yaml.Node) -> Any:
    """A scalar of a tag other than str, as the safe constructor builds it; _Unbuilt for a tag
    it has no constructor for or a text its constructor refuses (PyYAML's constructor then
    builds the document, through _Loader.construct_object)."""
    built = _BUILT.get(node.tag)
    if built is not None:
        value = built.get(node.value, _Unbuilt)
        if value is not _Unbuilt:
            return value
    constructor = loader.yaml_constructors.get(node.tag)
    if constructor is None:
        return _Unbuilt
    try:
        value = constructor(loader, node)
    except _UNREADABLE_SCALAR:
        return _Unbuilt
    if (
        built is not None
        and len(node.value) <= _MAX_REMEMBERED_LENGTH
        and len(built) < _MAX_REMEMBERED
    ):
        built[node.value] = value
    return value


def _too_deep(node: yaml.Node) -> YamlLoadError:
    return YamlLoadError(
        f"YAML document is nested more than {MAX_DEPTH} levels deep; refusing to read it",
        Span.of_node(node),
    )


def _record_spans(node: yaml.Node, path: Path, doc: YamlDocument, seen: set[int]) -> None:
    # Later keys overwrite earlier ones, as in the data: a duplicate key's last value wins, and
    # a key of the mapping itself wins over one merged in with `<<` (merged pairs come first).
    doc.spans[path] = Span.of_node(node)
    if id(node) in seen:  # an alias to a node already walked: its children are recorded
        return
    if len(path) >= MAX_DEPTH and not isinstance(node, yaml.ScalarNode):
        raise _too_deep(node)
    seen.add(id(node))
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else repr(key_node.value)
            child = (*path, str(key))
            doc.key_spans[child] = Span.of_node(key_node)
            _record_spans(value_node, child, doc, seen)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _record_spans(item, (*path, i), doc, seen)
