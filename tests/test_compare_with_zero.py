"""A compiled comparison of a quantity with a plain zero reads the magnitude where the unit has a
dimension (what Quantity's own comparison answers there, without its calls): the same answers
and the same errors as the comparison as written."""

from __future__ import annotations

import operator

import pytest
import simpleeval

from hbmlint.expressions import ExpressionError, Scope, evaluate, merged_evaluator
from hbmlint.quantity import Quantity
from hbmlint.units import Q

ZERO_COMPARISONS = ["x < 0", "x <= 0", "x > 0", "x >= 0", "x < 0.0", "x >= 0.0", "x > -0"]
VALUES = [
    Q(5, "byte"),
    Q(-5, "GiB"),
    Q(0, "token"),
    Q(0.0, "byte / token"),
    Q(3, "percent"),  # dimensionless: compared after conversion
    Q(-2, ""),
    0,
    -1,
    2.5,
    True,
    False,
]


def _by_python(expression: str, value):
    op, constant = expression.split()[1:]
    compare = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}[op]
    return compare(value, int(constant) if "." not in constant else float(constant))


@pytest.mark.parametrize("expression", ZERO_COMPARISONS)
@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_a_comparison_with_zero_answers_what_the_quantity_answers(expression, value):
    compiled = merged_evaluator(expression)
    want = _by_python(expression, value)
    for _ in range(2):  # before and after the unit's dimensions are known
        assert compiled({"x": value}, {}, None) is want
        assert evaluate(expression, {"x": value}, {}) is want
        if isinstance(value, Quantity):
            value.dimensionality  # noqa: B018 - worked out, as a budget's units are


def test_a_dimensioned_quantity_is_compared_with_zero_by_its_magnitude(monkeypatch):
    size = Q(4, "GiB")
    size.dimensionality  # noqa: B018 - a unit the run has used already
    monkeypatch.setattr(Quantity, "_compare", lambda *a: pytest.fail("the slow path ran"))
    assert merged_evaluator("x > 0")({"x": size}, {}, None) is True
    assert merged_evaluator("x <= 0")({"x": size}, {}, None) is False


def test_a_comparison_with_zero_fails_as_before():
    with pytest.raises(TypeError):
        merged_evaluator("x > 0")({"x": "text"}, {}, None)
    with pytest.raises(ExpressionError, match="TypeError"):
        evaluate("x > 0", {"x": "text"}, {})
    with pytest.raises(ExpressionError, match="NameNotDefined|not defined"):
        evaluate("y > 0", {"x": 1}, {})
    names = Scope.over(None, {})
    with pytest.raises((KeyError, simpleeval.NameNotDefined)):
        merged_evaluator("y > 0")(names, {}, None)
