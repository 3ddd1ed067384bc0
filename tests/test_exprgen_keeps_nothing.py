"""A generated comparison of two of the scope's names (exprgen) where the scope keeps no
comparison (Scope._results None, as tests/test_shared_comparisons.py makes it): worked out on
every evaluation and kept nowhere, as the closure does (_shared_comparison)."""

from __future__ import annotations

from hbmlint.expressions import Lazy, Scope, merged_evaluator
from hbmlint.exprgen import generated
from hbmlint.units import Q


def test_a_scope_that_keeps_nothing_is_compared_each_time():
    made = []

    def a(c):
        made.append("a")
        return Q(1, "GiB")

    table = {"a": a, "b": lambda c: Q(2, "GiB")}
    flat_table = {f"s.{n}": ("s", f) for n, f in table.items()}
    names = Scope.over(None, {"s": lambda c: Lazy.over(c, table)}).with_flat(flat_table)
    names._results = None
    fast = generated("s.a <= s.b", frozenset(), frozenset(flat_table))
    slow = merged_evaluator("s.a <= s.b")
    assert fast(names, {}, None) is True
    assert slow(names, {}, None) is True
    assert names._results is None
