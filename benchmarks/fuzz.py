"""A seeded mutation fuzzer for hbmlint's promise about bad input.

hbmlint promises that a file it cannot read or understand gets a finding at its file, line and
column, never a traceback nor HBM000 (its internal-error finding); that one bad file never stops
the others from being linted; and exit codes as the design says (0 clean, 1 findings, 2 only for a
usage error or a bug). This script takes the real manifests (tests/fixtures/real/**, examples/**),
breaks them the ways real files break (truncated, a value of the wrong type, keys deleted or
repeated, broken indentation, tabs, CRLF, BOMs, UTF-16, invalid UTF-8, NUL bytes, huge lines,
deep nesting, anchors, alias bombs, merge keys, several documents, tags, Helm templates, broken
shell quoting, repeated or empty flags), lints each mutant in process through the CLI with a
per-mutant time limit, and records every broken promise:

    traceback   an exception escaped the CLI (or hbmlint printed its one-line crash report)
    HBM000      hbmlint's internal-error finding
    hang        the mutant took longer than --timeout seconds
    location    a finding whose line or column is not inside the file it names
    exit        an exit code other than 0 or 1 for a mutant manifest
    output      the JSON report did not parse
    neighbour   the good file linted beside the mutant lost its findings
    executed    a !!python tag was constructed (its command ran)
    unicode-line  a finding outside the file as editors count lines, in a file where PyYAML
                counted NEL, LS or PS (U+0085, U+2028, U+2029) as line breaks (YAML 1.1 does):
                a known difference, counted apart

    python benchmarks/fuzz.py --seed 11 --count 2000            # the summary
    python benchmarks/fuzz.py --seed 11 --count 2000 --save out  # and each failing mutant
    python benchmarks/fuzz.py --replay out/0042-traceback.yaml   # one saved mutant again

The same seed and count make the same mutants. Not a test: it takes minutes, and a new mutator
may find new bugs; the regression tests for what it found live in tests/test_fuzz_regressions.py.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import re
import resource
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED_DIRS = (ROOT / "tests" / "fixtures" / "real", ROOT / "examples")
TEXT_SUFFIXES = {".yaml", ".yml", ".sh", ".env", ".json", ".toml", ""}
# a native manifest whose findings we know; it is linted after every mutant
NEIGHBOUR = """\
apiVersion: hbmlint/v1
kind: ServingManifest
metadata: {name: neighbour}
spec:
  gpu: {type: L4}
  model: {name: meta-llama/Llama-3.1-70B-Instruct}
  serving: {max_model_len: 8192}
"""
MEMORY_LIMIT = 4 * 1024**3


class Hang(BaseException):
    """Raised by the alarm: a BaseException, so that hbmlint's own `except Exception` (which
    turns a bug into HBM000) does not swallow it."""


# --- mutators: each takes the file's bytes and a Random, and returns new bytes -------------

VALUES = [
    "",
    "null",
    "~",
    "true",
    "no",
    "0",
    "-1",
    "-99999999999999999999999",
    "99999999999999999999999999999",
    "1e400",
    "-1e400",
    ".nan",
    ".inf",
    "-.inf",
    "NaN",
    "inf",
    "80Gi",
    "80 GiB",
    "1.5",
    "0x10",
    "0o17",
    "1_000",
    "12:30:00",
    "2026-12-01",
    "\u0661\u0662\u0663",  # Arabic-Indic digits
    "\uff11\uff12\uff18",  # full-width digits
    "[]",
    "{}",
    "[1, 2]",
    "{a: 1}",
    "[[]]",
    "'8192'",
    '"\\ud800"',  # a lone surrogate, through a YAML escape
    '"\\x00"',
    "!!binary aGk=",
    "!!str 5",
    "!!int x",
    "!!float abc",
    "!!set {a}",
    "!!timestamp 2026-01-01",
    "!custom x",
    "&anchor 5",
    "*nowhere",
    "|",
    ">-",
    '"',
    "'",
    "{{ .Values.x }}",
    "${VAR}",
    "${VAR:-}",
    "$(cat /etc/x)",
    "=",
    "-",
    "--",
    "9" * 5000,
    "1" + "0" * 400,
    "0x" + "f" * 300,
    "1.0e+300",
    "9223372036854775808",
]
PYTHON_TAGS = [
    '!!python/object/apply:os.system ["touch {sentinel}"]',
    "!!python/object/apply:os.system\n  - touch {sentinel}",
    "!!python/name:os.system",
    "!!python/object/new:os.system [touch {sentinel}]",
    "!!python/module:os",
]
KEY_VALUE = re.compile(r"^(\s*(?:-\s+)?)([^\s:#][^:#]*?):(\s+)(\S.*)$")
FLAG = re.compile(r"--[A-Za-z][\w-]*(?:=[^\s\"',\]]*|[ \t]+[^\s\"',\]-][^\s\"',\]]*)?")


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _pick_line(lines: list[bytes], rng: random.Random, pattern: re.Pattern | None = None) -> int:
    candidates = [i for i, line in enumerate(lines) if line.strip()]
    if pattern is not None:
        matching = [i for i in candidates if pattern.search(line_text(lines[i]))]
        candidates = matching or candidates
    return rng.choice(candidates) if candidates else 0


def line_text(line: bytes) -> str:
    return line.decode("utf-8", "replace")


def truncate(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    return data[: rng.randint(0, len(data))]


def retype(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    lines = _lines(data)
    i = _pick_line(lines, rng, KEY_VALUE)
    match = KEY_VALUE.match(line_text(lines[i]))
    value = rng.choice(VALUES)
    if match:
        lines[i] = f"{match[1]}{match[2]}:{match[3]}{value}".encode()
    else:
        lines[i] = lines[i] + b" " + value.encode()
    return b"\n".join(lines)


def delete_line(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    lines = _lines(data)
    del lines[_pick_line(lines, rng, KEY_VALUE)]
    return b"\n".join(lines)


def delete_block(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    """A key and everything indented under it."""
    lines = _lines(data)
    i = _pick_line(lines, rng)
    indent = len(lines[i]) - len(lines[i].lstrip())
    end = i + 1
    while end < len(lines) and (
        not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent
    ):
        end += 1
    del lines[i:end]
    return b"\n".join(lines)


def duplicate_line(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    lines = _lines(data)
    i = _pick_line(lines, rng, KEY_VALUE)
    lines.insert(i + rng.choice([0, 1]), lines[i])
    return b"\n".join(lines)


def reindent(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    lines = _lines(data)
    i = _pick_line(lines, rng)
    shift = rng.choice([-3, -2, -1, 1, 2, 3])
    lines[i] = b" " * shift + lines[i] if shift > 0 else lines[i][-shift:]
    return b"\n".join(lines)


def tabs(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    if rng.random() < 0.5:
        return re.sub(rb"(?m)^(  )+", lambda m: b"\t" * (len(m[0]) // 2), data)
    lines = _lines(data)
    i = _pick_line(lines, rng)
    lines[i] = b"\t" + lines[i].lstrip(b" ")
    return b"\n".join(lines)


def line_endings(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    kind = rng.choice([b"\r\n", b"\r", b"\r\n", "\u2028".encode(), "\x85".encode()])
    if rng.random() < 0.5:
        return data.replace(b"\n", kind)
    lines = _lines(data)
    i = _pick_line(lines, rng)
    lines[i] = lines[i] + kind
    return b"\n".join(lines)


def bom(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    return b"\xef\xbb\xbf" + data


def utf16(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    text = data.decode("utf-8", "replace")
    return text.encode(rng.choice(["utf-16", "utf-16-le", "utf-16-be", "utf-32"]))


def invalid_utf8(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    at = rng.randint(0, len(data))
    junk = rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xe9t\xe9", b"\x80\x80\x80"])
    return data[:at] + junk + data[at:]


def nul(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    at = rng.randint(0, len(data))
    return data[:at] + b"\x00" * rng.choice([1, 1, 8]) + data[at:]


def control(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    at = rng.randint(0, len(data))
    char = rng.choice(["\x1b[31m", "\u200b", "\u00a0", "\u202e", "\ufeff", "\x7f", "\x0c"])
    return data[:at] + char.encode() + data[at:]


def long_line(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    lines = _lines(data)
    i = _pick_line(lines, rng)
    size = rng.choice([10_000, 300_000, 3_000_000])
    if rng.random() < 0.5:
        lines[i] = lines[i] + b" " + b"x" * size
    else:
        lines.insert(i, b"# " + b"y" * size)
    return b"\n".join(lines)


def deep_nesting(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    lines = _lines(data)
    i = _pick_line(lines, rng, KEY_VALUE)
    depth = rng.choice([50, 1000, 30_000])
    kind = rng.choice(["flow-list", "flow-map", "block"])
    if kind == "flow-list":
        value = b"[" * depth + b"1" + b"]" * depth
    elif kind == "flow-map":
        value = b"{a: " * depth + b"1" + b"}" * depth
    else:
        depth = min(depth, 2000)
        value = b"\n" + b"\n".join(b"  " * (d + 1) + b"k:" for d in range(depth)) + b" 1"
    match = KEY_VALUE.match(line_text(lines[i]))
    head = f"{match[1]}{match[2]}: ".encode() if match else lines[i] + b" "
    lines[i] = head + value
    return b"\n".join(lines)


def anchors(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    """An anchor on one value and its alias in place of another (a map where a number was
    expected, or the other way round), or a self-referencing alias."""
    lines = _lines(data)
    first, second = _pick_line(lines, rng, KEY_VALUE), _pick_line(lines, rng, KEY_VALUE)
    a, b = KEY_VALUE.match(line_text(lines[first])), KEY_VALUE.match(line_text(lines[second]))
    if not a or not b:
        return data
    if rng.random() < 0.3:
        lines[second] = f"{b[1]}{b[2]}: &loop [*loop]".encode()
        return b"\n".join(lines)
    lines[first] = f"{a[1]}{a[2]}: &fz {a[4]}".encode()
    lines[second] = f"{b[1]}{b[2]}: *fz".encode()  # before the anchor: an undefined alias
    return b"\n".join(lines)


def alias_bomb(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for n in range(1, 10):
        prev = chr(ord("a") + n - 1)
        name = chr(ord("a") + n)
        levels.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]")
    bomb = "\n".join(levels).encode()
    lines = _lines(data)
    i = _pick_line(lines, rng, KEY_VALUE)
    match = KEY_VALUE.match(line_text(lines[i]))
    if match and rng.random() < 0.6:
        indent = match[1].replace("-", " ")
        nested = b"\n".join(indent.encode() + b"  " + line for line in bomb.split(b"\n"))
        lines[i] = f"{match[1]}{match[2]}:".encode() + b"\n" + nested
        return b"\n".join(lines)
    return bomb + b"\n" + data


def merge_keys(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    lines = _lines(data)
    i = _pick_line(lines, rng, KEY_VALUE)
    match = KEY_VALUE.match(line_text(lines[i]))
    if not match:
        return data
    indent = " " * len(match[1])
    merge = rng.choice(["<<: *fzbase", "<<: [*fzbase, *fzbase]", "<<: 5", "<<: [1, 2]", "<<: {}"])
    lines.insert(i, f"{indent}{merge}".encode())
    base = b"fzbase: &fzbase {max_model_len: 4096, tensor_parallel_size: 99}\n"
    return base + b"\n".join(lines)


def documents(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    lines = _lines(data)
    choice = rng.randrange(5)
    if choice == 0:
        lines.insert(_pick_line(lines, rng), b"---")
    elif choice == 1:
        return data + b"\n---\n" + data
    elif choice == 2:
        return b"%YAML 1.2\n---\n" + data + b"\n...\n"
    elif choice == 3:
        return b"%YAML 9.9\n%TAG ! tag:x,2026:\n---\n" + data
    else:
        return data + b"\n---\n" + ctx.other(rng)
    return b"\n".join(lines)


def tags(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    lines = _lines(data)
    i = _pick_line(lines, rng, KEY_VALUE)
    match = KEY_VALUE.match(line_text(lines[i]))
    tag = rng.choice(PYTHON_TAGS).format(sentinel=ctx.sentinel)
    if match:
        tag = tag.replace("\n", "\n" + " " * (len(match[1]) + 2))
        lines[i] = f"{match[1]}{match[2]}: {tag}".encode()
    else:
        lines.insert(0, f"x: {tag}".encode())
    return b"\n".join(lines)


def helm(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    lines = _lines(data)
    i = _pick_line(lines, rng, KEY_VALUE)
    match = KEY_VALUE.match(line_text(lines[i]))
    choice = rng.randrange(4)
    if choice == 0 and match:
        value = rng.choice(
            ["{{ .Values.x }}", "{{ .Values.x | quote }}", '"{{ .Values.x }}"', "{{- .Values.x -}}"]
        )
        lines[i] = f"{match[1]}{match[2]}: {value}".encode()
    elif choice == 1:
        lines.insert(i, b"{{- if .Values.enabled }}")
        lines.insert(min(len(lines), i + 3), b"{{- end }}")
    elif choice == 2:
        lines.insert(i, b'{{- include "x.labels" . | nindent 4 }}')
    else:
        lines.insert(i, b"{{- range .Values.models }}")  # never closed
    return b"\n".join(lines)


def shell_quoting(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    lines = _lines(data)
    i = _pick_line(lines, rng, re.compile(r"--|vllm|sglang|python|text-generation|trtllm"))
    at = rng.randint(0, len(lines[i]))
    junk = rng.choice(
        [b"'", b'"', b"\\", b"$(", b"${", b"`", b"<<EOF", b" && ", b";", b" | ", b" \\", b"\\\n"]
    )
    lines[i] = lines[i][:at] + junk + lines[i][at:]
    return b"\n".join(lines)


def flags(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    text = data.decode("utf-8", "surrogateescape")
    found = list(FLAG.finditer(text))
    if not found:
        return retype(data, rng, ctx)
    m = rng.choice(found)
    flag = m[0].split("=")[0].split()[0]
    choice = rng.randrange(5)
    if choice == 0:  # repeated
        new = m[0] + " " + m[0]
    elif choice == 1:  # empty value
        new = rng.choice([f"{flag}=", f'{flag} ""', f"{flag} ''", flag])
    elif choice == 2:  # a value of the wrong kind
        value = rng.choice(VALUES[:30])
        new = f"{flag}={value}" if rng.random() < 0.5 else f"{flag} {value}"
    elif choice == 3:  # repeated with another value
        new = f"{m[0]} {flag}={rng.choice(['1', '0', '-1', 'auto', '', 'x'])}"
    else:  # the flag's name broken
        new = rng.choice([flag.upper(), flag[1:], flag + "-", flag.replace("-", "_"), "--"])
    return (text[: m.start()] + new + text[m.end() :]).encode("utf-8", "surrogateescape")


def keys(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    lines = _lines(data)
    i = _pick_line(lines, rng, KEY_VALUE)
    match = KEY_VALUE.match(line_text(lines[i]))
    if not match:
        return data
    key = rng.choice(["1", "null", "true", "1.5", "[a, b]", "{a: 1}", '""', "? complex"])
    lines[i] = f"{match[1]}{key}: {match[4]}".encode()
    return b"\n".join(lines)


def splice(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    """Lines of another seed in place of some of this one's."""
    mine, theirs = _lines(data), _lines(ctx.other(rng))
    a = rng.randrange(len(mine))
    b = rng.randrange(len(theirs))
    mine[a : a + rng.randint(0, 5)] = theirs[b : b + rng.randint(1, 8)]
    return b"\n".join(mine)


def empty(data: bytes, rng: random.Random, ctx: Context) -> bytes:
    return rng.choice([b"", b"\n", b"   \n\t\n", b"# only a comment\n", b"---\n", b"---\n---\n"])


MUTATORS: dict[str, Callable[[bytes, random.Random, Context], bytes]] = {
    f.__name__: f
    for f in (
        truncate,
        retype,
        delete_line,
        delete_block,
        duplicate_line,
        reindent,
        tabs,
        line_endings,
        bom,
        utf16,
        invalid_utf8,
        nul,
        control,
        long_line,
        deep_nesting,
        anchors,
        alias_bomb,
        merge_keys,
        documents,
        tags,
        helm,
        shell_quoting,
        flags,
        keys,
        splice,
        empty,
    )
}
# applied last (they change the whole file's encoding or size)
LAST = {"bom", "utf16", "line_endings", "empty", "truncate"}


@dataclass
class Context:
    seeds: list[bytes]
    sentinel: Path

    def other(self, rng: random.Random) -> bytes:
        return rng.choice(self.seeds)


# --- seeds and running ---------------------------------------------------------------------


@dataclass
class Seed:
    unit: Path  # what is copied: the file, or the fixture's folder
    file: Path  # the file inside it that is mutated


def seeds() -> list[Seed]:
    found = []
    for top in SEED_DIRS:
        for path in sorted(top.rglob("*")):
            if not path.is_file() or path.suffix not in TEXT_SUFFIXES:
                continue
            first = path.relative_to(top).parts[0]
            found.append(Seed(top / first, path))
    return found


@dataclass
class Outcome:
    problems: list[tuple[str, str]] = field(default_factory=list)  # (kind, signature)
    seconds: float = 0.0


def _frame_signature(tb: traceback.StackSummary, exc: BaseException) -> str:
    ours = [f for f in tb if "/hbmlint/" in f.filename.replace(os.sep, "/")]
    where = ours[-1] if ours else (tb[-1] if tb else None)
    place = f"{Path(where.filename).name}:{where.lineno} {where.name}" if where else "?"
    return f"{type(exc).__name__} at {place}"


class Runner:
    def __init__(self, timeout: float) -> None:
        from click.testing import CliRunner

        import hbmlint.lint
        from hbmlint.cli import main

        self.main = main
        self.cli = CliRunner()
        self.timeout = timeout
        self.crashes: list[str] = []  # signatures of exceptions lint_file raised (HBM000)
        original = hbmlint.lint.lint_file

        def recording_lint_file(*args, **kwargs):
            try:
                return original(*args, **kwargs)
            except Exception as exc:
                tb = traceback.extract_tb(exc.__traceback__)
                self.crashes.append(_frame_signature(tb, exc))
                raise

        hbmlint.lint.lint_file = recording_lint_file
        signal.signal(signal.SIGALRM, self._alarm)

    @staticmethod
    def _alarm(signum, frame):
        raise Hang()

    def run(self, args: list[str]) -> tuple[object, float, str | None]:
        self.crashes.clear()
        start = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, self.timeout)
        try:
            result = self.cli.invoke(self.main, args, catch_exceptions=True)
            hang = None
        except Hang:
            result, hang = None, f"over {self.timeout:g} s"
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        return result, time.perf_counter() - start, hang


def _decoded(raw: bytes) -> str:
    for encoding in ("utf-8-sig", "utf-16", "utf-32"):
        if encoding != "utf-8-sig" and not raw.startswith(
            (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")
        ):
            continue
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    return raw.decode("utf-8", "replace")


LINE_BREAK = re.compile(r"\r\n|\r|\n")  # SARIF's and editors' line breaks
# YAML 1.1 (which PyYAML reads) also breaks lines at NEL, LS and PS; editors do not
YAML11_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


def location_problem(finding: dict, base: Path) -> str | None:
    """Why a finding's position is not inside the file it names, or None. A line is what an
    editor shows: ended by LF, CR LF or CR (after a final line break, the empty line where an
    editor puts the cursor); a column may be one past the line's last character."""
    name = finding.get("file")
    line, column = finding.get("line"), finding.get("column")
    if not isinstance(line, int) or not isinstance(column, int) or line < 1 or column < 1:
        return f"line {line!r} column {column!r}"
    path = Path(name) if Path(name).is_absolute() else base / name
    if not path.is_file():
        return None  # a file named but not ours to measure (a model folder, a URL)
    text = _decoded(path.read_bytes())
    lines = LINE_BREAK.split(text)
    # PyYAML counted these as line breaks: what follows one is a line further on than editors
    shifted = YAML11_BREAK.search(text) and len(YAML11_BREAK.split(text)) > len(lines)
    if line > len(lines):
        return "unicode-break" if shifted else f"line {line} of {len(lines)}"
    width = len(lines[line - 1])
    if column > width + 1:
        return "unicode-break" if shifted else f"column {column} of a line {width} wide"
    end_line, end_column = finding.get("end_line"), finding.get("end_column")
    if isinstance(end_line, int) and (end_line < line or end_line > len(lines) + 1):
        return f"end line {end_line} (line {line}, {len(lines)} lines)"
    if isinstance(end_column, int) and end_line == line and end_column < column:
        return f"end column {end_column} before column {column}"
    return None


# beside each lint, one mutant in five is also fixed (--diff: written nowhere) and budgeted
EXTRA = (
    ["lint", "--diff", "--unsafe-fixes", "--jobs", "1"],
    ["budget", "--format", "json"],
)


def check(
    runner: Runner,
    unit: Path,
    neighbour: Path,
    base: Path,
    sentinel: Path,
    expected: set,
    extra: tuple = (),
) -> Outcome:
    outcome = Outcome()
    args = ["lint", "--format", "json", "--jobs", "1", str(unit), str(neighbour)]
    result, outcome.seconds, hang = runner.run(args)
    if hang:
        outcome.problems.append(("hang", hang))
        return outcome
    for signature in runner.crashes:
        outcome.problems.append(("HBM000", signature))
    exc = result.exception
    if exc is not None and not isinstance(exc, SystemExit):
        tb = traceback.extract_tb(result.exc_info[2]) if result.exc_info else []
        outcome.problems.append(("traceback", _frame_signature(tb, exc)))
    stderr = getattr(result, "stderr", "") or ""
    if "internal error" in stderr or "Traceback" in stderr:
        outcome.problems.append(("traceback", stderr.strip().splitlines()[-1][:160]))
    if result.exit_code not in (0, 1):
        outcome.problems.append(("exit", f"exit {result.exit_code}: {stderr.strip()[:160]}"))
    if sentinel.exists():
        outcome.problems.append(("executed", "a !!python tag ran"))
        sentinel.unlink()
    for command in extra:  # the fix writer and the budget view read the same broken file
        other, seconds, hang = runner.run([*command, str(unit)])
        outcome.seconds += seconds
        if hang:
            outcome.problems.append(("hang", f"{command[0]} {command[1]}: {hang}"))
            continue
        for signature in runner.crashes:
            outcome.problems.append(("HBM000", f"{command[1]}: {signature}"))
        if other.exception is not None and not isinstance(other.exception, SystemExit):
            tb = traceback.extract_tb(other.exc_info[2]) if other.exc_info else []
            signature = _frame_signature(tb, other.exception)
            outcome.problems.append(("traceback", f"{command[1]}: {signature}"))
        if other.exit_code not in (0, 1):
            shown = (getattr(other, "stderr", "") or "").strip()[:160]
            outcome.problems.append(("exit", f"{command[1]}: exit {other.exit_code}: {shown}"))
    try:
        findings = json.loads(result.stdout) if result.exit_code in (0, 1) else []
    except ValueError:
        outcome.problems.append(("output", "JSON report did not parse"))
        return outcome
    near = {(f["code"], f["line"]) for f in findings if Path(f["file"]).name == neighbour.name}
    if not expected <= near:
        outcome.problems.append(("neighbour", f"neighbour lost {sorted(expected - near)}"))
    for finding in findings:
        if finding.get("code") == "HBM000" and not runner.crashes:
            outcome.problems.append(("HBM000", finding.get("message", "")[:160]))
        problem = location_problem(finding, base)
        if problem == "unicode-break":
            outcome.problems.append(("unicode-line", "a line counted at a NEL, LS or PS"))
        elif problem:
            outcome.problems.append(("location", f"{finding.get('code')}: {problem}"))
    return outcome


def mutate(seed: Seed, rng: random.Random, ctx: Context) -> tuple[bytes, list[str]]:
    data = seed.file.read_bytes()
    names = rng.sample(sorted(MUTATORS), k=rng.choice([1, 1, 1, 2, 2, 3]))
    names.sort(key=lambda n: n in LAST)
    for name in names:
        data = MUTATORS[name](data, rng, ctx)
    return data, names


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--count", type=int, default=1000, help="mutants to lint")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds per mutant")
    parser.add_argument("--save", type=Path, help="a folder for each failing mutant")
    parser.add_argument("--json", type=Path, help="write the summary here")
    parser.add_argument("--replay", type=Path, help="lint this one file as a mutant")
    parser.add_argument("-v", "--verbose", action="store_true")
    options = parser.parse_args()
    replay = options.replay.resolve() if options.replay else None

    os.environ["HF_HUB_OFFLINE"] = "1"  # never reach the internet
    work = Path(tempfile.mkdtemp(prefix="hbmlint-fuzz-"))
    os.environ["HF_HOME"] = str(work / "hf-home")
    os.environ["XDG_CACHE_HOME"] = str(work / "cache")
    os.environ.pop("HBMLINT_TRACEBACK", None)
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    os.chdir(work)  # no configuration file of the repository applies
    sentinel = work / "PWNED"
    neighbour = work / "neighbour.yaml"
    neighbour.write_text(NEIGHBOUR)
    runner = Runner(options.timeout)
    first, _, _ = runner.run(["lint", "--format", "json", "--jobs", "1", str(neighbour)])
    expected = {(f["code"], f["line"]) for f in json.loads(first.stdout)}
    assert expected, "the neighbour must have findings to lose"

    if replay:
        outcome = check(runner, replay, neighbour, work, sentinel, expected, EXTRA)
        for kind, signature in outcome.problems:
            print(f"{kind}: {signature}")
        print(f"{outcome.seconds:.2f} s, {len(outcome.problems)} problems")
        return 1 if outcome.problems else 0

    all_seeds = seeds()
    ctx = Context([s.file.read_bytes() for s in all_seeds], sentinel)
    rng = random.Random(options.seed)
    kinds: collections.Counter = collections.Counter()
    by_mutator: collections.Counter = collections.Counter()
    distinct: dict[tuple[str, str], list[str]] = {}
    failing = 0
    slowest: list[tuple[float, str]] = []
    started = time.perf_counter()
    if options.save:
        options.save.mkdir(parents=True, exist_ok=True)
    for n in range(options.count):
        seed = all_seeds[rng.randrange(len(all_seeds))]
        data, names = mutate(seed, rng, ctx)
        case = work / f"case{n}"
        if seed.unit.is_dir():
            shutil.copytree(seed.unit, case / seed.unit.name)
            unit = case / seed.unit.name
            target = unit / seed.file.relative_to(seed.unit)
        else:
            case.mkdir()
            unit = target = case / seed.file.name
        target.write_bytes(data)
        extra = (EXTRA[n // 5 % 2],) if n % 5 == 0 else ()
        outcome = check(runner, unit, neighbour, work, sentinel, expected, extra)
        label = f"{seed.file.relative_to(ROOT)} <- {'+'.join(names)}"
        slowest.append((outcome.seconds, label))
        if outcome.problems:
            failing += 1
            for kind, signature in dict.fromkeys(outcome.problems):
                kinds[kind] += 1
                distinct.setdefault((kind, signature), []).append(label)
            for name in names:
                by_mutator[name] += 1
            if options.save:
                kind = outcome.problems[0][0]
                saved = options.save / f"{n:04d}-{kind}-{target.name}"
                saved.write_bytes(data)
            if options.verbose:
                print(f"#{n} {label}: {outcome.problems}", file=sys.stderr)
        shutil.rmtree(case, ignore_errors=True)
    elapsed = time.perf_counter() - started
    shutil.rmtree(work, ignore_errors=True)

    print(
        f"seed {options.seed}, {options.count} mutants of {len(all_seeds)} files, {elapsed:.0f} s"
    )
    print(f"mutants with a broken promise: {failing}")
    for kind, count in kinds.most_common():
        print(f"  {kind:10} {count}")
    print(f"distinct causes: {len(distinct)}")
    for (kind, signature), labels in sorted(distinct.items(), key=lambda kv: -len(kv[1])):
        print(f"  [{kind}] {signature}  x{len(labels)}  e.g. {labels[0]}")
    if by_mutator:
        print(
            "mutators in failing mutants: "
            + ", ".join(f"{k} {v}" for k, v in by_mutator.most_common())
        )
    slowest.sort(reverse=True)
    print("slowest: " + "; ".join(f"{s:.1f} s {label}" for s, label in slowest[:3]))
    if options.json:
        summary = {
            "seed": options.seed,
            "count": options.count,
            "failing": failing,
            "kinds": dict(kinds),
            "distinct": [
                {"kind": k, "signature": s, "count": len(v), "example": v[0]}
                for (k, s), v in distinct.items()
            ],
        }
        options.json.write_text(json.dumps(summary, indent=2) + "\n")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
