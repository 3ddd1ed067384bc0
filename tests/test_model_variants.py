"""Quantized uploads and copies of catalog models, read from their repository names where the
Hub cannot be read (the tests run with HF_HUB_OFFLINE=1: conftest.py)."""

from __future__ import annotations

import textwrap

from hbmlint.catalog.variants import variant
from hbmlint.lint import lint_paths
from hbmlint.rules import load_rules


def kubernetes(model: str, gpu: str = "NVIDIA-L4", extra: str = "") -> str:
    return textwrap.dedent(f"""\
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: served
        spec:
          template:
            spec:
              nodeSelector:
                nvidia.com/gpu.product: {gpu}
              containers:
                - name: vllm
                  image: vllm/vllm-openai:latest
                  args: ["--model", "{model}", "--max-model-len", "8192"{extra}]
                  resources:
                    limits:
                      nvidia.com/gpu: 1
        """)


def lint(tmp_path, text: str, name: str = "deploy.yaml"):
    path = tmp_path / name
    path.write_text(text)
    rules, _ = load_rules()
    [result] = lint_paths([str(path)], rules)
    return result


def test_a_quantized_upload_is_budgeted_as_its_base_with_that_quantization(tmp_path):
    upload = lint(tmp_path, kubernetes("Qwen/Qwen3-32B-AWQ"), "upload.yaml")
    assert [d.code for d in upload.diagnostics if d.code == "HBM015"] == []
    [deployment] = upload.deployments
    # the same deployment of the catalog's Qwen3-32B with --quantization awq
    base = lint(tmp_path, kubernetes("Qwen/Qwen3-32B", extra=', "--quantization", "awq"'))
    [written] = base.deployments
    assert deployment.budget.weights == written.budget.weights
    assert deployment.budget.kv_tokens == written.budget.kv_tokens
    assumed = deployment.budget.assumed["model"]
    assert assumed.startswith("Qwen/Qwen3-32B with AWQ 4-bit weights, read from the name")
    assert "hbmlint models pull Qwen/Qwen3-32B-AWQ" in assumed


def test_a_70b_awq_upload_on_one_l4_is_checked_offline(tmp_path):
    # 70B parameters at about half a byte each do not fit a 22 GiB card: an error, where the
    # Hub being out of reach used to leave only a "cannot check" warning
    result = lint(tmp_path, kubernetes("hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4"))
    codes = {d.code: d for d in result.diagnostics}
    assert "HBM015" not in codes
    assert codes["HBM101"].severity.name == "ERROR"
    # 70.6 B parameters: the linear layers at 4 bits with a scale and zero per 128, the
    # embeddings and lm_head in 16 bits
    [deployment] = result.deployments
    assert 35 < deployment.budget.weights.to("GiB").magnitude < 40


def test_names_the_suffix_and_the_catalog_decide():
    fp8 = variant("RedHatAI/Llama-3.1-8B-Instruct-FP8")
    assert fp8 is not None and fp8.base == "meta-llama/Llama-3.1-8B-Instruct"
    assert fp8.config["quantization_config"] == {"quant_method": "fp8"}
    gptq8 = variant("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8")
    assert gptq8 is not None and gptq8.config["quantization_config"]["bits"] == 8
    w4a16 = variant("RedHatAI/Qwen2.5-7B-Instruct-quantized.w4a16")
    assert w4a16 is not None and w4a16.weights == "INT4 (W4A16)"
    copy = variant("unsloth/Qwen3-8B")
    assert copy is not None and copy.base == "Qwen/Qwen3-8B" and copy.weights == ""
    # community AWQ uploads spell the suffix -AWQ-4bit or _AWQ (cpatonn/, jakiAJK/ on the Hub)
    awq = variant("cpatonn/Qwen3-30B-A3B-Instruct-2507-AWQ-4bit")
    assert awq is not None and awq.base == "Qwen/Qwen3-30B-A3B-Instruct-2507"
    assert awq.weights == "AWQ 4-bit"
    underscore = variant("jakiAJK/DeepSeek-R1-Distill-Qwen-7B_AWQ")
    assert underscore is not None and underscore.base == "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B"
    # ... and -AWQ-8bit their 8-bit weights (compressed-tensors W8A16), -Int8-W8A16 too
    awq8 = variant("cpatonn/Qwen3-30B-A3B-Instruct-2507-AWQ-8bit")
    assert awq8 is not None and awq8.weights == "AWQ 8-bit (W8A16)"
    groups = awq8.config["quantization_config"]["config_groups"]
    assert groups["group_0"]["weights"]["num_bits"] == 8
    # llm-compressor's FP4 uploads name their scheme too (ggamecrazy/Qwen3-32B-NVFP4-W4A4)
    nvfp4 = variant("ggamecrazy/Qwen3-32B-NVFP4-W4A4")
    assert nvfp4 is not None and (nvfp4.base, nvfp4.weights) == ("Qwen/Qwen3-32B", "NVFP4")
    mxfp4 = variant("ggamecrazy/Qwen3-32B-MXFP4-W4A4")
    assert mxfp4 is not None and mxfp4.weights == "MXFP4"
    w8a16 = variant("okwinds/Qwen3-Coder-30B-A3B-Instruct-Int8-W8A16")
    assert w8a16 is not None and w8a16.base == "Qwen/Qwen3-Coder-30B-A3B-Instruct"
    assert w8a16.weights == "INT8 (W8A16)"
    # a name that leaves no single catalog model, or no base at all, says nothing
    assert variant("acme/my-finetune-AWQ") is None
    assert variant("Qwen/Qwen3-8B-EXL2") is None  # a suffix no publisher convention here names
    # AMD Quark's "-FP8-KV" uploads are FP8 weights (the KV cache dtype stays the manifest's)
    quark = variant("amd/Llama-3.1-70B-Instruct-FP8-KV")
    assert quark is not None and quark.base == "meta-llama/Llama-3.1-70B-Instruct"
    assert quark.config["quantization_config"] == {"quant_method": "fp8"}
    assert variant("/models/Qwen3-8B-AWQ") is None


def test_a_local_path_named_after_a_quantized_upload_is_read_from_that_name(tmp_path):
    # vLLM serving a downloaded copy: the directory keeps the repository's name
    result = lint(tmp_path, kubernetes("/models/Qwen2.5-72B-Instruct-AWQ"))
    [deployment] = result.deployments
    assumed = deployment.budget.assumed["model"]
    assert assumed == (
        "Qwen/Qwen2.5-72B-Instruct with AWQ 4-bit weights, read from the name "
        "'models/Qwen2.5-72B-Instruct-AWQ' (from the last two parts of the path)"
    )
    # 72.7 B parameters in AWQ do not fit one L4; four of them do
    [weights] = [d for d in result.diagnostics if d.code == "HBM101"]
    assert "Raise tensor parallelism to 4" in weights.fixes[0]
    # a directory that names no catalog model stays unidentified (a warning saying so)
    unknown = lint(tmp_path, kubernetes("/models/my-finetune-AWQ"), "unknown.yaml")
    assert [d.code for d in unknown.diagnostics] == ["HBM006"]


def test_a_name_read_quantization_is_not_held_against_the_quantization_flag(tmp_path):
    # NVIDIA's -FP8 uploads say quant_method modelopt, Red Hat's compressed-tensors, Qwen's fp8:
    # the name gives the weight format, not the string vLLM compares --quantization with
    for flag in ("modelopt", "fp8", "compressed-tensors"):
        text = kubernetes(
            "nvidia/Llama-3.1-8B-Instruct-FP8",
            gpu="NVIDIA-H100-80GB-HBM3",
            extra=f', "--quantization", "{flag}"',
        )
        result = lint(tmp_path, text, f"{flag}.yaml")
        assert [d.code for d in result.diagnostics if d.code == "HBM309"] == []
    # the catalog's own FP8 checkpoint, whose config.json is known, is still held to it
    known = kubernetes(
        "neuralmagic/Meta-Llama-3.1-70B-Instruct-quantized.w8a8",
        gpu="NVIDIA-H100-80GB-HBM3",
        extra=', "--quantization", "fp8", "--tensor-parallel-size", "1"',
    )
    codes = [d.code for d in lint(tmp_path, known, "known.yaml").diagnostics]
    assert "HBM309" in codes
