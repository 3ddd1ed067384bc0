"""An engine's settings in the file its command names (vLLM's and SGLang's ``--config FILE``,
TensorRT-LLM's ``--extra_llm_api_options FILE``) are read where the manifest keeps that file: a
ConfigMap the pod mounts, a here-document the script writes, a Compose config or bind mount.
Findings about those settings point at the line of the file that sets them."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_lint import REAL, codes, errors, line_of, lint

from hbmlint.diagnostics import Severity
from hbmlint.rules import load_rules

VLLM_HEREDOC = REAL / "shell-vllm-config-heredoc.sh"
TRTLLM_HEREDOC = REAL / "shell-trtllm-heredoc-extra-options.sh"
TRTLLM_CONFIGMAP = REAL / "k8s-trtllm-extra-options-configmap.yaml"
CHANGED_BY_SED = REAL / "aibrix-trtllm-config-sed.yaml"
BRANCH_APPEND = REAL / "shell-trtllm-heredoc-branch-append.sh"

COVERED = {
    VLLM_HEREDOC.name,
    TRTLLM_HEREDOC.name,
    TRTLLM_CONFIGMAP.name,
    CHANGED_BY_SED.name,
    BRANCH_APPEND.name,
}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _not_followed(result) -> list:
    return [
        f
        for f in result.diagnostics
        if "does not follow from here" in f.message
        or "a file hbmlint does not read" in f.message
        or "which hbmlint cannot know" in f.message
    ]


def test_a_vllm_config_written_by_a_heredoc_is_read_at_its_lines(rules):
    # was an info that --config config.yaml is not followed; its removed flag went unseen
    result = lint(VLLM_HEREDOC, rules)
    assert _not_followed(result) == []
    [removed] = [f for f in codes(result, "HBM010") if "--cuda-graph-sizes" in f.message]
    assert removed.severity is Severity.WARNING
    assert removed.span.line == line_of(VLLM_HEREDOC, "cuda-graph-sizes: 2048")


def test_the_vllm_command_line_wins_over_its_config_file(rules, tmp_path):
    text = VLLM_HEREDOC.read_text().replace("vllm serve $MODEL", "vllm serve openai/gpt-oss-120b")
    text = text.replace("--tensor-parallel-size=$TP", "--tensor-parallel-size=1")
    text = text.replace("max-model-len: 10240", "max-model-len: 10240\ngpu-memory-utilization: 0.5")
    path = tmp_path / "serve.sh"
    path.write_text(text)
    [found] = lint(path, rules, gpu="H100-80GB").deployments
    serving = found.deployment.serving
    assert serving.max_model_len == 10240  # from the file
    assert serving.max_num_batched_tokens == 8192
    assert serving.gpu_memory_utilization == 0.9  # --gpu-memory-utilization=0.9 wins
    assert found.deployment.locations["serving.max_model_len"].line == line_of(
        path, "max-model-len: 10240"
    )


def test_trtllm_serve_options_written_by_a_heredoc_are_read(rules):
    # both servers were infos "takes settings from ./ctx.yml, a file hbmlint does not read"
    result = lint(TRTLLM_HEREDOC, rules, gpu="H100-80GB")
    assert _not_followed(result) == []
    assert errors(result) == []
    pipelines = sorted(d.deployment.parallel.pipeline or 1 for d in result.deployments)
    assert pipelines == [1, 2]


def test_a_bad_value_in_a_heredoc_is_an_error_at_its_line(rules, tmp_path):
    text = TRTLLM_HEREDOC.read_text().replace(
        "print_iter_log: true\nEOF",
        "print_iter_log: true\nkv_cache_config:\n  free_gpu_memory_fraction: 1.5\nEOF",
        1,
    )
    path = tmp_path / "script.sh"
    path.write_text(text)
    result = lint(path, rules, gpu="H100-80GB")
    [bad] = [f for f in codes(result, "HBM004") if "free_gpu_memory_fraction" in f.message]
    assert bad.severity is Severity.ERROR
    assert bad.span.line == line_of(path, "free_gpu_memory_fraction: 1.5")


def test_a_heredoc_value_the_script_cannot_expand_is_unread_not_refused(rules, tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text(
        "cat > extra.yml <<EOF\n"
        "kv_cache_config:\n"
        "  free_gpu_memory_fraction: $FRACTION\n"
        "EOF\n"
        "trtllm-serve meta-llama/Llama-3.1-8B-Instruct --extra_llm_api_options extra.yml\n"
    )
    result = lint(path, rules, gpu="H100-80GB")
    assert errors(result) == []
    [found] = result.deployments
    assert "serving.gpu_memory_utilization" in found.deployment.unread
    assert found.deployment.unread["serving.gpu_memory_utilization"].line == 3


def test_what_a_branch_adds_to_the_file_leaves_the_rest_read(rules, tmp_path):
    # `cat << EOF >> $EXTRA_CONFIG_FILE` under `if [[ "$DP_ATTENTION" == "true" ]]` adds
    # attention_dp_config; the memory fraction and KV dtype written before it are still read
    result = lint(BRANCH_APPEND, rules, gpu="H200")
    assert _not_followed(result) == [] and errors(result) == []
    text = BRANCH_APPEND.read_text().replace("trtllm-serve $MODEL", "trtllm-serve Qwen/Qwen3-8B")
    text = text.replace("--tp_size=$TP --ep_size=$EP_SIZE", "--tp_size=1")
    path = tmp_path / "serve.sh"
    path.write_text(text)
    [found] = lint(path, rules, gpu="H200").deployments
    serving = found.deployment.serving
    assert serving.gpu_memory_utilization == 0.75 and serving.kv_cache_dtype == "fp8"
    assert found.deployment.locations["serving.gpu_memory_utilization"].line == line_of(
        path, "free_gpu_memory_fraction: 0.75"
    )


def test_an_unexpanded_list_in_a_heredoc_keeps_the_file_readable(rules, tmp_path):
    # `batch_sizes: [${LIST%, }]` is no YAML as written; hbmlint reads the rest
    path = tmp_path / "serve.sh"
    path.write_text(
        "cat << EOF > ser.yaml\n"
        "cuda_graph_config:\n"
        "    batch_sizes: [${LIST%, }]\n"
        "kv_cache_config:\n"
        "    free_gpu_memory_fraction: 0.6\n"
        "EOF\n"
        "trtllm-serve Qwen/Qwen3-8B --config ser.yaml\n"
    )
    [found] = lint(path, rules, gpu="H100-80GB").deployments
    assert found.deployment.serving.gpu_memory_utilization == 0.6


def test_a_config_the_script_changes_after_writing_it_is_not_read(rules):
    # sed -i replaces __GPU_MEM_FRACTION__ before the server starts: read as written, the
    # placeholder was an HBM004 error "not a number between 0 and 1"
    result = lint(CHANGED_BY_SED, rules, gpu="H100-80GB")
    assert errors(result) == []
    notes = [f for f in codes(result, "HBM011") if "changes it with sed" in f.message]
    assert [f.span.line for f in notes] == [
        line_of(CHANGED_BY_SED, "--config /tmp/ctx_config.yaml"),
        line_of(CHANGED_BY_SED, "--config /tmp/gen_config.yaml"),
    ]


def test_a_config_written_in_a_branch_that_may_not_run_is_not_read(rules, tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text(
        "cat > c.yaml <<EOF\n"
        "tensor-parallel-size: 1\n"
        "EOF\n"
        'if [ "$BIG" = 1 ]; then\n'
        "cat > c.yaml <<EOF\n"
        "tensor-parallel-size: 8\n"
        "EOF\n"
        "fi\n"
        "vllm serve meta-llama/Llama-3.1-70B-Instruct --config c.yaml\n"
    )
    result = lint(path, rules, gpu="H100-80GB")
    assert errors(result) == []  # not budgeted at TP 1, which the branch may change
    assert len(_not_followed(result)) == 1


def test_trtllm_options_from_a_mounted_config_map_are_read_at_its_lines(rules, tmp_path):
    # was an info: "takes settings from /etc/trtllm/llm_api_options.yaml, a file hbmlint does
    # not read here"
    result = lint(TRTLLM_CONFIGMAP, rules, gpu="H100-80GB")
    assert _not_followed(result) == []
    [found] = result.deployments
    assert found.deployment.model.name == "Qwen/Qwen3-32B"
    assert found.deployment.parallel.tensor == 2
    text = TRTLLM_CONFIGMAP.read_text().replace(
        "    enable_iter_perf_stats: true\n",
        "    enable_iter_perf_stats: true\n"
        "    kv_cache_config:\n"
        "      free_gpu_memory_fraction: 0.5\n",
    )
    path = tmp_path / "rendered.yaml"
    path.write_text(text)
    [found] = lint(path, rules, gpu="H100-80GB").deployments
    # the file wins over --kv_cache_free_gpu_memory_fraction=0.9 on the command line
    assert found.deployment.serving.gpu_memory_utilization == 0.5
    assert found.deployment.locations["serving.gpu_memory_utilization"].line == line_of(
        path, "free_gpu_memory_fraction: 0.5"
    )


VLLM_DEPLOYMENT = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: vllm-config
data:
  config.yaml: |
    model: meta-llama/Llama-3.1-70B-Instruct
    tensor_parallel_size: 2
    max-model-len: 32768
    gpu-memory-utilization: 0.92
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: ["--config", "/etc/vllm/config.yaml", "--max-model-len", "16384"]
          resources:
            limits:
              nvidia.com/gpu: 2
          volumeMounts:
            - name: config
              mountPath: /etc/vllm
      volumes:
        - name: config
          configMap:
            name: vllm-config
"""


def test_vllm_settings_from_a_mounted_config_map_are_read(rules, tmp_path):
    path = tmp_path / "llama.yaml"
    path.write_text(VLLM_DEPLOYMENT)
    result = lint(path, rules, gpu="H100-80GB")
    assert _not_followed(result) == []
    [found] = result.deployments
    deployment = found.deployment
    assert deployment.model.name == "meta-llama/Llama-3.1-70B-Instruct"
    assert deployment.parallel.tensor == 2  # tensor_parallel_size: underscores are read too
    assert deployment.serving.max_model_len == 16384  # the command line wins
    assert deployment.serving.gpu_memory_utilization == 0.92
    assert deployment.locations["parallel.tensor"].line == line_of(path, "tensor_parallel_size")
    assert deployment.locations["model.name"].line == line_of(path, "model: meta-llama")


def test_a_config_map_that_is_not_mounted_leaves_the_settings_unfollowed(rules, tmp_path):
    path = tmp_path / "llama.yaml"
    path.write_text(VLLM_DEPLOYMENT.replace("mountPath: /etc/vllm", "mountPath: /opt/other"))
    result = lint(path, rules, gpu="H100-80GB")
    assert result.deployments == [] or _not_followed(result)
    assert not [f for f in codes(result, "HBM003") if f.severity is Severity.ERROR]


COMPOSE = """\
services:
  llm:
    image: vllm/vllm-openai:v0.26.0
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: 1
              capabilities: [gpu]
    configs:
      - source: vllm_config
        target: /etc/vllm/config.yaml
    command: --config /etc/vllm/config.yaml
configs:
  vllm_config:
    content: |
      model: meta-llama/Llama-3.1-8B-Instruct
      max_model_len: 4096
      gpu_memory_utilization: 1.5
"""


def test_a_compose_config_written_inline_is_read_at_its_lines(rules, tmp_path):
    path = tmp_path / "compose.yaml"
    path.write_text(COMPOSE)
    result = lint(path, rules, gpu="H100-80GB")
    [bad] = [f for f in result.diagnostics if f.code == "HBM004"]
    assert bad.span.line == line_of(path, "gpu_memory_utilization: 1.5")


def test_a_compose_bind_mounted_config_is_read(rules, tmp_path):
    (tmp_path / "vllm.yaml").write_text("model: meta-llama/Llama-3.1-8B-Instruct\n")
    text = COMPOSE.split("configs:\n  vllm_config")[0].replace(
        "    configs:\n      - source: vllm_config\n        target: /etc/vllm/config.yaml\n",
        "    volumes:\n      - ./vllm.yaml:/etc/vllm/config.yaml:ro\n",
    )
    path = tmp_path / "compose.yaml"
    path.write_text(text)
    [found] = lint(path, rules, gpu="H100-80GB").deployments
    assert found.deployment.model.name == "meta-llama/Llama-3.1-8B-Instruct"


def test_a_launch_script_reads_a_config_file_beside_it(rules, tmp_path: Path):
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "llama.yaml").write_text("tensor-parallel-size: 4\n")
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    path = scripts / "serve.sh"
    path.write_text("vllm serve meta-llama/Llama-3.1-70B-Instruct --config configs/llama.yaml\n")
    [found] = lint(path, rules, gpu="H100-80GB").deployments
    assert found.deployment.parallel.tensor == 4


@pytest.mark.parametrize(
    ("key", "off"), [("enable-chunked-prefill", True), ("enable_chunked_prefill", False)]
)
def test_a_false_vllm_key_is_its_no_flag_where_vllm_finds_one(rules, tmp_path, key, off):
    # vLLM writes `--no-KEY` for `KEY: false` only where that flag exists as the key is
    # written: the underscored key finds none, and the setting is dropped
    path = tmp_path / "serve.sh"
    path.write_text(
        f"cat > c.yaml <<EOF\n{key}: false\nEOF\n"
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --config c.yaml\n"
    )
    [found] = lint(path, rules, gpu="L4").deployments
    assert (found.deployment.serving.chunked_prefill is False) is off


TRTLLM_COMPOSE = """\
services:
  trt:
    image: nvcr.io/nvidia/tensorrt-llm/release:{tag}
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: 1
              capabilities: [gpu]
    command: trtllm-serve Qwen/Qwen3-8B --config /etc/trt/extra.yml
"""


@pytest.mark.parametrize(("tag", "refused"), [("1.0.0", True), ("1.2.0rc6", False)])
def test_trtllm_serve_config_is_refused_by_releases_before_its_alias(rules, tmp_path, tag, refused):
    path = tmp_path / "compose.yaml"
    path.write_text(TRTLLM_COMPOSE.format(tag=tag))
    found = [
        f for f in codes(lint(path, rules, gpu="H100-80GB"), "HBM004") if "--config" in f.message
    ]
    assert bool(found) is refused
    if refused:
        assert found[0].severity is Severity.ERROR
        assert found[0].span.line == line_of(path, "--config")


def test_a_config_written_by_echo_is_read(rules, tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text(
        "echo 'kv_cache_config: {free_gpu_memory_fraction: 0.7}' > extra.yml\n"
        "trtllm-serve Qwen/Qwen3-8B --extra_llm_api_options ./extra.yml\n"
    )
    [found] = lint(path, rules, gpu="H100-80GB").deployments
    assert found.deployment.serving.gpu_memory_utilization == 0.7


SPECULATIVE = REAL / "shell-trtllm-heredoc-speculative-config.sh"
COVERED.add(SPECULATIVE.name)


def test_trtllm_speculative_config_in_the_options_file_is_read(rules):
    # was read without a drafter: an EAGLE-3 head's weights and tokens never budgeted
    result = lint(SPECULATIVE, rules, gpu="H200")
    eagle, mtp = (d.deployment.speculative for d in result.deployments)
    assert (eagle.method, eagle.model.name, eagle.num_speculative_tokens) == (
        "eagle3",
        "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B",
        3,
    )
    assert (mtp.method, mtp.model, mtp.num_speculative_tokens) == ("mtp", None, 3)
    # each setting at its line of the file
    where = result.deployments[0].deployment.locations
    assert where["speculative.model"].line == line_of(SPECULATIVE, "speculative_model_dir")
    assert errors(result) == []
