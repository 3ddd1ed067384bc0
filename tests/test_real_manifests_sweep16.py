"""Patterns from public repositories hbmlint had never seen (sweep 16): each fixture under
tests/fixtures/real/ names its source in its first lines; each test says what a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_lint import codes, line_of, lint

from hbmlint.diagnostics import Severity
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"

FLAG_AND_VALUE = REAL / "k8s-vllm-flag-and-value-one-item.yaml"

COVERED = {FLAG_AND_VALUE.name}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def test_a_flag_and_its_value_in_one_list_item_is_an_error_at_that_item(rules):
    # was silent about the item: TP read as 1, so a weights error whose fix was "raise tensor
    # parallelism to 4", while the manifest asks for 2 and the engine never reads it
    result = lint(FLAG_AND_VALUE, rules)
    [joined] = codes(result, "HBM004")
    assert joined.severity == Severity.ERROR
    assert joined.span.line == line_of(FLAG_AND_VALUE, "- --tensor-parallel-size 2")
    assert "'--tensor-parallel-size=2'" in joined.fixes[0]
    # read as meant: TP 2 on the pod's two L4s, so no idle-GPU warning; 32B in BF16 is 30.5 GiB
    # a GPU, more than an L4's usable 19.9 GiB (a true error either way)
    [deployment] = result.deployments
    assert deployment.deployment.parallel.tensor == 2
    assert codes(result, "HBM007") == []
    [weights] = codes(result, "HBM101")
    assert weights.severity == Severity.ERROR


def test_a_flag_with_its_value_after_an_equals_sign_is_one_argument_argparse_takes(rules, tmp_path):
    # argparse splits `--flag=value with spaces` at the `=`: no finding
    path = tmp_path / "deploy.yaml"
    path.write_text(
        FLAG_AND_VALUE.read_text().replace(
            "- --tensor-parallel-size 2 # run on two GPUs",
            "- --tensor-parallel-size=2\n            - --served-model-name=deepseek r1",
        )
    )
    result = lint(path, rules)
    assert codes(result, "HBM004") == []
    assert result.deployments[0].deployment.parallel.tensor == 2
