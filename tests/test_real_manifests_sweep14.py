"""Patterns from public repositories hbmlint had never seen (sweep 14): each fixture under
tests/fixtures/real/ names its source in its first lines; each test says what a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_lint import codes, errors, line_of, lint

from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"

AKAMAS = REAL / "k8s-vllm-akamas-dotted-placeholders.yaml"
MM_PROCESSOR = REAL / "shell-dynamo-multimodal-processor.sh"
G7E = REAL / "dgd-vllm-g7e-instance-type.yaml"
CONNECTORS = REAL / "shell-dynamo-vllm-connector-list.sh"

COVERED = {AKAMAS.name, MM_PROCESSOR.name, G7E.name, CONNECTORS.name}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def test_dotted_template_parameters_are_placeholders_not_bad_values(rules):
    # was HBM004 x6 "'${vLLM.max_model_len}' is not a whole number" (and "is not true or false"
    # for the switches): a tuning study fills these in before the manifest is applied
    result = lint(AKAMAS, rules)
    assert errors(result) == []
    notes = {n.span.line: n.message for n in codes(result, "HBM011")}
    assert "template placeholder (${vLLM.max_model_len})" in notes[line_of(AKAMAS, "max-model-len")]
    assert "${vLLM.enforce_eager}" in notes[line_of(AKAMAS, "enforce-eager")]
    # the rest of the command is still read: the model is budgeted on the node's A10G
    [found] = result.deployments
    assert found.deployment.model.name == "Qwen/Qwen2.5-7B-Instruct"
    assert found.budget.resolved.gpu.name == "A10G-24GB"


def test_an_undotted_bad_value_is_still_an_error(rules, tmp_path):
    # the contrast: a literal that is no number stays an error the engine would raise
    path = tmp_path / "deploy.yaml"
    path.write_text(AKAMAS.read_text().replace("${vLLM.max_model_len}", "32k tokens"))
    assert any("--max-model-len" in e for e in errors(lint(path, rules)))


def test_dynamo_multimodal_processor_is_not_budgeted_as_a_model_on_one_gpu(rules):
    # was HBM101 with --gpu H100: "weights need 372.57 GiB per GPU" for the processor, which
    # builds a tokenizer and no engine; the worker that holds the model (TP 8) is budgeted
    result = lint(MM_PROCESSOR, rules, gpu="H100")
    assert errors(result) == []
    [note] = [n for n in codes(result, "HBM011") if "--multimodal-processor" in n.message]
    assert note.span.line == line_of(MM_PROCESSOR, "dynamo.vllm --multimodal-processor")
    assert "not budgeted" in note.message
    [found] = result.deployments
    assert found.deployment.parallel.tensor == 8
    assert found.deployment.model.name == "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8"


def test_dynamo_sglang_encode_worker_is_not_budgeted(rules, tmp_path):
    path = tmp_path / "mm.sh"
    model = "--model-path Qwen/Qwen2.5-VL-72B-Instruct"
    path.write_text(
        "#!/bin/bash\n"
        f"python3 -m dynamo.sglang --multimodal-encode-worker {model} &\n"
        f"python3 -m dynamo.sglang --multimodal-worker {model} --tp 4 &\n"
        "wait\n"
    )
    result = lint(path, rules, gpu="H100")
    assert errors(result) == []
    [found] = result.deployments
    assert found.deployment.parallel.tensor == 4
    assert any("--multimodal-encode-worker" in n.message for n in codes(result, "HBM011"))


def test_g7e_instance_types_name_the_rtx_pro_6000(rules):
    # was HBM005 "the manifest names no GPU type" on both workers of the g7e.12xlarge graph
    result = lint(G7E, rules)
    assert codes(result, "HBM005") == []
    assert errors(result) == []
    workers = {d.deployment.name: d.budget.resolved for d in result.deployments}
    assert set(workers) == {"vllm-disagg/VllmDecodeWorker", "vllm-disagg/VllmPrefillWorker"}
    for resolved in workers.values():
        assert resolved.gpu.name == "RTX-PRO-6000-Blackwell-96GB"
        assert resolved.gpu_count == 1


def test_dynamo_connector_list_is_no_model(rules):
    # was HBM006 "model 'nixl' is not in hbmlint's catalog" on the prefill worker: the last
    # connector of `--connector kvbm nixl` taken for the positional model
    result = lint(CONNECTORS, rules, gpu="L4")
    assert codes(result, "HBM006") == []
    assert [d.deployment.model.name for d in result.deployments] == ["Qwen/Qwen3-0.6B"] * 2
