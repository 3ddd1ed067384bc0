"""Patterns from public repositories hbmlint had never seen (sweep 16): each fixture under
tests/fixtures/real/ names its source in its first lines; each test says what a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_lint import codes, line_of, lint

from hbmlint.diagnostics import Severity
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"

FLAG_AND_VALUE = REAL / "k8s-vllm-flag-and-value-one-item.yaml"
OWN_IMAGE = REAL / "k8s-vllm-own-image-args-only.yaml"

COVERED = {FLAG_AND_VALUE.name, OWN_IMAGE.name}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def test_a_flag_and_its_value_in_one_list_item_is_an_error_at_that_item(rules):
    # was silent about the item: TP read as 1, so a weights error whose fix was "raise tensor
    # parallelism to 4", while the manifest asks for 2 and the engine never reads it
    result = lint(FLAG_AND_VALUE, rules)
    [joined] = codes(result, "HBM004")
    assert joined.severity == Severity.ERROR
    assert joined.span.line == line_of(FLAG_AND_VALUE, "- --tensor-parallel-size 2")
    assert "'--tensor-parallel-size=2'" in joined.fixes[0]
    # read as meant: TP 2 on the pod's two L4s, so no idle-GPU warning; 32B in BF16 is 30.5 GiB
    # a GPU, more than an L4's usable 19.9 GiB (a true error either way)
    [deployment] = result.deployments
    assert deployment.deployment.parallel.tensor == 2
    assert codes(result, "HBM007") == []
    [weights] = codes(result, "HBM101")
    assert weights.severity == Severity.ERROR


def test_a_flag_with_its_value_after_an_equals_sign_is_one_argument_argparse_takes(rules, tmp_path):
    # argparse splits `--flag=value with spaces` at the `=`: no finding
    path = tmp_path / "deploy.yaml"
    path.write_text(
        FLAG_AND_VALUE.read_text().replace(
            "- --tensor-parallel-size 2 # run on two GPUs",
            "- --tensor-parallel-size=2\n            - --served-model-name=deepseek r1",
        )
    )
    result = lint(path, rules)
    assert codes(result, "HBM004") == []
    assert result.deployments[0].deployment.parallel.tensor == 2


def test_an_image_of_the_team_s_own_named_for_vllm_with_vllm_s_arguments_is_read(rules):
    # was "not a manifest hbmlint reads", nothing checked: here TP 2 on a pod of one GPU
    result = lint(OWN_IMAGE, rules)
    [deployment] = result.deployments
    assert deployment.deployment.engine == "vllm"
    assert deployment.deployment.parallel.tensor == 2
    [short] = codes(result, "HBM007")
    assert short.severity == Severity.ERROR
    # the assumption is said, at the image, with how to make it explicit
    [assumed] = codes(result, "HBM011")
    assert assumed.severity == Severity.INFO
    assert "vllm-gemma4:local" in assumed.message
    assert assumed.span.line == line_of(OWN_IMAGE, "image: docker.io/library/vllm-gemma4")


@pytest.mark.parametrize(
    ("image", "read"),
    [
        ("registry.example.com/ai/vllm:0.9.1", True),
        ("inferex-vllm:latest", True),
        # other programs and other devices' builds named for vLLM
        ("ghcr.io/vllm-project/vllm-router:latest", False),
        ("ghcr.io/llm-d/vllm-sim:v0.1", False),
        ("registry.example.com/vllm-cpu:latest", False),
        ("quay.io/ascend/vllm-ascend:v0.10.0", False),
        ("rocm/vllm-dev:nightly", False),
        # an image named for something else
        ("registry.example.com/ai/llm-server:1.0", False),
    ],
)
def test_which_images_of_one_s_own_are_taken_to_run_vllm(rules, tmp_path, image, read):
    path = tmp_path / "deploy.yaml"
    path.write_text(OWN_IMAGE.read_text().replace("docker.io/library/vllm-gemma4:local", image))
    result = lint(path, rules)
    assert bool(result.deployments) is read


def test_without_vllm_s_model_flag_the_image_is_not_taken_to_run_vllm(rules, tmp_path):
    # SGLang's --model-path, or a wrapper's own flags: the image's entrypoint could be anything
    path = tmp_path / "deploy.yaml"
    path.write_text(OWN_IMAGE.read_text().replace('"--model"', '"--model-path"'))
    assert lint(path, rules).deployments == []


def test_a_compose_service_on_an_image_of_its_own_named_for_vllm(rules, tmp_path):
    path = tmp_path / "compose.yaml"
    path.write_text(
        "services:\n"
        "  llm:\n"
        "    image: registry.example.com/ai/vllm:0.9.1\n"
        "    command: --model Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2\n"
        "    deploy:\n"
        "      resources:\n"
        "        reservations:\n"
        "          devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]\n"
    )
    result = lint(path, rules, "L4")
    assert [d.deployment.parallel.tensor for d in result.deployments] == [2]
    assert [f.severity for f in codes(result, "HBM007")] == [Severity.ERROR]
    assert len(codes(result, "HBM011")) == 1


HAMI = REAL / "k8s-vllm-hami-vgpu-memory.yaml"
COVERED.add(HAMI.name)


def test_a_hami_vgpu_share_is_the_memory_the_engine_sizes_itself_by(rules, tmp_path):
    # HAMi-core reports the share as the device's total: 90% of 24000 MiB, not of 80 GB
    [deployment] = lint(HAMI, rules).deployments
    budget = deployment.budget
    assert round(budget.total.to("MiB").magnitude) == 24000
    assert "HAMi" in budget.assumed["gpu"]
    assert deployment.deployment.locations["gpu.memory"].line == line_of(
        HAMI, "nvidia.com/gpumem: 24000"
    )
    # a 14B model's weights (27.5 GiB) do not fit the share, though they fit the card
    bigger = tmp_path / "bigger.yaml"
    bigger.write_text(HAMI.read_text().replace("Qwen2.5-7B", "Qwen2.5-14B"))
    [weights] = codes(lint(bigger, rules), "HBM101")
    assert weights.severity == Severity.ERROR and "vGPU" in weights.message
    # a percentage share: half the card
    half = tmp_path / "half.yaml"
    half.write_text(
        HAMI.read_text().replace("nvidia.com/gpumem: 24000", "nvidia.com/gpumem-percentage: 50")
    )
    [shared] = lint(half, rules).deployments
    assert "50%" in shared.budget.assumed["gpu"]
    assert 38 < shared.budget.total.to("GiB").magnitude < 40  # half of the card's 79.2 GiB


def test_an_environment_assignment_among_vllm_s_arguments_is_an_error(rules, tmp_path):
    """LMCache/LMBench helm_configurations/hardware/8A100-TP2.yaml: `extraArgs:
    [--tensor-parallel-size, "2", "CUDA_VISIBLE_DEVICES=0,1"]`. The chart passes each item as
    an argument; vLLM's parser takes no such word and exits (unrecognized arguments)."""
    path = tmp_path / "values.yaml"
    path.write_text(
        "servingEngineSpec:\n  modelSpec:\n  - name: llama\n    repository: vllm/vllm-openai\n"
        "    tag: v0.10.0\n    modelURL: meta-llama/Llama-3.1-8B-Instruct\n    requestGPU: 2\n"
        "    vllmConfig:\n"
        "      extraArgs: [--tensor-parallel-size, '2', 'CUDA_VISIBLE_DEVICES=0,1']\n"
    )
    result = lint(path, rules, "A100-80GB")
    [stray] = codes(result, "HBM004")
    assert stray.severity == Severity.ERROR and "CUDA_VISIBLE_DEVICES=0,1" in stray.message
    assert result.deployments[0].deployment.parallel.tensor == 2
    # the same word as the value of a flag hbmlint does not know is no finding
    path.write_text(path.read_text().replace("'CUDA_VISIBLE_DEVICES=0,1'", "--foo, 'BAR=1'"))
    assert codes(lint(path, rules, "A100-80GB"), "HBM004") == []
