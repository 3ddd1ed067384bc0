"""HBM202's fixes are offered only where they give the KV cache more tokens. Where the weights
and runtime overhead leave no KV block at all, keeping the draft's KV cache in FP8 shrinks a
per-token cost on a cache of zero tokens: "KV cache 0 tokens -> 0 tokens" is advice that helps
nobody, while quantizing the draft's weights or switching to n-gram frees real memory.

The pattern: Qwen2.5-72B-Instruct with Qwen2.5-1.5B-Instruct as its draft model, tensor parallel
over eight 24 GB L4s at gpu_memory_utilization 0.85 (the 72B's weights take ~17 GiB a card),
the shape of the Qwen2.5 speculative-decoding recipes run on L4 nodes; and the same pair on eight
H100s, where the cache has room and every fix has an effect."""

from __future__ import annotations

import re
import textwrap

import pytest

MANIFEST = textwrap.dedent("""\
    apiVersion: hbmlint/v1
    kind: ServingManifest
    metadata: {{name: draft-kv}}
    spec:
      engine: vllm
      gpu: {{type: {gpu}, count: 8}}
      model: {{name: Qwen/Qwen2.5-72B-Instruct}}
      parallel: {{tensor: 8}}
      serving: {{gpu_memory_utilization: 0.85}}
      speculative:
        method: draft_model
        model: Qwen/Qwen2.5-1.5B-Instruct
        num_speculative_tokens: 4
    """)

TOKENS = re.compile(r"KV cache ([\d,]+) tokens -> ([\d,]+) tokens")


def _hbm202_fixes(cli, tmp_path, gpu):
    path = tmp_path / "m.yaml"
    path.write_text(MANIFEST.format(gpu=gpu))
    run = cli("--format", "json", path)
    [finding] = [f for f in run.json() if f["code"] == "HBM202"]
    return [fix["message"] for fix in finding["fixes"]]


def _gain(message):
    before, after = (int(n.replace(",", "")) for n in TOKENS.search(message).groups())
    return after - before


@pytest.mark.parametrize(("gpu", "fp8_kv_offered"), [("L4", False), ("H100", True)])
def test_every_fix_gives_the_cache_tokens(cli, tmp_path, gpu, fp8_kv_offered):
    fixes = _hbm202_fixes(cli, tmp_path, gpu)
    assert any("speculative.method: ngram" in m for m in fixes), fixes
    assert any("speculative.quantization: fp8" in m for m in fixes), fixes
    assert any("speculative.kv_cache_dtype: fp8" in m for m in fixes) is fp8_kv_offered, fixes
    for message in fixes:
        assert _gain(message) > 0, message
