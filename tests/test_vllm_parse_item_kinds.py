"""vllm.parse reads each scanned item once by kind (a positional word, --config, an unknown
flag, a known flag): what each kind sets or says, in the orders the loop met them before it
was regrouped (the model guessed after an unknown flag, a dotted --speculative-config key of
an unknown flag, a positional that cannot be read, the first positional as the model)."""

from __future__ import annotations

import pytest

from hbmlint.engines import vllm
from hbmlint.engines.args import Token
from hbmlint.yamlsrc import Span


def _parse(*words: str | Token):
    tokens = [
        w if isinstance(w, Token) else Token(w, Span(1, i + 1, 1, i + 2))
        for i, w in enumerate(words)
    ]
    return vllm.parse(tokens, Span(1, 1))


def test_first_positional_is_the_model():
    command = _parse("org/model-a", "org/model-b", "--tensor-parallel-size", "2")
    assert command.values["model.name"] == "org/model-a"
    assert command.values["parallel.tensor"] == 2


def test_model_guessed_after_an_unknown_flag_but_not_its_inline_value():
    assert _parse("--some-new-switch", "org/model-a").values["model.name"] == "org/model-a"
    assert "model.name" not in _parse("--some-new-flag=org/model-a").values
    # a later unknown flag does not replace the first guess; a word unlike a model is none
    command = _parse("--new-a", "org/model-a", "--new-b", "org/model-b")
    assert command.values["model.name"] == "org/model-a"
    command = _parse("--new-a", "not a model", "--new-b", "org/model-b")
    assert command.values["model.name"] == "org/model-b"


def test_unreadable_positional_is_noted():
    word = Token("$EXTRA", Span(2, 3), ("EXTRA is not set",))
    command = _parse("org/model-a", word)
    assert [note.code for note in command.notes] == ["HBM011"]
    assert command.notes[0].span == Span(2, 3)


@pytest.mark.parametrize("flag", ["--speculative-config.method", "--speculative_config.method"])
def test_dotted_speculative_key(flag):
    command = _parse("org/model-a", flag, "ngram", "--speculative-config.num-speculative-tokens")
    assert command.values["speculative.method"] == "ngram"
    assert [note.code for note in command.notes] == ["HBM004"]  # the second key has no value


def test_config_file_and_served_name():
    command = _parse("--config", "c.yaml", "--served-model-name", "api")
    assert command.model_unreadable
    assert command.served_name == Span(1, 3, 1, 4)
    assert "c.yaml" in command.notes[0].message


def test_known_flags_apply_and_note():
    command = _parse("m", "--quantization", "AWQ", "--max-model-len", "32k", "--max-num-seqs", "x")
    assert command.values["model.quantization_method"] == "awq"
    assert command.values["serving.max_model_len"] == 32000
    assert command.values["serving.human_readable"] == ("max_model_len",)
    assert [note.code for note in command.notes] == ["HBM004"]  # --max-num-seqs x
