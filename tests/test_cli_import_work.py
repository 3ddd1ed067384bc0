"""Importing the command line does less: the commands share one click.Path of each kind (making
one asks gettext for its name), and the class of non-printable characters seeded for PyYAML is
written in two parts that re compiles without a table of every BMP character."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
import tempfile

import click

from hbmlint import cli


def _paths(command: click.Command) -> list[click.Path]:
    found = [p.type for p in command.params if isinstance(p.type, click.Path)]
    for sub in getattr(command, "commands", {}).values():
        found += _paths(sub)
    return found


def test_every_path_parameter_is_a_shared_one():
    shared = (cli.ANY_PATH, cli.FILE_PATH, cli.FOLDER_PATH, cli.EXISTING_FOLDER)
    types = _paths(cli.main)
    assert len(types) >= 11
    assert all(any(t is s for s in shared) for t in types)
    assert (cli.FILE_PATH.dir_okay, cli.FILE_PATH.file_okay) == (False, True)
    assert (cli.FOLDER_PATH.file_okay, cli.FOLDER_PATH.exists) == (False, False)
    assert (cli.EXISTING_FOLDER.file_okay, cli.EXISTING_FOLDER.exists) == (False, True)
    assert (cli.ANY_PATH.file_okay, cli.ANY_PATH.dir_okay) == (True, True)


def test_importing_the_command_line_asks_gettext_a_few_times():
    script = (
        "import gettext\n"
        "calls = []\n"
        "real = gettext.dgettext\n"
        "gettext.dgettext = lambda *a: calls.append(a[1]) or real(*a)\n"
        "import hbmlint.cli\n"
        "print(len(calls))\n"
    )
    with tempfile.TemporaryDirectory() as elsewhere:  # the hbmlint installed (or PYTHONPATH's)
        run = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, cwd=elsewhere
        )
    assert run.returncode == 0, run.stderr
    assert int(run.stdout.split()[-1]) <= 6  # was 13: one for each click.Path made


def test_the_held_pattern_is_two_classes_of_one_character():
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):  # re.DEBUG prints the parsed and compiled pattern
        compiled = re.compile(cli.YAML_NON_PRINTABLE_HELD, re.DEBUG)
    assert "BIGCHARSET" not in shown.getvalue()
    assert compiled.groups == 0
    for text in ["ok", "a\x00", "tab\tnl\n\x7f", "\ud800x", "x\udfff", "\ufffe", "é\x85\x86"]:
        mine = compiled.search(text)
        theirs = re.search(cli.YAML_NON_PRINTABLE, text)
        assert (mine and (mine.start(), mine.group())) == (
            theirs and (theirs.start(), theirs.group())
        )
