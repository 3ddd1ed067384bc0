"""Compose interpolation as `docker compose` does it (compose-spec interpolation.md): each form,
with the variables of a .env file; what is set nowhere stays as written and says why."""

from __future__ import annotations

import pytest

from hbmlint.formats.compose import Interpolation, parse_env_file

VARS = {"SET": "value", "EMPTY": ""}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("${SET}", "value"),
        ("$SET/x", "value/x"),
        ("${UNSET:-fallback}", "fallback"),
        ("${EMPTY:-fallback}", "fallback"),  # with a colon an empty value counts as unset
        ("${EMPTY-fallback}", ""),  # without, only an unset one does
        ("${UNSET-fallback}", "fallback"),
        ("${SET:+alt}", "alt"),
        ("${EMPTY:+alt}", ""),
        ("${EMPTY+alt}", "alt"),
        ("${UNSET:-${SET}}", "value"),  # defaults are interpolated too
        ("$$SET and $${SET}", "$SET and ${SET}"),  # $$ is a literal $
        ("cost: 5$", "cost: 5$"),
    ],
)
def test_forms_with_known_values(text, expected):
    result, missing = Interpolation(VARS, ".env")(text)
    assert (result, missing) == (expected, [])


def test_a_variable_set_nowhere_stays_as_written_and_says_why():
    result, [why] = Interpolation(VARS, "the .env file")("--model ${MODEL}")
    assert result == "--model ${MODEL}"
    assert why.startswith("${MODEL} is not set in the .env file")


def test_a_required_variable_says_compose_refuses_without_it():
    result, [why] = Interpolation({}, ".env")("${TOKEN:?set it}")
    assert result == "${TOKEN:?set it}" and "refuses to start" in why
    assert Interpolation({"TOKEN": "t"}, ".env")("${TOKEN:?set it}") == ("t", [])


def test_env_file_lines():
    text = (
        "# comment\n"
        "A=1\n"
        "export B='two words'  \n"
        'C="quoted # not a comment"\n'
        "D=plain # a comment\n"
        "E=${A}-x\n"
        "not a line\n"
    )
    assert parse_env_file(text, Interpolation({}, ".env")) == {
        "A": "1",
        "B": "two words",
        "C": "quoted # not a comment",
        "D": "plain",
        "E": "1-x",
    }
