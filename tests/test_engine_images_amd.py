"""AMD's ROCm images name their engine release inside the tag, beside the ROCm and PyTorch
releases, or only the day of a development build: hbmlint reads the release the image holds,
so a deployment gets that release's defaults, not the newest's."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.diagnostics import Severity
from hbmlint.engines import image_version
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
DATED = REAL / "shell-sglang-rocm-dated-dev-image.sh"
COVERED = {DATED.name}


@pytest.mark.parametrize(
    ("image", "release"),
    [
        # tags as swept manifests write them (sweep12 moreh-dev/mi355_benchmark launch scripts,
        # sweep9 davetha/mi210-llm-stack, SemiAnalysisAI/InferenceX amd-1k1k-master.yaml)
        ("rocm/vllm:rocm7.0.0_vllm_0.11.1_20251103", "0.11.1"),
        ("rocm/vllm:rocm7.14.0_cdna_ubuntu24.04_py3.14_pytorch_2.11.0_vllm_0.23.0", "0.23.0"),
        ("rocm/sgl-dev:sglang-0.5.9-rocm720-mi35x-mori-0227-2", "0.5.9"),
        ("rocm/sgl-dev:v0.5.5.post3-rocm700-mi35x-20251119", "0.5.5"),
        ("docker.io/rocm/vllm-dev:vllm-0.23.1-rocm723-mi35x-mori-0625", "0.23.1"),
        # the release run into its engine's name, before the build's day (which is later)
        ("rocm/vllm:rocm6.3.1_instinct_vllm0.8.3_20250410", "0.8.3"),
        ("rocm/vllm:rocm6.3.1_instinct_vllm0.8.2_20250410", "0.8.2"),
    ],
)
def test_the_engine_release_inside_a_rocm_tag_is_read(image, release):
    assert image_version(image) == release


def test_a_dated_development_build_reads_as_the_newest_release_by_its_day():
    # PyPI: sglang 0.4.8 uploaded 2025-06-24, 0.4.9 on 2025-07-06; vllm 0.9.1 on 2025-06-10,
    # 0.9.2 on 2025-07-08 (catalog/release_dates.yaml)
    assert image_version("rocm/sgl-dev:20250701").startswith("0.4.8 ")
    assert "2025-07-01" in image_version("rocm/sgl-dev:20250701")
    assert image_version("rocm/vllm-dev:nightly_main_20250706").startswith("0.9.1 ")
    # what names no release stays unread: the newest is assumed, as for an untagged image
    assert image_version("rocm/vllm:latest") is None
    assert image_version("rocm/vllm-dev:base") is None
    assert image_version("rocm/sgl-dev:20230101") is None  # before the first release listed


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _lint(path: Path, rules, gpu: str):
    return lint_file(path, path.name, rules, LintOptions(default_gpu=gpu, keep_budgets=True))


def test_a_docker_run_image_in_a_script_sets_the_release(rules):
    # SGLang's default memory fraction before 0.5.3 reserved 32 GiB on a 192 GB card; from 0.5.3
    # the reserve grows with --chunked-prefill-size (131,072 here: about 192 GiB, the whole
    # card). The build of 2025-07-01 is the older formula: it starts on the MI300X it targets.
    result = _lint(DATED, rules, "MI300X")
    assert [f for f in result.diagnostics if f.severity is Severity.ERROR] == []
    [deployment] = result.deployments
    budget = deployment.budget
    assert budget.settings.engine_version.startswith("0.4.8")
    assert "the newest release by 2025-07-01" in budget.assumed["gpu_memory_utilization"]


def test_a_fraction_below_zero_reads_as_what_it_is(tmp_path, rules):
    # the same script on a current SGLang image: the engine keeps nothing for the weights
    newer = tmp_path / "start.sh"
    newer.write_text(DATED.read_text().replace("rocm/sgl-dev:20250701", "rocm/sgl-dev:v0.5.23"))
    result = _lint(newer, rules, "MI300X")
    [error] = [f for f in result.diagnostics if f.severity is Severity.ERROR]
    assert error.code == "HBM101"
    assert "keeps no memory for weights or KV cache" in error.message
    assert "may use -" not in error.message and "fraction here is -0.0" in error.message
    assert any("--chunked-prefill-size" in fix.message for fix in error.fixes)


def test_a_script_runs_the_release_its_docker_image_names(tmp_path, rules):
    # the same holds for any engine image a launch script starts: vLLM 0.8.5 still takes
    # --disable-log-requests (removed in 0.17), so there is nothing to migrate
    script = tmp_path / "run.sh"
    script.write_text(
        "#!/bin/bash\n"
        "docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.8.5 \\\n"
        "  --model meta-llama/Llama-3.1-8B-Instruct --disable-log-requests --max-model-len 8192\n"
    )
    result = _lint(script, rules, "H100")
    assert [f.code for f in result.diagnostics if f.code == "HBM010"] == []
    [deployment] = result.deployments
    assert deployment.budget.settings.engine_version == "0.8.5"
    # on a release that refuses the flag (0.17-0.32) the warning says so
    refusing = tmp_path / "refusing.sh"
    refusing.write_text(script.read_text().replace(":v0.8.5", ":v0.20.0"))
    [removed] = [f for f in _lint(refusing, rules, "H100").diagnostics if f.code == "HBM010"]
    assert "--disable-log-requests" in removed.message and "vLLM 0.20.0 refuses" in removed.message


def test_a_dated_build_is_not_said_to_refuse_a_value_a_later_release_added(tmp_path, rules):
    # SGLang 0.4.10 (released 2025-07-31) refuses --kv-cache-dtype bfloat16, which a later
    # release takes (engines/sglang.py SGLANG_KV_DTYPE_ADDED). A build of 2025-08-02 reads as
    # 0.4.10 but may already hold the change: a warning, not an error; the tag v0.4.10 refuses it
    script = tmp_path / "start.sh"
    script.write_text(
        DATED.read_text()
        .replace("rocm/sgl-dev:20250701", "rocm/sgl-dev:20250802")
        .replace("--tp 8", "--tp 8 --kv-cache-dtype bfloat16")
    )
    [dated] = [f for f in _lint(script, rules, "MI300X").diagnostics if f.code == "HBM004"]
    assert dated.severity is Severity.WARNING and "may be newer" in dated.message
    tagged = tmp_path / "tagged.sh"
    tagged.write_text(script.read_text().replace("rocm/sgl-dev:20250802", "rocm/sgl-dev:v0.4.10"))
    [refused] = [f for f in _lint(tagged, rules, "MI300X").diagnostics if f.code == "HBM004"]
    assert refused.severity is Severity.ERROR
