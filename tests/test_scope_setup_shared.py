"""A budget's rule functions start from the documented ones merged once a run
(expressions._BASE_MERGED): each budget gets its own dict, with the documented functions, the
mark evaluate() reads, and its own functions over any documented one of the same name."""

from __future__ import annotations

from hbmlint import expressions
from hbmlint.expressions import BASE_FUNCTIONS, evaluate, with_base_functions


def test_each_merge_is_a_new_dict_over_the_shared_base():
    mine = {"twice": lambda x: 2 * x, "max": lambda *a: "mine"}
    first, second = with_base_functions(mine), with_base_functions({})
    assert first is not second and first is not expressions._BASE_MERGED
    first["extra"] = len
    assert "extra" not in second and "extra" not in expressions._BASE_MERGED
    assert first["max"] is mine["max"]  # the caller's function over the documented one
    assert second["max"] is max and first["min"] is BASE_FUNCTIONS["min"]
    assert set(second) == {*BASE_FUNCTIONS, ""}
    assert evaluate("twice(3) + floor(2.5)", {}, first) == 8
    assert evaluate("max(1, 4)", {}, second) == 4
