"""Multi-node and wide expert-parallel deployments hbmlint under-counted (sweep 26, part F):
each test names its source and says what a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"

COVERED = {
    "sglang-lws-pd-decode-dsr1-redundant-experts.yaml",
    "dynamo-workshop-sglang-wideep-redundant-experts.yaml",
    "lws-vllm-ray-dsv3-tp8-pp4-l40s.yaml",
}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _lint(path: Path, rules, gpu: str | None = None, **options):
    return lint_file(
        path, path.name, rules, LintOptions(default_gpu=gpu, keep_budgets=True, **options)
    )


def _gib(quantity) -> float:
    return quantity.to("GiB").magnitude


# --- SGLang's redundant experts ----------------------------------------------------------------
# sgl-project/sglang docs/references/multi_node_deployment/lws_pd/lws-examples/d.yaml @96fd6bf0:
# DeepSeek-R1 decode over 2 x 8 GPUs, --tp-size 16 --moe-a2a-backend deepep (SGLang sets ep_size
# to tp_size) --ep-num-redundant-experts 32. Each GPU holds (256 + 32) / 16 = 18 experts of each
# MoE layer, not 16 (eplb/expert_location.py _init_common): 58 layers x 2 experts x 44 M FP8
# parameters, 4.76 GiB more per GPU. hbmlint ignored the flag (56.74 GiB, KV 10.14 GiB on H800).
LWS_DECODE = REAL / "sglang-lws-pd-decode-dsr1-redundant-experts.yaml"
LWS_MODEL = (("/work/models", "deepseek-ai/DeepSeek-R1-0528"),)


def test_sglang_redundant_experts_are_weights_on_every_ep_rank(rules):
    result = _lint(LWS_DECODE, rules, gpu="H800", model_paths=LWS_MODEL)
    [item] = result.deployments
    budget = item.budget
    assert budget.resolved.gpu_count == 16
    assert budget.settings.expert_parallel == 16  # the DeepEP backend: EP = TP
    assert budget.settings.redundant_experts == 32
    assert _gib(budget.weights) == pytest.approx(61.50, abs=0.01)  # 56.74 + 4.76
    assert _gib(budget.kv_cache) == pytest.approx(5.38, abs=0.02)
    assert budget.kv_tokens.magnitude == 82_240
    assert not [f for f in result.diagnostics if f.severity is Severity.ERROR]


def test_without_redundant_experts_the_lws_decode_is_as_before(rules, tmp_path):
    text = LWS_DECODE.read_text(encoding="utf-8")
    plain = tmp_path / LWS_DECODE.name
    flag = '          - --ep-num-redundant-experts\n          - "32"\n'
    assert flag in text
    plain.write_text(text.replace(flag, ""), encoding="utf-8")
    [item] = _lint(plain, rules, gpu="H800", model_paths=LWS_MODEL).deployments
    assert item.budget.settings.redundant_experts == 0
    assert _gib(item.budget.weights) == pytest.approx(56.74, abs=0.01)


# arunraman/dynamo-workshop lab3/k8s/deepseek-r1-wideep.yaml @205cae5c: SGLang prefill and decode
# workers at DP 32 / EP 32 (DeepEP) with --ep-num-redundant-experts 32: 9 experts of each MoE
# layer per GPU instead of 8, 2.38 GiB more (37.71 GiB before).
WORKSHOP = REAL / "dynamo-workshop-sglang-wideep-redundant-experts.yaml"


def test_sglang_redundant_experts_at_ep32(rules):
    result = _lint(WORKSHOP, rules, gpu="H200")
    assert len(result.deployments) == 2
    for item in result.deployments:
        assert item.budget.settings.expert_parallel == 32
        assert _gib(item.budget.weights) == pytest.approx(40.09, abs=0.01)  # 37.71 + 2.38
    assert not [f for f in result.diagnostics if f.severity is Severity.ERROR]


# --- pipeline parallelism: the heaviest stage, and the stage whose KV binds ---------------------
# dims/skunkworks v3 deepseek-lws.yaml (blog "Deploying the DeepSeek-V3 Model (full version) in
# Amazon EKS Using vLLM and LWS", April 2025): DeepSeek-V3 at TP 8 x PP 4 over four 8 x L40S nodes.
# vLLM's get_pp_indices splits its 61 layers 15/15/16/15 (the remainder to the later stages) and
# the first 3 are dense, so the third stage, 16 MoE layers, is the heaviest. hbmlint took the
# first stage's layers (18.32 GiB per GPU).
DSV3_PP4 = REAL / "lws-vllm-ray-dsv3-tp8-pp4-l40s.yaml"


def test_the_heaviest_pipeline_stage_is_budgeted(rules):
    result = _lint(DSV3_PP4, rules, gpu="L40S")
    [item] = result.deployments
    budget = item.budget
    assert (budget.settings.tensor_parallel, budget.settings.pipeline_parallel) == (8, 4)
    assert _gib(budget.weights) == pytest.approx(21.93, abs=0.01)  # was 18.32
    assert budget.kv_bytes_per_token_target.magnitude == 18_432  # 16 MLA layers x 576 x 2
    assert budget.kv_tokens.magnitude == 715_440
    assert "pipeline stage 3 of 4 (layers 30-45)" in budget.assumed["pipeline_stage"]
    assert not [f for f in result.diagnostics if f.severity is Severity.ERROR]


def _serve(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "serve.sh"
    path.write_text(text + "\n", encoding="utf-8")
    return path


def test_the_stage_with_the_fewest_kv_tokens_binds(rules, tmp_path):
    # TP 8 x PP 2: 31 layers (3 dense) + embedding, then 30 MoE layers + lm_head. On H100 the
    # second stage, heavier by 2.45 GiB, has the fewer tokens; on H200 the first stage's one
    # more layer of KV outweighs that.
    path = _serve(
        tmp_path,
        "vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 8 "
        "--pipeline-parallel-size 2 --max-model-len 32768 --gpu-memory-utilization 0.92",
    )
    [h100] = _lint(path, rules, gpu="H100").deployments
    assert _gib(h100.budget.weights) == pytest.approx(41.32, abs=0.01)  # was 38.87
    assert h100.budget.kv_bytes_per_token_target.magnitude == 30 * 1152
    assert h100.budget.kv_tokens.magnitude == 843_104  # was 889,744
    [h200] = _lint(path, rules, gpu="H200").deployments
    assert _gib(h200.budget.weights) == pytest.approx(38.87, abs=0.01)
    assert h200.budget.kv_bytes_per_token_target.magnitude == 31 * 1152
    assert h200.budget.kv_tokens.magnitude == 2_566_848  # as before
    assert "the heaviest stage holds 41.32 GiB" in h200.budget.assumed["pipeline_stage"]


def test_a_dense_model_s_near_equal_stages_move_nothing(rules, tmp_path):
    # Llama-3.1-70B, 80 layers: 40/40 at PP 2, 27/27/26 at PP 3 (the embedding and the lm_head
    # are the same size): the figures hbmlint gave before
    path = _serve(
        tmp_path,
        "vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 4 "
        "--pipeline-parallel-size 2 --max-model-len 32768",
    )
    [pp2] = _lint(path, rules, gpu="H100").deployments
    assert _gib(pp2.budget.weights) == pytest.approx(16.46, abs=0.01)
    assert pp2.budget.kv_tokens.magnitude == 1_482_816
    path.write_text(path.read_text().replace("size 2", "size 3"), encoding="utf-8")
    [pp3] = _lint(path, rules, gpu="H100").deployments
    assert pp3.budget.settings.pipeline_parallel == 3
    assert _gib(pp3.budget.weights) == pytest.approx(11.28, abs=0.01)
    assert pp3.budget.kv_tokens.magnitude == 2_397_936
