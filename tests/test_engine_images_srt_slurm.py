"""Slurm recipes' containers read as the engine release they hold: enroot's names for an
imported image (lmsysorg+sglang+v0.5.5.post2.sqsh, nvcr.io#nvidia/...) and srt-slurm's container
aliases that name a release (0.5.5.post2, v0.5.7, sglang-v0.5.11-cu130). A flag the engine
removed after that release is no finding; an alias that names none (dev) is the newest, and the
finding says it assumed so."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.engines import docker_reference, image_version
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
ALIAS = REAL / "srt-slurm-sglang-release-alias.yaml"
COVERED = {ALIAS.name}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _removed(path: Path, rules) -> list[str]:
    result = lint_file(path, path.name, rules, LintOptions(default_gpu="H100-80GB"))
    return [f.message for f in result.diagnostics if f.code == "HBM010"]


def _with_container(tmp_path: Path, container: str) -> Path:
    path = tmp_path / ALIAS.name
    text = ALIAS.read_text()
    assert 'container: "0.5.5.post2"' in text
    path.write_text(text.replace('container: "0.5.5.post2"', f'container: "{container}"'))
    return path


@pytest.mark.parametrize(
    ("written", "reference"),
    [
        # enroot import's default file name: the image's path and tag joined by "+"
        ("lmsysorg+sglang+v0.5.5.post2.sqsh", "lmsysorg/sglang:v0.5.5.post2"),
        ("/mnt/containers/lmsysorg+sglang+v0.5.5.sqsh", "lmsysorg/sglang:v0.5.5"),
        ("nvidia+ai-dynamo+sglang-runtime+1.0.0.sqsh", "nvidia/ai-dynamo/sglang-runtime:1.0.0"),
        # an enroot URI: the registry before "#"
        (
            "nvcr.io#nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post1",
            "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post1",
        ),
        ("docker://nvcr.io#nvidia/vllm:26.03-py3", "nvcr.io/nvidia/vllm:26.03-py3"),
        # a file named otherwise, and a plain reference, stay as written
        ("/containers/sglang.sqsh", "/containers/sglang.sqsh"),
        ("lmsysorg/sglang:v0.5.8-cu130", "lmsysorg/sglang:v0.5.8-cu130"),
    ],
)
def test_enroot_names_are_read_as_the_image_they_hold(written, reference):
    assert docker_reference(written) == reference


def test_an_enroot_image_gets_its_release():
    assert image_version("lmsysorg+sglang+v0.5.5.post2.sqsh") == "0.5.5"
    # Dynamo 0.8.1 ships TensorRT-LLM 1.2.0rc6.post1 (vendor_images.yaml)
    assert image_version("nvcr.io#nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post1") == (
        "1.2.0rc6.post1"
    )
    assert image_version("/containers/sglang.sqsh") is None


def test_a_flag_sglang_split_later_is_no_finding_at_the_release_the_alias_names(rules, tmp_path):
    # --cuda-graph-bs became ambiguous in SGLang 0.5.20 (sglang.py REMOVED); the alias
    # "0.5.5.post2" names the release the recipe ran
    assert _removed(ALIAS, rules) == []
    for container in ("v0.5.7", "sglang-v0.5.11-cu130", "lmsysorg+sglang+v0.5.5.post2.sqsh"):
        assert _removed(_with_container(tmp_path, container), rules) == [], container
    # an alias naming no release (srt-slurm's own recipes use "dev" and "dynamo-sglang"):
    # the newest refuses the flag, and the warning says the newest was assumed
    for container in ("dev", "dynamo-sglang", "vllm-v0.11.0"):
        [message] = _removed(_with_container(tmp_path, container), rules)
        assert message.startswith("--cuda-graph-bs was removed from SGLang in 0.5.20")
        assert "the newest is assumed" in message


def test_a_nightly_alias_reads_as_the_newest_release_by_its_day(rules, tmp_path):
    # PyPI: sglang 0.5.11 was the newest on 2026-05-10 (release_dates.yaml), before 0.5.20
    path = _with_container(tmp_path, "sglang-nightly-dev-cu13-20260510")
    assert _removed(path, rules) == []
    result = lint_file(path, path.name, rules, LintOptions(default_gpu="H100-80GB"))
    assert {r.deployment.engine_version for r in result.deployments} == {
        "0.5.11 (the newest release by 2026-05-10, the build's day)"
    }
