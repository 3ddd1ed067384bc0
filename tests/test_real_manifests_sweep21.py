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


DGX_SPARK_IMAGE = REAL / "shell-dgx-spark-image.sh"
GB10_COMPUTED_FRACTION = REAL / "shell-gb10-computed-fraction.sh"
COVERED |= {DGX_SPARK_IMAGE.name, GB10_COMPUTED_FRACTION.name}


def test_an_image_built_for_the_dgx_spark_names_the_gb10(rules, tmp_path):
    # `scitrera/dgx-spark-vllm:0.13.0-t4` runs only on a DGX Spark: the GB10 is taken from it
    # (was HBM005 "names no GPU type"), and with it the unified-memory check holds
    result = _lint(DGX_SPARK_IMAGE, rules)
    assert codes(result, "HBM005") == []
    [item] = result.deployments
    assert item.budget.resolved.gpu.name == "GB10-128GB"
    assert item.deployment.locations["gpu.type"].line == 16  # the image's line
    [fraction] = codes(result, "HBM322")
    assert fraction.span.line == 22
    # the same name in Compose and in a pod spec; "gb10" as a word only (not GB100 / GB200)
    compose = tmp_path / "docker-compose.yml"
    compose.write_text(
        "services:\n  vllm:\n    image: example/vllm-gb10:0.14\n"
        "    command: vllm serve Qwen/Qwen3-8B\n"
        "    deploy: {resources: {reservations: {devices: [{driver: nvidia, count: all,"
        " capabilities: [gpu]}]}}}\n"
    )
    [item] = _lint(compose, rules).deployments
    assert item.budget.resolved.gpu.name == "GB10-128GB"
    compose.write_text(compose.read_text().replace("vllm-gb10", "vllm-gb100"))
    assert _lint(compose, rules).deployments[0].budget is None  # no GPU named


def test_a_computed_memory_fraction_is_not_judged_on_the_default(rules):
    # the script computes --gpu-memory-utilization "${GMEM}" from free memory and clamps it to
    # at most 0.85: HBM322 on the assumed default (0.92) was a false warning
    result = _lint(GB10_COMPUTED_FRACTION, rules, gpu="GB10")
    assert codes(result, "HBM322") == []
    [unread] = [f for f in codes(result, "HBM011") if "--gpu-memory-utilization" in f.message]
    assert unread.span.line == 54
