"""RFC 6902 JSON patches (``add``, ``replace``, ``remove``, ``test``) on a document whose every
value carries the span it is reported at, so a value a patch writes is reported at the patch's
line and the values around it keep theirs when a list grows or shrinks.

The pointer syntax is RFC 6901 (https://www.rfc-editor.org/rfc/rfc6901): ``~1`` is ``/``,
``~0`` is ``~``, and ``-`` as the last token of an ``add`` appends to a list. kustomize applies
these through kustomize/kyaml with the same semantics (https://kubectl.docs.kubernetes.io/
references/kustomize/kustomization/patchesjson6902/).
"""

from __future__ import annotations

import copy
from typing import Any

from ..records import dataclass
from ..yamlsrc import Span

Path = tuple[Any, ...]


@dataclass
class Located:
    """A value with the span it is reported at; a mapping's or list's members are Located too."""

    value: Any
    span: Span


class PatchError(ValueError):
    """An operation that kustomize refuses (a missing path, an unknown op): its build fails."""


class NotRead(PatchError):
    """An operation kustomize may apply but hbmlint does not (a patch of the whole object, a
    value nested past any manifest's depth)."""


_DEPTH = 200  # deeper than any manifest; a YAML alias that holds itself never ends


def locate(data: Any, span_of: Any, path: Path = ()) -> Located:
    """``data`` as a Located tree; ``span_of(path)`` gives each value's span."""
    if len(path) > _DEPTH:
        raise NotRead("a value nested too deep")
    if isinstance(data, dict):
        return Located({k: locate(v, span_of, (*path, k)) for k, v in data.items()}, span_of(path))
    if isinstance(data, list):
        return Located([locate(v, span_of, (*path, i)) for i, v in enumerate(data)], span_of(path))
    return Located(copy.deepcopy(data), span_of(path))


def unlocate(tree: Located, path: Path = ()) -> tuple[Any, dict[Path, Span]]:
    """The plain data of a Located tree and the span of every path in it."""
    spans: dict[Path, Span] = {path: tree.span}
    if isinstance(tree.value, dict):
        data: Any = {}
        for key, member in tree.value.items():
            data[key], inner = unlocate(member, (*path, str(key)))
            spans.update(inner)
        return data, spans
    if isinstance(tree.value, list):
        data = []
        for index, member in enumerate(tree.value):
            value, inner = unlocate(member, (*path, index))
            data.append(value)
            spans.update(inner)
        return data, spans
    return tree.value, spans


def pointer(text: str) -> list[str]:
    """The reference tokens of a JSON pointer (``/spec/containers/0/args/-``)."""
    if text == "":
        return []
    if not text.startswith("/"):
        raise PatchError(f"path {text!r} does not start with '/'")
    return [token.replace("~1", "/").replace("~0", "~") for token in text[1:].split("/")]


def apply(tree: Located, op: str, path: str, value: Located | None) -> None:
    """One operation on ``tree`` in place; PatchError where kustomize's build would fail."""
    tokens = pointer(path)
    if not tokens:
        raise NotRead("a patch of the whole object is not read")
    parent = tree
    for token in tokens[:-1]:
        parent = _child(parent, token, path)
    last = tokens[-1]
    container = parent.value
    if op == "test":
        if _plain(_child(parent, last, path)) != _plain(value):
            raise PatchError(f"test of {path} fails")
        return
    if isinstance(container, dict):
        if op == "add":
            container[last] = value
        elif last not in container:
            raise PatchError(f"{path} is not in the object")
        elif op == "replace":
            container[last] = value
        else:
            del container[last]
        return
    if not isinstance(container, list):
        raise PatchError(f"{path}: the parent is not a mapping or a list")
    if op == "add" and last == "-":
        container.append(value)
        return
    index = _index(last, path)
    if op == "add":
        if index > len(container):
            raise PatchError(f"{path}: index past the end of the list")
        container.insert(index, value)
    elif index >= len(container):
        raise PatchError(f"{path}: index past the end of the list")
    elif op == "replace":
        container[index] = value
    else:
        del container[index]


def _child(node: Located, token: str, path: str) -> Located:
    if isinstance(node.value, dict) and token in node.value:
        return node.value[token]
    if isinstance(node.value, list):
        index = _index(token, path)
        if index < len(node.value):
            return node.value[index]
    raise PatchError(f"{path} is not in the object")


def _index(token: str, path: str) -> int:
    if not token.isdecimal() or (len(token) > 1 and token.startswith("0")):
        raise PatchError(f"{path}: {token!r} is not a list index")
    return int(token)


def _plain(tree: Located | None) -> Any:
    return None if tree is None else unlocate(tree)[0]
