"""vLLM's command line read as vLLM's own argparse reads it: the model positional or --model
anywhere, --served-model-name (nargs=+) never the model, --no- switches, unknown booleans."""

from __future__ import annotations

import pytest

from hbmlint.engines import vllm
from hbmlint.engines.args import Token
from hbmlint.yamlsrc import Span


def read(*words: str):
    command = vllm.parse([Token(w, Span(1, i + 1)) for i, w in enumerate(words)], Span(1, 1))
    return command.values.get("model.name"), [n.code for n in command.notes]


@pytest.mark.parametrize(
    "words",
    [
        ("org/m", "--served-model-name", "a", "b"),
        ("--served-model-name", "a", "--model", "org/m"),
        ("--tensor-parallel-size", "2", "--model=org/m", "--served-model-name", "a"),
        ("--trust-remote-code", "org/m"),
        ("--no-enable-prefix-caching", "org/m"),
        ("--enable-a-flag-from-the-future", "org/m", "--max-model-len", "4096"),
        ("--port", "8000", "org/m"),
    ],
)
def test_the_model_is_found_wherever_it_is_written(words):
    assert read(*words) == ("org/m", [])


def test_served_names_swallowing_the_model_say_so():
    model, notes = read("--served-model-name", "llama", "org/m")
    assert model is None and notes == ["HBM003"]


def test_a_file_after_an_unknown_flag_is_not_taken_for_the_model():
    assert read("--ssl-keyfile", "/certs/key.pem")[0] is None
    assert read("--tokenizer", "org/tok")[0] is None


def test_a_config_file_holding_the_model_is_an_info():
    assert read("--config", "/etc/vllm/config.yaml") == (None, ["HBM011"])


@pytest.mark.parametrize(
    ("text", "tokens"),
    [("8192", 8192), ("32k", 32_000), ("32K", 32_768), ("1.5k", 1_500), ("8192.5", None)],
)
def test_lengths_are_read_as_vllm_reads_them(text, tokens):
    # human_readable_int: a fraction only with a decimal suffix; "8192.5" is an argparse exit
    command = vllm.parse(
        [Token(w, Span(1, i + 1)) for i, w in enumerate(("org/m", "--max-model-len", text))],
        Span(1, 1),
    )
    assert command.values.get("serving.max_model_len") == tokens
    assert ("HBM004" in [n.code for n in command.notes]) == (tokens is None)


def test_a_word_is_a_frozen_value():
    """Tokens are compared, hashed and copied with replace() by the readers: the same words at
    the same place are equal whichever way they were made, and none can be changed after."""
    import dataclasses

    at = Span(3, 7)
    word = Token("--max-model-len", at)
    assert word == Token(text="--max-model-len", span=at, unresolved=())
    assert hash(word) == hash(Token("--max-model-len", Span(3, 7)))
    assert word != Token("--max-model-len", at, ("$(LEN) is not set",))
    assert dataclasses.replace(word, text="--max_model_len") == Token("--max_model_len", at)
    assert repr(word) == (
        "Token(text='--max-model-len', span=Span(line=3, column=7, end_line=None, "
        "end_column=None), unresolved=())"
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        word.text = "--tp"  # type: ignore[misc]
