"""engines.args.scan finds a flag written in its own spelling in the table's names at once and
asks FlagTable.lookup only for the others (abbreviations, unknown flags): every flag of every
engine's table, written whole, with underscores, abbreviated and unknown, is the flag lookup
finds."""

from __future__ import annotations

import pytest
from helpers import flag_tables

from hbmlint.engines.args import FlagTable, Token, normalise, scan
from hbmlint.yamlsrc import Span

TABLES = flag_tables()


def _spellings(table: FlagTable) -> list[str]:
    names = sorted(table.by_name)
    found = []
    for name in names:
        found.append(name)
        if name.startswith("--"):
            found.append("--" + name[2:].replace("-", "_"))  # argparse takes either
            found += [name[:n] for n in range(8, len(name), 3)]  # abbreviations, some unique
    return found + ["--no-such-flag-here", "--x", "-z"]


@pytest.mark.parametrize("engine", sorted(TABLES))
def test_each_spelling_is_the_flag_lookup_finds(engine):
    table = TABLES[engine]
    for spelling in _spellings(table):
        for words in ([spelling, "7"], [f"{spelling}=7"]):
            items = list(scan([Token(w, Span(1, 1)) for w in words], table))
            assert items[0].name == normalise(spelling.partition("=")[0])
            assert items[0].flag is table.lookup(spelling.partition("=")[0]), spelling
