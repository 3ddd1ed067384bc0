"""Patterns from public repositories hbmlint had never seen (sweep 15): each fixture under
tests/fixtures/real/ names its source in its first lines; each test says what a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_lint import codes, errors, line_of, lint

from hbmlint.diagnostics import Severity
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"

SGLANG_MTP = REAL / "sglang-mtp-pool-below-context-job.yaml"
SERVER_MESSAGES = REAL / "shell-sglang-server-in-messages.sh"
TPU_KEPT_ALIVE = REAL / "docker-run-vllm-tpu-image-kept-alive.sh"
ROCM_SCRIPT = REAL / "shell-vllm-rocm-image-glm5.sh"
ROCM_POD = REAL / "k8s-vllm-rocm-image-no-gpu-resource.yaml"
TGI_ALL_GPUS = REAL / "shell-tgi-docker-gpus-all-no-num-shard.sh"

COVERED = {SGLANG_MTP.name, SERVER_MESSAGES.name, TPU_KEPT_ALIVE.name, ROCM_SCRIPT.name}
COVERED |= {ROCM_POD.name, TGI_ALL_GPUS.name}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def test_sglang_drafter_short_of_the_context_starts_in_the_tradeoff_too(rules, tmp_path):
    # was HBM208 "as set: MTP layers: does not start ... the current setting does not start"
    # beside HBM104's "the server starts and refuses requests longer than the pool": SGLang
    # makes no start-up check of one context-length request (rules/HBM102's description); a
    # vLLM drafter short of one sequence still "does not start" (test_speculative_rules.py)
    result = lint(SGLANG_MTP, rules)
    assert errors(result) == []
    [pool] = codes(result, "HBM104")
    assert pool.span.line == line_of(SGLANG_MTP, "--context-length")
    # At 131,072 tokens no alternative holds a sequence once the TP 8 group's communicators
    # are out of what is free at start (engines.yaml sglang multi_gpu): HBM208 has nothing to
    # advise. At 98,304 tokens n-gram lookup fits (116,736 tokens) and the MTP drafter does not
    shorter = tmp_path / SGLANG_MTP.name
    shorter.write_text(SGLANG_MTP.read_text().replace('"131072"', '"98304"'))
    assert not codes(result, "HBM208")
    [tradeoff] = codes(lint(shorter, rules), "HBM208")
    assert "does not start" not in tradeoff.message
    assert "as set: MTP layers: starts but holds no max_model_len sequence" in tradeoff.message
    [fix] = [f.message for f in tradeoff.fixes]
    assert fix.endswith("the current setting starts but holds no max_model_len sequence.")


def test_a_script_that_says_sglang_server_runs_no_engine(rules):
    # was HBM014 "'sglang serve' here runs an inference engine" at `echo "... an sglang server
    # already owns port"`: the words name the server in a message, the script starts none
    result = lint(SERVER_MESSAGES, rules)
    assert result.diagnostics == [] and result.deployments == []


def test_sglang_serve_as_a_command_is_still_read(rules, tmp_path):
    # the contrast: the wrapper running `sglang serve` itself is read and budgeted
    path = tmp_path / "serve.sh"
    launch = next(line for line in SERVER_MESSAGES.read_text().splitlines() if "setsid" in line)
    path.write_text(
        SERVER_MESSAGES.read_text().replace(
            launch, 'sglang serve --model-path Qwen/Qwen3-8B --port "$PORT" --tp 1 &'
        )
    )
    result = lint(path, rules, gpu="L40S")
    assert codes(result, "HBM014") == []
    [found] = result.deployments
    assert found.deployment.model.name == "Qwen/Qwen3-8B"


def test_the_tpu_image_kept_alive_with_tail_serves_no_model_named_tail(rules):
    # was HBM005 and HBM006 "model 'tail' is not in hbmlint's catalog": the words after the
    # image were read as `vllm serve` flags, but vLLM's TPU image has no entrypoint
    result = lint(TPU_KEPT_ALIVE, rules)
    assert result.diagnostics == [] and result.deployments == []


def test_vllm_serve_run_in_the_tpu_image_is_read_and_not_budgeted_on_a_gpu(rules, tmp_path):
    # the contrast: the program named after the image is the engine, on a TPU (the image says
    # so), so it is not budgeted on --gpu H100 (formats/accelerators.py)
    path = tmp_path / "serve.sh"
    path.write_text(
        TPU_KEPT_ALIVE.read_text().replace(
            "tail -f /dev/null", "vllm serve Qwen/Qwen3-8B --max-model-len 4096"
        )
    )
    result = lint(path, rules, gpu="H100")
    [note] = codes(result, "HBM014")
    assert note.span.line == line_of(path, "vllm/vllm-tpu-bm")
    assert "the image vllm/vllm-tpu-bm: the engine runs on a Google TPU" in note.message
    assert result.deployments == [] and errors(result) == []


def test_vllm_cpu_image_in_compose_is_not_budgeted_on_a_gpu(rules, tmp_path):
    # vLLM's recipes pull vllm/vllm-openai-cpu "for Intel Xeon 6": its entrypoint is vllm serve
    # (docker/Dockerfile.cpu), its memory the host's
    path = tmp_path / "compose.yaml"
    path.write_text(
        "services:\n"
        "  vllm:\n"
        "    image: vllm/vllm-openai-cpu:latest-x86_64\n"
        '    command: ["Qwen/Qwen3-8B", "--max-model-len", "4096"]\n'
    )
    result = lint(path, rules, gpu="H100")
    [note] = codes(result, "HBM014")
    assert note.span.line == 3 and "the engine runs on the CPU" in note.message
    assert result.deployments == []


def test_vllms_own_rocm_image_is_not_budgeted_on_an_nvidia_gpu(rules):
    # was HBM101 with --gpu H100: "weights need 175.30 GiB per GPU ... on H100-SXM-80GB", for
    # GLM-5 on vllm/vllm-openai-rocm, whose GPUs are AMD's (MI355X: 288 GB each)
    result = lint(ROCM_SCRIPT, rules, gpu="H100")
    assert errors(result) == []
    [warning] = codes(result, "HBM005")
    assert warning.span.line == line_of(ROCM_SCRIPT, '"$IMAGE"')
    assert "vllm/vllm-openai-rocm:latest is a ROCm build" in warning.message
    # on an AMD --gpu it is budgeted, TP 8, and fits
    on_amd = lint(ROCM_SCRIPT, rules, gpu="MI355X")
    assert errors(on_amd) == []
    [found] = on_amd.deployments
    assert found.deployment.parallel.tensor == 8
    assert found.budget.resolved.gpu.vendor == "amd"


def test_a_pod_on_a_rocm_image_with_no_gpu_resource_is_amds(rules):
    # no amd.com/gpu request (the devices come from hostPath volumes): the image says AMD
    result = lint(ROCM_POD, rules, gpu="H100")
    [warning] = codes(result, "HBM005")
    assert warning.span.line == line_of(ROCM_POD, "image: vllm/vllm-omni-rocm")
    assert "runs the ROCm image vllm/vllm-omni-rocm:v0.12.0rc1 (AMD GPUs)" in warning.message
    [found] = lint(ROCM_POD, rules, gpu="MI300X").deployments
    assert found.budget.resolved.gpu.vendor == "amd"


def test_a_pod_asking_for_nvidia_gpus_on_a_rocm_named_image_stays_nvidias(rules, tmp_path):
    # the contrast: an NVIDIA request wins over the image's name
    path = tmp_path / "pod.yaml"
    path.write_text(
        ROCM_POD.read_text().replace(
            "          securityContext:",
            '          resources:\n            limits:\n              nvidia.com/gpu: "1"\n'
            "          securityContext:",
        )
    )
    result = lint(path, rules, gpu="H100")
    assert codes(result, "HBM005") == []
    [found] = result.deployments
    assert found.budget.resolved.gpu.name == "H100-SXM-80GB"


def test_tgi_on_every_gpu_of_an_unknown_host_is_not_budgeted_on_one(rules):
    # was HBM101 with --gpu H100: "weights need 131.45 GiB per GPU": TGI's --num-shard
    # defaults to the GPUs it sees (launcher find_num_shards), and --gpus all says no number
    result = lint(TGI_ALL_GPUS, rules, gpu="H100")
    assert errors(result) == [] and result.deployments == []
    [note] = codes(result, "HBM011")
    assert note.span.line == line_of(TGI_ALL_GPUS, "text-generation-inference:3.1.1")
    assert "TGI splits the model over every GPU it sees" in note.message


@pytest.mark.parametrize("setting", ["--sharded false", "--num-shard 1"])
def test_tgi_told_one_shard_is_budgeted_on_one_gpu(rules, tmp_path, setting):
    # the contrast: one shard is one GPU, and 70B in bfloat16 does not fit an H100
    path = tmp_path / "tgi.sh"
    path.write_text(
        TGI_ALL_GPUS.read_text().replace("--max-total-tokens", f"{setting} --max-total-tokens")
    )
    result = lint(path, rules, gpu="H100")
    assert any(e.startswith("HBM101") for e in errors(result))
    [found] = result.deployments
    assert found.budget.settings.tensor_parallel == 1


@pytest.mark.parametrize(
    ("fixture", "command"),
    [
        ("shell-vllm-quoted-defaults.sh", "exec $VLLM_CMD"),
        # an engine over both nodes of the job: the job's GPU request is where its GPUs are said
        ("slurm-apptainer-bash-c-sglang.sh", "#SBATCH --gpus-per-node=4"),
    ],
)
def test_a_word_the_header_comment_also_says_is_placed_at_the_command(rules, fixture, command):
    # was HBM005 at line 3, inside the comment that describes the command ("... run with exec",
    # "`srun apptainer exec ...`"): words were searched for from the top of the file
    path = REAL / fixture
    [warning] = codes(lint(path, rules), "HBM005")
    assert warning.span.line == line_of(path, command)
    written = path.read_text().splitlines()[warning.span.line - 1].lstrip()
    assert written.startswith("#SBATCH") or not written.startswith("#")


@pytest.mark.parametrize(("visible", "shards"), [("1", 1), ("0,1,2,3", 4)])
def test_tgi_counts_the_gpus_the_container_is_given_with_docker_e(rules, tmp_path, visible, shards):
    # `docker run -e CUDA_VISIBLE_DEVICES=1 --gpus all`: TGI's launcher counts its shards by
    # the container's CUDA_VISIBLE_DEVICES (find_num_shards), so the file does say how many
    path = tmp_path / "tgi.sh"
    path.write_text(
        TGI_ALL_GPUS.read_text().replace(
            "docker run --gpus all", f"docker run -e CUDA_VISIBLE_DEVICES={visible} --gpus all"
        )
    )
    result = lint(path, rules, gpu="H100")
    assert codes(result, "HBM011") == []
    [found] = result.deployments
    assert found.budget.settings.tensor_parallel == shards
    # 70B in bfloat16: over one H100, under four
    assert any(e.startswith("HBM101") for e in errors(result)) is (shards == 1)


@pytest.mark.parametrize(
    ("given", "shards"),
    [("--gpus 2", 2), ("--gpus '\"device=0,1,2,3\"'", 4), ("--gpus count=4", 4), ("--gpus 1", 1)],
)
def test_tgi_shards_over_the_gpus_docker_gives_the_container(rules, tmp_path, given, shards):
    # `docker run --gpus N` (or a quoted device list, which docker reads as one CSV field)
    # gives the container N GPUs: TGI's launcher shards over what it sees
    path = tmp_path / "tgi.sh"
    path.write_text(TGI_ALL_GPUS.read_text().replace("--gpus all", given))
    result = lint(path, rules, gpu="H100")
    assert codes(result, "HBM011") == []
    [found] = result.deployments
    assert found.budget.settings.tensor_parallel == shards
    assert found.deployment.gpu.count == shards


def test_vllm_given_fewer_gpus_than_its_parallelism_cannot_start(rules, tmp_path):
    script = (
        "docker run --gpus 1 vllm/vllm-openai:v0.10.1 "
        "--model meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2\n"
    )
    path = tmp_path / "vllm.sh"
    path.write_text(script)
    [error] = [f for f in lint(path, rules, gpu="H100").diagnostics if f.code == "HBM007"]
    assert error.severity is Severity.ERROR and "docker --gpus 1" in error.message
    assert script[error.span.column - 1 :].startswith("1 ")  # at the --gpus value
    # on a Ray cluster the other nodes' GPUs are not in the file: not counted
    path.write_text("ray start --head\n" + script)
    assert [f for f in lint(path, rules, gpu="H100").diagnostics if f.code == "HBM007"] == []


def test_docker_runs_nvidia_runtime_gives_the_listed_devices(rules, tmp_path):
    # `docker run --runtime nvidia -e NVIDIA_VISIBLE_DEVICES=0`: the container has GPU 0 only
    script = (
        "docker run --runtime nvidia -e NVIDIA_VISIBLE_DEVICES=0 vllm/vllm-openai:v0.11.0 "
        "--model meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2\n"
    )
    path = tmp_path / "vllm.sh"
    path.write_text(script)
    [error] = [f for f in lint(path, rules, gpu="L40S").diagnostics if f.code == "HBM007"]
    assert error.severity is Severity.ERROR
    # a --gpus request decides over the variable
    path.write_text(script.replace("--runtime nvidia", "--runtime nvidia --gpus 2"))
    assert [f for f in lint(path, rules, gpu="L40S").diagnostics if f.code == "HBM007"] == []
