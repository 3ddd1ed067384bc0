"""What every engine command-line parser shares: words that remember where they sit in the
user's file, a flag table, value parsers, and the EngineCommand a parser fills in.

An EngineCommand holds the settings read from one engine invocation as Deployment field paths
("serving.max_model_len") with the span of the flag that set each one; build.py turns it into a
Deployment. Nothing here computes memory.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from typing import TYPE_CHECKING, Any

from ..catalog import dated_build, release, release_at_most
from ..lazyre import LazyPattern
from ..records import dataclass
from ..yamlsrc import Span

_set = object.__setattr__  # a frozen record's fields are set past its __setattr__
_NO_REFERENCES = ()  # Token's default unresolved, the one empty tuple


@dataclass(frozen=True, init=False)
class Token:
    """One word of a command line, after quote removal and variable expansion."""

    text: str
    span: Span
    unresolved: tuple[str, ...] = ()  # variables in the word that could not be expanded

    def __init__(self, text: str, span: Span, unresolved: tuple[str, ...] = ()) -> None:
        # several words a container, every file: each field set as the dataclass's own
        # __init__ does (object.__setattr__, it is frozen), looked up once a module. Not
        # through self.__dict__: asking for it makes the instance a dict of its own, and every
        # later read of a word's text then misses Python 3.11's fast path for attributes kept
        # in the instance (a word's text is read by every pass over a command line)
        _set(self, "text", text)
        _set(self, "span", span)
        if unresolved is not _NO_REFERENCES:
            # most words have none: they read the class's () and True, two calls fewer a word
            # (each object.__setattr__ costs more than a read that falls back to the class)
            _set(self, "unresolved", unresolved)
            # whether every variable in the word was expanded: kept with the word (not a
            # field: equality, hash and repr are the fields'), as the readers ask it of every
            # word, and a property costs a call each time
            _set(self, "readable", not unresolved)

    if TYPE_CHECKING:  # set by __init__; annotated here it would be a dataclass field
        readable: bool
    else:
        readable = True  # a word without unresolved variables (see __init__)


@dataclass(frozen=True)
class Note:
    """A finding an adapter will report: an input-check code, a message and where."""

    code: str
    message: str
    span: Span
    fixes: tuple[str, ...] = ()
    # "warning" where the check's own severity overstates it (a refusal that depends on the
    # engine's release, which the file may not say)
    severity: str | None = None
    # the first release the finding holds for: a manifest that pins an older one gets none
    # (a flag a later release removed, whose replacement that one does not take yet)
    since: str | None = None
    # the first release that refuses what the note is about: a manifest that pins it or a
    # later one gets an error (the engine stops), whatever ``severity`` says
    refused_from: str | None = None


@dataclass
class EngineCommand:
    """The settings one engine invocation sets, as Deployment field paths."""

    engine: str
    span: Span  # where the invocation starts (the launcher word)
    values: dict[str, Any] = field(default_factory=dict)
    locations: dict[str, Span] = field(default_factory=dict)
    notes: list[Note] = field(default_factory=list)
    nodes: int | None = None  # hosts one instance spans (SGLang --nnodes), for GPU counting
    model_unreadable: bool = False  # the model is a variable: no budget can be made
    # the word that starts the engine's arguments (`serve` of `vllm serve`, a `-m` module, or
    # "image" for an engine image's own entrypoint); None where the reader does not say
    launcher: str | None = None
    served_name: Span | None = None  # where vLLM's --served-model-name is, if given
    unread: dict[str, Span] = field(default_factory=dict)  # fields set to a variable, where
    # every flag and word of the invocation as scanned, in order: what a fix rewrites
    # (rewrite.py finds each one's text in the file)
    items: list[Item] = field(default_factory=list)
    # how many times the script this invocation comes from starts an engine (a loop counts as
    # several): more than one share the container's GPUs, so none of them holds all of them
    launches: int = 1
    # values that some of the engine's releases refuse: judged against the manifest's release
    # once it is known (refused_at)
    refusals: list[Refusal] = field(default_factory=list)

    def set(self, path: str, value: Any, span: Span) -> None:
        self.values[path] = value
        self.locations[path] = span

    def note(
        self,
        code: str,
        message: str,
        span: Span,
        *fixes: str,
        severity: str | None = None,
        since: str | None = None,
        refused_from: str | None = None,
    ) -> None:
        self.notes.append(Note(code, message, span, tuple(fixes), severity, since, refused_from))


@dataclass(frozen=True)
class Refusal:
    """A value that some releases of the engine refuse: those from ``since`` on (a choice it
    dropped), or those up to and including ``through`` (a choice added after it). ``what``
    names the value and what the engine says, without the release."""

    what: str
    span: Span
    fix: str
    since: str | None = None
    through: str | None = None
    # the first release that takes the value again (a deprecation later lifted): from it on,
    # and where the manifest names no release, nothing is said
    until: str | None = None
    # None: the refusal is certain at those releases; else why it may not happen (the
    # checkpoint may let the engine take another path), and it is a warning that says so
    unless: str | None = None


def refused_at(
    command: EngineCommand, engine_version: str | None, engine: str
) -> list[tuple[str, Span, str, str]]:
    """(message, where, fix, severity) for each of ``command``'s refusals at ``engine``'s
    release: an error where the manifest's release refuses the value; a warning where the
    manifest names no release and the newest refuses it (an older image may take it); nothing
    where its release takes it. A value only older releases refuse is not judged without a
    release (the newest takes it), nor one a later release takes again (``until``). A refusal
    that depends on more than the release (``unless``) is a warning that says on what."""
    have = release(engine_version)
    out = []
    for refusal in command.refusals:
        until = release(refusal.until)
        if until is not None and (have is None or have >= until):
            continue
        sure = "error" if refusal.unless is None else "warning"
        if refusal.since is not None:
            if have is None:
                message = (
                    f"{refusal.what}: {engine} {refusal.since} and later refuse it, and the "
                    "manifest names no release (check the image's: an older one may take it)"
                )
                if refusal.unless is not None:
                    message += f"; it starts if {refusal.unless}"
                out.append((message, refusal.span, refusal.fix, "warning"))
            elif have >= release(refusal.since):  # type: ignore[operator]
                message = (
                    f"{refusal.what}: {engine} {engine_version} refuses it (from "
                    f"{refusal.since} on)"
                )
                if refusal.unless is not None:
                    message += f"; it starts if {refusal.unless}"
                if release_at_most(engine_version):
                    # the image may hold a release before the refusal
                    message += f"; an image holding a release before {refusal.since} takes it"
                    out.append((message, refusal.span, refusal.fix, "warning"))
                else:
                    out.append((message, refusal.span, refusal.fix, sure))
        through = release(refusal.through)
        if through is not None and have is not None and have <= through:
            message = (
                f"{refusal.what}: {engine} {engine_version} refuses it (releases up to "
                f"{refusal.through} do not take it)"
            )
            if dated_build(engine_version):
                # a development build may already hold the change that came to take it
                message += "; the build may be newer than that release: check it"
                out.append((message, refusal.span, refusal.fix, "warning"))
            else:
                out.append((message, refusal.span, refusal.fix, "error"))
    return out


def settings_left_to_config_file(
    command: EngineCommand, where: Token, engine: str, settings: Mapping[str, str]
) -> None:
    """``--config FILE`` beside a command line: the engine takes every setting the command line
    leaves out from the file, which hbmlint does not follow from here. Of ``settings`` (field
    path -> the engine's flag name), those not on the command line are unread at the file's
    name, not the engine's defaults: no refusal is claimed from a default the file may change
    (TP 1 for a file that says 2)."""
    missing = [path for path in settings if path not in command.values]
    for path in missing:
        command.unread.setdefault(path, where.span)
    if missing:
        names = ", ".join(settings[path] for path in missing)
        command.note(
            "HBM011",
            f"{engine} reads the settings this command line leaves out from --config "
            f"{where.text}, which hbmlint does not follow from here; {names} may be set there, "
            "so they are not taken as the engine defaults",
            where.span,
            "Put those settings on the command line to have them checked",
        )


# NVIDIA Dynamo's multimodal components before its --disaggregation-mode encode (ai-dynamo/dynamo
# components/src/dynamo/{vllm,sglang}/main.py at e20adb4, October 2025): the processor builds a
# tokenizer and no engine (multimodal_handlers/processor_handler.py); the encode worker encodes
# the images for the worker that holds the language model and its KV cache. Dynamo's later
# releases refuse these flags (components/src/dynamo/vllm/backend_args.py, August 2026).
_DYNAMO_MULTIMODAL_ROLES = {
    "--multimodal-processor": (
        "Dynamo's multimodal processor: it tokenizes and formats the requests and starts no engine"
    ),
    "--multimodal-encode-worker": (
        "Dynamo's multimodal encode worker: it encodes the images for the worker that holds the "
        "language model and keeps no KV cache"
    ),
}


# the flags dynamo_multimodal_role looks for, as scan names them
DYNAMO_MULTIMODAL_FLAGS = frozenset(_DYNAMO_MULTIMODAL_ROLES)


def dynamo_multimodal_role(command: EngineCommand) -> None:
    """``python -m dynamo.vllm --multimodal-processor`` (or ``dynamo.sglang``, or
    ``--multimodal-encode-worker``): a component that holds no language model weights or KV
    cache of the kind hbmlint budgets; it is not budgeted (the worker that does is)."""
    if command.model_unreadable:
        return
    for item in command.items:
        role = _DYNAMO_MULTIMODAL_ROLES.get(item.name)
        if role is not None:
            command.model_unreadable = True
            command.note(
                "HBM011",
                f"{item.name} makes this {role}; this deployment is not budgeted",
                item.word.span,
            )
            return


def flag_value(command: EngineCommand, name: str) -> tuple[Item, Token | None] | None:
    """The first ``name`` flag of ``command`` and its value: the word after it where the flag
    table does not know the flag (one the engine added later); None when it is not given."""
    for index, item in enumerate(command.items):
        if item.name != name:
            continue
        value = item.value
        if value is None and index + 1 < len(command.items):
            value = command.items[index + 1].word
        return item, value
    return None


class BadValue(ValueError):
    """A flag's value is malformed; the message says what was expected."""


@dataclass(frozen=True)
class Flag:
    """One flag an engine parser reads. ``parse`` None means a boolean switch."""

    names: tuple[str, ...]  # with their dashes: ("--tensor-parallel-size", "-tp")
    field: str | None = None  # Deployment field path it sets, or None (handled by the parser)
    parse: Callable[[str], Any] | None = None
    multi: bool = False  # takes every following word up to the next flag (argparse nargs="+")
    # the engine's field may be None, and an empty value or "None" sets it so: the flag is as
    # good as not given (vLLM wraps such flags' types in optional_type, vllm/engine/arg_utils.py)
    optional: bool = False


class FlagTable:
    """Flags by every spelling; long names match with ``_`` or ``-`` and by unique prefix, as
    argparse does (published manifests rely on both)."""

    def __init__(self, flags: Sequence[Flag], switches: Sequence[str] = ()):
        self.by_name: dict[str, Flag] = {}
        for flag in flags:
            for name in flag.names:
                self.by_name[normalise(name)] = flag
                if flag.parse is None and not flag.multi and name.startswith("--"):
                    # argparse BooleanOptionalAction
                    self.by_name[normalise("--no-" + name[2:])] = flag
        # Boolean flags of the engine that hbmlint ignores: they never take the next word.
        self.switches = {normalise(s) for s in switches}
        # the spellings in order, for prefix matching: every name starting with a prefix sits
        # in one run from the prefix's bisect point, so an abbreviated or unknown flag is
        # matched against that run, not against every spelling (built once per table)
        self._sorted = sorted(self.by_name)

    def is_switch(self, name: str) -> bool:
        """Whether ``name`` is a boolean switch of the engine: one of the table's with no
        value, or one the engine has that hbmlint ignores (``switches``), as scan reads them."""
        flag = self.lookup(name)
        if flag is not None:
            return flag.parse is None and not flag.multi
        name = normalise(name)
        return name in self.switches or "--" + name[5:] in self.switches

    def lookup(self, name: str) -> Flag | None:
        name = normalise(name)
        flag = self.by_name.get(name)
        if flag is not None:
            return flag
        if name.startswith("--") and len(name) >= 8:
            names, by_name = self._sorted, self.by_name
            if len(names) != len(by_name):
                # by_name was added to after the table was built: order it again
                names = self._sorted = sorted(by_name)
            matches: dict[int, Flag] = {}
            i = bisect_left(names, name)
            while i < len(names) and names[i].startswith(name):
                found = by_name[names[i]]
                matches[id(found)] = found
                i += 1
            if len(matches) == 1:
                return next(iter(matches.values()))
        return None


def normalise(name: str) -> str:
    if name.startswith("--") and "_" in name:
        return "--" + name[2:].replace("_", "-")
    return name


def is_flag(text: str) -> bool:
    # a negative number's second character is a digit; any other word starting with "-" (every
    # flag) is one without trying _NUMBER
    if text[:1] != "-" or len(text) < 2:
        return False
    return not (text[1].isdigit() and _NUMBER.fullmatch(text))


_NUMBER = LazyPattern(r"-?\d+(\.\d*)?([eE][-+]?\d+)?")


@dataclass(frozen=True)
class Item:
    """One step of a scanned command line: a flag with its value, or a positional word."""

    flag: Flag | None
    name: str  # the flag as written, normalised ("" for a positional word)
    word: Token  # the flag word (or the positional word)
    value: Token | None = None  # None for a switch
    values: tuple[Token, ...] = ()  # for multi-valued flags


_new = object.__new__


def _item(
    flag: Flag | None,
    name: str,
    word: Token,
    value: Token | None = None,
    values: tuple[Token, ...] = (),
) -> Item:
    """``Item(flag, name, word, value, values)`` made without its __init__, which sets each of
    the five fields with an object.__setattr__ call (~1.3k instructions each; scan makes an
    Item for every flag and positional word of every command line): the fields given to the
    new record as its __dict__ in one such call. The same fields, so the same equality, hash
    and repr; a dict of its own (not the one Python makes from the instance's shared keys when
    __dict__ is first read), so reading a field later costs about what it did."""
    made = _new(Item)
    _set(
        made,
        "__dict__",
        {"flag": flag, "name": name, "word": word, "value": value, "values": values},
    )
    return made


def scan(tokens: Sequence[Token], table: FlagTable) -> list[Item]:
    """Walk an argv: ``--flag value``, ``--flag=value``, switches, positionals."""
    items: list[Item] = []
    add = items.append
    by_name = table.by_name
    count = len(tokens)
    i = 0
    while i < count:
        word = tokens[i]
        i += 1
        text = word.text
        # is_flag(text), inline: a word of every command line, every file
        if (
            text[:1] != "-"
            or len(text) < 2
            or text == "--"
            or (text[1].isdigit() and _NUMBER.fullmatch(text))
        ):
            add(_item(None, "", word))
            continue
        name, eq, inline = text.partition("=")
        if "_" in name and name.startswith("--"):  # normalise(name), inline
            name = "--" + name[2:].replace("_", "-")
        # the name as written is a flag's own spelling (most are): lookup's first step, without
        # the call; lookup normalises it again (a normalised name is its own normal form) and
        # tries the abbreviations
        flag = by_name.get(name)
        if flag is None:
            flag = table.lookup(name)
        if eq:
            value = Token(inline, word.span, word.unresolved)
            add(_item(flag, name, word, value, (value,)))
            continue
        if flag is not None and flag.multi:
            # argparse nargs="+": every following word up to the next flag
            values = []
            while i < count and not is_flag(tokens[i].text):
                values.append(tokens[i])
                i += 1
            add(_item(flag, name, word, values[0] if values else None, tuple(values)))
            continue
        if flag is not None and flag.parse is None:
            # a switch; `--enforce-eager true` is accepted where the next word is a boolean
            if i < count and tokens[i].text.lower() in ("true", "false"):
                add(_item(flag, name, word, tokens[i], (tokens[i],)))
                i += 1
            else:
                add(_item(flag, name, word))
            continue
        if flag is None and (name in table.switches or "--" + name[5:] in table.switches):
            # a switch, or its argparse --no- form
            add(_item(None, name, word))
            continue
        # a flag with a value (known, or unknown: assume it takes the next word)
        if i < count and not is_flag(tokens[i].text):
            add(_item(flag, name, word, tokens[i], (tokens[i],)))
            i += 1
        else:
            add(_item(flag, name, word))
    return items


# --- value parsers: each returns the value or raises BadValue --------------------------------


# A count beyond a signed 64-bit integer is out of every engine's range (their C++ and torch
# fields are int64 or narrower; vLLM, whose Python ints are unbounded, refuses such a length,
# batch or parallel size against the model and its own limits), and hbmlint's float arithmetic
# would overflow on it.
MAX_COUNT = 2**63 - 1


def json_loads(text: str) -> Any:
    """``json.loads`` for JSON written in a command line (``--speculative-config '{...}'``),
    where JSON nested deeper than Python's recursion limit (``[[[[...``) is a
    ``json.JSONDecodeError`` like any other JSON the engine would refuse: json's decoder raises
    RecursionError for it, which no caller's ``except ValueError`` caught, and the whole file
    became an internal error (HBM000) instead of a finding at the flag."""
    import json  # here: most commands hold no JSON (json's import ~4.6M instructions)

    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", text, 0) from None


def _short(text: str) -> str:
    """A rejected value as a finding shows it: a megabyte of digits is not echoed."""
    text = text.strip()
    return text if len(text) <= 40 else f"{text[:37]}..."


def _whole(text: str) -> int:
    try:
        value = int(text.strip())
    except ValueError:  # also an integer of more than Python's 4,300 digits
        raise BadValue(f"'{_short(text)}' is not a whole number") from None
    if abs(value) > MAX_COUNT:
        raise BadValue(f"{_short(text)} is out of range (more than 2^63 - 1)")
    return value


def _finite(text: str) -> float:
    try:
        value = float(text.strip())
    except ValueError:
        raise BadValue(f"'{_short(text)}' is not a number") from None
    if not math.isfinite(value):
        raise BadValue(f"{_short(text)} is not a finite number")
    return value


def positive_int(text: str) -> int:
    value = _whole(text)
    if value <= 0:
        raise BadValue(f"{value} must be more than zero")
    return value


def nonnegative_int(text: str) -> int:
    value = _whole(text)
    if value < 0:
        raise BadValue(f"{value} must not be negative")
    return value


def positive_float(text: str) -> float:
    value = _finite(text)
    if value <= 0:
        raise BadValue(f"{_short(text)} must be more than zero")
    return value


def nonnegative_float(text: str) -> float:
    value = _finite(text)
    if value < 0:
        raise BadValue(f"{_short(text)} must not be negative")
    return value


def fraction(text: str) -> float:
    """A memory fraction: a number in (0, 1]."""
    try:
        value = float(text.strip())
    except ValueError:
        raise BadValue(f"'{_short(text)}' is not a number between 0 and 1") from None
    if not 0 < value <= 1:
        text = _short(text)
        hint = f" (did you mean {value / 100:g}?)" if 1 < value <= 100 else ""
        raise BadValue(f"{text} is not a fraction between 0 and 1{hint}")
    return value


_HUMAN = re.compile(r"(\d+(?:\.\d+)?)([kKmMgGtT]?)")
_HUMAN_UNITS = {
    **{"": 1, "k": 10**3, "K": 2**10, "m": 10**6, "M": 2**20, "g": 10**9, "G": 2**30},
    **{"t": 10**12, "T": 2**40},
}


def human_int(text: str) -> int:
    """vLLM's human-readable integers: 32k = 32,000; 32K = 32,768 (vllm/utils/argparse_utils)."""
    return readable_int(text, _HUMAN, _HUMAN_UNITS, ("k", "m", "g", "t"), "32768, 32k or 32K")


def readable_int(
    text: str,
    pattern: re.Pattern[str] | LazyPattern,
    units: dict[str, int],
    fractional: tuple[str, ...],
    example: str,
) -> int:
    """A whole number with an engine's size suffixes: ``pattern`` matches (digits, suffix),
    ``units`` scales each suffix ("" for none), and only the suffixes in ``fractional`` (the
    decimal ones) take a fraction; a plain number is read with int(), exact however long."""
    match = pattern.fullmatch(text.strip())
    if not match:
        raise BadValue(f"'{_short(text)}' is not a whole number ({example})")
    number, unit = match.groups()
    unit = unit or ""
    if "." in number and unit not in fractional:
        # a plain number is read with int() (argparse exits on "8192.5"); only the decimal
        # suffixes take a fraction (vllm/utils/argparse_utils.human_readable_int)
        raise BadValue(f"'{_short(text)}' is not a whole number ({example})")
    if "." in number:
        scaled = float(number) * units[unit]
        value = int(scaled) if math.isfinite(scaled) else MAX_COUNT + 1
    else:  # int(), as the engines read a plain number: exact, however long
        value = _whole(number) * units[unit]
    if value > MAX_COUNT:
        raise BadValue(f"{_short(text)} is out of range (more than 2^63 - 1)")
    if value <= 0:
        raise BadValue(f"{_short(text)} must be more than zero")
    return value


def boolean(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("true", "1", "yes", "on"):
        return True
    if lowered in ("false", "0", "no", "off"):
        return False
    raise BadValue(f"'{text}' is not true or false")


def choice(mapping: dict[str, Any], what: str) -> Callable[[str], Any]:
    """A value from a fixed set, mapped to hbmlint's spelling (case-insensitive)."""

    def parse(text: str) -> Any:
        key = text.strip().lower()
        if key in mapping:
            return mapping[key]
        raise BadValue(f"'{text}' is not a {what} ({', '.join(sorted(mapping))})")

    return parse


class Unsupported(Exception):
    """The engine accepts this value but hbmlint cannot model it (an info, not an error)."""


@dataclass(frozen=True)
class Instead:
    """A flag's value that sets another field: vLLM's ``--max-model-len auto`` is no length but
    a request to fit one (serving.max_model_len_auto)."""

    field: str
    value: Any


# Weight formats by the names engines use, mapped onto quantization.yaml's formats. None means
# "the checkpoint says": the budget reads config.json's quantization_config.
QUANTIZATION = {
    "fp8": "fp8",
    "ptpc_fp8": "fp8",
    "fbgemm_fp8": "fp8",
    # ModelOpt's FP8 method yields to the NVFP4 and mixed ones on their exports (vLLM's
    # override_quantization_method: ModelOptFp8Config takes only quant_algo FP8): the
    # checkpoint's hf_quant_config says which
    "modelopt": None,
    "modelopt_mixed": None,
    "modelopt_fp4": "nvfp4",
    "nvfp4": "nvfp4",
    "mxfp4": "mxfp4",
    "awq": "awq",
    "awq_marlin": "awq",
    "gptq": "gptq",
    "gptq_marlin": "gptq",
    "marlin": "gptq",
    "bitsandbytes": "bitsandbytes",
    "experts_int8": "int8",
    "w8a8_int8": "w8a8",
    "w8a8_fp8": "fp8",
    "compressed-tensors": None,
    "none": "none",
}

# Weight dtypes by engine spelling; "auto" means the checkpoint's own dtype.
DTYPES = {
    "auto": None,
    "half": "float16",
    "float16": "float16",
    "fp16": "float16",
    "bfloat16": "bfloat16",
    "bf16": "bfloat16",
    "float": "float32",
    "float32": "float32",
    "fp32": "float32",
}

# KV cache dtypes hbmlint sizes, by engine spelling.
KV_DTYPES = {
    "auto": "auto",
    "fp8": "fp8",
    "fp8_e4m3": "fp8_e4m3",
    # TGI's spelling (huggingface/text-generation-inference@v3.3.7 launcher/src/main.rs
    # KVCacheDtype: fp8_e4m3fn, fp8_e5m2)
    "fp8_e4m3fn": "fp8_e4m3",
    "fp8_e5m2": "fp8_e5m2",
    "fp8_inc": "fp8",
    "bfloat16": "bfloat16",
    "bf16": "bfloat16",
    "float16": "float16",
    "fp16": "float16",
    "half": "float16",
    "float32": "float32",
    # quantized KV caches of current releases, sized at their nominal bits (quantization.yaml
    # kv_cache_dtypes gives the sources); each engine refuses the names it lacks, but a name
    # one release takes is no error here
    **{
        name: name
        for name in (
            "nvfp4",
            "nvfp4_4over6",
            "fp4_mx_block16",
            "fp4_e2m1",
            "mxfp8",
            "int8_per_token_head",
            "fp8_per_token_head",
            "int4_per_token_head",
            "turboquant_k8v4",
            "turboquant_4bit_nc",
            "turboquant_k3v4_nc",
            "turboquant_3bit_nc",
            "octave_k3v4",
            "octave_k3v3",
            "octave_k3v3_compact",
            "ultraquant_4bit",
        )
    },
}
# DeepSeek's FlashMLA pages: FP8 latents with their scales and a BF16 RoPE part (the catalog's
# fp8_ds_mla, 656 bytes a token and layer); the NVFP4 page sized as NVFP4 over the whole
# latent, a little under what its wider RoPE part takes, so the token count errs high
KV_DTYPES["fp8_ds_mla"] = "fp8_ds_mla"
KV_DTYPES["nvfp4_ds_mla"] = "nvfp4"
KV_DTYPES_UNSUPPORTED: tuple[str, ...] = ()


def quantization(text: str) -> str | None:
    key = text.strip().lower()
    if key in QUANTIZATION:
        return QUANTIZATION[key]
    raise Unsupported(
        f"quantization '{text}' is not a format hbmlint sizes; the checkpoint's own format "
        "(config.json) is assumed"
    )


def kv_cache_dtype(text: str) -> str:
    key = text.strip().lower()
    if key in KV_DTYPES:
        return KV_DTYPES[key]
    if key in KV_DTYPES_UNSUPPORTED:
        raise Unsupported(f"KV cache dtype '{text}' is not sized by hbmlint yet; auto is assumed")
    raise BadValue(f"'{text}' is not a KV cache dtype ({', '.join(sorted(KV_DTYPES))})")


def kv_cache_dtype_of(
    engine: str, names: frozenset[str], meant: Mapping[str, str], shown: str = ""
) -> Callable[[str], str]:
    """The --kv-cache-dtype reader of an engine whose releases, all of them together, take only
    ``names``, as written (their argparse choices and validators compare the exact text): a
    name outside them, such as vLLM's fp16, is refused by every release. ``meant`` maps a
    near miss to what to write instead, for the fix; ``shown`` lists the names in the message
    (all of them where empty)."""

    def parse(text: str) -> str:
        name = text.strip()
        if name in names:
            return KV_DTYPES[name]
        lowered = name.lower()
        if lowered in KV_DTYPES_UNSUPPORTED:
            return kv_cache_dtype(text)  # a name of no engine hbmlint sizes: said as before
        hint = meant.get(lowered) or (lowered if lowered in names else None)
        raise BadValue(
            f"'{_short(text)}' is not a KV cache dtype any {engine} release takes "
            f"({shown or ', '.join(sorted(names))}), so it refuses to start"
            + (f"; write {hint}" if hint else "")
        )

    return parse


dtype = choice(DTYPES, "weight dtype")

# Placeholders left for a templating step: Helm, envsubst, "REPLACE_ME", "<your model>", and
# the "__MODEL__" a sed script fills in (tlrmchlsmth/vllm-dp-lws).
# ``${VAR:-default}`` and friends count too: in a Kubernetes command line nothing expands them.
# A dotted ``${vLLM.max_model_len}`` is a tuning tool's parameter (Akamas fills in
# ``${component.parameter}``: graz-dev/vllm-benchmark studies/*/k8s/01-deployment_template.yaml).
# A ``{{`` whose action a shell split into several words (``{{ .Spec.X }}``) is one too.
_PLACEHOLDER = LazyPattern(
    r"\{\{.*?(?:\}\}|$)|\$\{[A-Za-z_][\w.]*(?:[:?+=-][^}]*)?\}|^\$[A-Za-z_][\w.]*$"
    r"|REPLACE[_-]?\w*|<[^<>\s][^<>]*>|__[A-Z][A-Z0-9_]*[A-Z0-9]__"
)


# A placeholder that writes the value it takes when nothing fills it in: envsubst's and Flux's
# `${NAME:=8192}` / `${NAME:-8192}`, Helm's `{{ .Values.maxLen | default 8192 }}` and
# `{{ default 8192 .Values.maxLen }}`
_TEMPLATE_DEFAULT = LazyPattern(
    r"\$\{[A-Za-z_]\w*:?[-=](?P<shell>[^}\s\"'$]+)\}"
    r"|\{\{-?\s*\.[\w.]+\s*\|\s*default\s+(?P<q1>\"?)(?P<piped>[^\s\"{}]+)(?P=q1)\s*-?\}\}"
    r"|\{\{-?\s*default\s+(?P<q2>\"?)(?P<first>[^\s\"{}]+)(?P=q2)\s+\.[\w.]+\s*-?\}\}"
)


def template_default(value: str) -> str | None:
    """The value a placeholder that is the whole of ``value`` takes by default, or None."""
    match = _TEMPLATE_DEFAULT.fullmatch(value.strip())
    if match is None:
        return None
    return match.group("shell") or match.group("piped") or match.group("first")


def placeholder(value: Any) -> str | None:
    """The placeholder in ``value`` if it is a template left unrendered, else None."""
    if not isinstance(value, str):
        return None
    if (
        "{" not in value
        and "$" not in value
        and "<" not in value
        and "__" not in value
        and "REPLACE" not in value
    ):
        # what each alternative of _PLACEHOLDER needs ("{{", "${" or "$", "<", "__",
        # "REPLACE") is not there: most values, which the search would try at each character
        return None
    match = _PLACEHOLDER.search(value)
    return match.group(0) if match else None


RENDER_HINT = (
    "Render the template first and lint the output: "
    "`helm template RELEASE CHART -f values.yaml | hbmlint -` (or envsubst < FILE | hbmlint -)"
)


def unreadable_message(
    shown: str, token: Token, what: str = "the engine default is assumed"
) -> str:
    """Why a word cannot be read. A reference whose source is known reads "NAME is read from
    ..." (or "is set by ..."); one with no known source is said not to be set."""
    refs = list(dict.fromkeys(token.unresolved))
    explained = [r for r in refs if " is " in r]
    unknown = [r for r in refs if " is " not in r]
    reasons = []
    if explained:
        reasons.append("; ".join(explained))
    if unknown:
        verb = "is" if len(unknown) == 1 else "are"
        reasons.append(
            f"{', '.join(unknown)} {verb} not set in the container's env or earlier in the script"
        )
    return (
        f"{shown} is {token.text}, which hbmlint cannot read without running anything "
        f"({'; '.join(reasons)}); {what}"
    )


# How a shell script's array set in a branch says that every value it may hold is flags (or
# nothing): `SPEC_ARGS=()`, then `SPEC_ARGS=(--speculative-config ...)` in an `if`. Such a word
# where a positional model could go is not the model (engines/shell.py writes it).
FLAGS_ONLY = "every value it may hold is flags or nothing"
# The unread key of a command that forwards flags hbmlint cannot read (a wrapper's `"$@"`) and
# writes no parallelism of its own: those flags may set it
FORWARDED_FLAGS = "command.forwarded_flags"


def holds_flags_only(word: Token) -> bool:
    """Whether ``word`` is a script's array that only ever holds flags (FLAGS_ONLY)."""
    return any(FLAGS_ONLY in reason for reason in word.unresolved)


def flags_unread(word: Token) -> str:
    """A word hbmlint cannot read where flags may go (``$EXTRA_ARGS``): why, and that the
    flags it holds are not checked."""
    reason = word.unresolved[0] if word.unresolved else ""
    if reason.startswith(word.text) and reason != word.text:  # "$X is set in a branch ..."
        return f"{reason}; any flags it holds are not checked"
    return (
        f"{word.text} is not set in the container's env or earlier in the script; any flags "
        "it holds are not checked"
    )


def placeholder_message(
    shown: str, token: Token, what: str = "the engine default is assumed"
) -> str:
    return (
        f"{shown} is '{token.text}', a template placeholder ({placeholder(token.text)}) that is "
        f"filled in before the engine sees it; {what}. To check it, lint the rendered manifest "
        "(helm template ... | hbmlint -, or envsubst < FILE | hbmlint -)"
    )


def switch_given_a_value(
    command: EngineCommand, item: Item, engine: str, took_a_value: Mapping[str, str]
) -> None:
    """A switch written with a value (``--enforce-eager=true``, ``--enforce-eager false``):
    the engines' switches are argparse store_true or BooleanOptionalAction flags, which take
    no value ("ignored explicit argument 'true'"; a separate word is left over as an argument,
    which argparse refuses, or `vllm serve` takes as the model). apply() still reads the value
    as meant. ``took_a_value``: the switches that took one in releases before the one given
    (from it on the refusal is judged by the release). Nothing for any other item, nor for a
    template's parameter (apply says it is unread)."""
    flag, value = item.flag, item.value
    if (
        flag is None
        or flag.parse is not None
        or flag.multi
        or flag.field is None
        or value is None
        or not value.readable
        or placeholder(value.text)
    ):
        return
    inline = "=" in item.word.text
    written = item.word.text if inline else f"{item.word.text} {value.text}"
    switch = item.name
    try:
        on = boolean(value.text) == (not switch.startswith("--no-"))
    except BadValue:
        on = None
    base = flag.names[0]
    if on is True:
        fix = f"Write {base} alone, with no value"
    elif on is False and len(flag.names) > 1:
        fix = f"Write {flag.names[1]} to turn it off, or leave the flag out"
    else:
        fix = f"Leave {base} out to keep it off; write it alone to turn it on"
    said = (
        f"ignored explicit argument '{value.text}'"
        if inline
        else f"'{value.text}' is left over as an argument (unrecognized arguments)"
    )
    span = item.word.span if inline else value.span
    since = took_a_value.get(base)
    if since is not None and not switch.startswith("--no-"):
        command.refusals.append(
            Refusal(
                f"{written}: {base} is a switch that takes no value (argparse: {said}); "
                f"{engine} releases before {since} took one",
                span,
                fix,
                since=since,
            )
        )
        return
    command.note(
        "HBM004",
        f"{written}: {switch} is a switch that takes no value, and {engine} refuses to start "
        f"(argparse: {said})",
        span,
        fix,
        severity="error",
    )


def apply(command: EngineCommand, item: Item) -> bool:
    """Set the field ``item``'s flag names from its value; a malformed value is a finding at its
    line. False when the flag has no field of its own (the engine parser handles it)."""
    flag = item.flag
    if flag is None or flag.field is None:
        return False
    shown = item.name
    value = item.value
    if flag.parse is None:
        on = not item.name.startswith("--no-")
        if value is not None:
            if not value.readable:
                command.note("HBM011", unreadable_message(shown, value), value.span)
                return True
            if placeholder(value.text):  # --enforce-eager={{ .Values.eager }}
                command.note("HBM011", placeholder_message(shown, value), value.span)
                return True
            try:
                on = boolean(value.text) == on
            except BadValue as exc:
                command.note("HBM004", f"{shown}: {exc}", value.span)
                return True
        command.set(flag.field, on, item.word.span)
        return True
    if value is None:
        command.note("HBM004", f"{shown} needs a value", item.word.span)
        return True
    default = template_default(value.text) if value.readable and "{" in value.text else None
    if default is not None and flag.field != "model.name":
        # `--max-model-len=${VLLM_MAX_LEN:=8192}`: what the template writes for no setting;
        # still a value filled in elsewhere, so a refusal resting on it is a warning (unread)
        try:
            parsed = flag.parse(default)
        except (BadValue, Unsupported):
            parsed = None
        if parsed is not None and not isinstance(parsed, Instead):
            command.set(flag.field, parsed, item.word.span)
            command.unread[flag.field] = value.span
            assumed = f"its default {default} is assumed"
            command.note("HBM011", placeholder_message(shown, value, assumed), value.span)
            return True
    if not value.readable or placeholder(value.text):
        # a variable we cannot expand, or a template left for a rendering step: this one field
        # is unreadable (the engine default stands in for it), the rest of the command is read
        is_model = flag.field == "model.name"
        what = "this deployment cannot be checked" if is_model else "the engine default is assumed"
        command.unread[flag.field] = value.span
        if is_model:
            command.model_unreadable = True
        if value.readable:
            message = placeholder_message(shown, value, what)
        else:
            message = unreadable_message(shown, value, what)
        command.note("HBM011", message, value.span)
        return True
    if flag.optional and value.text in ("", "None"):
        return True  # the engine's default stands, as when the flag is not given
    try:
        parsed = flag.parse(value.text)
    except BadValue as exc:
        command.note("HBM004", f"{shown}: {exc}", value.span)
    except Unsupported as exc:
        command.note("HBM011", f"{shown}: {exc}", value.span)
    else:
        if flag.field == "nodes":  # not a Deployment field: it says how GPUs are counted
            command.nodes = parsed
        elif isinstance(parsed, Instead):
            command.set(parsed.field, parsed.value, item.word.span)
            # findings about the flag's own field point at it (and fixes edit it)
            command.locations[flag.field] = item.word.span
        else:
            command.set(flag.field, parsed, item.word.span)
    return True


def flags_removed(
    command: EngineCommand,
    engine_version: str | None,
    removed: Mapping[str, tuple[str, ...]],
    engine: str,
    image: str | None = None,
    taken_again: Mapping[str, str] | None = None,
) -> list[tuple[str, Span, str, bool]]:
    """(message, where, fix, certain) for each flag of ``command`` that ``engine``'s release has
    removed (a manifest that names no release runs the newest). ``removed`` maps a flag to the first
    release without it, the fix, and what argparse says (unrecognized arguments by default);
    ``taken_again`` a flag to the first release that takes it once more (the newest among
    them, so a manifest that names no release is not told it is refused).
    ``image``: the engine's image, named where its tag is a release hbmlint cannot map, or a
    nightly whose release floor (release_floor) already refuses the flag: the fourth item of
    each tuple says so (certain though the manifest pins no release)."""
    have = release(engine_version)
    floor = release_floor(image) if have is None else None
    out = []
    for item in command.items:
        name = item.name
        if "=" in name:  # (scan gives names without their value: split only where needed)
            name = name.split("=", 1)[0]
        if name not in removed:
            continue
        since, fix, *why = removed[name]
        if have is not None and have < release(since):
            continue
        back = taken_again.get(name) if taken_again else None
        if back is not None and (have is None or have >= release(back)):
            continue
        running = f"{engine} {engine_version}" if have is not None else f"the newest {engine}"
        first = since if since.count(".") == 2 else f"{since}.0"
        reason = why[0] if why else "unrecognized arguments"
        message = (
            f"{name} was removed from {engine} in {first} and {running} refuses to start with "
            f"it (argparse: {reason})"
        )
        if back is not None:
            message += f"; {engine} {back} and later take it again"
        refused = floor is not None and release(floor) >= release(since)  # type: ignore[operator]
        if refused:
            message += (
                f"; {image} is a nightly build of main, and vLLM's nightly images are pushed from "
                f"September 2025 on (vllm-project/vllm#24102), after {floor}, so every one "
                "refuses it"
            )
        elif have is None and pinned_tag(image):
            # a vendor's own release number (Red Hat AI Inference Server 3.2.5): pinned, but
            # to an engine release hbmlint has no table for
            message += (
                f"; the newest is assumed as hbmlint does not know which {engine} release the "
                f"image {image} ships: if it is one before {first}, it still takes the flag"
            )
        elif have is None:
            message += (
                "; the newest is assumed as the manifest names no release hbmlint can read (no "
                f"image, or a tag such as latest, dev or a commit): an image before {first} "
                "still takes it"
            )
        elif release_at_most(engine_version):
            message += f"; the image may hold an older release, and one before {first} takes it"
        if have is None and not refused and fix.startswith("Use "):
            # the replacement may be newer than the release the manifest really runs
            fix += f" ({engine} {first} and later; a release before it takes {name} as written)"
        out.append((message, item.word.span, fix, refused))
    return out


# tags that move with the engine's newest build, or name no release (a commit, a variable)
_MOVING_TAG = LazyPattern(r"latest|main|dev|nightly|stable|[0-9a-f]{7,40}", re.I)


# vLLM's nightly images on Docker Hub (vllm/vllm-openai:nightly, nightly-<commit>,
# cu130-nightly, nightly-aarch64) are builds of main pushed from vllm-project/vllm#24102 ("[CI]
# Add nightly builds to dockerhub", opened 2025-09-02) on; before it Docker Hub held releases only
# (vllm-project/vllm#19335, 2025-06-08; #24805, 2025-09-13). Every such image is past 0.10.1
# (2025-08-18), whichever day it was pulled: a release floor, where the tag names no release.
_VLLM_NIGHTLY = LazyPattern(
    r"(?:docker\.io/)?vllm/vllm-openai:(?:[\w.]+-)?nightly(?:-[\w.-]+)?", re.I
)
_VLLM_NIGHTLY_FLOOR = "0.10.1"


def release_floor(image: str | None) -> str | None:
    """The release an image whose tag names none holds at least (vLLM's Docker Hub nightlies:
    0.10.1), or None."""
    # (the words first: most images are neither, and the pattern is compiled on first use)
    if not isinstance(image, str) or "$" in image or "nightly" not in image:
        return None
    if "vllm/vllm-openai:" not in image:
        return None
    return _VLLM_NIGHTLY_FLOOR if _VLLM_NIGHTLY.fullmatch(image.strip()) else None


def pinned_tag(image: str | None) -> bool:
    """Whether ``image`` names a fixed release of its own (``vllm-cuda-rhel9:3.2.5``): a tag
    with a digit that is not a moving tag, a commit or a variable; no tag is latest."""
    if not isinstance(image, str) or "$" in image or "@" in image:
        return False
    tag = image.rpartition("/")[2].partition(":")[2]
    return any(c.isdigit() for c in tag) and not _MOVING_TAG.fullmatch(tag)


def model_name(text: str) -> str:
    """A model as engines take it: ``hf://org/name`` and ``org/name`` alike."""
    for prefix in ("hf://", "huggingface://"):
        if text.startswith(prefix):
            return text[len(prefix) :]
    return text
