"""Source.offset (a line and column to an offset in the text, clamped to its end) is written
without a call of min(), which cost a third of the method (fix writing and checking place every
edit and span with it): the same offset as the min() formula for every line and column of
texts with and without a final line break, CRLF lines, an empty text, and places past the end
or before the first column."""

from __future__ import annotations

import pytest

from hbmlint.rewrite import Source

TEXTS = [
    "",
    "\n",
    "spec:\n  serving:\n    max_model_len: 8192\n",
    "a: 1\nb: [x, y]\nc: done",
    "kind: Deployment\r\nspec:\r\n  replicas: 1\r\n",
    "\n\n\nlast",
]


def _with_min(source: Source, line: int, column: int) -> int:
    if line - 1 >= len(source.starts):
        return len(source.text)
    return min(source.starts[line - 1] + column - 1, len(source.text))


@pytest.mark.parametrize("text", TEXTS, ids=repr)
def test_the_offset_of_every_place(text):
    source = Source(text, "f.yaml")
    lines = len(source.starts)
    widest = max((len(line) for line in text.split("\n")), default=0)
    for line in range(0, lines + 3):
        for column in range(-1, widest + 4):
            assert source.offset(line, column) == _with_min(source, line, column), (line, column)


def test_the_end_of_the_text_is_its_length():
    source = Source("a: 1\nb: 2\n", "f.yaml")
    assert source.offset(2, 99) == 10 and source.offset(9, 1) == 10 and source.offset(3, 1) == 10
