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
