"""catalog: models and names of 2026 deployments (Kimi-K2.6 under its own name, AWQ uploads of
FP8 masters), each linted as a manifest names it and checked against the checkpoint's size."""

from __future__ import annotations

import pytest
from catalog_entry import architecture, stored_bytes

from hbmlint import catalog
from hbmlint.lint import lint_paths
from hbmlint.rules import load_rules

GIB = 2**30


def _deployment(tmp_path, model: str, gpu: str, gpus: int, *args: str):
    """A Kubernetes Deployment serving ``model`` with vLLM 0.11.0 at tensor parallel ``gpus``."""
    words = ", ".join(
        f'"{w}"' for w in ("--model", model, "--tensor-parallel-size", str(gpus), *args)
    )
    path = tmp_path / "deployment.yaml"
    path.write_text(
        f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: llm}}
spec:
  template:
    spec:
      nodeSelector: {{nvidia.com/gpu.product: {gpu}}}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.11.0
        args: [{words}]
        resources: {{limits: {{nvidia.com/gpu: "{gpus}"}}}}
""",
        encoding="utf-8",
    )
    return path


def _lint(path):
    rules, _ = load_rules()
    [result] = lint_paths([str(path)], rules)
    return result


def test_kimi_k26_is_budgeted_under_its_own_name_with_k25s_int4_experts(tmp_path):
    result = _lint(
        _deployment(tmp_path, "moonshotai/Kimi-K2.6", "NVIDIA-B200", 8, "--max-model-len", "65536")
    )
    codes = {d.code for d in result.diagnostics}
    assert "HBM015" not in codes and "HBM101" not in codes
    [deployment] = result.deployments
    budget = deployment.budget
    # the budget names the model the manifest named, not K2.5
    assert budget.resolved.target.name == "moonshotai/Kimi-K2.6"
    # moonshotai/Kimi-K2.6 @ 7eb5002f: 64 safetensors shards, 595,177,988,208 bytes (a public
    # download script's pinned total, code search file id 68396752512); hbmlint's arithmetic for
    # the whole checkpoint is within 3% of it, and one of 8 ranks holds an eighth of the sharded
    # part plus the replicated MoonViT tower
    whole = stored_bytes(architecture("moonshotai/Kimi-K2.6").weight_bytes_per_rank(1, 1, "int4"))
    assert whole == pytest.approx(595_177_988_208, rel=0.03)
    per_gpu = budget.weights.to("byte").magnitude
    assert per_gpu == pytest.approx(595_177_988_208 / 8, rel=0.06)
    # MLA: one 512 + 64 latent of bf16 per layer, 61 layers (kv_lora_rank, qk_rope_head_dim)
    assert architecture("moonshotai/Kimi-K2.6").kv_layout(8, 1, 2).full_per_token == 61 * 576 * 2
    # the same fields as K2.5: nothing else changes
    k25 = catalog.find_model("moonshotai/Kimi-K2.5")
    assert catalog.find_model("moonshotai/Kimi-K2.6")["config"] == k25["config"]
