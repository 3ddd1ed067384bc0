"""docker-compose services and vLLM production-stack Helm values, read as their hand-written
native twins; Helm templates and standard input.

Shapes follow public examples: compose files with `image: vllm/vllm-openai` and a folded
`command: >` of flags, sglang's compose.yaml (entrypoint as a string, `command` as a multi-line
plain scalar), and production-stack's tutorial values (vllmConfig plus extraArgs)."""

from __future__ import annotations

from format_helpers import budgets, findings, line_of, native, rule_findings, run, write

COMPOSE = """
services:
  vllm:
    image: vllm/vllm-openai:v0.11.0
    runtime: nvidia
    ipc: host
    environment:
      - HF_TOKEN=${HF_TOKEN}
    command: >
      --model meta-llama/Llama-3.1-8B-Instruct
      --max-model-len 65536
      --gpu-memory-utilization 0.9
      --speculative-config '{"method":"ngram","num_speculative_tokens":3,"prompt_lookup_max":4}'
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: 1
              capabilities: [gpu]
  sglang:
    image: lmsysorg/sglang:latest
    entrypoint: python3 -m sglang.launch_server
    command:
      --model-path Qwen/Qwen3-8B
      --tp 2
      --context-length 32768
    deploy:
      resources:
        reservations:
          devices: [{driver: nvidia, device_ids: ["0", "1"], capabilities: [gpu]}]
  webui:
    image: ghcr.io/open-webui/open-webui:main
"""


def test_compose_services_read_as_their_native_twins(tmp_path):
    compose = write(tmp_path, "compose.yaml", COMPOSE)
    vllm = native(
        tmp_path,
        """
        engine_version: "0.11.0"
        gpu: {type: A10G, count: 1}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving: {max_model_len: 65536, gpu_memory_utilization: 0.9}
        speculative: {method: ngram, num_speculative_tokens: 3}
        """,
        "vllm.yaml",
    )
    sglang = native(
        tmp_path,
        """
        engine: sglang
        gpu: {type: A10G, count: 2}
        model: {name: Qwen/Qwen3-8B}
        parallel: {tensor: 2}
        serving: {max_model_len: 32768}
        """,
        "sglang.yaml",
    )
    read = budgets(compose, "--gpu", "A10G")
    for item in read:
        item["assumed"].pop("gpu")
    assert read == budgets(vllm) + budgets(sglang)  # webui runs no engine: not a deployment
    assert rule_findings(compose, "--gpu", "A10G") == rule_findings(vllm) + rule_findings(sglang)
    found = findings(compose, "--gpu", "A10G")
    assert not [f for f in found if f["code"].startswith("HBM0")]  # every flag was read
    kv = [f for f in found if f["code"] == "HBM102"]
    assert kv[0]["line"] == line_of(compose, "--max-model-len 65536")


def test_compose_names_no_gpu_so_each_service_asks_for_one(tmp_path):
    compose = write(tmp_path, "compose.yaml", COMPOSE)
    missing = [f for f in findings(compose) if f["code"] == "HBM005"]
    assert [f["deployment"] for f in missing] == ["vllm", "sglang"]


# The pattern of public compose files that reserve every GPU (or a few) and pin the engine to
# some with CUDA_VISIBLE_DEVICES (e.g. a `vllm/vllm-openai:v0.5.2` service with
# CUDA_VISIBLE_DEVICES=1 and `count: "all"`); written for these tests.
VISIBLE = """
services:
  pinned:
    image: vllm/vllm-openai:v0.8.5
    environment:
      - CUDA_VISIBLE_DEVICES=1
    deploy:
      resources:
        reservations:
          devices: [{driver: nvidia, count: all, capabilities: [gpu]}]
    command: --model Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2 --max-model-len 8192
  pair:
    image: vllm/vllm-openai:v0.8.5
    environment: {CUDA_VISIBLE_DEVICES: "0,1"}
    deploy:
      resources:
        reservations:
          devices: [{driver: nvidia, count: 4, capabilities: [gpu]}]
    command: --model Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2 --max-model-len 8192
  unknown:
    image: vllm/vllm-openai:v0.8.5
    environment: ["CUDA_VISIBLE_DEVICES=${GPUS}"]
    deploy:
      resources:
        reservations:
          devices: [{driver: nvidia, count: all, capabilities: [gpu]}]
    command: --model Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 4 --max-model-len 8192
"""


# The pattern of opea-project/GenAIExamples EdgeCraftRAG/docker_compose/intel/gpu/arc/compose.yaml:
# a string entrypoint `/bin/bash -c "..."` whose script continues its lines with backslashes in
# a plain (folded) scalar, so the script holds "\\ " before each flag. Compose splits the string
# with go-shellwords, where a backslash escapes the next character even inside double quotes:
# bash gets plain spaces, and the flags are read as flags. Written for these tests.
BACKSLASH_SCRIPT = """
services:
  engine:
    image: vllm/vllm-openai:v0.10.1
    environment:
      LLM_MODEL: ${LLM_MODEL:-Qwen/Qwen2.5-7B-Instruct}
      TP: ${TP:-2}
    deploy:
      resources:
        reservations:
          devices: [{driver: nvidia, count: 2, capabilities: [gpu]}]
    entrypoint:
      /bin/bash -c "
      cd /workspace &&
      VLLM_USE_V1=1 \\
      python3 -m vllm.entrypoints.openai.api_server \\
      --model $${LLM_MODEL} \\
      --max-model-len 8192 \\
      -tp=$${TP}"
  unset:
    image: vllm/vllm-openai:v0.10.1
    environment:
      MODEL: ${SOME_MODEL}
    entrypoint: /bin/sh -c "vllm serve $${MODEL} --max-model-len 8192 && echo done"
"""


def test_a_compose_string_is_split_as_compose_splits_it(tmp_path):
    compose = write(tmp_path, "compose.yaml", BACKSLASH_SCRIPT)
    # the model from the container's env (no false HBM006 for a word " --model"), and the flags
    [engine] = budgets(compose, "--gpu", "L4")
    assert (engine["tensor_parallel"], engine["max_model_len"]) == (2, 8192)
    assert engine["weights_bytes"] > 0
    unset = [f for f in findings(compose) if f["deployment"] == "unset"]
    # the variable is named once, with where its value should have come from
    assert [f["code"] for f in unset] == ["HBM011"]
    assert (
        "${MODEL} is ${SOME_MODEL} in the container's env, and ${SOME_MODEL} is not set"
        in (unset[0]["message"])
    )


def test_cuda_visible_devices_bounds_what_the_engine_sees(tmp_path):
    compose = write(tmp_path, "compose.yaml", VISIBLE)
    found = findings(compose, "--gpu", "A100-80GB")
    [short] = [f for f in found if f["code"] == "HBM007"]
    # the pinned service sees one GPU (whatever it reserves): TP 2 cannot start, at the env line
    assert short["deployment"] == "pinned" and short["severity"] == "error"
    assert short["line"] == line_of(compose, "CUDA_VISIBLE_DEVICES=1")
    assert "1 GPU visible (CUDA_VISIBLE_DEVICES=1)" in short["message"]
    # two visible of four reserved: TP 2 runs on the two it sees; an unreadable list is not read
    pinned, pair, unknown = budgets(compose, "--gpu", "A100-80GB")
    assert "cannot start" in pinned["error"]
    assert (pair["gpu_count"], pair["tensor_parallel"]) == (2, 2)
    assert unknown["tensor_parallel"] == 4


GPUS_SHORT_FORM = """
services:
  one:
    image: vllm/vllm-openai:v0.11.0
    command: --model meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2
    gpus:
      - driver: nvidia
        count: 1
  pair:
    image: vllm/vllm-openai:v0.11.0
    command: --model meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2
    gpus:
      - driver: nvidia
        device_ids: ["0", "1"]
  every:
    image: vllm/vllm-openai:v0.11.0
    command: --model meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2
    gpus: all
"""


def test_the_services_gpus_short_form_is_read_as_device_requests(tmp_path):
    # Compose's `gpus:` (count, device_ids, or all) says what deploy's device requests say
    compose = write(tmp_path, "compose.yaml", GPUS_SHORT_FORM)
    [short] = [f for f in findings(compose, "--gpu", "L40S") if f["code"] == "HBM007"]
    assert short["deployment"] == "one" and short["severity"] == "error"
    assert short["line"] == line_of(compose, "count: 1")
    one, pair, every = budgets(compose, "--gpu", "L40S")
    assert "cannot start" in one["error"]
    assert (pair["gpu_count"], pair["tensor_parallel"]) == (2, 2)
    assert every["tensor_parallel"] == 2  # all of the host's: a count hbmlint leaves open


NVIDIA_RUNTIME = """
services:
  one:
    image: vllm/vllm-openai:v0.11.0
    runtime: nvidia
    environment:
      - NVIDIA_VISIBLE_DEVICES=0
    command: --model meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2
  runc:
    image: vllm/vllm-openai:v0.11.0
    environment:
      - NVIDIA_VISIBLE_DEVICES=0
    command: --model meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2
"""


def test_the_nvidia_runtime_gives_the_devices_nvidia_visible_devices_lists(tmp_path):
    # compose file format 2.3's way to give a service GPUs: `runtime: nvidia` and the list in
    # NVIDIA_VISIBLE_DEVICES; without the runtime named, the variable is only a variable
    compose = write(tmp_path, "compose.yaml", NVIDIA_RUNTIME)
    [short] = [f for f in findings(compose, "--gpu", "L40S") if f["code"] == "HBM007"]
    assert short["deployment"] == "one" and short["severity"] == "error"
    assert short["line"] == line_of(compose, "NVIDIA_VISIBLE_DEVICES=0")
    assert "NVIDIA_VISIBLE_DEVICES=0 under the NVIDIA runtime" in short["message"]


VALUES = """
servingEngineSpec:
  runtimeClassName: ""
  modelSpec:
  - name: "llama3"
    repository: "vllm/vllm-openai"
    tag: "v0.11.0"
    modelURL: "meta-llama/Llama-3.1-8B-Instruct"
    replicaCount: 2
    requestCPU: 10
    requestMemory: "16Gi"
    requestGPU: 1
    nodeSelectorTerms:
      - matchExpressions:
        - key: nvidia.com/gpu.product
          operator: "In"
          values: ["NVIDIA-L4"]
    vllmConfig:
      enableChunkedPrefill: false
      enablePrefixCaching: false
      maxModelLen: 131072
      tensorParallelSize: 1
      dtype: "bfloat16"
      gpuMemoryUtilization: 0.95
      extraArgs: ["--disable-log-requests", "--gpu-memory-utilization", "0.8"]
    hf_token: <YOUR HF TOKEN>
"""


def test_production_stack_values_extra_args_override_vllm_config(tmp_path):
    values = write(tmp_path, "values.yaml", VALUES)
    twin = native(
        tmp_path,
        """
        engine_version: "0.11.0"
        gpu: {type: L4, count: 1}
        model: {name: meta-llama/Llama-3.1-8B-Instruct, dtype: bfloat16}
        parallel: {tensor: 1}
        serving: {max_model_len: 131072, gpu_memory_utilization: 0.8}
        """,
    )
    assert budgets(values) == budgets(twin)  # 0.8 from extraArgs, not vllmConfig's 0.95
    assert rule_findings(values) == rule_findings(twin)
    kv = [f for f in findings(values) if f["code"] == "HBM102"]
    assert kv[0]["line"] == line_of(values, "maxModelLen")


def test_production_stack_gpu_count_mismatch_points_at_request_gpu(tmp_path):
    values = write(tmp_path, "values.yaml", VALUES.replace("requestGPU: 1", "requestGPU: 2"))
    [mismatch] = [f for f in findings(values) if f["code"] == "HBM007"]
    assert mismatch["line"] == line_of(values, "requestGPU")


# What the chart's Deployment template passes on beyond the values above: --enable-lora from
# the model's enableLoRA, the two switches, maxLoras (vllm-project/production-stack
# helm/templates/deployment-vllm-multi.yaml at a6c01db).
LORA_VALUES = """
servingEngineSpec:
  modelSpec:
  - name: "llama3"
    repository: "vllm/vllm-openai"
    tag: "v0.10.0"
    modelURL: "meta-llama/Llama-3.1-8B-Instruct"
    replicaCount: 1
    requestCPU: 10
    requestMemory: "40Gi"
    requestGPU: 1
    enableLoRA: true
    nodeSelectorTerms:
    - matchExpressions:
      - key: nvidia.com/gpu.product
        operator: "In"
        values: ["NVIDIA-L4"]
    vllmConfig:
      enableChunkedPrefill: false
      maxModelLen: 16384
      maxLoras: 4
      extraArgs: ["--max_lora_rank", "64"]
"""

LORA_POD = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: llama3}
spec:
  template:
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.0
        command: [vllm, serve, meta-llama/Llama-3.1-8B-Instruct, --enable-lora,
                  --no-enable-chunked-prefill, --no-enable-prefix-caching,
                  --max-model-len, "16384", --max_loras, "4", --max_lora_rank, "64"]
        resources: {limits: {nvidia.com/gpu: 1}}
"""


def test_production_stack_passes_lora_and_the_switches_as_its_template_does(tmp_path):
    values = write(tmp_path, "values.yaml", LORA_VALUES)
    pod = write(tmp_path, "pod.yaml", LORA_POD)
    assert budgets(values) == budgets(pod)  # the adapters' slots take HBM in both
    without = write(tmp_path, "plain.yaml", LORA_VALUES.replace("enableLoRA: true", ""))
    assert budgets(without)[0]["kv_cache_bytes"] > budgets(values)[0]["kv_cache_bytes"]
    assert not [f for f in findings(values) if f["code"] == "HBM016"]


def test_production_stack_settings_the_chart_never_passes_are_ignored_settings(tmp_path):
    text = LORA_VALUES.replace(
        "    vllmConfig:\n",
        "    tensorParallelSize: 2\n    vllmConfig:\n      cpu-offload-gb: 2\n"
        "      pipelineParallelSize: 2\n",
    )
    values = write(tmp_path, "values.yaml", text)
    ignored = {f["line"]: f for f in findings(values) if f["code"] == "HBM016"}
    assert sorted(ignored) == [
        line_of(values, "tensorParallelSize"),
        line_of(values, "cpu-offload-gb"),
        line_of(values, "pipelineParallelSize"),
    ]
    assert all(f["severity"] == "warning" for f in ignored.values())
    offload = ignored[line_of(values, "cpu-offload-gb")]
    assert 'extraArgs: ["--cpu-offload-gb", "2"]' in offload["fixes"][0]["message"]
    assert "Ray cluster" in ignored[line_of(values, "pipelineParallelSize")]["message"]
    # none of them reaches vLLM: the budget is the one without them
    assert budgets(values) == budgets(write(tmp_path, "plain.yaml", LORA_VALUES))


def test_production_stack_pipeline_parallelism_reaches_vllm_on_a_ray_cluster(tmp_path):
    text = LORA_VALUES.replace(
        "    vllmConfig:\n",
        "    raySpec:\n      enabled: true\n      headNode: {requestCPU: 2, requestMemory: 8Gi,"
        " requestGPU: 1}\n    vllmConfig:\n      pipelineParallelSize: 2\n",
    )
    values = write(tmp_path, "values.yaml", text)
    [budget] = budgets(values)
    assert (budget["pipeline_parallel"], budget["gpu_count"]) == (2, 2)
    assert not [f for f in findings(values) if f["code"] == "HBM016"]


def test_production_stack_request_gpu_type_names_the_device(tmp_path):
    mig = LORA_VALUES.replace(
        "requestGPU: 1", "requestGPU: 1\n    requestGPUType: nvidia.com/mig-3g.40gb"
    ).replace("NVIDIA-L4", "NVIDIA-A100-SXM4-80GB")
    [budget] = budgets(write(tmp_path, "mig.yaml", mig))
    assert budget["gpu"].startswith("A100") and "3g.40gb" in budget["gpu"]
    gaudi = LORA_VALUES.replace(
        "requestGPU: 1", "requestGPU: 1\n    requestGPUType: habana.ai/gaudi"
    )
    path = write(tmp_path, "gaudi.yaml", gaudi)
    assert budgets(path) == []
    [info] = findings(path)
    assert info["code"] == "HBM014" and info["line"] == line_of(path, "requestGPUType")


HELM_TEMPLATE = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-vllm
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: "vllm/vllm-openai:{{ .Values.image.tag }}"
        command: ["vllm", "serve", "{{ .Values.model }}"]
        resources:
          limits:
            {{- toYaml .Values.resources.limits | nindent 12 }}
"""


def test_helm_template_is_reported_once_as_render_first(tmp_path):
    template = write(tmp_path, "deployment.yaml", HELM_TEMPLATE)
    [render] = findings(template)
    assert render["code"] == "HBM012" and render["severity"] == "warning"
    assert render["line"] == line_of(template, "{{ .Release.Name }}")
    assert "helm template" in render["fixes"][0]["message"]


def test_helm_templates_that_run_no_engine_are_left_alone(tmp_path):
    template = write(
        tmp_path,
        "ingress.yaml",
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\n"
        "spec:\n  ports:\n    {{- toYaml .Values.ports | nindent 4 }}\n",
    )
    result = run(template)
    assert result.exit_code == 0 and "HBM" not in result.output


def test_standard_input_is_read_with_dash(tmp_path):
    values = write(tmp_path, "values.yaml", VALUES)
    twin = native(
        tmp_path,
        """
        engine_version: "0.11.0"
        gpu: {type: L4, count: 1}
        model: {name: meta-llama/Llama-3.1-8B-Instruct, dtype: bfloat16}
        parallel: {tensor: 1}
        serving: {max_model_len: 131072, gpu_memory_utilization: 0.8}
        """,
    )
    piped = run("budget", "--format", "json", "-", stdin=values.read_text())
    assert piped.output.count('"file": "<stdin>"') == 1
    assert '"kv_cache_tokens"' in piped.output
    lint = run("-", stdin=values.read_text())
    assert lint.output.startswith("<stdin>:")
    assert "HBM102" in lint.output and budgets(twin)


def test_formats_command_says_how_each_document_was_read(tmp_path):
    path = write(tmp_path, "mixed.yaml", "kind: ConfigMap\napiVersion: v1\n---\n" + VALUES)
    result = run("formats", path)
    lines = result.output.splitlines()
    assert lines[0].endswith("document 1 (line 1): not a manifest hbmlint reads; skipped")
    assert lines[1].endswith("read as production-stack")
    assert "deployment llama3 (vllm)" in lines[2]
    row = next(line for line in lines if "serving.gpu_memory_utilization" in line).split()
    assert row[1] == "0.8" and int(row[-1]) == line_of(path, '"--gpu-memory-utilization", "0.8"')


def test_production_stack_request_gpu_mem_is_a_hami_vgpu_share(tmp_path):
    # the chart writes requestGPUMem as nvidia.com/gpumem, HAMi's share of the card in MiB
    values = write(
        tmp_path,
        "values.yaml",
        LORA_VALUES.replace("requestGPU: 1", "requestGPU: 1\n    requestGPUMem: 10000"),
    )
    [budget] = budgets(values)
    assert (
        budget["gpu"].startswith("L4-24GB vGPU") and round(budget["total_bytes"] / 2**20) == 10000
    )
    [weights] = [f for f in findings(values) if f["code"] == "HBM101"]
    assert weights["severity"] == "error"


def test_a_compose_entrypoint_that_is_the_engine_s_program_and_its_command(tmp_path):
    """amasu/dgx-spark-qwen38 docker-compose.sglang.yml: `entrypoint: ["sglang"]` with
    `command: [serve, --model-path, ...]` runs `sglang serve`; it was "not a manifest hbmlint
    reads" (the command's words were looked at before the entrypoint's)."""
    compose = write(
        tmp_path,
        "compose.yaml",
        """
        services:
          qwen:
            image: lmsysorg/sglang:v0.5.10
            entrypoint: ["sglang"]
            command: [serve, --model-path, Qwen/Qwen3-8B, --mem-fraction-static, "0.7"]
            deploy:
              resources:
                reservations:
                  devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]
        """,
    )
    [budget] = budgets(compose, "--gpu", "H100")
    assert budget["engine"] == "sglang"


def test_a_compose_image_built_from_an_engine_image_keeps_its_entrypoint(tmp_path):
    """zji996/vllm-qwen38-27b docker-compose.yml: `build.args: {VLLM_BASE_IMAGE:
    vllm/vllm-openai:nightly}` for a Dockerfile FROM it, the image named for the project, and
    `command:` the model and vLLM's flags (was HBM014, "finds no engine command line")."""
    compose = write(
        tmp_path,
        "compose.yaml",
        """
        services:
          llm:
            image: ${IMAGE:-qwen38-27b:ampere}
            build:
              context: .
              args:
                VLLM_BASE_IMAGE: ${VLLM_BASE_IMAGE:-vllm/vllm-openai:v0.20.0}
            command: [Qwen/Qwen3-8B, --tensor-parallel-size, "2"]
            deploy:
              resources:
                reservations:
                  devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]
        """,
    )
    [mismatch] = [f for f in findings(compose, "--gpu", "H100") if f["code"] == "HBM007"]
    assert mismatch["severity"] == "error"  # TP 2 on the one GPU the service reserves
    assert "tensor x pipeline parallelism is 2 x 1" in mismatch["message"]


def test_production_stack_cpu_model_is_not_budgeted_on_a_gpu(tmp_path):
    """pakolee867/vllm-production-stack-terraform cpu-tinyllama-light values: `requestGPU: 0`
    (the chart then requests no GPU), vLLM's CPU image and `extraArgs: ["--device=cpu"]`. Was
    budgeted on --gpu (with an 8B model on a T4, false HBM101 and HBM306 errors)."""
    values = write(
        tmp_path,
        "values.yaml",
        """
        servingEngineSpec:
          modelSpec:
          - name: cpu-llama
            repository: public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo
            tag: latest
            modelURL: meta-llama/Llama-3.1-8B-Instruct
            replicaCount: 1
            requestCPU: 8
            requestMemory: 32Gi
            requestGPU: 0
            vllmConfig:
              maxModelLen: 4096
              extraArgs: ["--device=cpu"]
        """,
    )
    found = findings(values, "--gpu", "T4")
    assert [(f["code"], f["severity"]) for f in found] == [("HBM014", "info")]
    assert budgets(values, "--gpu", "T4") == []
