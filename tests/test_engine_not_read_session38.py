"""Engines hbmlint does not read, which passed as "All clear: 0 deployments" (sweep 25, session
38): each now gets the HBM014 info (engine-not-read) that says nothing in it was checked, and
nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"

COVERED = {
    "unread-code/ray-robbypambudi-qwen.py",
    "nebari-llmmodel-qwen35-35b-gptq.yaml",
    "app-template-sglang-rdna4-launch-script.yaml",
}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _lint(path: Path, rules, gpu: str | None = None):
    return lint_file(path, path.name, rules, LintOptions(default_gpu=gpu))


def _the_info(path: Path, rules, gpu: str | None = None):
    """The one finding of ``path``: an HBM014 info, with no deployment read."""
    result = _lint(path, rules, gpu)
    assert result.deployments == []
    [info] = result.diagnostics
    assert (info.code, info.severity) == ("HBM014", Severity.INFO)
    return info


def _line(path: Path, number: int) -> str:
    return path.read_text(encoding="utf-8").splitlines()[number - 1]


# --- a Ray Serve LLM application built in Python --------------------------------------------------
# robbypambudi/ray-vllm-benchmark deployer/qwen.py: `from ray.serve.llm import LLMConfig,
# build_openai_app`, `LLMConfig(model_loading_config=..., engine_kwargs=...)`, `serve.run(app)`.
# Only files importing vLLM or SGLang were looked at for an engine started from Python.
RAY_APP = REAL / "unread-code" / "ray-robbypambudi-qwen.py"


def test_a_ray_serve_llm_app_built_in_python_is_said_not_read(rules):
    info = _the_info(RAY_APP, rules)
    assert "'LLMConfig(...)'" in info.message and "Ray Serve LLM" in info.message
    assert info.span.line == 5
    assert _line(RAY_APP, info.span.line).startswith("llm_config = LLMConfig(")
    assert info.span.column == len("llm_config = ") + 1


def test_an_llm_config_without_the_ray_serve_llm_import_says_nothing(rules, tmp_path):
    # another library's LLMConfig (a dataclass of the file's own) starts no engine
    code = tmp_path / "settings.py"
    code.write_text(
        "from dataclasses import dataclass\n\n\n@dataclass\nclass LLMConfig:\n"
        "    model: str\n\n\nconfig = LLMConfig(model='x')\n",
        encoding="utf-8",
    )
    assert _lint(code, rules).diagnostics == []


def test_a_commented_llm_config_is_not_the_place(rules, tmp_path):
    code = tmp_path / "app.py"
    code.write_text(
        "from ray.serve.llm import LLMConfig, build_openai_app\n"
        "# config = LLMConfig(model_loading_config={})\n"
        "config = LLMConfig(\n    model_loading_config=dict(model_id='m'),\n)\n",
        encoding="utf-8",
    )
    info = _the_info(code, rules)
    assert info.span.line == 3


# --- nebari-dev/llm-serving-pack's LLMModel -------------------------------------------------------
# examples/models/qwen3-5-35b-a3b-gptq-int4.yaml: llm.nebari.dev/v1alpha1 LLMModel. Its operator
# runs `python3 -m vllm.entrypoints.openai.api_server` with serving.vllmArgs on
# resources.gpu.count GPUs; hbmlint does not read the kind.
NEBARI = REAL / "nebari-llmmodel-qwen35-35b-gptq.yaml"


@pytest.mark.parametrize("gpu", [None, "L4"])
def test_a_nebari_llm_model_is_said_not_read(rules, gpu):
    info = _the_info(NEBARI, rules, gpu)
    assert "an LLMModel (nebari) of Qwen/Qwen3.5-35B-A3B-GPTQ-Int4" in info.message
    assert "serving.vllmArgs" in info.message
    assert info.span.line == 12
    assert "Qwen/Qwen3.5-35B-A3B-GPTQ-Int4" in _line(NEBARI, info.span.line)


def test_an_llm_model_of_another_group_says_nothing(rules, tmp_path):
    other = tmp_path / "model.yaml"
    text = NEBARI.read_text(encoding="utf-8").replace("llm.nebari.dev/v1alpha1", "example.com/v1")
    other.write_text(text, encoding="utf-8")
    assert _lint(other, rules).diagnostics == []


# --- an SGLang image running a launch script, its GPU from squat.ai/dri ---------------------------
# Tanguille/cluster kubernetes/apps/ai/sglang/app/helmrelease.yaml: a bjw-s app-template release
# of ghcr.io/tanguille/sglang-rdna4 running `bash /opt/rdna4-inference/scripts/launch.sh ...`,
# its GPU (an AMD R9700) handed over by the generic device plugin (`squat.ai/dri: 1`). The same
# container with amd.com/gpu in a Deployment got the info; this one was silent twice over: the
# generic device was no GPU, and app-template containers were not looked at.
DRI = REAL / "app-template-sglang-rdna4-launch-script.yaml"


def test_an_engine_image_running_a_script_on_a_dri_device_is_said_not_read(rules):
    info = _the_info(DRI, rules)
    assert "/opt/rdna4-inference/scripts/launch.sh" in info.message
    assert "named for SGLang (ghcr.io/tanguille/sglang-rdna4)" in info.message
    # at the `sh -c` line (a folded scalar: its `>-`, the script's name on the line below)
    assert info.span.line == 37 and _line(DRI, 37).strip() == "- >-"
    assert "exec bash /opt/rdna4-inference/scripts/launch.sh" in _line(DRI, 38)


def test_the_same_release_with_amd_gpus_gets_the_same_info(rules, tmp_path):
    amd = tmp_path / "helmrelease.yaml"
    amd.write_text(DRI.read_text(encoding="utf-8").replace("squat.ai/dri", "amd.com/gpu"))
    info = _the_info(amd, rules)
    assert info.span.line == 37


POD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: sglang}
spec:
  template:
    spec:
      containers:
        - name: app
          image: ghcr.io/tanguille/sglang-rdna4:v0.5.14-gfx1201
          command: [/bin/bash, -c, "exec bash /opt/scripts/launch.sh qwen --port 8000"]
          resources:
            limits: {RESOURCE: 1}
"""


@pytest.mark.parametrize("resource", ["squat.ai/dri", "smarter-devices/dri", "amd.com/gpu"])
def test_a_pod_asking_for_a_dri_device_gets_the_info_the_amd_one_gets(rules, tmp_path, resource):
    pod = tmp_path / "deploy.yaml"
    pod.write_text(POD.replace("RESOURCE", resource), encoding="utf-8")
    info = _the_info(pod, rules)
    assert info.span.line == 10 and "/opt/scripts/launch.sh" in info.message


@pytest.mark.parametrize("resource", ["squat.ai/fuse", "squat.ai/serial", "squat.ai/audio"])
def test_another_generic_device_is_no_gpu(rules, tmp_path, resource):
    pod = tmp_path / "deploy.yaml"
    pod.write_text(POD.replace("RESOURCE", resource), encoding="utf-8")
    assert _lint(pod, rules).diagnostics == []
