"""Speculative decoding as real deployments write it (sweep 26, report B): each test names its
source and says what a user sees."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"

COVERED = {
    "triton-llmapi-eagle3/tensorrt_llm/1/model.yaml",
    "varad-compose-43df83f-eagle3-a10g.yml",
    "varad-compose-head-eagle3-a10g.yml",
    "spark-recipes-v031/recipes.sh",
    "spark-recipes-v031/.hbmlint.yaml",  # the checkpoints the page downloads, as model-paths
    "compose-gemma4-26b-nvfp4-legacy-spec-flags-nightly.yml",
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


# --- §1: Triton's TensorRT-LLM llmapi model.yaml ------------------------------------------------
# A Triton + TensorRT-LLM LLM API guide's EAGLE-3 model.yaml (top-level model, backend: pytorch,
# speculative_config with decoding_type) was read as a vLLM --config file: error HBM004 "vLLM
# refuses it", though no vLLM runs there. It is TensorRT-LLM's LLM(**args), budgeted as such.
TRITON = REAL / "triton-llmapi-eagle3" / "tensorrt_llm" / "1" / "model.yaml"


def test_a_triton_llmapi_model_yaml_is_tensorrt_llm_with_its_eagle3_head(rules):
    result = _lint(TRITON, rules, gpu="H100")
    assert not [f for f in result.diagnostics if f.severity is Severity.ERROR]
    assert "HBM004" not in [code for code, _ in _codes(result)]
    [item] = result.deployments
    assert item.deployment.engine == "trtllm"
    assert item.deployment.source_format == "trtllm-llm-api"
    assert item.deployment.name == "tensorrt_llm"  # Triton names the model after its folder
    spec = item.deployment.speculative
    assert (spec.method, spec.model.name, spec.num_speculative_tokens) == (
        "eagle3",
        "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B",
        3,
    )
    assert item.budget.draft_weights.to("GiB").magnitude == pytest.approx(1.77, abs=0.01)
    # what is left: the head covers 2,048 tokens, the target 131,072 (a warning at its line)
    [(code, severity, line)] = [(f.code, f.severity, f.span.line) for f in result.diagnostics]
    assert (code, severity, line) == ("HBM207", Severity.WARNING, 15)


def test_a_vllm_config_with_a_method_is_still_a_vllm_config(rules, tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(
        "model: meta-llama/Llama-3.1-8B-Instruct\ntensor_parallel_size: 1\n"
        "speculative_config: {method: eagle3, model: yuhuili/EAGLE3-LLaMA3.1-Instruct-8B,"
        " num_speculative_tokens: 3}\n"
    )
    [item] = _lint(path, rules, gpu="H100").deployments
    assert item.deployment.engine == "vllm"


@pytest.mark.parametrize(
    "marker",
    ["backend: pytorch", "triton_config: {max_batch_size: 0}", "max_batch_size: 64"],
)
def test_a_key_only_tensorrt_llm_has_makes_it_tensorrt_llm(rules, tmp_path, marker):
    path = tmp_path / "llm.yaml"
    path.write_text(f"model: Qwen/Qwen3-8B\ntensor_parallel_size: 1\n{marker}\n")
    result = _lint(path, rules, gpu="H100")
    [item] = result.deployments
    assert item.deployment.engine == "trtllm"
    assert not [f for f in result.diagnostics if f.severity is Severity.ERROR]


# --- §2 and §3: SGLang EAGLE-3 on an A10G ------------------------------------------------------
# varad-more/inference-engine-benchmark-system docker-compose.yml @ 43df83f (2026-03-31) and
# @ 9cafa6a (HEAD), service sglang-eagle3: lmsysorg/sglang:nightly-dev-cu13-20260321 (at most
# 0.5.9), --mem-fraction-static 0.70 (HEAD 0.65), --context-length 8192 (HEAD 4096),
# jamesliu1/sglang-EAGLE3-Llama-3.1-Instruct-8B (max_position_embeddings 2048). The repository's
# log (results_specdec/20260331_llama31_rerun) shows the 43df83f server refusing with SGLang's
# "ValueError: Warning: Target model's context_length (8192) is greater than the derived
# context_length (2048). ... set the env var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1".
VARAD = REAL / "varad-compose-43df83f-eagle3-a10g.yml"
VARAD_HEAD = REAL / "varad-compose-head-eagle3-a10g.yml"


def _sglang(result):
    return [f for f in result.diagnostics if f.deployment == "sglang-eagle3"]


def test_sglang_refuses_a_context_length_above_the_drafters(rules):
    found = _sglang(_lint(VARAD, rules, gpu="A10G-24GB"))
    [error] = [f for f in found if f.severity is Severity.ERROR]
    assert (error.code, error.span.line) == ("HBM331", 124)  # at --context-length's value
    assert "--context-length is 8,192 tokens" in error.message
    assert "covers at most 2,048 tokens" in error.message
    assert "Target model's context_length" in error.message
    # the warning vLLM's capping earns is not said besides
    assert "HBM207" not in [f.code for f in found]
    # the pre-0.5.14 budget: the drafter outside the fraction, so no HBM101 (was a false error)
    assert "HBM101" not in [f.code for f in found]


def test_the_head_files_4096_is_refused_too(rules):
    found = _sglang(_lint(VARAD_HEAD, rules, gpu="A10G-24GB"))
    codes = {(f.code, f.severity, f.span.line) for f in found}
    assert ("HBM331", Severity.ERROR, 127) in codes
    # at 0.65 the target alone (15.02 GiB) exceeds the fraction: SGLang's "Not enough memory"
    [weights] = [f for f in found if f.code == "HBM101"]
    assert weights.severity is Severity.ERROR
    assert weights.message.startswith("the target's weights need 15.02 GiB per GPU")
    assert "outside the fraction" in weights.message


def test_with_the_variable_set_the_drafter_is_stretched_and_hbm207_warns(rules, tmp_path):
    path = tmp_path / "docker-compose.yml"
    text = VARAD.read_text()
    anchor = "      - CUDA_VISIBLE_DEVICES=0\n"
    assert anchor in text
    path.write_text(
        text.replace(anchor, anchor + "      - SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1\n")
    )
    found = _sglang(_lint(path, rules, gpu="A10G-24GB"))
    assert "HBM331" not in [f.code for f in found]
    [warning] = [f for f in found if f.code == "HBM207"]
    assert warning.severity is Severity.WARNING


def test_without_context_length_the_drafter_keeps_its_own(rules, tmp_path):
    path = tmp_path / "docker-compose.yml"
    text = VARAD.read_text()
    written = '      - "--context-length"\n      - "${MAX_MODEL_LEN:-8192}"\n'
    assert written in text
    path.write_text(text.replace(written, ""))
    found = _sglang(_lint(path, rules, gpu="A10G-24GB"))
    assert "HBM331" not in [f.code for f in found]
    assert not [f for f in found if f.severity is Severity.ERROR]


def test_before_0_5_14_the_drafter_is_outside_the_fraction(cli, tmp_path, monkeypatch):
    # the report's what-if: a context the drafter covers. hbmlint's budget sizes the pool as
    # usable - target (1,851 tokens), so HBM101 "target + draft exceed the fraction" was a
    # false error against hbmlint's own pool; what is left is the pool below the context
    monkeypatch.chdir(REAL)
    run = cli(
        "--format",
        "json",
        "--gpu",
        "A10G-24GB",
        "--set",
        "serving.max_model_len=2048",
        VARAD.name,
    )
    found = [f for f in run.json() if f["deployment"] == "sglang-eagle3"]
    assert not [f for f in found if f["severity"] == "error"]
    codes = [f["code"] for f in found]
    assert "HBM101" not in codes and "HBM201" not in codes
    [pool] = [f for f in found if f["code"] == "HBM104"]
    assert (pool["severity"], pool["line"]) == ("warning", 124)
    assert "holds 1,851 tokens" in pool["message"]


def test_from_0_5_14_the_drafters_weights_count_against_the_fraction(cli, monkeypatch):
    monkeypatch.chdir(REAL)
    run = cli(
        "--format",
        "json",
        "--gpu",
        "A10G-24GB",
        "--set",
        "serving.max_model_len=2048",
        "--set",
        "engine_version=0.5.14",
        VARAD.name,
    )
    [weights] = [
        f for f in run.json() if f["deployment"] == "sglang-eagle3" and f["code"] == "HBM101"
    ]
    assert weights["severity"] == "error"
    assert "(15.02 GiB target + 1.77 GiB draft)" in weights["message"]


# --- §5: HBM210 where --max-num-seqs caps the sequences ---------------------------------------
# ctala/local-llm-agentic-workflows, "vLLM and NIM Recipes for DGX Spark" (code-search
# 70511306272): six recipes "status: verified" on a GB10, among them Nemotron-3-Super-120B NVFP4
# with MTP k=3 at --max-model-len 131072 --max-num-seqs 4. The cache with the state slots holds
# 1,189,616 tokens, more than the 4 x 131,072 the deployment can ever run: the slots displace
# nothing it would use, yet HBM210 warned that they took 36.6% of the cache.
SPARK = REAL / "spark-recipes-v031"


def _spark(cli, tmp_path, monkeypatch, text=None):
    folder = tmp_path / "repo"
    shutil.copytree(SPARK, folder)
    (folder / ".git").mkdir()
    if text is not None:
        (folder / "recipes.sh").write_text(text)
    monkeypatch.chdir(folder)
    return cli("--format", "json", "--gpu", "GB10", "recipes.sh").json()


def test_state_slots_beyond_what_max_num_seqs_runs_are_no_warning(cli, tmp_path, monkeypatch):
    found = _spark(cli, tmp_path, monkeypatch)
    assert {f["code"] for f in found} == {"HBM015"}  # three drafters not in the catalog
    assert not [f for f in found if f["severity"] == "error"]


def test_state_slots_still_warn_where_the_sequences_need_the_cache(cli, tmp_path, monkeypatch):
    text = (SPARK / "recipes.sh").read_text()
    nemotron = text.index("nemotron3-super-120b-nvfp4-mtp-v031")
    assert text.count("--max-num-seqs=4") >= 1
    raised = text[:nemotron] + text[nemotron:].replace("--max-num-seqs=4", "--max-num-seqs=64", 1)
    found = _spark(cli, tmp_path, monkeypatch, raised)
    [slots] = [f for f in found if f["code"] == "HBM210"]
    assert (slots["severity"], slots["line"]) == ("warning", 171)
    assert "takes 901,104 tokens of KV cache, 37.6%" in slots["message"]


# --- §6: removed flags on vllm/vllm-openai:nightly ---------------------------------------------
# A note pairing a compose file with its vLLM log (code-search 52336819908, 2026-04-19):
# vllm/vllm-openai:nightly with --speculative-model and --num-speculative-tokens, logged as
# "vllm: error: unrecognized arguments". The tag names no release, so hbmlint assumed the newest
# with a warning (an older image might take the flags); but vLLM's Docker Hub nightlies are
# pushed from vllm-project/vllm#24102 (September 2025) on, all past 0.10.1, and the flags went
# in 0.8.3: every nightly refuses them.
NIGHTLY = REAL / "compose-gemma4-26b-nvfp4-legacy-spec-flags-nightly.yml"


def _removed(path: Path, rules) -> list[tuple[Severity, int]]:
    result = _lint(path, rules, gpu="RTX-5090")
    return [(f.severity, f.span.line) for f in result.diagnostics if f.code == "HBM010"]


def test_flags_removed_before_any_nightly_are_errors_on_a_nightly(rules):
    assert _removed(NIGHTLY, rules) == [(Severity.ERROR, 39), (Severity.ERROR, 41)]
    [first] = [f for f in _lint(NIGHTLY, rules, gpu="RTX-5090").diagnostics if f.span.line == 39]
    assert "vllm-project/vllm#24102" in first.message


def test_latest_still_names_no_release(rules, tmp_path):
    path = tmp_path / "docker-compose.yml"
    path.write_text(NIGHTLY.read_text().replace("vllm-openai:nightly", "vllm-openai:latest"))
    assert _removed(path, rules) == [(Severity.WARNING, 39), (Severity.WARNING, 41)]


@pytest.mark.parametrize(
    ("flag", "severity"),
    [
        ("--enable-reasoning", Severity.ERROR),  # gone in 0.10.0, before any nightly
        ("--swap-space 4", Severity.WARNING),  # gone in 0.18: a nightly of 2025 still takes it
    ],
)
def test_the_floor_is_the_first_nightlys_release(rules, tmp_path, flag, severity):
    path = tmp_path / "docker-compose.yml"
    words = "".join(f'      - "{w}"\n' for w in flag.split())
    text = NIGHTLY.read_text().replace(
        '      - "--served-model-name"\n', words + '      - "--served-model-name"\n'
    )
    path.write_text(text)
    found = [f for f in _lint(path, rules, gpu="RTX-5090").diagnostics if f.code == "HBM010"]
    [mine] = [f for f in found if flag.split()[0] in f.message.split(" was removed")[0]]
    assert mine.severity is severity


# --- §4 (part): the Speculators config.json format ---------------------------------------------
# RedHatAI's *-speculator.eagle3 heads (vllm-project/speculators) nest the layer shape under
# transformer_layer_config, with draft_vocab_size beside it; hbmlint read such a config as having
# "no positive integer 'hidden_size'" (HBM006). vLLM flattens it the same way
# (transformers_utils/configs/speculators/base.py extract_transformers_pre_trained_config).
# The fields are the format's (a config written from it, not a download).
SPECULATORS_CONFIG = {
    "architectures": ["Eagle3Speculator"],
    "draft_vocab_size": 32000,
    "norm_before_residual": False,
    "speculators_config": {
        "algorithm": "eagle3",
        "verifier": {
            "architectures": ["LlamaForCausalLM"],
            "name_or_path": "meta-llama/Llama-3.1-8B-Instruct",
        },
    },
    "speculators_model_type": "eagle3",
    "torch_dtype": "bfloat16",
    "transformer_layer_config": {
        "head_dim": 128,
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "max_position_embeddings": 131072,
        "model_type": "llama",
        "num_attention_heads": 32,
        "num_hidden_layers": 1,
        "num_key_value_heads": 8,
        "vocab_size": 128256,
    },
}


def test_a_speculators_format_config_is_read_flat():
    from hbmlint.catalog.architecture import architecture_from_config

    head = architecture_from_config(SPECULATORS_CONFIG, "RedHatAI/x-speculator.eagle3", "test")
    assert (head.hidden_size, head.num_layers, head.num_kv_heads) == (4096, 1, 8)
    assert (head.vocab_size, head.draft_vocab_size) == (128256, 32000)
    assert head.max_position_embeddings == 131072
