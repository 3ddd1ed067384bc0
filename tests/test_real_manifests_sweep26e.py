"""Patterns from public repositories hbmlint had never seen (sweep 26, part E): each test names
its source and says what a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"

SWEEP26E = {
    "kaito-workspace-accelerator-partition.yaml",
    "compose-tgi-quantize-awq-llama70b.yml",
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
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


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
