"""A fix's note of the setting in hbmlint's terms is found from its "(" (fixes._field_note):
re scans for a pattern's first character, where _FIELD_NOTE's leading \\s* had the whole
pattern tried at every position of a message. The blanks before the note are the run of
whitespace before that "(", as \\s* takes them: the same matches as _FIELD_NOTE's search and
sub, with every character str.isspace (and re's \\s) calls whitespace."""

from __future__ import annotations

import random
import re
import sys

import pytest

from hbmlint import fixes
from hbmlint.fixes import _FIELD_NOTE, _field_note, _without_notes, _worded

# every whitespace character re's \s matches in a str pattern
_BLANKS = [chr(c) for c in range(sys.maxunicode + 1) if re.fullmatch(r"\s", chr(c))]

_PIECES = [
    "Lower it",
    " ",
    "  ",
    "\n",
    ".",
    ":",
    "(",
    ")",
    "x",
    "(serving.max_model_len)",
    "(speculative.quantization: fp8)",
    "(speculative.method: ngram",
    "(gpu.)",
    "(model.name: a (b) c)",
    "(workload.concurrency:)",
    "--max-model-len (serving.max_model_len)",
    "(parallel.tensor)(parallel.tensor)",
    "(serving.X)",
]


def test_blanks_are_what_isspace_says():
    assert set(_BLANKS) == {chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()}


def _texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    pieces = [*_PIECES, *_BLANKS]
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 12))) for _ in range(count)]


@pytest.mark.parametrize("seed", range(4))
def test_the_same_match_as_the_pattern_with_blanks(seed):
    for text in _texts(3000, seed):
        for start in range(len(text) + 1):
            found = _FIELD_NOTE.search(text, start)
            assert _field_note(text, start) == (found and found.span()), (text, start)
        for start in (0, len(text) // 2):
            assert _without_notes(text, start) == _FIELD_NOTE.sub("", text[start:]), text


def test_every_blank_before_a_note():
    for blank in _BLANKS:
        text = f"Use it{blank}{blank} (serving.max_model_len){blank}(gpu.count) now."
        assert _field_note(text) == _FIELD_NOTE.search(text).span()
        assert _without_notes(text, 0) == _FIELD_NOTE.sub("", text)


def test_worded_searches_without_the_leading_blanks(monkeypatch):
    """The pattern with \\s* is used only where re.sub reads the setting's escapes."""

    class Unused:
        def __getattr__(self, name):
            raise AssertionError(f"_FIELD_NOTE.{name}")

    text = "Quantize the draft (speculative.quantization: fp8) (gpu.count): more KV cache."
    expected = _worded(text, "--speculative-config '{}'")
    monkeypatch.setattr(fixes, "_FIELD_NOTE", Unused())
    assert _worded(text, "--speculative-config '{}'") == expected
    assert expected == (
        "Quantize the draft (--speculative-config '{}') (gpu.count): more KV cache.",
        "Quantize the draft: more KV cache.",
    )
