"""`docker run`/`docker exec` in a launch script, as the container sees it (sweep 24 B, F2 and F3).

F3: `docker run --entrypoint /bin/bash IMAGE -lc "vllm serve ..."` replaces the image's
entrypoint with the shell whatever the image is, so the words after the image are the shell's
arguments and the engine's command is in the script (read only for vllm/vllm-openai before).
F2: `-e NAME=VALUE`, `--env`, `--env=`, `-e NAME` (the host's value) and `--env-file FILE` set the
environment the container's command or script reads, for any image and for `docker exec` (only
vLLM's own image got them before, and the note said the variable was "not set in the
container's env")."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"

COVERED = {
    "shell-docker-exec-env-nemotron-super-gb10.sh",
    "shell-docker-entrypoint-bash-kimi-k26-dcp8.sh",
}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _lint(path: Path, rules, gpu: str = "H100-SXM-80GB"):
    return lint_file(path, path.name, rules, LintOptions(default_gpu=gpu))


def _script(tmp_path: Path, text: str, name: str = "serve.sh") -> Path:
    script = tmp_path / name
    script.write_text(text, encoding="utf-8")
    return script


def _read(result) -> list[tuple]:
    """(engine, model, TP) of each deployment the user is shown."""
    return [
        (d.deployment.engine, d.deployment.model.name, d.deployment.parallel.tensor)
        for d in result.deployments
    ]


def _notes(result, code: str = "HBM011") -> list[str]:
    return [f.message for f in result.diagnostics if f.code == code]


# --- F3: --entrypoint <shell> IMAGE -c SCRIPT, any image ----------------------------------------


def test_real_kimi_k26_entrypoint_bash_on_a_custom_image_is_read(rules):
    result = _lint(REAL / "shell-docker-entrypoint-bash-kimi-k26-dcp8.sh", rules, "RTX-PRO-6000")
    assert _read(result) == [("vllm", "moonshotai/Kimi-K2.6", 8)]
    [item] = result.deployments
    # the exported profile variables reach the double-quoted script through the host's shell
    assert item.deployment.serving.max_model_len == 262144
    assert item.deployment.serving.gpu_memory_utilization == pytest.approx(0.94)
    assert not _notes(result, "HBM014")


@pytest.mark.parametrize(
    "entrypoint",
    ["--entrypoint /bin/bash", "--entrypoint=/bin/bash", "--entrypoint bash"]
    + ["--entrypoint /bin/sh", "--entrypoint=zsh"],
)
def test_entrypoint_shell_on_a_custom_image_reads_the_script(rules, tmp_path, entrypoint):
    command = '-lc "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2 --max-model-len 8192"'
    script = _script(
        tmp_path, f"docker run --rm --gpus all {entrypoint} myorg/inference:custom {command}\n"
    )
    result = _lint(script, rules)
    assert _read(result) == [("vllm", "Qwen/Qwen3-8B", 2)]
    assert result.deployments[0].deployment.serving.max_model_len == 8192
    assert not _notes(result, "HBM014")


def test_entrypoint_bash_on_sglang_image_reads_it_at_the_tags_release(rules, tmp_path):
    script = _script(
        tmp_path,
        "docker run --rm --gpus all --entrypoint /bin/bash lmsysorg/sglang:v0.5.9 -lc "
        '"python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2"\n',
    )
    result = _lint(script, rules)
    assert _read(result) == [("sglang", "Qwen/Qwen3-8B", 2)]
    assert result.deployments[0].deployment.engine_version == "0.5.9"


def test_entrypoint_bash_on_vllm_image_still_read(rules, tmp_path):
    script = _script(
        tmp_path,
        "docker run --rm --gpus all --entrypoint /bin/bash vllm/vllm-openai:v0.20.0 -lc "
        '"vllm serve Qwen/Qwen3-8B --tensor-parallel-size 1"\n',
    )
    result = _lint(script, rules)
    assert _read(result) == [("vllm", "Qwen/Qwen3-8B", 1)]
    assert result.deployments[0].deployment.engine_version == "0.20.0"


def test_entrypoint_bash_running_no_engine_is_not_a_deployment(rules, tmp_path):
    script = _script(
        tmp_path,
        "docker run --rm --entrypoint /bin/bash myorg/tools:1 -c 'ls /models'\n",
    )
    assert _read(_lint(script, rules)) == []


# --- F2: the container's environment from docker's own options ----------------------------------


def test_real_nemotron_docker_exec_env_is_read_with_the_scripts_defaults(rules):
    result = _lint(REAL / "shell-docker-exec-env-nemotron-super-gb10.sh", rules, "GB10")
    assert _read(result) == [("vllm", "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4", 2)]
    [item] = result.deployments
    assert item.deployment.parallel.pipeline == 1
    assert item.deployment.serving.max_model_len == 262144
    assert item.deployment.serving.gpu_memory_utilization == pytest.approx(0.75)
    notes = " ".join(_notes(result))
    assert "not set in the container's env" not in notes
    # SPEC_FLAG is "" or the MTP config by ENABLE_MTP: the note says it comes from `-e`
    assert "SPEC_FLAG" in notes


ENV_SPELLINGS = [
    '-e MODEL_CKPT=Qwen/Qwen3-8B -e TP_SIZE="2"',
    "--env MODEL_CKPT=Qwen/Qwen3-8B --env TP_SIZE=2",
    "--env=MODEL_CKPT=Qwen/Qwen3-8B --env=TP_SIZE=2",
]
SCRIPT = '\'vllm serve "$MODEL_CKPT" --tensor-parallel-size "${TP_SIZE}"\''


@pytest.mark.parametrize("options", ENV_SPELLINGS)
def test_docker_run_env_reaches_a_custom_images_script(rules, tmp_path, options):
    script = _script(
        tmp_path, f"docker run --gpus all {options} myorg/vllm-ray:26.05 bash -c {SCRIPT}\n"
    )
    assert _read(_lint(script, rules)) == [("vllm", "Qwen/Qwen3-8B", 2)]


@pytest.mark.parametrize("options", ENV_SPELLINGS)
def test_docker_run_env_reaches_an_entrypoint_shells_script(rules, tmp_path, options):
    script = _script(
        tmp_path,
        f"docker run {options} --entrypoint /bin/bash myorg/vllm-ray:26.05 -c {SCRIPT}\n",
    )
    assert _read(_lint(script, rules)) == [("vllm", "Qwen/Qwen3-8B", 2)]


@pytest.mark.parametrize("options", ENV_SPELLINGS)
def test_docker_exec_env_reaches_the_script(rules, tmp_path, options):
    script = _script(tmp_path, f"docker exec -it {options} mycontainer /bin/bash -c {SCRIPT}\n")
    assert _read(_lint(script, rules)) == [("vllm", "Qwen/Qwen3-8B", 2)]


@pytest.mark.parametrize("option", ["-e", "--env"])
def test_env_by_name_takes_the_hosts_exported_value(rules, tmp_path, option):
    script = _script(
        tmp_path,
        "export MODEL_CKPT=Qwen/Qwen3-8B\nexport TP_SIZE=2\n"
        f"docker run {option} MODEL_CKPT {option} TP_SIZE myorg/img:1 bash -c {SCRIPT}\n",
    )
    assert _read(_lint(script, rules)) == [("vllm", "Qwen/Qwen3-8B", 2)]


def test_env_by_name_unknown_on_the_host_says_where_it_comes_from(rules, tmp_path):
    script = _script(
        tmp_path, f"docker exec -e MODEL_CKPT -e TP_SIZE=2 mycontainer bash -c {SCRIPT}\n"
    )
    result = _lint(script, rules)
    assert _read(result) == []
    [note] = [n for n in _notes(result) if "the model is" in n]
    assert "-e MODEL_CKPT" in note and "not set in the container's env" not in note


def test_env_from_an_unknown_host_variable_says_so(rules, tmp_path):
    script = _script(
        tmp_path,
        f'docker run -e MODEL_CKPT="${{MODEL_CKPT}}" -e TP_SIZE=2 myorg/img:1 bash -c {SCRIPT}\n',
    )
    result = _lint(script, rules)
    assert _read(result) == []
    [note] = [n for n in _notes(result) if "the model is" in n]
    assert "is set from the host by `-e MODEL_CKPT=${MODEL_CKPT}`" in note
    assert "${MODEL_CKPT} is not set earlier in the script" in note
    assert "not set in the container's env" not in note


@pytest.mark.parametrize("option", ["--env-file serve.env", "--env-file=./serve.env"])
def test_env_file_beside_the_script_is_read(rules, tmp_path, option):
    (tmp_path / "serve.env").write_text(
        "# the model\nMODEL_CKPT=Qwen/Qwen3-8B\nTP_SIZE=2\n", encoding="utf-8"
    )
    script = _script(tmp_path, f"docker run {option} myorg/img:1 bash -c {SCRIPT}\n")
    assert _read(_lint(script, rules)) == [("vllm", "Qwen/Qwen3-8B", 2)]


def test_env_file_not_found_leaves_its_variables_set_but_unknown(rules, tmp_path):
    script = _script(
        tmp_path, f"docker run --env-file missing.env -e TP_SIZE=2 myorg/img:1 bash -c {SCRIPT}\n"
    )
    result = _lint(script, rules)
    assert _read(result) == []
    [note] = [n for n in _notes(result) if "the model is" in n]
    assert "--env-file missing.env" in note and "not set in the container's env" not in note


def test_minimal_docker_exec_repro(rules, tmp_path):
    script = _script(
        tmp_path,
        'MODEL_CKPT="${MODEL_CKPT:-nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4}"\n'
        'TP_SIZE="${TP_SIZE:-2}"\n'
        'docker exec -it -e MODEL_CKPT="${MODEL_CKPT}" -e TP_SIZE="${TP_SIZE}" mycontainer '
        "/bin/bash -c '\n"
        '  exec vllm serve "${MODEL_CKPT}" --tensor-parallel-size "${TP_SIZE}"\n'
        "'\n",
    )
    result = _lint(script, rules, "GB10")
    assert _read(result) == [("vllm", "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4", 2)]


def test_options_after_the_image_are_not_dockers(rules, tmp_path):
    # `IMAGE bash -c ... -e X=1`: words after the image are the command's, not docker's
    script = _script(
        tmp_path,
        "docker run myorg/img:1 bash -c 'vllm serve \"$MODEL_CKPT\"' -e MODEL_CKPT=Qwen/Qwen3-8B\n",
    )
    assert _read(_lint(script, rules)) == []


def test_docker_run_env_reaches_the_engine_after_a_custom_image(rules, tmp_path):
    # the engine reads VLLM_ALLOW_LONG_MAX_MODEL_LEN from the container's env: no false HBM303
    script = _script(
        tmp_path,
        "docker run --gpus all -e VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 myorg/img:1 "
        "vllm serve Qwen/Qwen3-8B --max-model-len 200000\n",
    )
    result = _lint(script, rules)
    assert [read[:2] for read in _read(result)] == [("vllm", "Qwen/Qwen3-8B")]
    assert not [f for f in result.diagnostics if f.code == "HBM303"]
