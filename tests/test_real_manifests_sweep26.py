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
    "trtllm-module-serve-minimax-m3-gb200.sh",
    "dynamo-vllm-dsr1-hopper-dep16-dep16.yaml",
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


# --- a local directory's config.json may carry the model card's YaRN edit ------------------------
# solv-stack docker-compose.vllm.yml (tests/fixtures/real/compose-solv-stack-build): with no .env
# its defaults serve /models/Qwen2.5-7B-Instruct at --max-model-len 131072. Qwen2.5's model card
# tells users to add a YaRN rope_scaling of factor 4 to config.json for exactly that length, and
# a local copy may carry it: a refusal there is not a promise. A Hub id is the published config.
SOLV = REAL / "compose-solv-stack-build" / "docker-compose.vllm.yml"


def _context_findings(tmp_path: Path, rules, model: str, length: int) -> list:
    path = tmp_path / "docker-compose.vllm.yml"
    text = SOLV.read_text().replace("/models/${VLLM_MODEL:-Qwen2.5-7B-Instruct}", model)
    path.write_text(text.replace("${MAX_MODEL_LEN:-131072}", str(length)))
    result = _lint(path, rules, gpu="RTX-5090")
    return [f for f in result.diagnostics if f.code == "HBM303"]


def test_a_local_qwen25_at_its_yarn_length_warns(rules, tmp_path):
    [found] = _context_findings(tmp_path, rules, "/models/Qwen2.5-7B-Instruct", 131072)
    assert found.severity is Severity.WARNING
    assert "rope_scaling (YaRN)" in found.message


def test_the_hub_model_or_a_length_past_any_edit_stays_an_error(rules, tmp_path):
    [hub] = _context_findings(tmp_path, rules, "Qwen/Qwen2.5-7B-Instruct", 131072)
    assert hub.severity is Severity.ERROR
    [far] = _context_findings(tmp_path, rules, "/models/Qwen2.5-7B-Instruct", 262144)
    assert far.severity is Severity.ERROR


# --- trtllm-serve run as its module -------------------------------------------------------------
# NVIDIA/TensorRT-LLM deployment guide for MiniMax-M3 (@ 0127f3ab) with its curated config:
# `trtllm-llmapi-launch python3 -m tensorrt_llm.commands.serve $MODEL ... --extra_llm_api_options
# FILE` on 8 x GB200. The module form was "All clear, 0 deployments"; `trtllm-serve` was read.
MINIMAX_M3 = REAL / "trtllm-module-serve-minimax-m3-gb200.sh"


def test_the_serve_module_is_read_as_trtllm_serve(rules):
    result = _lint(MINIMAX_M3, rules, gpu="GB200")
    [item] = result.deployments
    assert item.deployment.engine == "trtllm"
    assert item.budget.settings.max_model_len == 2068  # the here-document's max_seq_len
    assert item.budget.settings.tensor_parallel == 8
    assert Severity.ERROR not in {f.severity for f in result.diagnostics}


# --- a shell given an engine's flags with no engine -----------------------------------------------
# ai-dynamo/dynamo recipes/deepseek-r1/vllm/disagg/deploy_hopper_prefill_dep16_decode_dep16.yaml
# @ 4806fa82: each worker's `command: [/bin/bash, -c]` is followed by `args: [--model, ...]`,
# no `python3 -m dynamo.vllm`: bash refuses --model as an option ("invalid option") and neither
# 16-GPU worker starts. It was "All clear, 0 deployments".
DYNAMO_BASH = REAL / "dynamo-vllm-dsr1-hopper-dep16-dep16.yaml"


def test_a_shell_given_the_workers_flags_is_said(rules):
    result = _lint(DYNAMO_BASH, rules, gpu="H200")
    said = [f for f in result.diagnostics if f.code == "HBM020"]
    assert len(said) == 2  # the prefill and the decode worker
    assert all(f.severity is Severity.WARNING for f in said)
    lines = DYNAMO_BASH.read_text().splitlines()
    assert all(lines[f.span.line - 1].strip() == "- --model" for f in said)
    assert "invalid option" in said[0].message


def _pod(tmp_path: Path, command: str, args: str) -> Path:
    path = tmp_path / "deployment.yaml"
    path.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vllm}\nspec:\n  template:\n"
        "    spec:\n      containers:\n        - name: vllm\n"
        "          image: vllm/vllm-openai:v0.11.0\n"
        f"          command: {command}\n          args: {args}\n"
        "          resources: {limits: {nvidia.com/gpu: 1}}\n"
    )
    return path


def test_a_pod_whose_shell_takes_the_flags_warns_and_a_command_string_is_read(rules, tmp_path):
    flags = '["--model", "Qwen/Qwen3-8B", "--max-model-len", "8192"]'
    result = _lint(_pod(tmp_path, '["/bin/bash", "-c"]', flags), rules, gpu="H100")
    assert [f.code for f in result.diagnostics] == ["HBM020"]
    script = '["vllm serve Qwen/Qwen3-8B --max-model-len 8192"]'
    result = _lint(_pod(tmp_path, '["/bin/bash", "-c"]', script), rules, gpu="H100")
    assert "HBM020" not in {f.code for f in result.diagnostics}
    assert len(result.deployments) == 1
