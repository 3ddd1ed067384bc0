"""Patterns from public repositories hbmlint had never seen (sweep 9): each fixture under
tests/fixtures/real/ names its source in its first lines; each test says what a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(path: Path, rules, gpu: str | None = None):
    return lint_file(path, path.name, rules, LintOptions(default_gpu=gpu))


def line_of(path: Path, needle: str) -> int:
    lines = path.read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if needle in line)


COVERED = {
    "kserve-huggingface-format-own-runtime.yaml",
    "kserve-pytorch-format-vllm-runtime.yaml",
    "kserve-llmisvc-main-args-model-mount.yaml",
}


@pytest.mark.parametrize("gpu", [None, "L4"])
def test_a_huggingface_format_service_on_its_own_runtime_runs_that_runtime(rules, gpu):
    # modelFormat: huggingface with `runtime: team-vllm`, a ServingRuntime of the same file
    # whose vLLM args name the model: KServe runs that runtime, so the model is the runtime's
    # --model (no false "the InferenceService names no model" error), on its GPU
    path = REAL / "kserve-huggingface-format-own-runtime.yaml"
    result = lint(path, rules, gpu)
    [read] = result.deployments
    assert read.deployment.name == "llama3-chat"
    assert read.deployment.model.name == "meta-llama/Meta-Llama-3-8B-Instruct"
    assert read.deployment.gpu.count == 1
    assert [f for f in result.diagnostics if f.severity.name == "ERROR"] == []
    if gpu:
        assert read.budget is not None
        assert result.diagnostics == []


# not under fixtures/real (whose files raise no start-up error): the storage pattern of
# robertgshaw2-neuralmagic/vllm-k8s vllm-kserve-gcs/nm-vllm.yml, whose runtime runs the
# vllm/vllm-openai image with no args at all, so the model KServe downloads to /mnt/models
# never reaches vLLM. Written for hbmlint's tests (not a copy).
STORAGE_NOT_PASSED = """\
apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata:
  name: bare-vllm
spec:
  supportedModelFormats:
    - name: huggingface
      version: "1"
      autoSelect: true
  containers:
    - name: kserve-container
      image: vllm/vllm-openai
      resources:
        limits:
          nvidia.com/gpu: 1
---
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: tinyllama
spec:
  predictor:
    model:
      runtime: bare-vllm
      modelFormat:
        name: huggingface
      storage:
        key: gcs
        path: models/TinyLlama/TinyLlama-1.1B-Chat-v1.0
"""


def test_a_runtime_that_never_passes_the_downloaded_model_says_so(tmp_path, rules):
    # the service's storage is downloaded to /mnt/models but the runtime's command names no
    # model: the error says that, at the service's runtime: line, instead of asking for the
    # storageUri the service already has (storage.path)
    path = tmp_path / "nm-vllm.yml"
    path.write_text(STORAGE_NOT_PASSED)
    result = lint(path, rules, "H100")
    assert result.deployments == []
    [error] = result.diagnostics
    assert (error.code, error.severity.name) == ("HBM003", "ERROR")
    assert "ServingRuntime 'bare-vllm' passes no model" in error.message
    assert "--model /mnt/models" in error.message
    assert error.span.line == line_of(path, "runtime: bare-vllm")


def test_a_service_on_kserves_own_huggingface_server_is_still_read_from_its_args(tmp_path, rules):
    # a runtime named but defined nowhere in the run (KServe's kserve-huggingfaceserver): the
    # Hugging Face server's own reading, storageUri hf:// naming the model, as before
    path = tmp_path / "isvc.yaml"
    path.write_text(
        "apiVersion: serving.kserve.io/v1beta1\n"
        "kind: InferenceService\n"
        "metadata: {name: qwen}\n"
        "spec:\n"
        "  predictor:\n"
        "    model:\n"
        "      runtime: kserve-huggingfaceserver\n"
        "      modelFormat: {name: huggingface}\n"
        "      storageUri: hf://Qwen/Qwen2.5-7B-Instruct\n"
        "      resources: {limits: {nvidia.com/gpu: 1}}\n"
    )
    [read] = lint(path, rules, "L4").deployments
    assert read.deployment.model.name == "Qwen/Qwen2.5-7B-Instruct"


def test_a_pytorch_format_service_on_a_vllm_runtime_is_read_as_vllm(rules):
    # modelFormat: pytorch with `runtime: mistral-7b`, a vLLM ServingRuntime of the same file:
    # read (it passed in silence, and the runtime got a "no InferenceService uses it" info),
    # with the runtime's --max-model-len on the service's A10G; the model is the /mnt/models
    # mount of an S3 data connection, a warning that says how to name it
    name = "kserve-pytorch-format-vllm-runtime.yaml"
    path = REAL / name
    result = lint(path, rules)
    [read] = result.deployments
    assert read.deployment.engine == "vllm"
    assert read.deployment.serving.max_model_len == 6144
    assert read.deployment.gpu.count == 1
    assert [label.value for label in read.deployment.gpu.labels] == ["NVIDIA-A10G"]
    [warning] = result.diagnostics
    assert (warning.code, warning.severity.name) == ("HBM006", "WARNING")
    assert "hbmlint.io/model" in warning.message
    assert warning.span.line == line_of(path, "- --model")


# not under fixtures/real: the standalone TGIS runtime of openshift-psap/topsail
# (projects/kserve/toolbox/kserve_deploy_model/files/standalone-tgis/base/), IBM's TGI fork,
# which takes the model as --model-name. Written for hbmlint's tests (not a copy).
TGIS = """\
apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata:
  name: tgis-runtime
spec:
  containers:
  - name: kserve-container
    image: quay.io/opendatahub/text-generation-inference:fast
    command: ["text-generation-launcher"]
    args:
    - --model-name=/mnt/models/
    - --port=3000
  supportedModelFormats:
  - autoSelect: true
    name: pytorch
---
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: isvc
spec:
  predictor:
    model:
      modelFormat:
        name: pytorch
      runtime: tgis-runtime
      storageUri: s3://models/flan-t5
      resources:
        limits:
          nvidia.com/gpu: "1"
"""


def test_a_runtime_passing_the_mount_by_a_flag_hbmlint_does_not_read_is_an_info(tmp_path, rules):
    # TGIS's --model-name=/mnt/models/: the model is passed, by a flag hbmlint's TGI reader
    # does not know; an info (at the storageUri KServe puts there), never a "names no model"
    # error
    path = tmp_path / "tgis.yaml"
    path.write_text(TGIS)
    result = lint(path, rules, "H100")
    assert result.deployments == []
    [info] = result.diagnostics
    assert (info.code, info.severity.name) == ("HBM011", "INFO")
    assert "--model-name=s3://models/flan-t5" in info.message
    assert info.span.line == line_of(path, "storageUri: s3://models/flan-t5")


@pytest.mark.parametrize("gpu", [None, "L40S"])
def test_an_llmisvc_main_container_naming_the_mount_serves_spec_model(rules, gpu):
    # --model=/mnt/models in the main container's own args is where KServe puts spec.model:
    # the model is the hf:// URI, at its line (was an HBM006 "'/mnt/models' is a local path"
    # warning and no budget); the container's --max-model-len still applies
    name = "kserve-llmisvc-main-args-model-mount.yaml"
    path = REAL / name
    result = lint(path, rules, gpu)
    [read] = result.deployments
    assert read.deployment.model.name == "Qwen/Qwen3-8B"
    assert read.deployment.serving.max_model_len == 32768
    assert [f.code for f in result.diagnostics if f.code == "HBM006"] == []
    if gpu:
        assert read.budget is not None
        assert result.diagnostics == []
