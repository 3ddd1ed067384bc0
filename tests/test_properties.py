"""Property-based tests: arbitrary input to each reader yields findings or a clean result, never
an uncaught exception, and the same input always gives the same output."""

from __future__ import annotations

import contextlib
from pathlib import Path

import yaml
from helpers import manifest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hbmlint.expressions import ExpressionError, evaluate, render
from hbmlint.lint import lint_file
from hbmlint.rules import load_rules
from hbmlint.units import Q, UnitError, format_quantity, parse_quantity
from hbmlint.yamlsrc import YamlLoadError, load_documents

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RULES, _ = load_rules()

yaml_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=20)
)
yaml_values = st.recursive(
    yaml_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)


@FAST
@given(st.text(max_size=400))
def test_yaml_loader_never_raises(text):
    documents, error = load_documents(text)
    assert error is None or isinstance(error, YamlLoadError)
    assert error is None or error.span.line >= 1
    again, error_again = load_documents(text)
    assert [d.data for d in again] == [d.data for d in documents]
    assert (error_again is None) == (error is None)


@FAST
@given(yaml_values)
def test_positions_exist_for_every_value(value):
    text = yaml.safe_dump({"root": value})
    [document], error = load_documents(text)
    assert error is None
    assert document.span(("root",)).line >= 1


def manifest_spec_values():
    field = st.sampled_from(
        ["gpu", "model", "serving", "speculative", "workload", "parallel", "engine"]
    )
    return st.dictionaries(field, yaml_values, max_size=5)


@FAST
@given(manifest_spec_values())
def test_native_reader_on_arbitrary_specs(tmp_path_factory, spec):
    path = Path(tmp_path_factory.mktemp("m")) / "m.yaml"
    text = yaml.safe_dump({"apiVersion": "hbmlint/v1", "kind": "ServingManifest", "spec": spec})
    path.write_text(text)
    first = lint_file(path, "m.yaml", RULES)
    second = lint_file(path, "m.yaml", RULES)
    assert [(d.code, d.message, d.span) for d in first.diagnostics] == [
        (d.code, d.message, d.span) for d in second.diagnostics
    ]
    assert all(d.span.line >= 1 for d in first.diagnostics)


@FAST
@given(
    gpu=st.sampled_from(["H100", "L4", "A10G", "H200", "MI300X", "T4"]),
    model=st.sampled_from(
        [
            "meta-llama/Llama-3.1-8B-Instruct",
            "Qwen/Qwen3-32B",
            "meta-llama/Llama-3.1-70B-Instruct",
            "Qwen/Qwen2.5-0.5B-Instruct",
        ]
    ),
    tp=st.sampled_from([1, 2, 4, 8]),
    max_model_len=st.integers(min_value=1, max_value=10**7),
    util=st.floats(min_value=0.01, max_value=1.0),
    kv=st.sampled_from(["auto", "fp8", "bfloat16"]),
    method=st.sampled_from(["none", "ngram", "draft_model"]),
    workload=st.none() | st.tuples(st.integers(1, 10**4), st.integers(1, 10**6)),
)
def test_valid_manifests_always_lint(
    tmp_path_factory, gpu, model, tp, max_model_len, util, kv, method, workload
):
    spec = f"""
        gpu: {{type: {gpu}, count: {tp}}}
        model: {{name: {model}}}
        serving: {{max_model_len: {max_model_len}, gpu_memory_utilization: {util},
                  kv_cache_dtype: {kv}}}
        speculative: {{method: {method}{
        ", model: Qwen/Qwen3-0.6B" if method == "draft_model" else ""
    }}}
    """
    if workload:
        spec += f"    workload: {{concurrency: {workload[0]}, context_tokens: {workload[1]}}}\n"
    path = Path(tmp_path_factory.mktemp("m")) / "m.yaml"
    path.write_text(manifest(spec))
    result = lint_file(path, "m.yaml", RULES)
    assert not [d for d in result.diagnostics if d.code in ("HBM000", "HBM009")]
    [deployment] = result.deployments
    budget = deployment.budget
    assert budget is not None
    assert budget.kv_tokens.magnitude >= 0
    assert budget.kv_tokens.magnitude % budget.settings.block_size == 0


@FAST
@given(st.text(max_size=40))
def test_unit_parser_never_raises_anything_else(text):
    try:
        quantity = parse_quantity(text, "[information]")
    except UnitError:
        return
    assert quantity.magnitude == quantity.magnitude  # finite, not NaN
    assert format_quantity(quantity).endswith("GiB")


@FAST
@given(
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e15, max_value=1e15),
    st.sampled_from(["B", "KiB", "MiB", "GiB", "GB", "MB", "TiB"]),
)
def test_unit_round_trip(number, unit):
    quantity = parse_quantity(f"{number!r} {unit}", "[information]")
    assert quantity.to("byte").magnitude == Q(number, unit).to("byte").magnitude


NAMES = {"x": Q(3, "GiB"), "n": 7, "share": Q(10, "percent"), "tokens": Q(4096, "token")}
expression_text = st.text(
    alphabet=st.sampled_from(list("xnsharetokens()+-*/%<>=!. 0123456789_,'\"[]{}:")),
    max_size=40,
)


@FAST
@given(expression_text)
def test_expression_evaluator_raises_only_expression_errors(text):
    try:
        first = evaluate(text, NAMES, {})
    except ExpressionError:
        return
    assert evaluate(text, NAMES, {}) == first or first != first  # same result every time


@FAST
@given(expression_text)
def test_templates_render_or_raise_expression_errors(text):
    with contextlib.suppress(ExpressionError):
        render("value: {" + text + "}", NAMES, {})
