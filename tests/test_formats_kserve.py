"""KServe manifests read as the Deployment a user would have written by hand: same budget, same
findings, each finding at the line of the field or flag that causes it.

The manifests are shaped like KServe's public samples: the Hugging Face runtime's
InferenceService (`modelFormat: huggingface`, `--model_id` and vLLM flags in `args`, multi-node
`workerSpec`), and LLMInferenceService (docs/samples/llmisvc: single-node GPU, the speculative
decoding samples with `speculativeDecoding` and the older `speculator.config`,
`VLLM_ADDITIONAL_ARGS` in the main container's env, DP/EP with a worker pool, a prefill pool)."""

from __future__ import annotations

from format_helpers import (
    budgets,
    codes_and_lines,
    findings,
    line_of,
    native,
    rule_findings,
    run,
    write,
)

from hbmlint.formats import detect_format, kserve
from hbmlint.yamlsrc import load_documents

DRAFT_TARGET = """
# Llama 3.1 8B + Llama 3.2 1B draft, one A100 40GB per replica
apiVersion: serving.kserve.io/v1alpha2
kind: LLMInferenceService
metadata:
  name: llama8b-draft-target
  annotations:
    serving.kserve.io/secretName: hf-token
spec:
  model:
    uri: hf://meta-llama/Llama-3.1-8B-Instruct
    name: meta-llama/Llama-3.1-8B-Instruct
  replicas: 4
  speculativeDecoding:
    method: draft_model
    numSpeculativeTokens: 5
    speculator:
      model:
        uri: hf://meta-llama/Llama-3.2-1B-Instruct
      tensorParallelSize: 1
      maxModelLen: 8192
  router:
    scheduler: {}
    route: {}
  template:
    nodeSelector:
      nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB
    containers:
      - name: main
        env:
          - name: HF_TOKEN
            valueFrom:
              secretKeyRef: {name: hf-token, key: HF_TOKEN}
          - name: VLLM_ADDITIONAL_ARGS
            value: "--gpu-memory-utilization 0.9 --max-num-seqs 32
              --max-model-len 131072"
        resources:
          limits:
            cpu: "4"
            nvidia.com/gpu: "1"
"""

DRAFT_TARGET_TWIN = """
gpu: {type: A100-SXM4-40GB, count: 1}
model: {name: meta-llama/Llama-3.1-8B-Instruct}
serving: {max_model_len: 131072, gpu_memory_utilization: 0.9, max_num_seqs: 32}
speculative:
  method: draft_model
  model: meta-llama/Llama-3.2-1B-Instruct
  num_speculative_tokens: 5
  tensor_parallel: 1
  max_model_len: 8192
"""


def test_llm_inference_service_draft_target_reads_as_its_native_twin(tmp_path):
    llmis = write(tmp_path, "llmis.yaml", DRAFT_TARGET)
    twin = native(tmp_path, DRAFT_TARGET_TWIN)
    assert budgets(llmis) == budgets(twin)
    assert sorted(rule_findings(llmis)) == sorted(rule_findings(twin))
    lines = dict(codes_and_lines(llmis))
    # the full-context error points at the folded env string's line holding --max-model-len
    assert lines["HBM102"] == line_of(llmis, "--max-model-len 131072")


def test_each_field_is_located_at_its_own_line(tmp_path):
    llmis = write(tmp_path, "llmis.yaml", DRAFT_TARGET)
    result = run("formats", llmis)
    assert "read as kserve" in result.output
    lines = {
        parts[0]: int(parts[-1])
        for parts in (line.split() for line in result.output.splitlines())
        if parts and parts[0].startswith(("serving.", "speculative.", "model.", "gpu."))
    }
    assert lines["model.name"] == line_of(llmis, "uri: hf://meta-llama/Llama-3.1-8B")
    assert lines["speculative.method"] == line_of(llmis, "method: draft_model")
    assert lines["speculative.num_speculative_tokens"] == line_of(llmis, "numSpeculativeTokens")
    assert lines["speculative.model"] == line_of(llmis, "uri: hf://meta-llama/Llama-3.2-1B")
    assert lines["speculative.tensor_parallel"] == line_of(llmis, "tensorParallelSize: 1")
    assert lines["serving.gpu_memory_utilization"] == line_of(llmis, "--gpu-memory-utilization")
    assert lines["gpu.type"] == line_of(llmis, "nvidia.com/gpu.product")
    assert lines["gpu.count"] == line_of(llmis, 'nvidia.com/gpu: "1"')


EAGLE3_PD = """
apiVersion: serving.kserve.io/v1alpha2
kind: LLMInferenceService
metadata:
  name: llama8b-eagle3
spec:
  model:
    uri: hf://meta-llama/Llama-3.1-8B-Instruct
    name: meta-llama/Llama-3.1-8B-Instruct
  speculator:
    model:
      uri: hf://yuhuili/EAGLE3-LLaMA3.1-Instruct-8B
    config:
      method: eagle3
      num_speculative_tokens: "{tokens}"
      draft_tensor_parallel_size: "1"
  replicas: 2
  parallelism:
    tensor: 2
  template:
    nodeSelector:
      cloud.google.com/gke-accelerator: nvidia-h100-80gb
    containers:
      - name: main
        args: ["--max-model-len", "65536"]
        resources:
          limits: {{nvidia.com/gpu: "2"}}
  prefill:
    replicas: 2
    parallelism:
      tensor: 2
    template:
      nodeSelector:
        cloud.google.com/gke-accelerator: nvidia-h100-80gb
      containers:
        - name: main
          resources:
            limits: {{nvidia.com/gpu: "{prefill_gpus}"}}
"""

EAGLE3_TWIN = """
gpu: {{type: H100-SXM-80GB, count: 2}}
model: {{name: meta-llama/Llama-3.1-8B-Instruct}}
parallel: {{tensor: 2}}
{serving}
speculative:
  method: eagle3
  model: yuhuili/EAGLE3-LLaMA3.1-Instruct-8B
  num_speculative_tokens: 6
  tensor_parallel: 1
"""


def test_speculator_config_and_the_prefill_pool_are_two_deployments(tmp_path):
    llmis = write(tmp_path, "pd.yaml", EAGLE3_PD.format(tokens=6, prefill_gpus=2))
    decode = native(tmp_path, EAGLE3_TWIN.format(serving="serving: {max_model_len: 65536}"))
    prefill = native(tmp_path, EAGLE3_TWIN.format(serving=""), name="prefill.yaml")
    assert budgets(llmis) == budgets(decode) + budgets(prefill)
    assert sorted(d["code"] for d in findings(llmis)) == sorted(
        d["code"] for d in findings(decode) + findings(prefill)
    )


def test_prefill_pool_with_the_wrong_gpu_count_is_an_error_at_its_limit(tmp_path):
    llmis = write(tmp_path, "pd.yaml", EAGLE3_PD.format(tokens=6, prefill_gpus=1))
    [finding] = [f for f in findings(llmis) if f["code"] == "HBM007"]
    assert finding["line"] == line_of(llmis, 'nvidia.com/gpu: "1"')


def test_a_malformed_speculator_value_is_a_finding_at_its_line(tmp_path):
    llmis = write(tmp_path, "pd.yaml", EAGLE3_PD.format(tokens="six", prefill_gpus=2))
    bad = [f for f in findings(llmis) if f["code"] == "HBM004"]
    assert bad and all(f["line"] == line_of(llmis, "num_speculative_tokens") for f in bad)
    assert "num_speculative_tokens" in bad[0]["message"]


DP_EP = """
apiVersion: serving.kserve.io/v1alpha1
kind: LLMInferenceService
metadata:
  name: qwen3-30b-a3b-dp-ep
spec:
  model:
    uri: hf://Qwen/Qwen3-30B-A3B
    name: Qwen/Qwen3-30B-A3B
  replicas: 1
  parallelism:
    data: 16
    dataLocal: 8
    expert: true
    tensor: 1
  template:
    nodeSelector:
      node.kubernetes.io/instance-type: p5.48xlarge
    containers:
      - name: main
        env:
          - name: VLLM_ADDITIONAL_ARGS
            value: "--gpu-memory-utilization 0.85 --max-model-len 8192 --enforce-eager"
        resources:
          limits:
            nvidia.com/gpu: "8"
  worker:
    containers:
      - name: main
        resources:
          limits:
            nvidia.com/gpu: "8"
"""


# The native format has no data or expert parallelism: the twin is the LeaderWorkerSet that
# KServe generates for it, written by hand.
DP_EP_LWS_TWIN = """
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: qwen3-30b-a3b-dp-ep}
spec:
  leaderWorkerTemplate:
    size: 2
    leaderTemplate:
      spec:
        nodeSelector: {node.kubernetes.io/instance-type: p5.48xlarge}
        containers:
        - name: main
          command: [vllm, serve, Qwen/Qwen3-30B-A3B, --tensor-parallel-size, "1",
                    --data-parallel-size, "16", --enable-expert-parallel,
                    --gpu-memory-utilization, "0.85", --max-model-len, "8192", --enforce-eager]
          resources: {limits: {nvidia.com/gpu: "8"}}
    workerTemplate:
      spec:
        containers:
        - name: main
          command: [vllm, serve, Qwen/Qwen3-30B-A3B, --headless]
          resources: {limits: {nvidia.com/gpu: "8"}}
"""


def test_data_and_expert_parallel_over_a_worker_pool(tmp_path):
    llmis = write(tmp_path, "dpep.yaml", DP_EP)
    twin = write(tmp_path, "lws.yaml", DP_EP_LWS_TWIN)
    [budget] = budgets(llmis)
    assert [budget] == budgets(twin)
    # 16 GPUs over two pods, 16 data-parallel ranks: one replica is one GPU
    assert (budget["gpu"], budget["gpu_count"]) == ("H100-SXM-80GB", 1)
    assert sorted(rule_findings(llmis)) == sorted(rule_findings(twin))


NGRAM_MTP = """
apiVersion: serving.kserve.io/v1alpha2
kind: LLMInferenceService
metadata: {name: spec}
spec:
  model: {uri: hf://google/gemma-3-4b-it}
  speculativeDecoding:
    method: mtp
    numSpeculativeTokens: 4
    additionalConfig:
      method: ngram
      prompt_lookup_max: "5"
  template:
    nodeSelector: {node.kubernetes.io/instance-type: g5.2xlarge}
    containers:
      - name: main
        resources: {limits: {nvidia.com/gpu: "1"}}
"""


def test_additional_config_refines_the_method(tmp_path):
    llmis = write(tmp_path, "ngram.yaml", NGRAM_MTP)
    twin = native(
        tmp_path,
        """
        gpu: {type: A10G-24GB, count: 1}
        model: {name: google/gemma-3-4b-it}
        speculative: {method: ngram, num_speculative_tokens: 4}
        """,
    )
    assert budgets(llmis) == budgets(twin)
    output = run("formats", llmis).output
    assert "speculative.method" in output and "ngram" in output
    method_line = next(line for line in output.splitlines() if "speculative.method" in line)
    assert method_line.split()[-1] == str(line_of(llmis, "method: ngram"))


def test_model_from_base_refs_not_in_the_run_is_a_warning_not_a_crash(tmp_path):
    llmis = write(
        tmp_path,
        "refs.yaml",
        """
        apiVersion: serving.kserve.io/v1alpha1
        kind: LLMInferenceService
        metadata: {name: layered}
        spec:
          baseRefs:
            - name: model-config
            - name: workload-config
        """,
    )
    # each preset the run does not hold: what it sets (here the model too) is not checked
    assert codes_and_lines(llmis) == [
        ("HBM014", line_of(llmis, "model-config")),
        ("HBM014", line_of(llmis, "workload-config")),
    ]


def test_sglang_runtime_reads_parallelism_and_args_with_sglang(tmp_path):
    llmis = write(
        tmp_path,
        "sglang.yaml",
        """
        apiVersion: serving.kserve.io/v1alpha2
        kind: LLMInferenceService
        metadata: {name: qwen-sglang}
        spec:
          runtime: kserve-llm-sglang
          model: {uri: hf://Qwen/Qwen3-8B, name: Qwen/Qwen3-8B}
          parallelism: {tensor: 2}
          template:
            nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}
            containers:
              - name: main
                args: [--context-length, "32768", --mem-fraction-static, "0.85"]
                resources: {limits: {nvidia.com/gpu: "2"}}
        """,
    )
    twin = native(
        tmp_path,
        """
        engine: sglang
        gpu: {type: L4-24GB, count: 2}
        model: {name: Qwen/Qwen3-8B}
        parallel: {tensor: 2}
        serving: {max_model_len: 32768, gpu_memory_utilization: 0.85}
        """,
    )
    assert budgets(llmis) == budgets(twin)
    assert sorted(rule_findings(llmis)) == sorted(rule_findings(twin))


# ---------------------------------------------------------------- InferenceService (HF runtime)

HF_ISVC = """
apiVersion: v1
kind: Secret
metadata: {{name: hf-secret}}
stringData: {{HF_TOKEN: token}}
---
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: huggingface-llama3
spec:
  predictor:
    nodeSelector:
      cloud.google.com/gke-accelerator: nvidia-l4
    model:
      modelFormat:
        name: huggingface
      args:
        - --model_name=llama3
        - --model_id=$(MODEL)
        - --max-model-len={max_len}
        - --gpu_memory_utilization=0.95
        - --tensor-parallel-size=2
      env:
        - name: MODEL
          value: meta-llama/Llama-3.1-8B-Instruct
        - name: HF_TOKEN
          valueFrom: {{secretKeyRef: {{name: hf-secret, key: HF_TOKEN}}}}
      resources:
        limits:
          cpu: "6"
          memory: 24Gi
          nvidia.com/gpu: "{gpus}"
"""


def test_hugging_face_runtime_args_read_as_the_native_twin(tmp_path):
    isvc = write(tmp_path, "isvc.yaml", HF_ISVC.format(max_len=131072, gpus=2))
    twin = native(
        tmp_path,
        """
        gpu: {type: L4-24GB, count: 2}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        parallel: {tensor: 2}
        serving: {max_model_len: 131072, gpu_memory_utilization: 0.95}
        """,
    )
    assert budgets(isvc) == budgets(twin)
    assert sorted(rule_findings(isvc)) == sorted(rule_findings(twin))
    for code, line in codes_and_lines(isvc):
        if code == "HBM102":
            assert line == line_of(isvc, "--max-model-len")


def test_hugging_face_runtime_gpu_mismatch_and_bad_flag_are_at_their_lines(tmp_path):
    isvc = write(tmp_path, "isvc.yaml", HF_ISVC.format(max_len="lots", gpus=1))
    lines = dict(codes_and_lines(isvc))
    assert lines["HBM004"] == line_of(isvc, "--max-model-len=lots")
    assert lines["HBM007"] == line_of(isvc, 'nvidia.com/gpu: "1"')


def test_storage_uri_names_the_model_and_worker_spec_sets_tp_and_pp(tmp_path):
    isvc = write(
        tmp_path,
        "multinode.yaml",
        """
        apiVersion: serving.kserve.io/v1beta1
        kind: InferenceService
        metadata:
          name: huggingface-llama3-405b
          annotations: {serving.kserve.io/deploymentMode: RawDeployment}
        spec:
          predictor:
            nodeSelector: {node.kubernetes.io/instance-type: p5.48xlarge}
            model:
              modelFormat: {name: huggingface}
              runtime: kserve-huggingfaceserver-multinode
              storageUri: hf://meta-llama/Llama-3.1-405B-Instruct
              args: [--max-model-len=32768]
              resources: {limits: {nvidia.com/gpu: "8"}}
            workerSpec:
              tensorParallelSize: 8
              pipelineParallelSize: 2
        """,
    )
    twin = native(
        tmp_path,
        """
        gpu: {type: H100-SXM-80GB, count: 16}
        model: {name: meta-llama/Llama-3.1-405B-Instruct}
        parallel: {tensor: 8, pipeline: 2}
        serving: {max_model_len: 32768}
        """,
    )
    assert budgets(isvc) == budgets(twin)
    assert sorted(rule_findings(isvc)) == sorted(rule_findings(twin))


def test_hugging_face_backend_is_an_info_and_no_budget(tmp_path):
    isvc = write(
        tmp_path,
        "hf.yaml",
        """
        apiVersion: serving.kserve.io/v1beta1
        kind: InferenceService
        metadata: {name: bert}
        spec:
          predictor:
            model:
              modelFormat: {name: huggingface}
              args: [--model_id=google-bert/bert-base-uncased, --backend=huggingface]
        """,
    )
    assert budgets(isvc) == []
    assert codes_and_lines(isvc) == [("HBM011", line_of(isvc, "--backend=huggingface"))]


def test_custom_predictor_container_runs_vllm(tmp_path):
    isvc = write(
        tmp_path,
        "custom.yaml",
        """
        apiVersion: serving.kserve.io/v1beta1
        kind: InferenceService
        metadata: {name: qwen-custom}
        spec:
          predictor:
            nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
            containers:
              - name: kserve-container
                image: vllm/vllm-openai:v0.11.0
                command: [vllm, serve, Qwen/Qwen3-32B]
                args: [--max-model-len, "40960", --tensor-parallel-size, "2"]
                resources: {limits: {nvidia.com/gpu: "2"}}
        """,
    )
    twin = native(
        tmp_path,
        """
        engine_version: "0.11.0"
        gpu: {type: H100-SXM-80GB, count: 2}
        model: {name: Qwen/Qwen3-32B}
        parallel: {tensor: 2}
        serving: {max_model_len: 40960}
        """,
    )
    assert budgets(isvc) == budgets(twin)
    assert sorted(rule_findings(isvc)) == sorted(rule_findings(twin))


def test_detection_leaves_other_inference_services_alone():
    sklearn = """
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: sklearn-iris}
spec:
  predictor:
    model:
      modelFormat: {name: sklearn}
      storageUri: gs://kfserving-examples/models/sklearn/1.0/model
"""
    documents, _ = load_documents(sklearn)
    assert detect_format(documents[0].data) is None
    documents, _ = load_documents(DRAFT_TARGET)
    assert detect_format(documents[0].data) is kserve


def test_no_model_is_one_finding_in_kserve_terms_and_a_bad_pool_flag_is_reported_once(tmp_path):
    llmis = write(
        tmp_path,
        "nomodel.yaml",
        """
        apiVersion: serving.kserve.io/v1alpha2
        kind: LLMInferenceService
        metadata: {name: nomodel}
        spec:
          prefill: {replicas: 2}
          template:
            containers:
              - name: main
                env:
                  - {name: VLLM_ADDITIONAL_ARGS, value: "--max-num-seqs many"}
        """,
    )
    found = findings(llmis)
    assert [(f["code"], f["line"]) for f in found] == [
        ("HBM003", line_of(llmis, "spec:")),
        ("HBM004", line_of(llmis, "--max-num-seqs many")),
    ]
    assert "spec.model.uri" in found[0]["message"]
