"""Kubernetes workloads running vLLM, read as the Deployment a user would have written by hand:
same budget, same findings, each finding at the line of the flag that causes it.

The manifests are shaped like the public ones: GKE's vLLM samples (python -m api_server,
--flag=value, $(MODEL_ID) from env, gke-accelerator), LWS's multi-node vLLM example (sh -c with
a Ray bootstrap, TP 8 x PP 2 over two pods), llm-d's `command: [vllm, serve]` patches."""

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

GKE_STYLE = """
apiVersion: v1
kind: Service
metadata: {name: llm-service}
spec:
  selector: {app: llama}
  ports: [{port: 8000}]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama-8b-draft
spec:
  replicas: 2
  template:
    metadata: {labels: {app: llama}}
    spec:
      nodeSelector:
        cloud.google.com/gke-accelerator: nvidia-l4
      containers:
      - name: inference-server
        image: vllm/vllm-openai:v0.11.0
        command: ["python3", "-m", "vllm.entrypoints.openai.api_server"]
        args:
        - --model=$(MODEL_ID)
        - --tensor-parallel-size=1
        - --max-model-len=131072
        - --gpu-memory-utilization=0.95
        - --speculative-config
        - '{"model": "meta-llama/Llama-3.2-1B-Instruct", "num_speculative_tokens": 5}'
        env:
        - name: MODEL_ID
          value: meta-llama/Llama-3.1-8B-Instruct
        resources:
          limits:
            nvidia.com/gpu : "1"
"""

NATIVE_TWIN = """
engine_version: "0.11.0"
gpu: {type: L4, count: 1}
model: {name: meta-llama/Llama-3.1-8B-Instruct}
parallel: {tensor: 1}
serving: {max_model_len: 131072, gpu_memory_utilization: 0.95}
speculative:
  method: draft_model
  model: meta-llama/Llama-3.2-1B-Instruct
  num_speculative_tokens: 5
"""


def test_deployment_reads_as_its_native_twin_with_findings_at_the_flags(tmp_path):
    k8s = write(tmp_path, "deploy.yaml", GKE_STYLE)
    twin = native(tmp_path, NATIVE_TWIN)
    assert budgets(k8s) == budgets(twin)
    assert rule_findings(k8s) == rule_findings(twin)
    lines = dict(codes_and_lines(k8s))
    # the full-context error points at --max-model-len, the draft warning at the JSON item
    assert lines["HBM102"] == line_of(k8s, "--max-model-len")
    assert lines["HBM201"] == line_of(k8s, "num_speculative_tokens")


LWS = """
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: llama405b
spec:
  replicas: 1
  leaderWorkerTemplate:
    size: {size}
    leaderTemplate:
      spec:
        nodeSelector:
          node.kubernetes.io/instance-type: p5.48xlarge
        containers:
        - name: vllm-leader
          image: vllm/vllm-openai:latest
          env:
          - name: MODEL
            value: meta-llama/Llama-3.1-405B-Instruct
          command:
          - sh
          - -c
          - |
            bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader \\
              --ray_cluster_size=$(LWS_GROUP_SIZE);
            exec vllm serve $MODEL \\
              --tensor-parallel-size 8 \\
              --pipeline_parallel_size 2 \\
              --max-model-len ${{MAX_LEN:-32768}}
          resources:
            limits:
              nvidia.com/gpu: "8"
    workerTemplate:
      spec:
        containers:
        - name: vllm-worker
          image: vllm/vllm-openai:latest
          command:
          - sh
          - -c
          - bash multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS)
          resources:
            limits:
              nvidia.com/gpu: "8"
"""


def test_lws_tp8_pp2_over_two_pods_reads_from_the_shell_script(tmp_path):
    lws = write(tmp_path, "lws.yaml", LWS.format(size=2))
    twin = native(
        tmp_path,
        """
        gpu: {type: H100, count: 16}
        model: {name: meta-llama/Llama-3.1-405B-Instruct}
        parallel: {tensor: 8, pipeline: 2}
        serving: {max_model_len: 32768}
        """,
    )
    assert budgets(lws) == budgets(twin)
    assert budgets(lws)[0]["gpu"] == "H100-SXM-80GB"  # p5.48xlarge, from instance_types.yaml
    assert rule_findings(lws) == rule_findings(twin)


def test_lws_group_with_more_gpus_than_tp_times_pp_warns_of_idle_gpus(tmp_path):
    lws = write(tmp_path, "lws.yaml", LWS.format(size=3))  # 24 GPUs for a TP8 x PP2 engine
    [finding] = [f for f in findings(lws) if f["code"] == "HBM007"]
    # the engine starts on 16 of them: a warning about the 8 idle, and the budget still runs
    assert finding["severity"] == "warning"
    assert finding["line"] == line_of(lws, 'nvidia.com/gpu: "8"')
    assert "24" in finding["message"] and "8 x 2" in finding["message"]
    assert "8 idle" in finding["message"]
    [budget] = budgets(lws)
    assert (budget["tensor_parallel"], budget["pipeline_parallel"]) == (8, 2)


def test_lws_group_with_fewer_gpus_than_tp_times_pp_is_an_error_at_the_gpu_limit(tmp_path):
    lws = write(tmp_path, "lws.yaml", LWS.format(size=1))  # 8 GPUs for a TP8 x PP2 engine
    [finding] = [f for f in findings(lws) if f["code"] == "HBM007"]
    assert finding["severity"] == "error"
    assert finding["line"] == line_of(lws, 'nvidia.com/gpu: "8"')
    assert "8 x 2 = 16" in finding["message"] and "cannot start" in finding["message"]


def test_words_inside_a_block_scalar_script_are_located_on_their_own_lines(tmp_path):
    lws = write(tmp_path, "lws.yaml", LWS.format(size=2).replace("32768", "999999"))
    result = run("formats", lws)
    lines = {
        parts[0]: int(parts[-1])
        for parts in (line.split() for line in result.output.splitlines())
        if parts and parts[0].startswith(("serving.", "parallel.", "model."))
    }
    assert lines["model.name"] == line_of(lws, "exec vllm serve $MODEL")
    assert lines["parallel.pipeline"] == line_of(lws, "--pipeline_parallel_size")
    assert lines["serving.max_model_len"] == line_of(lws, "--max-model-len")


SHELL_POD = """
apiVersion: v1
kind: Pod
metadata: {name: qwen}
spec:
  nodeSelector:
    nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
  containers:
  - name: server
    image: vllm/vllm-openai:latest
    command: ["/bin/bash", "-c"]
    args:
    - >-
      pip install hf_transfer;
      vllm serve $MODEL_NAME --tensor-parallel-size $(TP)
      --max-model-len 32k --max-num-seqs $SEQS
    env:
    - {name: MODEL_NAME, value: Qwen/Qwen3-32B}
    - {name: TP, value: "2"}
    resources:
      limits: {nvidia.com/gpu: 2}
"""


def test_shell_variables_resolve_from_env_and_the_rest_are_an_info_not_a_guess(tmp_path):
    pod = write(tmp_path, "pod.yaml", SHELL_POD)
    twin = native(
        tmp_path,
        """
        gpu: {type: H100, count: 2}
        model: {name: Qwen/Qwen3-32B}
        parallel: {tensor: 2}
        serving: {max_model_len: 32000}
        """,
    )
    assert budgets(pod) == budgets(twin)  # 32k = 32,000 tokens, as vLLM reads it
    [info] = [f for f in findings(pod) if f["code"] == "HBM011"]
    assert info["severity"] == "info"
    assert "$SEQS" in info["message"] and "default is assumed" in info["message"]
    assert info["line"] == line_of(pod, "--max-num-seqs")


def test_unreadable_model_is_reported_and_nothing_is_guessed(tmp_path):
    pod = write(
        tmp_path, "pod.yaml", SHELL_POD.replace("- {name: MODEL_NAME, value: Qwen/Qwen3-32B}\n", "")
    )
    found = findings(pod)
    [unreadable] = [f for f in found if f["code"] == "HBM011" and "$MODEL_NAME" in f["message"]]
    assert "cannot be checked" in unreadable["message"]
    assert unreadable["line"] == line_of(pod, "vllm serve $MODEL_NAME")
    # no lookup of a model called "$MODEL_NAME", and no budget made up for it
    assert "HBM006" not in [f["code"] for f in found]
    assert not [b for b in budgets(pod) if "kv_cache_tokens" in b]


LLMD_PATCH = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: decode}
spec:
  template:
    spec:
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions:
              - key: nvidia.com/gpu.product
                operator: In
                values: [NVIDIA-H100-80GB-HBM3, NVIDIA-A100-SXM4-80GB]
      containers:
      - name: routing-proxy
        image: ghcr.io/llm-d/llm-d-routing-sidecar:v0.2.0
        args: ["--port=8000", "--data-parallel-size=8"]
      - name: vllm
        image: ghcr.io/llm-d/llm-d-cuda:v0.6.0
        command: ["vllm", "serve"]
        args:
        - meta-llama/Llama-3.1-70B-Instruct
        - -tp
        - 2
        - --max_model_len
        - "16384"
        - --max-model-len=65536
        - -q
        - fp8
        - --enforce-eager
        - --no-enforce-eager
        - --served-model-name
        - llama
        - llama-70b
        resources:
          limits: {nvidia.com/gpu: "2"}
"""


def test_short_forms_underscores_last_wins_and_the_smallest_allowed_gpu(tmp_path):
    dep = write(tmp_path, "decode.yaml", LLMD_PATCH)
    twin = native(
        tmp_path,
        """
        engine_version: "0.17.1"
        gpu: {type: A100-80GB, count: 2}
        model: {name: meta-llama/Llama-3.1-70B-Instruct, quantization: fp8}
        parallel: {tensor: 2}
        serving: {max_model_len: 65536, enforce_eager: false}
        """,
    )
    # the sidecar's --data-parallel-size is not the engine's; of H100 and A100 80GB, the
    # budget must hold on the A100 (less memory); llm-d-cuda:v0.6.0 ships vLLM 0.17.1
    assert budgets(dep) == budgets(twin)
    assert rule_findings(dep) == rule_findings(twin)


LEGACY = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: opt-draft}
spec:
  template:
    spec:
      nodeSelector: {karpenter.k8s.aws/instance-gpu-name: l40s}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.8.2
        args:
        - --model
        - meta-llama/Llama-3.1-8B-Instruct
        - --speculative-model
        - meta-llama/Llama-3.2-1B-Instruct
        - --num-speculative-tokens
        - "4"
        - --use-v2-block-manager
        resources:
          limits: {nvidia.com/gpu: 1}
"""


def test_legacy_speculative_flags_are_read_and_each_is_a_removed_flag_warning(tmp_path):
    # 0.8.2 still takes them (deprecated in 0.8.0 for --speculative-config, gone in 0.8.3)
    dep = write(tmp_path, "legacy.yaml", LEGACY)
    twin = native(
        tmp_path,
        """
        engine_version: "0.8.2"
        gpu: {type: L40S}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        speculative: {method: draft_model, model: meta-llama/Llama-3.2-1B-Instruct,
                      num_speculative_tokens: 4}
        """,
    )
    assert budgets(dep) == budgets(twin)
    removed = [f for f in findings(dep) if f["code"] == "HBM010"]
    assert [f["line"] for f in removed] == [
        line_of(dep, "--speculative-model"),
        line_of(dep, "--num-speculative-tokens"),
        line_of(dep, "--use-v2-block-manager"),
    ]
    assert all(f["severity"] == "warning" for f in removed)
    # the block manager flag was a no-op, not a speculative-decoding setting
    assert "no-op since v0.6.2" in removed[2]["message"]
    assert "--speculative-config" not in removed[2]["message"]
    assert "--speculative-config since v0.8.0" in removed[0]["message"]
    assert (
        'Use --speculative-config \'{"model": "meta-llama/Llama-3.2-1B-Instruct", '
        '"num_speculative_tokens": 4}\' instead' in [f["message"] for f in removed[0]["fixes"]]
    )


def test_legacy_speculative_flags_are_not_removed_before_their_replacement(tmp_path):
    # vLLM 0.6.2 takes --speculative-model and has no --speculative-config to move to; its
    # --use-v2-block-manager is a no-op there, and removable
    dep = write(tmp_path, "legacy.yaml", LEGACY.replace("v0.8.2", "v0.6.2"))
    removed = [f for f in findings(dep) if f["code"] == "HBM010"]
    assert [f["line"] for f in removed] == [line_of(dep, "--use-v2-block-manager")]


JSON = (
    '{"method": "eagle3", "model": "meta-llama/Llama-3.2-1B-Instruct", '
    '"num_speculative_tokens": 3, "draft_tensor_parallel_size": 1}'
)
ESCAPED = JSON.replace('"', '\\"')
SPEC_FORMS = {
    "separate": f"""
        - --speculative-config
        - '{JSON}'""",
    "joined": f"""
        - '--speculative-config={JSON.replace(" ", "")}'""",
    "escaped": f"""
        - "--speculative-config={ESCAPED}\"""",
    "dotted": """
        - --speculative-config.method
        - eagle3
        - --speculative-config.model
        - meta-llama/Llama-3.2-1B-Instruct
        - --speculative-config.num_speculative_tokens
        - "3"
        - --speculative-config.draft_tensor_parallel_size=1""",
    "short": f"""
        - -sc
        - '{JSON}'""",
}
SPEC_BASE = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: llama-70b-eagle}
spec:
  template:
    spec:
      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-h100-80gb}
      containers:
      - name: vllm
        image: vllm/vllm-openai:latest
        args:
        - --model=meta-llama/Llama-3.3-70B-Instruct
        - --tensor-parallel-size=4
        - --max-model-len=90280%s
        resources:
          limits: {nvidia.com/gpu: 4}
"""


def test_every_spelling_of_speculative_config_reads_the_same(tmp_path):
    twin = native(
        tmp_path,
        """
        gpu: {type: H100, count: 4}
        model: {name: meta-llama/Llama-3.3-70B-Instruct}
        parallel: {tensor: 4}
        serving: {max_model_len: 90280}
        speculative: {method: eagle3, model: meta-llama/Llama-3.2-1B-Instruct,
                      num_speculative_tokens: 3, tensor_parallel: 1}
        """,
    )
    expected = budgets(twin)
    assert expected[0]["draft_weights_bytes"] > 0
    for form, args in SPEC_FORMS.items():
        dep = write(tmp_path, f"{form}.yaml", SPEC_BASE % args)
        assert budgets(dep) == expected, form
        assert [f for f in findings(dep) if f["code"].startswith("HBM0")] == [], form


def test_malformed_values_are_findings_at_their_line_and_the_rest_is_still_read(tmp_path):
    dep = write(
        tmp_path,
        "bad.yaml",
        SPEC_BASE
        % """
        - --gpu-memory-utilization
        - "90"
        - --speculative-config
        - '{"method": "ngram", num_speculative_tokens: 3}'""",
    )
    bad = {f["line"]: f for f in findings(dep) if f["code"] == "HBM004"}
    fraction = bad[line_of(dep, '- "90"')]
    assert "not a fraction between 0 and 1" in fraction["message"]
    assert "0.9" in fraction["message"]  # did you mean 0.9?
    assert "not valid JSON" in bad[line_of(dep, "num_speculative_tokens")]["message"]
    assert budgets(dep)[0]["max_model_len"] == 90280


def test_no_gpu_type_asks_for_one_and_gpu_option_supplies_it(tmp_path):
    dep = write(
        tmp_path, "nogpu.yaml", GKE_STYLE.replace("cloud.google.com/gke-accelerator", "pool")
    )
    [missing] = [f for f in findings(dep) if f["code"] == "HBM005"]
    assert "--gpu" in missing["message"]
    twin = native(tmp_path, NATIVE_TWIN)
    [with_option], [written] = budgets(dep, "--gpu", "L4"), budgets(twin)
    assert "given by --gpu or default-gpu" in with_option["assumed"].pop("gpu")
    assert with_option == written


def test_gpu_memory_label_sizes_an_unnamed_gpu(tmp_path):
    dep = write(
        tmp_path,
        "mem.yaml",
        GKE_STYLE.replace(
            "cloud.google.com/gke-accelerator: nvidia-l4", 'nvidia.com/gpu.memory: "46068"'
        ),
    )
    [budget] = budgets(dep)
    # 46068 MiB is the nvidia-smi total of the 48 GB Ada and Ampere cards (A40, L40S, L20): the
    # engine sees what the card reports (the catalog's), not the label's MiB / 1024
    assert budget["total_bytes"] < 46068 * 2**20
    assert round(budget["total_bytes"] / 2**30, 2) == 44.53
    assert "nvidia-smi total of the A40-48GB, L20-48GB, L40S-48GB" in budget["assumed"]["gpu"]
    # a figure no card of the catalog shows is taken as it is
    odd = write(tmp_path, "odd.yaml", dep.read_text().replace('"46068"', '"46000"'))
    assert budgets(odd)[0]["total_bytes"] == 46000 * 2**20


def test_a_broken_document_does_not_stop_the_others(tmp_path):
    dep = write(tmp_path, "multi.yaml", GKE_STYLE + "---\nkind: Secret\n<<<<<<< HEAD\n")
    codes = [f["code"] for f in findings(dep)]
    assert "HBM002" in codes and "HBM102" in codes
    assert len([b for b in budgets(dep) if "kv_cache_tokens" in b]) == 1


def test_a_template_placeholder_asks_once_to_render_first(tmp_path):
    # GKE's Llama samples end with a Secret holding `{{HF_TOKEN}}`, which is not YAML
    dep = write(tmp_path, "multi.yaml", GKE_STYLE + "---\nstringData:\n  token: {{HF_TOKEN}}\n")
    found = findings(dep)
    [render] = [f for f in found if f["code"] == "HBM012"]
    assert render["line"] == line_of(dep, "{{HF_TOKEN}}")
    fix = render["fixes"][0]["message"]
    # a bare {{NAME}} and no Go template action: filled by hand or a script, not a chart
    assert "Fill the placeholders" in fix and "| hbmlint -" in fix
    assert "Helm" not in render["message"]
    assert "HBM102" in [f["code"] for f in found]  # the documents before it are still linted


def test_yaml_that_runs_no_engine_is_not_ours(tmp_path):
    other = write(
        tmp_path,
        "nginx.yaml",
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web}
        spec:
          template:
            spec:
              containers: [{name: web, image: nginx, args: ["--port", "80"]}]
        """,
    )
    result = run(other)
    assert result.exit_code == 0 and "no findings" in result.output.lower()


# The pattern of GoogleCloudPlatform/accelerated-platforms offline-batch-worker/base/jobset.yaml:
# the vLLM server is a native sidecar (an init container with restartPolicy: Always, which keeps
# running beside the pod's containers) next to a batch client and a model-fetching init
# container. Written for these tests.
SIDECAR = """
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: batch}
spec:
  replicatedJobs:
    - name: worker
      template:
        spec:
          template:
            spec:
              nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}
              initContainers:
                - name: fetch
                  image: busybox
                  command: [sh, -c, "echo fetching for vllm.entrypoints.openai.api_server"]
                - name: inference-server
                  image: vllm/vllm-openai:v0.10.1
                  restartPolicy: Always
                  command: [python3, -m, vllm.entrypoints.openai.api_server]
                  args: [--model=meta-llama/Llama-3.1-8B-Instruct, --max-model-len=131072]
                  resources: {limits: {nvidia.com/gpu: "1"}}
              containers:
                - name: batch-client
                  image: python:3.12
                  command: [python, client.py]
"""


def test_an_engine_in_a_native_sidecar_is_read(tmp_path):
    path = write(tmp_path, "jobset.yaml", SIDECAR)
    found = findings(path)
    # read (not an HBM014 "nothing read"), budgeted on its own GPU: 131,072 tokens of an 8B
    # model's KV cache do not fit on one L4 next to its weights
    assert [f["code"] for f in found] == ["HBM102"]
    assert found[0]["line"] == line_of(path, "--max-model-len=131072")
    # a plain init container runs to completion before the pod starts: never the engine
    plain = write(tmp_path, "plain.yaml", SIDECAR.replace("restartPolicy: Always", "tty: true"))
    assert [f["code"] for f in findings(plain)] == ["HBM014"]


def test_a_tpu_pod_is_an_info_never_budgeted_on_the_gpu_given(tmp_path):
    # The pattern of GoogleCloudPlatform/accelerated-platforms online-inference-tpu/vllm (as
    # `kubectl kustomize` renders it): vLLM's TPU build on a pod that asks for google.com/tpu.
    # --gpu (or default-gpu) is for manifests that name no device; on an L4 this 27B model
    # would be a false "weights exceed the GPU" error.
    path = write(
        tmp_path,
        "tpu.yaml",
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: vllm-v6e-gemma-3-27b-it}
        spec:
          template:
            spec:
              nodeSelector:
                cloud.google.com/gke-tpu-accelerator: tpu-v6e-slice
                cloud.google.com/gke-tpu-topology: 2x4
              containers:
                - name: inference-server
                  image: vllm/vllm-tpu:v0.11.1
                  command: [python3, -m, vllm.entrypoints.openai.api_server]
                  args: [--model=google/gemma-3-27b-it, --tensor-parallel-size=8]
                  resources:
                    limits: {google.com/tpu: "8"}
                    requests: {google.com/tpu: "8"}
        """,
    )
    found = findings(path, "--gpu", "L4")
    assert [(f["code"], f["severity"]) for f in found] == [("HBM014", "info")]
    assert "google.com/tpu" in found[0]["message"]
    assert found[0]["line"] == line_of(path, "limits: {google.com/tpu")


def test_an_image_written_as_a_list_is_read_past_without_a_traceback(tmp_path):
    """The engine release an image names is remembered per image text; an image written as a
    list (a YAML slip) names no release and the rest of the workload is still read."""
    good = write(tmp_path, "good.yaml", GKE_STYLE)
    slip = write(
        tmp_path,
        "slip.yaml",
        GKE_STYLE.replace("image: vllm/vllm-openai:v0.11.0", "image: [vllm/vllm-openai:v0.11.0]"),
    )
    assert "HBM000" not in [f["code"] for f in findings(slip)]
    assert "HBM102" in [f["code"] for f in findings(slip)]
    # the tag's release (0.11.0) where the image is a string; the newest, said so, where not
    assert "engine_version" not in budgets(good)[0]["assumed"]
    assert "names no release" in budgets(slip)[0]["assumed"]["engine_version"]
    assert "engine_version" not in budgets(good)[0]["assumed"]  # the same answer again
