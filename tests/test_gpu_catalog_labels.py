"""GPUs that node labels and manifests name beyond the big data-center parts: Pascal and Kepler
cards (Kaggle's and GKE's P100, P4, P40, K80), workstation and GeForce cards, the GB10 of the DGX
Spark, and the spellings each platform's label uses. A Deployment that selects one gets a budget
on that card's memory, not an unknown-GPU warning (HBM005)."""

from __future__ import annotations

import json

import pytest
from test_startup_rules import findings, line_of, lint

from hbmlint import catalog
from hbmlint.diagnostics import Severity
from hbmlint.rules import load_rules


@pytest.fixture(scope="module")
def rules():
    loaded, problems = load_rules()
    assert not problems
    return loaded


def gib(quantity) -> float:
    return float(quantity.to("GiB").magnitude)


def on_node(label: str, value: str, args: list[str], model="Qwen/Qwen2.5-1.5B-Instruct") -> str:
    words = [f"--model={model}", *args]
    return "\n".join(
        [
            "apiVersion: apps/v1",
            "kind: Deployment",
            "metadata: {name: llm}",
            "spec:",
            "  selector: {matchLabels: {app: llm}}",
            "  template:",
            "    metadata: {labels: {app: llm}}",
            "    spec:",
            f"      nodeSelector: {{{label}: {value}}}",
            "      containers:",
            "      - name: vllm",
            "        image: vllm/vllm-openai:v0.11.0",
            "        command: [vllm, serve]",
            "        args:",
            *(f"        - {json.dumps(word)}" for word in words),
            "        resources: {limits: {nvidia.com/gpu: 1}}",
            "",
        ]
    )


# (label key, value as the platform writes it, catalog entry)
LABELS = [
    ("nvidia.com/gpu.product", "Tesla-P100-PCIE-16GB", "P100-PCIe-16GB"),
    ("cloud.google.com/gke-accelerator", "nvidia-tesla-p100", "P100-PCIe-16GB"),
    ("cloud.google.com/gke-accelerator", "nvidia-tesla-p4", "P4-8GB"),
    ("cloud.google.com/gke-accelerator", "nvidia-tesla-k80", "K80-12GB"),
    ("nvidia.com/gpu.product", "Tesla-P40", "P40-24GB"),
    ("karpenter.k8s.aws/instance-gpu-name", "k80", "K80-12GB"),
    ("nvidia.com/gpu.product", "NVIDIA-A2", "A2-16GB"),
    ("nvidia.com/gpu.product", "NVIDIA-A16", "A16-16GB"),
    ("nvidia.com/gpu.product", "NVIDIA-RTX-A5000", "RTX-A5000-24GB"),
    ("nvidia.com/gpu.product", "NVIDIA-RTX-A4000", "RTX-A4000-16GB"),
    ("nvidia.com/gpu.product", "NVIDIA-RTX-4000-Ada-Generation", "RTX-4000-Ada-20GB"),
    ("nvidia.com/gpu.product", "NVIDIA-GeForce-RTX-3060", "RTX-3060-12GB"),
    ("nvidia.com/gpu.product", "NVIDIA-GeForce-RTX-4070-Ti-SUPER", "RTX-4070-Ti-SUPER-16GB"),
    ("nvidia.com/gpu.product", "NVIDIA-GeForce-RTX-4080-SUPER", "RTX-4080-16GB"),
    ("nvidia.com/gpu.product", "NVIDIA-GeForce-RTX-4090-D", "RTX-4090"),
    ("nvidia.com/gpu.product", "NVIDIA-GeForce-RTX-5080", "RTX-5080-16GB"),
    ("nvidia.com/gpu.product", "NVIDIA-GB10", "GB10-128GB"),
    ("amd.com/gpu.product-name", "Instinct-MI300X", "MI300X-192GB"),
    ("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB", "A100-SXM4-80GB"),
    ("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3", "H100-SXM-80GB"),
    ("nvidia.com/gpu.product", "Tesla-V100-SXM2-16GB", "V100-SXM2-16GB"),
]


@pytest.mark.parametrize(("label", "value", "expected"), LABELS, ids=[v for _, v, _ in LABELS])
def test_a_node_label_value_names_a_catalog_gpu(tmp_path, rules, label, value, expected):
    result = lint(tmp_path, rules, on_node(label, value, ["--max-model-len=4096", "--dtype=half"]))
    assert not findings(result, "HBM005")
    [deployed] = result.deployments
    assert deployed.budget is not None
    assert deployed.budget.resolved.gpu.name == expected


def test_a_p100_deployment_is_budgeted_on_16_gb_and_told_vllm_does_not_run_there(tmp_path, rules):
    # the Kaggle / GKE P100: 16 GB of HBM2, of which PyTorch reports 15.89-15.90 GiB
    text = on_node(
        "nvidia.com/gpu.product", "Tesla-P100-PCIE-16GB", ["--max-model-len=4096", "--dtype=half"]
    )
    result = lint(tmp_path, rules, text)
    [deployed] = result.deployments
    assert 15.8 < gib(deployed.budget.total) < 16
    # Pascal (6.0) is below vLLM's 7.0: a warning at the model, not a refusal to budget
    [finding] = findings(result, "HBM321")
    assert finding.severity == Severity.WARNING
    assert "compute capability 6.0" in finding.message
    assert finding.span.line == line_of(text, "--model=")
    assert not [d for d in result.diagnostics if d.severity == Severity.ERROR]


def test_a_t4_is_not_told_it_is_below_vllms_minimum(tmp_path, rules):
    text = on_node("nvidia.com/gpu.product", "Tesla-T4", ["--max-model-len=4096", "--dtype=half"])
    assert not findings(lint(tmp_path, rules, text), "HBM321")


def test_the_gb10_is_budgeted_on_what_cuda_reports_and_warned_at_vllms_default(tmp_path, rules):
    # no --gpu-memory-utilization: vLLM 0.11's 0.9 of 121.69 GiB would need 109.5 GiB free, more
    # than a GB10 host has free at start-up (about 102 GiB)
    text = on_node("nvidia.com/gpu.product", "NVIDIA-GB10", ["--max-model-len=4096"])
    result = lint(tmp_path, rules, text)
    [deployed] = result.deployments
    assert gib(deployed.budget.total) == pytest.approx(121.69)
    [finding] = findings(result, "HBM322")
    assert finding.severity == Severity.WARNING
    assert "0.90" in finding.message and "share" in finding.message
    # 0.85, what vLLM's own GB10 recipe sets, passes
    text = on_node(
        "nvidia.com/gpu.product",
        "NVIDIA-GB10",
        ["--max-model-len=4096", "--gpu-memory-utilization=0.85"],
    )
    assert not findings(lint(tmp_path, rules, text), "HBM322")


def test_only_the_unified_memory_gpu_is_held_to_the_lower_fraction(tmp_path, rules):
    text = on_node("nvidia.com/gpu.product", "NVIDIA-GH200-480GB", ["--max-model-len=4096"])
    assert not findings(lint(tmp_path, rules, text), "HBM322")
    assert catalog.find_gpu("GB10").unified_memory
    assert not catalog.find_gpu("GH200").unified_memory


def test_a_bare_p4_is_not_read_as_the_tesla_p4():
    # AWS's p4d / p4de instances carry A100s; only the Tesla spellings name the 8 GB card
    assert catalog.find_gpu("P4") is None
    assert gib(catalog.find_gpu("Tesla-P4").memory) < 8


def test_a_name_two_memory_sizes_share_stays_unknown(tmp_path, rules):
    # the 8 GB and the 16 GB RTX 4060 Ti have the same NVML name: hbmlint does not pick one
    text = on_node("nvidia.com/gpu.product", "NVIDIA-GeForce-RTX-4060-Ti", ["--max-model-len=4096"])
    [unknown] = findings(lint(tmp_path, rules, text), "HBM005")
    assert "--gpu" in unknown.message
    assert catalog.find_gpu("RTX-4060-Ti-16GB").name == "RTX-4060-Ti-16GB"
