"""Issue 18 (speed), session 17: the compiled closures compare as Python writes it (no call of
OPERATORS' function per comparison), join two or three operands of and/or without a loop,
fold tuples of literals into one value, and a finding's templates are split and checked once
per run (template_plan) with the rule's parameters read beside the budget's names. These
tests hold each path to what simpleeval, the reference evaluator, gives and refuses, and to
the findings users read.

The manifest is test_speculative_rules.py's DISPLACING (a Llama-3.1-8B target with a 3B
drafter on an H100, the pattern of vLLM's speculative decoding examples,
vllm-project/vllm docs/features/spec_decode.md)."""

from __future__ import annotations

import ast
import re

import pytest
from helpers import manifest
from test_speculative_rules import DISPLACING as DISPLACING_SPEC

from hbmlint.expressions import (
    OPERATORS,
    ExpressionError,
    Scope,
    _compiled,
    _Evaluator,
    evaluate,
    parameter_evaluator,
    parse,
    render,
    render_plan,
    template_plan,
)
from hbmlint.lint import lint_file
from hbmlint.rules import builtin_rule_files, load_rules
from hbmlint.units import Q

NAMES = {
    "kv": {"tokens": Q(4096, "token"), "bytes": Q(2, "GiB")},
    "gpu": {"vendor": "nvidia", "count": 8},
    "quant": "awq",
    "none": None,
    "flag": True,
}


def reference(expression: str):
    """What simpleeval itself gives: the value, or the error's type and text."""
    evaluator = _Evaluator(operators=OPERATORS)
    evaluator.names = NAMES
    evaluator.functions = {}
    try:
        return evaluator.eval(expression)
    except Exception as exc:  # noqa: BLE001 - compared as they are
        return (type(exc).__name__, str(exc))


def compiled(expression: str):
    run = _compiled(expression)
    assert run is not None, "the expression should compile"
    try:
        return run(NAMES, {}, None)
    except Exception as exc:  # noqa: BLE001 - compared as they are
        return (type(exc).__name__, str(exc))


@pytest.mark.parametrize(
    "expression",
    [
        "kv.tokens < 8192",
        "kv.tokens <= kv.tokens",
        "kv.bytes > 1",  # bytes against a plain number: refused the same way
        "kv.bytes >= kv.tokens",  # bytes against tokens: refused the same way
        "gpu.count == 8",
        "gpu.vendor != 'amd'",
        'quant in ("awq", "awq_marlin")',
        'quant not in ("awq", "awq_marlin")',
        "quant in gpu.vendor",
        "quant not in gpu.vendor",
        "gpu.count in quant",  # an int in a string: TypeError, the same text
        "none < 1",
        "gpu.vendor < gpu.count",
        "not flag",
        "not none",
        'quant in ("awq",) and not (gpu.count < 4)',
        "(1, 'a', None)",
        # and/or of two and three operands: the first false (or true) value, or the last
        "gpu.count and quant",
        "none or 0",
        "flag and gpu.count and none",
        "none or 0 or quant",
        "flag and 0 and kv.missing",  # stops before the name it cannot read
        "kv.bytes > 1 and flag",  # the refusal of its first operand, unchanged
        "flag or kv.bytes > 1",
        "none or 0 or '' or quant",  # four operands: the loop
    ],
)
def test_compiled_comparisons_give_and_refuse_what_simpleeval_does(expression):
    assert compiled(expression) == reference(expression)


def test_a_tuple_of_literals_is_built_once():
    run = _compiled('("awq", "gptq")')
    assert run(NAMES, {}, None) is run({}, {}, None) == ("awq", "gptq")


def test_a_template_with_a_format_too_wide_is_refused_where_it_is_rendered():
    # the format is checked once, with the plan; the refusal comes at rendering, after the
    # fields before it are worked out, as it did when each rendering checked it
    template = "{kv.tokens} then {gpu.count:500}"
    with pytest.raises(ExpressionError, match="width or precision over 100"):
        render(template, NAMES, {})
    with pytest.raises(ExpressionError, match="'kv.missing'"):
        render("{kv.missing} then {gpu.count:500}", NAMES, {})


def test_a_plan_reads_the_rule_parameters_beside_the_names():
    params = {"max_share": Q(10, "percent"), "limit": 2}
    plan = template_plan("{kv.bytes * max_share} of {kv.bytes}, at most {limit}", frozenset(params))
    assert render_plan(plan, NAMES, {}, params) == "0.20 GiB of 2.00 GiB, at most 2"
    # an expression that reads no parameter shares the evaluator of the same text without them
    assert parameter_evaluator("kv.bytes", frozenset(params)) is parameter_evaluator(
        "kv.bytes", frozenset()
    )


# A team's own rule that reads the table with its own rates beside the table as configured:
# the call without arguments is asked for once a deployment, and must not answer for the other.
OWN_RATES = """
id: HBM901
name: tradeoff-with-own-rates
summary: The drafter's speed-up with the rule's rates and with a higher acceptance.
severity: info
check: "False"
at: speculative
message: >-
  x{tradeoff().current.tokens_per_step:.2f} as configured,
  x{tradeoff(acceptance_draft_model=0.95).current.tokens_per_step:.2f} at 95%,
  x{tradeoff().current.tokens_per_step:.2f} again
"""


def test_a_rule_reads_the_tradeoff_table_with_and_without_its_own_rates(tmp_path):
    rule_file = tmp_path / "HBM901.yaml"
    rule_file.write_text(OWN_RATES)
    # beside the built-in rules: HBM208's parameters are what tradeoff() starts from
    rules, problems = load_rules([*builtin_rule_files(), rule_file])
    assert problems == [] and rules[-1].id == "HBM901"
    path = tmp_path / "m.yaml"
    path.write_text(manifest(DISPLACING_SPEC))
    [finding] = [d for d in lint_file(path, path.name, rules).diagnostics if d.code == "HBM901"]
    plain, raised, again = [float(x) for x in re.findall(r"x([0-9.]+)", finding.message)]
    assert plain == again < raised


def _depth(node: ast.AST) -> int:
    """The deepest level of a tree as parse() counts it: the root is 1, and every node
    ast.iter_child_nodes yields (a name's Load context included) one below its parent."""
    return 1 + max((_depth(child) for child in ast.iter_child_nodes(node)), default=0)


@pytest.mark.parametrize("signs", range(34, 42))
def test_parse_refuses_nesting_at_the_same_depth_as_before(signs):
    # "-" * n + "x": a chain of n negations; parse's walk reads each node's children itself
    # (not through ast.iter_child_nodes) and must stop at the same depth
    expression = "-" * signs + "kv.tokens"
    deep = _depth(ast.parse(expression, mode="eval").body) > 40
    if deep:
        with pytest.raises(ExpressionError, match="nests deeper than 40 levels"):
            parse(expression)
    else:
        assert parse(expression) is not None


def test_parse_refuses_an_f_string_inside_an_expression():
    with pytest.raises(ExpressionError, match="f-strings are not supported"):
        parse('kv.tokens > 0 and (1, f"{kv.tokens}")')


# A team's own rule reading a what-if budget's namespaces (built from one table of builders
# for every budget, as the rule scope's are): a workload declared or not, and the overhead.
WHATIF_NAMES = """
id: HBM902
name: whatif-namespaces
summary: What a what-if budget's namespaces say.
severity: info
check: "False"
at: model
message: >-
  declared {workload.declared}, in the what-if {whatif(kv_cache_dtype="fp8").workload.declared};
  overhead {overhead.total}, in the what-if {whatif(kv_cache_dtype="fp8").overhead.total};
  tokens {kv.tokens}, in the what-if {whatif(kv_cache_dtype="fp8").kv.tokens}
"""


@pytest.mark.parametrize("declared", [True, False])
def test_a_whatif_budget_reads_its_namespaces_like_the_budget(tmp_path, declared):
    rule_file = tmp_path / "HBM902.yaml"
    rule_file.write_text(WHATIF_NAMES)
    rules, problems = load_rules([rule_file])
    assert problems == []
    text = DISPLACING_SPEC
    if not declared:
        text = "\n".join(line for line in text.splitlines() if "workload:" not in line)
    path = tmp_path / "m.yaml"
    path.write_text(manifest(text))
    [finding] = lint_file(path, path.name, rules).diagnostics
    answer = "yes" if declared else "no"
    assert f"declared {answer}, in the what-if {answer};" in finding.message
    overhead = re.search(r"overhead ([0-9.]+ GiB), in the what-if ([0-9.]+ GiB)", finding.message)
    assert overhead and overhead[1] == overhead[2]  # FP8 KV changes the cache, not the overhead
    # the FP8 cache holds more tokens than the BF16 one of the same deployment
    tokens = re.search(r"tokens ([0-9,]+) tokens, in the what-if ([0-9,]+) tokens", finding.message)
    assert tokens and int(tokens[1].replace(",", "")) < int(tokens[2].replace(",", ""))


def test_a_scope_over_a_context_builds_each_name_once_and_refuses_unknown_ones():
    built = []

    def kv(context):
        built.append(context)
        return {"tokens": Q(context, "token"), "half": Q(context / 2, "token")}

    scope = Scope.over(4096, {"kv": kv})
    assert evaluate("kv.tokens > kv.half and kv.tokens", scope, {}) == Q(4096, "token")
    assert built == [4096]  # once, with the context
    with pytest.raises(ExpressionError, match="gpu"):
        evaluate("gpu.count > 1", scope, {})
