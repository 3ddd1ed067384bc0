"""Manifests shaped like public ones (tests/fixtures/real/, each naming the repository and path it
reproduces): the GPU each one's node labels select, the model a local path holds, the GPU
count against the parallelism, and the severity of what hbmlint cannot check."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from format_helpers import budgets, findings, line_of, native, run

REAL = Path(__file__).parent / "fixtures" / "real"


@pytest.fixture
def real(tmp_path):
    """A copy of a fixture in a temporary directory (no configuration file above it)."""

    def copy(name: str) -> Path:
        target = tmp_path / name
        shutil.copy(REAL / name, target)
        return target

    return copy


def fields(path: Path, *options: str) -> dict[str, tuple[str, int]]:
    """`hbmlint formats`: field -> (value, line), for a file with one deployment."""
    out = {}
    for line in run("formats", *options, path).output.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[-2] == "line" and "." in parts[0]:
            out[parts[0]] = (" ".join(parts[1:-2]), int(parts[-1]))
    return out


def exact_line(path: Path, text: str) -> int:
    """The line whose text, stripped, is ``text`` (comments that quote it do not count)."""
    lines = path.read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.strip() == text)


def by_code(path: Path, code: str, *options: str) -> list[dict]:
    return [f for f in findings(path, *options) if f["code"] == code]


def test_gke_pvc_model_is_read_from_its_directory_name(real, tmp_path):
    path = real("gke-local-model-gemma3-27b-a100.yaml")
    [budget] = budgets(path)
    assert "google/gemma-3-27b-it" in budget["assumed"].pop("model")
    assert (budget["gpu"], budget["gpu_count"], budget["tensor_parallel"]) == (
        "A100-SXM4-40GB",
        4,
        4,
    )
    twin = native(
        tmp_path,
        """
        engine_version: "0.10.1"
        gpu: {type: nvidia-tesla-a100, count: 4}
        model: {name: google/gemma-3-27b-it}
        parallel: {tensor: 4}
        serving: {max_model_len: 8192, gpu_memory_utilization: 0.6}
        """,
    )
    assert budget == budgets(twin)[0]
    assert [f["severity"] for f in findings(path) if f["severity"] == "error"] == []
    assert fields(path)["gpu.type"] == (
        "A100-SXM4-40GB",
        exact_line(path, "cloud.google.com/gke-accelerator: nvidia-tesla-a100"),
    )


def test_volcano_engine_gpu_label_and_an_unknown_hostpath_model(real):
    path = real("aibrix-vke-l20-local-path.yaml")
    assert fields(path)["gpu.type"] == ("L20-48GB", line_of(path, "- NVIDIA-L20"))
    model, model_line = fields(path)["model.name"]
    assert model == "/models/deepseek-coder-6.7b-instruct"  # not the served name
    # the path's last part names a catalog model (deepseek-coder-6.7b-instruct): budgeted
    assert by_code(path, "HBM006") == []
    assert run(path).exit_code == 0
    # a folder name hbmlint cannot identify is a warning at the model's line that says how to map it
    private = path.with_name("private.yaml")
    private.write_text(path.read_text().replace("deepseek-coder-6.7b-instruct", "in-house-coder"))
    [unknown] = by_code(private, "HBM006")
    assert unknown["severity"] == "warning"
    assert unknown["line"] == model_line == exact_line(private, "- --model")
    assert "model-paths" in unknown["message"] and "hbmlint.io/model" in unknown["message"]
    assert run(private).exit_code == 0
    # the V100 twin of the sample: VKE's Tesla-V100 is the 16 GB card
    v100 = path.with_name("v100.yaml")
    v100.write_text(path.read_text().replace("NVIDIA-L20", "Tesla-V100"))
    assert fields(v100)["gpu.type"][0] == "V100-SXM2-16GB"


def test_alibaba_ack_label_names_a_v100_and_tp2_uses_both_gpus(real, tmp_path):
    path = real("ack-v100-qwen7b-tp2.yaml")
    [budget] = budgets(path)
    assert (budget["gpu"], budget["gpu_count"], budget["tensor_parallel"]) == (
        "V100-SXM2-16GB",
        2,
        2,
    )
    assert budget["total_bytes"] == int(15.77 * 2**30)
    assert findings(path) == []


def test_coreweave_class_label_takes_the_smaller_of_the_allowed_gpus(real):
    path = real("coreweave-a100-class.yaml")
    [budget] = budgets(path)
    # A100_NVLINK_80GB or A100_NVLINK (40 GB): the budget must hold on both
    assert (budget["gpu"], budget["gpu_count"], budget["tensor_parallel"]) == (
        "A100-SXM4-40GB",
        8,
        8,
    )
    assert fields(path)["gpu.type"][1] == exact_line(path, "- A100_NVLINK")


def test_aks_accelerator_label_asks_for_the_vm_size_as_a_warning(real):
    path = real("aks-accelerator-label-only.yaml")
    [missing] = by_code(path, "HBM005")
    assert missing["severity"] == "warning"
    assert missing["line"] == exact_line(path, "kubernetes.azure.com/accelerator: nvidia")
    assert "node.kubernetes.io/instance-type" in missing["message"]
    assert run(path).exit_code == 0
    [budget] = budgets(path, "--gpu", "L4")  # --gpu unblocks it
    assert budget["gpu"] == "L4-24GB"


def test_aks_instance_type_names_the_gpu(real):
    path = real("aks-accelerator-label-only.yaml")
    text = path.read_text().replace(
        "kubernetes.azure.com/accelerator: nvidia",
        "node.kubernetes.io/instance-type: Standard_NC24ads_A100_v4",
    )
    path.write_text(text)
    [budget] = budgets(path)
    assert budget["gpu"] == "A100-SXM4-80GB"


def test_production_stack_v100_values(real):
    path = real("production-stack-v100-tp2.yaml")
    found = findings(path)
    assert {f["severity"] for f in found} == {"warning"}  # nothing here stops the engine
    missing = [f for f in found if f["code"] == "HBM005"]
    assert [f["line"] for f in missing] == [
        line_of(path, "requestGPU: 2"),
        line_of(path, "requestGPU: 2", 2),
    ]
    [ignored] = [f for f in found if f["code"] == "HBM016"]
    assert ignored["line"] == line_of(path, "extraArgs: [")
    assert "vllmConfig.extraArgs" in ignored["message"]
    [idle] = [f for f in found if f["code"] == "HBM007"]
    assert idle["line"] == line_of(path, "requestGPU: 2", 2) and "1 idle" in idle["message"]
    qwen, llama = budgets(path, "--gpu", "V100")
    assert (qwen["gpu"], qwen["tensor_parallel"], qwen["gpu_count"]) == ("V100-SXM2-16GB", 2, 2)
    # the misplaced extraArgs never reach vLLM: its default utilization is budgeted
    assert llama["tensor_parallel"] == 1 and "gpu_memory_utilization" in llama["assumed"]


def test_production_stack_affinity_wins_over_node_selector_terms(real):
    path = real("production-stack-v100-tp2.yaml")
    text = path.read_text().replace(
        "    nodeSelectorTerms:\n",
        "    affinity:\n"
        "      nodeAffinity:\n"
        "        requiredDuringSchedulingIgnoredDuringExecution:\n"
        "          nodeSelectorTerms:\n"
        "          - matchExpressions:\n"
        "            - key: nvidia.com/gpu.product\n"
        "              operator: In\n"
        "              values: [Tesla-V100-SXM2-32GB]\n"
        "    nodeSelectorTerms:\n",
    )
    path.write_text(text)
    qwen = budgets(path)[0]
    assert qwen["gpu"] == "V100-SXM2-32GB"


def test_kserve_pvc_model_is_a_warning_and_the_annotation_unblocks_it(real):
    path = real("kserve-pvc-model.yaml")
    [unknown] = by_code(path, "HBM006")
    assert unknown["severity"] == "warning" and "hbmlint.io/model" in unknown["message"]
    assert run(path).exit_code == 0
    annotation = "  annotations:\n    hbmlint.io/model: meta-llama/Llama-3.1-8B-Instruct\n"
    annotated = path.read_text().replace("  name: llama-pvc\n", "  name: llama-pvc\n" + annotation)
    path.write_text(annotated)
    [budget] = budgets(path)
    assert budget["gpu"] == "L4-24GB" and "hbmlint.io/model" in budget["assumed"]["model"]


def test_sglang_dp_attention_shares_the_tp_groups_gpus(real):
    path = real("sglang-dp-attention-h200.yaml")
    assert by_code(path, "HBM007") == []  # 8 GPUs for TP 8 with DP attention: what it needs
    [budget] = budgets(path)
    assert (budget["gpu"], budget["gpu_count"], budget["tensor_parallel"]) == (
        "H200-SXM-141GB",
        8,
        8,
    )
    # without DP attention SGLang starts 8 replicas of TP 8: 64 GPUs, the engine cannot start
    plain = path.with_name("plain.yaml")
    plain.write_text(path.read_text().replace("        - --enable-dp-attention\n", ""))
    [error] = by_code(plain, "HBM007")
    assert error["severity"] == "error" and "8 x 1 x 8 = 64" in error["message"]
