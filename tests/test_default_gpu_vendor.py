"""A pod that asks for amd.com/gpu runs on an AMD GPU: a default GPU of NVIDIA's (--gpu H100, a
team's default-gpu) must not be used to budget it. hbmlint budgeted a Llama 3.1 70B pod with one
amd.com/gpu (an MI300X's 192 GB in the team's fleet) on an 80 GB H100 and reported a false HBM101
error."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

POD = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: llama70b-rocm}}
spec:
  template:
    spec:
{selector}      containers:
      - name: vllm
        image: rocm/vllm:latest
        args: ["vllm", "serve", "meta-llama/Llama-3.1-70B-Instruct", "--max-model-len", "32768"]
        resources:
          limits: {{{resource}: "1"}}
"""


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(tmp_path: Path, rules, gpu: str, resource: str = "amd.com/gpu", selector: str = ""):
    path = tmp_path / "pod.yaml"
    path.write_text(POD.format(resource=resource, selector=selector))
    return lint_file(path, "pod.yaml", rules, LintOptions(default_gpu=gpu)).diagnostics


def test_an_nvidia_default_is_not_used_for_an_amd_pod(tmp_path, rules):
    [finding] = lint(tmp_path, rules, "H100")
    assert (finding.code, finding.severity.name) == ("HBM005", "WARNING")
    assert "asks for AMD GPUs (amd.com/gpu)" in finding.message
    assert "--gpu MI300X" in finding.message
    assert (finding.span.line, finding.span.column) == (12, 33)  # at the amd.com/gpu request


def test_an_amd_default_budgets_it(tmp_path, rules):
    assert lint(tmp_path, rules, "MI300X") == []


def test_a_node_label_naming_the_amd_gpu_wins_over_the_default(tmp_path, rules):
    selector = "      nodeSelector: {amd.com/gpu.product-name: AMD_Instinct_MI300X_OAM}\n"
    assert lint(tmp_path, rules, "H100", selector=selector) == []


def test_an_nvidia_pod_still_takes_the_nvidia_default(tmp_path, rules):
    # the same pod on nvidia.com/gpu: the 70B model does not fit one H100, a true error
    codes = [d.code for d in lint(tmp_path, rules, "H100", resource="nvidia.com/gpu")]
    assert codes == ["HBM101"]


MODELSERVICE = """modelArtifacts:
  name: meta-llama/Llama-3.1-70B-Instruct
  uri: hf://meta-llama/Llama-3.1-70B-Instruct
accelerator:
  type: amd
decode:
  create: true
  replicas: 1
  containers:
    - name: vllm
      image: rocm/vllm:latest
      modelCommand: vllmServe
      args: ["--max-model-len", "32768"]
prefill:
  create: false
"""

INFERENCE_SERVICE = """apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: llama70b-rocm}
spec:
  predictor:
    containers:
    - name: kserve-container
      image: rocm/vllm:latest
      command: ["vllm", "serve", "meta-llama/Llama-3.1-70B-Instruct"]
      args: ["--max-model-len", "32768"]
      resources:
        limits: {amd.com/gpu: "1"}
"""


# OME's runtimes (sgl-project/ome config/runtimes/srt/...) ask for nvidia.com/gpu; an AMD cluster's
# runtime asks for amd.com/gpu in the same place (OME's OEP 0003 names both resources)
OME = """apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata: {name: llama-3-1-70b}
spec:
  storage: {storageUri: hf://meta-llama/Llama-3.1-70B-Instruct}
---
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata: {name: srt-llama-70b-rocm}
spec:
  engineConfig:
    runner:
      image: lmsysorg/sglang:v0.5.5-rocm700-mi30x
      command: [python3, -m, sglang.launch_server, --model-path, $(MODEL_PATH),
                --context-length, "32768"]
      resources:
        limits: {amd.com/gpu: 1}
---
apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {name: llama-3-1-70b}
spec:
  model: {name: llama-3-1-70b}
  runtime: {name: srt-llama-70b-rocm}
  engine: {minReplicas: 1}
"""


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (MODELSERVICE, 5),  # llm-d's chart asks for amd.com/gpu where accelerator.type is amd
        (INFERENCE_SERVICE, 12),
        (OME, 17),  # at the runtime's request
    ],
)
def test_orchestrators_amd_pods_do_not_take_an_nvidia_default(tmp_path, rules, text, line):
    path = tmp_path / "manifest.yaml"
    path.write_text(text)
    findings = lint_file(path, "manifest.yaml", rules, LintOptions(default_gpu="H100")).diagnostics
    assert [(d.code, d.severity.name, d.span.line) for d in findings] == [
        ("HBM005", "WARNING", line)
    ]
    amd = lint_file(path, "manifest.yaml", rules, LintOptions(default_gpu="MI300X")).diagnostics
    assert [d for d in amd if d.severity.name == "ERROR"] == []
