"""Issue 11, item 3: rule expressions bounded in resources, not only in what they can call:
%-format widths, format-spec widths in messages, min/max(key=...), string lengths, nesting
depth and expression length. A rule file that would exhaust the parser is an HBM009 finding."""

from __future__ import annotations

import os
import time

import bounded
import pytest
from bounded import findings
from helpers import manifest

from hbmlint.expressions import ExpressionError, evaluate, parse, render

GOOD = manifest(
    """
    gpu: {type: H100}
    model: {name: meta-llama/Llama-3.1-8B-Instruct}
    serving: {max_model_len: 8192}
    """
)


@pytest.mark.parametrize(
    "expression",
    [
        '"%999999999d" % 1',
        '"%.999999999f" % 1.5',
        "max(1, 2, key=abs)",
        "min(gpu.usable, gpu.total, key=gpu.usable.to)",
        "1 << 10**9",
        '"x" * 10**9',
        '("ab" + "cd") * 5000',
        'f"{1:999999999}"',
        "-" * 1000 + "1",
        "1+" * 1500 + "1",
        "x" * 3000,
    ],
)
def test_hostile_expressions_end_at_once(expression):
    start = time.process_time()  # CPU time: a loaded CI machine stretches wall time
    with pytest.raises(ExpressionError) as caught:
        evaluate(expression, {"gpu": None}, {})
    assert time.process_time() - start < 5  # a power tower would run for hours
    assert len(str(caught.value)) < 400  # never the whole expression echoed


def test_bounded_forms_still_work():
    assert evaluate('"%5.1f" % 2.5', {}, {}) == "  2.5"
    assert evaluate("max(1, 2) + min(3, 4)", {}, {}) == 5
    assert render("{0.25:%} of {1234567:,}", {}, {}) == "25.0% of 1,234,567"


def test_format_spec_width_in_a_message_is_bounded():
    with pytest.raises(ExpressionError, match="width or precision"):
        render("{1:999999999}", {}, {})
    with pytest.raises(ExpressionError, match="width or precision"):
        render("{1.5:,.999999999f}", {}, {})


def test_parse_errors_of_any_kind_are_expression_errors():
    for expression in ["-" * 1999 + "1", "(" * 1000, "\x00", "1 +"]:
        with pytest.raises(ExpressionError):
            parse(expression)


def rule(check: str = "True", message: str = "m", extra: str = "") -> str:
    return (
        "id: HBM950\nname: hostile\nsummary: s\nseverity: warning\n"
        f"check: {check!r}\nat: gpu\nmessage: {message!r}\n{extra}"
    )


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (rule(check='"%999999999d" % 1 == ""'), None),  # refused when it runs
        (rule(message="{1:999999999}"), 7),  # refused when the rule loads
        (rule(check="max(1, 2, key=abs) > 0"), None),
        (rule(check="1+" * 1500 + "1 > 0"), 5),
        (rule(check="x" * 5000), 5),
        (rule(extra="fixes:\n  - 'use {1:,.99999f}'\n"), 9),
    ],
)
def test_hostile_rule_is_hbm009_and_other_files_still_lint(tmp_path, text, line):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "HBM950.yaml").write_text(text)
    (tmp_path / "m.yaml").write_text(GOOD)
    found = findings("--rules-dir", str(rules), str(tmp_path / "m.yaml"))
    [finding] = [f for f in found if f["code"] == "HBM009"]
    assert finding["file"].endswith("HBM950.yaml") and len(finding["message"]) < 500
    if line is not None:
        assert finding["line"] == line


def test_a_rule_file_built_to_exhaust_the_parser_is_hbm009(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "HBM951.yaml").write_text("id: " + "[" * 50_000 + "]" * 50_000 + "\n")
    (rules / "HBM952.yaml").write_text(rule(check="-" * 1999 + "1"))
    (tmp_path / "m.yaml").write_text(GOOD)
    found = findings("--rules-dir", str(rules), str(tmp_path / "m.yaml"))
    assert sorted(f["file"].rsplit("/", 1)[1] for f in found) == ["HBM951.yaml", "HBM952.yaml"]
    assert {f["code"] for f in found} == {"HBM009"}


def test_a_broken_expression_prints_no_python_warning(tmp_path):
    # 'weights.total > 1else 2': Python's parser warns "invalid decimal literal" on its way to
    # the syntax error; the user gets HBM009 for the rule, not a stray line on stderr
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "HBM901-odd-literal.yaml").write_text(
        "id: HBM901\nname: odd-literal\nsummary: x\nseverity: warning\n"
        "when: weights.total > 1else 2\ncheck: 'true'\nat: model\nmessage: x\n"
    )
    path = tmp_path / "m.yaml"
    path.write_text(GOOD)
    # the installed console script, run outside the checkout, with Python's warnings shown
    env = {**os.environ, "PYTHONWARNINGS": "default"}
    run = bounded.run("--rules-dir", str(rules), str(path), cwd=tmp_path, env=env)
    assert "HBM009" in run.stdout
    assert "SyntaxWarning" not in run.stderr, run.stderr
