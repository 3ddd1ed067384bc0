"""gitignore-like path globs, checked when the configuration loads and matched in linear time.

``*`` matches within a folder, ``**`` across folders, ``**/`` any number of leading folders,
``?`` one character, ``[abc]`` / ``[a-z]`` / ``[!abc]`` a class. A pattern without a slash
matches a file or folder name anywhere; a folder's pattern covers what is inside it.

Globs come from a repository's configuration, so they are hostile input: translated to a
regular expression, ``*a*a*a*a*a*b`` backtracks for minutes on a long path. Here a pattern is a
list of tokens run as a set of states over the path, one pass, O(len(path) x len(pattern)).
"""

from __future__ import annotations

from functools import lru_cache

from .records import dataclass

MAX_GLOB_LENGTH = 512

LIT, ANY, STAR, GLOBSTAR, DIRS, CLASS = range(6)


class GlobError(ValueError):
    """A pattern that is not a glob hbmlint can match."""


@dataclass(frozen=True)
class Glob:
    tokens: tuple[tuple, ...]
    anchored: bool  # has a slash: matched against the path from its start

    def matches(self, path: str) -> bool:
        """Whether the path, one of its leading folders, or (unanchored) one of its names
        matches."""
        if _run(self.tokens, path, every_folder=True):
            return True
        return not self.anchored and any(_run(self.tokens, part) for part in path.split("/"))


def _class(body: str, pattern: str) -> tuple:
    negate = body.startswith("!")
    body = body[1:] if negate else body
    ranges: list[tuple[str, str]] = []
    i = 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            low, high = body[i], body[i + 2]
            if low > high:
                raise GlobError(f"character range {low}-{high} is reversed")
            ranges.append((low, high))
            i += 3
        else:
            ranges.append((body[i], body[i]))
            i += 1
    return (CLASS, negate, tuple(ranges))


@lru_cache(maxsize=1024)
def compile_glob(pattern: str) -> Glob:
    """The compiled glob; GlobError (a short reason, not the pattern) when it is not one."""
    if not isinstance(pattern, str):
        raise GlobError("a glob must be a string")
    if len(pattern) > MAX_GLOB_LENGTH:
        raise GlobError(f"a glob is at most {MAX_GLOB_LENGTH} characters")
    text = pattern.strip().rstrip("/")
    anchored = "/" in text
    text = text.removeprefix("./")
    if not text:
        raise GlobError("an empty glob matches nothing")
    if any(ord(c) < 32 for c in text):
        raise GlobError("a glob holds no control characters")
    tokens: list[tuple] = []
    i = 0
    while i < len(text):
        if text.startswith("**/", i):
            token, i = (DIRS,), i + 3
        elif text.startswith("**", i):
            token, i = (GLOBSTAR,), i + 2
        elif text[i] == "*":
            token, i = (STAR,), i + 1
        elif text[i] == "?":
            token, i = (ANY,), i + 1
        elif text[i] == "[" and "]" in text[i + 2 :]:
            end = text.index("]", i + 2)
            token, i = _class(text[i + 1 : end], pattern), end + 1
        else:
            token, i = (LIT, text[i]), i + 1
        if token[0] in (STAR, GLOBSTAR, DIRS) and tokens and tokens[-1] == token:
            continue  # "***" is "**": repeated stars add states, not meaning
        tokens.append(token)
    return Glob(tuple(tokens), anchored)


def _closure(tokens: tuple[tuple, ...], states: set) -> set:
    """States reachable without reading a character: stars may match nothing."""
    out = set(states)
    stack = [s for s in states if isinstance(s, int)]
    while stack:
        k = stack.pop()
        if k < len(tokens) and tokens[k][0] in (STAR, GLOBSTAR, DIRS) and k + 1 not in out:
            out.add(k + 1)
            stack.append(k + 1)
    return out


def _in_class(token: tuple, char: str) -> bool:
    _, negate, ranges = token
    hit = any(low <= char <= high for low, high in ranges)
    return hit != negate and char != "/"


def _step(tokens: tuple[tuple, ...], states: set, char: str) -> set:
    nxt: set = set()
    for state in states:
        if isinstance(state, tuple):  # inside "**/": any characters, leaving after a "/"
            k = state[1]
            nxt.add(state)
            if char == "/":
                nxt.add(k + 1)
            continue
        if state >= len(tokens):
            continue
        token = tokens[state]
        kind = token[0]
        if kind == LIT:
            if token[1] == char:
                nxt.add(state + 1)
        elif kind == ANY:
            if char != "/":
                nxt.add(state + 1)
        elif kind == CLASS:
            if _in_class(token, char):
                nxt.add(state + 1)
        elif kind == STAR:
            if char != "/":
                nxt.add(state)
        elif kind == GLOBSTAR:
            nxt.add(state)
        elif kind == DIRS:
            nxt.add(("in", state))
            if char == "/":
                nxt.add(state + 1)
    return _closure(tokens, nxt)


def _run(tokens: tuple[tuple, ...], path: str, every_folder: bool = False) -> bool:
    """Does ``path`` match (or, with ``every_folder``, does any prefix of it ending at a
    folder boundary)? One pass over the path."""
    end = len(tokens)
    states = _closure(tokens, {0})
    for char in path:
        if every_folder and char == "/" and end in states:
            return True
        states = _step(tokens, states, char)
        if not states:
            return False
    return end in states


def glob_matches(pattern: str, path: str) -> bool:
    """Whether a (valid) glob matches the forward-slash path; an invalid glob matches nothing
    (the configuration refuses it when it loads)."""
    try:
        glob = compile_glob(pattern)
    except GlobError:
        return False
    return glob.matches(path)
