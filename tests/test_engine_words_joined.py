"""The command-line checks that search the words joined into one text first (--help and
--version, a word starting with a space, an elided line, --config FILE) find what searching
word by word finds."""

from __future__ import annotations

import pytest

from hbmlint.engines import parse_engine_words, read_invocation, vllm
from hbmlint.engines.args import Token
from hbmlint.yamlsrc import Span


def _words(*texts: str) -> list[Token]:
    return [Token(text, Span(1, 1 + 10 * i)) for i, text in enumerate(texts)]


@pytest.mark.parametrize("flag", ["--help", "--help=all", "-h", "--version"])
def test_an_engine_asked_for_help_serves_nothing(flag):
    assert read_invocation(_words("vllm", "serve", "Qwen/Qwen3-8B", flag), {}, "") is None
    # a word that only holds "-h" is a flag like any other
    assert read_invocation(_words("vllm", "serve", "M", "--hf-token", "x"), {}, "") is not None


def test_words_checked_in_the_joined_text():
    spaced = parse_engine_words(
        vllm, _words("Qwen/Qwen3-8B", " --max-model-len", "4096"), Span(1, 1), {}
    )
    assert spaced.values["serving.max_model_len"] == 4096
    assert [n.code for n in spaced.notes] == ["HBM004"]
    tabbed = parse_engine_words(vllm, _words("\t--max-model-len", "8"), Span(1, 1), {})
    assert any("starts with a space" in n.message for n in tabbed.notes)
    for elided in ("...", " \u2026 "):
        command = parse_engine_words(
            vllm, _words("--max-model-len", "8", "--port", elided), Span(1, 1), {}
        )
        assert command.model_unreadable
        assert [n.code for n in command.notes] == ["HBM011"]
    assert not parse_engine_words(vllm, _words("M", "--x", "a...b"), Span(1, 1), {}).notes


def test_a_config_file_is_still_read():
    from hbmlint.engines.config_file import ConfigFile

    asked = []

    def files(reference: Token) -> ConfigFile | None:
        asked.append(reference.text)
        return ConfigFile({"max-model-len": 2048}, lambda path: Span(7, 1))

    for words in (("M", "--config", "c.yaml"), ("M", "--config=c.yaml")):
        command = parse_engine_words(vllm, _words(*words), Span(1, 1), {}, files)
        assert command.values["serving.max_model_len"] == 2048
    assert asked == ["c.yaml", "c.yaml"]
    parse_engine_words(vllm, _words("M", "--max-model-len", "8"), Span(1, 1), {}, files)
    assert asked == ["c.yaml", "c.yaml"]
