"""TGI serving Gemma 3 with a long warm-up prefill: once "All clear", TGI refused both at its
warm-up (huggingface/text-generation-inference #3130 and #3105, tests/fixtures/real/tgi31*).

TGI 3.2.x runs Gemma 3's prefill with an image in the batch through dense SDPA (an fp32 score
tensor of heads per shard x seq^2, its softmax beside it, and dense masks), and the router's
warm-up always sends an image; 3.2.0's launcher also reads the head size from config.json's top
level only, so Gemma 3 (text_config) falls back to flashdecoding (engines.yaml tgi
head_dim_from_text_config_since, dense_prefill)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from hbmlint.catalog import engine_defaults, tgi_warmup
from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
TGI3130 = REAL / "tgi3130-gemma3-27b-4xa100.sh"  # 4x A100 80GB, TGI 3.2.1, prefill 31,000
TGI3105 = REAL / "tgi3105-gemma3-27b-4xh100.sh"  # 4x H100 80GB, TGI 3.2.0, prefill 32,000
COVERED = {TGI3130.name, TGI3105.name}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _lint(path: Path, rules, gpu: str):
    return lint_file(path, path.name, rules, LintOptions(default_gpu=gpu, keep_budgets=True))


def _findings(result) -> list[tuple[str, Severity]]:
    return [(f.code, f.severity) for f in result.diagnostics]


def _script(tmp_path: Path, tag: str, flags: str, env: str = "") -> Path:
    path = tmp_path / "serve.sh"
    path.write_text(
        f"docker run --gpus all {env}ghcr.io/huggingface/text-generation-inference:{tag} "
        f"--model-id google/gemma-3-27b-it --num-shard 4 {flags}\n",
        encoding="utf-8",
    )
    return path


def test_tgi_3105_refuses_at_its_warm_up(rules):
    # "CUDA out of memory. Tried to allocate 30.52 GiB" = 8 heads a shard x 32,000^2 x 4 B, the
    # fp32 scores; with their softmax and the 3.2.0 mask 64.85 GiB a GPU beside the weights
    result = _lint(TGI3105, rules, "H100-SXM-80GB")
    assert _findings(result) == [("HBM102", Severity.ERROR)]
    [error] = result.diagnostics
    assert error.message.startswith("TGI's warm-up does not fit on the H100-SXM-80GB")
    assert "prefill of 32,000 tokens runs this model's attention densely" in error.message
    assert "64.85 GiB of scores and masks per GPU" in error.message
    advice = " ".join(fix.message for fix in error.fixes)
    assert "--max-batch-prefill-tokens" in advice and "Run TGI 3.3.0 or later" in advice
    budget = result.deployments[0].budget
    assert "30.52" not in budget.assumed["overhead"]  # one copy is 30.52; two are counted
    assert "2 x 8 x 32,000^2 x 4 B = 61.04 GiB" in budget.assumed["overhead"]


def test_tgi_3105s_launcher_falls_back_to_flashdecoding(rules):
    # TGI 3.2.0's resolve_attention finds no head_dim at config.json's top level (Gemma 3 keeps
    # it in text_config): "Forcing attention to 'flashdecoding'", blocks of 256
    budget = _lint(TGI3105, rules, "H100-SXM-80GB").deployments[0].budget
    assert budget.settings.block_size == 256
    assert "flashdecoding (the launcher finds no head size" in budget.assumed["block_size"]


def test_tgi_3130_refuses_although_its_model_is_a_local_directory(rules):
    # /data/gemma-3-27b-it may hold any checkpoint of it, but the warm-up's dense attention
    # alone (2 requests, 30,000 + 1,000 tokens, padded: 2 x 2 x 8 x 30,000^2 x 4 B of scores,
    # two masks) exceeds the card whatever the weights: "Not enough memory to handle 31000
    # prefill tokens"
    result = _lint(TGI3130, rules, "A100-SXM4-80GB")
    assert _findings(result) == [("HBM102", Severity.ERROR)]
    [error] = result.diagnostics
    assert "120.70 GiB of scores and masks per GPU" in error.message
    assert "which of its checkpoints" not in error.message
    budget = result.deployments[0].budget
    # TGI 3.2.1 reads text_config's head_dim (128): flashinfer, yet the dense path stays
    assert budget.settings.block_size == 1
    assert "whatever the attention backend" in budget.assumed["overhead"]


def test_a_short_warm_up_prefill_stays_clear(tmp_path, rules):
    # the same four A100s and TGI 3.2.1 with an 8,192-token prefill: two warm-up requests
    # (8,000 + 192 tokens) padded to 8,000, 7.63 GiB of scores, and room to spare
    flags = "--max-input-tokens 8000 --max-total-tokens 8192 --max-batch-prefill-tokens 8192"
    result = _lint(_script(tmp_path, "3.2.1", flags), rules, "A100-SXM4-80GB")
    assert _findings(result) == []
    budget = result.deployments[0].budget
    assert "2 x 2 x 8 x 8,000^2 x 4 B = 7.63 GiB" in budget.assumed["overhead"]
    assert budget.kv_tokens.magnitude > 400_000


LONG = "--max-input-tokens 32000 --max-total-tokens 64000 --max-batch-prefill-tokens 32000"


def test_tgi_3_3_hands_the_mask_to_flashinfer(tmp_path, rules):
    # from 3.3.0 (#3167) the prefill takes flashinfer with the mask: no dense attention
    result = _lint(_script(tmp_path, "3.3.7", LONG), rules, "H100-SXM-80GB")
    assert _findings(result) == []
    budget = result.deployments[0].budget
    assert budget.warmup_attention.magnitude == 0
    assert "dense SDPA" not in budget.assumed.get("overhead", "")


def test_tgi_3_3_off_flashinfer_still_runs_it_densely(tmp_path, rules):
    env = "-e ATTENTION=flashdecoding "
    result = _lint(_script(tmp_path, "3.3.7", LONG, env), rules, "H100-SXM-80GB")
    assert _findings(result) == [("HBM102", Severity.ERROR)]
    fixes = " ".join(fix.message for fix in result.diagnostics[0].fixes)
    assert "Run TGI 3.3.0 or later" not in fixes
    assert "as its backend is flashdecoding" in result.deployments[0].budget.assumed["overhead"]


def _gemma3(text_config_head_dim: int) -> SimpleNamespace:
    return SimpleNamespace(
        head_dim=256,
        config_top_head_dim=0,
        text_config_head_dim=text_config_head_dim,
        model_type="gemma3_text",
    )


@pytest.mark.parametrize(
    ("release", "stated", "head"),
    [
        ("3.2.0", 128, 0),  # the top level only
        ("3.2.1", 128, 128),  # text_config's head_dim (#3116)
        ("3.2.3", 0, 0),  # none stated: still none
        ("3.3.0", 0, 256),  # gemma3's 256 where text_config states none (#3167)
        (None, 128, 128),  # the newest
    ],
)
def test_the_launchers_head_size_by_release(release, stated, head):
    spec = engine_defaults("tgi")
    version = tgi_warmup.release(release)
    assert tgi_warmup.launcher_head_dim(spec, version, _gemma3(stated)) == head


def test_a_config_without_text_config_keeps_its_head_size():
    spec = engine_defaults("tgi")
    llama = SimpleNamespace(head_dim=128, config_top_head_dim=None, model_type="llama")
    assert tgi_warmup.launcher_head_dim(spec, tgi_warmup.release("3.2.0"), llama) == 128
