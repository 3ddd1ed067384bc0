"""Patterns from public repositories hbmlint had never seen (sweep 23, session 36): each test
names its source and says what a user sees."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hbmlint.lint import LintOptions, lint_file, lint_paths
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
TRITON = REAL / "triton-vllm-backend" / "vllm_model" / "1" / "model.json"

COVERED = {
    "shell-sglang-glm52-tp4-b200.sh",
    "shell-vllm-nemotron35-dotted-spec-variable.sh",
    "vllm-v060-legacy-speculative-flags.yaml",
    "refused/trtllm-deepseek-r1-fp4-h200.yaml",
    "opea-vllm-cpu-no-gpu.yaml",
    "llmaz-helm-raw-string/backend.yaml",
    "llmaz-helm-raw-string/playground.yaml",
    "rocm-vllm-image-tag-mi300.yaml",
    "rayservice-chart-values-engine-config.yaml",
    "shell-sglang-docker-run-in-cmd-variable.sh",
    "shell-kubectl-apply-heredoc-kserve-tgi.sh",
    "lws-kimi-k3-tp16-h200.yaml",
    "trtllm-attention-dp/serve.sh",
    "trtllm-attention-dp/cfg.yaml",
    "compose-modelscope-escaped-dir.yaml",
}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _lint(path: Path, rules, gpu: str | None = None):
    return lint_file(path, path.name, rules, LintOptions(default_gpu=gpu, keep_budgets=True))


# --- Triton's vLLM backend: <model>/<version>/model.json ----------------------------------------
# triton-inference-server/vllm_backend docs/llama_multi_lora_tutorial.md writes its switches as
# strings ("enforce_eager": "true"). The backend hands the file to AsyncEngineArgs(**json)
# (src/model.py), not to vLLM's argument parser, so the engine starts. hbmlint read it as a
# --config file: "--enforce-eager true" was an HBM004 error, and the "true" after
# --disable-log-requests was taken for the model.


def test_a_triton_model_json_reads_string_switches_as_booleans(rules):
    result = _lint(TRITON, rules, gpu="A100-40GB")
    assert [d.code for d in result.diagnostics if d.severity.name == "ERROR"] == []
    [item] = result.deployments
    deployment = item.deployment
    assert deployment.name == "vllm_model"  # Triton's model folder
    assert deployment.model.name == "/vllm_workspace/weights/backbone/llama-7b-hf"
    assert deployment.parallel.tensor == 2
    assert deployment.serving.enforce_eager is True


def test_the_same_json_as_a_vllm_config_file_is_still_refused(rules, tmp_path):
    # vllm serve --config turns every key into a command-line word: "true" after the switch
    # is left over, and vLLM's parser stops
    config = tmp_path / "engine.json"
    shutil.copy(TRITON, config)
    result = _lint(config, rules, gpu="A100-40GB")
    refused = [d for d in result.diagnostics if d.code == "HBM004"]
    assert refused and "--enforce-eager true" in refused[0].message


def _codes(result, severity: str | None = None) -> list[str]:
    return [d.code for d in result.diagnostics if severity is None or d.severity.name == severity]


# --- SGLang: a DSA model whose weights do not fit, with an fp8 KV pool -------------------------
# GLM-5.2 in BF16 at TP 4 on B200s: about 350 GiB a GPU against 178. SGLang's fp8 pool of a DSA
# model (the default on Blackwell) is sized on a smaller cell than it stores, and the budget
# added the difference back even with no pool at all: "usable" grew to the weights and the lint
# said "All clear".


def test_a_dsa_model_that_does_not_fit_is_an_error_with_an_fp8_pool(rules):
    script = REAL / "shell-sglang-glm52-tp4-b200.sh"
    result = _lint(script, rules, gpu="B200")
    [error] = [d for d in result.diagnostics if d.severity.name == "ERROR"]
    assert error.code == "HBM101"
    [item] = result.deployments
    budget = item.budget
    assert budget.usable < budget.total  # never more than the card
    assert budget.kv_tokens.magnitude == 0


# --- vLLM: --speculative_config.model given as an unset variable --------------------------------
# The Nemotron-3.5-Lightning model card's DGX Spark command: the drafter is $DSPARK_CKPT. vLLM
# takes the method from the drafter's config; hbmlint said "sets neither a method nor a model;
# vLLM refuses it" (an error) beside its own note that the variable is unread.


def test_a_dotted_speculative_model_in_a_variable_is_a_note_not_an_error(rules):
    script = REAL / "shell-vllm-nemotron35-dotted-spec-variable.sh"
    result = _lint(script, rules, gpu="GB10")
    assert _codes(result, "ERROR") == []
    notes = [d for d in result.diagnostics if d.code == "HBM011"]
    assert any("$DSPARK_CKPT" in d.message for d in notes)


def test_a_speculative_config_with_no_method_or_model_is_still_refused(rules, tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text("vllm serve Qwen/Qwen3-8B --speculative-config.num_speculative_tokens 3\n")
    result = _lint(script, rules, gpu="H100")
    assert "HBM004" in _codes(result, "ERROR")


# --- vLLM: the legacy speculative flags on a release that takes them ----------------------------
# InftyAI/llmaz pins its vLLM BackendRuntime to v0.6.0 with --speculative_model and
# --num_speculative_tokens. vLLM 0.6.0 takes them (removed in 0.8.3), and --speculative-config
# came in 0.8.0: hbmlint warned HBM010 and its --fix wrote a flag 0.6.0 refuses.


def test_legacy_speculative_flags_are_not_removed_at_a_release_that_takes_them(rules, tmp_path):
    fixture = REAL / "vllm-v060-legacy-speculative-flags.yaml"
    result = _lint(fixture, rules, gpu="A10")
    assert "HBM010" not in _codes(result)
    [item] = result.deployments
    assert item.deployment.speculative.num_speculative_tokens == 5  # still read
    # the same flags on 0.8.1 (deprecated, still taken: a warning), on a release that refuses
    # them (an error), with no release named (the newest assumed: a warning), and before 0.8
    for tag, severities in (
        ("v0.8.1", {"WARNING"}),
        ("v0.9.0", {"ERROR"}),
        ("latest", {"WARNING"}),
        ("v0.7.3", set()),
    ):
        copy = tmp_path / f"{tag}.yaml"
        copy.write_text(fixture.read_text().replace("v0.6.0", tag))
        found = [d for d in _lint(copy, rules, gpu="A10").diagnostics if d.code == "HBM010"]
        assert {d.severity.name for d in found} == severities, tag


# --- TensorRT-LLM: an NVFP4 checkpoint on Hopper -------------------------------------------------
# phatvo9/benchmark_gpu serves nvidia/DeepSeek-R1-FP4 with trtllm-serve; on an H200 TensorRT-LLM
# before 1.3 fails in its executor ("Arch unsupported for CUTLASS FP4 GEMM"). It was "All clear".


def test_trtllm_nvfp4_on_hopper_is_an_error(rules, tmp_path):
    fixture = REAL / "refused" / "trtllm-deepseek-r1-fp4-h200.yaml"
    result = _lint(fixture, rules)
    assert _codes(result, "ERROR") == ["HBM328"]
    on_b200 = tmp_path / "b200.yaml"
    on_b200.write_text(fixture.read_text().replace("NVIDIA-H200", "NVIDIA-B200"))
    assert "HBM328" not in _codes(_lint(on_b200, rules))


# --- OPEA's CPU build of vLLM -----------------------------------------------------------------
# opea-project/GenAIInfra runs opea/vllm (vLLM's Dockerfile.cpu for Xeon) with no GPU: a CPU
# deployment has no HBM, so "name your GPU type" (a warning) was the wrong thing to ask.


def test_opea_vllm_is_a_cpu_image(rules):
    result = _lint(REAL / "opea-vllm-cpu-no-gpu.yaml", rules)
    assert _codes(result, "WARNING") == []
    assert any(d.code == "HBM014" and "CPU image" in d.message for d in result.diagnostics)
    assert result.deployments == []


# --- llmaz: a runtime copied from its Helm chart, fields in Helm's raw-string form -----------
# InftyAI/llmaz test/config/backends/tensorrt-llm.yaml writes "{{`{{ .ModelPath }}`}}", which
# the chart renders to llmaz's own {{ .ModelPath }}. hbmlint read the model as
# '{{`Qwen/Qwen2-0.5B-Instruct`}}' and suggested other Qwen models.


def test_an_llmaz_field_in_helms_raw_string_form_is_filled_in(rules):
    folder = REAL / "llmaz-helm-raw-string"
    results = lint_paths([str(folder)], rules, LintOptions(keep_budgets=True))
    [item] = [d for result in results for d in result.deployments]
    assert item.deployment.model.name == "Qwen/Qwen2-0.5B-Instruct"


# --- a ROCm image whose tag names the Instinct GPU -------------------------------------------
# ROCm/k8s-device-plugin example/vllm-serve: rocm/vllm:rocm6.2_mi300_... asks for amd.com/gpu and
# names no node label. The GPU stays unknown (a tag is not a node), but the finding names it.


def test_a_rocm_image_tag_names_the_gpu_in_the_unknown_gpu_finding(rules):
    fixture = REAL / "rocm-vllm-image-tag-mi300.yaml"
    result = _lint(fixture, rules)
    [finding] = [d for d in result.diagnostics if d.code == "HBM005"]
    assert "ROCm image tag" in finding.message and "MI300X-192GB" in finding.message
    assert finding.fixes[0].message.startswith("Run with --gpu MI300X-192GB")


# --- a chart of the repository's own, vLLM's engine arguments in its values --------------------
# aws-samples/amazon-eks-machine-learning-with-terraform-and-kubeflow: `engine.config` holds
# model, tensor_parallel_size 8 and pipeline_parallel_size 2 that the chart writes into the
# Ray Serve app's engine-config.json. No reader knows the chart; the file passed in silence.


def test_engine_arguments_in_an_unknown_charts_values_are_said_not_read(rules):
    fixture = REAL / "rayservice-chart-values-engine-config.yaml"
    result = _lint(fixture, rules)
    [finding] = result.diagnostics
    assert finding.code == "HBM014" and finding.severity.name == "INFO"
    assert "engine.config" in finding.message
    assert finding.span.line == _line(fixture, 'model: "/fsx/')


def _line(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


# --- a command line kept in a variable with unset words, run unquoted --------------------------
# phatvo9/benchmark_gpu server/sglang.sh: cmd="docker run ... -p $SERVER_PORT:$SERVER_PORT
# lmsysorg/sglang:$tag python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B ..."; $cmd.
# $SERVER_PORT is set nowhere, and the whole line was unread ("no engine command line").


def test_a_command_line_in_a_variable_with_an_unset_port_is_read(rules):
    script = REAL / "shell-sglang-docker-run-in-cmd-variable.sh"
    result = _lint(script, rules, gpu="H100")
    assert "HBM014" not in _codes(result)
    [item] = result.deployments
    deployment = item.deployment
    assert (deployment.engine, deployment.model.name) == ("sglang", "Qwen/Qwen3-8B")
    assert deployment.serving.gpu_memory_utilization == 0.9
    assert deployment.serving.max_num_seqs == 128


# --- Kubernetes objects a script hands to `kubectl apply -f -` in a here-document -------------
# Siryoos/kserve-vllm-mini runners/backends/tgi/deploy.sh: `cat <<EOF | kubectl apply -f -` with
# a KServe InferenceService running TGI on one GPU. The body was skipped as input, and the file
# got "no engine command line it can read".


def test_an_inference_service_piped_to_kubectl_apply_is_read(rules):
    script = REAL / "shell-kubectl-apply-heredoc-kserve-tgi.sh"
    result = _lint(script, rules, gpu="L4")
    assert "HBM014" not in _codes(result)
    [item] = result.deployments
    deployment = item.deployment
    assert (deployment.engine, deployment.model.name) == ("tgi", "microsoft/DialoGPT-medium")
    # findings sit at the object's lines in the script
    [gpu] = [d for d in _lint(script, rules).diagnostics if d.code == "HBM005"]
    assert "nvidia.com/gpu" in script.read_text().splitlines()[gpu.span.line - 1]


def test_kubectl_apply_reading_a_heredoc_itself_is_read(rules, tmp_path):
    script = tmp_path / "deploy.sh"
    script.write_text(
        "MODEL=Qwen/Qwen3-32B\n"
        "kubectl apply -n llm -f - <<EOF\n"
        "apiVersion: apps/v1\n"
        "kind: Deployment\n"
        "metadata: {name: vllm}\n"
        "spec:\n"
        "  template:\n"
        "    spec:\n"
        "      nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}\n"
        "      containers:\n"
        "      - name: vllm\n"
        "        image: vllm/vllm-openai:v0.11.0\n"
        '        args: ["--model", "$MODEL", "--max-model-len", "32768"]\n'
        "        resources: {limits: {nvidia.com/gpu: 1}}\n"
        "EOF\n"
        "cat <<EOF > notes.yaml\n"  # a file written, not applied: not read as objects
        "kind: Deployment\n"
        "EOF\n"
    )
    result = _lint(script, rules)
    [error] = [d for d in result.diagnostics if d.severity.name == "ERROR"]
    assert error.code == "HBM101" and error.span.line == 13  # Qwen3-32B on one L4
    assert [d.deployment.model.name for d in result.deployments] == ["Qwen/Qwen3-32B"]


# --- a Makefile named on the command line --------------------------------------------------------
# LQR471814/x.vllm-distributed: `hbmlint lint Makefile` read the recipes as YAML, an HBM002
# syntax error (exit 1); the folder's walk skips it. A build file is never YAML: an info that
# its `vllm serve` recipe was not read.


def test_a_makefile_is_not_yaml(rules):
    makefile = REAL / "makefile-vllm" / "Makefile"
    result = _lint(makefile, rules)
    assert [(d.code, d.severity.name) for d in result.diagnostics] == [("HBM014", "INFO")]
    assert "vllm serve" in result.diagnostics[0].message


# --- Kimi-K3 over 16 H200s: Marlin pads each expert's per-rank width to 128 ---------------------
# aws-samples/sample-llm-inference-on-eks lws-kimi-k3-tp16-p5en.yaml records vLLM loading 129.75
# GiB a GPU at TP 16 (--moe-backend marlin); hbmlint said 100.90. The routed experts' 3072 is 192
# a rank at TP 16, which the Marlin MXFP4 path holds as 256; at TP 8 (384 a rank) nothing is
# padded, and the same repository's TP 8 x PP 2 run loaded 96.49 GiB against 95.82.


def test_kimi_k3_at_tp16_counts_the_marlin_padding(rules):
    result = _lint(REAL / "lws-kimi-k3-tp16-h200.yaml", rules)
    [item] = result.deployments
    weights = item.budget.weights.to("GiB").magnitude
    assert abs(weights - 129.75) / 129.75 < 0.02


# --- TensorRT-LLM's attention DP on a model of KV heads -----------------------------------------
# phatvo9/benchmark_gpu serves Llama-3.3-70B at TP 4 with enable_attention_dp: true in its
# extra_llm_api_options file. Each GPU then runs attention at TP 1 for requests of its own: every
# KV head of a token on that GPU (4 times the bytes) and the attention weights whole. The budget
# was plain TP's (81,920 bytes a token, 469k tokens, "All clear").


def test_trtllm_attention_dp_keeps_kv_heads_and_attention_whole(rules, tmp_path):
    serve = REAL / "trtllm-attention-dp" / "serve.sh"
    [on] = _lint(serve, rules, gpu="H100").deployments
    off_dir = tmp_path / "off"
    off_dir.mkdir()
    (off_dir / "serve.sh").write_text(serve.read_text())
    (off_dir / "cfg.yaml").write_text("enable_attention_dp: false\n")
    [off] = _lint(off_dir / "serve.sh", rules, gpu="H100").deployments
    per_token = on.budget.kv_bytes_per_token_target.magnitude
    assert per_token == 4 * off.budget.kv_bytes_per_token_target.magnitude == 327_680
    # Llama-3.3-70B's attention is about 12B parameters: whole, 18 GiB more a GPU in BF16
    grown = (on.budget.weights - off.budget.weights).to("GiB").magnitude
    assert 16 < grown < 20
    assert "TensorRT-LLM attention DP" in on.budget.assumed["sharding"]


# --- an engine started from Python, a Triton TensorRT-LLM model configuration --------------------
# emirhanerbil/azure_llm_category llm_test.py (kept as offline_inference.py: a name pytest does
# not collect), `LLM(model=..., gpu_memory_utilization=0.8)`, and
# mnansary/Triton-TRTLLM-LLama3.1-8b-Instruct-A6000-docker's config.pbtxt passed as "All clear: 0
# deployments", where the README promises an info for what starts an engine and is not read.


def test_an_engine_started_from_python_is_said_not_read(rules):
    script = REAL / "unread-code" / "offline_inference.py"
    result = _lint(script, rules)
    [finding] = result.diagnostics
    assert finding.code == "HBM014" and "'LLM(...)'" in finding.message
    assert script.read_text().splitlines()[finding.span.line - 1].startswith("llm = LLM(")


def test_a_triton_tensorrt_llm_model_configuration_is_said_not_read(rules):
    result = _lint(REAL / "unread-code" / "config.pbtxt", rules)
    [finding] = result.diagnostics
    assert finding.code == "HBM014" and "tensorrtllm backend" in finding.message
    assert finding.span.line == 4


# --- a drafter named by an alias of the catalog ----------------------------------------------
# phatvo9/benchmark_gpu vllm_eagle3_llama3_70b.sh names yuhuili/EAGLE3-LLaMA3.3-Instruct-70B,
# which the catalog lists as an alias of lmsys/sglang-EAGLE3-LLaMA3.3-Instruct-70B: the finding
# named the catalog's id, a drafter the script never mentions.


def test_a_drafter_is_named_as_the_manifest_writes_it(rules, tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text(
        "vllm serve meta-llama/Llama-3.3-70B-Instruct --tensor-parallel-size 4 "
        '--speculative-config \'{"model": "yuhuili/EAGLE3-LLaMA3.3-Instruct-70B", '
        '"num_speculative_tokens": 3, "method": "eagle3"}\'\n'
    )
    result = _lint(script, rules, gpu="H100")
    [short] = [d for d in result.diagnostics if d.code == "HBM207"]
    assert "the drafter yuhuili/EAGLE3-LLaMA3.3-Instruct-70B covers" in short.message


# --- a ModelScope cache directory: "." written as "___" ---------------------------------------
# agassiyzh/spark-hackathon serves /models/Qwen/Qwen3___5-35B-A3B-FP8 (ModelScope's cache name
# of Qwen/Qwen3.5-35B-A3B-FP8); hbmlint could not identify it and guessed Qwen3-30B-A3B first.


def test_a_modelscope_escaped_directory_names_its_model(rules):
    result = _lint(REAL / "compose-modelscope-escaped-dir.yaml", rules, gpu="GB10")
    assert "HBM006" not in _codes(result)
    [item] = result.deployments
    assert "Qwen/Qwen3.5-35B-A3B" in item.budget.assumed["model"]
    assert "ModelScope" in item.budget.assumed["model"]


# --- SGLang's hybrid SWA pool (Gemma 4) ----------------------------------------------------------
# Two GB10 logs of SGLang (benchmarks/calibration/sglang.yaml) print both pools: "swa size:
# 798276, full size: 997846" for gemma-4-E4B-it in 79.94 GiB, "171008 / 213761" for
# gemma-4-26B-A4B-it in 36.69 GiB: window layers hold 0.8 times the full layers' tokens, and
# every layer has a pool (E4B's KV-shared ones too). hbmlint counted vLLM's layout: 3.2M and
# 507k tokens (+220%, +137%).


@pytest.mark.parametrize(
    "record_id", ["sglang-dev-gemma4-e4b-gb10-mf085", "sglang-dev-gemma4-26b-a4b-gb10-mf075"]
)
def test_sglang_gemma4_pool_is_its_hybrid_swa_pool(record_id):
    import sys

    sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
    import accuracy

    [record] = [r for r in accuracy.load_records(None) if r["id"] == record_id]
    outcome = accuracy.evaluate(record)
    logged, predicted = outcome.measured["kv_tokens"], outcome.predicted["kv_tokens"]
    assert abs(predicted - logged) / logged < 0.02
