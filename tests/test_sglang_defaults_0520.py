"""SGLang 0.5.20 raised the defaults of cards of 20 to 35 GiB (L4, A10G, RTX 3090/4090/5090):
chunked_prefill_size 4096 and a largest decode CUDA graph of 48 (160 from TP 4), not 2048 and
24 / 80, and reserves for them before it sets mem_fraction_static (arg_groups/memory_hook.py
handle_gpu_memory_settings; the 0.5.19 and 0.5.20 wheels). hbmlint kept 0.5.19's defaults for
every newer release, so it gave SGLang about 3 GiB more pool on those cards than it takes."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
FIXTURE = "sglang-defaults-l4-0521.yaml"

COMPOSE = """\
services:
  sglang:
    image: lmsysorg/sglang:VERSION
    command: python3 -m sglang.launch_server --model-path MODEL --context-length 8192 FLAGS
    deploy:
      resources:
        reservations:
          devices: [{driver: nvidia, count: GPUS, capabilities: [gpu]}]
"""


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(tmp_path: Path, rules, version: str, model="Qwen/Qwen3-8B", flags="", gpu="L4", gpus=1):
    text = COMPOSE.replace("VERSION", version).replace("MODEL", model).replace("FLAGS", flags)
    path = tmp_path / "compose.yaml"
    path.write_text(text.replace("GPUS", str(gpus)))
    options = LintOptions(keep_budgets=True, default_gpu=gpu)
    result = lint_file(path, "compose.yaml", rules, options)
    return result.diagnostics, result.deployments[0].budget


def test_the_real_l4_deployment_gets_the_0_5_21_defaults(rules):
    """Qwen3-8B-AWQ on a GKE L4, SGLang's own defaults: 22,692 - (512 + 4,096 x 1.5 + 48 x 2 +
    1,024 / 8 + 50 prefill graphs x 8) = 7,280 MiB kept back, fraction 0.679 (0.814 before)."""
    options = LintOptions(keep_budgets=True)
    result = lint_file(REAL / FIXTURE, FIXTURE, rules, options)
    assert result.diagnostics == []
    budget = result.deployments[0].budget
    assert budget.settings.memory_fraction == 0.679
    assert budget.settings.max_num_batched_tokens == 4096
    assert "7280 MiB reserved" in budget.assumed["gpu_memory_utilization"]
    assert round(float(budget.kv_cache.to("GiB").magnitude), 2) == 9.08


@pytest.mark.parametrize(
    ("version", "fraction", "batched"),
    [("v0.5.19", 0.814, 2048), ("v0.5.20", 0.679, 4096), ("latest", 0.679, 4096)],
)
def test_the_default_fraction_on_a_24_gib_card_by_release(
    tmp_path, rules, version, fraction, batched
):
    _, budget = lint(tmp_path, rules, version)
    assert budget.settings.memory_fraction == fraction
    assert budget.settings.max_num_batched_tokens == batched


def test_a_bf16_8b_model_no_longer_fits_the_default_fraction_of_an_l4(tmp_path, rules):
    """Qwen3-8B in bfloat16 (15.28 GiB) on an L4: 0.5.19's fraction left 2.43 GiB of pool;
    0.5.20's leaves less than the weights, and SGLang stops ("Not enough memory")."""
    before, _ = lint(tmp_path, rules, "v0.5.19")
    assert [d for d in before if d.severity.name == "ERROR"] == []
    after, budget = lint(tmp_path, rules, "v0.5.20")
    [error] = [d for d in after if d.severity.name == "ERROR"]
    assert error.code == "HBM101"
    assert "67.9% of 22.16 GiB on L4-24GB" in error.message
    # the fix SGLang's own message asks for: a fraction set by hand is taken as written
    fixed, budget = lint(tmp_path, rules, "v0.5.20", flags="--mem-fraction-static 0.85")
    assert [d for d in fixed if d.severity.name == "ERROR"] == []


def test_tp4_on_24_gib_cards_keeps_160_graphs_back(tmp_path, rules):
    """TP 4 of 24 GiB cards: 512 + 6,144 + 160 x 2 + 4 x 1,024 / 8 + 400 = 7,888 MiB."""
    _, budget = lint(tmp_path, rules, "v0.5.20", model="Qwen/Qwen3-32B", gpus=4, flags="--tp 4")
    assert "7888 MiB reserved" in budget.assumed["gpu_memory_utilization"]


@pytest.mark.parametrize(
    ("gpu", "version", "reserved"),
    [
        # a 48 GiB card keeps its tier; from 0.5.20 its 4,096-token prefill is 50 graphs, not 58
        ("L40S", "v0.5.19", 7312),
        ("L40S", "v0.5.20", 7248),
        # an 80 GiB card: 8,192 tokens, 256 graphs, 58 prefill graphs either way
        ("H100", "v0.5.19", 13904),
        ("H100", "v0.5.20", 13904),
    ],
)
def test_other_cards_keep_their_tier(tmp_path, rules, gpu, version, reserved):
    _, budget = lint(tmp_path, rules, version, gpu=gpu)
    assert f"{reserved} MiB reserved" in budget.assumed["gpu_memory_utilization"]
