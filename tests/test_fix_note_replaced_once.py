"""A fix's message and effect (fixes._worded) replace and take out the notes of the setting in
hbmlint's terms where one search found them, not by searching again: the same texts as
re.sub over the whole message, on the built-in rules' fix texts and on random texts with
notes, flags, several notes, blanks and backslashes in the setting."""

from __future__ import annotations

import random
import re
from functools import cache

import pytest

from hbmlint import fixes
from hbmlint.fixes import _FIELD_NOTE, _FLAG_NOTE, _worded
from hbmlint.rules import builtin_rule_files, load_rules


def _subbed(text: str, setting: str) -> tuple[str, str]:
    """The message and effect as re.sub made them, searching the message again each time."""
    message = text
    if _FLAG_NOTE.search(message):
        message = _FLAG_NOTE.sub(r"\1", message, count=1)
        message = f"{message.rstrip('.')} ({setting})."
    elif _FIELD_NOTE.search(message):
        message = _FIELD_NOTE.sub(f" ({setting})", message, count=1)
    else:
        message = f"{message.rstrip('.')} ({setting})."
    return message, " ".join(_FIELD_NOTE.sub("", text).split())


def _either(text: str, setting: str) -> tuple[str, str] | type[Exception]:
    try:
        return _subbed(text, setting)
    except re.error:
        return re.error


def _worded_or_error(text: str, setting: str) -> tuple[str, str] | type[Exception]:
    try:
        return _worded(text, setting)
    except re.error:
        return re.error


SETTINGS = [
    "--max-model-len 11696",
    '--speculative-config \'{"method": "ngram"}\'',
    "serving.max_model_len: 11696",
    "maxModelLen: 11696",
    r"--x a\nb",  # a backslash escape: re.sub reads it (kept for such settings)
    r"--x \\ y",
    r"--x \1",  # a group reference: the flag's group, an error for the field note's
    r"--x \g<0>",
    r"--x \d",  # a bad escape: an error either way
]


@cache
def _rule_texts() -> list[str]:
    rules, _ = load_rules(builtin_rule_files())
    return [fix.text for rule in rules for fix in rule.fixes]


@pytest.mark.parametrize("setting", SETTINGS)
def test_the_rules_fix_texts(setting):
    texts = _rule_texts()
    assert any(_FIELD_NOTE.search(t) for t in texts) and any(_FLAG_NOTE.search(t) for t in texts)
    for text in texts:
        assert _worded_or_error(text, setting) == _either(text, setting), text


_PIECES = [
    "Lower",
    " ",
    "  ",
    "\t",
    "\n",
    ".",
    ":",
    "(",
    ")",
    "x",
    "--max-model-len",
    "--kv-cache-dtype ",
    " (serving.max_model_len)",
    "(serving.max_model_len)",
    " (speculative.quantization: fp8)",
    "(speculative.method: ngram)",
    "  (gpu.count)",
    " (workload.)",
    " (model.name: a(b))",
    " (other.field)",
    "(parallel.tensor:",
    " KV cache 1,841,184 tokens -> 1,844,544 tokens",
]


def test_random_texts():
    rng = random.Random(20261203)
    for _ in range(4000):
        text = "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 12)))
        setting = rng.choice(SETTINGS)
        assert _worded_or_error(text, setting) == _either(text, setting), (text, setting)


def test_complete_words_fixes_with_it(monkeypatch):
    seen = []
    worded = fixes._worded

    def counted(text: str, setting: str) -> tuple[str, str]:
        seen.append(text)
        return worded(text, setting)

    monkeypatch.setattr(fixes, "_worded", counted)

    class Writer:
        def setting(self, changes, locator):
            return "--max-model-len 11696"

        def edits(self, changes, source, locator):
            return None

    fix = fixes.Fix(
        "Lower --max-model-len (serving.max_model_len) to 11696.",
        changes={"serving.max_model_len": 11696},
    )
    done = fixes._complete(fix, Writer(), "m.yaml", None, None, None)  # type: ignore[arg-type]
    assert seen == [str(fix)]
    assert (str(done), done.effect) == _subbed(str(fix), "--max-model-len 11696")
