"""catalog: models that official 2026 serving recipes launch and hbmlint could not identify
offline (sweep 26 G, report section 3: HBM015 "cannot check offline"). Each recipe fixture is
linted as stated and its weights a GPU checked against the checkpoint (the tests run with
HF_HUB_OFFLINE=1: conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from catalog_entry import architecture

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules
from hbmlint.units import in_bytes

REAL = Path(__file__).parent / "fixtures" / "real"

COVERED = {
    "sg-devstral2-123b-h100-tp4.sh",
    "sg-devstral2-123b-h200-tp2.sh",
}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _lint(name: str, rules, gpu: str):
    path = REAL / name
    return lint_file(path, name, rules, LintOptions(default_gpu=gpu, keep_budgets=True))


# --- mistralai/Devstral-2-123B-Instruct-2512 ----------------------------------------------------
# params.json as transformers' params-conversion test transcribes it (code search file id
# 57364431815): Mistral Large 2's 88 x 12288 decoder (96 heads, 8 KV heads of 128, FFN 28672),
# vocabulary 131072 untied, YaRN x64 over 4096 (262,144 positions), FP8 per tensor.
DEVSTRAL2 = "mistralai/Devstral-2-123B-Instruct-2512"
H, LAYERS, VOCAB = 12288, 88, 131072
DECODER = LAYERS * (2 * H * 96 * 128 + 2 * H * 8 * 128 + 3 * H * 28672)
EMBEDDINGS = 2 * VOCAB * H
# No safetensors total of the repository was found in a public source: the checkpoint is
# counted from the transcribed fields, one byte a decoder weight (FP8) and two for the BF16
# embedding and lm_head (the converter keeps only lm_head out of FP8).
DEVSTRAL2_CHECKPOINT = DECODER + 2 * EMBEDDINGS


def test_devstral2_is_mistral_large_2_with_the_tekken_vocabulary():
    arch = architecture(DEVSTRAL2)
    assert (arch.num_layers, arch.hidden_size, arch.vocab_size) == (LAYERS, H, VOCAB)
    assert (arch.num_attention_heads, arch.num_kv_heads, arch.head_dim) == (96, 8, 128)
    assert not arch.tie_word_embeddings
    assert arch.max_length == 262144
    # the card's "123B" (Mistral Large 2's count); the larger vocabulary makes it 125.0B
    parameters = DECODER + EMBEDDINGS
    assert parameters == pytest.approx(125.0e9, rel=0.002)
    assert parameters == pytest.approx(123e9, rel=0.02)


@pytest.mark.parametrize(
    ("fixture", "gpu", "tp"),
    [("sg-devstral2-123b-h100-tp4.sh", "H100", 4), ("sg-devstral2-123b-h200-tp2.sh", "H200", 2)],
)
def test_devstral2_sglang_cookbook_launches_are_budgeted(rules, fixture, gpu, tp):
    # sgl-cookbook's Devstral2ConfigGenerator: TP 4 on H100, TP 2 on H200 (was HBM015)
    result = _lint(fixture, rules, gpu)
    [item] = result.deployments
    assert in_bytes(item.budget.weights) == pytest.approx(DEVSTRAL2_CHECKPOINT / tp, rel=0.02)
    codes = [f.code for f in result.diagnostics]
    assert "HBM015" not in codes
    assert Severity.ERROR not in {f.severity for f in result.diagnostics}
