"""fixes._TOKENS: the quoted-scalar patterns written unrolled (a run of ordinary characters a
step) accept exactly the texts the patterns matching a character a step accept, and a text they
refuse is refused without backtracking."""

from __future__ import annotations

import itertools
import random
import re

import pytest

from hbmlint.fixes import _TOKENS

# the patterns as they were written before: one character a step, backtracking allowed
_ONE_A_STEP = {
    '"': re.compile(r'"(?:[^"\\\n]|\\[^\n])*"'),
    "'": re.compile(r"'(?:[^'\n]|'')*'"),
}
# every character either pattern treats apart, and two it does not
_ALPHABET = ('"', "'", "\\", "\n", "a", " ")


@pytest.mark.parametrize("style", ['"', "'"])
def test_every_short_text_accepted_alike(style: str) -> None:
    fast, slow = _TOKENS[style], _ONE_A_STEP[style]
    for length in range(8):
        for chars in itertools.product(_ALPHABET, repeat=length):
            text = "".join(chars)
            assert bool(fast.fullmatch(text)) == bool(slow.fullmatch(text)), repr(text)


@pytest.mark.parametrize("style", ['"', "'"])
def test_long_texts_accepted_alike(style: str) -> None:
    fast, slow = _TOKENS[style], _ONE_A_STEP[style]
    rng = random.Random(24)
    accepted = 0
    for _ in range(20_000):
        body = "".join(
            rng.choice(_ALPHABET[:4] if rng.random() < 0.2 else "abc{}:, ")
            for _ in range(rng.randrange(120))
        )
        for text in (body, style + body + style, style + body.replace("\n", "") + style):
            found = bool(fast.fullmatch(text))
            assert found == bool(slow.fullmatch(text)), repr(text)
            accepted += found
    assert accepted > 1_000  # both kinds of answer are checked


@pytest.mark.parametrize("style", ['"', "'"])
def test_an_unclosed_long_text_is_refused_quickly(style: str) -> None:
    """No text can be split two ways: a long one without its closing quote is refused in one
    pass (a pattern of nested repeats would try every split of the run)."""
    for body in ("a" * 50_000, "ab\\" * 10_000, "a''" * 10_000):
        assert not _TOKENS[style].fullmatch(style + body)


def test_speculative_config_words() -> None:
    """The words a --speculative-config fix edits (JSON in a double-quoted scalar)."""
    word = '"{\\"method\\": \\"draft_model\\", \\"model\\": \\"Qwen/Qwen3-0.6B\\"}"'
    assert _TOKENS['"'].fullmatch(word)
    assert not _TOKENS['"'].fullmatch(word[:-1])
    assert not _TOKENS['"'].fullmatch('"' + word[1:-2] + '\\"')  # the last quote escaped
    assert _TOKENS["'"].fullmatch("'it''s'")
    assert not _TOKENS["'"].fullmatch("'it's'")
