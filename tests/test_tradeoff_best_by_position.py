"""Comparison.best ranks each row with its position as it comes, not with rows.index(row),
which compared the row with every earlier one (a record comparison of all their fields each):
the same row on every table the fixtures and examples make, and on made-up tables with ties,
rows that do not start and rows without an estimate."""

from __future__ import annotations

from dataclasses import replace

import pytest
from helpers import recorded_builds, tradeoff_params

from hbmlint import speculative
from hbmlint.speculative import Alternative, Comparison

PARAMS = tradeoff_params()


def old_best(table: Comparison) -> Alternative | None:
    """What best answered before: the highest rounded throughput, ties to the earlier row."""
    ranked = [r for r in table.rows if r.starts and r.throughput is not None]
    if not ranked:
        return None
    return max(ranked, key=lambda r: (round(r.throughput or 0.0, 6), -table.rows.index(r)))


@pytest.fixture(scope="module")
def tables() -> list[Comparison]:
    made = []
    for _, budget in recorded_builds():
        try:
            made.append(speculative.compare(budget, PARAMS))
        except Exception:  # noqa: BLE001 - a budget the table refuses says nothing here
            continue
    assert len(made) > 50
    return made


def test_best_as_before_on_every_table(tables):
    assert any(t.best is not None for t in tables)
    for table in tables:
        assert table.best is old_best(table)
        assert table.gain == (
            None
            if old_best(table) is None or not table.current.starts or not table.current.throughput
            else (old_best(table).throughput or 0.0) / table.current.throughput
        )


def _rows(table: Comparison, throughputs: list, starts: list[bool]) -> Comparison:
    base = table.rows[0]
    rows = tuple(
        replace(base, key=f"row{i}", throughput=t, starts=s)
        for i, (t, s) in enumerate(zip(throughputs, starts, strict=True))
    )
    return replace(table, rows=rows)


@pytest.mark.parametrize(
    ("throughputs", "starts"),
    [
        ([10.0, 20.0, 20.0, 5.0], [True, True, True, True]),  # a tie: the earlier row
        ([10.0, 20.0000001, 20.0, 5.0], [True, True, True, True]),  # equal once rounded
        ([10.0, 30.0, 20.0], [True, False, True]),  # the fastest does not start
        ([None, 1.0, None], [True, True, True]),  # rows without an estimate
        ([None, None], [True, True]),  # none has one: no best
        ([3.0, 4.0], [False, False]),  # none starts: no best
        ([0.0, 0.0, 0.0], [True, True, True]),  # all zero: the first
        ([7.0], [True]),
    ],
)
def test_best_as_before_on_made_up_rows(tables, throughputs, starts):
    table = _rows(tables[0], throughputs, starts)
    assert table.best is old_best(table)


def test_best_compares_no_rows(tables, monkeypatch):
    """Ranking reads each row's throughput and position: no record comparison of two rows."""

    def refused(self, other):
        raise AssertionError("rows compared")

    picked = [t for t in tables if t.best is not None and t.best is not t.rows[0]]
    assert picked
    expected = [t.best for t in picked]
    monkeypatch.setattr(Alternative, "__eq__", refused)
    assert [t.best for t in picked] == expected
