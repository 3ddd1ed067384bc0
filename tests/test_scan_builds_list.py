"""engines.args.scan builds its list of Items in one loop (is_flag and normalise inline, no
generator): the same Items as the generator it replaces, kept here as the reference, over
random command lines of every engine's flags."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

import pytest
from helpers import flag_tables

from hbmlint.engines.args import FlagTable, Item, Token, is_flag, normalise, scan
from hbmlint.yamlsrc import Span

TABLES = flag_tables()


def _scan_as_before(tokens: Sequence[Token], table: FlagTable) -> Iterator[Item]:
    """engines.args.scan as it was written before (a generator calling is_flag and
    normalise), the reference for the list it builds now."""
    i = 0
    while i < len(tokens):
        word = tokens[i]
        i += 1
        if not word.readable and not is_flag(word.text):
            yield Item(None, "", word)
            continue
        if not is_flag(word.text) or word.text == "--":
            yield Item(None, "", word)
            continue
        name, eq, inline = word.text.partition("=")
        name = normalise(name)
        flag = table.by_name.get(name)
        if flag is None:
            flag = table.lookup(name)
        if eq:
            value = Token(inline, word.span, word.unresolved)
            yield Item(flag, name, word, value, (value,))
            continue
        if flag is not None and flag.multi:
            values = []
            while i < len(tokens) and not is_flag(tokens[i].text):
                values.append(tokens[i])
                i += 1
            yield Item(flag, name, word, values[0] if values else None, tuple(values))
            continue
        if flag is not None and flag.parse is None:
            if i < len(tokens) and tokens[i].text.lower() in ("true", "false"):
                yield Item(flag, name, word, tokens[i], (tokens[i],))
                i += 1
            else:
                yield Item(flag, name, word)
            continue
        if flag is None and (name in table.switches or "--" + name[5:] in table.switches):
            yield Item(None, name, word)
            continue
        if i < len(tokens) and not is_flag(tokens[i].text):
            yield Item(flag, name, word, tokens[i], (tokens[i],))
            i += 1
        else:
            yield Item(flag, name, word)


def _vocabulary(table: FlagTable) -> list[str]:
    words = []
    for name in sorted(table.by_name) + sorted(table.switches):
        words.append(name)
        if name.startswith("--"):
            words.append("--" + name[2:].replace("-", "_"))
            words.append(name[: max(3, len(name) - 4)])  # an abbreviation, or too short
            words.append(f"{name}=1")
            words.append(f"{name.replace('-', '_')}=x=y")
    return words + [
        *("--", "-", "-1", "-1.5", "-1e3", "-1x", "-2_0", "-tp", "-O3", "--no-such-flag"),
        *("--no-such_flag=3", "--=4", "true", "False", "TRUE", "0", "8192", "32k", "Qwen/Qwen3-8B"),
        *("", " --model", "--model ", "$(MODEL)", "${X}", "auto", '{"a": 1}', "=", "-_"),
    ]


@pytest.mark.parametrize("engine", sorted(TABLES))
def test_scan_gives_the_items_of_the_generator_it_replaces(engine):
    table = TABLES[engine]
    vocabulary = _vocabulary(table)
    pick = random.Random(f"scan-{engine}")
    for n in range(3000):
        words = [
            Token(
                pick.choice(vocabulary),
                Span(n, i + 1),
                ("X is not set",) if pick.random() < 0.1 else (),
            )
            for i in range(pick.randint(0, 12))
        ]
        found = scan(words, table)
        assert isinstance(found, list)
        assert found == list(_scan_as_before(words, table)), [w.text for w in words]
