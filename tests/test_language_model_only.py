"""vLLM told to serve text only: --language-model-only (0.17 and later), or --limit-mm-per-prompt
0 for every modality of the vision tower (0.15 and later). vLLM then builds no vision tower
and skips the encoder's profile run; hbmlint budgeted both, and called a Qwen3.5 launch that
starts a refusal."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import vllm_compose

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
FIXTURE = "vllm-language-model-only-l40s.yaml"

QWEN35_9B = "vllm serve Qwen/Qwen3.5-9B --max-model-len 32768"


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint_9b(tmp_path: Path, rules, flags: str, version: str = "v0.19.0"):
    path = vllm_compose(tmp_path, f"{QWEN35_9B} {flags}", version)
    result = lint_file(
        path, "compose.yaml", rules, LintOptions(keep_budgets=True, default_gpu="L4")
    )
    return result.diagnostics, result.deployments[0].budget


def gib(quantity) -> float:
    return round(float(quantity.to("GiB").magnitude), 2)


def test_a_text_only_launch_that_fits_is_not_a_refusal(rules, tmp_path):
    """The real pattern on an L40S: with the tower and its profile run counted, one
    262,144-token sequence did not fit (HBM102, an error); without them it does."""
    result = lint_file(
        REAL / FIXTURE, FIXTURE, rules, LintOptions(keep_budgets=True, default_gpu="L40S")
    )
    assert [d.code for d in result.diagnostics] == []
    budget = result.deployments[0].budget
    assert budget.resolved.target.vision is None
    assert gib(budget.weights) == 33.37
    assert gib(budget.overhead["activation"]) == 0.14  # the decoder's pass, no image
    assert "not loaded and not profiled (--language-model-only" in budget.assumed["vision_tower"]
    assert budget.kv_tokens.magnitude > 262_144

    with_tower = tmp_path / "with-tower.yaml"
    with_tower.write_text((REAL / FIXTURE).read_text().replace("      --language-model-only\n", ""))
    before = lint_file(
        with_tower, "w.yaml", rules, LintOptions(keep_budgets=True, default_gpu="L40S")
    )
    assert [d.code for d in before.diagnostics] == ["HBM102"]
    assert gib(before.deployments[0].budget.weights) == 34.2


@pytest.mark.parametrize(
    "flags",
    [
        "--language-model-only",
        """--limit-mm-per-prompt '{"image": 0, "video": 0}'""",
        """--limit-mm-per-prompt '{"image": {"count": 0}, "video": 0}'""",
        "--limit-mm-per-prompt image=0,video=0",
    ],
)
def test_text_only_drops_the_tower_and_its_profile(tmp_path, rules, flags):
    """Qwen3.5-9B on an L4: 0.84 GiB of tower weights and the image profile (1.74 GiB of
    activations against 0.83 for the decoder's pass) free the KV cache from 0.41 GiB, which
    may not hold one 32k sequence (HBM105), to 2.16 GiB."""
    plain, plain_budget = lint_9b(tmp_path, rules, "")
    assert [d.code for d in plain] == ["HBM105"]
    assert gib(plain_budget.kv_cache) == 0.41
    found, budget = lint_9b(tmp_path, rules, flags)
    assert found == []
    assert gib(budget.weights) == 16.8
    assert gib(budget.kv_cache) == 2.16


@pytest.mark.parametrize(
    ("flags", "version"),
    [
        # the tower takes video too: it is built while video's limit stays at 999
        ("""--limit-mm-per-prompt '{"image": 0}'""", "v0.19.0"),
        ("""--limit-mm-per-prompt '{"image": 0, "video": 1}'""", "v0.19.0"),
        # releases before the tower was skipped, or before the flag existed
        ("""--limit-mm-per-prompt '{"image": 0, "video": 0}'""", "v0.14.0"),
        ("--language-model-only", "v0.16.0"),
    ],
)
def test_the_tower_stays_where_vllm_builds_it(tmp_path, rules, flags, version):
    _, plain = lint_9b(tmp_path, rules, "", version)
    _, budget = lint_9b(tmp_path, rules, flags, version)
    assert budget.resolved.target.vision is not None
    assert "vision_tower" not in budget.assumed
    assert gib(budget.kv_cache) == gib(plain.kv_cache)


# SGLang: --language-only is the language-model server of its encoder disaggregation (encoder
# servers run the tower, --encoder-only); --language-model-only its text-only switch for one
# architecture. sgl-project/sglang@001067ff python/sglang/srt/server_args.py
EPD = REAL / "shell-sglang-epd-qwen3-vl.sh"


def lint_script(path: Path, rules):
    return lint_file(path, path.name, rules, LintOptions(keep_budgets=True, default_gpu="L4"))


def test_sglang_language_only_server_holds_no_tower_and_encoders_are_not_budgeted(rules, tmp_path):
    """The EPD pattern of SGLang's docs on L4s: the language-only server fits a 12,288-token
    context once the tower's 1.07 GiB is left out; the same server with the tower built would
    hold 6,254 tokens (HBM104). The encoder servers hold no language model: an info each."""
    result = lint_script(EPD, rules)
    assert [f.code for f in result.diagnostics] == ["HBM011", "HBM011"]
    for info, line in zip(result.diagnostics, (8, 13), strict=True):
        assert "--encoder-only" in info.message and info.span.line == line
    [server] = [d for d in result.deployments if d.budget is not None]
    assert "--language-only: SGLang builds no vision tower" in server.budget.assumed["vision_tower"]

    with_tower = tmp_path / "with-tower.sh"
    with_tower.write_text(EPD.read_text().replace("  --language-only \\\n", ""))
    full = lint_script(with_tower, rules)
    assert [f.code for f in full.diagnostics if f.code != "HBM011"] == ["HBM104"]
    [full_server] = [d for d in full.deployments if d.budget is not None]
    assert gib(full_server.budget.weights) - gib(server.budget.weights) == pytest.approx(1.07)
    # the config still has its vision_config: the fraction SGLang derives is the same
    assert full_server.budget.usable == server.budget.usable


@pytest.mark.parametrize(
    ("flags", "refused"),
    [
        ("--encoder-only --language-only", "--encoder-only and --language-only together"),
        ("--language-only --language-model-only", "--language-model-only with --language-only"),
        ("--encoder-only --disaggregation-mode prefill", "--encoder-only with --disaggregation"),
    ],
)
def test_sglang_refuses_these_combinations(rules, tmp_path, flags, refused):
    path = tmp_path / "serve.sh"
    path.write_text(
        f"python -m sglang.launch_server --model-path Qwen/Qwen3-VL-8B-Instruct {flags} "
        "--mem-fraction-static 0.8 --context-length 8192\n"
    )
    result = lint_script(path, rules)
    found = [f for f in result.diagnostics if f"SGLang refuses {refused}" in f.message]
    assert [(f.code, f.severity.name) for f in found] == [("HBM004", "ERROR")], found


def test_sglang_language_model_only_for_another_architecture_is_a_warning(rules, tmp_path):
    """vLLM's switch copied to SGLang: SGLang takes it only for the architectures of its
    release's allowlist (MuseGlimmer at the commit read), which grows by release and which a
    fine-tune's name need not reveal: a warning, not an error."""
    path = tmp_path / "serve.sh"
    path.write_text(
        "python -m sglang.launch_server --model-path Qwen/Qwen3-VL-8B-Instruct "
        "--language-model-only --mem-fraction-static 0.8 --context-length 8192\n"
    )
    [warning] = [f for f in lint_script(path, rules).diagnostics if f.code == "HBM004"]
    assert warning.severity.name == "WARNING"
    assert "SGLang may refuse --language-model-only for Qwen/Qwen3-VL-8B-Instruct" in (
        warning.message
    )
    assert "LANGUAGE_MODEL_ONLY_ARCHITECTURES" in warning.message


def test_sglang_language_model_only_on_a_local_path_is_not_judged(rules, tmp_path):
    # a path does not say which architecture it holds: no refusal is claimed
    path = tmp_path / "serve.sh"
    path.write_text(
        "python -m sglang.launch_server --model-path /models/glimmer --language-model-only\n"
    )
    assert "HBM004" not in {f.code for f in lint_script(path, rules).diagnostics}
