"""Patterns from public repositories and logs hbmlint had never seen (sweep 26, session 39):
each test names its source and says what a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules
from hbmlint.units import in_bytes

REAL = Path(__file__).parent / "fixtures" / "real"

COVERED = {
    "vllm-0171-qwen35-2b-24gb-gmu050-262k.sh",
    "compose-stacksmith-trtllm.yml",
}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _lint(path: Path, rules, gpu: str | None = None, **options):
    return lint_file(
        path, path.name, rules, LintOptions(default_gpu=gpu, keep_budgets=True, **options)
    )


# --- vLLM 0.17's vision-tower profile ---------------------------------------------------------
# Hoover4 ai_services/README.md: vLLM 0.17.1 serving Qwen/Qwen3.5-2B at 262,144 tokens and 0.50
# on a 24 GB card logged "Available KV cache memory: 5.95 GiB" and a concurrency of 1.97x.
# With the decoder's MLP factor for the tower's dummy image hbmlint said 5.02 GiB (-15.6%); the
# factor fitted on 0.18-0.19 logs (2.6) holds from 0.17, the first release serving Qwen3.5.
QWEN35_2B = REAL / "vllm-0171-qwen35-2b-24gb-gmu050-262k.sh"


def test_the_qwen35_tower_profile_on_vllm_017_is_the_fitted_one(rules):
    [item] = _lint(QWEN35_2B, rules, gpu="RTX-3090").deployments
    kv_gib = in_bytes(item.budget.kv_cache) / 2**30
    assert abs(kv_gib - 5.95) / 5.95 < 0.05  # was 5.02 GiB


def test_a_fraction_the_engine_starts_with_is_no_error(rules, tmp_path):
    # by the log, 0.38 of the card leaves 3.12 GiB beside the other memory: 271k tokens, one
    # sequence of 262,144 fits and vLLM starts; hbmlint called it a certain refusal (HBM102)
    path = tmp_path / QWEN35_2B.name
    path.write_text(QWEN35_2B.read_text().replace("utilization 0.50", "utilization 0.38"))
    result = _lint(path, rules, gpu="RTX-3090")
    assert Severity.ERROR not in {f.severity for f in result.diagnostics}
    assert [f.code for f in result.diagnostics] == ["HBM105"]


# --- trtllm-serve's arguments after an unread model --------------------------------------------
# MichaelSchmidle/stacksmith trtllm/docker-compose.yml @ 03846b6a: `exec trtllm-serve
# "$MODEL_HANDLE" ... ${TRTLLM_SERVER_ARGS}`. The extra arguments at the end were reported as
# "the model is ${TRTLLM_SERVER_ARGS}", a second time, though the model is the first word.
STACKSMITH = REAL / "compose-stacksmith-trtllm.yml"


def test_the_model_is_said_unread_once_and_is_the_first_word(rules):
    result = _lint(STACKSMITH, rules, gpu="H100")
    said = [f.message for f in result.diagnostics if f.message.startswith("the model is")]
    assert said == [
        "the model is $MODEL_HANDLE, which hbmlint cannot read here; this server is not checked"
    ]
    assert result.deployments == []
