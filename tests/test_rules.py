"""Each built-in rule with a small manifest that trips it and one that does not; rule loading,
validation and the safety of the expression language."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import manifest

from hbmlint.expressions import ExpressionError, evaluate, render
from hbmlint.lint import lint_file
from hbmlint.rules import builtin_rule_files, declared_names, load_rule_file, load_rules
from hbmlint.units import Q


def findings(write, spec: str, rules=None):
    path = write(manifest(spec))
    loaded, problems = load_rules() if rules is None else (rules, [])
    assert not problems
    return lint_file(path, path.name, loaded).diagnostics


def codes(diagnostics) -> list[str]:
    return [d.code for d in diagnostics]


def only(diagnostics, code):
    [found] = [d for d in diagnostics if d.code == code]
    return found


# --- HBM101 weights-exceed-hbm -------------------------------------------------------------


def test_hbm101_trips_when_weights_exceed_usable(write):
    result = findings(
        write,
        """
        gpu: {type: L4}
        model: {name: meta-llama/Llama-3.1-70B-Instruct}
        serving: {max_model_len: 8192}
    """,
    )
    finding = only(result, "HBM101")
    assert finding.severity.name == "ERROR"
    assert finding.span.line == 6  # the `model:` line of the manifest
    assert re.search(r"weights need 131\.\d\d GiB per GPU", finding.message)
    assert "short by" in finding.message
    # TP 2 and 4 still leave no room for an 8k sequence on 24 GB cards; 8 does
    [tp] = [fix for fix in finding.fixes if fix.startswith("Raise tensor parallelism")]
    assert tp.startswith("Raise tensor parallelism to 8 (8 GPUs): weights 16.")


def test_hbm101_offers_no_tensor_parallelism_that_would_not_fit(write):
    result = findings(
        write,
        """
        gpu: {type: L4}
        model: {name: meta-llama/Llama-3.1-405B-Instruct}
    """,
    )
    assert not [f for f in only(result, "HBM101").fixes if "tensor parallelism" in f]


def test_hbm101_quiet_when_weights_fit(write):
    assert "HBM101" not in codes(
        findings(
            write,
            """
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
    """,
        )
    )


def test_hbm101_fixes_compute_fp8_and_ngram_draft(write):
    result = findings(
        write,
        """
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-70B-Instruct, quantization: fp8}
        serving: {max_model_len: 8192, max_num_batched_tokens: 4096,
                  gpu_memory_utilization: 0.95}
        speculative: {method: draft_model, model: meta-llama/Llama-3.1-8B-Instruct}
    """,
    )
    fixes = only(result, "HBM101").fixes
    # BF16 -> FP8 halves the 6.98 B linear parameters of Llama-3.1-8B: 6.50 GiB freed, short
    # of the 7.47 GiB missing, so it is said as too little, not offered as a fix to apply
    assert not any(f.startswith("Quantize the draft to FP8") for f in fixes)
    assert (
        "Quantizing the draft to FP8 frees only 6.50 GiB: the weights would still exceed the "
        "usable memory by 0.97 GiB." in fixes
    )
    ngram = next(f for f in fixes if "n-gram" in f)
    assert "frees 14.99 GiB" in ngram
    assert re.search(r"KV cache then [\d,]+ tokens", ngram)


def test_hbm101_offers_the_fp8_draft_where_it_makes_the_weights_fit(write):
    # at 0.97 of the card (76.80 GiB) the FP8 draft's 76.19 GiB of weights fit
    result = findings(
        write,
        """
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-70B-Instruct, quantization: fp8}
        serving: {max_model_len: 8192, max_num_batched_tokens: 4096,
                  gpu_memory_utilization: 0.97}
        speculative: {method: draft_model, model: meta-llama/Llama-3.1-8B-Instruct}
    """,
    )
    fixes = only(result, "HBM101").fixes
    assert not any(f.startswith("Quantizing the draft to FP8 frees only") for f in fixes)
    [fp8] = [f for f in fixes if f.startswith("Quantize the draft to FP8")]
    assert "frees 6.50 GiB; weights then 76.19 GiB of 76.80 GiB usable" in fp8


def test_hbm101_says_when_no_tensor_parallel_size_fits(write):
    # 131 GiB of BF16 weights: no TP size up to 8 makes them fit on 22 GiB L4s with a sequence,
    # and an FP8 checkpoint (70 GiB) does not fit one L4 either: no setting to offer
    result = findings(
        write,
        """
        gpu: {type: L4}
        model: {name: meta-llama/Llama-3.1-70B-Instruct}
    """,
    )
    assert only(result, "HBM101").fixes == [
        "No tensor-parallel size up to 8 GPUs fits these weights and one full-length sequence "
        "on L4-24GB: it takes GPUs with more memory, a smaller (quantized) checkpoint, or "
        "pipeline parallelism across nodes."
    ]


# --- HBM102 kv-below-one-sequence ----------------------------------------------------------


def test_hbm102_trips_and_gives_a_max_model_len_that_fits(write):
    result = findings(
        write,
        """
        gpu: {type: A10G}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving:
          max_model_len: 131072
    """,
    )
    finding = only(result, "HBM102")
    assert (finding.span.line, finding.span.column) == (8, 20)  # the 131072 value
    # the first fix is the length that fits even at the low edge of the estimate
    match = re.search(r"Lower max_model_len to ([\d,]+) tokens", finding.fixes[0])
    fit = int(match.group(1).replace(",", ""))
    held = int(
        re.search(r"the KV cache holds ([\d,]+) tokens", finding.message)[1].replace(",", "")
    )
    assert 0 < fit <= held < 131072 and fit % 16 == 0
    assert finding.fixes[0].endswith("which fits either way.")


def test_hbm102_quiet_when_one_sequence_fits(write):
    assert "HBM102" not in codes(
        findings(
            write,
            """
        gpu: {type: A10G}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving: {max_model_len: 8192}
    """,
        )
    )


def test_hbm102_defers_to_hbm101_when_weights_do_not_fit(write):
    result = codes(
        findings(
            write,
            """
        gpu: {type: L4}
        model: {name: meta-llama/Llama-3.1-70B-Instruct}
    """,
        )
    )
    assert "HBM101" in result and "HBM102" not in result


# --- HBM103 kv-below-workload --------------------------------------------------------------


def test_hbm103_trips_with_what_fits(write):
    result = findings(
        write,
        """
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving: {max_model_len: 32768}
        workload:
          concurrency: 64
          context_tokens: 32768
    """,
    )
    finding = only(result, "HBM103")
    assert finding.severity.name == "WARNING"
    assert finding.span.line == 8  # the `workload:` line
    assert "needs 2,097,152 tokens" in finding.message
    assert re.search(r"(\d+) sequences fit at that context", finding.message)
    assert re.search(r"or 64 sequences of [\d,]+ tokens each", finding.message)


def test_hbm103_quiet_without_workload_or_when_it_fits(write):
    assert "HBM103" not in codes(
        findings(
            write,
            """
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
    """,
        )
    )
    assert "HBM103" not in codes(
        findings(
            write,
            """
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        workload: {concurrency: 4, context_tokens: 8192}
    """,
        )
    )


# --- HBM201 draft-weights-share ------------------------------------------------------------


def test_hbm201_trips_on_large_draft_and_points_at_it(write):
    result = findings(
        write,
        """
        gpu: {type: H100}
        model: {name: Qwen/Qwen2.5-32B-Instruct, quantization: fp8}
        serving: {max_model_len: 8192}
        speculative:
          method: draft_model
          model: Qwen/Qwen2.5-7B-Instruct
    """,
    )
    finding = only(result, "HBM201")
    assert finding.span.line == 10 and finding.span.column == 12
    assert "limit 10.0%" in finding.message
    share = float(re.search(r"are ([\d.]+)% of usable HBM", finding.message).group(1))
    assert 15 < share < 25
    displaced = re.search(r"displaces ([\d,]+) tokens", finding.message).group(1)
    assert int(displaced.replace(",", "")) > 0


def test_hbm201_quiet_for_small_draft_and_ngram(write):
    assert "HBM201" not in codes(
        findings(
            write,
            """
        gpu: {type: H200}
        model: {name: Qwen/Qwen3-32B}
        speculative: {method: draft_model, model: Qwen/Qwen3-0.6B}
    """,
        )
    )
    assert "HBM201" not in codes(
        findings(
            write,
            """
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        speculative: {method: ngram}
    """,
        )
    )


def test_rule_parameter_override(write, tmp_path):
    rules, _ = load_rules()
    [rule] = [r for r in rules if r.id == "HBM201"]
    rule.params["max_share"] = Q(0.5, "percent")
    result = findings(
        write,
        """
        gpu: {type: H200}
        model: {name: Qwen/Qwen3-32B}
        speculative: {method: draft_model, model: Qwen/Qwen3-0.6B}
    """,
        rules=[rule],
    )
    assert "limit 0.5%" in only(result, "HBM201").message


# --- loading rules -------------------------------------------------------------------------


def test_builtin_rules_load_cleanly():
    rules, problems = load_rules()
    assert not problems
    assert {"HBM101", "HBM102", "HBM103", "HBM201"} <= {r.id for r in rules}


def test_builtin_rules_follow_the_rule_schema():
    """hbmlint skips this check for its own rules at run time, so it is made here."""
    for path in builtin_rule_files():
        rule, problems = load_rule_file(path, validated=False)
        assert rule is not None and not problems, (path, problems)


def write_rule(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "rules" / "mine.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return path


GOOD_RULE = """\
id: HBM901
name: tiny-kv
summary: Fewer than a million KV tokens.
severity: info
params:
  min_tokens: 1000000 tokens
check: kv.tokens >= min_tokens
at: serving
message: only {kv.tokens} of KV cache on {gpu.name}
"""


def test_team_rule_runs_like_a_builtin(write, tmp_path):
    rule, problems = load_rule_file(write_rule(tmp_path, GOOD_RULE))
    assert not problems
    result = findings(
        write,
        """
        gpu: {type: L4}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
    """,
        rules=[rule],
    )
    finding = only(result, "HBM901")
    assert re.fullmatch(r"only [\d,]+ tokens of KV cache on L4-24GB", finding.message)


def test_rule_schema_violation_is_located(tmp_path):
    broken = GOOD_RULE.replace("severity: info", "severity: loud")
    rule, problems = load_rule_file(write_rule(tmp_path, broken))
    assert rule is None
    [problem] = problems
    assert problem.code == "HBM009"
    assert problem.file.endswith("mine.yaml")
    assert problem.span.line == 4 and "loud" in problem.message


def test_rule_expression_syntax_error_is_located(tmp_path):
    broken = GOOD_RULE.replace("check: kv.tokens >= min_tokens", "check: kv.tokens >=")
    rule, problems = load_rule_file(write_rule(tmp_path, broken))
    assert rule is None
    assert problems[0].span.line == 7
    assert "invalid expression" in problems[0].message


def test_rule_failing_at_runtime_is_reported_and_others_still_run(write, tmp_path):
    broken, _ = load_rule_file(
        write_rule(
            tmp_path,
            # declared names, agreeing units, a division by zero: only evaluation can tell
            GOOD_RULE.replace(
                "check: kv.tokens >= min_tokens",
                "check: kv.tokens / (gpu.count - gpu.count) >= min_tokens",
            ),
        )
    )
    builtin, _ = load_rules()
    result = findings(
        write,
        """
        gpu: {type: L4}
        model: {name: meta-llama/Llama-3.1-70B-Instruct}
    """,
        rules=[broken, *builtin],
    )
    problem = only(result, "HBM009")
    assert problem.file.endswith("mine.yaml") and "ZeroDivisionError" in problem.message
    assert "HBM101" in codes(result)


@pytest.mark.parametrize(
    ("check", "said"),
    [
        ("kv.tokens >= gpu.total", "compares tokens with bytes in 'kv.tokens >= gpu.total'"),
        ("kv.tokens >= 8192", "compares tokens with a plain number in 'kv.tokens >= 8192'"),
        ("kv.tokens + 1 >= min_tokens", "adds tokens with a plain number in 'kv.tokens + 1'"),
        ("min(kv.bytes, min_tokens) > 0", "min() of bytes with tokens"),
        (
            'whatif(kv_cache_dtype="fp8").kv.tokens > kv.bytes',
            "compares tokens with bytes",
        ),
        ("kv.tokens >= workload.concurrency", "compares tokens with a plain number"),
        ("serving.max_model_len % serving.block_size == 0", "takes the remainder of tokens"),
    ],
)
def test_units_that_do_not_agree_are_reported_when_the_rule_loads(tmp_path, check, said):
    """A rule that compares bytes with tokens would fail on every deployment (or never trip):
    it is refused at load, at the expression's line, before any manifest is read."""
    text = GOOD_RULE.replace("check: kv.tokens >= min_tokens", f"check: {check}")
    rule, problems = load_rule_file(write_rule(tmp_path, text))
    assert rule is None
    [problem] = problems
    assert problem.code == "HBM009" and "units do not agree" in problem.message
    assert said in problem.message
    assert problem.span.line == text.splitlines().index(f"check: {check}") + 1


@pytest.mark.parametrize(
    "check",
    [
        "kv.tokens >= min_tokens",
        "kv.tokens > 0",  # zero stands for any unit
        "draft.weights <= share * gpu.usable",
        "kv.bytes / kv.tokens <= kv.bytes_per_token",
        "kv.tokens / serving.max_model_len >= gpu.count",
        'whatif(kv_cache_dtype="fp8").kv.tokens >= serving.max_model_len',
        "floor(kv.tokens / 2) >= min(min_tokens, serving.max_model_len)",
        'model.quantization in ("awq", "gptq") or gpu.count * 2 > parallel.tensor',
    ],
)
def test_units_that_agree_load(tmp_path, check):
    text = GOOD_RULE.replace("check: kv.tokens >= min_tokens", f"check: {check}")
    text = text.replace("params:\n", "params:\n  share: 10 percent\n")
    rule, problems = load_rule_file(write_rule(tmp_path, text))
    assert problems == [] and rule is not None


def test_the_builtin_rules_units_agree():
    from hbmlint.dimensions import check as check_units
    from hbmlint.expressions import template_fields

    rules, _ = load_rules()
    for rule in rules:
        expressions = [rule.check, rule.when]
        for wording in rule.messages:
            expressions += [wording.when, *(e for e, _ in template_fields(wording.text))]
        for fix in rule.fixes:
            expressions += [fix.when, *fix.set.values()]
            expressions += [e for e, _ in template_fields(fix.text)]
        for expression in filter(None, expressions):
            check_units(expression, declared_names(), rule.params)


@pytest.mark.parametrize(
    ("check", "unknown"),
    [
        ("kv.tokens >= no_such_name", "no_such_name"),
        ("model.heads > 0", "model.heads"),
        ('whatif(kv_cache_dtype="fp8").kv.tokenz > kv.tokens', "whatif(...).kv.tokenz"),
    ],
)
def test_an_undeclared_name_is_reported_when_the_rule_loads(tmp_path, check, unknown):
    text = GOOD_RULE.replace("check: kv.tokens >= min_tokens", f"check: {check}")
    rule, problems = load_rule_file(write_rule(tmp_path, text))
    assert rule is None
    [problem] = problems
    assert problem.code == "HBM009" and f"unknown name {unknown}" in problem.message
    assert problem.span.line == text.splitlines().index(f"check: {check}") + 1


# --- the expression language ---------------------------------------------------------------


class Thing:
    def __init__(self):
        self.size = Q(3, "GiB")
        self._secret = 1


@pytest.mark.parametrize(
    "expression",
    [
        "__import__('os').system('true')",
        "thing._secret",
        "thing.__class__",
        "thing.size.to('MiB')",  # methods of values in scope are not callable
        "open('/etc/passwd')",
        "10 ** 10 ** 10",
        "'x' * 10**9",
        "lambda: 1",
    ],
)
def test_hostile_expressions_are_refused(expression):
    with pytest.raises(ExpressionError):
        evaluate(expression, {"thing": Thing()}, {})


def test_expressions_keep_units():
    names = {"thing": Thing(), "share": Q(10, "percent")}
    assert evaluate("thing.size * share < 1 * thing.size", names, {})
    assert render("{thing.size * share} is {share:%}", names, {}) == "0.30 GiB is 10.0%"
