"""Vertex AI Model Garden's vLLM container (pytorch-vllm-serve:YYYYMMDD_HHMM_RCnn) is tagged
with its build's day: it packages a vLLM release, so the newest release by that day is the most
it holds. A flag vLLM removed after that day is no finding; one removed before is a warning
that says the image may hold an older release."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.diagnostics import Severity
from hbmlint.engines import image_version
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
VERTEX = REAL / "k8s-vllm-vertex-model-garden-dated.yaml"
COVERED = {VERTEX.name}
IMAGE = "us-docker.pkg.dev/vertex-ai/vertex-vision-model-garden-dockers/pytorch-vllm-serve"


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _lint(tmp_path: Path, rules, flag: str | None = None, tag: str | None = None):
    text = VERTEX.read_text()
    if flag:
        tp = "- --tensor-parallel-size=2"
        text = text.replace(tp, f"{tp}\n        - {flag}")
    if tag:
        text = text.replace(":20250801_0916_RC01", f":{tag}")
    path = tmp_path / VERTEX.name
    path.write_text(text)
    return lint_file(path, path.name, rules, LintOptions(keep_budgets=True))


def test_the_build_day_is_an_upper_bound_of_the_release():
    # PyPI: vllm 0.10.0 uploaded 2025-07-24, 0.10.1 on 2025-08-18 (release_dates.yaml)
    assert image_version(f"{IMAGE}:20250801_0916_RC01") == (
        "0.10.0 (at most the newest release by 2025-08-01, the build's day)"
    )
    assert image_version(f"{IMAGE}:20250529_0917_tpu_experimental_RC00").startswith("0.9.0")
    assert image_version(f"{IMAGE}:gemma4") is None  # a model's build names no day


def test_the_fixture_reads_at_its_build_day(rules, tmp_path):
    [deployment] = _lint(tmp_path, rules).deployments
    assert deployment.deployment.engine_version.startswith("0.10.0 (at most")
    assert "engine_version" not in deployment.budget.assumed


def test_a_flag_removed_after_the_build_is_no_finding(rules, tmp_path):
    # Model Garden's notebooks pass --swap-space=16; vLLM removed it in 0.18, a year after
    # this build. Read as the newest vLLM, it is a warning
    swap = _lint(tmp_path, rules, "--swap-space=16")
    assert [f for f in swap.diagnostics if f.code == "HBM010"] == []
    newest = _lint(tmp_path, rules, "--swap-space=16", tag="latest")
    [warning] = [f for f in newest.diagnostics if f.code == "HBM010"]
    assert "the newest is assumed" in warning.message


def test_a_flag_removed_by_the_build_day_may_still_be_taken(rules, tmp_path):
    # --tokenizer-pool-size went in vLLM 0.10.0, the newest release by 2025-08-01: the image
    # may hold 0.10.0 (refused) or an older one (taken), so a warning that says both
    result = _lint(tmp_path, rules, "--tokenizer-pool-size=4")
    [warning] = [f for f in result.diagnostics if f.code == "HBM010"]
    assert warning.severity is Severity.WARNING
    assert "vLLM 0.10.0 (at most the newest release by 2025-08-01" in warning.message
    assert "the image may hold an older release, and one before 0.10.0 takes it" in (
        warning.message
    )


def test_a_value_refused_from_a_release_by_the_build_day_is_a_warning(rules, tmp_path):
    # --quantization hqq: vLLM 0.15 dropped it ('Unknown quantization method'). A build of
    # 2026-02-10 holds at most 0.15.0 (released 2026-01-29), maybe 0.14.x, which loads it
    flag = "--quantization=hqq"
    [vertex] = [
        f
        for f in _lint(tmp_path, rules, flag, tag="20260210_0916_RC00").diagnostics
        if f.code == "HBM004"
    ]
    assert vertex.severity is Severity.WARNING
    assert "an image holding a release before 0.15 takes it" in vertex.message
    # vLLM's own 0.15.0 image refuses it for certain
    text = VERTEX.read_text().replace(f"{IMAGE}:20250801_0916_RC01", "vllm/vllm-openai:v0.15.0")
    path = tmp_path / "upstream.yaml"
    path.write_text(
        text.replace("- --tensor-parallel-size=2", f"- --tensor-parallel-size=2\n        - {flag}")
    )
    result = lint_file(path, path.name, rules, LintOptions())
    [upstream] = [f for f in result.diagnostics if f.code == "HBM004"]
    assert upstream.severity is Severity.ERROR
