"""Patterns from public repositories hbmlint had never seen (sweep 24, session 37): each test
names its source and says what a user sees."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"

COVERED = {
    "shell-sglang-gpt-oss-disable-hybrid-swa.sh",
    "dynamo-v1beta1-graph-env.yaml",
    "shell-sglang-draft-path-no-algorithm.sh",
    "shell-vllm-kimi-k26-dcp8-rtx-pro-6000.sh",
    "kthena-modelserving-multi-node.yaml",
    "shell-vllm-tpu-gemma4-docker.sh",
    "kaito-multiroleinference-deepseek-v3.yaml",
    "shell-vllm-gemma3-12b-half-no-gpu.sh",
}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _lint(path: Path, rules, gpu: str | None = None, **options):
    return lint_file(
        path, path.name, rules, LintOptions(default_gpu=gpu, keep_budgets=True, **options)
    )


def _budget(result):
    [item] = result.deployments
    return item.budget


# --- SGLang's hybrid SWA pool, as the command sets it -------------------------------------------
# A ParaS (SGLang fork) benchmark script runs gpt-oss-120b with --disable-hybrid-swa-memory: every
# sliding-window layer then keeps the whole context (server_args.py "Disable the hybrid SWA
# memory"), so a token costs all 36 layers' KV, not 18 full layers plus 0.8 x 18 window layers.
# --swa-full-tokens-ratio sets the window pool's tokens per full-pool token (default 0.8).
GPT_OSS = REAL / "shell-sglang-gpt-oss-disable-hybrid-swa.sh"
GPT_OSS_PATH = (("/data/models/gpt-oss-120b-BF16-unsloth", "openai/gpt-oss-120b"),)


def test_sglang_disable_hybrid_swa_memory_gives_window_layers_the_whole_context(rules):
    result = _lint(GPT_OSS, rules, gpu="A100-80GB", model_paths=GPT_OSS_PATH)
    budget = _budget(result)
    # 36 layers x 2 (K, V) x 8 KV heads x 64 x 2 bytes over TP 8
    assert budget.kv_bytes_per_token.magnitude == pytest.approx(36 * 2 * 8 * 64 * 2 / 8)
    assert "--disable-hybrid-swa-memory" in " ".join(str(v) for v in budget.assumed.values())


def _sglang_gpt_oss(tmp_path: Path, extra: str) -> Path:
    script = tmp_path / "serve.sh"
    script.write_text(
        "python -m sglang.launch_server --model-path openai/gpt-oss-120b --tp 2 "
        f"--mem-fraction-static 0.85 {extra}\n",
        encoding="utf-8",
    )
    return script


def test_sglang_swa_full_tokens_ratio_as_set_sizes_the_window_pool(rules, tmp_path):
    default = _budget(_lint(_sglang_gpt_oss(tmp_path, ""), rules, gpu="H100"))
    lower = _budget(
        _lint(_sglang_gpt_oss(tmp_path, "--swa-full-tokens-ratio 0.3"), rules, gpu="H100")
    )
    layer_token = 2 * 8 * 64 * 2 / 2  # one layer's K and V of a token on each of TP 2
    # 18 full-attention layers and 18 window layers at the ratio's share of the full pool
    assert default.kv_bytes_per_token.magnitude == pytest.approx(18 * layer_token * 1.8, rel=1e-3)
    assert lower.kv_bytes_per_token.magnitude == pytest.approx(18 * layer_token * 1.3, rel=1e-3)
    assert lower.kv_tokens > default.kv_tokens * 1.3
    notes = " ".join(str(v) for v in lower.assumed.values())
    assert "0.3 x the full layers' tokens (--swa-full-tokens-ratio, as set)" in notes


# --- an engine's image running another program -------------------------------------------------


def test_an_engine_image_running_another_program_in_a_pod_says_nothing(rules, tmp_path):
    # vLLM's image kept alive with `sleep infinity` (a debugging pod): no engine runs, so
    # "'vllm/vllm-openai' here runs an inference engine" was a wrong note
    manifest = tmp_path / "debug.yaml"
    manifest.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: debug\nspec:\n"
        "  template:\n    spec:\n      containers:\n        - name: engine\n"
        "          image: vllm/vllm-openai:v0.11.0\n"
        '          command: ["sleep", "infinity"]\n',
        encoding="utf-8",
    )
    result = _lint(manifest, rules)
    assert result.deployments == [] and result.diagnostics == []


# --- Dynamo: the graph's environment --------------------------------------------------------------
# ai-dynamo/dynamo recipes/nemotron-3-ultra/vllm/agg-h200-chat-mtp/deploy.yaml sets MODEL_PATH in
# the DynamoGraphDeployment's own spec.env, which the operator prepends to every component's
# environment (v1beta1 dynamographdeployment_types.go; v1alpha1 spec.envs and a service's envs).
# hbmlint read the container's env alone: "--model is ${MODEL_PATH} ... cannot be checked", 0
# deployments, for all ten Nemotron-3-Ultra vLLM recipes.
DYNAMO_GRAPH_ENV = REAL / "dynamo-v1beta1-graph-env.yaml"


def test_dynamo_graph_env_reaches_the_workers_command(rules):
    result = _lint(DYNAMO_GRAPH_ENV, rules)
    assert [d.code for d in result.diagnostics] == []
    [item] = result.deployments
    assert item.deployment.model.name.endswith("NVIDIA-Nemotron-3-Ultra-550B-A55B-NVFP4")
    assert item.deployment.parallel.tensor == 8
    assert item.budget is not None and item.budget.kv_tokens.magnitude > 0


def test_dynamo_v1alpha1_envs_service_envs_and_container_env_in_that_order(rules, tmp_path):
    manifest = tmp_path / "dgd.yaml"
    manifest.write_text(
        """apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: graph
spec:
  envs:
    - name: MODEL
      value: Qwen/Qwen3-8B
    - name: TP
      value: "1"
    - name: LEN
      value: "4096"
  services:
    VllmWorker:
      envs:
        - name: TP
          value: "2"
        - name: LEN
          value: "8192"
      resources:
        limits:
          gpu: "2"
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1
          env:
            - name: LEN
              value: "16384"
          command: ["/bin/sh", "-c"]
          args:
            - python3 -m dynamo.vllm --model $MODEL --tensor-parallel-size $TP --max-model-len $LEN
""",
        encoding="utf-8",
    )
    result = _lint(manifest, rules, gpu="H100")
    [item] = result.deployments
    deployment = item.deployment
    assert deployment.model.name == "Qwen/Qwen3-8B"  # the graph's
    assert deployment.parallel.tensor == 2  # the service's over the graph's
    assert deployment.serving.max_model_len == 16384  # the container's over both


# --- SGLang: a drafter with no algorithm ----------------------------------------------------------
# The Forceless/DeepPresenter-9B launch script (found by code search) passes
# --speculative-draft-model-path Qwen/Qwen3.5-0.8B and the step/top-k/draft-token flags, but no
# --speculative-algorithm. SGLang sets speculative decoding up only for an algorithm it is given
# (server_args.py _handle_speculative_decoding), so the server never drafts; hbmlint already
# budgeted no drafter, and said nothing.
NO_ALGORITHM = REAL / "shell-sglang-draft-path-no-algorithm.sh"


def test_sglang_draft_model_without_an_algorithm_is_a_warning(rules):
    result = _lint(NO_ALGORITHM, rules, gpu="H100")
    [warning] = [d for d in result.diagnostics if d.severity.name == "WARNING"]
    assert warning.code == "HBM016"
    assert "--speculative-draft-model-path Qwen/Qwen3.5-0.8B does nothing" in warning.message
    text = NO_ALGORITHM.read_text(encoding="utf-8").splitlines()
    assert "--speculative-draft-model-path" in text[warning.span.line - 1]
    assert "--speculative-algorithm STANDALONE" in warning.fixes[0]


@pytest.mark.parametrize("algorithm", ["DSPARK", "FROZEN_KV_MTP", "EAGLE"])
def test_sglang_algorithm_hbmlint_does_not_size_is_not_called_missing(rules, tmp_path, algorithm):
    # llm-d's Kimi-K3 SGLang guide runs --speculative-algorithm DSPARK with a draft path: an
    # algorithm SGLang has (spec_info.py) and hbmlint does not size is an info, not "missing"
    script = tmp_path / "serve.sh"
    script.write_text(
        "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B "
        f"--speculative-algo {algorithm} --speculative-draft-model-path Qwen/Qwen3-0.6B\n",
        encoding="utf-8",
    )
    result = _lint(script, rules, gpu="H100")
    assert "HBM016" not in [d.code for d in result.diagnostics]


def test_sglang_algorithm_in_a_variable_is_not_called_missing(rules, tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text(
        "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B "
        "--speculative-algorithm $ALGO --speculative-draft-model-path Qwen/Qwen3-0.6B\n",
        encoding="utf-8",
    )
    result = _lint(script, rules, gpu="H100")
    assert "HBM016" not in [d.code for d in result.diagnostics]


# --- vLLM decode context parallelism in the budget's capacity lines ------------------------------
# voipmonitor/rtx6kpro runs Kimi-K2.6 at TP 8 with --decode-context-parallel-size 8 on RTX PRO
# 6000s and logged "GPU KV cache size: 3,424,256 tokens", "13.03x" at 262,144 tokens: each GPU
# holds 1/8 of every sequence's MLA latent, and vLLM reports a GPU's tokens x 8. `hbmlint budget`
# printed a GPU's 426,384 tokens and 1.63 sequences as the deployment's, 8 times below the
# engine's figures.
KIMI_DCP = REAL / "shell-vllm-kimi-k26-dcp8-rtx-pro-6000.sh"


def test_budget_shows_the_capacity_decode_context_parallelism_reaches(cli):
    text = cli("budget", KIMI_DCP, "--gpu", "RTX-PRO-6000").output
    [capacity] = [line for line in text.splitlines() if "KV capacity" in line]
    per_gpu, spread = (
        int(n.replace(",", "")) for n in re.findall(r"(\d[\d,]+) (?:tokens|with)", capacity)
    )
    assert spread == per_gpu * 8
    assert abs(spread - 3_424_256) / 3_424_256 < 0.02  # the engine's logged KV cache size
    [concurrency] = [line for line in text.splitlines() if "max concurrency" in line]
    assert "about 13.0" in concurrency  # logged 13.03x
    [entry] = cli("budget", "--format", "json", KIMI_DCP, "--gpu", "RTX-PRO-6000").json()
    assert entry["decode_context_parallel"] == 8
    assert entry["kv_cache_tokens"] == per_gpu


def test_budget_with_a_drafter_under_decode_context_parallelism_claims_no_total(cli):
    # the same launch with its EAGLE-3 MLA head logged 1,769,600 tokens, not 8 times a GPU's:
    # the budget says a GPU's and that the rest is not modelled
    launch = REAL / "shell-docker-entrypoint-bash-kimi-k26-dcp8.sh"
    text = cli("budget", launch, "--gpu", "RTX-PRO-6000").output
    [capacity] = [line for line in text.splitlines() if "KV capacity" in line]
    assert "a GPU" in capacity and "with a drafter: not modelled" in capacity
    assert "about" not in capacity


# --- hbmlint's own manifest: TensorRT-LLM by its project's name ----------------------------------
# The calibration set and TensorRT-LLM's own docs spell the engine tensorrt-llm; an hbmlint
# manifest with `engine: tensorrt-llm` was an HBM003 schema error, and nothing was checked.


def test_a_manifest_may_name_tensorrt_llm_by_its_project_name(rules, tmp_path):
    results = {}
    for engine in ("trtllm", "tensorrt-llm", "tensorrt_llm"):
        manifest = tmp_path / f"{engine}.yaml"
        manifest.write_text(
            "apiVersion: hbmlint/v1\nkind: ServingManifest\nmetadata:\n  name: x\nspec:\n"
            f"  engine: {engine}\n  gpu:\n    type: H100\n"
            "  model:\n    name: meta-llama/Llama-3.1-8B-Instruct\n",
            encoding="utf-8",
        )
        result = _lint(manifest, rules)
        assert result.diagnostics == []
        [item] = result.deployments
        results[engine] = (item.deployment.engine, item.budget.kv_tokens.magnitude)
    assert len(set(results.values())) == 1 and results["trtllm"][0] == "trtllm"


# --- Kthena ModelServing: an entry pod and its workers ----------------------------------------
# volcano-sh/kthena examples/model-serving/multi-node.yaml runs Llama-3.1-405B at TP 8 x PP 2 over a
# role's entry pod and `workerReplicas: 1` worker, 8 GPUs each. hbmlint read the entry pod alone
# and said it could not tell how many pods form the engine (an info), whatever workerReplicas was.
KTHENA = REAL / "kthena-modelserving-multi-node.yaml"


def test_kthena_role_counts_the_entry_pod_and_its_workers(rules, tmp_path):
    result = _lint(KTHENA, rules, gpu="H100")
    assert result.diagnostics == []
    [item] = result.deployments
    assert item.deployment.gpu.count == 16
    wider = tmp_path / "wider.yaml"
    wider.write_text(
        KTHENA.read_text(encoding="utf-8").replace("workerReplicas: 1", "workerReplicas: 3"),
        encoding="utf-8",
    )
    [idle] = _lint(wider, rules, gpu="H100").diagnostics
    assert (idle.code, idle.severity.name) == ("HBM007", "WARNING")
    assert "32 GPUs requested" in idle.message and "16 idle" in idle.message


# --- vLLM's Marlin MXFP4 layout below Hopper ---------------------------------------------------
# gpt-oss's MXFP4 experts on an A100 go through vLLM's Marlin kernel ("Your GPU does not have
# native support for FP4 computation ... Marlin kernel"), which pads each expert's per-rank width
# to 128 and the hidden size to 256. Logged (benchmarks/calibration/vllm.yaml): gpt-oss-120b at
# TP 4 on A100-80GB, vLLM 0.10.1.1, "Model loading took 17.2217 GiB" (hbmlint said 16.15);
# gpt-oss-20b on an A100-80GB, vLLM 0.19, 13.72 GiB (13.45). On Hopper the Triton layout stays.


@pytest.mark.parametrize(
    "model, tp, gpu, logged",
    [
        ("openai/gpt-oss-120b", 4, "A100-80GB", 17.2217),
        ("openai/gpt-oss-20b", 1, "A100-80GB", 13.72),
    ],
)
def test_gpt_oss_on_ampere_weighs_the_marlin_layout(rules, tmp_path, model, tp, gpu, logged):
    script = tmp_path / "serve.sh"
    script.write_text(
        f"vllm serve {model} --tensor-parallel-size {tp} --max-model-len 16384\n",
        encoding="utf-8",
    )
    budget = _budget(_lint(script, rules, gpu=gpu))
    weights = budget.weights.to("GiB").magnitude
    assert abs(weights - logged) / logged < 0.01
    assert "Marlin kernel's layout" in budget.assumed["weights"]
    hopper = _budget(_lint(script, rules, gpu="H100"))
    assert hopper.weights.to("GiB").magnitude < weights * 0.99  # the Triton layout
    assert "Marlin" not in hopper.assumed.get("weights", "")


# --- vLLM: a tensor-parallel size that does not split the vocabulary ------------------------------
# aws-samples/sample-llm-inference-on-eks lws-kimi-k3-tp8pp3-p5en.yaml explains why its Kimi-K3 runs
# PP 3, not TP 24: "TP24 cannot start at all. vocab_size is 163,840 and vLLM pads it with a fixed
# padding_size of 64 ... 163,840 % 24 = 16, and divide() is a hard assert". The 96 attention heads
# divide by 24, so hbmlint said "All clear".


def test_tp_that_does_not_split_the_padded_vocabulary_is_an_error(rules, tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text(
        "vllm serve moonshotai/Kimi-K3 --tensor-parallel-size 24 --trust-remote-code\n",
        encoding="utf-8",
    )
    [error] = _lint(script, rules, gpu="H200").diagnostics
    assert (error.code, error.severity.name) == ("HBM329", "ERROR")
    assert "163,840" in error.message and "24" in error.message
    assert error.span.column == script.read_text().index("--tensor-parallel-size") + 1
    script.write_text(
        "vllm serve moonshotai/Kimi-K3 --tensor-parallel-size 8 --pipeline-parallel-size 3\n",
        encoding="utf-8",
    )
    assert "HBM329" not in [d.code for d in _lint(script, rules, gpu="H200").diagnostics]


# --- vLLM's TPU image run with the server's flags -------------------------------------------------
# vLLM's Gemma 4 recipe runs `docker run ... vllm/vllm-tpu:gemma4 --model google/gemma-4-31B-it
# --tensor-parallel-size 8 ...` on a Cloud TPU. No format reads that image's command (it has no
# entrypoint hbmlint reads), so the file passed silently ("0 deployments"); other TPU launches
# get an HBM014 info that they are not budgeted.
TPU_DOCKER = REAL / "shell-vllm-tpu-gemma4-docker.sh"


def test_vllm_tpu_image_run_with_flags_says_it_is_not_budgeted(rules):
    result = _lint(TPU_DOCKER, rules, gpu="H100")
    [note] = result.diagnostics
    assert (note.code, note.severity.name) == ("HBM014", "INFO")
    assert "vllm/vllm-tpu:gemma4" in note.message and "TPU" in note.message
    line = TPU_DOCKER.read_text(encoding="utf-8").splitlines()[note.span.line - 1]
    assert line[note.span.column - 1 :].startswith("vllm/vllm-tpu:gemma4")


# --- vLLM: a Nemotron-H checkpoint's own SSM cache dtype ----------------------------------------
# Nemotron 3's config.json sets mamba_ssm_cache_dtype: float32, which vLLM takes for NemotronH when
# --mamba-ssm-cache-dtype is auto (vllm-project/vllm#29978, from 0.13; #39032 cites the Nano and
# Super configs). hbmlint read only mamba_ssm_dtype and counted the state in bfloat16.


def _nemotron_nano(tmp_path: Path, image: str = "", extra: str = "") -> Path:
    script = tmp_path / "serve.sh"
    command = (
        f"docker run --gpus all {image} --model " if image else "vllm serve "
    ) + f"nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 --max-model-len 32768 {extra}\n"
    script.write_text(command, encoding="utf-8")
    return script


def test_vllm_counts_nemotron_h_state_in_its_config_ssm_cache_dtype(rules, tmp_path):
    newest = _budget(_lint(_nemotron_nano(tmp_path), rules, gpu="H100"))
    assert newest.assumed["mamba_ssm_dtype"] == "float32 (config.json mamba_ssm_cache_dtype)"
    flag = "--mamba-ssm-cache-dtype bfloat16"
    halved = _budget(_lint(_nemotron_nano(tmp_path, extra=flag), rules, gpu="H100"))
    assert halved.kv_tokens.magnitude > newest.kv_tokens.magnitude * 1.1
    before = _budget(
        _lint(_nemotron_nano(tmp_path, image="vllm/vllm-openai:v0.12.0"), rules, gpu="H100")
    )
    assert "mamba_ssm_dtype" not in before.assumed  # 0.12 keeps the model dtype


# --- KAITO MultiRoleInference --------------------------------------------------------------------
# kaito-project/kaito examples/inference/kaito_multiroleinference_deepseek-v3.yaml (2026-05): a
# prefill and a decode role of DeepSeek-V3 on Standard_NC24ads_A100_v4. KAITO creates an
# InferenceSet a role and sizes its nodes from the model; the file holds no count, so hbmlint
# cannot budget it. It said nothing ("All clear", 0 deployments); now an info says so.
MULTI_ROLE = REAL / "kaito-multiroleinference-deepseek-v3.yaml"


def test_kaito_multi_role_inference_says_it_is_not_checked(rules):
    result = _lint(MULTI_ROLE, rules, gpu="A100-80GB")
    assert result.deployments == []
    [note] = result.diagnostics
    assert (note.code, note.severity.name) == ("HBM014", "INFO")
    assert "MultiRoleInference of deepseek-ai/DeepSeek-V3" in note.message
    line = MULTI_ROLE.read_text(encoding="utf-8").splitlines()[note.span.line - 1]
    assert "deepseek-ai/DeepSeek-V3" in line


# --- refusals on any GPU, where the file names none -----------------------------------------------
# Barakisa/Invoice-processing-using-vllm serves google/gemma-3-12b-it with --dtype=half and names no
# GPU: vLLM refuses float16 for Gemma 3 on every card (HBM325), but the rule ran only with a GPU
# type. A TP size that does not split the vocabulary (HBM329) is the same.
HALF = REAL / "shell-vllm-gemma3-12b-half-no-gpu.sh"


def test_float16_refusal_is_said_where_no_gpu_is_named(rules):
    result = _lint(HALF, rules)
    [error] = [d for d in result.diagnostics if d.severity.name == "ERROR"]
    assert error.code == "HBM325"
    assert "--dtype=half" in HALF.read_text(encoding="utf-8").splitlines()[error.span.line - 1]


def test_vocabulary_refusal_is_said_where_no_gpu_is_named(rules, tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text("vllm serve moonshotai/Kimi-K3 --tensor-parallel-size 24\n", encoding="utf-8")
    assert "HBM329" in [d.code for d in _lint(script, rules).diagnostics]
