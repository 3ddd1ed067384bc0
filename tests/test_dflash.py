"""DFlash drafters (block diffusion, z-lab/dflash): vLLM's `"method": "dflash"` and SGLang's
`--speculative-algorithm DFLASH` are budgeted as a few decoder layers, an fc over the target's
hidden states and their own KV cache, sharing the target's embedding and lm_head. hbmlint used
to leave the drafter out (an info) and pass deployments its KV cache did not hold."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

# z-lab/Qwen3-8B-DFlash-b16 (hbmlint/catalog/models.yaml): 5 layers of Qwen3-8B's width,
# intermediate 12,288, 8 KV heads of 128, fc over 5 target layers of 4,096
H, FFN, KV_HEADS, HEAD_DIM, LAYERS, READS = 4096, 12288, 8, 128, 5, 5
LAYER = H * H * 2 + H * KV_HEADS * HEAD_DIM * 2 + 3 * H * FFN  # q, o, k, v; gate, up, down
PARAMS = LAYERS * LAYER + READS * H * H  # + the fc (norms are a few thousand more)

VLLM = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: qwen-dflash}
spec:
  template:
    spec:
      nodeSelector: {cloud.google.com/gke-accelerator: GPU}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.20.0
        args:
        - --model=Qwen/Qwen3-8B
        - --max-model-len=MML
        - '--speculative-config={"method": "dflash", "model": "z-lab/Qwen3-8B-DFlash-b16",
          "num_speculative_tokens": 15}'
        resources: {limits: {nvidia.com/gpu: 1}}
"""

SGLANG = """\
services:
  sglang:
    image: lmsysorg/sglang:v0.5.9
    command: >-
      python -m sglang.launch_server --model-path Qwen/Qwen3-8B
      --speculative-algorithm DFLASH --speculative-draft-model-path z-lab/Qwen3-8B-DFlash-b16
      --mem-fraction-static 0.75
    deploy:
      resources:
        reservations:
          devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]
"""


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(tmp_path: Path, rules, text: str, gpu: str | None = None):
    path = tmp_path / "deploy.yaml"
    path.write_text(text)
    return lint_file(path, "deploy.yaml", rules, LintOptions(keep_budgets=True, default_gpu=gpu))


def test_vllm_dflash_drafter_is_budgeted(tmp_path, rules):
    text = VLLM.replace("GPU", "nvidia-h100-80gb").replace("MML", "32768")
    result = lint(tmp_path, rules, text)
    assert "HBM011" not in [d.code for d in result.diagnostics]  # no longer "left out"
    budget = result.deployments[0].budget
    weights = budget.draft_weights.to("byte").magnitude
    assert weights == pytest.approx(PARAMS * 2, rel=0.001)  # bfloat16
    per_token = LAYERS * 2 * KV_HEADS * HEAD_DIM * 2
    assert budget.kv_bytes_per_token_draft.to("byte / token").magnitude == per_token


def test_sglang_dflash_algorithm_is_read(tmp_path, rules):
    result = lint(tmp_path, rules, SGLANG, gpu="H100")
    assert result.diagnostics == []
    budget = result.deployments[0].budget
    assert budget.settings.speculative_method == "dflash"
    assert budget.draft_weights.to("byte").magnitude == pytest.approx(PARAMS * 2, rel=0.001)


def test_its_kv_cache_counts_against_one_sequence(tmp_path, rules):
    """On an L4 the drafter's weights and KV cache are what stand between the deployment and
    one 16k sequence: with DFlash it does not start, without it it does."""
    text = VLLM.replace("GPU", "nvidia-l4").replace("MML", "16384")
    codes = [d.code for d in lint(tmp_path, rules, text).diagnostics]
    assert "HBM102" in codes or "HBM101" in codes
    plain = "\n".join(line for line in text.splitlines() if "speculative" not in line)
    assert [d.code for d in lint(tmp_path, rules, plain + "\n").diagnostics] == []


def test_no_speed_is_claimed_for_it(tmp_path, rules):
    """No published acceptance rate: the trade-off table gives no speed-up for DFlash, and
    HBM209 does not call it slower than no speculation."""
    from hbmlint.rules import TRADEOFF_RULE
    from hbmlint.speculative import compare

    text = VLLM.replace("GPU", "nvidia-h100-80gb").replace("MML", "32768")
    result = lint(tmp_path, rules, text)
    assert "HBM209" not in [d.code for d in result.diagnostics]
    [rule] = [r for r in rules if r.name == TRADEOFF_RULE]
    table = compare(result.deployments[0].budget, rule.params)
    assert table.current.speedup is None
    assert "speed not estimated" in table.current.note
