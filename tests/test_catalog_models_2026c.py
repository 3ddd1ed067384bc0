"""catalog: drafters of 2026 launches the sweeps found unsized (lightseekorg's MLA EAGLE-3 head for
Kimi-K2.5/K2.6), each linted as a manifest names it and checked against its checkpoint's size
(the tests run with HF_HUB_OFFLINE=1: conftest.py)."""

from __future__ import annotations

import json

import pytest
from catalog_entry import architecture, stored_bytes

from hbmlint.budget import eagle_weights
from hbmlint.lint import lint_paths
from hbmlint.rules import load_rules

GIB = 2**30
HEAD = "lightseekorg/kimi-k2.5-eagle3-mla"


def _kimi_with_head(tmp_path, head: str, *extra: str):
    """voipmonitor/rtx6kpro's Kimi-K2.6 MTP launch (models/kimi-k26.md, code search file id
    52961801589) as a Deployment of vLLM 0.20.0 on 8 RTX PRO 6000: TP 8, fp8 KV, the EAGLE-3
    head in --speculative-config with an fp8 draft KV cache, 3 speculative tokens."""
    spec = json.dumps(
        {
            "model": head,
            "method": "eagle3",
            "num_speculative_tokens": 3,
            "draft_kv_cache_dtype": "fp8",
        }
    )
    args = [
        "--model",
        "moonshotai/Kimi-K2.6",
        "--tensor-parallel-size",
        "8",
        "--max-model-len",
        "262144",
        "--gpu-memory-utilization",
        "0.94",
        "--kv-cache-dtype",
        "fp8",
        "--speculative-config",
        spec,
        *extra,
    ]
    words = ", ".join(json.dumps(word) for word in args)
    path = tmp_path / "deployment.yaml"
    path.write_text(
        f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: llm}}
spec:
  template:
    spec:
      nodeSelector: {{nvidia.com/gpu.product: NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition}}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.20.0
        args: [{words}]
        resources: {{limits: {{nvidia.com/gpu: "8"}}}}
""",
        encoding="utf-8",
    )
    return path


def _budget(path):
    rules, _ = load_rules()
    [result] = lint_paths([str(path)], rules)
    assert "HBM015" not in {d.code for d in result.diagnostics}  # the drafter is known
    [deployment] = result.deployments
    return deployment.budget


def test_the_mla_eagle3_head_is_about_6_gb_as_published():
    head = architecture(HEAD)
    # one DeepSeek-V2 MLA layer of 7168 (q_a 7168 x 1536, q_b 1536 x 64 x 192, kv_a 7168 x 576,
    # kv_b 512 x 64 x 256, o 64 x 128 x 7168) with a dense MLP of 3 x 7168 x 18432; the stored
    # embed_tokens and the lm_head over the full 163,840-token vocabulary
    layer = 7168 * 1536 + 1536 * 64 * 192 + 7168 * 576 + 512 * 64 * 256 + 64 * 128 * 7168
    layer += 3 * 7168 * 18432
    assert head.parameters == pytest.approx(layer + 2 * 163840 * 7168, rel=0.001)
    # what the engine loads at TP 1 with its own embedding: the layer, the replicated fc over 3
    # hidden states, the 2h-wide q_a and kv_a of EAGLE-3's first layer, embed_tokens and lm_head;
    # "lightseekorg/kimi-k2.5-eagle3-mla | ~6 GB" (a public Kimi-K2.5 speculative decoding
    # benchmark table, code search file id 56043264679)
    whole = stored_bytes(eagle_weights(head, "eagle3", 1, None))
    whole += 163840 * 7168 * 2  # its embed_tokens, kept where it is not the target's
    assert whole == pytest.approx(6e9, rel=0.02)
    fc, wider = 3 * 7168 * 7168, 7168 * (1536 + 512 + 64)
    assert whole == pytest.approx((layer + fc + wider + 2 * 163840 * 7168) * 2, rel=0.001)


def test_kimi_k26_with_the_mla_head_counts_its_weights_and_its_latent_kv(tmp_path):
    budget = _budget(_kimi_with_head(tmp_path, HEAD))
    assert budget.resolved.draft.name == HEAD
    # per GPU at TP 8: the layer's split parts (q_b, kv_b, o, MLP) and replicated parts (q_a,
    # kv_a, norms), the replicated fc and wider q_a / kv_a, an eighth of the lm_head; the stored
    # embedding is the target's (vLLM shares an equal one); its own lm_head is kept (vLLM 0.11.1+)
    draft = budget.draft_weights.to("GiB").magnitude
    assert draft == pytest.approx(0.73, abs=0.01)
    # MLA: one 512 + 64 latent of fp8 for its one layer, not 64 KV heads of 128 (the MHA head)
    assert budget.kv_bytes_per_token_draft.to("byte / token").magnitude == 576
    mha = _budget(_kimi_with_head(tmp_path, "lightseekorg/kimi-k2.5-eagle3"))
    assert mha.kv_bytes_per_token_draft.to("byte / token").magnitude == 2 * 8 * 128
    # so the cache holds more tokens with the MLA head than with the MHA head of the same width
    # (their weights differ by 0.01 GiB a GPU: the MLA head's MLP is 18432 wide, the MHA's 12288)
    # (61 target layers' fp8 latent, 35,136 bytes a token, + 576 against + 2,048)
    tokens = budget.kv_tokens_if(budget.kv_cache).magnitude
    ratio = tokens / mha.kv_tokens_if(mha.kv_cache).magnitude
    assert ratio == pytest.approx((61 * 576 + 2048) / (61 * 576 + 576), abs=0.005)
