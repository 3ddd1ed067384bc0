"""Commands written as one shell string (``sh -c "...; exec vllm serve ..."``, block scalars,
line continuations): split them into words the way a POSIX shell would, expand the variables we
can know (the container's ``env``, assignments earlier in the script, ``${VAR:-default}``), mark
the ones we cannot, and place each word on its line in the user's file.

This is a reader, not a shell: it runs nothing. Command substitution and arithmetic are left
unresolved, and the words that hold them say so.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Mapping
from dataclasses import field

from ..lazyre import LazyPattern
from ..records import dataclass
from ..yamlsrc import Span
from .args import FLAGS_ONLY, Token, holds_flags_only

SHELLS = ("sh", "bash", "dash", "zsh", "ash", "ksh")
_NAME = LazyPattern(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGNMENT = LazyPattern(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", re.S)
# a redirection where a word would start: [n]> [n]>> [n]< [n]<> [n]>| &> &>>, a descriptor
# duplicated (2>&1, >&2, <&0, 2>&-)
# (every < or > where a word would start matches, so the splitter always moves on), or a
# here-document's or here-string's operator, whose delimiter or string is the next word
_REDIRECT = LazyPattern(r"(?:\d*(?:>>|>\||<>|<<<|<<-?|>|<)|&>>?)(?P<dup>&(?:\d+|-))?")
# the script's own folder: `dirname "$0"`, `dirname "${BASH_SOURCE[0]}"`, through readlink -f or
# realpath, or `cd` there (quiet or not) and `pwd`
_SELF = r'"?\$(?:0|\{0\}|\{BASH_SOURCE(?:\[0\])?\}|BASH_SOURCE)"?'
_SELF_DIR = (
    rf"dirname\s+(?:--\s+)?(?:{_SELF}"
    rf'|"?\$\(\s*(?:readlink\s+-[fe]|realpath)\s+(?:--\s+)?{_SELF}\s*\)"?)'
)
_SCRIPT_DIR = LazyPattern(
    rf'\s*(?:{_SELF_DIR}|realpath\s+"?\$\(\s*{_SELF_DIR}\s*\)"?'
    rf'|cd\s+(?:-P\s+)?(?:--\s+)?"?\$\(\s*{_SELF_DIR}\s*\)(?P<up>(?:/\.\.)*)/?"?'
    r"\s*(?:[&>]+\s*/dev/null\s*(?:2>&1\s*)?)?"
    r"&&\s*pwd(?:\s+-P)?(?:\s*[&>]+\s*/dev/null)?)\s*"
)
# `cat <<EOF` (or <<-'EOF') and its body, the whole of a command substitution
_CAT_HEREDOC = LazyPattern(
    r"\s*cat\s+<<-?\s*(?P<quote>['\"]?)(?P<delim>\w+)(?P=quote)[ \t]*\n(?P<body>.*?\n)"
    r"[ \t]*(?P=delim)[ \t]*\n?\s*",
    re.S,
)
# a documentation placeholder (``--model <model-path>``) left for the reader to fill in: one
# word, not a redirection from a file named "model-path" into one named by the next word
# Runs of characters with no meaning to the reader, taken at once: a word grown one character
# at a time costs time quadratic in its length (a megabyte-long line never finished).
_PLAIN_RUN = LazyPattern(r"[^ \t\r\n;&|()<>\\'\"$`]+")
_QUOTED_RUN = LazyPattern(r'[^"\\$`]+')
_BLANK_RUN = LazyPattern(r"[ \t\r]+")
_BLANKS = LazyPattern(r"\s*")  # what str.lstrip() strips
_BODY_RUN = LazyPattern(r"[^$\\]+")  # a here-document's text up to an expansion or escape
_ANGLE_PLACEHOLDER = LazyPattern(r"<[A-Za-z][\w.:/-]*>(?=[\s;&|)/\"']|$)")


class Locator:
    """Finds where a word of a scalar's value sits in the file: the scalar may be a literal or
    folded block, a quoted string with escapes, or a plain multi-line scalar, so each word is
    searched for, in order, in the scalar's own source text."""

    def __init__(self, text: str, span: Span):
        self.text = text
        self.span = span
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self._first: dict[int, int] = {}  # line -> offset of its first non-blank character
        self.cursor = self._offset(span.line, span.column)
        end_line = span.end_line or span.line
        self.end = self._offset(end_line, span.end_column or 1) if span.end_line else len(text)
        self.last = Span(span.line, span.column)

    def _offset(self, line: int, column: int) -> int:
        if not self.text or line - 1 >= len(self._starts):
            return len(self.text)
        return min(self._starts[line - 1] + column - 1, len(self.text))

    def _span(self, offset: int, length: int) -> Span:
        line = bisect.bisect_right(self._starts, offset)
        column = offset - self._starts[line - 1] + 1
        return Span(line, column, line, column + length)

    def _in_comment_line(self, offset: int) -> bool:
        line = bisect.bisect_right(self._starts, offset)
        # the line's first non-blank character, once a line: a copy of the line up to each word
        # found in it cost time quadratic in the line's length (a 4,000-character line of a
        # thousand words)
        first = self._first.get(line)
        if first is None:
            first = self._first[line] = _BLANKS.match(self.text, self._starts[line - 1]).end()
        return first < offset and self.text[first] == "#"

    def locate(self, raw: str) -> Span:
        # A word's own characters up to the first quote, escape or expansion appear verbatim in
        # the source whatever the scalar's style; later ones may be escaped or folded.
        body = raw.lstrip("\"'")
        if body[:1] == "\\" and body[1:2].isspace():
            body = body[2:].lstrip()  # an escaped space (a folded `\` line end): the word after
        probe = re.split(r"[\"'\\$\n]", body, maxsplit=1)[0][:60]
        if not probe:
            # a word that starts with an expansion ("$@", $MODEL): its raw text, up to the first
            # escape or line break, is where the script wrote it
            probe = re.split(r"[\\\n]", raw, maxsplit=1)[0][:60]
        if probe and self.text:
            found = self.text.find(probe, self.cursor, self.end)
            while found >= 0 and self._in_comment_line(found):
                # the script's words are never in a comment line (`# run docker run ...` above
                # the command): the word is further on
                found = self.text.find(probe, found + 1, self.end)
            if found >= 0:
                self.cursor = found + len(probe)
                self.last = self._span(found, len(probe))
                return self.last
        return self.last


@dataclass(frozen=True)
class Exported:
    """A variable the script exports: its value, where its ``NAME=`` word starts in the script,
    and what in it could not be read."""

    value: str
    offset: int
    unresolved: tuple[str, ...] = ()


# the path of a ``Written`` that is no file: a here-document the script hands to
# ``kubectl apply -f -`` (or create, replace; ``oc`` too)
APPLIED = "<kubectl apply -f ->"
_KUBECTL_STDIN = LazyPattern(
    r"(?:^|[|]\s*)(?:sudo\s+)?(?:\S*/)?(?:kubectl|oc)\s+(?:[^|;&\n]*\s)?(?:apply|create|replace)"
    r"\s(?:[^|;&\n]*\s)?(?:-f\s*-|--filename[=\s]-)(?=\s|$)"
)


def _applies_manifests(names: list[str], script: str, words: list[Word], body: int) -> bool:
    """Whether the here-document opened by the command ``words`` (ending its line at offset
    ``body``) goes to ``kubectl apply -f -``: the command itself, or ``cat`` piped into it."""
    if not words:
        return False
    if names[0] in ("kubectl", "oc") or (
        names[0] == "sudo" and names[1:2] in (["kubectl"], ["oc"])
    ):
        return _KUBECTL_STDIN.search(" ".join(w.text for w in words)) is not None
    if names != ["cat"]:
        return False
    rest = script[words[-1].raw_end : body]
    pipe = rest.find("|")
    return pipe >= 0 and _KUBECTL_STDIN.search(rest[pipe:]) is not None


@dataclass(frozen=True)
class Written:
    """A file the script writes (``cat > FILE <<EOF``, ``echo ... > FILE``): its path as
    written (without ``./``), its text, where the text starts in the script, how many
    commands ran before it, the references in it hbmlint could not expand (the word standing
    in for each in the text, the reference as written, why), the top-level keys a branch
    that may not run adds to it (with why), and whether what it holds depends on a branch
    hbmlint does not evaluate."""

    path: str
    text: str
    start: int
    command: int
    unresolved: tuple[tuple[str, str, str], ...] = ()
    maybe: tuple[tuple[str, str], ...] = ()
    unsure: str = ""  # why what it holds is not known, where it is not
    writer: int = -1  # ``command`` of the write its text starts with (-1: this one)

    @property
    def first_writer(self) -> int:
        return self.command if self.writer < 0 else self.writer


_BRANCH = (
    "it is added to the file in a branch of the script (if, case, a loop, && or ||) that "
    "hbmlint does not evaluate"
)


def _top_level_keys(text: str) -> list[str]:
    """The keys of a YAML chunk at its own outermost indent."""
    lines = [
        line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]
    if not lines:
        return []
    indent = min(len(line) - len(line.lstrip()) for line in lines)
    keys = []
    for line in lines:
        match = re.match(r"([A-Za-z_][\w.-]*)\s*:", line[indent:])
        if match and len(line) - len(line.lstrip()) == indent:
            keys.append(match.group(1))
    return keys


@dataclass
class Word:
    text: str = ""
    raw_start: int = 0
    raw_end: int = 0
    unresolved: list[str] = field(default_factory=list)
    quoted: bool = False  # any part was quoted (an empty quoted word is still a word)
    # an element of a bash array expanded here ("${ARGS[@]}"): the word where the array was
    # written, which is where findings about it belong
    origin: Word | None = None


# the script's own argument in a value: $1, "${2}", ${1#*=}
ARGUMENT = LazyPattern(r"\$\{?[1-9]")
# a default of the script's own argument: ${1:-word}, ${1-word}
_ARGUMENT_DEFAULT = LazyPattern(r"[1-9]:?-(.+)", re.S)


def _always(_offset: int) -> bool:
    return True


class _Splitter:
    """Splits a script into simple commands of words, expanding variables as it goes."""

    def __init__(
        self,
        script: str,
        env: Mapping[str, str],
        origins: Mapping[str, str],
        open_env: bool = False,
        argument_defaults: Callable[[int], bool] | None = None,
    ):
        self.s = script
        self.env = dict(env)
        self.origins = dict(origins)  # set, value unknown: "NAME is read from ConfigMap ..."
        # whether what runs the script may set variables neither it nor ``env`` sets (a launch
        # script run from a shell), or ``env`` is all there is (a container's command)
        self.open_env = open_env
        # where a default of the script's own arguments (``${1:-MODEL}``) is what a run
        # without arguments takes, by offset: outside its functions (their ``$1`` is a call's)
        self.argument_defaults = argument_defaults
        # variables only the script's arguments set, in a branch (`--model) MODEL="$2"`)
        self.from_arguments: dict[str, str] = {}
        # a command line kept in a variable, some of its words unreadable (`cmd="docker run
        # -p $PORT:$PORT IMAGE ..."`): its text and references, for `$cmd` run unquoted
        self.partial: dict[str, tuple[str, list[str]]] = {}
        # the text of a file the script sources (`source config/serve.env`), where it is found
        self.sourced: Callable[[str], str | None] | None = None
        self.i = 0
        self.commands: list[list[Word]] = []
        # the variables the script exports (`export NAME=value`), each with the word that set
        # it, as they stand when each command runs: what the programs it starts see
        self.exported: dict[str, Word] = {}
        self.exports: list[dict[str, Word]] = []
        # here-documents opened on the current line: (delimiter, <<- strips tabs, the
        # delimiter is quoted, the body is commands for a shell, the number of the command that
        # opens it); and where a read body's delimiter line starts -> ends
        self.heredocs: list[tuple[str, bool, bool, bool, int]] = []
        self.skip: dict[int, int] = {}
        # the file each command's output goes to (`> FILE`, `>> FILE`), with its words, in the
        # order commands end; and the files the script writes with a here-document or echo
        self.target: tuple[Word, bool] | None = None
        self.targets: list[tuple[tuple[Word, bool] | None, list[Word], list[str]]] = []
        self.written: list[Written] = []
        # the if/case/loop blocks the script is inside, and whether the command now ending
        # follows `&&` or `||`: an assignment there may not run (_assigned)
        self.blocks: list[_Block] = []
        self.chained = ""  # "" (not chained), or "taken", "skipped", "unknown"
        # bash arrays (`ARGS=( ... )`, `ARGS+=( ... )`): their elements as written, and the
        # order in which arrays and commands end, so that each word is placed in the file
        self.arrays: dict[str, list[Word]] = {}
        self.events: list[tuple[bool, list[Word]]] = []  # (is a command, its words)
        # comments that end in `\` inside a command continued over lines: the shell ends the
        # command at the comment (its `\` continues nothing); (the `#`'s offset, the command's)
        self.comment_breaks: list[tuple[int, int]] = []
        # the script's shell functions (where each body starts and ends), where a variable a
        # function makes its own (`local NAME=...`, `declare`, `typeset`) is that function's
        # alone: what it held before is back once the body ends (see scoped())
        self.scopes: list[tuple[int, int]] = []
        self.scoping = False
        self.locals: set[tuple[tuple[int, int], str]] = set()
        self.restores: list[tuple[int, str, tuple[object, ...]]] = []

    def scoped(self) -> None:
        """Keep a function's local variables to its body (split_script's ``scoped``)."""
        self.scopes = sorted(shell_functions(self.s).values())
        self.scoping = True

    def run(self) -> list[list[Word]]:
        current: list[Word] = []
        s = self.s
        while self.i < len(s):
            if self.restores and self.i > self.restores[-1][0]:
                self._end_scope()
            c = s[self.i]
            if self.i in self.skip:  # a here-document's closing delimiter
                self.i = self.skip[self.i]
            elif c == "\\" and s[self.i + 1 : self.i + 2] == "\n":  # line continuation
                self.i += 2
            elif c in " \t\r":
                # the whole run of blanks at once, and a comment's whole line below: a Python
                # step a character made a script with a 3 MB comment line (or thousands of
                # deeply indented lines) take tens of seconds, as good as a hang
                self.i = _BLANK_RUN.match(s, self.i).end()  # type: ignore[union-attr]
            elif c == "#":
                start = self.i
                end = s.find("\n", self.i)
                self.i = len(s) if end < 0 else end
                begun = current[0].raw_start if current else None
                if (
                    begun is not None
                    and "\\\n" in s[begun:start]
                    and s[start : self.i].rstrip(" \t\r").endswith("\\")
                ):
                    self.comment_breaks.append((start, begun))
            elif _REDIRECT.match(s, self.i) and not _ANGLE_PLACEHOLDER.match(s, self.i):
                heredoc = self._redirect()
                if heredoc is not None:
                    self.heredocs.append((*heredoc, _runs_a_shell(current), len(self.targets)))
            elif c in "&|" and s[self.i + 1 : self.i + 2] == c:  # `&&`, `||`
                self.i += 2
                self._end_command(current)
                # what follows runs when the test before it held (&&) or failed (||)
                test = _test(current)
                self.chained = "unknown" if test is None else _STATES[test == (c == "&")]
                current = []
            elif c == "(" and _array_head(current):
                self.i += 1
                self._array(current)
                current = []
            elif c in ";&|\n()":
                self.i += 1
                self._end_command(current)
                current = []
                if c == "\n" and self.heredocs:
                    self._heredoc_bodies()
            else:
                current.extend(self._word())
        self._end_command(current)
        self._end_scope()
        return self.commands

    def _end_command(self, words: list[Word]) -> None:
        target, self.target = self.target, None
        if not words:
            return
        states = [b.state for b in self.blocks] + [self.chained]
        self.targets.append((target, words, states))
        here = any(h[4] == len(self.targets) - 1 for h in self.heredocs)
        if target is not None and words[0].text in ("echo", "printf"):
            self._echoed(words, target, states)
        program = words[0].text.rsplit("/", 1)[-1]
        if target is not None and not here and words[0].text not in ("echo", "printf"):
            self._changed(target[0].text, program)  # `envsubst < t > F`, `python gen.py > F`
        if self.written and program in _FILE_CHANGERS:
            # a copy changes only its destination; the others any file they name
            for word in words[-1:] if program in _COPIES else words[1:]:
                self._changed(word.text, program)
        chained, self.chained = self.chained, ""
        statement = self._block(words)
        if statement and statement[0].text == "{":
            statement = statement[1:]  # `f() { local id="$1"; ...`: the body's first statement
        self._declared_local(statement)
        # `NAME=value` alone (or after `export`) sets a variable later words can use
        rest = statement[1:] if statement and statement[0].text in _DECLARING else statement
        if rest is not statement and statement[0].text in _LOCAL:
            rest = [w for w in rest if not w.text.startswith("-")]  # `local -r`, `declare -i`
        exporting = bool(statement) and (
            statement[0].text == "export"
            or (
                statement[0].text == "declare"
                and len(statement) > 1
                and "x" in statement[1].text.lstrip("-")
            )
        )
        if rest and exporting and statement[0].text == "declare":
            rest = [w for w in rest if not w.text.startswith("-")]
        if rest and all(_ASSIGNMENT.fullmatch(w.text) for w in rest):
            for w in rest:
                self._assigned(w, chained, exporting)
            return
        if (
            rest is not statement
            and any(_ASSIGNMENT.fullmatch(w.text) for w in rest)
            and all(_ASSIGNMENT.fullmatch(w.text) or _NAME.fullmatch(w.text) for w in rest)
        ):
            # `export ADAPTER MERGED="..."`: bare names only change how a variable is kept
            # (exported, local); the words with a value set theirs
            for w in rest:
                if _ASSIGNMENT.fullmatch(w.text):
                    self._assigned(w, chained, exporting)
            return
        if len(statement) == 2 and statement[0].text in ("source", ".") and self.sourced:
            self._source(statement[1], chained)
        self.commands.append(words)
        self.events.append((True, words))
        self.exports.append(dict(self.exported))

    def _local(self, name: str, at: int) -> None:
        """``local NAME`` (``declare``, ``typeset``) in a function's body at offset ``at``: the
        variable as it stands is kept, and is back when the body ends (the function's value is
        its own, not the script's). Outside a function it is the script's variable."""
        inside = [scope for scope in self.scopes if scope[0] <= at < scope[1]]
        if not inside:
            return
        scope = max(inside)  # the innermost: the one that starts last
        if (scope, name) in self.locals:
            return
        self.locals.add((scope, name))
        kept = (self.env, self.origins, self.partial, self.from_arguments, self.arrays)
        saved = tuple(held.get(name, _UNSET) for held in kept)
        self.restores.append((scope[1], name, saved))
        self.restores.sort(key=lambda restore: -restore[0])  # the next to end last

    def _end_scope(self) -> None:
        """Past a function's body: its local variables hold what they did before it."""
        while self.restores and self.i > self.restores[-1][0]:
            _, name, saved = self.restores.pop()
            kept = (self.env, self.origins, self.partial, self.from_arguments, self.arrays)
            for held, value in zip(kept, saved, strict=True):
                if value is _UNSET:
                    held.pop(name, None)
                else:
                    held[name] = value

    def _declared_local(self, statement: list[Word]) -> None:
        """``local``/``declare``/``typeset`` (not ``declare -g``) opening ``statement``: each
        name it declares is local to the function it is in (_local)."""
        if not self.scopes or not statement or statement[0].text not in _LOCAL:
            return
        if any(w.text.startswith("-") and "g" in w.text for w in statement[1:]):
            return  # `declare -g NAME=...`: the script's own variable
        for w in statement[1:]:
            name = w.text.split("=", 1)[0].removesuffix("+")
            if _NAME.fullmatch(name):
                self._local(name, statement[0].raw_start)

    def _source(self, file: Word, chained: str) -> None:
        """``source FILE`` / ``. FILE`` of a file of the script's repository: the variables it
        sets, as if its assignments stood here (``TARGET_MODEL="..."`` in a sourced .env).
        Its commands run too, but only what it assigns is kept; where each is set in that file
        means nothing in this one, so the values carry the ``source`` word's place."""
        if file.unresolved or self.sourced is None:
            return
        text = self.sourced(file.text)
        if text is None:
            return
        inner = _Splitter(text, self.env, self.origins, self.open_env)
        if self.scopes or self.scoping:
            inner.scoped()
        try:
            inner.run()
        except RecursionError:
            return
        for name, value in inner.env.items():
            if self.env.get(name) != value:
                self._assigned(
                    Word(text=f"{name}={value}", raw_start=file.raw_start), chained, False
                )
        for name, origin in inner.origins.items():
            if self.origins.get(name) != origin and name not in inner.env:
                self.env.pop(name, None)
                self.origins[name] = origin

    def _block(self, words: list[Word]) -> list[Word]:
        """Follow the if/elif/else/fi, case/esac and loop keywords that open ``words``: which
        branch runs when its test is one hbmlint can evaluate (``[ -n "$X" ]``, ``[ "$A" = b ]``
        over known values), else that it may or may not. The words after a ``then``, ``else``
        or ``do`` are the statement of this command."""
        head = words[0].text
        top = self.blocks[-1] if self.blocks else None
        if head == "if":
            test = _test(words[1:])
            self.blocks.append(_Block(_STATES[test], taken=test is True, unsure=test is None))
        elif head == "elif" and top is not None:
            test = None if top.taken else _test(words[1:])
            top.state = "skipped" if top.taken else _STATES[test]
            top.taken |= test is True
            top.unsure |= test is None and not top.taken
        elif head == "else" and top is not None:
            top.state = "skipped" if top.taken else "unknown" if top.unsure else "taken"
        elif head in ("while", "until", "for", "case", "select"):
            self.blocks.append(_Block("unknown"))
        elif head in ("fi", "done", "esac") and top is not None:
            self.blocks.pop()
        if head in ("then", "else", "do"):
            return words[1:]
        return words if head not in _KEYWORDS else []

    def _array(self, head: list[Word]) -> None:
        """``NAME=( WORD... )`` or ``NAME+=( ... )`` (after ``local``, ``declare -a``): the
        elements, expanded as any words, up to the closing ``)``. In a branch that may not run,
        elements added to an array that had some stand for words hbmlint cannot tell
        (HBM011); a new array there takes its elements, as a variable does."""
        chained, self.chained = self.chained, ""
        if head[0].text in _OPENING:
            head = self._block(head)  # an `else` changes which branch is being read
        name, _, _ = head[-1].text.partition("=")
        append = name.endswith("+")
        name = name.rstrip("+")
        if head[0].text == "{":
            head = head[1:]
        self._declared_local(head)
        s = self.s
        elements: list[Word] = []
        while self.i < len(s):
            c = s[self.i]
            if c == ")":
                self.i += 1
                break
            if c == "\\" and s[self.i + 1 : self.i + 2] == "\n":
                self.i += 2
            elif c in " \t\r\n":
                self.i += 1
            elif c == "#":
                while self.i < len(s) and s[self.i] != "\n":
                    self.i += 1
            else:
                before = self.i
                elements.extend(self._word())
                if self.i == before:  # a character no word takes (`;`, `|`): skip it
                    self.i += 1
        states = [b.state for b in self.blocks] + [chained]
        known = self.arrays.get(name)
        if "skipped" not in states and "unknown" in states and (name in self.arrays or append):
            # every value it may hold is flags where the branch's and the earlier elements all
            # start with one (or there are none): no word of it is a positional model
            flags = not elements or elements[0].text.startswith("-")
            if known:
                first = known[0]
                flags = flags and (first.text.startswith("-") or holds_flags_only(first))
            reason = (
                f"${{{name}[@]}}: {name} is {'added to' if append else 'set'} in a branch "
                "of the script (if, case, a loop, && or ||), and what it holds depends on "
                "a condition hbmlint does not evaluate"
            )
            if flags:
                reason += f" ({FLAGS_ONLY})"
            # placed at the `NAME+=` that makes the array uncertain
            unsure = Word(
                text=f"${{{name}[@]}}",
                raw_start=head[-1].raw_start,
                raw_end=head[-1].raw_end,
                unresolved=[reason],
            )
            self.events.append((False, [unsure]))
            self.events.append((False, elements))
            kept = list(known or []) if append else []
            if not (kept and kept[-1].text == unsure.text and kept[-1].unresolved):
                kept.append(unsure)  # one note for an array grown in several branches
            self.arrays[name] = kept
            return
        self.events.append((False, elements))
        if "skipped" not in states:
            self.arrays[name] = (list(known or []) if append else []) + elements

    def _array_words(self, quoted: bool) -> list[Word] | None:
        """``"${NAME[@]}"`` (``${NAME[@]}``, ``[*]``) where a word starts, NAME an array the
        script set: its elements, each a word of its own; None for anything else."""
        match = _ARRAY_USE.match(self.s, self.i)
        if match is None or (quoted != bool(match.group(1))):
            return None
        name = match.group(2) or match.group(3)
        if name not in self.arrays:
            return None
        self.i = match.end()
        return [
            Word(
                text=w.text,
                raw_start=w.raw_start,
                raw_end=w.raw_end,
                unresolved=list(w.unresolved),
                quoted=w.quoted,
                origin=w.origin or w,
            )
            for w in self.arrays[name]
        ]

    def _assigned(self, w: Word, chained: str, exporting: bool) -> None:
        """``NAME=value``: set, unless it is in a branch that does not run; in one that may or
        may not (a test hbmlint cannot evaluate, a loop, after ``&&``/``||``), a variable that
        already had another value has one of two, which hbmlint does not choose between. A
        variable first set there takes that value (``if [ -z "$TP" ]; then TP=8; fi``)."""
        name, value = w.text.split("=", 1)
        states = [b.state for b in self.blocks] + [chained]
        if "skipped" in states:
            return
        self.partial.pop(name, None)
        maybe = "unknown" in states
        if (
            maybe
            and "$" in value
            and self.argument_defaults is not None
            and ARGUMENT.search(value)
            and self.argument_defaults(w.raw_start)
        ):
            # an option loop's `--model) MODEL="$2"`: a run with no argument takes no such
            # branch, and keeps the value set before it (the script's default)
            self.from_arguments.setdefault(name, value)
            return
        if maybe and name in self.env and (w.unresolved or self.env[name] != value):
            self.env.pop(name)
            self.origins[name] = (
                f"{name} is set in a branch of the script (if, case, a loop, && or ||), and "
                "which value a run takes depends on a condition hbmlint does not evaluate"
            )
        elif w.unresolved:
            # set to what hbmlint cannot read (a command's output): a later default in a
            # branch (`if [ -z "$N" ]; then N=1; fi`) is not its value
            self.env.pop(name, None)
            # (a value over several lines, a here-document's script, shown by its first line)
            shown = value if "\n" not in value else value.split("\n", 1)[0].rstrip() + " ..."
            self.origins[name] = f"{name} is set to {shown}, which hbmlint cannot read"
            # (only where what is unread is variables: a command's output, `basename $1`,
            # may hold the blanks that split the line, and is one value)
            plain = all(_PLAIN_REFERENCE.match(r) for r in w.unresolved)
            if not maybe and plain and re.search(r"\s", value.strip()):
                self.partial[name] = (value, list(w.unresolved))
        elif not (maybe and name in self.origins):
            self.env[name] = value
        if exporting or name in self.exported:
            self.exported[name] = w

    def _redirect(self) -> tuple[str, bool] | None:
        """Skip a redirection (``2>&1``, ``> log``, ``&>/dev/null``, ``< in``): neither it nor
        the file it names is a word of the command. A here-document's (``<<EOF``, ``<<-'EOF'``)
        delimiter and whether its lines may be indented with tabs are returned."""
        match = _REDIRECT.match(self.s, self.i)
        assert match is not None
        self.i = match.end()
        if match.group("dup"):
            return None  # 2>&1, <&0, >&-: the descriptor is part of the operator
        while self.i < len(self.s) and self.s[self.i] in " \t":
            self.i += 1
        if self.i < len(self.s) and self.s[self.i] not in "\n;&|()":
            words = self._word()  # the file: expanded as the shell would, then dropped
            operator = match.group(0)
            if operator.lstrip("0123456789") in ("<<", "<<-") and words:
                return words[0].text, operator.endswith("-"), words[0].quoted
            if operator in (">", ">|", "1>", ">>", "1>>") and len(words) == 1:
                self.target = (words[0], operator.endswith(">>"))
        return None

    def _heredoc_bodies(self) -> None:
        """At the end of a line that opened here-documents: their bodies are input, not
        commands (a config written with ``cat > f <<EOF``, Python fed to ``python - <<PY``),
        so they are skipped; only a body fed to a shell (``bash <<EOF``, ``sbatch <<EOF``,
        ``ssh host <<EOF``) is read, as the commands it is, without its delimiter line."""
        s = self.s
        for delimiter, strip_tabs, quoted, read, command in self.heredocs:
            at = self.i
            body_start = self.i
            while at < len(s):
                end = s.find("\n", at)
                end = len(s) if end < 0 else end
                line = s[at:end].rstrip("\r")
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    if read:
                        self.skip[at] = end
                    else:
                        self._heredoc_file(command, s[body_start:at], body_start, quoted)
                        self.i = end
                    break
                at = end + 1
            else:
                if not read:
                    self.i = len(s)  # never closed: the rest of the script is its body
        self.heredocs = []

    def _heredoc_file(self, command: int, body: str, start: int, quoted: bool) -> None:
        """The file a here-document is written to (``cat > FILE <<EOF``, ``cat <<EOF >>
        FILE``, ``tee FILE <<EOF``): its text, expanded as the shell does unless the
        delimiter is quoted."""
        if command >= len(self.targets):
            return
        target, words, states = self.targets[command]
        names = [w.text.rsplit("/", 1)[-1] for w in words]
        if target is None and _applies_manifests(names, self.s, words, start):
            # `kubectl apply -f - <<EOF`, `cat <<EOF | kubectl apply -f -`: Kubernetes objects
            # (a KServe InferenceService, a Deployment) that the script creates
            text, unresolved = (body, []) if quoted else self._expand_body(body)
            for stand_in, written, _ in unresolved:
                text = text.replace(stand_in, written)  # as written: a placeholder to render
            if "skipped" not in states:
                self.written.append(Written(APPLIED, text, start, len(self.commands)))
            return
        if target is None and names and names[0] == "tee":
            files = [w for w in words[1:] if not w.text.startswith("-")]
            append = any(w.text in ("-a", "--append") for w in words[1:])
            target = (files[0], append) if len(files) == 1 else None
        elif names[:1] != ["cat"] or len(words) > 1:
            target = None  # `cat a - > f`, `python - <<PY > out`: not the body alone
        if target is None:
            return
        text, unresolved = (body, []) if quoted else self._expand_body(body)
        self._write(target, text, start, unresolved, states)

    def _echoed(self, words: list[Word], target: tuple[Word, bool], states: list[str]) -> None:
        """``echo '...' > FILE`` (``printf``): the words it prints, with ``\\n`` as a line
        break where ``-e`` or printf reads escapes."""
        args = [w.text for w in words[1:]]
        escapes = words[0].text == "printf"
        while args and words[0].text == "echo" and re.fullmatch(r"-[neE]+", args[0]):
            escapes = escapes or "e" in args[0]
            args = args[1:]
        text = " ".join(args)
        if escapes:
            text = text.replace("\\n", "\n").replace("\\t", "\t")
        # each reason starts with the reference as written ("$VAR is read from ...")
        unresolved = [
            (r.split(" ", 1)[0], r.split(" ", 1)[0], r) for w in words[1:] for r in w.unresolved
        ]
        self._write(
            target, text + "\n", words[1].raw_start if len(words) > 1 else 0, unresolved, states
        )

    def _write(
        self,
        target: tuple[Word, bool],
        text: str,
        start: int,
        unresolved: list[tuple[str, str, str]],
        states: list[str],
    ) -> None:
        if "skipped" in states:
            return
        path, append = target
        if path.unresolved:
            return
        name = path.text.removeprefix("./")
        earlier = next((w for w in reversed(self.written) if w.path == name), None)
        command = len(self.commands)
        if "unknown" in states and append and earlier is not None and not earlier.unsure:
            # added to in a branch that may not run: the keys it adds may or may not be set
            maybe = tuple((key, _BRANCH) for key in _top_level_keys(text))
            self.written.append(
                Written(
                    name,
                    earlier.text,
                    earlier.start,
                    command,
                    earlier.unresolved,
                    maybe=earlier.maybe + maybe,
                    writer=earlier.first_writer,
                )
            )
            return
        if "unknown" in states and (append or earlier is not None):
            # written over in a branch that may not run: which text it holds depends on it
            why = "a branch of the script that may not run writes over it"
            self.written.append(Written(name, "", start, command, (), unsure=why))
            return
        maybe: tuple[tuple[str, str], ...] = ()
        writer = command
        if append and earlier is not None and not earlier.unsure:
            text = earlier.text + text
            start = earlier.start
            unresolved = [*earlier.unresolved, *unresolved]
            maybe = earlier.maybe
            writer = earlier.first_writer
        self.written.append(
            Written(name, text, start, command, tuple(unresolved), maybe=maybe, writer=writer)
        )

    def _changed(self, path: str, program: str) -> None:
        """A command that may change a file the script wrote (``sed -i ... FILE``): what it
        holds from here on is not known."""
        name = path.removeprefix("./")
        if any(w.path == name for w in self.written):
            why = f"the script changes it with {program} after writing it"
            # for the commands after this one only
            self.written.append(Written(name, "", 0, len(self.commands) + 1, (), unsure=why))

    def _expand_body(self, body: str) -> tuple[str, list[tuple[str, str, str]]]:
        """A here-document's body with ``$`` expansions as this point of the script knows
        them. Each one that cannot be read is a plain word standing in for it (so that
        ``[${SIZES%, }]`` is still YAML), with the reference as written and why."""
        inner = _Splitter(body, self.env, self.origins, self.open_env, self._inner_defaults())
        inner.from_arguments = self.from_arguments
        # the text in pieces, joined once, and what needs no expansion taken a run at a time:
        # a string grown a character at a time made a 3 MB line in a here-document take minutes
        text: list[str] = []
        unresolved: list[tuple[str, str, str]] = []
        while inner.i < len(body):
            c = body[inner.i]
            if c == "$":
                before = inner.i
                part, missing = inner._expansion()
                if missing:
                    stand_in = f"hbmlint-unread-{len(self.written)}-{len(unresolved)}"
                    unresolved.append((stand_in, body[before : inner.i], missing[0]))
                    part = stand_in
                text.append(part)
            elif c == "\\" and body[inner.i + 1 : inner.i + 2] in ("$", "`", "\\"):
                text.append(body[inner.i + 1])
                inner.i += 2
            elif c == "\\" and body[inner.i + 1 : inner.i + 2] == "\n":
                inner.i += 2
            else:
                run = _BODY_RUN.match(body, inner.i)
                end = run.end() if run else inner.i + 1
                text.append(body[inner.i : end])
                inner.i = end
        return "".join(text), unresolved

    def _word(self) -> list[Word]:
        """One shell word, which unquoted expansions may split into several."""
        s = self.s
        if s[self.i] in '"$':
            elements = self._array_words(quoted=s[self.i] == '"')
            if elements is not None:
                return elements
        words = [Word(raw_start=self.i)]
        while self.i < len(s):
            c = s[self.i]
            placeholder = _ANGLE_PLACEHOLDER.match(s, self.i) if c == "<" else None
            if placeholder:
                words[-1].text += placeholder.group(0)
                self.i = placeholder.end()
                continue
            if c in " \t\r\n;&|()<>":
                break
            if c == "\\":
                if s[self.i + 1 : self.i + 2] == "\n":
                    self.i += 2
                    continue
                words[-1].text += s[self.i + 1 : self.i + 2]
                self.i += 2
            elif c == "'":
                end = s.find("'", self.i + 1)
                end = len(s) if end < 0 else end
                words[-1].text += s[self.i + 1 : end]
                words[-1].quoted = True
                self.i = end + 1
            elif c == '"':
                self.i += 1
                words[-1].quoted = True
                while self.i < len(s) and s[self.i] != '"':
                    if s[self.i] == "\\" and s[self.i + 1 : self.i + 2] in ('"', "\\", "$", "`"):
                        words[-1].text += s[self.i + 1]
                        self.i += 2
                    elif s[self.i] == "\\" and s[self.i + 1 : self.i + 2] == "\n":
                        self.i += 2
                    elif s[self.i] == "$":
                        text, missing = self._expansion()
                        words[-1].text += text
                        words[-1].unresolved += missing
                    elif s[self.i] == "`":
                        # a command substitution in its old spelling (`basename $1`), as $( )
                        end = s.find("`", self.i + 1)
                        end = len(s) if end < 0 else end
                        substitution = s[self.i : end + 1]
                        words[-1].unresolved.append(
                            self._missing(substitution.strip("`"), substitution)
                        )
                        words[-1].text += substitution
                        self.i = end + 1
                    else:
                        run = _QUOTED_RUN.match(s, self.i)
                        end = run.end() if run else self.i + 1
                        words[-1].text += s[self.i : end]
                        self.i = end
                self.i += 1
            elif c == "$":
                held = self._partial_line()
                text, missing = held if held is not None else self._expansion()
                # an unquoted expansion splits on whitespace into several words, but not in an
                # assignment's value (`SPEC=$(cat <<EOF ...)`: the shell does no field splitting)
                assigning = len(words) == 1 and _ASSIGNMENT.match(words[0].text)
                parts = [text] if assigning else re.split(r"\s+", text)
                if len(parts) > 1 and missing:
                    # a command line kept in a variable (`cmd="docker run ... -p $PORT:$PORT
                    # IMAGE ..."; $cmd`): each word holds the references written in it, and
                    # one not found in any word stays with them all
                    found = [[m for m in missing if _reference(m) in part] for part in parts]
                    placed = {m for held in found for m in held}
                    unplaced = [m for m in missing if m not in placed]
                    found = [held + unplaced for held in found]
                else:
                    found = [missing] + [[] for _ in parts[1:]]
                words[-1].text += parts[0]
                words[-1].unresolved += found[0]
                for part, held in zip(parts[1:], found[1:], strict=True):
                    words.append(Word(text=part, raw_start=words[-1].raw_start, unresolved=held))
            elif c == "`":
                end = s.find("`", self.i + 1)
                end = len(s) if end < 0 else end
                words[-1].unresolved.append(s[self.i : end + 1])
                words[-1].text += s[self.i : end + 1]
                self.i = end + 1
            elif c == "{" and s.startswith("{{", self.i) and self._template_end() > 0:
                # a Jinja / Go template placeholder with spaces (`--model {{ VLLM_MODEL }}` in an
                # Ansible .j2 script): one word, filled in before the script runs
                end = self._template_end()
                words[-1].text += s[self.i : end]
                self.i = end
            else:
                run = _PLAIN_RUN.match(s, self.i)
                end = run.end() if run else self.i + 1
                words[-1].text += s[self.i : end]
                self.i = end
        for w in words:
            w.raw_end = self.i
        return [w for w in words if w.text or w.quoted or w.unresolved]

    def _partial_line(self) -> tuple[str, list[str]] | None:
        """``$NAME`` / ``${NAME}`` at self.i naming a command line with some words unreadable
        (self.partial), unquoted: its text and references (past it), for the words to split
        and each to keep the references written in it; else None (self.i unmoved)."""
        if not self.partial:
            return None
        match = _PLAIN_REFERENCE.match(self.s, self.i)
        if match is None:
            return None
        name = match.group(1) or match.group(2)
        if name not in self.partial or name in self.env:
            return None
        self.i = match.end()
        text, refs = self.partial[name]
        return text, list(refs)

    def _template_end(self) -> int:
        """Where a ``{{ ... }}`` placeholder that starts at self.i ends (past its ``}}``), on
        the same line; 0 where it does not close there."""
        s = self.s
        close = s.find("}}", self.i + 2)
        line_end = s.find("\n", self.i)
        if close < 0 or (0 <= line_end < close):
            return 0
        return close + 2

    def _inner_defaults(self) -> Callable[[int], bool] | None:
        """argument_defaults for a splitter of a part of the script at self.i: all of it
        inside a function or all of it outside."""
        if self.argument_defaults is None or not self.argument_defaults(self.i):
            return None
        return _always

    def _expansion(self) -> tuple[str, list[str]]:
        """Expand ``$...`` at self.i: (text, [unresolved references])."""
        s = self.s
        start = self.i
        if s.startswith("$((", start):
            end = _closing(s, start + 1)
            self.i = end
            value = self._arithmetic(s[start + 3 : end - 2])
            if value is not None:
                return str(value), []
            return s[start:end], [s[start:end]]
        if s.startswith("$(", start):
            end = _closing(s, start + 1)
            self.i = end
            inner = s[start + 2 : end - 1]
            # Kubernetes expands $(NAME) from the container env before the shell runs
            if _NAME.fullmatch(inner) and inner in self.env:
                return self.env[inner], []
            own = _SCRIPT_DIR.fullmatch(inner) if "dirname" in inner else None
            if own is not None:
                # SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)": the script's own
                # folder, as a path relative to it (`source "$SCRIPT_DIR/config.sh"` is the file
                # beside the script: tasd12-ty/qwen35-vllm-ray-deploy, whn09/kimi-k3-sglang);
                # `cd "$(dirname ...)/../.."` a folder above it (jpezzulli/sglang-rtxpro6000)
                up = (own.group("up") or "").lstrip("/")
                return up or ".", []
            here = _CAT_HEREDOC.fullmatch(inner) if "<<" in inner else None
            if here is not None:
                # `SPEC=$(cat <<EOF\n{json}\nEOF\n)`: the body, less its trailing newlines, and
                # expanded unless the delimiter is quoted (H4RUming/gemma4-vllm-stack: a
                # --speculative-config kept out of a systemd ExecStart= line)
                body = here.group("body").rstrip("\n")
                if here.group("quote"):
                    return body, []
                return self._expand_word(body.replace('"', '\\"'))
            return s[start:end], [self._missing(inner, s[start:end])]
        if s.startswith("${", start):
            end = _brace_end(s, start)
            self.i = end + 1
            body = s[start + 2 : end]
            match = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-=+?])(.*))?", body, re.S)
            default = (
                _ARGUMENT_DEFAULT.fullmatch(body)
                if self.argument_defaults is not None and body[:1].isdigit()
                else None
            )
            if default and self.argument_defaults(start):
                # `MODEL=${1:-Qwen/Qwen3-8B}`: the script run as written, with no argument
                word = _unquoted(default.group(1))
                if word and ('"' not in word and "\\" not in word):
                    return self._expand_word(word)
            if match:
                name, colon, op, word = match.groups()
                word = _unquoted(word)
                if word and ('"' in word or "\\" in word):
                    # quotes or escapes left inside the default ("{\"method\": ...}"): what
                    # quote removal makes of them is not worked out here
                    return s[start : end + 1], [self._missing(name, s[start : end + 1])]
                # the word after :- := :+ is expanded too (`${MODEL:-$ROOT/name}`)
                word, nested = self._expand_word(word) if word else (word, [])
                known = name in self.env
                # with a colon, an empty value counts as unset (POSIX parameter expansion)
                is_set = known and (bool(self.env[name]) or not colon)
                if name in self.origins and op:
                    is_set = None  # set by the platform, to a value we cannot see
                if op == "+" and is_set is not None:
                    return (word if is_set else ""), (nested if is_set else [])
                if op in ("-", "=") and is_set is False and (word or known or not self.open_env):
                    # in a launch script, an empty default of a variable set nowhere in it
                    # (`${EXTRA_ARGS:-}`) says only that it may be unset: what runs the script
                    # may set it, so it stays unreadable, as `$EXTRA_ARGS` is
                    if op == "=" and not nested:
                        self.env[name] = word
                    return word, nested
                if known and is_set is not None and (is_set or not op):
                    return self.env[name], []
                return s[start : end + 1], [self._missing(name, s[start : end + 1])]
            return s[start : end + 1], [s[start : end + 1]]
        match = _NAME.match(s, start + 1)
        if match:
            self.i = match.end()
            name = match.group(0)
            if name in self.env:
                return self.env[name], []
            return "$" + name, [self._missing(name, "$" + name)]
        self.i += 1
        return "$", []

    def _expand_word(self, word: str) -> tuple[str, list[str]]:
        """The ``$`` expansions inside a parameter's default word, as this point of the
        script knows them: (text, [unresolved references])."""
        inner = _Splitter(word, self.env, self.origins, self.open_env, self._inner_defaults())
        inner.from_arguments = self.from_arguments
        text = ""
        missing: list[str] = []
        while inner.i < len(word):
            c = word[inner.i]
            if c == "$":
                part, unknown = inner._expansion()
                text += part
                missing += unknown
            elif c == "'":  # quote removal: `${KV:+--kv-cache-dtype 'fp8'}` gives fp8
                end = word.find("'", inner.i + 1)
                end = len(word) if end < 0 else end
                text += word[inner.i + 1 : end]
                inner.i = end + 1
            elif c == '"':  # `${KV:+--kv-cache-dtype "$KV"}`: the quotes go, $KV is expanded
                inner.i += 1
            elif c == "\\" and inner.i + 1 < len(word):
                text += word[inner.i + 1]
                inner.i += 2
            else:
                text += c
                inner.i += 1
        return text, missing

    def _arithmetic(self, body: str) -> int | None:
        """``$(( ... ))`` over whole numbers and known variables (``$N``, ``${N}``, ``N``):
        ``+ - * / %`` and parentheses, as the shell computes them; None when a variable is not
        known or the expression is anything else."""
        names = re.sub(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", r"\1", body)
        unknown = False

        def value(match: re.Match) -> str:
            nonlocal unknown
            text = self.env.get(match.group(0), "")
            if not text.strip().lstrip("-").isdigit():
                unknown = True
            return f"({text.strip()})"

        expr = re.sub(r"[A-Za-z_][A-Za-z0-9_]*", value, names)
        if unknown or not re.fullmatch(r"[\d\s+\-*/%()]*\d[\d\s+\-*/%()]*", expr):
            return None
        return _evaluate(expr)

    def _missing(self, name: str, ref: str) -> str:
        origin = self.origins.get(name)
        if origin is None and name in self.from_arguments:
            given = self.from_arguments[name]
            origin = f"{name} is set only from the script's own arguments ({given}), in a branch"
        return f"{ref}{origin[len(name) :]}" if origin else ref


_DECLARING = ("export", "local", "declare", "typeset", "readonly")
# what makes a variable a function's own where it is written in one
_LOCAL = ("local", "declare", "typeset")
_UNSET = object()  # a variable that was not set (_Splitter._local)
_OPENING = ("then", "else", "do", "{")  # keywords a statement may follow on its line
# "${NAME[@]}" (or ${NAME[*]}) as a whole word: every element of the array NAME
# "${NAME[@]}" (or ${NAME[*]}) as a whole word: every element of the array NAME; and
# ${NAME[@]+"${NAME[@]}"}, the same written so that `set -u` allows an empty array
_ARRAY_USE = LazyPattern(
    r'(?:("?)\$\{([A-Za-z_][A-Za-z0-9_]*)\[[@*]\]\}\1'
    r'|\$\{([A-Za-z_][A-Za-z0-9_]*)\[@\]\+"\$\{\3\[@\]\}"\})(?=[\s;&|)]|$)'
)


_PLAIN_REFERENCE = LazyPattern(r"\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})")


def _reference(missing: str) -> str:
    """The ``$NAME`` / ``${...}`` a missing reference (_missing) begins with."""
    return missing.split(" ", 1)[0]


def _array_head(words: list[Word]) -> bool:
    """Whether ``words`` open a bash array assignment: ``NAME=`` or ``NAME+=`` just before
    its ``(``, alone or after ``local``, ``declare -a``, ``export``."""
    if not words or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*\+?=", words[-1].text):
        return False
    if words[-1].quoted:
        return False
    before = words[:-1]
    if before and before[0].text in _OPENING:  # `then ARGS=(...)`, `else ARGS+=(...)`
        before = before[1:]
    return all(w.text in _DECLARING or w.text.startswith("-") for w in before)


# compound commands' words: a command of one of these alone is no statement
_KEYWORDS = ("if", "elif", "else", "then", "fi", "while", "until", "for", "do", "done", "case")
_KEYWORDS += ("esac", "select")


@dataclass
class _Block:
    """An if/case/loop block the script is in: whether the branch being read runs ("taken"),
    does not ("skipped") or may ("unknown"); whether an earlier branch was taken, and whether
    one had a test hbmlint could not evaluate (then an ``else`` may run)."""

    state: str
    taken: bool = False
    unsure: bool = False


_STATES = {True: "taken", False: "skipped", None: "unknown"}


def _test(words: list[Word]) -> bool | None:
    """The value of a simple ``[ ... ]`` / ``[[ ... ]]`` / ``test ...`` condition over words
    already expanded (-n, -z, =, ==, !=, a lone word), or None: any other command, or a word
    hbmlint could not read."""
    negate = bool(words) and words[0].text == "!"
    words = words[1:] if negate else words
    if not words or words[0].text not in ("[", "[[", "test"):
        return None
    inner = words[1:]
    if inner and inner[-1].text in ("]", "]]"):
        inner = inner[:-1]
    if any(w.unresolved for w in inner):
        return None
    text = [w.text for w in inner]
    if any("$" in t and ARGUMENT.search(t) for t in text):
        return None  # `[ -n "$1" ]`: the argument a run is given, not the text "$1"
    if len(text) == 1:
        value = text[0] != ""
    elif len(text) == 2 and text[0] in ("-n", "-z"):
        value = (text[1] != "") == (text[0] == "-n")
    elif len(text) == 3 and text[1] in ("=", "==", "!="):
        value = (text[0] == text[2]) == (text[1] != "!=")
    else:
        return None
    return value != negate


# programs that may change a file named among their words (sed -i, yq -i, a copy over it)
_FILE_CHANGERS = frozenset(
    {"sed", "perl", "yq", "jq", "awk", "gawk", "python", "python3", "cp", "mv", "ln", "rm"}
    | {"truncate", "dd", "install", "envsubst", "patch"}
)
_COPIES = ("cp", "install", "ln")

# programs whose here-document is a script they run: a shell, a batch job's script, a remote
# shell (besides any shell named among the command's words: `docker exec -i c bash <<EOF`)
_SCRIPT_READERS = ("sbatch", "ssh", "srun", "salloc")


def _unquoted(word: str | None) -> str | None:
    """A ``${VAR:-word}`` word after the shell's quote removal where quotes wrap all of it
    (``${KV_DTYPE:-"auto"}`` is ``auto``); any other word as written."""
    if word and len(word) >= 2 and word[0] == word[-1] and word[0] in "\"'":
        inner = word[1:-1]
        if word[0] not in inner:
            return inner
    return word


def _runs_a_shell(words: list[Word]) -> bool:
    names = [w.text.rsplit("/", 1)[-1] for w in words]
    return bool(names) and (names[0] in _SCRIPT_READERS or any(n in SHELLS for n in names))


def _evaluate(expr: str) -> int | None:
    """A whole-number expression of ``+ - * / %`` and parentheses, with the shell's integer
    division; None when malformed or dividing by zero. Parsed here, never eval'd."""
    tokens = re.findall(r"\d+|[-+*/%()]", expr)
    pos = 0

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def take() -> str:
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def atom() -> int:
        token = take()
        if token == "(":
            result = total()
            if take() != ")":
                raise ValueError
            return result
        if token == "-":
            return -atom()
        if token == "+":
            return atom()
        return int(token)

    def product() -> int:
        result = atom()
        while peek() in ("*", "/", "%"):
            op, right = take(), atom()
            if op == "*":
                result *= right
            else:
                quotient = abs(result) // abs(right)  # C division: towards zero
                quotient = quotient if (result >= 0) == (right > 0) else -quotient
                result = quotient if op == "/" else result - quotient * right
        return result

    def total() -> int:
        result = product()
        while peek() in ("+", "-"):
            result = result + product() if take() == "+" else result - product()
        return result

    try:
        result = total()
    except (ValueError, IndexError, ZeroDivisionError):
        return None
    return result if pos == len(tokens) else None


def _brace_end(s: str, open_at: int) -> int:
    """The index of the ``}`` that closes the ``${`` at ``open_at`` (the last index when none
    does): braces, ``$( )`` and quotes inside its default word are skipped
    (``${ROOT:-$(cd -- "${DIR}/.." && pwd)}``), not taken for its end; so is a ``}`` inside
    double quotes (``${P:-"{{ instruction }}"}``) unless it closes a ``${`` opened there
    (``${A[@]+"${A[@]}"}``): each ``${`` starts its own quoting."""
    outer: list[bool] = []  # the quoting around each open ${
    i = open_at
    quoted = False
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            quoted = not quoted
        elif c == "'" and not quoted:
            close = s.find("'", i + 1)
            i = len(s) if close < 0 else close + 1
            continue
        elif s.startswith("$(", i):
            i = _closing(s, i + 1)
            continue
        elif s.startswith("${", i):
            outer.append(quoted)
            quoted = False
            i += 2
            continue
        elif c == "}" and not quoted:
            quoted = outer.pop()
            if not outer:
                return i
        i += 1
    return len(s) - 1


def _closing(s: str, open_at: int) -> int:
    """The index after the parenthesis that closes the one at ``open_at``."""
    depth = 0
    for i in range(open_at, len(s)):
        if s[i] == "(":
            depth += 1
        elif s[i] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(s)


# `name() {`, `function name {`, `function name() {`: a shell function's definition
_FUNCTION = LazyPattern(
    r"^[ \t]*(?:function[ \t]+([A-Za-z_][\w:.-]*)[ \t]*(?:\([ \t]*\))?"
    r"|([A-Za-z_][\w:.-]*)[ \t]*\([ \t]*\))[ \t\n]*\{",
    re.M,
)


def shell_functions(script: str) -> dict[str, tuple[int, int]]:
    """Each shell function the script defines, with where its body starts and ends."""
    found: dict[str, tuple[int, int]] = {}
    for match in _FUNCTION.finditer(script):
        name = match.group(1) or match.group(2)
        end = _closing_brace(script, match.end())
        if name not in found and end is not None:
            found[name] = (match.end(), end)
    return found


def _closing_brace(script: str, at: int) -> int | None:
    """Where the ``}`` closing a function body that opens before ``at`` is: braces that stand
    as words are counted; quotes, comments and ``${...}`` expansions are skipped."""
    depth, i = 1, at
    while i < len(script):
        c = script[i]
        if c in "'\"":
            end = script.find(c, i + 1)
            i = len(script) if end < 0 else end + 1
            continue
        if c == "\\":
            i += 2
            continue
        if c == "#" and (i == 0 or script[i - 1] in " \t\n;"):
            end = script.find("\n", i)
            i = len(script) if end < 0 else end
            continue
        if c == "$" and script.startswith("${", i):
            end = script.find("}", i)
            i = len(script) if end < 0 else end + 1
            continue
        before = script[i - 1] if i else "\n"
        after = script[i + 1] if i + 1 < len(script) else "\n"
        if c == "{" and before in " \t\n;" and after in " \t\n":
            depth += 1
        elif c == "}" and before in " \t\n;" and after in " \t\n;&|)":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def split_script(
    script: str,
    env: Mapping[str, str],
    locator: Locator | None,
    span: Span,
    origins: Mapping[str, str] | None = None,
    exports: list[dict[str, Exported]] | None = None,
    open_env: bool = False,
    written: list[tuple[Written, Span]] | None = None,
    comment_breaks: list[tuple[int, int]] | None = None,
    argument_defaults: Callable[[int], bool] | None = None,
    sourced: Callable[[str], str | None] | None = None,
    scoped: bool = False,
) -> list[list[Token]]:
    """The simple commands of ``script`` as tokens placed in the file. ``origins`` names the
    variables that are set but whose value is not known, with where they come from; into
    ``exports``, when given, go the variables each command inherits from the script's own
    ``export NAME=value`` lines (offsets are into ``script``). ``open_env``: what runs the
    script may set variables it does not (a launch script, not a container's command). Into
    ``written``, when given, go the files the script writes (here-documents, echo), each with
    where its first line is in the file (the writing command's place where not found). Into
    ``comment_breaks``, when given, go the comments ending in `\\` that end a continued command
    (offsets of the `#` and of the command's first word). ``argument_defaults``, where given,
    says at which offsets a default of the script's own arguments (``${1:-word}``) is taken:
    the script run with none (outside its functions). ``sourced`` gives the text of a file the
    script sources (``source FILE``), whose assignments then hold for the commands after it.
    ``scoped``: a variable a shell function makes its own (``local NAME=...``, ``declare``,
    ``typeset``) holds its value in that function's body only; after it, the script's own."""
    commands = []
    splitter = _Splitter(script, env, origins or {}, open_env, argument_defaults)
    splitter.sourced = sourced
    if scoped:
        splitter.scoped()
    splitter.run()
    if comment_breaks is not None:
        comment_breaks.extend(splitter.comment_breaks)
    placed: dict[int, Span] = {}  # an array element's place, by id of the word written
    for is_command, words in splitter.events:
        tokens = []
        last: tuple[int, int, Span] | None = None
        for w in words:
            if w.origin is not None and id(w.origin) in placed:
                where = placed[id(w.origin)]
            elif last is not None and (w.raw_start, w.raw_end) == last[:2]:
                # the next word of one written word a variable split (`$VLLM_ARGS` holding a
                # flag and its value): at the same place, not searched for again further on
                where = last[2]
            else:
                where = locator.locate(script[w.raw_start : w.raw_end]) if locator else span
                last = (w.raw_start, w.raw_end, where)
            if not is_command:
                placed[id(w)] = where
            tokens.append(Token(w.text, where, tuple(w.unresolved)))
        if is_command:
            commands.append(tokens)
    if written is not None:
        for file in splitter.written:
            at = file.first_writer  # the command that wrote the text's first line
            writer = commands[at - 1][0].span if 0 < at <= len(commands) else span
            written.append((file, _first_line(script, file, locator, writer)))
    if exports is not None:
        for seen in splitter.exports:
            exports.append(
                {
                    name: Exported(w.text.split("=", 1)[1], w.raw_start, tuple(w.unresolved))
                    for name, w in seen.items()
                }
            )
    return commands


def _first_line(script: str, file: Written, locator: Locator | None, writer: Span) -> Span:
    """Where the first written line of ``file`` is in the linted file: searched for after the
    command that writes it."""
    body = script[file.start :]
    line = next((raw.strip() for raw in body.splitlines() if raw.strip()), "")
    if not line or locator is None:
        return writer
    found = Locator(locator.text, Span(writer.line, writer.column)).locate(line[:60])
    return found if (found.line, found.column) >= (writer.line, writer.column) else writer


def split_words(
    text: str,
    env: Mapping[str, str],
    locator: Locator | None,
    span: Span,
    origins: Mapping[str, str] | None = None,
) -> list[Token]:
    """A flag string (``VLLM_ADDITIONAL_ARGS``, a Compose ``command``) as one list of words."""
    commands = split_script(text, env, locator, span, origins)
    return [token for command in commands for token in command]


def shell_script(argv: list[Token]) -> tuple[Token, int] | None:
    """For ``sh -c SCRIPT`` (``bash -lc``, ``/bin/sh -ec --``...): the script word and its index.
    So is ``eval "$CMD"``: the shell reads the one word as a script of its own."""
    if len(argv) == 2 and argv[0].text == "eval":
        return argv[1], 1
    if not argv or argv[0].text.rsplit("/", 1)[-1] not in SHELLS:
        return None
    i = 1
    saw_c = False
    while i < len(argv) and argv[i].text.startswith("-"):
        option = argv[i].text
        if option == "--":
            i += 1
            break
        if not option.startswith("--") and "c" in option:
            saw_c = True
        i += 1
    if saw_c and i < len(argv):
        return argv[i], i
    return None


def expand_k8s(
    token: Token, env: Mapping[str, str], origins: Mapping[str, str] | None = None
) -> Token:
    """Kubernetes' own ``$(NAME)`` expansion in command/args (no shell): from the container's
    env; ``$$`` escapes; an unknown name stays as written, and unreadable."""
    if "$" not in token.text:
        return token  # nothing to expand (most words)
    missing: list[str] = []

    def repl(match: re.Match) -> str:
        if match.group(0) == "$$":
            return "$"
        name = match.group(1)
        if name in env:
            return env[name]
        origin = (origins or {}).get(name)
        missing.append(f"{match.group(0)}{origin[len(name) :]}" if origin else match.group(0))
        return match.group(0)

    text = re.sub(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)", repl, token.text)
    return Token(text, token.span, token.unresolved + tuple(missing))
