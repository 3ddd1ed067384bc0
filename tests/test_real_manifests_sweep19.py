"""Patterns from public repositories hbmlint had never seen (sweep 19, 2025-2026 home-lab and
DGX Spark deployments): each fixture under tests/fixtures/real/ names its source in its first
lines; each test says what a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_lint import codes, errors, line_of

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"

OWN_POSITIONAL = REAL / "compose-own-vllm-image-positional-model.yaml"
OWN_SERVE = REAL / "compose-own-vllm-image-serve.yaml"
OWN_DOCKER_RUN = REAL / "shell-docker-run-own-vllm-image-array.sh"

COVERED = {OWN_POSITIONAL.name, OWN_SERVE.name, OWN_DOCKER_RUN.name}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _read(path: Path, rules, gpu: str | None = None):
    result = lint_file(path, path.name, rules, LintOptions(default_gpu=gpu, keep_budgets=True))
    return result, [item.deployment for item in result.deployments]


@pytest.mark.parametrize(
    ("path", "image_line"),
    [
        (OWN_POSITIONAL, "image: vllm-custom-nightly"),
        (OWN_SERVE, "image: spark-vllm:latest"),
        (OWN_DOCKER_RUN, "exec docker run"),
    ],
    ids=["compose-positional-model", "compose-serve-model", "docker-run-array"],
)
def test_an_own_vllm_image_given_a_model_and_vllm_only_flags_is_read_as_vllm(
    rules, path, image_line
):
    # was skipped in silence: "not a manifest hbmlint reads" / "runs no engine hbmlint reads"
    result, [deployment] = _read(path, rules, gpu="GB10")
    assert deployment.engine == "vllm"
    assert deployment.model.name == "Qwen/Qwen3-32B"  # never `serve`, never a served name
    assert deployment.serving.max_model_len == 32768
    # the assumption is said, at the image
    [assumed] = [f for f in codes(result, "HBM011") if "not one whose entrypoint" in f.message]
    assert assumed.span.line == line_of(path, image_line)
    # `serve` on the team's own image is not the official image's repeated word (HBM013)
    assert codes(result, "HBM013") == [] and errors(result) == []


def test_the_fraction_of_an_own_image_is_checked_where_it_is_written(rules):
    # 0.95 on a GB10 whose memory the host shares: the unified-memory warning at the flag
    result, _ = _read(OWN_SERVE, rules, gpu="GB10")
    [fraction] = codes(result, "HBM322")
    assert fraction.span.line == line_of(OWN_SERVE, "--gpu-memory-utilization 0.95")


def test_an_own_image_with_a_model_but_no_vllm_only_flag_stays_unread(tmp_path, rules):
    # `--port` and `--host` are every engine's: the image's name alone does not make it vLLM
    compose = tmp_path / "compose.yaml"
    compose.write_text(
        "services:\n  llm:\n    image: my-vllm-build:latest\n"
        "    command: [Qwen/Qwen3-32B, --port, '8000', --host, 0.0.0.0]\n"
    )
    result = lint_file(compose, compose.name, rules, LintOptions(default_gpu="GB10"))
    assert result.deployments == [] and errors(result) == []


LMCACHE = REAL / "production-stack-lmcache-image-tag.yaml"
COVERED |= {LMCACHE.name}


def test_lmcache_images_tag_is_not_read_as_a_vllm_release(rules):
    # v0.3.12 is LMCache's release: the vLLM inside is unknown (the newest, said as assumed),
    # not a 0.3 that would refuse the suffixed lengths
    result, [deployment] = _read(LMCACHE, rules)
    assert deployment.engine_version is None
    assert errors(result) == []
    [linted] = result.deployments
    assert "newest vllm" in linted.budget.assumed["engine_version"]
    assert deployment.serving.max_model_len == 32000


LOCAL_DIR = REAL / "production-stack-local-dir-awq-inside.yaml"
COVERED |= {LOCAL_DIR.name}


def test_a_model_taken_from_a_directory_name_does_not_make_a_budget_error(rules):
    # the directory may hold any checkpoint of the model it is named after (here the AWQ one):
    # the weights rest on that, so the refusal is a warning saying how to name it
    result, _ = _read(LOCAL_DIR, rules)
    assert errors(result) == []
    [short] = codes(result, "HBM101")
    assert "taken from 'qwen2.5-14b-instruct'" in short.message
    assert "model-paths" in short.message and "hbmlint.io/model" in short.message
    # named by the configuration, the same checkpoint is an error again
    paths = (("/data/models/qwen2.5-14b-instruct", "Qwen/Qwen2.5-14B-Instruct"),)
    named = lint_file(LOCAL_DIR, LOCAL_DIR.name, rules, LintOptions(model_paths=paths))
    assert [f.code for f in named.diagnostics if f.severity.name == "ERROR"] == ["HBM101"]


NNODES_POD = REAL / "k8s-sglang-nnodes-rank0-two-gpus.yaml"
COVERED |= {NNODES_POD.name}


def test_idle_gpus_across_nnodes_pods_are_counted_per_pod_and_fixed_per_pod(rules, tmp_path):
    # 2 GPUs on each of the --nnodes 2 pods, TP 2 = one rank a node: the fix is per pod (it
    # said "Request 2 GPUs", what each pod already does)
    result, _ = _read(NNODES_POD, rules)
    [idle] = codes(result, "HBM007")
    assert idle.severity.name == "WARNING"
    assert idle.message.startswith("2 GPUs requested on each of 2 pods (4 in all)")
    assert [fix.message for fix in idle.fixes][0] == "Request 1 GPU per pod"
    # too few: TP 8 over the two pods' 4 GPUs, asked for per pod too
    short = tmp_path / NNODES_POD.name
    short.write_text(NNODES_POD.read_text().replace('"--tp", "2"', '"--tp", "8"'))
    result = lint_file(short, short.name, rules, LintOptions())
    [error] = codes(result, "HBM007")
    assert error.severity.name == "ERROR" and "= 8; the engine cannot start" in error.message
    assert error.fixes[0].message.startswith("Request 4 GPUs per pod")


def test_an_upload_of_a_catalog_alias_is_named_as_written_with_the_shape_it_shares():
    # Qwen3-Next's Instruct model is listed with the Thinking one (the same config): its FP8
    # upload was said to be "Qwen/Qwen3-Next-80B-A3B-Thinking with FP8 weights"
    from hbmlint.catalog.variants import variant

    found = variant("Qwen/Qwen3-Next-80B-A3B-Instruct-FP8")
    assert found is not None and found.base == "Qwen/Qwen3-Next-80B-A3B-Thinking"
    assert found.described.startswith(
        "Qwen/Qwen3-Next-80B-A3B-Instruct (the shape of Qwen/Qwen3-Next-80B-A3B-Thinking"
    )
    # an upload of the id itself is named by it alone
    assert variant("Qwen/Qwen3-Next-80B-A3B-Thinking-FP8").described.startswith(
        "Qwen/Qwen3-Next-80B-A3B-Thinking with FP8 weights"
    )


def test_deepseek_v32_exp_is_the_v32_shape(tmp_path, rules):
    # zhaotyer/lws_usage serves /models/DeepSeek-V3.2-Exp: was HBM006 (unknown model)
    pod = tmp_path / "sglang.yaml"
    pod.write_text(
        NNODES_POD.read_text()
        .replace('"Qwen/Qwen3-8B"', '"/models/DeepSeek-V3.2-Exp"')
        .replace('"--tp", "2", "--nnodes", "2"', '"--tp", "8", "--nnodes", "1"')
        .replace('nvidia.com/gpu: "2"', 'nvidia.com/gpu: "8"')
        .replace("NVIDIA-H100-80GB-HBM3", "NVIDIA-H200")
    )
    result, _ = _read(pod, rules)
    assert codes(result, "HBM006") == [] and errors(result) == []
    [linted] = result.deployments
    assert linted.budget.assumed["model"].startswith("deepseek-ai/DeepSeek-V3.2")


UMBRELLA = REAL / "app-template-umbrella-values.yaml"
COVERED |= {UMBRELLA.name}


def test_app_template_values_under_an_umbrella_charts_key_are_read(rules):
    result, [deployment] = _read(UMBRELLA, rules)
    assert deployment.name == "app-template-umbrella-values"  # the file: no object names it
    assert deployment.model.name == "Qwen/Qwen2.5-7B-Instruct"
    assert deployment.engine_version == "0.11.0"
    assert deployment.location("model").line == line_of(UMBRELLA, "- --model")
    [linted] = result.deployments
    assert linted.budget.resolved.gpu.name == "RTX-4090"
    assert errors(result) == []


def test_a_gpu_a_comment_names_is_offered_with_the_unknown_gpu_warning(tmp_path, rules):
    # DEEPGadget/vllm-docker-qwen docker/docker-compose.yml and home-lab scripts like it say
    # the hardware in a header comment; the budget does not take prose, the warning names it
    compose = tmp_path / "docker-compose.yml"
    compose.write_text(
        "# source: github.com/someone/vllm-rtx3090-stack (a path names no hardware)\n"
        "# vLLM 2x RTX Pro 6000 Blackwell SE\n"
        "services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n"
        "    command: [--model, Qwen/Qwen3-32B, --tensor-parallel-size, '2']\n"
        "    deploy: {resources: {reservations: {devices: [{driver: nvidia, count: 2,"
        " capabilities: [gpu]}]}}}\n"
    )
    result = lint_file(compose, compose.name, rules, LintOptions())
    [unknown] = codes(result, "HBM005")
    assert "the comment at line 2 names RTX-PRO-6000-Blackwell-96GB" in unknown.message
    assert unknown.fixes[0].startswith("Run with --gpu RTX-PRO-6000-Blackwell-96GB")
    assert result.deployments[0].budget is None  # prose is not a setting: still unbudgeted
    # a path or address in a comment is not prose about the hardware
    compose.write_text(compose.read_text().replace("# vLLM 2x RTX Pro 6000 Blackwell SE\n", ""))
    result = lint_file(compose, compose.name, rules, LintOptions())
    [unknown] = codes(result, "HBM005")
    assert "comment" not in unknown.message


MUSTACHE = REAL / "k8s-mustache-template-p5.yaml"
COVERED |= {MUSTACHE.name}


def test_a_mustache_template_is_not_called_a_helm_template(rules, tmp_path):
    result, _ = _read(MUSTACHE, rules)
    [template] = codes(result, "HBM012")
    assert template.span.line == line_of(MUSTACHE, "{{{KARPENTER_PREFIX}}}")
    assert "Helm" not in template.message and "{{NAME}} placeholders" in template.message
    assert "helm template" not in template.fixes[0]
    # a Helm template stays one
    helm = tmp_path / "deployment.yaml"
    helm.write_text(
        MUSTACHE.read_text().replace("{{DOCKER_IMAGE_PREFIX}}", "{{ .Values.registry }}/")
    )
    result = lint_file(helm, helm.name, rules, LintOptions())
    [template] = codes(result, "HBM012")
    assert "Helm template" in template.message and "helm template" in template.fixes[0]


def test_a_bare_quantized_directory_name_is_the_catalog_model_in_that_format(tmp_path, rules):
    # `vllm serve Qwen3-32B-FP8` (a directory in the working directory): was HBM006
    script = tmp_path / "serve.sh"
    script.write_text("vllm serve Qwen3-32B-FP8 --max-model-len 8192\n")
    result, _ = _read(script, rules, gpu="H100")
    assert codes(result, "HBM006") == [] and errors(result) == []
    [linted] = result.deployments
    assert linted.budget.assumed["model"].startswith("Qwen/Qwen3-32B with FP8 weights")
    # an unknown bare name is still unknown
    script.write_text("vllm serve my-finetune-v3 --max-model-len 8192\n")
    result, _ = _read(script, rules, gpu="H100")
    assert codes(result, "HBM006")


TGI_CHUNKED = """services:
  tgi:
    image: ghcr.io/huggingface/text-generation-inference:{tag}
    command: ["--model-id", "meta-llama/Llama-3.1-8B-Instruct", "--num-shard", "1",
              "--max-input-tokens", "16000", "--max-total-tokens", "16384",
              "--max-batch-prefill-tokens", "4096"]
    deploy: {{resources: {{reservations: {{devices: [{{driver: nvidia, count: 1,
      capabilities: [gpu]}}]}}}}}}
"""


@pytest.mark.parametrize(("tag", "refused"), [("2.4.1", True), ("3.3.4", False), ("latest", False)])
def test_tgi_3_prefills_a_prompt_above_the_prefill_budget_in_chunks(tmp_path, rules, tag, refused):
    # TGI's router refuses max_batch_prefill_tokens < max_input_tokens only without chunked
    # prefill, which is on by default from 3.0 (backends/v3/src/main.rs): it was a false error
    compose = tmp_path / "compose.yaml"
    compose.write_text(TGI_CHUNKED.format(tag=tag))
    result, _ = _read(compose, rules, gpu="H100")
    assert bool(codes(result, "HBM326")) is refused
    assert bool(errors(result)) is refused


@pytest.mark.parametrize(
    ("image", "release"),
    [
        # AMD's ROCm release repository names the engine in the tag (ROCm docs, InferenceMAX)
        ("rocm/7.0:rocm7.0_ubuntu_22.04_vllm_0.10.1_instinct_20250927_rc1", "0.10.1"),
        ("rocm/7.0:rocm7.0_ubuntu_22.04_sglang_0.5.2_mi30x", "0.5.2"),
        # AMD's day-0 gpt-oss image, built 2025-08-05, its day written MMDDYYYY
        ("rocm/vllm-dev:open-mi300-08052025", "0.10.0"),
    ],
)
def test_amd_image_tags_name_their_release(image, release):
    from hbmlint.engines import image_version

    assert image_version(image).split(" ")[0] == release


def test_a_rocm_70_image_that_takes_the_flags_is_not_told_they_are_removed(tmp_path, rules):
    # vLLM 0.10.1 still takes --max-seq-len-to-capture: were two HBM010 warnings on the newest
    script = tmp_path / "serve.sh"
    script.write_text(
        "docker run --rm --ipc=host --device=/dev/kfd --device=/dev/dri \\\n"
        "  rocm/7.0:rocm7.0_ubuntu_22.04_vllm_0.10.1_instinct_20250927_rc1 \\\n"
        "  vllm serve meta-llama/Llama-3.1-8B-Instruct --max-seq-len-to-capture 8192\n"
    )
    result, [deployment] = _read(script, rules, gpu="MI300X")
    assert deployment.engine_version == "0.10.1"
    assert codes(result, "HBM010") == []


EXEC_ROCM = REAL / "shell-docker-exec-rocm-container.sh"
COVERED |= {EXEC_ROCM.name}


def test_an_engine_execed_into_a_rocm_container_is_not_budgeted_on_an_nvidia_default(rules):
    # was "All clear" on 8 x H100 with --gpu H100: the container's /dev/kfd says AMD
    result, _ = _read(EXEC_ROCM, rules, gpu="H100")
    [unknown] = codes(result, "HBM005")
    assert "/dev/kfd" in unknown.message and "AMD" in unknown.message
    assert unknown.span.line == line_of(EXEC_ROCM, "--device /dev/kfd")
    assert result.deployments[0].budget is None
    # on the AMD GPU it names, it is budgeted
    result, _ = _read(EXEC_ROCM, rules, gpu="MI300X")
    assert result.deployments[0].budget is not None and errors(result) == []


@pytest.mark.parametrize(
    ("script", "release"),
    [
        # HPC batch scripts' container runners (sweep of session 32: NERSC, LUMI, JUPITER jobs)
        ("apptainer exec --nv docker://vllm/vllm-openai:v0.11.0 vllm serve {model}", "0.11.0"),
        ("SIF=vllm-v0.11.0.sif\nsingularity exec --nv $SIF vllm serve {model}", "0.11.0"),
        ("shifter --image=vllm/vllm-openai:v0.11.0 --module=gpu vllm serve {model}", "0.11.0"),
        ("srun --mpi=pmi2 apptainer exec /p/images/rocm_vllm0.5.5.sif vllm serve {model}", "0.5.5"),
        ("apptainer exec --nv my-tools.sif vllm serve {model}", None),
    ],
)
def test_an_hpc_container_runner_names_the_release_its_image_holds(
    tmp_path, rules, script, release
):
    path = tmp_path / "job.sh"
    path.write_text("#!/bin/bash\n" + script.format(model="Qwen/Qwen3-8B") + "\n")
    _, [deployment] = _read(path, rules, gpu="H100")
    assert deployment.engine_version == release


def test_an_sglang_sif_release_keeps_a_flag_a_later_release_removed(tmp_path, rules):
    # SGLang 0.5.16 still takes --cuda-graph-max-bs (removed in 0.5.20): was HBM010
    path = tmp_path / "job.sh"
    path.write_text(
        "#!/bin/bash\nSIF=/shared/containers/sglang-v0.5.16.sif\n"
        "apptainer exec --nv $SIF python3 -m sglang.launch_server --model-path Qwen/Qwen3-32B "
        "--tp 4 --cuda-graph-max-bs 192\n"
    )
    result, [deployment] = _read(path, rules, gpu="H100")
    assert deployment.engine_version == "0.5.16"
    assert codes(result, "HBM010") == []


@pytest.mark.parametrize(
    ("flag", "refused"),
    [
        ("--max-total-token 4096", True),  # FlyAF/llama-demo tgi.sh
        ("--max_total_tokens 4096", True),
        ("--max-total-tokens 4096", False),
    ],
)
def test_tgi_takes_its_flags_only_as_written(tmp_path, rules, flag, refused):
    # clap matches long names exactly: an abbreviation or '_' for '-' is "unexpected argument"
    script = tmp_path / "tgi.sh"
    script.write_text(
        "docker run --gpus all ghcr.io/huggingface/text-generation-inference:3.3.4 "
        f"--model-id meta-llama/Llama-3.1-8B-Instruct --num-shard 1 {flag}\n"
    )
    result, _ = _read(script, rules, gpu="H100")
    found = codes(result, "HBM004")
    assert bool(found) is refused
    if refused:
        assert found[0].severity.name == "ERROR" and "--max-total-tokens" in found[0].message


def test_an_amd_pod_with_no_gpu_type_is_told_amds_node_label(tmp_path, rules):
    # was told to select nvidia.com/gpu.product (vllm-project/production-stack's AMD tutorial
    # values, plain Deployments asking for amd.com/gpu)
    pod = tmp_path / "mi.yaml"
    pod.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: llm}\nspec:\n  template:\n"
        "    spec:\n      containers:\n      - name: vllm\n"
        "        image: rocm/vllm:rocm7.0.0_vllm_0.11.1_20251103\n"
        '        command: ["vllm", "serve", "Qwen/Qwen2.5-7B-Instruct"]\n'
        "        resources: {limits: {amd.com/gpu: 1}}\n"
    )
    result, _ = _read(pod, rules)
    [unknown] = codes(result, "HBM005")
    assert "amd.com/gpu.product-name" in unknown.message
    assert "nvidia.com/gpu.product" not in unknown.message and "--gpu MI300X" in unknown.message


def test_a_value_set_from_a_here_document_script_is_shown_by_its_first_line(tmp_path, rules):
    # meanaverage/gemma4-dflash-spark-vllm: the whole Python script was pasted into the finding
    script = tmp_path / "serve.sh"
    script.write_text(
        "#!/bin/bash\nSPEC=\"${SPEC:-$(python3 - 8 <<'PY'\nimport json, sys\n"
        'print(json.dumps({"method": "dflash"}))\nPY\n)}"\n'
        'vllm serve Qwen/Qwen3-8B --max-model-len 8192 --speculative-config "$SPEC"\n'
    )
    result, _ = _read(script, rules, gpu="H100")
    [unread] = codes(result, "HBM011")
    assert "\n" not in unread.message and "import json" not in unread.message
    assert "<<'PY' ..." in unread.message


@pytest.mark.parametrize(
    ("name", "text"),
    [
        # agassiyzh/spark-hackathon: a compose `bash -c` block, no `\` after the model
        (
            "compose.yaml",
            "services:\n  trt:\n    image: nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc10\n"
            "    command: >\n      bash -c '\n        trtllm-serve Qwen/Qwen3-8B\n"
            "        --max_batch_size 8 \\\n        --tp_size 1\n      '\n",
        ),
        (
            "serve.sh",
            "#!/bin/bash\nvllm serve Qwen/Qwen3-8B\n  --max-model-len 8192 \\\n  --enforce-eager\n",
        ),
    ],
)
def test_options_after_a_line_without_a_backslash_are_said_never_to_reach_the_engine(
    tmp_path, rules, name, text
):
    path = tmp_path / name
    path.write_text(text)
    result, [deployment] = _read(path, rules, gpu="H100")
    [cut] = codes(result, "HBM018")
    assert cut.severity.name == "WARNING" and "never reach the engine" in cut.message
    assert cut.fixes[0] == "End the line before it with `\\`"
    # read as the shell runs it: without the options after the break
    assert deployment.serving.max_num_seqs is None and deployment.serving.max_model_len is None
    # with the backslash, nothing to say
    path.write_text(text.replace("Qwen/Qwen3-8B\n", "Qwen/Qwen3-8B \\\n"))
    result, _ = _read(path, rules, gpu="H100")
    assert codes(result, "HBM018") == []
