"""Patterns from public repositories hbmlint had never seen (sweep 17): each fixture under
tests/fixtures/real/ names its source in its first lines; each test says what a user sees."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from real_lint import codes, line_of, lint

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"

DOWNLOAD_CRLF = REAL / "prodstack-init-hf-download-crlf.yaml"
DOWNLOAD_PER_MODEL = REAL / "prodstack-init-hf-download-per-model.yaml"
KUBEAI_CHUNKED = REAL / "kubeai-model-chunked-prefill-false.yaml"
SWITCH_FALSE = REAL / "compose-vllm-switch-given-false.yml"

SLURM = REAL / "slurm" / "open-r1-generate.slurm"
FUNCTION_GLOBALS = REAL / "shell-function-uses-script-arguments.sh"

COVERED = {DOWNLOAD_CRLF.name, DOWNLOAD_PER_MODEL.name, KUBEAI_CHUNKED.name, SWITCH_FALSE.name}
COVERED |= {"slurm/open-r1-generate.slurm", FUNCTION_GLOBALS.name}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _models(path: Path, rules, gpu: str) -> dict[str, str | None]:
    """Each deployment's budgeted model, by deployment name."""
    result = lint_file(path, path.name, rules, LintOptions(default_gpu=gpu, keep_budgets=True))
    return {
        item.deployment.name: item.budget.resolved.target.name if item.budget else None
        for item in result.deployments
    }


def test_a_directory_the_init_container_downloads_into_is_budgeted_as_that_model(rules):
    # was HBM006 "a local path hbmlint cannot identify": nothing about the deployment checked
    result = lint(DOWNLOAD_CRLF, rules, gpu="T4")
    assert codes(result, "HBM006") == []
    assert result.diagnostics == []  # TinyLlama 1.1B in FP16 fits a T4 at 80%
    assert _models(DOWNLOAD_CRLF, rules, "T4") == {
        "tinyllama-gpu": "TinyLlama/TinyLlama-1.1B-Chat-v1.0"
    }


def test_the_downloaded_model_is_checked_like_a_named_one(rules, tmp_path):
    # TinyLlama's max_position_embeddings is 2048: a longer context is refused at start-up,
    # which hbmlint can only say once it knows what the directory holds
    path = tmp_path / DOWNLOAD_CRLF.name
    text = DOWNLOAD_CRLF.read_bytes().replace(
        b'- "--disable-log-requests"', b'- "--max-model-len=4096"'
    )
    path.write_bytes(text)
    result = lint(path, rules, gpu="T4")
    [too_long] = [f for f in result.diagnostics if f.severity is Severity.ERROR]
    assert "2048" in too_long.message or "2,048" in too_long.message
    assert too_long.span.line == line_of(path, "--max-model-len=4096")


def test_each_model_spec_reads_its_own_download(rules):
    # a model the catalog lacks: asked of the Hub under the downloaded id (offline here: said
    # once a run), not "a local path hbmlint cannot identify"
    result = lint(DOWNLOAD_PER_MODEL, rules, gpu="H100")
    assert codes(result, "HBM006") == []
    [not_fetched] = codes(result, "HBM015")
    assert "arcee-ai/Trinity-Mini" in not_fetched.message
    assert not_fetched.span.line == line_of(DOWNLOAD_PER_MODEL, "/data/models/trinity-mini")
    # gemma-3-27b-v is no model's name; its initContainer fills it with google/gemma-3-27b-it
    models = _models(DOWNLOAD_PER_MODEL, rules, "H100")
    assert models["gemma-3-27b-vision"] == "google/gemma-3-27b-it"


K8S = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm
spec:
  template:
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-L4
      initContainers:
        - name: fetch
          image: python:3.11-slim
          command: ["sh", "-c"]
          args:
            - {download}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.1
          args: ["--model", "/models/llm", "--max-model-len", "131072"]
          resources:
            limits:
              nvidia.com/gpu: 1
"""


@pytest.mark.parametrize(
    "download",
    [
        "huggingface-cli download meta-llama/Llama-3.1-8B-Instruct --local-dir /models/llm",
        "huggingface-cli download --local-dir=/models/llm/ meta-llama/Llama-3.1-8B-Instruct",
        "hf download meta-llama/Llama-3.1-8B-Instruct --exclude 'original/*'"
        " --local-dir /models/llm",
        "'python -c \"from huggingface_hub import snapshot_download; snapshot_download("
        "repo_id=''meta-llama/Llama-3.1-8B-Instruct'', local_dir=''/models/llm'')\"'",
    ],
)
def test_the_download_commands_people_write_are_read(rules, tmp_path, download):
    path = tmp_path / "deploy.yaml"
    path.write_text(K8S.format(download=download))
    result = lint(path, rules)
    # Llama 3.1 8B in BF16 on an L4: the KV cache holds far fewer than 131,072 tokens
    [kv] = codes(result, "HBM102")
    assert kv.severity is Severity.ERROR


@pytest.mark.parametrize(
    "download",
    [
        "echo 'run huggingface-cli download meta-llama/Llama-3.1-8B-Instruct"
        " --local-dir /models/llm'",
        "hf download meta-llama/Llama-3.1-8B-Instruct --local-dir /models/other",
        "hf download --repo-type dataset meta-llama/Llama-3.1-8B-Instruct --local-dir /models/llm",
        "hf download meta-llama/Llama-3.1-8B-Instruct --local-dir /models/llm && "
        "hf download Qwen/Qwen2.5-7B-Instruct --local-dir /models/llm",
    ],
)
def test_a_directory_no_download_surely_fills_stays_unidentified(rules, tmp_path, download):
    # printed, not run; another directory; a dataset; two models into one directory
    path = tmp_path / "deploy.yaml"
    path.write_text(K8S.format(download=download))
    result = lint(path, rules)
    [unknown] = codes(result, "HBM006")
    assert "/models/llm" in unknown.message
    assert codes(result, "HBM102") == []


def test_a_script_downloading_into_a_variable_serves_that_model(rules, tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\n"
        "MODEL_DIR=/models/qwen\n"
        'huggingface-cli download Qwen/Qwen2.5-7B-Instruct --local-dir "$MODEL_DIR"\n'
        'vllm serve "$MODEL_DIR" --max-model-len 65536\n'
    )
    result = lint(path, rules, gpu="L4")
    assert codes(result, "HBM006") == []
    # Qwen2.5-7B's config says 32,768 positions: 65,536 is refused without rope scaling
    assert any(f.severity is Severity.ERROR for f in result.diagnostics)


def test_a_kubeai_model_without_an_image_runs_at_most_the_charts_vllm(rules):
    # KubeAI runs its chart's image (v0.11.2 in the newest chart): --disable-log-requests, gone
    # in vLLM 0.17, still starts there (was HBM010 "the newest vLLM refuses to start with it")
    result = lint(KUBEAI_CHUNKED, rules)
    assert codes(result, "HBM010") == []
    # --enable-chunked-prefill=false: a switch from 0.9 on, so the chart's vLLM refuses it; an
    # older chart's (0.8) took the value, so a warning that says so
    [chunked] = codes(result, "HBM004")
    assert chunked.severity is Severity.WARNING
    assert chunked.span.line == line_of(KUBEAI_CHUNKED, "- --enable-chunked-prefill=false")
    assert "ignored explicit argument 'false'" in chunked.message
    assert "before 0.9.0 takes it" in chunked.message
    assert chunked.fixes[0].startswith("Write --no-enable-chunked-prefill")


@pytest.mark.parametrize(
    ("image", "severity"),
    [("vllm/vllm-openai:v0.10.2", Severity.ERROR), ("vllm/vllm-openai:v0.8.4", None)],
)
def test_chunked_prefill_given_a_value_is_judged_by_the_release(rules, tmp_path, image, severity):
    path = tmp_path / "model.yaml"
    path.write_text(
        KUBEAI_CHUNKED.read_text().replace(
            "  engine: VLLM\n", f"  engine: VLLM\n  image: {image}\n"
        )
    )
    found = codes(lint(path, rules), "HBM004")
    assert [f.severity for f in found] == ([severity] if severity else [])


def test_a_switch_given_a_value_is_an_error_at_the_value(rules):
    # `--enforce-eager false`: argparse's store_true takes no value, and `false` is left over
    # (was read as "graphs on", with no finding)
    result = lint(SWITCH_FALSE, rules, gpu="RTX-4090")
    [switch] = codes(result, "HBM004")
    assert switch.severity is Severity.ERROR
    assert switch.span.line == line_of(SWITCH_FALSE, "      --enforce-eager false")
    assert switch.fixes[0].startswith("Leave --enforce-eager out")


def test_a_switch_written_with_equals_true_is_an_error_too(rules, tmp_path):
    path = tmp_path / "compose.yml"
    path.write_text(
        SWITCH_FALSE.read_text().replace("--enforce-eager false", "--enforce-eager=true")
    )
    [switch] = codes(lint(path, rules, gpu="RTX-4090"), "HBM004")
    assert switch.severity is Severity.ERROR
    assert "ignored explicit argument 'true'" in switch.message
    assert switch.fixes[0] == "Write --enforce-eager alone, with no value"


MODELOPT = REAL / "compose-vllm-modelopt-nvfp4-export.yml"
COVERED.add(MODELOPT.name)


def test_modelopt_on_an_nvfp4_export_budgets_the_checkpoints_nvfp4_weights(rules):
    # vLLM's modelopt (FP8) method yields to the NVFP4/mixed one the export names: the weights
    # are NVFP4, about 21 GiB on the author's RTX 5090 (was read as FP8, 34.20 GiB: a false
    # HBM101 "weights exceed" error for a deployment its author runs at a 131K context)
    result = lint_file(
        MODELOPT, MODELOPT.name, rules, LintOptions(default_gpu="RTX-5090", keep_budgets=True)
    )
    assert [f for f in result.diagnostics if f.severity is Severity.ERROR] == []
    [item] = result.deployments
    weights = item.budget.weights.to("GiB").magnitude
    assert 19 < weights < 23


def test_a_placeholder_in_the_speculative_json_is_unread_not_invalid(rules, tmp_path):
    # vllm-project/recipes moonshotai/Kimi-K2.5.md: a documented command with the drafter left
    # for the reader to fill in (was HBM004 "not valid JSON", an error)
    path = tmp_path / "serve.sh"
    path.write_text(
        "vllm serve moonshotai/Kimi-K2.5 -tp 8 --trust-remote-code \\\n"
        '    --speculative-config \'{"model": <eagle3_model_name>, "method": "eagle3", '
        '"num_speculative_tokens": 3}\'\n'
    )
    result = lint(path, rules, gpu="H200")
    assert codes(result, "HBM004") == []
    [unread] = [f for f in codes(result, "HBM011") if "<eagle3_model_name>" in f.message]
    assert unread.severity is Severity.INFO


def test_weights_just_over_the_usable_memory_say_the_engine_refuses_either_way(rules, tmp_path):
    # vllm-project/recipes moonshotai/Kimi-K2.5.md: TP 8 on H100s leaves the INT4 experts'
    # estimate 0.1% over what vLLM may use; the message no longer rests on that margin
    path = tmp_path / "serve.sh"
    # (0.33: a share of the card; 0.34's extensible KV cache loads them and has no room left)
    path.write_text(
        "docker run --gpus all vllm/vllm-openai:v0.33.0 moonshotai/Kimi-K2.5 -tp 8"
        " --trust-remote-code\n"
    )
    [weights] = codes(lint(path, rules, gpu="H100"), "HBM101")
    assert weights.severity is Severity.ERROR
    assert "just over" in weights.message
    assert "refuses to start either way" in weights.message


def test_an_sglang_switch_given_a_value_is_an_error_too(rules, tmp_path):
    # SGLang's switches are store_true: `true` after one is an argument argparse refuses
    path = tmp_path / "serve.sh"
    path.write_text(
        "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --tp 2 "
        "--enable-dp-attention true --dp 2\n"
    )
    [switch] = codes(lint(path, rules, gpu="H100"), "HBM004")
    assert switch.severity is Severity.ERROR
    assert "SGLang refuses to start" in switch.message
    assert switch.fixes[0] == "Write --enable-dp-attention alone, with no value"


def test_sglang_drafting_from_the_targets_own_path_budgets_its_mtp_layers(rules, tmp_path):
    # JiNanPiWang/spec_decode launch_glm47.sh (nextn variant): `--speculative-algorithm NEXTN
    # --speculative-draft-model-path "$MODEL_PATH"`, the target's own checkpoint. SGLang loads
    # it as the NextN layers; was budgeted as a second GLM-4.7-Flash (55.80 GiB of draft: false
    # HBM101 and HBM201 errors on an H100)
    path = tmp_path / "launch.sh"
    path.write_text(
        "MODEL_PATH=zai-org/GLM-4.7-Flash\n"
        'python -m sglang.launch_server --model-path "$MODEL_PATH" --mem-fraction-static 0.85 \\\n'
        '  --speculative-algorithm NEXTN --speculative-draft-model-path "$MODEL_PATH" \\\n'
        "  --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4\n"
    )
    result = lint_file(path, path.name, rules, LintOptions(default_gpu="H100", keep_budgets=True))
    assert [f.code for f in result.diagnostics if f.severity is not Severity.INFO] == []
    [item] = result.deployments
    assert item.deployment.speculative.method == "mtp"
    assert item.budget.draft_weights.to("GiB").magnitude < 3


@pytest.mark.parametrize(
    ("extra", "batches"),
    [
        ("", 2),
        (" --no-async-scheduling", 1),  # akamaslabs/vllm-benchmark's eager Gemma 4 probe run
        # async scheduling stays off with a drafter other than EAGLE or MTP
        (' --speculative-config \'{"method": "ngram", "num_speculative_tokens": 3}\'', 1),
    ],
)
def test_vllm_window_layers_keep_the_batches_in_flight(rules, tmp_path, extra, batches):
    # vLLM 0.29 logs of Gemma 4 on an L40S: the default run's concurrency is the whole 4,096
    # tokens per window layer (1,023 + 2 x 2,048 in flight), the --no-async-scheduling one the
    # window plus one batch; hbmlint charged one batch, 35% more concurrency than logged
    path = tmp_path / "serve.sh"
    path.write_text(
        "vllm serve openai/gpt-oss-120b --max-model-len 131072 --max-num-batched-tokens 8192"
        + extra
        + "\n"
    )
    result = lint_file(path, path.name, rules, LintOptions(default_gpu="H100", keep_budgets=True))
    [item] = result.deployments
    layer = 2 * 8 * 64 * 2  # gpt-oss: 8 KV heads of 64 in bf16; 18 full and 18 window layers
    window_tokens = (math.ceil((127 + batches * 8192) / 16) + 1) * 16
    expected = 18 * layer * 131_072 + 18 * layer * window_tokens
    assert item.budget.kv_bytes_per_sequence.magnitude == pytest.approx(expected)


def test_a_directory_walk_reads_slurm_batch_scripts():
    # huggingface/open-r1 keeps its vLLM jobs in slurm/*.slurm: a directory run skipped them
    from hbmlint.lint import discover

    found = [Path(display).name for _, display in discover([str(SLURM.parent)])]
    assert SLURM.name in found


def test_braces_inside_a_quoted_default_do_not_end_the_expansion(rules):
    # `PROMPT_TEMPLATE=${PROMPT_TEMPLATE:-"{{ instruction }}"}`: the `}` of the quoted default
    # ended the expansion, leaving an open quote that swallowed the rest of the script (was an
    # HBM014 "finds no engine command line" for the readable `vllm serve` below it)
    result = lint(SLURM, rules, gpu="H100")
    assert codes(result, "HBM014") == []
    unread = [f.message for f in codes(result, "HBM011")]
    # MODEL is set only by the option loop (`--model) MODEL="$2"`): the script's arguments
    assert any(
        m.startswith("the model is $MODEL") and "the script's own arguments ($2)" in m
        for m in unread
    )


def test_a_global_set_from_the_scripts_arguments_keeps_them_inside_a_function(rules):
    # MODEL_PATH=$1 at the top, `--model-path "$MODEL_PATH"` in a function called with no
    # arguments: the script's $1, unknown here (was $1 of the call: '' - false HBM003 "names no
    # model" and HBM004 "--tp-size: '' is not a whole number" errors)
    result = lint(FUNCTION_GLOBALS, rules, gpu="H100")
    assert [f for f in result.diagnostics if f.severity is Severity.ERROR] == []
    unread = [f.message for f in codes(result, "HBM011")]
    assert any(m.startswith("--model-path is $1") for m in unread)


KEMPNER = REAL / "slurm" / "kempner-deepseek-r1-h100-slurm.sh"
COVERED.add("slurm/kempner-deepseek-r1-h100-slurm.sh")


def test_a_slurm_jobs_directives_name_the_gpu_and_its_variables(rules):
    # #SBATCH --nodes=4, --gpus-per-node=4, --constraint=h100: the job's shell gets
    # SLURM_NNODES=4 and SLURM_GPUS_ON_NODE=4, so TP $((SLURM_NNODES * SLURM_GPUS_ON_NODE)) is
    # 16, on H100s (was "tensor parallelism hbmlint cannot read": not budgeted)
    result = lint_file(KEMPNER, KEMPNER.name, rules, LintOptions(keep_budgets=True))
    [item] = result.deployments
    assert item.deployment.parallel.tensor == 16
    assert item.budget.resolved.gpu.name == "H100-SXM-80GB"
    assert codes(result, "HBM005") == []
    # --enable-reasoning: gone in vLLM 0.10 (the newest is assumed: a warning)
    [removed] = codes(result, "HBM010")
    assert "--enable-reasoning" in removed.message


def test_a_one_node_jobs_gpus_are_what_the_engine_can_use(rules, tmp_path):
    # one node, --gres=gpu:a100:2 and TP 4: vLLM cannot start on the job's two GPUs
    path = tmp_path / "serve.slurm"
    path.write_text(
        "#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --gres=gpu:a100:2\n\n"
        "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --tensor-parallel-size 4\n"
    )
    result = lint(path, rules)
    [short] = codes(result, "HBM007")
    assert short.severity is Severity.ERROR
    assert short.message.startswith("2 GPUs requested by the Slurm job (#SBATCH)")
    assert codes(result, "HBM005") == []
    # the GPUs a job holds may serve more than the engine: those it leaves are not "idle"
    path.write_text(path.read_text().replace("a100:2", "a100:8"))
    assert codes(lint(path, rules), "HBM007") == []


FLUX = REAL / "flux-helmrelease-vllm-stack.yaml"
COVERED.add(FLUX.name)


def test_a_flux_helmrelease_of_vllm_stack_is_read_from_its_inline_values(rules):
    # spec.values holds production-stack's values (was not read at all). Qwen2.5-7B in FP16 on
    # the repository's 16 GB P100 at 90%: no room for a KV cache (a true error)
    result = lint(FLUX, rules, gpu="P100")
    [item] = result.deployments
    assert item.deployment.model.name == "Qwen/Qwen2.5-7B-Instruct"
    [kv] = codes(result, "HBM102")
    assert kv.severity is Severity.ERROR
    assert kv.span.line == line_of(FLUX, "maxModelLen: 4096")


def test_an_argo_cd_applications_inline_values_are_read_too(rules, tmp_path):
    import yaml

    values = yaml.safe_load(FLUX.read_text())["spec"]["values"]
    application = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "vllm"},
        "spec": {"source": {"chart": "vllm-stack", "helm": {"valuesObject": values}}},
    }
    path = tmp_path / "app.yaml"
    path.write_text(yaml.safe_dump(application, sort_keys=False))
    [item] = lint(path, rules, gpu="P100").deployments
    assert item.deployment.model.name == "Qwen/Qwen2.5-7B-Instruct"


def test_sglang_running_requests_with_dp_attention_are_per_rank(rules, tmp_path):
    # sgl-project/ome config/runtimes/srt/kimi-k2-pd-rt.yaml's decoder: --max-running-requests
    # 46080 over 96 attention-DP ranks (its --cuda-graph-bs 480 agrees). Sized whole, the
    # sampler's logits alone came to 48.75 GiB a GPU: "needs 16.86 GiB more than the GPU has"
    path = tmp_path / "serve.sh"
    path.write_text(
        "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 "
        "--dp-size 8 --enable-dp-attention --max-running-requests 4096\n"
    )
    result = lint_file(path, path.name, rules, LintOptions(default_gpu="H200", keep_budgets=True))
    [item] = result.deployments
    assert item.budget.settings.max_num_seqs == 512


@pytest.mark.parametrize(
    ("image", "severity"),
    [
        ("vllm/vllm-openai:v0.28.0", Severity.ERROR),
        ("vllm/vllm-openai:v0.27.1", None),
        ("vllm/vllm-openai:latest", Severity.WARNING),
    ],
)
def test_a_bitsandbytes_checkpoint_is_judged_like_the_flag(rules, tmp_path, image, severity):
    # leehosanganson's compose serves unsloth's bnb-4bit checkpoint on vllm-openai:latest with
    # no --quantization: vLLM takes bitsandbytes from its config.json, a method 0.28 dropped
    # (was silent; only the flag was judged)
    path = tmp_path / "run.sh"
    path.write_text(
        f"docker run --gpus all {image} --model unsloth/mistral-7b-instruct-v0.3-bnb-4bit\n"
    )
    found = codes(lint(path, rules, gpu="L4"), "HBM004")
    assert [f.severity for f in found] == ([severity] if severity else [])


LWS_ENV = REAL / "lws-env-references-group-size.yaml"
RAYLLM = REAL / "rayllm-tensor-parallelism-degree.yaml"
COVERED |= {LWS_ENV.name, RAYLLM.name}


def test_an_env_value_referencing_an_earlier_variable_is_expanded(rules):
    # PIPELINE_PARALLEL_SIZE: $(LWS_GROUP_SIZE), which LWS injects first: Kubernetes expands it
    # (was a false HBM004 "--pipeline-parallel-size: '$(LWS_GROUP_SIZE)' is not a whole number")
    result = lint(LWS_ENV, rules, gpu="H100")
    assert [f for f in result.diagnostics if f.severity is Severity.ERROR] == []
    assert codes(result, "HBM004") == []


def test_rayllm_tensor_parallelism_degree_is_the_tp_size(rules):
    # tensor_parallelism: {degree: 4}: Llama 3.1 70B over four A100-80Gs (was TP 1: a false
    # HBM101 "weights need 131.45 GiB per GPU")
    result = lint(RAYLLM, rules)
    [item] = result.deployments
    assert item.deployment.parallel.tensor == 4
    assert codes(result, "HBM101") == []


TRTLLM_MTP = REAL / "dynamo-trtllm-mtp-own-checkpoint.yaml"
COVERED.add(TRTLLM_MTP.name)


def test_trtllm_mtp_naming_the_targets_checkpoint_budgets_its_mtp_layers(rules):
    # speculative_model is the target itself: one-model MTP runs its MTP layers (2.49 GiB), not
    # a second 59 GiB model (were HBM201/HBM202 warnings about 59.07 GiB of draft weights)
    result = lint_file(TRTLLM_MTP, TRTLLM_MTP.name, rules, LintOptions(keep_budgets=True))
    [item] = result.deployments
    assert item.deployment.speculative.model is None
    assert item.budget.draft_weights.to("GiB").magnitude < 3
    assert codes(result, "HBM201") == [] and codes(result, "HBM202") == []
