"""The command line hands PyYAML its class of non-printable characters already compiled, written
as the characters it holds (cheap to compile) rather than PyYAML's negated class over all of
Unicode: the two must hold exactly the same characters, so PyYAML's pure-Python reader refuses
exactly what it refused."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile

import pytest

from hbmlint.cli import YAML_NON_PRINTABLE, YAML_NON_PRINTABLE_HELD

EVERY_CHARACTER = "".join(map(chr, range(sys.maxunicode + 1)))


def test_the_two_classes_hold_the_same_characters():
    # re.UNICODE, a str pattern's default, only so that re's cache does not answer with ours
    theirs = re.compile(YAML_NON_PRINTABLE, re.UNICODE)
    ours = re.compile(YAML_NON_PRINTABLE_HELD)
    assert theirs is not ours
    assert [m.start() for m in theirs.finditer(EVERY_CHARACTER)] == [
        m.start() for m in ours.finditer(EVERY_CHARACTER)
    ]


def test_the_key_is_pyyamls_own_text():
    """Loaded before the command line, PyYAML compiles its own pattern: the text it compiles is
    the one the command line seeds the cache under."""
    script = (
        "import yaml.reader, hbmlint.cli\n"
        "print(yaml.reader.Reader.NON_PRINTABLE.pattern == hbmlint.cli.YAML_NON_PRINTABLE)\n"
    )
    assert _run(script) == ["True"]


def test_pyyaml_gets_the_cheap_pattern_and_refuses_what_it_did():
    script = (
        "import hbmlint.cli, yaml, yaml.reader\n"
        "print(yaml.reader.Reader.NON_PRINTABLE.pattern == hbmlint.cli.YAML_NON_PRINTABLE_HELD)\n"
        "try:\n"
        "    yaml.load('a: b\\x01c\\n', Loader=yaml.SafeLoader)\n"
        "except yaml.reader.ReaderError as exc:\n"
        "    print(exc.position, repr(exc.character))\n"
    )
    assert _run(script) == ["True", "4 1"]  # the offset and the code point


def _run(script: str) -> list[str]:
    # Run outside the source tree, so that the hbmlint imported is the one installed.
    with tempfile.TemporaryDirectory() as elsewhere:
        run = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            env={"PATH": "/usr/bin:/bin"},
            cwd=elsewhere,
            check=True,
        )
    return run.stdout.splitlines()


@pytest.mark.parametrize("text", ["plain", "tab\there", "\x85\u2028 é 😀", "bad \x7f", "\ufffe"])
def test_the_pure_reader_agrees_on_texts(text):
    theirs = re.compile(YAML_NON_PRINTABLE, re.UNICODE)
    ours = re.compile(YAML_NON_PRINTABLE_HELD)
    found, expected = ours.search(text), theirs.search(text)
    assert (found and (found.start(), found.group())) == (
        expected and (expected.start(), expected.group())
    )
