"""The KV cache of DeepSeek Sparse Attention models (DeepSeek-V3.2, GLM-5): the MLA latent plus
each layer's indexer keys (128 fp8 values and an fp32 scale, 132 bytes a token and layer), an fp8
cache stored in FlashMLA's 656-byte cell, and SGLang sizing its pool on the smaller fp8 cell it
counts while it stores the larger one (GLM-5-FP8 on 8 MI355X: 186.77 GiB for 3,262,823 tokens,
sglang-058post1-glm5-fp8-8xmi35x-tp8 in benchmarks/calibration/sglang.yaml)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import vllm_compose

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

GIB = 2**30

SGLANG_GLM5 = """\
services:
  sglang:
    image: lmsysorg/sglang:v0.5.8.post1-rocm700-mi35x
    command: >-
      python3 -m sglang.launch_server --attention-backend triton --model-path zai-org/GLM-5-FP8
      --tp-size 8 --kv-cache-dtype fp8_e4m3 --mem-fraction-static 0.908
    deploy:
      resources:
        reservations:
          devices: [{driver: amd, count: 8, capabilities: [gpu]}]
"""


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(path: Path, rules, gpu: str):
    options = LintOptions(keep_budgets=True, default_gpu=gpu)
    result = lint_file(path, path.name, rules, options)
    return result.diagnostics, result.deployments[0].budget


def per_token(budget) -> int:
    return round(budget.kv_bytes_per_token_target.to("byte / token").magnitude)


@pytest.mark.parametrize(
    ("dtype", "per_layer"),
    [
        ("auto", 576 * 2 + 132),  # bf16 latent and the indexer's keys
        ("fp8", 656 + 132),  # vLLM turns fp8 into fp8_ds_mla for DSA models
    ],
)
def test_vllm_deepseek_v32_caches_the_indexer_keys_of_every_layer(
    tmp_path, rules, dtype, per_layer
):
    command = "vllm serve deepseek-ai/DeepSeek-V3.2 -tp 8 --max-model-len 163840"
    path = vllm_compose(tmp_path, f"{command} --kv-cache-dtype {dtype}", "v0.33.0")
    path.write_text(path.read_text().replace("count: 1,", "count: 8,"))
    _, budget = lint(path, rules, "H200")
    assert per_token(budget) == 61 * per_layer


def test_a_model_without_index_topk_keeps_the_plain_mla_cell(tmp_path, rules):
    # DeepSeek-V3 has no indexer: its fp8 cache stays 576 bytes a layer
    command = "vllm serve deepseek-ai/DeepSeek-V3 -tp 8 --max-model-len 163840 --kv-cache-dtype fp8"
    path = vllm_compose(tmp_path, command, "v0.33.0")
    path.write_text(path.read_text().replace("count: 1,", "count: 8,"))
    _, budget = lint(path, rules, "H200")
    assert per_token(budget) == 61 * 576


def test_sglang_glm5_fp8_pool_matches_its_start_up_log(tmp_path, rules):
    path = tmp_path / "compose.yaml"
    path.write_text(SGLANG_GLM5)
    _, budget = lint(path, rules, "MI355X")
    # the pool stores 78 layers x (656 + 132) bytes a token, as the log's 186.77 GiB for
    # 3,262,823 tokens does ...
    assert per_token(budget) == 78 * 788 == pytest.approx(186.77 * GIB / 3_262_823, abs=2)
    kv_bytes = budget.kv_cache.to("byte").magnitude
    assert kv_bytes == budget.kv_tokens.magnitude * 78 * 788
    # ... for as many tokens as 708 bytes a layer fit in the budget. The log's card showed
    # some 4 GiB less than the catalog's MI355X (283.6 against 287.98 GiB), so within 3%;
    # sized on the stored cell the tokens were 11% fewer, on the latent alone 23% more
    assert budget.kv_tokens.magnitude == pytest.approx(3_262_823, rel=0.03)
    # the pool outgrows the fraction: what SGLang holds is more than 0.908 of the card
    assert budget.usable > budget.total * 0.908
    assert "NSA pool stores" in budget.assumed["kv_cache"]


def test_glm52_keeps_indexer_keys_only_in_layers_with_their_own_indexer(tmp_path, rules):
    # a vLLM build's GLM-5.2 pool with MTP, fp8_ds_mla (github.com/local-inference-lab/vllm
    # pull 82, measured): 54,728 bytes a token = 79 layers x 656 + 22 indexers x 132 (the 21
    # "full" entries of indexer_types and the MTP layer's), not 79 x 788 = 62,252
    spec = '{"method": "mtp", "num_speculative_tokens": 1}'
    command = f"vllm serve zai-org/GLM-5.2 -tp 8 --kv-cache-dtype fp8 --speculative-config '{spec}'"
    path = vllm_compose(tmp_path, command, "v0.33.0")
    path.write_text(path.read_text().replace("count: 1,", "count: 8,"))
    _, budget = lint(path, rules, "H200")
    assert round(budget.kv_bytes_per_token.to("byte / token").magnitude) == 54_728
