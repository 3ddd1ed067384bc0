"""FlagTable.lookup's prefix matching (argparse's unique abbreviations) against every spelling
of every engine's table: the sorted-run search finds what a scan of all names finds."""

from __future__ import annotations

import pytest

from hbmlint.engines import sglang, tgi, trtllm, vllm
from hbmlint.engines.args import Flag, FlagTable, Item, Token, is_flag, normalise
from hbmlint.yamlsrc import Span

TABLES = [vllm.FLAGS, sglang.FLAGS, tgi.FLAGS, trtllm.FLAGS, trtllm.SERVE_FLAGS]


def _by_scan(table: FlagTable, name: str) -> Flag | None:
    """The lookup as a scan of every spelling (what lookup did before it bisected)."""
    name = normalise(name)
    if name in table.by_name:
        return table.by_name[name]
    if name.startswith("--") and len(name) >= 8:
        matches = {id(f): f for n, f in table.by_name.items() if n.startswith(name)}
        if len(matches) == 1:
            return next(iter(matches.values()))
    return None


@pytest.mark.parametrize("table", TABLES, ids=["vllm", "sglang", "tgi", "trtllm", "trtllm-serve"])
def test_every_prefix_of_every_spelling(table: FlagTable) -> None:
    names = set()
    for spelling in table.by_name:
        for end in range(1, len(spelling) + 2):
            names.add(spelling[:end])
            names.add(spelling[:end].replace("-", "_"))
    names |= {"--", "--zzzzzzzzz", "--max-model-lenx", "--a", "-tpx", "--\U0001f600-flag"}
    for name in sorted(names):
        assert table.lookup(name) is _by_scan(table, name), name


def test_abbreviations() -> None:
    assert vllm.FLAGS.lookup("--tensor-parallel") is vllm.FLAGS.by_name["--tensor-parallel-size"]
    assert vllm.FLAGS.lookup("--max_num_batched") is vllm.FLAGS.by_name["--max-num-batched-tokens"]
    assert vllm.FLAGS.lookup("--max-model") is None  # --max-model-len and --max-model-len-cap
    assert vllm.FLAGS.lookup("--max-") is None  # short and ambiguous


def test_is_flag_and_item() -> None:
    for text in ("-", "", "-1", "-1.5", "-1e3", "-.5", "--", "-tp", "--x", "-1x", "-\u0663"):
        assert is_flag(text) == (text.startswith("-") and len(text) > 1 and not _number(text))
    token = Token("--x", Span(1, 1))
    assert Item(None, "--x", token) == Item(None, "--x", token, None, ())
    assert hash(Item(None, "--x", token)) == hash(Item(None, "--x", token))
    assert repr(Item(None, "", token)).startswith("Item(flag=None, name='', word=Token(")


def _number(text: str) -> bool:
    import re

    return re.fullmatch(r"-?\d+(\.\d*)?([eE][-+]?\d+)?", text) is not None
