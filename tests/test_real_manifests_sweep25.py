"""Patterns from public repositories hbmlint had never seen (sweep 25, session 38): each test
names its source and says what a user sees."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"

COVERED = {
    "devstral-rtx5090/config.yaml",
    "devstral-rtx5090/devstral-catalog.yaml",  # its model, as a team catalog
    "devstral-rtx5090/.hbmlint.yaml",
    "vllm-config-classic-spec-rtx5070.yaml",
    "shell-vllm-wrapper-args-glm53.sh",
    "flux-prodstack-vllm066-chunked-prefill-a5000.yaml",
    "compose-tgi-two-services-gpu0.yml",
}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _lint(path: Path, rules, gpu: str | None = None, **options):
    return lint_file(
        path, path.name, rules, LintOptions(default_gpu=gpu, keep_budgets=True, **options)
    )


def _codes(result) -> list[tuple[str, Severity]]:
    return [(f.code, f.severity) for f in result.diagnostics]


# --- an error that held only on the newest vLLM -------------------------------------------------
# Two repositories name no release in the file hbmlint reads, and hbmlint assumed the newest vLLM,
# whose extensible KV cache (0.34) keeps a margin free that earlier releases do not. The margin
# alone made one sequence not fit: an error the releases the authors ran do not raise.
# BigBIueWhale/devstral_vllm_config config.yaml @ 96a58618: the author's vLLM v0.15.1 log gives
# exactly the 98,768 tokens asked for (the script beside it pins vllm/vllm-openai:v0.15.1).
DEVSTRAL = REAL / "devstral-rtx5090"


def test_a_verdict_that_rests_on_the_newest_release_is_a_warning(cli, tmp_path, monkeypatch):
    folder = tmp_path / "repo"
    shutil.copytree(DEVSTRAL, folder)
    (folder / ".git").mkdir()
    monkeypatch.chdir(folder)
    unnamed = cli("--format", "json", "--gpu", "RTX-5090", "config.yaml").json()
    assert [(f["code"], f["severity"]) for f in unnamed] == [("HBM105", "warning")]
    # a release that keeps the margin: the refusal is certain again
    newest = cli(
        "--format", "json", "--gpu", "RTX-5090", "--set", "engine_version=0.34.0", "config.yaml"
    )
    assert [(f["code"], f["severity"]) for f in newest.json()] == [("HBM102", "error")]
    # the release the author ran: it starts
    pinned = cli("--gpu", "RTX-5090", "--set", "engine_version=0.15.1", "config.yaml")
    assert pinned.exit_code == 0


def test_a_drafter_on_a_12_gb_card_is_a_warning_when_no_release_is_named(rules):
    # bharaththiruveedula/benchmark-speculative-decoding configs/vllm_classic_5070.yaml @ 47b6a7d:
    # its README ran vLLM 0.20.0 and 0.27.1 on RTX 5070 12 GB cards
    path = REAL / "vllm-config-classic-spec-rtx5070.yaml"
    result = _lint(path, rules, gpu="RTX-5070-12GB")
    assert ("HBM105", Severity.WARNING) in _codes(result)
    assert not [f for f in result.diagnostics if f.severity is Severity.ERROR]


# --- a wrapper that forwards its arguments ----------------------------------------------------
# SagaK-dev/GLM-5.3 scripts/serve_vllm.sh @ 1f7e970: `exec vllm serve "$MODEL_ID" ... "$@"`, the
# tensor-parallel size given when the script is run. Budgeted at TP 1 it was a certain HBM101 for
# a model of hundreds of GiB; with the parallelism possibly in "$@" a refusal is a warning.
WRAPPER = REAL / "shell-vllm-wrapper-args-glm53.sh"


def test_a_wrapper_that_may_be_given_the_parallelism_warns(rules, tmp_path):
    # the same script on a catalogued model of the same family (GLM-5.3 has no config here)
    path = tmp_path / "serve_vllm.sh"
    path.write_text(WRAPPER.read_text().replace("zai-org/GLM-5.3", "zai-org/GLM-4.7"))
    result = _lint(path, rules, gpu="H100")
    assert not [f for f in result.diagnostics if f.severity is Severity.ERROR]
    [weights] = [f for f in result.diagnostics if f.code == "HBM101"]
    assert weights.severity is Severity.WARNING
    assert "if the script is run with no flags added" in weights.message
    assert "at line 12" in weights.message  # where "$@" is
    # with the parallelism written, what the file says is what runs: an error again
    fixed = tmp_path / "serve_tp1.sh"
    fixed.write_text(path.read_text().replace('"$@"', '--tensor-parallel-size 1 "$@"'))
    [weights] = [f for f in _lint(fixed, rules, gpu="H100").diagnostics if f.code == "HBM101"]
    assert weights.severity is Severity.ERROR


# --- vLLM's V0 engine with chunked prefill written ------------------------------------------
# jlengelbrecht/prox-ops kubernetes/apps/ai/vllm/app/helmrelease.yaml @ 92b60d5c: production-stack
# values with `enableChunkedPrefill: true` on vllm/vllm-openai:v0.6.6.post1 (an RTX A5000). The V0
# engine profiles one chunk (max_num_batched_tokens 2048), not a whole max_model_len, once chunked
# prefill is on; hbmlint turned it on only by the engine's own rule (above 32K).
PROXOPS = REAL / "flux-prodstack-vllm066-chunked-prefill-a5000.yaml"


def test_chunked_prefill_as_written_sizes_the_v0_profile(rules):
    [item] = _lint(PROXOPS, rules, gpu="RTX-A5000").deployments
    assert item.budget.settings.max_num_batched_tokens == 2048
    assert "chunked prefill" in item.budget.assumed["max_num_batched_tokens"]


def test_chunked_prefill_written_off_sizes_a_whole_context(rules, tmp_path):
    path = tmp_path / "values.yaml"
    text = PROXOPS.read_text().replace("enableChunkedPrefill: true", "enableChunkedPrefill: false")
    path.write_text(text.replace("maxModelLen: 8192", "maxModelLen: 32768"))
    [item] = _lint(path, rules, gpu="RTX-A5000").deployments
    assert item.budget.settings.max_num_batched_tokens == 32768


# --- two engines on one GPU -----------------------------------------------------------------
# HouXianzhoua/llm-inference-platform docker-compose.yml @ 01b9a97f: two TGI services, both on
# device_ids ['0'] and TGI's default --cuda-memory-fraction 1.0. Each was budgeted as if it had
# the card alone ("All clear"); TGI sizes its KV cache from the memory it finds free, so the one
# that starts second cannot.
SHARED = REAL / "compose-tgi-two-services-gpu0.yml"


def test_two_engines_on_one_gpu_past_its_memory_warn(rules):
    result = _lint(SHARED, rules, gpu="RTX-4070-SUPER")
    [shared] = [f for f in result.diagnostics if f.code == "HBM019"]
    assert shared.severity is Severity.WARNING
    assert "tgi-qwen2 and tgi-llama3 both run on GPU 0" in shared.message
    assert "200%" in shared.message
    lines = SHARED.read_text().splitlines()
    second = max(n for n, line in enumerate(lines, 1) if "- driver: nvidia" in line)
    assert shared.span.line == second  # the second service's device request


def test_fractions_that_share_the_gpu_say_nothing(rules, tmp_path):
    path = tmp_path / "docker-compose.yml"
    text = SHARED.read_text().replace(
        "      - --trust-remote-code\n",
        "      - --trust-remote-code\n      - --cuda-memory-fraction=0.45\n",
    )
    path.write_text(text)
    result = _lint(path, rules, gpu="RTX-4070-SUPER")
    assert "HBM019" not in {f.code for f in result.diagnostics}
    # and on GPUs of their own, nothing either
    apart = tmp_path / "apart" / "docker-compose.yml"
    apart.parent.mkdir()
    second = SHARED.read_text().rsplit("device_ids: ['0']", 1)
    apart.write_text("device_ids: ['1']".join(second))
    assert "HBM019" not in {f.code for f in _lint(apart, rules, gpu="RTX-4070-SUPER").diagnostics}


def test_services_of_profiles_never_started_together_say_nothing(rules, tmp_path):
    path = tmp_path / "docker-compose.yml"
    text = SHARED.read_text().replace(
        "    runtime: nvidia\n", "    runtime: nvidia\n    profiles: [PROFILE]\n"
    )
    path.write_text(text.replace("PROFILE", "qwen", 1).replace("PROFILE", "llama", 1))
    assert "HBM019" not in {f.code for f in _lint(path, rules, gpu="RTX-4070-SUPER").diagnostics}


# --- `hbmlint formats` reads a file of code as the lint does ----------------------------------
# A Modal app serving Ministral 3 with vLLM (code index file id 20529959331): the lint never
# parses a .py file as YAML, but `hbmlint formats` said "YAML syntax error" at its line 16.
MODAL = REAL / "unread-code" / "modal-ministral3-8b.py"


def test_formats_says_a_file_of_code_is_not_yaml(cli):
    shown = cli("formats", MODAL).output
    assert "a file of code, not YAML" in shown
    assert "YAML" not in shown.replace("not YAML", "")
    assert cli(MODAL).exit_code == 0  # and the lint says nothing of it either
