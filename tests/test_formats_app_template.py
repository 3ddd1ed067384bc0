"""bjw-s's app-template chart (formats/app_template.py): the values home-lab GitOps repositories
deploy vLLM with, inline in a Flux HelmRelease or an Argo CD Application, or a values file.
The fixtures under tests/fixtures/real/ name the public repositories whose pattern they
reproduce."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_lint import codes, errors, line_of, lint

from hbmlint.formats import detect_format
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules
from hbmlint.yamlsrc import load_documents

REAL = Path(__file__).parent / "fixtures" / "real"
ROCM = REAL / "app-template-helmrelease-rocm.yaml"
NVIDIA = REAL / "app-template-helmrelease-nvidia.yaml"
INTEL = REAL / "app-template-values-intel.yaml"

COVERED = {ROCM.name, NVIDIA.name, INTEL.name}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _deployments(path: Path, rules, gpu: str | None = None):
    result = lint_file(path, path.name, rules, LintOptions(default_gpu=gpu, keep_budgets=True))
    return result, [item.deployment for item in result.deployments]


def test_a_helmrelease_with_args_on_the_image_entrypoint_is_read(rules):
    # was HBM014 "finds no engine command line it can read in this file"
    result, [deployment] = _deployments(ROCM, rules)
    assert deployment.name == "vllm"
    assert deployment.engine == "vllm"
    assert deployment.engine_version == "0.6.3"  # the release (post builds share its defaults)
    assert deployment.model.name == "Qwen/Qwen2.5-1.5B-Instruct"
    assert deployment.gpu.count == 1
    assert codes(result, "HBM014") == []
    # an AMD request with no GPU type: asked for, at the request
    [unknown] = codes(result, "HBM005")
    assert "amd.com/gpu" in unknown.message
    assert unknown.span.line == line_of(ROCM, 'amd.com/gpu: "1"')


def test_with_the_gpu_named_a_small_model_passes(rules):
    result = lint(ROCM, rules, gpu="MI300X")
    assert result.diagnostics == []


def test_default_pod_and_container_options_apply_and_a_disabled_controller_is_not_linted(rules):
    result, [deployment] = _deployments(NVIDIA, rules)
    # the GPU from defaultPodOptions.nodeSelector, the count and the image's release from the
    # controller's defaultContainerOptions
    assert deployment.name == "llm"
    assert [(label.key, label.value) for label in deployment.gpu.labels] == [
        ("nvidia.com/gpu.product", "NVIDIA-GeForce-RTX-4090")
    ]
    assert deployment.gpu.count == 1
    assert deployment.engine_version == "0.11.0"
    assert deployment.model.name == "meta-llama/Llama-3.1-8B-Instruct"
    # 128k tokens of Llama 3.1 8B's KV cache do not fit a 24 GB card next to its weights: the
    # error sits at the flag; the 70B of the disabled controller is never rendered, so no HBM101
    [error] = errors(result)
    assert error.startswith("HBM102")
    [finding] = codes(result, "HBM102")
    assert finding.span.line == line_of(NVIDIA, "--max-model-len=131072")
    # HF_TOKEN from a Secret elsewhere feeds no flag: nothing to say about it
    assert {f.code for f in result.diagnostics} == {"HBM102"}


def test_an_intel_gpu_request_is_said_to_be_unbudgeted_at_the_request(rules):
    result = lint(INTEL, rules)
    assert result.deployments == []
    [note] = result.diagnostics
    assert note.code == "HBM014"
    assert "gpu.intel.com/xe" in note.message and "Intel" in note.message
    assert note.span.line == line_of(INTEL, "gpu.intel.com/xe: 1")


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "values.yaml"
    path.write_text(text)
    return path


ARGO = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: qwen
spec:
  source:
    chart: app-template
    repoURL: https://bjw-s-labs.github.io/helm-charts
    targetRevision: 4.1.1
    helm:
      valuesObject:
        defaultPodOptions:
          nodeSelector:
            nvidia.com/gpu.product: NVIDIA-L4
        controllers:
          main:
            pod:
              nodeSelector:
                nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
            containers:
              main:
                image: {repository: vllm/vllm-openai, tag: v0.10.1}
                args: --model=Qwen/Qwen2.5-7B-Instruct
                env:
                  - {name: VLLM_LOGGING_LEVEL, value: DEBUG}
                resources: {limits: {nvidia.com/gpu: 1}}
"""


def test_an_argo_application_and_a_pod_option_that_overrides_the_default(rules, tmp_path):
    path = _write(tmp_path, ARGO)
    result, [deployment] = _deployments(path, rules)
    # the library's default strategy overwrites: the controller's own nodeSelector, not both
    assert [label.value for label in deployment.gpu.labels] == ["NVIDIA-H100-80GB-HBM3"]
    # `args` as one string is the one argument the library renders from it
    assert deployment.model.name == "Qwen/Qwen2.5-7B-Instruct"
    assert deployment.name == "qwen"
    assert result.diagnostics == []
    [item] = result.deployments
    assert item.budget.resolved.gpu.name.startswith("H100")


def test_two_engine_controllers_are_two_deployments(rules, tmp_path):
    text = ARGO.replace("metadata:\n  name: qwen\n", "metadata:\n  name: qwen\n") + (
        "          embed:\n"
        "            containers:\n"
        "              main:\n"
        "                image: {repository: vllm/vllm-openai, tag: v0.10.1}\n"
        "                args: [--model, BAAI/bge-m3, --gpu-memory-utilization, '0.2']\n"
        "                resources: {limits: {nvidia.com/gpu: 1}}\n"
    )
    _, deployments = _deployments(_write(tmp_path, text), rules)
    assert sorted(d.name for d in deployments) == ["qwen/embed", "qwen/main"]


def test_values_whose_controllers_run_no_engine_are_not_this_format(tmp_path):
    text = (
        "controllers:\n  web:\n    containers:\n      app:\n"
        "        image: {repository: nginx, tag: '1.27'}\n"
    )
    [document], error = load_documents(text)
    assert error is None
    assert detect_format(document.data) is None
