"""Issue 18 (speed), session 18: a comparison of two of the budget's names that several rules
test (``weights.total <= gpu.usable``: seven of a vLLM deployment's rules) is worked out once
for a budget's scope and kept in it; an error is not kept, and each rule raises its own.

The manifests are test_speculative_rules.py's DISPLACING (a Llama-3.1-8B target with a 3B
drafter on an H100, the pattern of vLLM's speculative decoding examples,
vllm-project/vllm docs/features/spec_decode.md) and the same deployment on a 16 GB T4, where
the weights do not fit and the rules guarded by that comparison hold."""

from __future__ import annotations

import pytest
from helpers import manifest
from test_speculative_rules import DISPLACING

from hbmlint import expressions
from hbmlint.expressions import ExpressionError, Lazy, Scope, evaluate
from hbmlint.lint import lint_file
from hbmlint.rules import builtin_rule_files, load_rules


class Counted:
    """A value that counts the comparisons made with it."""

    made = 0

    def __init__(self, value: int) -> None:
        self.value = value

    def __le__(self, other: Counted) -> bool:
        Counted.made += 1
        return self.value <= other.value


def _scope() -> Scope:
    return Scope.over(None, {"kv": lambda _: Lazy.of({"used": Counted(3), "free": Counted(5)})})


def test_a_comparison_of_two_names_is_made_once_for_a_scope():
    Counted.made = 0
    scope = _scope()
    # two expressions (two rules) that test the same comparison: made once
    assert evaluate("kv.used <= kv.free", scope, {}) is True
    assert evaluate("kv.used <= kv.free and not (kv.free <= kv.used)", scope, {}) is True
    assert Counted.made == 2  # kv.used <= kv.free once, kv.free <= kv.used once
    # another budget's scope makes its own
    assert evaluate("kv.used <= kv.free", _scope(), {}) is True
    assert Counted.made == 3
    # names given as a plain mapping are compared on every evaluation, and not written to
    names = {"kv": Lazy.of({"used": Counted(3), "free": Counted(5)})}
    assert evaluate("kv.used <= kv.free", names, {}) is True
    assert evaluate("kv.used <= kv.free", names, {}) is True
    assert Counted.made == 5 and set(names) == {"kv"}


def test_an_error_is_raised_again_by_each_expression_with_its_own_text():
    scope = _scope()
    with pytest.raises(ExpressionError, match=r"'kv.used <= kv.missing'"):
        evaluate("kv.used <= kv.missing", scope, {})
    with pytest.raises(ExpressionError, match=r"'kv.free > 1 or kv.used <= kv.missing'"):
        evaluate("kv.free > 1 or kv.used <= kv.missing", scope, {})


def _findings(tmp_path, spec: str) -> list[tuple]:
    path = tmp_path / "m.yaml"
    path.write_text(manifest(spec))
    rules, problems = load_rules(builtin_rule_files())
    assert problems == []
    return [
        (d.code, d.severity, d.message, d.span, [str(f) for f in d.fixes])
        for d in lint_file(path, path.name, rules).diagnostics
    ]


@pytest.mark.parametrize("gpu", ["H100", "T4"])
def test_the_built_in_rules_find_the_same_with_each_comparison_made_apart(
    tmp_path, monkeypatch, gpu
):
    spec = DISPLACING.replace("type: H100", f"type: {gpu}")
    shared = _findings(tmp_path, spec)
    codes = {code for code, *_ in shared}
    # on the H100 the weights fit and the drafter displaces sequences; on the T4 they do not,
    # and the rules that test the fit first (HBM102, HBM202, ...) hold
    assert ("HBM101" in codes) == (gpu == "T4") and ("HBM202" in codes) == (gpu == "H100")

    made = Scope.over

    def apart(context, builders):  # a scope that keeps no comparison
        scope = made(context, builders)
        scope._results = None
        return scope

    monkeypatch.setattr(expressions.Scope, "over", apart)
    assert _findings(tmp_path, spec) == shared
