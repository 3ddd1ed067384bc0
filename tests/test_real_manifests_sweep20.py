"""Patterns from public repositories hbmlint had never seen (sweep 20, 2025-2026 scripts and
manifests): each test names its source and says what a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_lint import codes

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
OPTION_LOOP = REAL / "shell-option-loop-defaults.sh"
TRTLLM_ENTRYPOINT = REAL / "shell-docker-entrypoint-trtllm-serve.sh"

COVERED = {OPTION_LOOP.name, TRTLLM_ENTRYPOINT.name}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _lint(path: Path, rules, gpu: str | None = None):
    return lint_file(path, path.name, rules, LintOptions(default_gpu=gpu, keep_budgets=True))


# SGLang's AMD images are built per GPU family: `-rocm700-mi35x` for the MI350 / MI355 (SGLang's
# DeepSeek-V3.2 docs: "# MI350/MI355 docker pull lmsysorg/sglang:v0.5.8-rocm700-mi35x"), both
# 288 GB; `-mi30x` for the MI300X (192 GB) and the MI325X (256 GB)
MI35X_POD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: dsr1}
spec:
  template:
    spec:
      containers:
      - name: sglang
        image: lmsysorg/sglang:v0.5.8-rocm700-mi35x
        command: [python3, -m, sglang.launch_server, --model-path, deepseek-ai/DeepSeek-R1,
                  --tp, "8"]
        resources: {limits: {amd.com/gpu: 8}}
"""


def test_an_amd_image_built_for_the_mi35x_names_the_gpu(rules, tmp_path):
    path = tmp_path / "dsr1.yaml"
    path.write_text(MI35X_POD)
    result = _lint(path, rules)
    assert codes(result, "HBM005") == []
    [item] = result.deployments
    assert item.budget.resolved.gpu.name == "MI355X-288GB"
    assert item.deployment.locations["gpu.type"].line == 9  # the image's line
    # an MI30x build runs on cards of two sizes: no GPU is taken from it
    path.write_text(MI35X_POD.replace("mi35x", "mi30x"))
    result = _lint(path, rules)
    [unknown] = codes(result, "HBM005")
    assert "amd.com/gpu" in unknown.message


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (
            "serve.sh",
            "#!/bin/bash\n"
            "docker run -d --device /dev/kfd --device /dev/dri --ipc=host \\\n"
            "  lmsysorg/sglang:v0.5.9-rocm700-mi35x \\\n"
            "  python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp 8\n",
        ),
        (
            "compose.yaml",
            "services:\n"
            "  sglang:\n"
            "    image: rocm/sgl-dev:v0.5.3.post1-rocm700-mi35x-20251011\n"
            "    devices: [/dev/kfd, /dev/dri]\n"
            "    command: >-\n"
            "      python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp 8\n",
        ),
    ],
)
def test_a_script_or_compose_service_on_an_mi35x_image_is_budgeted_on_it(
    rules, tmp_path, name, text
):
    path = tmp_path / name
    path.write_text(text)
    # --gpu names an NVIDIA card: the image's own GPU wins over the default
    result = _lint(path, rules, gpu="H100")
    [item] = result.deployments
    assert item.budget.resolved.gpu.name == "MI355X-288GB"
    assert codes(result, "HBM005") == []


def test_an_option_loop_script_is_read_with_its_defaults(rules):
    # mlcommons/inference gpt-oss/sglang/run_server.sh: `model_path=openai/gpt-oss-120b`, then
    # `--model_path) model_path=$2` in a `while [[ $# -gt 0 ]]` loop; the drafter only `if [ -n
    # "$eagle_path" ]` (empty by default). Was an HBM011 info: "set to 2 different values"
    result = _lint(OPTION_LOOP, rules, gpu="H100")
    [item] = result.deployments
    assert item.deployment.model.name == "openai/gpt-oss-120b"
    assert item.deployment.parallel.data == 1
    assert item.deployment.speculative.method == "none"
    assert codes(result, "HBM011") == []


def test_the_scripts_default_model_behind_an_entrypoint_override(rules):
    # waynehacking8/trtllm-triton-serving: MODEL="${1:-/models/Qwen2.5-7B-Instruct}", TP="${2:-2}"
    # and `docker run --gpus '"device=2,3"' --entrypoint trtllm-serve IMAGE serve "$MODEL"`
    result = _lint(TRTLLM_ENTRYPOINT, rules, gpu="H100")
    [item] = result.deployments
    deployment = item.deployment
    assert deployment.model.name == "/models/Qwen2.5-7B-Instruct"
    assert (deployment.parallel.tensor, deployment.gpu.count) == (2, 2)
    assert deployment.engine_version == "0.20.0"  # the NGC Triton 25.06 image's TensorRT-LLM
    assert [f for f in result.diagnostics if f.severity.name != "INFO"] == []


def test_a_sed_placeholder_for_a_block_is_a_template_not_a_syntax_error(rules, tmp_path):
    # MML-coder/spec-decode-perf-benchmark-recipe manifests/kserve-template.yaml: `__VLLM_ARGS__`
    # on a line of its own, replaced with sed before `oc apply` (was an HBM002 syntax error)
    path = tmp_path / "kserve-template.yaml"
    path.write_text(
        "apiVersion: serving.kserve.io/v1alpha1\n"
        "kind: ServingRuntime\n"
        "metadata:\n"
        "  name: __NAME__\n"
        "spec:\n"
        "  containers:\n"
        "  - command: [python3, -m, vllm.entrypoints.openai.api_server]\n"
        "    args:\n"
        "    - --model=__MODEL_ID__\n"
        "__VLLM_ARGS__\n"
        '    image: "__IMAGE__"\n'
    )
    result = _lint(path, rules)
    [template] = result.diagnostics
    assert (template.code, template.severity.name) == ("HBM012", "WARNING")
    assert (template.span.line, template.span.column) == (10, 1)
    assert "__VLLM_ARGS__" in template.message
    assert "helm" not in template.fixes[0].message


SRT_RECIPE = """\
name: b200-fp8-mtp-low-latency
model:
  path: dsr1-fp8
  container: dynamo-sglang
  precision: fp8
resources:
  gpu_type: b200
  prefill_nodes: 1
  prefill_workers: 1
  decode_nodes: 1
  decode_workers: 1
  gpus_per_node: 8
backend:
  sglang_config:
    prefill:
      served-model-name: deepseek-ai/DeepSeek-R1
      tensor-parallel-size: 8
    decode:
      served-model-name: deepseek-ai/DeepSeek-R1
      tensor-parallel-size: 8
      context-length: 9600
"""


def test_an_srt_slurm_model_alias_is_budgeted_as_its_served_name_as_a_guess(rules, tmp_path):
    # richardhuo-nv/srt-slurm-trtllm recipes/b200-fp8/*.yaml: model.path `dsr1-fp8` (an alias
    # of the cluster's srtslurm.yaml) beside served-model-name deepseek-ai/DeepSeek-R1 (were
    # HBM006 warnings: the deployment unchecked)
    path = tmp_path / "recipe.yaml"
    path.write_text(SRT_RECIPE)
    result = _lint(path, rules)
    assert result.diagnostics == []
    for item in result.deployments:
        assert item.budget.resolved.target.name == "deepseek-ai/DeepSeek-R1"
        assert "a guess" in item.budget.assumed["model"]
    # on a card too small, the refusal rests on the guess: a warning, not an error
    path.write_text(SRT_RECIPE.replace("gpu_type: b200", "gpu_type: l40s"))
    result = _lint(path, rules)
    refused = [f for f in result.diagnostics if f.code == "HBM101"]
    assert refused and all(f.severity.name == "WARNING" for f in refused)


FLUX_VALUES = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: vllm
spec:
  chartRef: {kind: OCIRepository, name: app-template}
  values:
    controllers:
      vllm:
        containers:
          app:
            image: {repository: vllm/vllm-openai, tag: v0.11.0}
            args:
              - --model=meta-llama/Llama-3.1-8B-Instruct
              - --max-model-len=MAX_LEN
            resources: {limits: {nvidia.com/gpu: 1}}
    defaultPodOptions:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}
"""


@pytest.mark.parametrize(
    "placeholder",
    [
        "${VLLM_MAX_LEN:=8192}",  # Flux's postBuild substitution
        "${VLLM_MAX_LEN:-8192}",  # envsubst
        "{{ .Values.maxLen | default 8192 }}",  # Helm
        '{{ default "8192" .Values.maxLen }}',
    ],
)
def test_a_placeholders_written_default_is_the_value_assumed(rules, tmp_path, placeholder):
    # home-lab GitOps values (sweep 20): `--max-model-len=${VLLM_MAX_LEN:=8192}` was budgeted at
    # the model's whole 131,072-token context: a false HBM102 on an L4, where 8,192 fits
    path = tmp_path / "helmrelease.yaml"
    path.write_text(FLUX_VALUES.replace("MAX_LEN", placeholder))
    result = _lint(path, rules)
    [item] = result.deployments
    assert item.deployment.serving.max_model_len == 8192
    [note] = result.diagnostics
    assert note.code == "HBM011" and "its default 8192 is assumed" in note.message
    # a default too long for the card: the refusal rests on it, a warning that says so
    path.write_text(FLUX_VALUES.replace("MAX_LEN", placeholder.replace("8192", "131072")))
    [refused] = codes(_lint(path, rules), "HBM102")
    assert refused.severity.name == "WARNING"
    assert "the template's default for max_model_len" in refused.message


def test_an_inference_service_on_a_runtime_not_linted_is_an_info_not_an_error(rules, tmp_path):
    # agud97/k8s-vllm gitops/apps/llm-serving/inference-service-*.yaml: `modelFormat:
    # huggingface`, `runtime: vllm-openai-runtime` (a ClusterServingRuntime in another file that
    # runs --model=/mnt/models from a PVC), no storageUri: was an HBM003 "names no model" error
    path = tmp_path / "isvc.yaml"
    path.write_text(
        "apiVersion: serving.kserve.io/v1beta1\n"
        "kind: InferenceService\n"
        "metadata: {name: qwen3-coder}\n"
        "spec:\n"
        "  predictor:\n"
        "    model:\n"
        "      modelFormat: {name: huggingface}\n"
        "      runtime: vllm-openai-runtime\n"
        "      resources: {limits: {nvidia.com/gpu: '2'}}\n"
        "      args: [--tensor-parallel-size=2, --max-model-len=32768]\n"
    )
    [said] = _lint(path, rules).diagnostics
    assert (said.code, said.severity.name, said.span.line) == ("HBM014", "INFO", 8)
    # KServe's own Hugging Face server needs the model named: still an error
    path.write_text(path.read_text().replace("vllm-openai-runtime", "kserve-huggingfaceserver"))
    [refused] = _lint(path, rules).diagnostics
    assert (refused.code, refused.severity.name) == ("HBM003", "ERROR")


def test_a_clusters_own_label_naming_a_gpu_is_said_in_the_unknown_gpu_warning(rules, tmp_path):
    # TobiasEdman/des-chatbot k8s/vllm-deployment.yaml: `nodeSelector: {gpu-type: nvidia-2080ti}`
    path = tmp_path / "vllm.yaml"
    path.write_text(
        "apiVersion: apps/v1\n"
        "kind: Deployment\n"
        "metadata: {name: vllm-mistral}\n"
        "spec:\n"
        "  template:\n"
        "    spec:\n"
        "      nodeSelector: {kubernetes.io/hostname: gpu-node-1, gpu-type: nvidia-2080ti}\n"
        "      containers:\n"
        "        - name: vllm\n"
        "          image: vllm/vllm-openai:latest\n"
        '          args: ["--model", "mistralai/Mistral-7B-Instruct-v0.3"]\n'
        '          resources: {limits: {nvidia.com/gpu: "1"}}\n'
    )
    [unknown] = _lint(path, rules).diagnostics
    assert unknown.code == "HBM005" and unknown.severity.name == "WARNING"
    assert "gpu-type: nvidia-2080ti (line 7) looks like the RTX-2080-Ti-11GB" in unknown.message
    assert "--gpu RTX-2080-Ti-11GB" in unknown.message
    assert "hostname" not in unknown.message


def test_a_pod_that_requests_no_gpu_is_said_to(rules, tmp_path):
    # siri1404/llm-infrastructure k8s/vllm-deployment.yaml: the nvidia.com/gpu limit commented out
    path = tmp_path / "vllm.yaml"
    path.write_text(
        "apiVersion: apps/v1\n"
        "kind: Deployment\n"
        "metadata: {name: vllm-server}\n"
        "spec:\n"
        "  template:\n"
        "    spec:\n"
        "      containers:\n"
        "      - name: vllm\n"
        "        image: vllm/vllm-openai:latest\n"
        "        args: [--model, mistralai/Mistral-7B-Instruct-v0.2]\n"
        "        resources: {limits: {memory: 16Gi, cpu: '4'}}\n"
    )
    [unknown] = _lint(path, rules).diagnostics
    assert unknown.code == "HBM005" and "requests no GPU" in unknown.message


def test_vllms_gptoss_launch_image_is_the_0_10_1_build(rules, tmp_path):
    # davidamacey/OpenTranscribe docker-compose.vllm.yml: vllm/vllm-openai:gptoss with
    # --swap-space, which that build (vllm==0.10.1+gptoss) takes: was a false HBM010 warning
    path = tmp_path / "compose.yml"
    path.write_text(
        "services:\n"
        "  vllm:\n"
        "    image: vllm/vllm-openai:gptoss\n"
        "    runtime: nvidia\n"
        "    command: --model openai/gpt-oss-20b --max-model-len 32768 --swap-space 32\n"
    )
    result = _lint(path, rules, gpu="H100")
    [item] = result.deployments
    assert item.deployment.engine_version == "0.10.1"
    assert codes(result, "HBM010") == []


def test_code_and_prose_named_on_the_command_line_are_never_yaml_errors(rules, tmp_path):
    # a Modal / Ray launcher in Python passed by name (`git diff --name-only | xargs hbmlint`):
    # was an HBM002 YAML syntax error, exit code 1
    code = tmp_path / "serve_modal.py"
    code.write_text(
        "import subprocess\n"
        'subprocess.Popen("vllm serve Qwen/Qwen2.5-0.5B-Instruct", shell=True)\n'
        'x = {"a": 1}\n'
    )
    [said] = _lint(code, rules).diagnostics
    assert (said.code, said.severity.name, said.span.line) == ("HBM014", "INFO", 2)
    prose = tmp_path / "README.md"
    prose.write_text("Run:\n\n    vllm serve Qwen/Qwen3-8B --max-model-len: 8192\n")
    assert _lint(prose, rules).diagnostics == []


def test_a_model_at_a_mounted_container_path_is_named_by_its_volume(rules, tmp_path):
    # HouXianzhoua's docker-compose.yml (sweep 20): TGI with --model-id=/data and the volume
    # ./models/Qwen2-7B-Instruct-GPTQ-Int4:/data (was HBM006: '/data' unidentified)
    path = tmp_path / "docker-compose.yml"
    path.write_text(
        "services:\n"
        "  tgi-qwen2:\n"
        "    image: ghcr.io/huggingface/text-generation-inference:latest\n"
        "    volumes:\n"
        "      - ./models/Qwen2-7B-Instruct-GPTQ-Int4:/data\n"
        "    command: [--model-id=/data, --quantize=gptq, --max-total-tokens=4096]\n"
        "    deploy:\n"
        "      resources:\n"
        "        reservations:\n"
        "          devices: [{driver: nvidia, device_ids: ['0'], capabilities: [gpu]}]\n"
    )
    result = _lint(path, rules, gpu="L4")
    assert codes(result, "HBM006") == []
    [item] = result.deployments
    assumed = item.budget.assumed["model"]
    assert assumed.startswith("Qwen/Qwen2-7B-Instruct with GPTQ 4-bit weights")
    assert "the volume it is mounted from" in assumed
