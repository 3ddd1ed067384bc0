"""Files from public repositories on which hbmlint said "All clear ... 0 deployments" where a
person plainly sees an engine deployment it did not check: each now gets the smallest honest
finding that says what was not read (HBM012 for a template filled before it is applied,
HBM014 for an engine run where hbmlint cannot see its command line), and nothing read before
stops being read. The guards beside each keep an image named in prose, a comment, a build or
another program on an engine's image from saying anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.diagnostics import Severity
from hbmlint.formats import describe
from hbmlint.lint import lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
ENVSUBST = "k8s-envsubst-template-image.yaml"  # felipemoz/vllm-on-azure
BOOT_SCRIPT = "lws-sglang-boot-script.yaml"  # zhaotyer/lws_usage
ROCM_VALUES = "homelab-vllm-rocm-chart/values.yaml"  # takanao14/homelab
RECIPE_VALUES = "gpu-recipes-sglang-values-kimi-k3.yaml"  # AI-Hypercomputer/gpu-recipes

COVERED = {ENVSUBST, BOOT_SCRIPT, ROCM_VALUES, RECIPE_VALUES}


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


# 1. A Deployment that envsubst fills before kubectl applies it: the image is ${VLLM_IMAGE}


def test_a_template_whose_image_is_a_placeholder_is_render_first_at_the_image(rules):
    result = real(ENVSUBST, rules)
    assert result.deployments == []
    [finding] = result.diagnostics
    text = (REAL / ENVSUBST).read_text()
    assert finding.code == "HBM012"
    assert finding.span.line == line_of(text, "image: ${VLLM_IMAGE}")
    assert "${VLLM_IMAGE}" in finding.message and "nothing in it was checked" in finding.message
    assert any("envsubst < FILE | hbmlint -" in fix for fix in finding.fixes)
    assert no_errors(result)


def test_the_formats_command_says_the_same(rules):
    text = (REAL / ENVSUBST).read_text()
    out = describe(text, REAL / ENVSUBST, ENVSUBST)
    assert f"line {line_of(text, 'image: ${VLLM_IMAGE}')}: this is a template" in out


def test_placeholders_in_a_few_flags_of_a_readable_container_stay_infos_per_flag(rules):
    # the container names its engine (vllm/vllm-openai, python -m vllm.entrypoints...): read,
    # with an HBM011 at each flag a placeholder holds, and no "render first"
    result = real("k8s-args-envsubst-defaults.yaml", rules)
    assert [d.deployment.model.name for d in result.deployments] == ["Qwen/Qwen2.5-7B-Instruct"]
    codes = sorted(d.code for d in result.diagnostics if d.code in ("HBM011", "HBM012"))
    assert codes == ["HBM011", "HBM011"]


def test_a_placeholder_image_on_a_readable_engine_command_is_read(tmp_path, rules):
    path = written(
        tmp_path,
        "deploy.yaml",
        _deployment(
            "${IMAGE}",
            '["vllm", "serve", "Qwen/Qwen3-8B", "--max-model-len", "8192"]',
        ),
    )
    result = lint(path, "deploy.yaml", rules)
    assert [d.deployment.model.name for d in result.deployments] == ["Qwen/Qwen3-8B"]
    assert not [d for d in result.diagnostics if d.code in ("HBM012", "HBM014")]


@pytest.mark.parametrize(
    "image, command",
    [
        # an app of another kind, templated the same way: no engine flag, no engine's name
        ("${APP_IMAGE}", '["--port", "8080", "--model", "${MODEL}"]'),
        # a program of its own on a templated image: not the image's to decide
        ("${VLLM_IMAGE}", '["python", "/app/main.py", "--max-model-len", "8192"]'),
    ],
)
def test_a_placeholder_image_that_is_no_engine_says_nothing(tmp_path, rules, image, command):
    key = "args" if command.startswith('["--') else "command"
    path = written(tmp_path, "app.yaml", _deployment(image, command, key=key))
    result = lint(path, "app.yaml", rules)
    assert result.deployments == [] and result.diagnostics == []


# 2. An engine's image whose container runs a script the file does not hold


def test_an_engine_image_running_a_mounted_script_is_not_read_and_says_so(rules):
    result = real(BOOT_SCRIPT, rules)
    assert result.deployments == []
    [finding] = result.diagnostics
    text = (REAL / BOOT_SCRIPT).read_text()
    assert (finding.code, finding.severity) == ("HBM014", Severity.INFO)
    assert finding.span.line == line_of(text, "- /bin/boot.sh")  # the leader's
    assert "/bin/boot.sh" in finding.message and "SGLang" in finding.message
    assert "nothing in it was checked" in finding.message


def test_sglangs_own_image_running_a_script_is_the_same(tmp_path, rules):
    # the sweep's repro: lmsysorg/sglang with `command: ["bash", "-c", "/bin/boot.sh"]`
    text = _deployment("lmsysorg/sglang:v0.5.6", '["bash", "-c", "/bin/boot.sh"]')
    result = lint(written(tmp_path, "sglang.yaml", text), "sglang.yaml", rules)
    [finding] = result.diagnostics
    assert finding.code == "HBM014" and finding.span.line == line_of(text, "command:")
    assert "SGLang's image (lmsysorg/sglang)" in finding.message
    assert "/bin/boot.sh" in finding.message


@pytest.mark.parametrize(
    "command, gpu",
    [
        # SGLang's router runs on SGLang's image: no engine, nothing unread
        ('["python3", "-m", "sglang_router.launch_router", "--port", "30000"]', True),
        # a script only sourced before another program
        ('["bash", "-c", "source /env.sh && python3 -m sglang_router.launch_router"]', True),
        ('["sleep", "infinity"]', True),
        # a script run with no GPU asked for (a download, a setup job)
        ('["bash", "/scripts/download.sh"]', False),
    ],
)
def test_other_programs_on_an_engine_image_say_nothing(tmp_path, rules, command, gpu):
    text = _deployment("lmsysorg/sglang:v0.5.6", command, gpu=gpu)
    result = lint(written(tmp_path, "other.yaml", text), "other.yaml", rules)
    assert result.deployments == [] and result.diagnostics == []


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


def _deployment(image: str, command: str, key: str = "command", gpu: bool = True) -> str:
    resources = '          resources:\n            limits:\n              nvidia.com/gpu: "1"\n'
    return (
        "apiVersion: apps/v1\n"
        "kind: Deployment\n"
        "metadata:\n"
        "  name: engine\n"
        "spec:\n"
        "  template:\n"
        "    spec:\n"
        "      containers:\n"
        "        - name: engine\n"
        f"          image: {image}\n"
        f"          {key}: {command}\n" + (resources if gpu else "")
    )
