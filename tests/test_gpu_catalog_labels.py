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
    # ROCm's device names as AMD's node labeller writes them (vLLM's tuned configs use them too)
    ("amd.com/gpu.product-name", "AMD_Instinct_MI325_OAM", "MI325X-256GB"),
    ("amd.com/gpu.product-name", "AMD_Instinct_MI355_OAM", "MI355X-288GB"),
    ("amd.com/gpu.product-name", "AMD_Radeon_RX7900XTX", "RX-7900-XTX-24GB"),
    ("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB", "A100-SXM4-80GB"),
    ("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3", "H100-SXM-80GB"),
    ("nvidia.com/gpu.product", "Tesla-V100-SXM2-16GB", "V100-SXM2-16GB"),
    # consumer and workstation cards real manifests and logs name (NVML names as GPU feature
    # discovery writes them)
    ("nvidia.com/gpu.product", "NVIDIA-GeForce-RTX-5070-Ti", "RTX-5070-Ti-16GB"),
    ("nvidia.com/gpu.product", "NVIDIA-GeForce-RTX-5070", "RTX-5070-12GB"),
    ("skypilot.co/accelerator", "rtx-5060-ti-16gb", "RTX-5060-Ti-16GB"),
    ("nvidia.com/gpu.product", "NVIDIA-GeForce-RTX-4070", "RTX-4070-12GB"),
    ("nvidia.com/gpu.product", "NVIDIA-GeForce-RTX-4070-Ti", "RTX-4070-12GB"),
    ("nvidia.com/gpu.product", "NVIDIA-GeForce-RTX-4070-SUPER", "RTX-4070-12GB"),
    ("nvidia.com/gpu.product", "NVIDIA-GeForce-RTX-4060", "RTX-4060-8GB"),
    ("nvidia.com/gpu.product", "NVIDIA-GeForce-RTX-3080", "RTX-3080-10GB"),
    ("nvidia.com/gpu.product", "NVIDIA-GeForce-RTX-3080-Ti", "RTX-3080-Ti-12GB"),
    ("nvidia.com/gpu.product", "NVIDIA-GeForce-RTX-3090-Ti", "RTX-3090-Ti-24GB"),
    ("nvidia.com/gpu.product", "NVIDIA-GeForce-RTX-2080-Ti", "RTX-2080-Ti-11GB"),
    ("nvidia.com/gpu.product", "NVIDIA-TITAN-RTX", "TITAN-RTX-24GB"),
    ("nvidia.com/gpu.product", "NVIDIA-RTX-PRO-4000-Blackwell", "RTX-PRO-4000-Blackwell-24GB"),
    ("nvidia.com/gpu.product", "NVIDIA-RTX-PRO-4500-Blackwell", "RTX-PRO-4500-Blackwell-32GB"),
    ("nvidia.com/gpu.product", "NVIDIA-RTX-PRO-5000-Blackwell", "RTX-PRO-5000-Blackwell-48GB"),
    ("nvidia.com/gpu.product", "NVIDIA-RTX-5000-Ada-Generation", "RTX-5000-Ada-32GB"),
    ("nvidia.com/gpu.product", "NVIDIA-RTX-4500-Ada-Generation", "RTX-4500-Ada-24GB"),
    ("nvidia.com/gpu.product", "NVIDIA-RTX-A2000-12GB", "RTX-A2000-12GB"),
    ("nvidia.com/gpu.product", "NVIDIA-H800-PCIe", "H800-PCIe-80GB"),
    # the 141 GB H20 refresh (NVML name "NVIDIA H20-3e"); the 96 GB H20 keeps its own
    ("nvidia.com/gpu.product", "NVIDIA-H20-3e", "H20-3e-141GB"),
    ("nvidia.com/gpu.product", "NVIDIA-H20", "H20-96GB"),
    ("machine.cluster.vke.volcengine.com/gpu-name", "Tesla-A100-80G", "A100-SXM4-80GB"),
    ("amd.com/gpu.product-name", "AMD_Radeon_RX_9070_XT", "RX-9070-XT-16GB"),
    ("amd.com/gpu.product-name", "AMD_Radeon_AI_PRO_R9700", "Radeon-AI-PRO-R9700-32GB"),
    ("amd.com/gpu.product-name", "AMD_Radeon_PRO_W7900", "Radeon-PRO-W7900-48GB"),
    # instance shapes: AWS G4dn and G7e, Nebius platforms
    ("node.kubernetes.io/instance-type", "g4dn.xlarge", "T4-16GB"),
    ("node.kubernetes.io/instance-type", "g7e.2xlarge", "RTX-PRO-6000-Blackwell-96GB"),
    ("node.kubernetes.io/instance-type", "gpu-h100-sxm", "H100-SXM-80GB"),
    ("node.kubernetes.io/instance-type", "gpu-l40s-d", "L40S-48GB"),
    # instance families (Karpenter, EKS Auto Mode): the GPU every shape of the family carries
    ("karpenter.k8s.aws/instance-family", "g6e", "L40S-48GB"),
    ("karpenter.k8s.aws/instance-family", "p4de", "A100-SXM4-80GB"),
    ("eks.amazonaws.com/instance-family", "g5", "A10G-24GB"),
]


def test_a_family_names_a_gpu_only_where_all_its_shapes_carry_it(monkeypatch):
    """A family all of whose shapes in instance_types.yaml carry one GPU names it; a family whose
    shapes differ, or that has none (m5), names nothing (the budget then asks for --gpu)."""
    from hbmlint.catalog import labels

    shapes = {
        "g6e.xlarge": {"gpu": "L40S-48GB"},
        "g6e.48xlarge": {"gpu": "L40S-48GB"},
        "x9.xlarge": {"gpu": "T4-16GB"},
        "x9.48xlarge": {"gpu": "A10G-24GB"},
    }
    real = labels._family_gpus()
    assert "m5" not in real and real["p5"] == "H100-SXM-80GB"
    monkeypatch.setattr(labels, "instance_types", lambda: shapes)
    labels._family_gpus.cache_clear()
    try:
        assert labels._family_gpus() == {"g6e": "L40S-48GB"}
    finally:
        labels._family_gpus.cache_clear()  # made again from the real table when next asked


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


def test_the_8_gb_and_16_gb_rtx_5060_ti_share_a_name_so_it_stays_unknown(tmp_path, rules):
    text = on_node("nvidia.com/gpu.product", "NVIDIA-GeForce-RTX-5060-Ti", ["--max-model-len=4096"])
    [unknown] = findings(lint(tmp_path, rules, text), "HBM005")
    assert "--gpu" in unknown.message


def test_a_bare_rtx_3080_is_budgeted_on_10_gb_and_only_warned_where_12_gb_would_fit(
    tmp_path, rules
):
    # Qwen3-4B in bf16 (7.5 GiB of weights) leaves no KV cache on the 10 GB card at vLLM's 0.9,
    # but about 10,000 tokens on the 12 GB one: an 8,192-token sequence fits only there
    args = ["--max-model-len=8192"]
    text = on_node("nvidia.com/gpu.product", "NVIDIA-GeForce-RTX-3080", args, model="Qwen/Qwen3-4B")
    result = lint(tmp_path, rules, text)
    [deployed] = result.deployments
    assert 9.7 < gib(deployed.budget.total) < 9.8
    [short] = findings(result, "HBM102")
    assert short.severity == Severity.WARNING
    assert "RTX-3080-10GB" in short.message and "does not say its memory size" in short.message
    # a card whose name says 12 GB gets no finding at all
    text = on_node("nvidia.com/gpu.product", "RTX-3080-12GB", args, model="Qwen/Qwen3-4B")
    assert not findings(lint(tmp_path, rules, text), "HBM102")
    # a sequence neither card can hold is an error on the bare name as well
    text = on_node(
        "nvidia.com/gpu.product",
        "NVIDIA-GeForce-RTX-3080",
        ["--max-model-len=16384"],
        model="Qwen/Qwen3-4B",
    )
    [short] = findings(lint(tmp_path, rules, text), "HBM102")
    assert short.severity == Severity.ERROR


def test_a_7b_model_in_bf16_does_not_fit_an_8_gb_rtx_4060(tmp_path, rules):
    # 14.19 GiB of weights against 0.9 x 7.62 GiB (PyTorch's total on Linux, not the 8188 MiB
    # nvidia-smi prints)
    text = on_node(
        "nvidia.com/gpu.product",
        "NVIDIA-GeForce-RTX-4060",
        ["--max-model-len=4096"],
        model="Qwen/Qwen2.5-7B-Instruct",
    )
    [finding] = findings(lint(tmp_path, rules, text), "HBM101")
    assert finding.severity == Severity.ERROR
    assert "6.86 GiB (90.0% of 7.62 GiB on RTX-4060-8GB)" in finding.message


def test_bfloat16_on_a_2080_ti_is_refused_as_on_any_turing_card(tmp_path, rules):
    text = on_node(
        "nvidia.com/gpu.product",
        "NVIDIA-GeForce-RTX-2080-Ti",
        ["--max-model-len=4096", "--dtype=bfloat16"],
    )
    [finding] = findings(lint(tmp_path, rules, text), "HBM306")
    assert finding.severity == Severity.ERROR
    assert "compute capability 7.5" in finding.message


@pytest.mark.parametrize(
    ("name", "low", "high"),
    [
        # PyTorch's total_memory on Linux, never nvidia-smi's MiB or the GB on the box
        ("NVIDIA-GeForce-RTX-5070-Ti", 15.3, 15.6),  # nvidia-smi 16303 MiB = 15.92 GiB
        ("NVIDIA-GeForce-RTX-4070", 11.6, 11.8),  # nvidia-smi 12282 MiB = 11.99 GiB
        ("NVIDIA-GeForce-RTX-3090-Ti", 23.5, 23.6),  # nvidia-smi 24564 MiB = 23.99 GiB
        ("AMD_Radeon_RX_9070_XT", 15.9, 16.0),  # ROCm reports nearly all of it
    ],
)
def test_consumer_cards_are_budgeted_below_what_nvidia_smi_shows(tmp_path, rules, name, low, high):
    label = "amd.com/gpu.product-name" if name.startswith("AMD") else "nvidia.com/gpu.product"
    result = lint(tmp_path, rules, on_node(label, name, ["--max-model-len=4096", "--dtype=half"]))
    [deployed] = result.deployments
    assert low < gib(deployed.budget.total) < high


def test_rdna4_has_fp8_and_the_datasheetless_cards_say_they_cannot_be_estimated():
    assert catalog.find_gpu("AMD-Radeon-RX-9070-XT").fp8
    assert not catalog.find_gpu("AMD-Radeon-PRO-W7900").fp8
    performance = catalog.find_gpu("NVIDIA-GeForce-RTX-5070-Ti").performance
    assert performance.memory_bandwidth is None and not performance.dense
    assert catalog.efficiency(catalog.find_gpu("RX-9070-XT").performance.family) is not None
