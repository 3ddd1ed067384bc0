"""vLLM's --decode-context-parallel-size N splits every sequence's KV cache over N GPUs of the
tensor-parallel group, so each GPU holds up to N times the tokens the budget counts (vLLM's
arg_utils.py; the pattern of vLLM's DeepSeek / Kimi long-context recipes, `-dcp 8`). hbmlint
does not model the split: a KV refusal it predicts there is no promise, unless one sequence
does not fit even in N times the tokens."""

from __future__ import annotations

import pytest

from hbmlint.diagnostics import Severity
from hbmlint.lint import lint_file
from hbmlint.rules import load_rules

# Llama 3.1 70B in FP8 on four L4s at TP 4 with the model's whole context: about 41k tokens
# of KV cache (50k at the estimate's upper edge) against the 131,072 one sequence needs.
MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama70b
spec:
  template:
    spec:
      nodeSelector:
        cloud.google.com/gke-accelerator: nvidia-l4
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args:
            - --model=nvidia/Llama-3.1-70B-Instruct-FP8
            - --tensor-parallel-size=4
            - --max-model-len=131072{extra}
          resources:
            limits:
              nvidia.com/gpu: 4
"""


@pytest.fixture(scope="module")
def rules():
    return load_rules()[0]


def hbm102(tmp_path, rules, extra: str):
    path = tmp_path / "deployment.yaml"
    path.write_text(MANIFEST.format(extra=extra))
    result = lint_file(path, "deployment.yaml", rules)
    [finding] = [f for f in result.diagnostics if f.code == "HBM102"]
    [read] = result.deployments
    return finding, read.deployment.parallel.decode_context


def test_without_the_split_one_sequence_not_fitting_is_a_refusal(tmp_path, rules):
    finding, split = hbm102(tmp_path, rules, "")
    assert finding.severity is Severity.ERROR and split is None


def test_a_split_that_makes_one_sequence_fit_as_vllm_checks_it_is_no_finding(tmp_path, rules):
    # vLLM checks one sequence of max_model_len / N tokens a GPU (FullAttentionSpec's
    # max_memory_usage_bytes divides it by the DCP x PCP size): 32,768 tokens here, within even
    # the estimate's low edge (was a warning that hbmlint "does not model" the split)
    path = tmp_path / "deployment.yaml"
    path.write_text(MANIFEST.format(extra="\n            - --decode-context-parallel-size=4"))
    result = lint_file(path, "deployment.yaml", rules)
    assert [f for f in result.diagnostics if f.code in ("HBM102", "HBM105")] == []
    [read] = result.deployments
    assert read.deployment.parallel.decode_context == 4


def test_a_split_that_may_make_it_fit_is_a_warning_that_says_why(tmp_path, rules):
    # a 90,000-token context over 2: 45,000 tokens a GPU, within the band's upper edge (50k)
    # but not its low one
    path = tmp_path / "deployment.yaml"
    text = MANIFEST.format(extra="\n            - --decode-context-parallel-size=2")
    path.write_text(text.replace("--max-model-len=131072", "--max-model-len=90000"))
    result = lint_file(path, "deployment.yaml", rules)
    [finding] = [f for f in result.diagnostics if f.code == "HBM102"]
    assert finding.severity is Severity.WARNING
    assert "--decode-context-parallel-size 2" in finding.message
    assert "not model" in finding.message


def test_a_split_too_small_to_make_it_fit_is_still_a_refusal(tmp_path, rules):
    # 2 x 50,032 tokens at the upper edge is still short of 131,072
    finding, split = hbm102(tmp_path, rules, "\n            - -dcp=2")
    assert split == 2
    assert finding.severity is Severity.ERROR
