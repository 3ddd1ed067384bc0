"""Patterns from public repositories hbmlint had never seen (sweep 21, session 34): each test
names its source and says what a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_lint import codes

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
SGLANG_ROUTER = REAL / "shell-sglang-router-dp.sh"

COVERED = {SGLANG_ROUTER.name}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _lint(path: Path, rules, gpu: str | None = None):
    return lint_file(path, path.name, rules, LintOptions(default_gpu=gpu, keep_budgets=True))


def test_the_sglang_router_launcher_is_read_as_sglang_replicas(rules):
    # `python -m sglang_router.launch_server --dp-size 4 --tp 2` starts four SGLang servers of
    # two GPUs each behind the router (was read as no deployment at all: "All clear")
    result = _lint(SGLANG_ROUTER, rules, gpu="H200")
    [item] = result.deployments
    deployment = item.deployment
    assert deployment.engine == "sglang"
    assert deployment.model.name == "meta-llama/Llama-3.1-70B-Instruct"
    assert (deployment.parallel.tensor, deployment.parallel.data) == (2, 4)
    assert deployment.locations["model.name"].line == 23
    # a 70B in 16 bits over two 141 GB cards fits: each GPU holds half the weights
    weights = item.budget.weights.to("GiB").magnitude
    assert 60 < weights < 70
    assert codes(result, "HBM101") == []
    # on 40 GB cards half a 70B does not fit
    [too_big] = codes(_lint(SGLANG_ROUTER, rules, gpu="A100-40GB"), "HBM101")
    assert too_big.span.line == 23
