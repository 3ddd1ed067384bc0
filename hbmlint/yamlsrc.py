"""Load YAML and keep the position of every node, so findings point at the line that causes them.

PyYAML's composer gives each node a start and end mark; we build the plain Python data with the
safe constructor (no tags that run code) and keep a map from each value's path to its span.
"""

from __future__ import annotations

import bisect
from dataclasses import field
from functools import lru_cache
from typing import Any

import yaml

from .lazyre import LazyPattern
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
            # a text met before (a tag is never empty): one lookup for most plain scalars
            return _PLAIN_TAGS.get(value) or self._plain_tag(value, implicit)
        elif kind is _MappingNode:
            return _MAP
        elif kind is _SequenceNode:
            return _SEQ
        return _BaseLoader.resolve(self, kind, value, implicit)

    def _plain_tag(self, value: Any, implicit: Any) -> str:
        """The implicit resolvers' tag for a plain scalar's text (PyYAML's composers pass str)
        not remembered yet; remembered where it is short and there is room."""
        tag = _BaseLoader.resolve(self, _ScalarNode, value, implicit)
        if (
            type(value) is str
            and len(value) <= _MAX_REMEMBERED_LENGTH
            and len(_PLAIN_TAGS) < _MAX_REMEMBERED
        ):
            _PLAIN_TAGS[value] = tag
        return tag

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
    spans: dict[Path, Span] = field(default_factory=dict)  # see _get_spans: filled on demand
    key_spans: dict[Path, Span] = field(default_factory=dict)
    # The whole file's text, so format adapters can locate words inside a scalar (a shell
    # script in a block scalar) on their own line.
    text: str = ""

    # The composed node tree ``spans`` and ``key_spans`` are recorded from, until they are
    # first asked for (then None). A reader asks for a dozen positions of a document of a
    # hundred nodes: span() and key_span() find those in the tree, and the two maps (a Span,
    # a path and two dict entries a node, a third of reading a file) are made only for a
    # caller that uses them whole. Per document: it goes with the document. (Not a field.)
    _tree = None

    def span(self, path: Path | str) -> Span:
        """The span of the value at ``path`` (a tuple or a dotted string), or of its nearest
        ancestor that exists, so a missing field points at the mapping that should hold it."""
        tree = self._tree
        if tree is not None:
            try:
                pair = tree.pair(path)  # found as given (most readers' paths), else an ancestor
                return _span_of((pair or tree.ancestor(path))[1])
            except _RepeatedKey:  # as recorded: a path's value is its last key's
                _record_all(self)
        spans = self._spans
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

    def item_spans(self, path: Path) -> list[Span] | None:
        """``span((*path, i))`` for each item of the sequence at ``path``, from one search of
        the tree (a container's command line is a dozen words, each asked for in turn); None
        where that is not known at once (positions recorded, no sequence there, a subclass
        placing values its own way): ask span() for each item then."""
        tree = self._tree
        if tree is None or type(self).span is not YamlDocument.span:
            return None
        try:
            pair = tree.pair(path)
        except _RepeatedKey:
            return None
        if pair is None or type(pair[1]) is not _SequenceNode:
            return None
        return [_span_of(node) for node in pair[1].value]

    def key_span(self, path: Path | str) -> Span:
        """The span of the mapping key at ``path`` where there is one, else of its value."""
        tree = self._tree
        if tree is not None:
            try:
                pair = tree.pair(path)
                if pair is None or pair[0] is None:
                    normalised = _normalise(path)
                    pair = tree.pair(normalised)
                    if pair is None or pair[0] is None:
                        return self.span(normalised)
                return _span_of(pair[0])
            except _RepeatedKey:  # as recorded: a path's key is its last one
                _record_all(self)
        found = _recorded(self._key_spans, path)
        if found is not None:
            return found
        path = _normalise(path)
        return self._key_spans.get(path) or self.span(path)

    def field_spans(self, top: str) -> list[tuple[Path, Span]]:
        """Every path below the top-level key ``top`` (itself included), in the order the
        document writes them, with where a finding about it points: a scalar's (or an empty
        collection's) value, a mapping's or sequence's key where it has one."""
        tree = self._tree
        if tree is not None and type(tree.root) is _MappingNode:
            found: list[tuple[Path, Span]] = []
            at = [pair for pair in tree.root.value if pair[0].value == top]
            try:
                if len(at) == 1:
                    _field_spans(at[0][0], at[0][1], (top,), found)
                    return found
            except _RepeatedKey:
                pass  # the paths of a repeated key hold the union of its values: as recorded
        spans = self.spans
        containers = {key[:-1] for key in spans}
        return [
            (key, self.key_span(key) if key in containers else span)
            for key, span in spans.items()
            if key and key[0] == top
        ]

    # -- what a fix asks of a few paths and lines, from the tree while the maps are unrecorded
    # (recording every node's span was a tenth of writing and checking a file's fixes)

    def recorded(self, path: Path) -> tuple[Span | None, Span | None]:
        """``(key_spans.get(path), spans.get(path))`` for a tuple ``path``."""
        tree = self._tree
        if tree is not None and type(self) is YamlDocument:
            try:
                pair = tree.pair(path)
            except (_RepeatedKey, TypeError):  # as recorded: a path's span is its last key's
                _record_all(self)
            else:
                if pair is None:
                    return None, None
                key, node = pair
                return (None if key is None else _span_of(key)), _span_of(node)
        return self.key_spans.get(path), self.spans.get(path)

    def keys_below(self, path: Path) -> list[Path]:
        """``[p for p in key_spans if p[:-1] == path]``: the paths of the keys of the mapping
        at ``path``, in the order the document writes them."""
        tree = self._tree
        if tree is not None and type(self) is YamlDocument:
            try:
                pair = tree.pair(path)
                if pair is None or type(pair[1]) is not _MappingNode:
                    return []
                tree.pairs_by_key(pair[1])  # _RepeatedKey where a key is written twice
                return [(*path, key.value) for key, _ in pair[1].value]
            except (_RepeatedKey, TypeError):
                # a repeated key (or one not a scalar): the paths as recorded
                _record_all(self)
        return [p for p in self.key_spans if p[:-1] == path]

    def starting_on(self, line: int) -> tuple[list[tuple[Path, Span]], list[tuple[Path, Span]]]:
        """The values and the keys whose spans start on ``line`` (1-based), with their paths,
        each in the order of ``spans`` and ``key_spans`` (lists shared by the callers: not to
        be changed); from the tree, only the nodes around that line are visited."""
        tree = self._tree
        if tree is not None and type(self) is YamlDocument:
            if tree.lines is None:
                tree.lines = {}
            elif line in tree.lines:
                return tree.lines[line]
            values: list[tuple[Path, Span]] = []
            keys: list[tuple[Path, Span]] = []
            root = tree.root
            try:
                if root.start_mark.line < line <= root.end_mark.line + 1:
                    _starting_on(tree, root, (), line - 1, values, keys)
                tree.lines[line] = values, keys
                return values, keys
            except (_RepeatedKey, TypeError):
                # the paths of a repeated key hold its last value (a key not a scalar is
                # written as its repr): as recorded
                _record_all(self)
        return (
            [(p, span) for p, span in self.spans.items() if span.line == line],
            [(p, span) for p, span in self.key_spans.items() if span.line == line],
        )


def _starting_on(
    tree: _Tree,
    node: yaml.Node,
    path: Path,
    line: int,
    values: list[tuple[Path, Span]],
    keys: list[tuple[Path, Span]],
) -> None:
    """YamlDocument.starting_on's walk below ``node``, whose lines hold ``line`` (0-based, as
    the marks count): in the order _record_nodes records (the node, then each key before its
    value), into the nodes that hold the line."""
    if node.start_mark.line == line:
        values.append((path, _span_of(node)))
    kind = type(node)
    if kind is _MappingNode:
        tree.pairs_by_key(node)  # _RepeatedKey where a key is written twice
        for key, value in node.value:
            if key.start_mark.line > line:
                break  # the pairs after it start later still
            if key.start_mark.line == line:
                keys.append(((*path, key.value), _span_of(key)))
            if value.start_mark.line <= line <= value.end_mark.line:
                _starting_on(tree, value, (*path, key.value), line, values, keys)
    elif kind is _SequenceNode:
        for index, item in enumerate(node.value):
            if item.start_mark.line > line:
                break
            if line <= item.end_mark.line:
                _starting_on(tree, item, (*path, index), line, values, keys)


def _get_spans(document: YamlDocument) -> dict[Path, Span]:
    if document._tree is not None:
        _record_all(document)
    return document._spans


def _get_key_spans(document: YamlDocument) -> dict[Path, Span]:
    if document._tree is not None:
        _record_all(document)
    return document._key_spans


def _set_spans(document: YamlDocument, spans: dict[Path, Span]) -> None:
    if document._tree is not None:
        _record_all(document)  # the other map keeps what the tree says
    document._spans = spans


def _set_key_spans(document: YamlDocument, key_spans: dict[Path, Span]) -> None:
    if document._tree is not None:
        _record_all(document)
    document._key_spans = key_spans


# ``spans`` and ``key_spans`` stay the dataclass's fields (the constructor takes them, equality
# and replace() read them) and read as dicts; behind them, the maps are recorded from the tree
# when first read or replaced.
YamlDocument.spans = property(_get_spans, _set_spans)  # type: ignore[assignment, method-assign]
YamlDocument.key_spans = property(_get_key_spans, _set_key_spans)  # type: ignore[assignment, method-assign]


def _record_all(document: YamlDocument) -> None:
    """Record the span of every value and key of the document's tree, as paths, with the walk
    that records a document built by PyYAML's constructor at load (_record_spans): the same
    entries in the same order as if they had been recorded at load."""
    tree, document._tree = document._tree, None
    document._spans, document._key_spans = {}, {}
    _record_spans(tree.root, (), document, set())


class _RepeatedKey(Exception):
    """A mapping writes a key twice: its paths are not one node each."""


def _field_spans(
    key: yaml.Node | None, node: yaml.Node, path: Path, found: list[tuple[Path, Span]]
) -> None:
    """YamlDocument.field_spans' walk of a tree whose mappings write each key once."""
    kind = type(node)
    if kind is _MappingNode:
        pairs = node.value
        found.append((path, _span_of(key if pairs and key is not None else node)))
        if len({key_node.value for key_node, _ in pairs}) != len(pairs):
            raise _RepeatedKey
        for key_node, value_node in pairs:
            if type(value_node) is _ScalarNode:  # a leaf, as the last branch records it
                found.append(((*path, str(key_node.value)), _span_of(value_node)))
            else:
                _field_spans(key_node, value_node, (*path, str(key_node.value)), found)
    elif kind is _SequenceNode:
        items = node.value
        found.append((path, _span_of(key if items and key is not None else node)))
        for index, item in enumerate(items):
            _field_spans(None, item, (*path, index), found)
    else:
        found.append((path, _span_of(node)))


# the most pairs a mapping of a tree has for _Tree._child to search its keys one by one
_SCANNED = 12


class _Tree:
    """A document's composed nodes (a tree: the walk met no node twice), searched by path as
    the recorded spans' dict answers, for a document whose mappings write each key once
    (_RepeatedKey where one does not: then the spans are recorded, and looked up as they are
    for any other document)."""

    __slots__ = ("root", "_at", "_keys", "lines")

    def __init__(self, root: yaml.Node):
        self.root = root
        # the (key, value) nodes found at each path asked for (None: nothing there); a reader
        # asks for the words of one list or the fields of one container in turn, so a path's
        # parent is usually found already
        self._at: dict[Path, tuple[yaml.Node | None, yaml.Node] | None] = {(): (None, root)}
        # each searched mapping's pairs by their key's text, by the mapping's id (the tree
        # keeps every node alive while this lives)
        self._keys: dict[int, dict[str, tuple[yaml.Node, yaml.Node]]] = {}
        # YamlDocument.starting_on's answers by line, made when first asked (a fix's writer
        # and its check ask about the same lines)
        self.lines: dict[int, tuple[list, list]] | None = None

    def pair(self, path: Path | str) -> tuple[yaml.Node | None, yaml.Node] | None:
        """The (key, value) nodes recorded at ``path`` exactly as given (the key None for a
        sequence's item and the root), or None: what the spans' dict lookup finds."""
        if type(path) is not tuple:
            return None  # a dotted string: normalised first
        at = self._at
        try:
            found = at.get(path, at)  # a path equal to one asked for (1.0 == 1), as a dict
        except TypeError:  # an unhashable part: no dict holds it
            return None
        if found is not at:
            return found
        parent = self.pair(path[:-1])
        found = None if parent is None else self._child(parent[1], path[-1])
        at[path] = found
        return found

    def _child(self, node: yaml.Node, part: Any) -> tuple[yaml.Node | None, yaml.Node] | None:
        kind = type(node)
        if kind is _MappingNode:
            pairs = node.value
            if type(part) is not str or len(pairs) > _SCANNED:
                # only a str equals a key's text, as in the dict
                return self.pairs_by_key(node).get(part)
            # a small mapping (a container, metadata) is searched where its keys are, without
            # making its dict: a reader asks for a few of its keys, each path once (self._at)
            found = None
            for pair in pairs:
                if pair[0].value == part:
                    if found is not None:
                        raise _RepeatedKey  # as recorded: the path's value is its last key's
                    found = pair
            return found
        if kind is _SequenceNode:
            items = node.value
            if type(part) is int:
                return (None, items[part]) if 0 <= part < len(items) else None
            if isinstance(part, str):
                return None
            for index in range(len(items)):  # a bool or a float equal to an index, as a dict
                if part == index:
                    return None, items[index]
        return None

    def pairs_by_key(self, node: yaml.MappingNode) -> dict[str, tuple[yaml.Node, yaml.Node]]:
        """The (key, value) pairs of a mapping of the tree by their key's text, made once;
        _RepeatedKey where the mapping writes a key twice."""
        keys = self._keys.get(id(node))
        if keys is None:
            keys = {pair[0].value: pair for pair in node.value}
            if len(keys) != len(node.value):
                raise _RepeatedKey
            self._keys[id(node)] = keys
        return keys

    def ancestor(self, path: Path | str) -> tuple[yaml.Node | None, yaml.Node]:
        """The (key, value) nodes at ``path``, or at its nearest ancestor that exists, as the
        recorded spans answer: the path as given, then normalised and shortened."""
        pair = self.pair(path)
        if pair is not None:
            return pair
        path = _normalise(path)
        while path:
            pair = self.pair(path)
            if pair is not None:
                return pair
            path = path[:-1]
        return None, self.root


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
_LINE_BREAK = LazyPattern("\r\n|[\r\n\x85\u2028\u2029]")


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
_UNICODE_BREAK = LazyPattern("[\x85\u2028\u2029]")
_EDITOR_BREAK = LazyPattern("\r\n|[\r\n]")


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
    # standard types, and the tree answers for the positions (PyYAML's constructor and a
    # second walk for the spans cost three times as much). Anything else takes PyYAML's
    # constructor, and its spans are recorded at once.
    try:
        index = 0
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                break
            if "*" in text or len(text) > MAX_EXPANDED_NODES:
                # only an alias (``*name``) makes a document expand past its own text's size
                _check_expansion(node)
            built = _walk(loader, node, MAX_DEPTH, set() if "*" in text else None)
            if built is _Unbuilt:
                document = _document(loader.construct_document(node), index, text)
                _record_spans(node, (), document, set())
            else:
                document = _document(built, index, text)
                document._tree = _Tree(node)  # the walk met no node twice: spans on demand
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
    load_documents, keeping no node tree."""
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
            # no depth limit but Python's (a RecursionError), as before positions were lazy
            data = _walk(loader, node, _UNLIMITED_DEPTH, None)
            if data is _Unbuilt:
                data = loader.construct_document(node)
            documents.append(_document(data, len(documents), text))
    except (yaml.YAMLError, YamlLoadError, RecursionError):
        return None
    finally:
        loader.dispose()
    return documents


_UNLIMITED_DEPTH = 1 << 62


def _document(data: Any, index: int, text: str) -> YamlDocument:
    """``YamlDocument(data=data, index=index, text=text)``, made without the dataclass's
    __init__ (two calls of the spans' property setters, two dict factories): a document or
    more a file, and again for each text fix verification reads. The same attributes, in the
    same order (tests/test_yaml_document_made.py)."""
    document = object.__new__(YamlDocument)
    attributes = document.__dict__
    attributes["data"] = data
    attributes["index"] = index
    attributes["_spans"] = {}
    attributes["_key_spans"] = {}
    attributes["text"] = text
    return document


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
    """_walk's answer for a document PyYAML's constructor must build."""


_MERGE = "tag:yaml.org,2002:merge"


def _walk(loader: Any, node: yaml.Node, room: int, seen: set[int] | None) -> Any:
    """The data of ``node`` as PyYAML's safe constructor builds it; _Unbuilt where it would
    differ: an alias (a node met twice), a merge key, a tag without a safe constructor.
    ``room``: how many levels of collections may still nest below (MAX_DEPTH at the root of a
    document read with positions: deeper is a YamlLoadError). ``seen``: the nodes met so far,
    None where the text holds no alias (no ``*``), so none can be met twice (the common case:
    this walk is most of reading a file; _walk_tree walks such a document)."""
    if seen is None:
        return _walk_tree(loader, node, room)
    if id(node) in seen:
        return _Unbuilt
    seen.add(id(node))
    kind = type(node)
    if kind is _ScalarNode:
        return node.value if node.tag == _STR else _scalar(loader, node)
    if room <= 0:
        raise _too_deep(node)
    room -= 1
    if kind is _SequenceNode and node.tag == _SEQ:
        items = []
        for item in node.value:
            value = _walk(loader, item, room, seen)
            if value is _Unbuilt:
                return _Unbuilt
            items.append(value)
        return items
    if kind is _MappingNode and node.tag == _MAP:
        mapping: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if type(key_node) is not _ScalarNode or key_node.tag == _MERGE:
                return _Unbuilt  # a complex or merge key: PyYAML's constructor handles it
            if id(key_node) in seen:
                return _Unbuilt
            seen.add(id(key_node))
            key = key_node.value if key_node.tag == _STR else _scalar(loader, key_node)
            if key is _Unbuilt:
                return _Unbuilt
            value = _walk(loader, value_node, room, seen)
            if value is _Unbuilt:
                return _Unbuilt
            mapping[key] = value
        return mapping
    return _Unbuilt


def _walk_tree(loader: Any, node: yaml.Node, room: int) -> Any:
    """_walk of a document whose text holds no alias, so that no node is met twice (most
    documents): no record of the nodes met, and a scalar item or value of a mapping built
    here, its value looked up in _BUILT (counts and sizes), without a call of this walk."""
    kind = type(node)
    if kind is _ScalarNode:
        return node.value if node.tag == _STR else _scalar(loader, node)
    if room <= 0:
        raise _too_deep(node)
    room -= 1
    if kind is _MappingNode:
        if node.tag != _MAP:
            return _Unbuilt
        mapping: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if type(key_node) is not _ScalarNode:
                return _Unbuilt  # a complex key: PyYAML's constructor handles it
            tag = key_node.tag
            if tag == _STR:
                key = key_node.value
            elif tag == _MERGE:
                return _Unbuilt  # a merge key: as above
            else:
                key = _scalar(loader, key_node)
                if key is _Unbuilt:
                    return _Unbuilt
            if type(value_node) is _ScalarNode:
                tag = value_node.tag
                if tag == _STR:
                    mapping[key] = value_node.value  # most leaves
                    continue
                built = _BUILT.get(tag)
                value = _Unbuilt if built is None else built.get(value_node.value, _Unbuilt)
                if value is _Unbuilt:
                    value = _scalar(loader, value_node)
            else:
                value = _walk_tree(loader, value_node, room)
            if value is _Unbuilt:
                return _Unbuilt
            mapping[key] = value
        return mapping
    if kind is _SequenceNode and node.tag == _SEQ:
        items = []
        for item in node.value:
            if type(item) is _ScalarNode and item.tag == _STR:
                items.append(item.value)  # a string item: no call of this walk
                continue
            value = _walk_tree(loader, item, room)
            if value is _Unbuilt:
                return _Unbuilt
            items.append(value)
        return items
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
    """Record the span of ``node`` and of every value and key below it in ``doc``'s maps."""
    _record_nodes(node, path, doc.spans, doc.key_spans, seen)


def _record_nodes(
    node: yaml.Node,
    path: Path,
    spans: dict[Path, Span],
    key_spans: dict[Path, Span],
    seen: set[int],
) -> None:
    # Later keys overwrite earlier ones, as in the data: a duplicate key's last value wins, and
    # a key of the mapping itself wins over one merged in with `<<` (merged pairs come first).
    spans[path] = _span_of(node)
    if id(node) in seen:  # an alias to a node already walked: its children are recorded
        return
    if len(path) >= MAX_DEPTH and type(node) is not _ScalarNode:
        raise _too_deep(node)
    seen.add(id(node))
    if type(node) is _MappingNode:
        for key_node, value_node in node.value:
            key = key_node.value if type(key_node) is _ScalarNode else repr(key_node.value)
            child = (*path, str(key))
            key_spans[child] = _span_of(key_node)
            if type(value_node) is _ScalarNode:
                spans[child] = _span_of(value_node)  # a leaf (most nodes): no call of this walk
            else:
                _record_nodes(value_node, child, spans, key_spans, seen)
    elif type(node) is _SequenceNode:
        for i, item in enumerate(node.value):
            if type(item) is _ScalarNode:
                spans[(*path, i)] = _span_of(item)
            else:
                _record_nodes(item, (*path, i), spans, key_spans, seen)
