"""Rules that say what an engine refuses on any GPU run where the manifest names none
(lint.GPU_FREE_RULES): a TP size that does not divide the heads, a max_model_len above the
model's. Most real manifests name no GPU type; these errors were skipped with the budget."""

from __future__ import annotations

import re

import pytest
import yaml
from real_lint import codes, lint

from hbmlint.diagnostics import Severity
from hbmlint.lint import GPU_FREE_RULES, GPU_VENDOR_RULES
from hbmlint.rules import builtin_rule_files, load_rules

# what a GPU decides: its memory and capability, the budget's figures, and the settings whose
# default the engine picks by GPU (batch sizes by memory tier, the dtype auto makes on a card
# without bfloat16, TGI's memory-derived limits)
GPU_DEPENDENT = re.compile(
    r"\b(gpu|kv|weights|overhead|workload)\.|whatif\(|tradeoff\(|draft\.weights|tensor_to_fit"
    r"|serving\.(max_num_seqs|max_num_batched_tokens|dtype|memory_fraction|block_size)"
    r"|model\.dtype\b|tgi"
)


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def test_the_gpu_free_rules_read_nothing_a_gpu_decides():
    files = {path.name[:6]: path for path in builtin_rule_files()}
    for code in sorted(GPU_FREE_RULES):
        data = yaml.safe_load(files[code].read_text(encoding="utf-8"))
        text = yaml.safe_dump({k: data.get(k) for k in ("when", "check", "message", "fixes")})
        assert GPU_DEPENDENT.search(text) is None, code


def test_the_vendor_rules_read_only_the_gpus_vendor():
    files = {path.name[:6]: path for path in builtin_rule_files()}
    for code in sorted(GPU_VENDOR_RULES):
        data = yaml.safe_load(files[code].read_text(encoding="utf-8"))
        text = yaml.safe_dump({k: data.get(k) for k in ("when", "check", "message", "fixes")})
        assert "gpu.vendor" in text, code
        assert GPU_DEPENDENT.search(text.replace("gpu.vendor", "")) is None, code


def test_a_model_level_refusal_is_reported_with_no_gpu_named(rules, tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text("vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 65536\n")
    result = lint(path, rules)
    assert [f.code for f in codes(result, "HBM005")] == ["HBM005"]  # still says how to name it
    [long] = codes(result, "HBM303")
    assert long.severity is Severity.ERROR
    # no memory finding: the stand-in card's budget is not reported
    assert [f.code for f in result.diagnostics] == ["HBM005", "HBM303"]


def test_heads_that_tp_does_not_divide_are_an_error_with_no_gpu_named(rules, tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text(
        "vllm serve meta-llama/Llama-4-Maverick-17B-128E-Instruct --tensor-parallel-size 16\n"
    )
    [heads] = codes(lint(path, rules), "HBM301")
    assert heads.severity is Severity.ERROR


def test_a_deployment_that_fits_its_model_says_nothing_more(rules, tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text("vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n")
    assert [f.code for f in lint(path, rules).diagnostics] == ["HBM005"]


POD = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: llm}}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [{args}]
          resources:
            limits: {{nvidia.com/gpu: "1"}}
"""


def test_a_quantization_flag_the_checkpoint_refuses_is_an_error_with_no_gpu_named(rules, tmp_path):
    # sweep_k8s4: Qwen3-30B-A3B-FP8 served with --quantization=awq, no GPU type in the pod
    path = tmp_path / "pod.yaml"
    path.write_text(POD.format(args='"--model=Qwen/Qwen3-30B-A3B-FP8", "--quantization=awq"'))
    result = lint(path, rules)
    [mismatch] = codes(result, "HBM309")
    assert mismatch.severity is Severity.ERROR
    assert "quant_method fp8" in mismatch.message
    assert mismatch.span.line == 10
    assert [f.code for f in result.diagnostics] == ["HBM309", "HBM005"]


def test_weights_beyond_the_largest_gpu_are_an_error_with_no_gpu_named(rules, tmp_path):
    # kcns008/llm-on-k8s: Kimi K2 (about 1T parameters in FP8) at TP 1 on "a GPU"
    path = tmp_path / "pod.yaml"
    path.write_text(POD.format(args='"--model=moonshotai/Kimi-K2-Instruct-0905"'))
    [weights] = codes(lint(path, rules), "HBM101")
    assert weights.severity is Severity.ERROR
    assert "largest GPU hbmlint knows" in weights.message
    assert "GB300" in weights.message
    # no tensor-parallel size is promised: it depends on the card
    assert not any("Raise tensor parallelism to" in fix for fix in weights.fixes)


def test_weights_that_fit_some_gpu_are_not_judged_with_no_gpu_named(rules, tmp_path):
    # a 70B model in 16 bits (about 131 GiB) at TP 1: too much for an H100, not for a B200
    path = tmp_path / "pod.yaml"
    path.write_text(POD.format(args='"--model=meta-llama/Llama-3.1-70B-Instruct"'))
    assert [f.code for f in lint(path, rules).diagnostics] == ["HBM005"]


def test_an_amd_deployment_with_no_type_named_gets_the_gpu_free_rules(rules, tmp_path):
    # the stand-in card is AMD's: an NVIDIA one would not resolve for a ROCm deployment
    path = tmp_path / "serve.sh"
    path.write_text(
        "docker run --device /dev/kfd --device /dev/dri rocm/vllm:latest \\\n"
        "  vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 65536\n"
    )
    result = lint(path, rules)
    [long] = codes(result, "HBM303")
    assert long.severity is Severity.ERROR
    assert "AMD" in codes(result, "HBM005")[0].message
