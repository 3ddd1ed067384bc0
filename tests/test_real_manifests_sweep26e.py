"""Patterns from public repositories hbmlint had never seen (sweep 26, part E): each test names
its source and says what a user sees."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"

SWEEP26E = {
    "kaito-workspace-accelerator-partition.yaml",
    "kaito-inferenceset-mig-partition.yaml",
    "compose-tgi-quantize-awq-llama70b.yml",
    "compose-solv-stack-build/docker-compose.vllm.yml",
    "compose-solv-stack-build/docker-compose.vllm.2.yml",
}
COVERED = SWEEP26E


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _lint(path: Path, rules, gpu: str | None = None, **options):
    return lint_file(
        path, path.name, rules, LintOptions(default_gpu=gpu, keep_budgets=True, **options)
    )


def _codes(result) -> list[tuple[str, Severity]]:
    return [(f.code, f.severity) for f in result.diagnostics]


def _line(path: Path, text: str) -> int:
    """The first line, not a comment, that holds ``text``."""
    lines = enumerate(path.read_text().splitlines(), 1)
    return next(i for i, line in lines if text in line and not line.lstrip().startswith("#"))


# --- KAITO's accelerator partition: Count whole GPUs ---------------------------------------------
# kaito-project/kaito examples/inference/kaito_workspace_accelerator.yaml @ 98ad8a9d (2026-08-02):
# `resource.partition: {mode: accelerator, count: 2}` on BYO nodes. KAITO scales the node's GPU
# config to the Count GPUs (pkg/workspace/inference/preset_inferences.go getGPUConfig ->
# sku.ScaleGPUConfigToCount) and sets vLLM's tensor-parallel-size to them when the model does not
# fit half of one GPU (pkg/model/interface.go configureParallelism). hbmlint budgeted 1 GPU at TP 1:
# a 32B preset on L40S was a false HBM101 error whose fix was what KAITO already does.
ACCELERATOR = REAL / "kaito-workspace-accelerator-partition.yaml"


def test_an_accelerator_partition_is_count_gpus_with_tensor_parallelism(rules):
    [item] = _lint(ACCELERATOR, rules, gpu="L4").deployments
    settings = item.budget.settings
    assert (settings.tensor_parallel, settings.pipeline_parallel) == (2, 1)
    assert "partition.count" in item.budget.assumed["tensor_parallel"]


def test_a_32b_preset_over_two_l40s_is_no_error(rules, tmp_path):
    path = tmp_path / "workspace.yaml"
    path.write_text(
        ACCELERATOR.read_text().replace("llama-3.1-8b-instruct", "qwen2.5-coder-32b-instruct")
    )
    result = _lint(path, rules, gpu="L40S")
    assert _codes(result) == [("HBM011", Severity.INFO)]  # the context KAITO fits at start
    # one GPU is still too few for it: the count read is what makes it fit
    one = tmp_path / "one.yaml"
    one.write_text(path.read_text().replace("count: 2", "count: 1"))
    [weights] = [f for f in _lint(one, rules, gpu="L40S").diagnostics if f.code == "HBM101"]
    assert weights.severity is Severity.ERROR
    assert weights.span.line == _line(one, "name: qwen2.5-coder-32b-instruct")


def test_without_a_gpu_the_warning_points_at_the_partition(rules):
    result = _lint(ACCELERATOR, rules)
    [unknown] = [f for f in result.diagnostics if f.code == "HBM005"]
    assert unknown.severity is Severity.WARNING
    assert unknown.span.line == _line(ACCELERATOR, "count: 2")


# --- KAITO's MIG partition: one slice ----------------------------------------------------------
# kaito-project/kaito examples/inference/kaito_inferenceset_mig_mixed_strategy.yaml @ 6dbb545d
# (2026-07-17): `partition: {mode: mig, profile: "2g.24gb"}`. KAITO sizes one GPU of the slice's
# memory (pkg/utils/common.go GetMIGGPUConfig) and refuses at admission a preset whose weights
# exceed it (api/v1beta1/workspace_validation.go validateMIGModelFit). hbmlint budgeted the whole
# card given by --gpu (KV cache 64.51 GiB for a 24 GB slice).
MIG = REAL / "kaito-inferenceset-mig-partition.yaml"


def test_a_mig_partition_is_budgeted_as_the_slice(rules):
    [item] = _lint(MIG, rules, gpu="H100").deployments
    budget = item.budget
    assert budget.resolved.gpu.name == "H100-SXM-80GB MIG 2g.24gb"
    assert 23 < budget.resolved.gpu.memory.to("GiB").magnitude < 24
    assert (budget.settings.tensor_parallel, budget.resolved.gpu_count) == (1, 1)


def test_without_a_gpu_the_warning_names_the_slice_at_the_profile(rules):
    [unknown] = [f for f in _lint(MIG, rules).diagnostics if f.code == "HBM005"]
    assert unknown.severity is Severity.WARNING
    assert unknown.span.line == _line(MIG, 'profile: "2g.24gb"')
    assert "MIG 2g.24gb slice" in unknown.message


def test_an_8b_preset_on_a_10_gb_slice_is_an_error(rules, tmp_path):
    # KAITO rejects it at admission ("requires at least ... for weights, which exceeds the
    # 1g.10gb MIG slice capacity"); hbmlint gave one info
    path = tmp_path / "inferenceset.yaml"
    text = MIG.read_text().replace("phi-4-mini-instruct", "llama-3.1-8b-instruct")
    path.write_text(text.replace("2g.24gb", "1g.10gb"))
    [weights] = [f for f in _lint(path, rules, gpu="H100").diagnostics if f.code == "HBM101"]
    assert weights.severity is Severity.ERROR
    assert "MIG 1g.10gb" in weights.message


# --- TGI --quantize awq on a bf16 checkpoint -----------------------------------------------------
# zaphodthebeebs/llm-playbook text-generation-inference/docker-compose.yml @ f64c35d8:
# `--model-id meta-llama/Llama-3.1-70B-Instruct ... --quantize awq` (and QUANTIZE=awq) on one GPU.
# TGI's AWQ loader reads the checkpoint's qweight tensors and raises "Cannot load `awq` weight,
# make sure the model is already quantized" (huggingface/text-generation-inference
# server/text_generation_server/layers/gptq/__init__.py @ db931fcf, from v1.1.0). hbmlint said
# "All clear" on an 80 GB card, budgeting the bf16 checkpoint as 4-bit weights.
TGI_AWQ = REAL / "compose-tgi-quantize-awq-llama70b.yml"


@pytest.mark.parametrize("gpu", [None, "A100-80GB", "RTX-4090"])
def test_tgi_quantize_awq_on_an_unquantized_checkpoint_is_an_error(rules, gpu):
    result = _lint(TGI_AWQ, rules, gpu=gpu)
    [refused] = [f for f in result.diagnostics if f.code == "HBM330"]
    assert refused.severity is Severity.ERROR
    assert refused.span.line == _line(TGI_AWQ, "- --quantize")  # the flag, which wins over env
    assert "Cannot load `awq` weight" in refused.message
    assert "meta-llama/Llama-3.1-70B-Instruct is not quantized" in refused.message
    if gpu == "A100-80GB":
        assert _codes(result) == [("HBM330", Severity.ERROR)]  # was "All clear"


def test_tgi_quantize_from_the_environment_alone_is_judged_at_it(rules, tmp_path):
    path = tmp_path / "docker-compose.yml"
    path.write_text(TGI_AWQ.read_text().replace("      - --quantize\n      - awq\n", ""))
    [refused] = [f for f in _lint(path, rules).diagnostics if f.code == "HBM330"]
    assert refused.span.line == _line(path, "QUANTIZE=awq")


@pytest.mark.parametrize("method", ["eetq", "bitsandbytes-nf4"])
def test_tgi_methods_that_quantize_on_load_are_not_judged(rules, tmp_path, method):
    path = tmp_path / "docker-compose.yml"
    path.write_text(TGI_AWQ.read_text().replace("awq", method))
    assert "HBM330" not in [f.code for f in _lint(path, rules, gpu="A100-80GB").diagnostics]


def test_tgi_awq_on_a_local_path_is_not_judged(rules, tmp_path):
    # a directory hbmlint takes for the catalog model by its name may hold an AWQ export
    path = tmp_path / "docker-compose.yml"
    text = TGI_AWQ.read_text().replace(
        "      - meta-llama/Llama-3.1-70B-Instruct\n", "      - /models/Llama-3.1-70B-Instruct\n"
    )
    path.write_text(text.replace("MODEL_ID=meta-llama/", "MODEL_ID=/models/"))
    assert "HBM330" not in [f.code for f in _lint(path, rules, gpu="A100-80GB").diagnostics]


# --- a compose service that builds its own vLLM image ------------------------------------------
# chnghia/solv-stack docker-compose.vllm.yml / docker-compose.vllm.2.yml @ 9387523 / 9800bd6a:
# `build: {context: ., dockerfile: vllm.Dockerfile}`, no `image:`, vLLM's flags in `command`; the
# Dockerfile ends in ENTRYPOINT ["python3", "-m", "vllm.entrypoints.openai.api_server"] (its
# .env.example saved as .env). hbmlint skipped both: "All clear, 0 deployments", no note.
SOLV = REAL / "compose-solv-stack-build"


def test_a_built_image_is_read_by_its_dockerfiles_entrypoint(rules):
    path = SOLV / "docker-compose.vllm.2.yml"
    result = _lint(path, rules, gpu="RTX-5090")
    [item] = result.deployments
    assert item.deployment.engine == "vllm"
    assert item.deployment.model.name == "/models/gemma-4-26b-a4b"
    # bf16 gemma-4-26b-a4b at 0.60 of a 32 GB card, hedged: the directory may hold another copy
    [weights] = [f for f in result.diagnostics if f.code == "HBM101"]
    assert weights.severity is Severity.WARNING
    assert weights.span.line == _line(path, "--model /models/gemma-4-26b-a4b")
    assert "HBM011" not in [f.code for f in result.diagnostics]  # the Dockerfile says it
    # the main service with the project's .env: Qwen2.5-7B at 8,192 tokens over 2 GPUs
    main = _lint(SOLV / "docker-compose.vllm.yml", rules, gpu="RTX-5090")
    assert [d.deployment.serving.max_model_len for d in main.deployments] == [8192]
    assert _codes(main) == []


def test_without_its_dockerfile_a_build_named_for_vllm_is_read_as_vllm_and_said(rules, tmp_path):
    path = tmp_path / "docker-compose.vllm.2.yml"
    shutil.copy(SOLV / "docker-compose.vllm.2.yml", path)
    result = _lint(path, rules, gpu="RTX-5090")
    assert len(result.deployments) == 1
    [said] = [f for f in result.diagnostics if f.code == "HBM011"]
    assert said.severity is Severity.INFO
    assert said.span.line == _line(path, "dockerfile: vllm.Dockerfile")
    assert "builds its own image from vllm.Dockerfile" in said.message
    assert ("HBM101", Severity.WARNING) in _codes(result)


def _project(tmp_path: Path, dockerfile: str | None, name: str = "vllm.Dockerfile") -> Path:
    path = tmp_path / "docker-compose.yml"
    shutil.copy(SOLV / "docker-compose.vllm.2.yml", path)
    path.write_text(path.read_text().replace("vllm.Dockerfile", name))
    if dockerfile is not None:
        (tmp_path / name).write_text(dockerfile)
    return path


def test_a_dockerfile_whose_entrypoint_is_a_script_is_an_info(rules, tmp_path):
    path = _project(
        tmp_path, 'FROM nvidia/cuda:13.0.2-devel-ubuntu24.04\nENTRYPOINT ["/start.sh"]\n'
    )
    result = _lint(path, rules, gpu="RTX-5090")
    assert result.deployments == []
    [info] = result.diagnostics
    assert (info.code, info.severity) == ("HBM014", Severity.INFO)
    assert '["/start.sh"]' in info.message
    assert info.span.line == _line(path, "dockerfile: vllm.Dockerfile")


def test_a_build_that_names_no_engine_is_an_info_not_silence(rules, tmp_path):
    path = _project(tmp_path, None, name="Dockerfile")
    result = _lint(path, rules, gpu="RTX-5090")
    assert result.deployments == []
    assert _codes(result) == [("HBM014", Severity.INFO)]
    assert "not beside the compose file" in result.diagnostics[0].message


def test_a_dockerfile_from_an_engine_image_keeps_its_entrypoint_and_release(rules, tmp_path):
    dockerfile = "FROM vllm/vllm-openai:v0.10.1\nRUN pip install flash-attn\n"
    path = _project(tmp_path, dockerfile, name="Dockerfile")
    [item] = _lint(path, rules, gpu="RTX-5090").deployments
    assert item.deployment.engine == "vllm"
    assert item.deployment.engine_version == "0.10.1"
