"""An engine started on a device that is not an NVIDIA or AMD GPU (Intel Gaudi, Huawei Ascend,
AWS Neuron, Google TPU, an Intel GPU) is that device's build of the engine with that device's
memory: hbmlint does not budget it, and says so (HBM014, an info at what says so) instead of
budgeting it on --gpu, which would make up the memory it has. Fixtures under
tests/fixtures/real/ name the public files whose patterns they reproduce."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
COVERED = {
    "shell-vllm-gaudi-hpu-exports.sh",
    "shell-vllm-gaudi-prefix-env.sh",
    "shell-vllm-ascend-exports.sh",
    "shell-sglang-npu-device.sh",
    "compose-vllm-gaudi-runtime-habana.yaml",
    "skypilot-vllm-tpu.sky.yaml",
    "dstack-vllm-tpu-service.dstack.yml",
    "ray-serve-llm-tpu-topology.yaml",
}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(path: Path, rules, gpu: str | None = "H100"):
    return lint_file(path, path.name, rules, LintOptions(default_gpu=gpu, keep_budgets=True))


def not_budgeted(result) -> list:
    """The file's HBM014 findings: engines on a device hbmlint does not budget."""
    return [f for f in result.diagnostics if f.code == "HBM014"]


def place(path: Path, needle: str) -> tuple[int, int]:
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if needle in line and not line.lstrip().startswith("#"):
            return number, line.index(needle) + 1
    raise AssertionError(needle)


@pytest.mark.parametrize(
    ("fixture", "said", "device"),
    [
        ("shell-vllm-gaudi-hpu-exports.sh", "PT_HPU_ENABLE_LAZY_COLLECTIVES=true", "Intel Gaudi"),
        ("shell-vllm-gaudi-prefix-env.sh", "PT_HPU_LAZY_MODE=1", "Intel Gaudi"),
        ("shell-vllm-ascend-exports.sh", "PYTORCH_NPU_ALLOC_CONF=", "Huawei Ascend NPU"),
        ("shell-sglang-npu-device.sh", "--device npu", "Huawei Ascend NPU"),
        ("compose-vllm-gaudi-runtime-habana.yaml", "runtime: habana", "Intel Gaudi"),
    ],
)
def test_an_engine_on_another_accelerator_is_not_budgeted_on_the_default_gpu(
    rules, fixture, said, device
):
    path = REAL / fixture
    result = lint(path, rules)
    # with --gpu H100 it would otherwise be budgeted on an H100's 80 GB
    assert result.deployments == []
    assert [f.severity for f in result.diagnostics] == [Severity.INFO]
    [finding] = result.diagnostics
    assert finding.code == "HBM014"
    assert said in finding.message and device in finding.message
    assert "not checked" in finding.message
    if said.startswith("runtime"):
        # the service that runs vLLM, at its runtime's value; the TEI embedding service (the
        # first `runtime: habana`) runs no engine
        lines = path.read_text().splitlines()
        assert lines[finding.span.line - 1] == "    runtime: habana"
        assert finding.span.line > place(path, said)[0]
        assert finding.span.column == lines[finding.span.line - 1].index("habana") + 1
    else:
        assert (finding.span.line, finding.span.column) == place(path, said.split("=")[0])


def test_without_the_device_s_marks_the_same_script_is_budgeted(rules, tmp_path):
    # the Gaudi tutorial's server line alone: vLLM on the --gpu, with a budget
    text = (REAL / "shell-vllm-gaudi-hpu-exports.sh").read_text()
    plain = tmp_path / "serve.sh"
    plain.write_text(text.replace("export PT_HPU_ENABLE_LAZY_COLLECTIVES=true\n", ""))
    result = lint(plain, rules)
    assert [d.deployment.model.name for d in result.deployments] == [
        "meta-llama/Llama-3.1-8B-Instruct"
    ]
    assert not not_budgeted(result)


def test_a_script_that_also_names_nvidia_devices_is_still_read(rules, tmp_path):
    # a script for several platforms: which one runs is not in the file, so the GPU reading
    # stands (with CUDA_VISIBLE_DEVICES the GPU count as well)
    script = tmp_path / "serve.sh"
    script.write_text(
        "export PT_HPU_LAZY_MODE=1\n"
        "export CUDA_VISIBLE_DEVICES=0,1\n"
        "vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2\n"
    )
    result = lint(script, rules)
    assert len(result.deployments) == 1
    assert not not_budgeted(result)


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [
        ("PJRT_DEVICE=TPU ", "Google TPU"),
        ("PJRT_DEVICE=CUDA ", None),  # PyTorch/XLA on a GPU
        ("NEURON_RT_NUM_CORES=2 ", "AWS Neuron"),
        ("ZE_AFFINITY_MASK=0 ", "Intel GPU"),
        ("", None),
    ],
)
def test_the_device_variable_on_the_command(rules, tmp_path, prefix, expected):
    script = tmp_path / "serve.sh"
    script.write_text(f"{prefix}vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 4096\n")
    result = lint(script, rules)
    found = not_budgeted(result)
    if expected is None:
        assert len(result.deployments) == 1 and not found
    else:
        assert result.deployments == [] and expected in found[0].message


@pytest.mark.parametrize(
    ("option", "expected"),
    [
        ("--runtime=habana", "Intel Gaudi"),
        ("--runtime habana", "Intel Gaudi"),
        ("-e HABANA_VISIBLE_DEVICES=all", "Intel Gaudi"),
        ("--device /dev/davinci0", "Huawei Ascend NPU"),
        ("--device=/dev/neuron0", "AWS Neuron"),
        ("--gpus all", None),
    ],
)
def test_a_docker_run_that_passes_in_another_device(rules, tmp_path, option, expected):
    # vllm-ascend's and Habana's docker commands pass the device in with these options
    script = tmp_path / "run.sh"
    script.write_text(
        f"docker run --rm {option} -p 8000:8000 vllm/vllm-openai:v0.8.5 "
        "--model Qwen/Qwen2.5-7B-Instruct --max-model-len 4096\n"
    )
    result = lint(script, rules)
    found = not_budgeted(result)
    if expected is None:
        assert len(result.deployments) == 1 and not found
    else:
        assert result.deployments == [] and expected in found[0].message
        assert found[0].span.line == 1


def test_an_ascend_device_plugin_resource_in_a_pod(rules, tmp_path):
    # Huawei's MindCluster device plugin names the NPUs a pod asks for huawei.com/Ascend910
    manifest = tmp_path / "deploy.yaml"
    manifest.write_text(
        """apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm-ascend}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: quay.io/ascend/vllm-ascend:v0.10.0rc1
          command: ["vllm", "serve", "Qwen/Qwen2.5-7B-Instruct"]
          resources:
            limits:
              huawei.com/Ascend910: 1
"""
    )
    result = lint(manifest, rules)
    assert result.deployments == []
    [finding] = not_budgeted(result)
    assert "huawei.com/Ascend910" in finding.message and "Ascend" in finding.message
    assert finding.span.line == 13


def test_a_pod_that_runs_vllm_with_device_cpu_and_asks_for_no_gpu(rules, tmp_path):
    """kkkashan/llm-comparison kubernetes/vllm-deployment-cpu.yaml: vLLM's own image with
    `--device cpu` and CPU and memory requests only. Not a GPU deployment that forgot its type
    (HBM005 before), a CPU one; --device is still a flag vLLM 0.10 and later refuse."""
    manifest = tmp_path / "deploy.yaml"
    manifest.write_text(
        """apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm-cpu}
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:latest
        args: [--model, TinyLlama/TinyLlama-1.1B-Chat-v1.0, --max-model-len, "2048",
               --device, cpu]
        resources:
          limits: {memory: 8Gi, cpu: "4"}
"""
    )
    result = lint(manifest, rules, "H100")
    assert result.deployments == []
    [finding] = not_budgeted(result)
    assert finding.message.startswith("--device cpu") and finding.span.line == 11
    [removed] = [d for d in result.diagnostics if d.code == "HBM010"]
    assert removed.severity == Severity.WARNING and "--device" in removed.message
    # asking for a GPU, the flag does not make it a CPU deployment: it is budgeted
    manifest.write_text(manifest.read_text().replace("memory: 8Gi", "nvidia.com/gpu: 1"))
    assert len(lint(manifest, rules, "H100").deployments) == 1


# --- AMD GPUs said by a script or compose file -------------------------------------------------

ROCM_SCRIPT = REAL / "shell-sglang-rocm-dated-dev-image.sh"


def test_a_rocm_script_is_not_budgeted_on_an_nvidia_default_gpu(rules):
    # honkliu/Jiuzhang's launch script runs SGLang's ROCm build with /dev/kfd passed in: on an
    # H100's 80 GB (--gpu H100) its weights would not fit, a refusal the AMD GPU never gives
    result = lint(ROCM_SCRIPT, rules, gpu="H100")
    assert not [f for f in result.diagnostics if f.severity == Severity.ERROR]
    [finding] = [f for f in result.diagnostics if f.code == "HBM005"]
    assert "/dev/kfd" in finding.message and "AMD --gpu" in finding.message
    assert (finding.span.line, finding.span.column) == place(ROCM_SCRIPT, "--device=/dev/kfd")
    # on an AMD --gpu it is budgeted as before
    budgeted = lint(ROCM_SCRIPT, rules, gpu="MI300X")
    assert not [f for f in budgeted.diagnostics if f.code == "HBM005"]
    assert budgeted.deployments[0].deployment.model.name


def test_without_a_gpu_the_advice_names_an_amd_part(rules):
    result = lint(ROCM_SCRIPT, rules, gpu=None)
    [finding] = [f for f in result.diagnostics if f.code == "HBM005"]
    assert "--gpu MI300X" in finding.message and "AMD GPUs" in finding.message


@pytest.mark.parametrize(
    ("exports", "amd"),
    [
        ("export HIP_VISIBLE_DEVICES=0,1\n", True),
        ("ROCR_VISIBLE_DEVICES=0 ", True),
        # a script for both platforms sets both: which one runs is not in the file
        ("export HIP_VISIBLE_DEVICES=0,1\nexport CUDA_VISIBLE_DEVICES=0,1\n", False),
        ("", False),
    ],
)
def test_rocm_s_device_variable(rules, tmp_path, exports, amd):
    script = tmp_path / "serve.sh"
    script.write_text(f"{exports}vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 4096\n")
    result = lint(script, rules, gpu="H100")
    found = [f for f in result.diagnostics if f.code == "HBM005"]
    [deployment] = result.deployments
    if amd:
        assert found and "_VISIBLE_DEVICES=" in found[0].message
        assert deployment.budget is None
    else:
        assert not found and deployment.budget is not None


def test_a_compose_service_given_dev_kfd(rules, tmp_path):
    # ROCm's compose instructions pass /dev/kfd and /dev/dri in as devices
    compose = tmp_path / "compose.yaml"
    compose.write_text(
        """services:
  vllm:
    image: vllm/vllm-openai:v0.9.0
    devices:
      - /dev/kfd
      - /dev/dri
    command: --model Qwen/Qwen2.5-72B-Instruct --tensor-parallel-size 1
"""
    )
    result = lint(compose, rules, gpu="H100")
    assert not [f for f in result.diagnostics if f.severity == Severity.ERROR]
    [finding] = [f for f in result.diagnostics if f.code == "HBM005"]
    assert "/dev/kfd" in finding.message and finding.span.line == 5


# --- a SkyPilot or dstack run on a TPU, Trainium or Gaudi -----------------------------------


@pytest.mark.parametrize(
    ("fixture", "said"),
    [
        ("skypilot-vllm-tpu.sky.yaml", "accelerators: tpu-v6e-8"),
        ("dstack-vllm-tpu-service.dstack.yml", "gpu: v5litepod-4"),
    ],
)
@pytest.mark.parametrize("gpu", [None, "H100"])
def test_a_tpu_slice_is_not_read_as_one_gpu(rules, fixture, said, gpu):
    # tpu-v6e-8 is eight TPU chips: read as one GPU of an unknown type it made a false HBM007
    # ("1 GPU requested but tensor x pipeline parallelism is 8"), and --gpu H100 budgeted it
    path = REAL / fixture
    result = lint(path, rules, gpu=gpu)
    assert result.deployments == []
    [finding] = result.diagnostics
    assert finding.code == "HBM014" and said in finding.message and "Google TPU" in finding.message
    assert finding.span.line == place(path, said.split(":")[0] + ":")[0]


@pytest.mark.parametrize(
    ("accelerators", "device"),
    [
        ("Trainium:16", "AWS Trainium"),
        ("Inferentia2:1", "AWS Inferentia"),
        ("Gaudi3:8", "Intel Gaudi"),
        ("{tpu-v5p-8, tpu-v6e-8}", "Google TPU"),
    ],
)
def test_skypilot_accelerators_that_are_not_gpus(rules, tmp_path, accelerators, device):
    task = tmp_path / "serve.sky.yaml"
    task.write_text(
        f"resources:\n  accelerators: {accelerators}\n"
        "run: vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 8\n"
    )
    result = lint(task, rules)
    assert result.deployments == []
    assert [f.code for f in result.diagnostics] == ["HBM014"]
    assert device in result.diagnostics[0].message


def test_a_skypilot_choice_between_a_tpu_and_a_gpu_is_budgeted_on_the_gpu(rules, tmp_path):
    task = tmp_path / "serve.sky.yaml"
    task.write_text(
        "resources:\n  accelerators: {tpu-v6e-8, H100:8}\n"
        "run: vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 8\n"
    )
    result = lint(task, rules, gpu=None)
    [deployment] = result.deployments
    assert deployment.budget is not None and "H100" in deployment.budget.resolved.gpu.name
    assert not not_budgeted(result)


def test_the_unknown_gpu_advice_keeps_its_capitals(rules, tmp_path):
    # "Run hbmlint with --gpu TYPE (for example --gpu H100)", not "--gpu type ... --gpu h100"
    task = tmp_path / "serve.sky.yaml"
    task.write_text(
        "resources:\n  accelerators: RTX-9999:1\nrun: vllm serve Qwen/Qwen2.5-7B-Instruct\n"
    )
    [finding] = [f for f in lint(task, rules, gpu=None).diagnostics if f.code == "HBM005"]
    assert "--gpu TYPE (for example --gpu H100)" in finding.message


# --- a GPU type that names another device, in any format ------------------------------------


@pytest.mark.parametrize("gpu", [None, "H100"])
def test_ray_serve_llm_on_a_tpu_slice_is_not_budgeted(rules, gpu):
    # accelerator_type: TPU-V6E was an unknown GPU type, budgeted on --gpu H100 (TP 16 of them)
    path = REAL / "ray-serve-llm-tpu-topology.yaml"
    result = lint(path, rules, gpu=gpu)
    [finding] = result.diagnostics
    assert finding.code == "HBM014" and "'TPU-V6E'" in finding.message
    assert "Google TPU" in finding.message
    assert (finding.span.line, finding.span.column) == place(path, "TPU-V6E")
    assert all(d.budget is None for d in result.deployments)


@pytest.mark.parametrize(
    ("gpu_type", "device"),
    [("AWS-NEURON-CORE", "AWS Neuron"), ("Intel-GAUDI", "Intel Gaudi"), ("tpu-v5e", "Google TPU")],
)
def test_a_device_named_in_hbmlint_s_own_format(rules, tmp_path, gpu_type, device):
    # in hbmlint's own format an unknown GPU type is an error (a typo); a device that is not a
    # GPU is said for what it is, an info, and nothing else is checked
    manifest = tmp_path / "serving.yaml"
    manifest.write_text(
        "apiVersion: hbmlint/v1\nkind: ServingManifest\nmetadata: {name: m}\nspec:\n"
        f"  gpu: {{type: {gpu_type}, count: 1}}\n  model: {{name: Qwen/Qwen2.5-7B-Instruct}}\n"
    )
    result = lint(manifest, rules, gpu=None)
    assert [(f.code, f.severity) for f in result.diagnostics] == [("HBM014", Severity.INFO)]
    assert device in result.diagnostics[0].message
