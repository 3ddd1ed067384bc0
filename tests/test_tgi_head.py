"""TGI's LM head as its server holds it (engines.yaml ``tgi``: tied_head_own_copy,
head_quantized_before): a tied model keeps the table twice, and through 2.1 --quantize
bitsandbytes-nf4 / -fp4 and fp8 quantize the head too. Expected bytes are worked out from the
model's config.json here, not read back from hbmlint."""

from __future__ import annotations

import pytest

from hbmlint.lint import lint_file
from hbmlint.rules import load_rules

GIB = 2**30


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def budget_of(tmp_path, rules, engine_lines: str, model: str, gpus: int = 1):
    text = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: tgi}\nspec:\n  template:\n"
        "    spec:\n      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}\n"
        "      containers:\n      - name: tgi\n" + engine_lines + "        env:\n"
        f"        - {{name: MODEL_ID, value: {model}}}\n"
        f"        - {{name: NUM_SHARD, value: '{gpus}'}}\n"
        f"        resources: {{limits: {{nvidia.com/gpu: '{gpus}'}}}}\n"
    )
    path = tmp_path / "tgi.yaml"
    path.write_text(text, encoding="utf-8")
    [deployment] = lint_file(path, "tgi.yaml", rules).deployments
    return deployment.budget


def image(tag: str, quantize: str | None = None) -> str:
    lines = f"        image: ghcr.io/huggingface/text-generation-inference:{tag}\n"
    if quantize:
        lines += f"        args: [--quantize, {quantize}]\n"
    return lines


def vllm_image() -> str:
    return "        image: vllm/vllm-openai:v0.11.0\n        args: [--model, $(MODEL_ID)]\n"


def test_a_tied_model_holds_its_embedding_twice_on_tgi(tmp_path, rules):
    # Llama 3.2 3B ties its head to the embedding (128,256 x 3,072); TGI's flash_llama loads the
    # head from model.embed_tokens as a tensor of its own: 0.73 GiB more than vLLM holds
    model = "meta-llama/Llama-3.2-3B-Instruct"
    tgi = budget_of(tmp_path, rules, image("3.3.4"), model)
    vllm = budget_of(tmp_path, rules, vllm_image(), model)
    extra = (tgi.weights - vllm.weights).to("byte").magnitude
    assert extra == pytest.approx(128256 * 3072 * 2, rel=1e-6)
    assert "own copy of the tied embedding" in tgi.assumed["weights"]


def test_through_2_1_nf4_quantizes_the_head_and_from_2_2_it_stays_bfloat16(tmp_path, rules):
    # Llama 3.1 8B at TP 1: the head is 128,256 x 4,096; 2.1.1 builds it in NF4 (0.5159 B a
    # parameter, double-quantized), 2.2.0 as a FastLinear in bfloat16
    model = "meta-llama/Llama-3.1-8B-Instruct"
    old = budget_of(tmp_path, rules, image("2.1.1", "bitsandbytes-nf4"), model)
    new = budget_of(tmp_path, rules, image("2.2.0", "bitsandbytes-nf4"), model)
    saved = (new.weights - old.weights).to("byte").magnitude
    assert saved == pytest.approx(128256 * 4096 * (2 - (0.5 + (1 + 4 / 256) / 64)), rel=1e-6)
    assert "LM head" not in new.assumed.get("weights", "")


def test_through_2_1_fp8_quantizes_the_head(tmp_path, rules):
    # get_linear(weight, bias, "fp8") makes the head an Fp8Linear: 1 byte a parameter
    model = "meta-llama/Llama-3.1-8B-Instruct"
    old = budget_of(tmp_path, rules, image("2.1.1", "fp8"), model)
    new = budget_of(tmp_path, rules, image("2.2.0", "fp8"), model)
    saved = (new.weights - old.weights).to("byte").magnitude
    assert saved == pytest.approx(128256 * 4096 * (2 - 1), rel=1e-6)


def test_awq_keeps_the_head_in_the_model_dtype_in_every_release(tmp_path, rules):
    # "GPTQ,AWQ,EETQ don't quantize heads": an untied AWQ model weighs the same in 2.1 and 2.2
    model = "hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4"
    old = budget_of(tmp_path, rules, image("2.1.1", "awq"), model)
    new = budget_of(tmp_path, rules, image("2.2.0", "awq"), model)
    assert old.weights == new.weights
