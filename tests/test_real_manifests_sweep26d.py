"""How public manifests name their GPU (sweep 26, part D: node labels, device-plugin resources,
Slurm gres types): each test names its source and says what a user sees, the GPU hbmlint
settles on, and the code, severity and message of what it finds."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from format_helpers import budgets, findings, run

REAL = Path(__file__).parent / "fixtures" / "real"

COVERED = {
    "kubeai-eks-a100-80gb-profile.yaml",
    "k8s-nrp-gpu-memory-label-qwen3-coder.yaml",
    "k8s-nrp-nvidia-a100-resource-vllm-sidecar.yaml",
    "slurm-nus-h100-96-llama8b.sh",
    "slurm-nus-h100-47-as-submitted.sh",
    "slurm-gres-80g-r1-distill-32b.sh",
}


@pytest.fixture
def real(tmp_path):
    """A copy of a fixture in a temporary directory (no configuration file above it)."""

    def copy(name: str) -> Path:
        target = tmp_path / name
        shutil.copy(REAL / name, target)
        return target

    return copy


def gib(budget: dict) -> float:
    return round(budget["total_bytes"] / 2**30, 2)


# --- a memory label narrows a name that stands for two parts ----------------------------------
# substratusai/kubeai charts/kubeai/values-eks.yaml @ 2f32ef49: the nvidia-gpu-a100-80gb profile
# selects karpenter.k8s.aws/instance-gpu-name "a100" and instance-gpu-memory "81920" (MiB), which
# only the 80 GB A100 (p4de) carries. hbmlint read "a100" alone as the 40 GB part and said the
# 61 GiB of Qwen3-32B weights did not fit (HBM101), asking for a node label the pod already had.


def test_karpenter_gpu_memory_selects_the_80_gb_a100(real):
    path = real("kubeai-eks-a100-80gb-profile.yaml")
    model, pod = budgets(path)
    assert (model["gpu"], gib(model)) == ("A100-SXM4-80GB", 79.15)
    assert (pod["gpu"], gib(pod)) == ("A100-SXM4-80GB", 79.15)
    assert pod["assumed"]["gpu"] == (
        "A100-SXM4-80GB ('a100' names no memory size, and karpenter.k8s.aws/instance-gpu-memory: "
        "81920 (MiB) selects the 80 GB part)"
    )
    assert findings(path) == []  # was HBM101 (warning) on the A100-SXM4-40GB


def test_the_40_gb_profile_stays_on_the_40_gb_a100(real):
    path = real("kubeai-eks-a100-80gb-profile.yaml")
    path.write_text(path.read_text().replace('"81920"', '"40960"'))
    pod = budgets(path)[1]
    assert (pod["gpu"], gib(pod)) == ("A100-SXM4-40GB", 39.56)
    [weights] = [f for f in findings(path) if f["code"] == "HBM101"]
    assert weights["severity"] == "error"  # the memory label says which part: no doubt left


# --- a memory label that is a card's nvidia-smi total -----------------------------------------
# martinfrasch/llu-agentic-coding README.md @ e6095459 (reconstructed from its "Infrastructure"
# lines: the manifest is not public): vLLM v0.18.1 on NRP Nautilus with nodeSelector
# nvidia.com/gpu.memory: "81920" ("80GB A100 only"). GPU feature discovery writes NVML's total;
# the engine sees the card's 79.15 GiB, not 80.00 GiB.


def test_gfd_gpu_memory_is_the_cards_reported_memory(real):
    path = real("k8s-nrp-gpu-memory-label-qwen3-coder.yaml")
    [budget] = budgets(path)
    assert gib(budget) == 79.15  # was 80.00
    assert budget["assumed"]["gpu"] == (
        "79.15 GiB each (nvidia.com/gpu.memory: 81920 (MiB) is the nvidia-smi total of the "
        "A100-SXM4-80GB, which reports 79.15 GiB to the engine)"
    )
    # the README gives no --max-model-len: vLLM's default for the model (262,144) does not fit
    # one 80 GB card, as hbmlint says (an artifact of the reconstruction, not of the GPU)
    assert [(f["code"], f["severity"]) for f in findings(path)] == [("HBM102", "error")]


# --- a GPU resource of another name than nvidia.com/gpu ---------------------------------------
# l1joseph/knightGPT k8s/nrp/ingestion-job.yaml @ 312e12fa: vLLM v0.26.0 as a native sidecar
# asking NRP Nautilus for nvidia.com/a100: 1 (NRP's user docs list nvidia.com/a40, a100,
# rtxa6000, rtx8000, gh200). hbmlint said "the container requests no GPU either (no
# nvidia.com/gpu limit)", which is false: NRP gives it an A100.
NRP_A100 = "k8s-nrp-nvidia-a100-resource-vllm-sidecar.yaml"
# the sidecar's embedding model is not in the catalog (the Hub is not reached in tests): its
# base model stands in for it
GTE_BASE = ("--set", "model.name=Qwen/Qwen2-7B-Instruct")


def budgets_as_set(path: Path, *options: str) -> list[dict]:
    """`hbmlint budget --format json --set ...`: the budgets as set."""
    return json.loads(run("budget", "--format", "json", *options, path).output)["after"]


def test_an_nvidia_resource_named_for_a_gpu_is_that_gpu(real):
    path = real(NRP_A100)
    [budget] = budgets_as_set(path, *GTE_BASE)
    assert (budget["gpu"], budget["gpu_count"]) == ("A100-SXM4-40GB", 1)
    # NRP has both A100s under the one name: the 40 GB part, and a refusal only it would make
    # is a warning
    assert "'a100' names no memory size" in budget["assumed"]["gpu"]
    assert findings(path, *GTE_BASE) == []
    # as written (the model unreadable offline): no word of a GPU not requested
    assert all("requests no GPU" not in f["message"] for f in findings(path))


def test_a_resource_of_the_clusters_own_is_said_not_denied(real):
    path = real(NRP_A100)
    path.write_text(path.read_text().replace("nvidia.com/a100: 1", "nvidia.com/rtx8000: 1"))
    [unknown] = [f for f in findings(path, *GTE_BASE) if f["code"] == "HBM005"]
    assert unknown["severity"] == "warning"
    assert "requests no GPU" not in unknown["message"]
    assert (
        "the container asks for nvidia.com/rtx8000 rather than nvidia.com/gpu, the name of a GPU "
        "resource of its cluster's own, which does not say a model hbmlint knows"
    ) in unknown["message"]


def test_a_time_sliced_gpu_is_a_whole_cards_memory_shared(real):
    # NVIDIA's device plugin with time-slicing or MPS and renameByDefault: nvidia.com/gpu.shared
    path = real(NRP_A100)
    text = path.read_text().replace("nvidia.com/a100: 1", "nvidia.com/gpu.shared: 1")
    path.write_text(text)
    [unknown] = [f for f in findings(path, *GTE_BASE) if f["code"] == "HBM005"]
    assert "the container asks for nvidia.com/gpu.shared, a share of a GPU" in unknown["message"]
    assert "requests no GPU" not in unknown["message"]
    path.write_text(
        text.replace(
            "      restartPolicy: Never\n",
            "      restartPolicy: Never\n"
            "      nodeSelector: {nvidia.com/gpu.product: NVIDIA-L40S}\n",
        )
    )
    [budget] = budgets_as_set(path, *GTE_BASE)
    assert budget["gpu"] == "L40S-48GB"
    assert budget["assumed"]["gpu"] == (
        "L40S-48GB, all of its memory (nvidia.com/gpu.shared: a time-sliced or MPS share of the "
        "card: its memory is not split, and other pods on it use it too)"
    )


# --- Slurm gres types that name a memory size --------------------------------------------------
# A university cluster's scripts (code index files 15384403471, 15424472095): gres types h100-96
# (the whole card), h100-47 (a 47 GB MIG slice of it), and, in others of its files, h200-141 and
# a100-80. hbmlint read "h100" in the #SBATCH line as a comment and offered --gpu H100-SXM-80GB,
# 80 GB for a 47 GB slice: a budget that passes models the slice cannot hold.


def test_a_gres_type_naming_a_slice_never_offers_the_whole_card(real):
    path = real("slurm-nus-h100-47-as-submitted.sh")
    [unknown] = findings(path)
    assert (unknown["code"], unknown["severity"]) == ("HBM005", "warning")
    assert unknown["message"] == (
        "the manifest names no GPU type; the Slurm job asks for GPUs of gres type 'h100-47', by "
        "its name a 47 GB share of an H100 (the catalog's H100-SXM-80GB has 80 GB; sites name "
        "MIG slices so), which hbmlint cannot budget from a site's name; run hbmlint with --set "
        "gpu.memory=47GB (the slice's size as named; a slice reports somewhat less to the "
        "engine), not with a --gpu of the whole card"
    )
    assert unknown["fixes"] == []  # was: Run with --gpu H100-SXM-80GB
    # the way it gives: a budget on the slice's size
    [budget] = budgets_as_set(path, "--set", "gpu.memory=47GB")
    assert budget["total_bytes"] == 47 * 10**9


def test_a_gres_type_naming_a_larger_card_offers_a_smaller_one(real):
    path = real("slurm-nus-h100-96-llama8b.sh")
    [unknown] = findings(path)
    assert (unknown["code"], unknown["severity"]) == ("HBM005", "warning")
    assert "gres type 'h100-96', by its name a card of 96 GB" in unknown["message"]
    assert (
        "run hbmlint with --gpu H100-SXM-80GB (less memory than the card named)"
        in (unknown["message"])
    )


@pytest.mark.parametrize(
    "gres, gpu",
    [
        ("a100-80", "A100-SXM4-80GB"),
        ("a100-40", "A100-SXM4-40GB"),
        ("h200-141", "H200-SXM-141GB"),
        # Mila's 80 GB A100s (mila-iqia/mila-docs docs/Information_nodes.md: "DGX A100 with 80GB
        # GPUs ... --gres=gpu:a100l:<number>")
        ("a100l", "A100-SXM4-80GB"),
    ],
)
def test_a_gres_type_with_the_model_and_its_size_is_that_card(real, gres, gpu):
    path = real("slurm-nus-h100-96-llama8b.sh")
    path.write_text(path.read_text().replace("gpu:h100-96:1", f"gpu:{gres}:1"))
    [budget] = budgets(path)
    assert budget["gpu"] == gpu
    assert findings(path) == []


def test_a_gres_type_naming_only_a_memory_size_says_so(real):
    # claireg808/NLP_knowledge_graph run.sh @ 5f211acf: --gres=gpu:80g:1, DeepSeek-R1-Distill-
    # Qwen-32B at 35,904 tokens; the message said nothing of the 80g it could read
    path = real("slurm-gres-80g-r1-distill-32b.sh")
    [unknown] = findings(path)
    assert (unknown["code"], unknown["severity"]) == ("HBM005", "warning")
    assert (
        "the Slurm job asks for GPUs of gres type '80g', a GPU named by its memory (80 GB), not "
        "by its model"
    ) in unknown["message"]
    # on an 80 GB card it fits
    assert findings(path, "--gpu", "A100-80GB") == []


# --- names in real use that say one card (probes: one-label Deployments; each spelling's source
# is named) -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key, value, gpu",
    [
        # CoreWeave's model label (CoreWeave release notes: "the gpu.nvidia.com/model label
        # selector A100_PCIE_80GB"; llm-d-benchmark: gpu.nvidia.com/model:H200)
        ("gpu.nvidia.com/model", "A100_PCIE_80GB", "A100-SXM4-80GB"),
        ("gpu.nvidia.com/model", "H200", "H200-SXM-141GB"),
        # AWS P6e-GB200 UltraServers' instance (wxsms/dynamo recipes/glm-5-nvfp4:
        # "p6e-gb200.36xlarge (arm64, 4 GB200 ...)")
        ("node.kubernetes.io/instance-type", "p6e-gb200.36xlarge", "GB200-186GB"),
        # GPU feature discovery on a time-sliced card (NVIDIA GPU operator docs:
        # "nvidia.com/gpu.product = A100-SXM4-40GB-SHARED")
        ("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB-SHARED", "A100-SXM4-40GB"),
    ],
)
def test_a_label_naming_one_card_is_that_card(tmp_path, key, value, gpu):
    path = tmp_path / "probe.yaml"
    path.write_text(PROBE.format(key=key, value=value))
    [budget] = budgets(path)
    assert budget["gpu"] == gpu
    assert [f["code"] for f in findings(path)] == []


def test_a_shared_product_label_says_the_memory_is_shared(tmp_path):
    path = tmp_path / "probe.yaml"
    path.write_text(PROBE.format(key="nvidia.com/gpu.product", value="NVIDIA-L40S-SHARED"))
    [budget] = budgets(path)
    assert budget["assumed"]["gpu"] == (
        "L40S-48GB (nvidia.com/gpu.product: NVIDIA-L40S-SHARED, a time-sliced or MPS share of "
        "the card: its memory is not split, and other pods on it use it too)"
    )


def test_skypilots_rtx_pro_6000_name_is_the_blackwell_card(tmp_path):
    # SkyPilot's accelerator name (skypilot-org/skypilot's OCI catalog fetcher test maps the
    # BM.GPU.RTXPRO.8 shape to 'RTXPRO6000'); was "unknown GPU type 'RTXPRO6000'"
    path = tmp_path / "sky.yaml"
    path.write_text(
        "resources:\n  accelerators: RTXPRO6000:1\n"
        "run: |\n  vllm serve Qwen/Qwen3-8B --max-model-len 32768\n"
    )
    [budget] = budgets(path)
    assert (budget["gpu"], round(budget["total_bytes"] / 2**30, 2)) == (
        "RTX-PRO-6000-Blackwell-96GB",
        94.97,
    )


PROBE = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: probe}}
spec:
  template:
    spec:
      nodeSelector:
        {key}: "{value}"
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.11.0
        args: ["--model", "Qwen/Qwen3-8B", "--max-model-len", "32768"]
        resources:
          limits:
            nvidia.com/gpu: 1
"""
