"""llm-d's vLLM images (ghcr.io/llm-d/llm-d-cuda:vX.Y.Z, ghcr.io/llm-d/llm-d:v0.2.x) read as the
vLLM release each llm-d release pins (vendor_images.yaml, with the pin and release notes of
each), not as the newest vLLM; a tag whose vLLM has no source (a -dev image's sha- tag, a release
candidate, a release not in the table) stays the newest, and the budget says it assumed so."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.engines import image_version
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
# kserve/kserve docs/samples/llmisvc/agentic-tool-calling/nemotron-3-ultra-pd.yaml @79fa799a:
# Nemotron-3-Ultra-550B FP8 P/D on 2 x 8 H200, image ghcr.io/llm-d/llm-d-cuda:v0.8.1
NEMOTRON_PD = REAL / "kserve-llmisvc-nemotron3-ultra-pd-h200.yaml"
# llm-d/llm-d guides/wide-ep-lws/modelserver/gpu/vllm/base/decode.yaml (mirror zetxqx/llm-d
# @7edda66): DeepSeek-R1 wide-EP decode on ghcr.io/llm-d/llm-d-cuda-dev:sha-a1bcf21
WIDE_EP_DECODE = REAL / "llmd-wide-ep-lws-vllm-r1-decode.yaml"
COVERED = {NEMOTRON_PD.name, WIDE_EP_DECODE.name}

NEWEST = "the newest vllm"


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _budgets(path: Path, rules):
    result = lint_file(path, path.name, rules, LintOptions(default_gpu="H200", keep_budgets=True))
    return result, [item.budget for item in result.deployments]


def _variant(tmp_path: Path, source: Path, old: str, new: str) -> Path:
    path = tmp_path / source.name
    text = source.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    return path


def _gib(quantity) -> float:
    return quantity.to("GiB").magnitude


@pytest.mark.parametrize(
    ("image", "release"),
    [
        # the "vllm-project/vllm" row of each release's notes (github.com/llm-d/llm-d/releases)
        # and the vLLM commit the tag pins
        ("ghcr.io/llm-d/llm-d:v0.2.0", "0.10.0"),  # Dockerfile 6d8d0a24, the v0.10.0 tag
        ("ghcr.io/llm-d/llm-d:v0.2.2", "0.10.0"),
        ("ghcr.io/llm-d/llm-d-cuda:v0.3.0", "0.11.0"),  # f71952c1 (0.11.0rc6, CI-only apart)
        ("ghcr.io/llm-d/llm-d-cuda:v0.3.1", "0.11.0"),  # b8b302cd, the v0.11.0 tag
        ("ghcr.io/llm-d/llm-d-cuda:v0.4.0", "0.11.2"),  # 0.11.2 + cherry-picks: a floor
        ("ghcr.io/llm-d/llm-d-cuda:v0.5.0", "0.14.1"),
        ("ghcr.io/llm-d/llm-d-cuda:v0.5.1", "0.15.1"),
        ("ghcr.io/llm-d/llm-d-cuda:v0.6.0", "0.17.1"),
        ("ghcr.io/llm-d/llm-d-cuda:v0.7.0", "0.19.1"),  # 0.19.1 + cherry-picks: a floor
        ("ghcr.io/llm-d/llm-d-cuda:v0.8.0", "0.23.0"),
        ("ghcr.io/llm-d/llm-d-cuda:v0.8.1", "0.23.0"),
        ("ghcr.io/llm-d/llm-d-cuda:v0.9.0", "0.26.0"),
        # the same build on another base, and a debug variant of a release
        ("ghcr.io/llm-d/llm-d-cuda-gb200:v0.8.0", "0.23.0"),
        ("ghcr.io/llm-d/llm-d-cuda-ubuntu:v0.8.1", "0.23.0"),
        ("ghcr.io/llm-d/llm-d-cuda:v0.5.1-debug", "0.15.1"),
    ],
)
def test_an_llmd_release_reads_as_the_vllm_it_pins(image, release):
    assert image_version(image) == release


def test_an_llmd_tag_with_no_source_is_left_unread():
    for image in (
        "ghcr.io/llm-d/llm-d-cuda-dev:sha-a1bcf21",  # a development build of main
        "ghcr.io/llm-d/llm-d-dev:v0.2.1",  # .version.json's dev-version, not a release
        "ghcr.io/llm-d/llm-d-cuda:v0.6.0-rc.1",  # built 2026-03 on vLLM 0.15.1, not 0.17.1
        "ghcr.io/llm-d/llm-d-cuda:latest",
        "ghcr.io/llm-d/llm-d-cuda:v0.10.0",  # a release hbmlint has no pin for
        "ghcr.io/llm-d/llm-d:0.0.8",  # before v0.2.0: neuralmagic's fork, no source read
        "ghcr.io/llm-d/llm-d-rocm:v0.8.1",  # other accelerators' pins are not read
        "ghcr.io/llm-d/llm-d-xpu:v0.8.1",
    ):
        assert image_version(image) is None, image


def test_kserve_nemotron_pd_on_llmd_v081_is_budgeted_with_vllm_0_23(rules, tmp_path):
    result, budgets = _budgets(NEMOTRON_PD, rules)
    assert len(budgets) == 2  # the decode service and its prefill
    for budget in budgets:
        assert budget.settings.engine_version == "0.23.0"
        assert "engine_version" not in budget.assumed
        # vLLM 0.23's fixed fraction, where the newest vLLM's extensible cache takes it all:
        # 4.0 M tokens of KV, not 20.7 M (sweep 26 F, finding 4)
        assert budget.settings.memory_fraction == pytest.approx(0.92)
        assert _gib(budget.usable) == pytest.approx(128.63, abs=0.01)
        assert _gib(budget.kv_cache) == pytest.approx(58.26, abs=0.01)
        assert budget.kv_tokens.magnitude == 4_009_680
    assert not result.diagnostics
    # the same service on a tag with no source: the newest vLLM, and the budget says so
    unread = _variant(tmp_path, NEMOTRON_PD, "llm-d-cuda:v0.8.1", "llm-d-cuda:v0.10.0")
    for budget in _budgets(unread, rules)[1]:
        assert budget.settings.engine_version is None
        assert NEWEST in budget.assumed["engine_version"]
        assert budget.kv_tokens.magnitude == 20_687_888


def test_llmd_wide_ep_decode_dev_image_stays_newest_and_its_release_is_read(rules, tmp_path):
    # the guide's -dev image names no release: the newest vLLM, said
    _, [budget] = _budgets(WIDE_EP_DECODE, rules)
    assert budget.settings.engine_version is None
    assert NEWEST in budget.assumed["engine_version"]
    assert budget.kv_tokens.magnitude == 1_229_152
    # llm-d#1937 (llm-d/llm-d@cf4dc512, "bump wide-ep images") put the guide on the v0.8.0
    # release: vLLM 0.23.0 and its 0.92 fraction
    released = _variant(
        tmp_path,
        WIDE_EP_DECODE,
        "ghcr.io/llm-d/llm-d-cuda-dev:sha-a1bcf21",
        "ghcr.io/llm-d/llm-d-cuda:v0.8.0",
    )
    result, [budget] = _budgets(released, rules)
    assert budget.settings.engine_version == "0.23.0"
    assert "engine_version" not in budget.assumed
    assert _gib(budget.usable) == pytest.approx(128.63, abs=0.01)
    assert budget.kv_tokens.magnitude == 1_081_168
    assert not result.diagnostics
