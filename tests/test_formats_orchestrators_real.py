"""Orchestrators on the patterns of their projects' own published files (issue 19, second
round: KServe's LLMInferenceServiceConfig presets and CPU samples, production-stack's disabled
example and Ray pipelines, KAITO's multi-node presets, KubeAI's chart profiles). Each fixture in
tests/fixtures/real/ names the file it reproduces; these tests check what a user sees: the
deployments read (model, TP/PP, GPUs, GPU type), the infos that keep a file from passing in
silence, and no error the engine would not hit."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_formats_orchestrators import codes, errors, lint_path, read, write

from hbmlint.lint import lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


# fixture -> (name, engine, model, TP, PP, GPUs) of each deployment a correct reader finds
EXPECTED = {
    "kserve-llmisvc-config-template.yaml": [],
    "kserve-llmisvc-cpu.yaml": [],
    "production-stack-disabled-and-ray.yaml": [
        ("qwen-ray", "vllm", "Qwen/Qwen2.5-7B-Instruct", 1, 2, 2),
    ],
    "kaito-multinode-preset.yaml": [
        ("workspace-r1", "vllm", "deepseek-ai/DeepSeek-R1-0528", 2, 6, 12),
    ],
    "rbg-dynamo-templateref.yaml": [
        ("dynamo-lwp/backend", "sglang", "Qwen/Qwen3-8B", 2, None, 2),
    ],
    "llm-d-modelservice-templated-uri.yaml": [
        ("decode", "vllm", "Qwen/Qwen3-8B", 2, None, 2),
    ],
    "llm-d-modelservice-gaudi.yaml": [],
    "kubeai-chart-profiles.yaml": [
        ("qwen-0-5b-t4", "vllm", "Qwen/Qwen2.5-0.5B-Instruct", None, None, 1),
        ("qwen-7b-l40s", "vllm", "Qwen/Qwen2.5-7B-Instruct", 2, None, 2),
    ],
}
COVERED = set(EXPECTED) | {
    "dynamo-trtllm-configmap.yaml",
    "dynamo-trtllm-tree/deploy/agg.yaml",
    "dynamo-trtllm-tree/engine_configs/llama/agg.yaml",
    "ome-autoselect/models.yaml",
    "ome-autoselect/runtimes.yaml",
    "ome-autoselect/services.yaml",
    "trtllm-serve-deployment.yaml",
    "skypilot-sglang-multinode-arithmetic.sky.yaml",
    "skypilot-tp-unknown.sky.yaml",
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixtures_are_read_with_no_false_error(name, rules):
    result = lint_path(REAL / name, rules)
    assert read(result) == EXPECTED[name]
    assert errors(result) == []


def test_an_llm_inference_service_config_is_a_template_never_a_deployment(rules):
    """Its Go template actions ({{ .Spec.Parallelism.Tensor }}) are filled in by KServe: read
    alone they were a false 'not a whole number' error; now one info at the object."""
    result = lint_path(REAL / "kserve-llmisvc-config-template.yaml", rules)
    assert [(f.code, f.span.line) for f in result.diagnostics] == [("HBM014", 8)]
    assert "template" in result.diagnostics[0].message


def test_a_template_action_split_into_words_is_a_placeholder_not_a_bad_value(tmp_path, rules):
    path = tmp_path / "k8s.yaml"
    path.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  template:\n"
        "    spec:\n      containers:\n        - name: vllm\n          image: vllm/vllm-openai\n"
        "          command: [sh, -c]\n          args:\n            - >-\n"
        "              vllm serve Qwen/Qwen2.5-7B-Instruct\n"
        "              --tensor-parallel-size {{ .Values.tp }}\n"
    )
    result = lint_file(path, path.name, rules)
    assert errors(result) == []
    # the placeholder's info, and (TP unknown, GPUs unknown) no budget: both at the flag
    assert {f.span.line for f in codes(result, "HBM011")} == {14}


def test_a_cpu_image_with_no_gpu_is_an_info_not_an_unknown_gpu_warning(rules):
    result = lint_path(REAL / "kserve-llmisvc-cpu.yaml", rules)
    assert [f.code for f in result.diagnostics] == ["HBM014"]
    assert "CPU image" in result.diagnostics[0].message


def test_production_stack_disabled_model_is_not_read_and_ray_pods_add_up(rules):
    """The chart's own example (enabled: false, TP 2 on one GPU) is never deployed: no false
    HBM007; a Ray pipeline of 2 gets the head's GPU plus its worker's."""
    result = lint_path(REAL / "production-stack-disabled-and-ray.yaml", rules)
    assert [d.deployment.name for d in result.deployments] == ["qwen-ray"]
    assert codes(result, "HBM007") == []


def test_kaito_multinode_preset_is_pipeline_over_nodes_and_says_so(rules):
    result = lint_path(REAL / "kaito-multinode-preset.yaml", rules)
    deployment = result.deployments[0].deployment
    assert [(label.key, label.value) for label in deployment.gpu.labels] == [
        ("node.kubernetes.io/instance-type", "Standard_NC80adis_H100_v5")
    ]
    assert "resource.count" in deployment.assumed["pipeline_parallel"]


def test_kubeai_model_without_image_says_the_chart_picks_the_release(rules):
    result = lint_path(REAL / "kubeai-chart-profiles.yaml", rules)
    by_name = {d.deployment.name: d.deployment for d in result.deployments}
    assert by_name["qwen-0-5b-t4"].gpu.type == "T4-16GB"
    assert by_name["qwen-7b-l40s"].gpu.type == "L40S-48GB"
    assert "chart" in by_name["qwen-0-5b-t4"].assumed["engine_version"]
    assert "engine_version" not in by_name["qwen-7b-l40s"].assumed
    assert by_name["qwen-7b-l40s"].engine_version == "0.10.2"


def test_the_assumed_release_reaches_the_budget(rules):
    result = lint_path(REAL / "kubeai-chart-profiles.yaml", rules)
    first = result.deployments[0]
    if first.budget is None:
        pytest.skip("the model is not in the catalog here")
    assert "KubeAI" in first.budget.assumed["engine_version"]


# ------------------------------------------------------------ Dynamo's TensorRT-LLM workers


def test_dynamo_trtllm_reads_the_mounted_config_map_at_its_lines(rules):
    """--extra-engine-args /workspace/prefill.yaml names a key of the ConfigMap mounted at
    /workspace/: TP 8 from the key's block, the memory fraction as TensorRT-LLM means it."""
    path = REAL / "dynamo-trtllm-configmap.yaml"
    result = lint_path(path, rules)
    assert read(result) == [
        ("trt-disagg/prefill", "trtllm", "Qwen/Qwen2.5-14B-Instruct", 8, None, 8),
        ("trt-disagg/decode", "trtllm", "Qwen/Qwen2.5-14B-Instruct", 8, None, 4),
    ]
    lines = path.read_text().splitlines()
    prefill = result.deployments[0].deployment
    tp_line = prefill.locations["parallel.tensor"].line
    assert lines[tp_line - 1].strip() == "tensor_parallel_size: 8"
    assert prefill.serving.gpu_memory_utilization == 0.80
    assert result.deployments[1].deployment.serving.max_num_seqs == 64


def test_dynamo_trtllm_tp_beyond_the_components_gpus_is_an_error(rules):
    """The decode config asks for TP 8 on one pod of 4 GPUs: TensorRT-LLM cannot start."""
    path = REAL / "dynamo-trtllm-configmap.yaml"
    result = lint_path(path, rules)
    [error] = errors(result)
    assert error.startswith("HBM007")
    assert 'nvidia.com/gpu: "4"' in path.read_text().splitlines()[int(error.split()[2][:-1]) - 1]


def test_dynamo_trtllm_override_left_to_a_template_is_not_malformed(rules, tmp_path):
    """--override-engine-args "{{ .Values.overrides }}" is filled in by the chart before the
    worker parses it as JSON: no HBM004, only the fixture's own TP error remains."""
    text = (REAL / "dynamo-trtllm-configmap.yaml").read_text()
    marker = "                - --disaggregation-mode\n"
    templated = text.replace(
        marker,
        '                - --override-engine-args\n                - "{{ .Values.overrides }}"\n'
        + marker,
        1,
    )
    assert templated != text
    path = tmp_path / "dynamo-trtllm-configmap.yaml"
    path.write_text(templated)
    result = lint_path(path, rules)
    assert not codes(result, "HBM004")
    assert [e.split()[0] for e in errors(result)] == ["HBM007"]


def test_dynamo_trtllm_config_in_the_repository_is_found_and_a_missing_one_is_an_info(rules):
    path = REAL / "dynamo-trtllm-tree" / "deploy" / "agg.yaml"
    result = lint_path(path, rules)
    assert read(result) == [
        ("trt-agg/TRTLLMWorker", "trtllm", "meta-llama/Llama-3.1-8B-Instruct", 2, None, 2),
    ]
    deployment = result.deployments[0].deployment
    assert deployment.serving.max_model_len == 8192
    assert deployment.serving.gpu_memory_utilization == 0.6
    [info] = codes(result, "HBM014")
    assert "/opt/configs/agg.yaml" in info.message
    assert info.span.line == 47
    assert errors(result) == []


def test_dynamo_trtllm_override_engine_args_win_over_the_file(tmp_path, rules):
    path = tmp_path / "dgd.yaml"
    path.write_text(
        "apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\nmetadata: {name: t}\n"
        "spec:\n  services:\n    w:\n      resources: {limits: {gpu: '2'}}\n"
        "      extraPodSpec:\n        mainContainer:\n          image: x\n"
        "          command: [python3, -m, dynamo.trtllm]\n"
        "          args: [--model-path, Qwen/Qwen2.5-7B-Instruct, --tensor-parallel-size, '1',\n"
        "                 --override-engine-args, '{\"tensor_parallel_size\": 2}']\n"
    )
    result = lint_file(path, path.name, rules)
    assert read(result) == [("t/w", "trtllm", "Qwen/Qwen2.5-7B-Instruct", 2, None, 2)]


def test_a_dynamo_worker_in_a_plain_deployment_is_read_with_its_engines_flags(tmp_path, rules):
    """python3 -m dynamo.vllm passes vLLM's flags to vLLM: in any pod spec, not only in a
    DynamoGraphDeployment (RoleBasedGroup, a Deployment), it is read as vLLM."""
    path = tmp_path / "deploy.yaml"
    path.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: worker}\nspec:\n"
        "  template:\n    spec:\n      containers:\n        - name: main\n"
        "          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1\n"
        "          command: [python3, -m, dynamo.vllm]\n"
        "          args: [--model, Qwen/Qwen2.5-7B-Instruct, --tensor-parallel-size, '2']\n"
        "          resources: {limits: {nvidia.com/gpu: '2'}}\n"
    )
    result = lint_file(path, path.name, rules)
    assert read(result) == [("worker", "vllm", "Qwen/Qwen2.5-7B-Instruct", 2, None, 2)]
    assert errors(result) == []


def test_llm_d_uri_over_the_values_is_rendered_and_a_simulator_is_not_an_engine(rules):
    """hf://"{{ .Values.modelArtifacts.name }}" was an unreadable model (no deployment);
    the chart renders it, so it is the name's value."""
    result = lint_path(REAL / "llm-d-modelservice-templated-uri.yaml", rules)
    assert [d.deployment.name for d in result.deployments] == ["decode"]
    assert codes(result, "HBM011") == []


def test_llm_d_on_a_non_gpu_accelerator_is_an_info_at_its_type(rules):
    result = lint_path(REAL / "llm-d-modelservice-gaudi.yaml", rules)
    [info] = result.diagnostics
    assert (info.code, info.span.line) == ("HBM014", 8)
    assert "intel-gaudi" in info.message


# ------------------------------------------- OME's runtime selection, TRT-LLM, shell arithmetic


def test_ome_service_naming_no_runtime_gets_the_one_omes_selector_picks(tmp_path, rules):
    """The run holds the runtimes and base models (config/runtimes, config/models): the service
    that names only its base model is read with the runtime OME would pick (format,
    architecture, size range; the disabled one and the one for smaller models passed over)."""
    from hbmlint.lint import lint_paths

    results = lint_paths([str(REAL / "ome-autoselect")], rules)
    report = {Path(r.display).name: r for r in results}
    service = report["services.yaml"]
    assert read(service) == [("qwen3-32b", "sglang", "Qwen/Qwen3-32B", 4, None, 4)]
    assert "srt-qwen3-32b" in service.deployments[0].deployment.assumed["runtime"]
    [info] = codes(service, "HBM014")
    assert "llama-2-7b" in info.message and "modelArchitecture" in info.message
    # the picked runtime's file says nothing about it (it is checked with the service)
    runtimes = report["runtimes.yaml"]
    assert [f.message.split("'")[1] for f in codes(runtimes, "HBM014")] == [
        "srt-qwen3-8b",
        "srt-qwen3-disabled",
    ]


def test_trtllm_serve_is_read_wherever_a_format_finds_it(rules):
    result = lint_path(REAL / "trtllm-serve-deployment.yaml", rules)
    assert read(result) == [("trt-qwen", "trtllm", "Qwen/Qwen2.5-14B-Instruct", 2, None, 2)]
    deployment = result.deployments[0].deployment
    assert deployment.serving.gpu_memory_utilization == 0.75
    assert deployment.serving.max_num_seqs == 32
    [info] = codes(result, "HBM011")
    assert "/config/extra.yaml" in info.message and info.span.line == 38
    assert errors(result) == []


def test_skypilot_tp_from_shell_arithmetic_over_the_nodes(rules):
    """TP=$(($SKYPILOT_NUM_GPUS_PER_NODE * $SKYPILOT_NUM_NODES)) is 16 on 2 nodes of 8: read
    as the shell computes it (was unreadable, TP 1 assumed: a false weights error)."""
    result = lint_path(REAL / "skypilot-sglang-multinode-arithmetic.sky.yaml", rules)
    assert read(result) == [("r1-multinode", "sglang", "deepseek-ai/DeepSeek-V3", 16, None, 16)]
    assert errors(result) == []


def test_an_unreadable_tp_over_several_gpus_is_not_budgeted_as_tp_1(rules):
    result = lint_path(REAL / "skypilot-tp-unknown.sky.yaml", rules)
    assert result.deployments == []
    assert errors(result) == []
    assert any("not budgeted" in f.message for f in codes(result, "HBM011"))


# The pattern of volcano-sh/kthena examples/model-serving/data-parallel-deployment.yaml: one
# ModelServing role whose entry pod and worker pod each run one vLLM data-parallel rank
# (--data-parallel-rank 0 / 1 of --data-parallel-size 2) on one GPU each.
_DP_RANK_PER_POD = """
    apiVersion: workload.serving.volcano.sh/v1alpha1
    kind: ModelServing
    metadata: {name: dp}
    spec:
      template:
        roles:
          - name: leader
            entryTemplate:
              spec:
                containers:
                  - name: engine
                    image: vllm/vllm-openai:v0.13.0
                    command: [python3, -m, vllm.entrypoints.openai.api_server,
                      --model, Qwen/Qwen3-0.6B, --data-parallel-address, $(ENTRY_ADDRESS),
                      --data-parallel-rank, "0", --data-parallel-rpc-port, "13345",
                      --data-parallel-size, "2", --max-model-len, "2048"]
                    resources: {limits: {nvidia.com/gpu: "1"}}
                nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}
            workerReplicas: 1
            workerTemplate:
              spec:
                containers:
                  - name: worker
                    image: vllm/vllm-openai:v0.13.0
                    command: [python3, -m, vllm.entrypoints.openai.api_server,
                      --model, Qwen/Qwen3-0.6B, --data-parallel-rank, "1",
                      --data-parallel-size, "2", --max-model-len, "2048"]
                    resources: {limits: {nvidia.com/gpu: "1"}}
                nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}
"""


def test_one_data_parallel_rank_a_pod_needs_only_its_own_gpus(tmp_path, rules):
    # vLLM's external load balancing: with --data-parallel-rank each process runs one rank
    # (tensor x pipeline GPUs); the other ranks run in other pods
    result = lint_path(write(tmp_path, "dp.yaml", _DP_RANK_PER_POD), rules)
    assert errors(result) == []
    assert codes(result, "HBM007") == []
    # the entry and worker templates of one role are two deployments, told apart by name
    assert result_names(result) == ["dp/leader/entry", "dp/leader/worker"]


def test_data_parallel_ranks_on_this_node_set_the_gpus_it_needs(tmp_path, rules):
    # vLLM's multi-node data parallelism: DP 4 with 2 ranks on this node needs 2 x TP GPUs
    text = """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: dp}
        spec:
          template:
            spec:
              nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.11.0
                  args: [serve, Qwen/Qwen3-0.6B, --data-parallel-size, "4",
                    --data-parallel-size-local, "2", --tensor-parallel-size, "2"]
                  resources: {limits: {nvidia.com/gpu: "%s"}}
    """
    fits = lint_path(write(tmp_path, "fits.yaml", text % 4), rules)
    assert codes(fits, "HBM007") == []
    short = lint_path(write(tmp_path, "short.yaml", text % 2), rules)
    assert [f.message.split(";")[0] for f in codes(short, "HBM007")] == [
        "2 GPUs requested but tensor x pipeline x data parallelism is 2 x 1 x 2 = 4"
    ]
    # an API server alone (no local ranks) holds no model: nothing to budget, and it says so
    api_only = lint_path(
        write(tmp_path, "api.yaml", text.replace('"2", --tensor', '"0", --tensor') % 0), rules
    )
    assert errors(api_only) == [] and result_names(api_only) == []
    assert "runs only the API server" in codes(api_only, "HBM014")[0].message


def result_names(result) -> list[str]:
    return [d.deployment.name for d in result.deployments]


def test_a_kubeai_profile_for_gaudi_is_never_budgeted_on_a_gpu(tmp_path):
    # The pattern of opea-project/GenAIInfra kubeai/models/*-gaudi.yaml: a KubeAI Model on a
    # resource profile the cluster defines for Intel Gaudi (habana.ai/gaudi limits). --gpu is
    # for manifests that name no device; budgeting this one on a T4 made up a false error.
    from format_helpers import findings

    path = write(
        tmp_path,
        "model.yaml",
        """
        apiVersion: kubeai.org/v1
        kind: Model
        metadata: {name: llama-gaudi}
        spec:
          url: hf://meta-llama/Llama-3.1-8B-Instruct
          engine: VLLM
          args: [--tensor-parallel-size=1, --max-model-len=2048]
          resourceProfile: gaudi-for-text-generation:1
        """,
    )
    found = findings(path, "--gpu", "T4")
    assert [(f["code"], f["severity"]) for f in found] == [("HBM014", "info")]
    assert "Intel Gaudi" in found[0]["message"]
    # a word that merely contains a marker is not one ("throughput" holds "hpu")
    throughput = write(tmp_path, "t.yaml", path.read_text().replace("gaudi-for-text", "throughput"))
    assert [f["code"] for f in findings(throughput, "--gpu", "T4")] != ["HBM014"]
