"""SGLang and TGI deployments, and vLLM --config files, read as their hand-written native twins.

Shapes follow the public examples: LWS's SGLang example (--tp 2 across two one-GPU pods),
sglang's k8s Deployment (args as a flow list), GKE's TGI samples (configured by env vars), and
vLLM config files whose keys are the long flag names."""

from __future__ import annotations

from format_helpers import budgets, findings, line_of, native, rule_findings, run, write

SGLANG_LWS = """
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: sglang}
spec:
  replicas: 1
  leaderWorkerTemplate:
    size: 2
    leaderTemplate:
      spec:
        nodeSelector: {nvidia.com/gpu.product: NVIDIA-L40S}
        containers:
        - name: sglang-leader
          image: lmsysorg/sglang:latest
          command:
          - python3
          - -m
          - sglang.launch_server
          - --model-path
          - meta-llama/Llama-3.1-8B-Instruct
          - --tp
          - "2"
          - --dist-init-addr
          - $(LWS_LEADER_ADDRESS):20000
          - --nnodes
          - $(LWS_GROUP_SIZE)
          - --context-length=65536
          - --mem-fraction-static
          - "0.85"
          - --speculative-algo
          - STANDALONE
          - --speculative-draft-model-path
          - meta-llama/Llama-3.2-1B-Instruct
          - --speculative-num-steps
          - "3"
          resources:
            limits: {nvidia.com/gpu: "1"}
    workerTemplate:
      spec:
        containers:
        - name: sglang-worker
          image: lmsysorg/sglang:latest
          command: [python3, -m, sglang.launch_server, --model-path,
                    meta-llama/Llama-3.1-8B-Instruct, --tp, "2", --node-rank, $(LWS_WORKER_INDEX)]
          resources:
            limits: {nvidia.com/gpu: "1"}
"""


def test_sglang_across_two_pods_reads_with_its_own_memory_fraction(tmp_path):
    lws = write(tmp_path, "sglang.yaml", SGLANG_LWS)
    twin = native(
        tmp_path,
        """
        engine: sglang
        gpu: {type: L40S, count: 2}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        parallel: {tensor: 2}
        serving: {max_model_len: 65536, gpu_memory_utilization: 0.85}
        speculative: {method: draft_model, model: meta-llama/Llama-3.2-1B-Instruct,
                      num_speculative_tokens: 3}
        """,
    )
    [budget] = budgets(lws)
    assert budget == budgets(twin)[0]
    assert budget["engine"] == "sglang" and budget["gpu_count"] == 2
    assert rule_findings(lws) == rule_findings(twin)
    # --nnodes is $(LWS_GROUP_SIZE): LeaderWorkerSet sets it to the group's size, which the
    # manifest fixes, so nothing is left unread
    assert [f for f in findings(lws) if f["code"] == "HBM011"] == []


def test_sglang_malformed_fraction_is_an_error_at_its_line(tmp_path):
    lws = write(tmp_path, "sglang.yaml", SGLANG_LWS.replace('"0.85"', '"85%"'))
    [bad] = [f for f in findings(lws) if f["code"] == "HBM004"]
    assert bad["line"] == line_of(lws, '"85%"') and "--mem-fraction-static" in bad["message"]


TGI = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: tgi-gemma}
spec:
  template:
    spec:
      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}
      containers:
      - name: inference-server
        image: ghcr.io/huggingface/text-generation-inference:2.4.0
        resources:
          limits: {nvidia.com/gpu: "4"}
        env:
        - name: MODEL_ID
          value: meta-llama/Llama-3.1-70B-Instruct
        - name: NUM_SHARD
          value: "4"
        - name: QUANTIZE
          value: fp8
        - name: MAX_TOTAL_TOKENS
          value: "8192"
        - name: MAX_BATCH_PREFILL_TOKENS
          value: "4096"
        - name: CUDA_MEMORY_FRACTION
          value: "0.93"
"""


def test_tgi_configured_by_env_vars_reads_as_its_native_twin(tmp_path):
    dep = write(tmp_path, "tgi.yaml", TGI)
    twin = native(
        tmp_path,
        """
        engine: tgi
        engine_version: "2.4.0"
        gpu: {type: L4, count: 4}
        model: {name: meta-llama/Llama-3.1-70B-Instruct, quantization: fp8}
        parallel: {tensor: 4}
        serving: {max_model_len: 8192, max_num_batched_tokens: 4096,
                  gpu_memory_utilization: 0.93}
        """,
    )
    assert budgets(dep) == budgets(twin)
    assert rule_findings(dep) == rule_findings(twin)


def test_tgi_flags_win_over_env_and_are_located(tmp_path):
    dep = write(
        tmp_path,
        "tgi.yaml",
        TGI.replace(
            "        resources:",
            '        args: [--max-total-tokens, "131072"]\n        resources:',
            1,
        ),
    )
    [budget] = budgets(dep)
    assert budget["max_model_len"] == 131072
    kv = [f for f in findings(dep) if f["code"] == "HBM102"]
    assert kv and kv[0]["line"] == line_of(dep, "--max-total-tokens")


VLLM_CONFIG = """
# served with: vllm serve --config qwen.yaml
model: Qwen/Qwen3-32B
tensor-parallel-size: 2
max_model_len: 40960
gpu-memory-utilization: 0.9
kv-cache-dtype: fp8
enforce-eager: false
enable-prefix-caching: true
speculative-config:
  method: ngram
  num_speculative_tokens: 4
  prompt_lookup_max: 4
"""


def test_vllm_config_file_takes_the_gpu_from_the_command_line(tmp_path):
    config = write(tmp_path, "qwen.yaml", VLLM_CONFIG)
    twin = native(
        tmp_path,
        """
        gpu: {type: H100, count: 2}
        model: {name: Qwen/Qwen3-32B}
        parallel: {tensor: 2}
        serving: {max_model_len: 40960, gpu_memory_utilization: 0.9, kv_cache_dtype: fp8,
                  enforce_eager: false}
        speculative: {method: ngram, num_speculative_tokens: 4}
        """,
    )
    [read], [written] = budgets(config, "--gpu", "H100"), budgets(twin)
    read["assumed"].pop("gpu")
    assert read == written
    assert "--gpu" in [f for f in findings(config) if f["code"] == "HBM005"][0]["message"]


def test_vllm_config_speculative_config_as_a_json_string_reads_the_same(tmp_path):
    as_map = write(tmp_path, "a.yaml", VLLM_CONFIG)
    as_json = write(
        tmp_path,
        "b.yaml",
        VLLM_CONFIG.split("speculative-config:")[0]
        + """speculative-config: '{"method": "ngram", "num_speculative_tokens": 4,
          "prompt_lookup_max": 4}'
""",
    )
    assert budgets(as_map, "--gpu", "H100") == budgets(as_json, "--gpu", "H100")


def test_vllm_config_bad_value_is_located_at_its_key(tmp_path):
    config = write(
        tmp_path, "qwen.yaml", VLLM_CONFIG.replace("max_model_len: 40960", "max_model_len: lots")
    )
    [bad] = [f for f in findings(config, "--gpu", "H100") if f["code"] == "HBM004"]
    assert bad["line"] == line_of(config, "max_model_len: lots")


def test_yaml_with_a_model_key_but_no_vllm_settings_is_not_a_vllm_config(tmp_path):
    other = write(tmp_path, "train.yaml", "model: resnet50\nepochs: 10\nlearning_rate: 0.1\n")
    result = run(other)
    assert result.exit_code == 0 and "HBM" not in result.output
