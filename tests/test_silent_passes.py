"""Files from public repositories on which hbmlint said "All clear ... 0 deployments" where a
person plainly sees an engine deployment it did not check: each now gets the smallest honest
finding that says what was not read (HBM014 for an engine run where hbmlint cannot see its
command line), and nothing read before stops being read. The guards beside each keep an image
named in prose, a comment or a build from saying anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.diagnostics import Severity
from hbmlint.lint import lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
ROCM_VALUES = "homelab-vllm-rocm-chart/values.yaml"  # takanao14/homelab
RECIPE_VALUES = "gpu-recipes-sglang-values-kimi-k3.yaml"  # AI-Hypercomputer/gpu-recipes

COVERED = {ROCM_VALUES, RECIPE_VALUES}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(path: Path, display: str, rules):
    return lint_file(path, display, rules)


def real(name: str, rules):
    return lint(REAL / name, name, rules)


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def written(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def no_errors(result) -> bool:
    return not [d for d in result.diagnostics if d.severity is Severity.ERROR]


# 3 and 4. Chart values naming an engine's image: AMD's vLLM build, SGLang's image


@pytest.mark.parametrize(
    "name, image, at",
    [
        (ROCM_VALUES, "rocm/vllm-dev", "repository: rocm/vllm-dev"),
        (RECIPE_VALUES, "lmsysorg/sglang", "image: lmsysorg/sglang"),
    ],
)
def test_chart_values_with_an_engine_image_are_a_note_to_render_the_chart(rules, name, image, at):
    result = real(name, rules)
    assert result.deployments == []
    [note] = result.diagnostics
    text = (REAL / name).read_text()
    assert (note.code, note.severity) == ("HBM014", Severity.INFO)
    assert note.span.line == line_of(text, at)  # not the comment above naming it
    assert f"'{image}' here is in Helm chart values" in note.message
    assert "nothing in it was checked" in note.message
    assert note.fixes == [
        "Render the chart with these values and lint the result: "
        "`helm template RELEASE CHART -f VALUES | hbmlint -`"
    ]


def test_rocm_vllm_reads_as_vllms_own_rocm_image_does(tmp_path, rules):
    found = {}
    for image in ("vllm/vllm-openai-rocm", "rocm/vllm"):
        text = f"image:\n  repository: {image}\n  tag: latest\nresources: {{}}\n"
        result = lint(written(tmp_path, f"{image}/values.yaml", text), "values.yaml", rules)
        [note] = result.diagnostics
        found[image] = (note.code, note.span.line, "Helm chart values" in note.message)
    assert found["rocm/vllm"] == found["vllm/vllm-openai-rocm"] == ("HBM014", 2, True)


@pytest.mark.parametrize(
    "name, text",
    [
        # the image in a comment, or in prose
        ("values.yaml", "# image: rocm/vllm-dev:latest\nreplicaCount: 1\n"),
        ("values.yaml", 'description: "serves Qwen on lmsysorg/sglang images"\n'),
        # a build that tags and pushes the image runs nothing
        (
            "build-values.yaml",
            "build:\n  tags:\n    - lmsysorg/sglang:dev\n  push: true\n",
        ),
        # an engine image outside chart values, with no command hbmlint could not read
        ("serving.yaml", "spec:\n  image: lmsysorg/sglang:v0.5.6\n"),
    ],
)
def test_an_image_name_that_runs_nothing_says_nothing(tmp_path, rules, name, text):
    result = lint(written(tmp_path, name, text), name, rules)
    assert result.deployments == [] and result.diagnostics == []
