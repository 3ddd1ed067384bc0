"""Orchestrators' objects (issue 19): custom resources that embed pod specs (RoleBasedGroup and
any new CRD), KServe with its ServingRuntime, KubeAI, KAITO, Dynamo, llm-d. Each fixture in
tests/fixtures/real/ names the public example it reproduces; these tests check what a user sees:
the deployments found, model, TP/PP, GPU count and type, and no error the engine would not hit."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from hbmlint.diagnostics import Severity
from hbmlint.lint import lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint_path(path: Path, rules):
    return lint_file(path, path.name, rules)


def read(result) -> list[tuple]:
    """(name, engine, model, TP, PP, GPUs) of each deployment."""
    return [
        (
            d.deployment.name,
            d.deployment.engine,
            d.deployment.model.name,
            d.deployment.parallel.tensor,
            d.deployment.parallel.pipeline,
            d.deployment.gpu.count,
        )
        for d in result.deployments
    ]


def errors(result) -> list[str]:
    return [
        f"{f.code} line {f.span.line}: {f.message}"
        for f in result.diagnostics
        if f.severity is Severity.ERROR
    ]


def codes(result, code: str) -> list:
    return [f for f in result.diagnostics if f.code == code]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


# fixture -> (name, engine, model, TP, PP, GPUs) of each deployment a correct reader finds
EXPECTED = {
    "rbg-sglang-pd-standalone.yaml": [
        ("qwen-pd/prefill", "sglang", "Qwen/Qwen2.5-7B-Instruct", 2, None, 2),
        ("qwen-pd/decode", "sglang", "Qwen/Qwen2.5-7B-Instruct", 1, None, 1),
    ],
    "rbg-leader-worker-and-vllm-role.yaml": [
        ("agg-lwp/backend", "sglang", "Qwen/Qwen2.5-14B-Instruct", 2, None, 2),
        ("vllm-role/vllm", "vllm", "/models/Qwen2.5-7B-Instruct/", None, None, 1),
    ],
    "kserve-vllm-servingruntime.yaml": [
        ("qwen-14b", "vllm", "Qwen/Qwen2.5-14B-Instruct", 2, None, 2),
        (
            "llama-modelcar",
            "vllm",
            "oci://quay.io/redhat-ai-services/modelcar-catalog:llama-3.1-8b-instruct",
            None,
            None,
            1,
        ),
    ],
    "kubeai-models.yaml": [
        ("qwen2.5-7b-instruct-l4", "vllm", "Qwen/Qwen2.5-7B-Instruct", None, None, 1),
        ("llama-3.1-70b-instruct-h100", "vllm", "meta-llama/Llama-3.1-70B-Instruct", 2, None, 2),
    ],
    "dynamo-vllm-disagg-multinode.yaml": [
        ("llama-disagg/decode", "vllm", "meta-llama/Llama-3.1-70B-Instruct", 8, None, 8),
        ("llama-disagg/prefill", "vllm", "meta-llama/Llama-3.1-70B-Instruct", 4, None, 4),
        ("qwen-sglang-agg/decode", "sglang", "Qwen/Qwen2.5-14B-Instruct", 2, None, 2),
        ("qwen-sglang-agg/trt", "trtllm", "Qwen/Qwen2.5-7B-Instruct", None, None, 1),
    ],
    "llm-d-modelservice-pd-values.yaml": [
        ("decode", "vllm", "meta-llama/Llama-3.3-70B-Instruct", 4, None, 4),
        ("prefill", "vllm", "meta-llama/Llama-3.3-70B-Instruct", 2, None, 2),
    ],
    "kaito-workspaces.yaml": [
        ("workspace-llama-3-1-8b", "vllm", "meta-llama/Llama-3.1-8B-Instruct", 1, None, 1),
        ("workspace-phi-4-mini-instruct", "vllm", "microsoft/Phi-4-mini-instruct", 1, None, 1),
    ],
    "llm-d-modelservice-wide-ep-values.yaml": [
        ("decode", "vllm", "deepseek-ai/DeepSeek-R1-0528", None, None, 16),
        ("prefill", "vllm", "deepseek-ai/DeepSeek-R1-0528", None, None, 8),
    ],
    "kaito-inferenceset.yaml": [
        ("llama-3-1-8b", "vllm", "meta-llama/Llama-3.1-8B-Instruct", 1, None, 1),
    ],
    "ome-qwen3-8b.yaml": [("qwen3-8b", "sglang", "Qwen/Qwen3-8B", 1, None, 1)],
    "dstack-vllm-service.dstack.yml": [
        ("llama-70b", "vllm", "meta-llama/Llama-3.1-70B-Instruct", 4, None, 4),
    ],
    "dstack-sglang-pd.dstack.yml": [
        ("qwen-pd/0", "sglang", "Qwen/Qwen2.5-14B-Instruct", 2, None, 2),
        ("qwen-pd/1", "sglang", "Qwen/Qwen2.5-14B-Instruct", None, None, 1),
    ],
    "production-stack-operator-vllmruntime.yaml": [
        ("llama-8b", "vllm", "meta-llama/Llama-3.1-8B-Instruct", 1, None, 1),
        ("qwen-32b", "vllm", "Qwen/Qwen2.5-32B-Instruct", 2, None, 2),
    ],
}
# fixtures read as a folder (a run of several files), by the tests further down
COVERED = set(EXPECTED) | {"ome-deepseek-pd/runtime.yaml", "ome-deepseek-pd/service.yaml"}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_orchestrator_fixtures_are_read_with_no_false_error(name, rules):
    result = lint_path(REAL / name, rules)
    assert read(result) == EXPECTED[name]
    assert errors(result) == []


# ------------------------------------------------------------- the embedded pod-spec fallback


def test_rbg_roles_are_read_and_the_router_and_init_containers_are_not(rules):
    result = lint_path(REAL / "rbg-sglang-pd-standalone.yaml", rules)
    assert {d.deployment.source_format for d in result.deployments} == {"embedded-pod-spec"}
    assert all("router" not in d.deployment.name for d in result.deployments)
    # the GKE label on each role's pod picks the GPU
    assert [d.deployment.gpu.labels[0].value for d in result.deployments] == ["nvidia-l4"] * 2
    assert all(d.budget is not None for d in result.deployments)


def test_rbg_leader_worker_size_counts_pods_and_its_variables_raise_nothing(rules):
    result = lint_path(REAL / "rbg-leader-worker-and-vllm-role.yaml", rules)
    assert codes(result, "HBM011") == []
    [sglang] = [d.deployment for d in result.deployments if d.deployment.engine == "sglang"]
    assert sglang.gpu.count == 2  # size 2 x one GPU a pod


def test_any_crd_embedding_a_pod_spec_is_read_wherever_the_pod_sits(tmp_path, rules):
    path = write(
        tmp_path,
        "new-crd.yaml",
        """
        apiVersion: inference.example.com/v1beta1
        kind: BrandNewServer
        metadata:
          name: day-one
        spec:
          engine:
            podTemplate:
              spec:
                nodeSelector:
                  nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
                containers:
                  - name: server
                    image: vllm/vllm-openai:v0.10.1
                    args: [--model, Qwen/Qwen2.5-32B-Instruct, --tensor-parallel-size, "2"]
                    resources:
                      limits: {nvidia.com/gpu: 2}
        """,
    )
    result = lint_path(path, rules)
    assert read(result) == [("day-one", "vllm", "Qwen/Qwen2.5-32B-Instruct", 2, None, 2)]
    assert errors(result) == []
    [deployment] = result.deployments
    assert deployment.deployment.locations["model.name"].line == 14
    assert deployment.deployment.engine_version == "0.10.1"


def test_documents_an_existing_format_reads_are_not_read_twice(tmp_path, rules):
    path = write(
        tmp_path,
        "deployment.yaml",
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: plain}
        spec:
          template:
            spec:
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.10.1
                  args: [--model, Qwen/Qwen2.5-7B-Instruct]
                  resources: {limits: {nvidia.com/gpu: 1}}
        """,
    )
    result = lint_path(path, rules)
    assert [d.deployment.source_format for d in result.deployments] == ["kubernetes"]


def test_parallelism_beyond_the_pod_without_a_known_group_is_an_info_not_an_error(tmp_path, rules):
    path = write(
        tmp_path,
        "spans.yaml",
        """
        apiVersion: example.com/v1
        kind: MultiHost
        metadata: {name: spans}
        spec:
          workers:
            template:
              spec:
                containers:
                  - name: vllm
                    image: vllm/vllm-openai:v0.10.1
                    args: [--model, Qwen/Qwen2.5-72B-Instruct, --tensor-parallel-size, "8"]
                    resources: {limits: {nvidia.com/gpu: 4}}
        """,
    )
    result = lint_path(path, rules)
    assert errors(result) == []
    [info] = codes(result, "HBM011")
    assert info.severity is Severity.INFO and "8 GPUs" in info.message
    assert info.span.line == 12  # the pod's GPU limit


RUNTIME = """
apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata: {name: vllm-runtime}
spec:
  supportedModelFormats: [{name: vLLM, autoSelect: true}]
  containers:
    - name: kserve-container
      image: quay.io/modh/vllm:rhoai-2.20
      command: [python, -m, vllm.entrypoints.openai.api_server]
      args: [--port=8080, --model=/mnt/models, "--served-model-name={{.Name}}"]
"""

SERVICE = """
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: llama}
spec:
  predictor:
    nodeSelector: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}
    model:
      modelFormat: {name: vLLM}
      runtime: vllm-runtime
      storageUri: hf://meta-llama/Llama-3.1-8B-Instruct
      resources: {limits: {nvidia.com/gpu: 1}}
"""


def test_a_serving_runtime_alone_is_a_template_an_info_and_no_deployment(tmp_path, rules):
    result = lint_path(write(tmp_path, "runtime.yaml", RUNTIME), rules)
    assert result.deployments == []
    [info] = result.diagnostics
    assert (info.code, info.severity, info.span.line) == ("HBM014", Severity.INFO, 3)
    assert "template" in info.message and "InferenceService" in info.message


def test_an_inference_service_whose_runtime_is_elsewhere_is_an_info_at_runtime(tmp_path, rules):
    result = lint_path(write(tmp_path, "isvc.yaml", SERVICE), rules)
    assert result.deployments == []
    [info] = result.diagnostics
    assert (info.code, info.severity, info.span.line) == ("HBM014", Severity.INFO, 9)
    assert "ServingRuntime 'vllm-runtime'" in info.message


def test_service_and_runtime_in_one_file_merge_as_kserve_does(tmp_path, rules):
    path = write(tmp_path, "both.yaml", SERVICE + "---" + RUNTIME)
    result = lint_path(path, rules)
    assert read(result) == [("llama", "vllm", "meta-llama/Llama-3.1-8B-Instruct", None, None, 1)]
    assert result.diagnostics == []  # the runtime is used: no "template" info
    [deployment] = result.deployments
    assert deployment.deployment.locations["model.name"].line == 10  # storageUri, not /mnt/models
    assert deployment.budget is not None


def lint_tree(tmp_path: Path, rules, **files: str) -> dict:
    from hbmlint.lint import lint_paths

    tmp_path.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        write(tmp_path, name, text)
    return {Path(r.display).name: r for r in lint_paths([str(tmp_path)], rules)}


def test_a_runtime_in_another_file_of_the_run_is_read_at_the_services_runtime_line(tmp_path, rules):
    too_long = RUNTIME.replace("--port=8080,", "--port=8080, --max-model-len=500000,")
    results = lint_tree(tmp_path, rules, **{"isvc.yaml": SERVICE, "runtime.yaml": too_long})
    service, runtime = results["isvc.yaml"], results["runtime.yaml"]
    assert read(service) == [("llama", "vllm", "meta-llama/Llama-3.1-8B-Instruct", None, None, 1)]
    # the runtime's flag is beyond the model's context: an error, placed at `runtime:` here
    found = [f for f in service.diagnostics if f.severity is Severity.ERROR]
    assert "HBM303" in {f.code for f in found}
    assert {(f.span.line, Path(f.file).name) for f in found} == {(9, "isvc.yaml")}
    # the runtime is used by a service of the run: checked there, no "template" info here
    assert runtime.diagnostics == [] and runtime.deployments == []


def test_a_cluster_runtime_elsewhere_that_auto_selects_vllm_serves_a_service_naming_none(
    tmp_path, rules
):
    cluster = RUNTIME.replace("kind: ServingRuntime", "kind: ClusterServingRuntime")
    service = SERVICE.replace("      runtime: vllm-runtime\n", "")
    results = lint_tree(tmp_path, rules, **{"a.yaml": service, "b.yaml": cluster})
    assert read(results["a.yaml"]) == [
        ("llama", "vllm", "meta-llama/Llama-3.1-8B-Instruct", None, None, 1)
    ]
    assert results["a.yaml"].diagnostics == [] and results["b.yaml"].diagnostics == []


def test_a_runtime_no_service_of_the_run_uses_is_still_an_info(tmp_path, rules):
    other = SERVICE.replace("runtime: vllm-runtime", "runtime: another-runtime")
    results = lint_tree(tmp_path, rules, **{"a.yaml": other, "b.yaml": RUNTIME})
    [info] = results["b.yaml"].diagnostics
    assert info.code == "HBM014" and "no InferenceService in the files linted" in info.message
    [missing] = results["a.yaml"].diagnostics
    assert missing.code == "HBM014" and "another-runtime" in missing.message


def test_the_runtime_settings_apply_and_the_service_args_win(rules):
    result = lint_path(REAL / "kserve-vllm-servingruntime.yaml", rules)
    qwen, llama = (d.deployment for d in result.deployments)
    text = (REAL / "kserve-vllm-servingruntime.yaml").read_text().splitlines()
    assert qwen.serving.max_model_len == 16384  # from the runtime's args
    assert "--max-model-len=16384" in text[qwen.locations["serving.max_model_len"].line - 1]
    assert qwen.serving.gpu_memory_utilization == 0.92  # from the service's args
    assert [label.value for label in qwen.gpu.labels] == ["NVIDIA-L40S"]
    # the OCI modelcar is named for hbmlint by the annotation: a budget, no warning
    assert llama.model.name.startswith("oci://")
    assert result.deployments[1].budget is not None
    assert codes(result, "HBM006") == []


# ------------------------------------------------------------------------------------ KubeAI


def test_kubeai_profiles_name_the_gpu_and_other_engines_are_an_info(rules):
    result = lint_path(REAL / "kubeai-models.yaml", rules)
    assert [d.budget.resolved.gpu.name for d in result.deployments] == ["L4-24GB", "H100-SXM-80GB"]
    [info] = result.diagnostics
    assert (info.code, info.severity) == ("HBM014", Severity.INFO)
    assert "OLlama" in info.message
    # the Model names no image: KubeAI runs its chart's vLLM, at most the newest chart's 0.11.2,
    # which still takes --disable-log-requests (gone in 0.17: no HBM010 for it)
    versions = {d.budget.settings.engine_version for d in result.deployments}
    assert len(versions) == 1 and versions.pop().startswith("0.11.2 (at most")


def test_kubeai_context_too_long_for_the_profile_is_an_error_at_its_flag(tmp_path, rules):
    path = write(
        tmp_path,
        "model.yaml",
        """
        apiVersion: kubeai.org/v1
        kind: Model
        metadata: {name: too-long}
        spec:
          url: hf://meta-llama/Llama-3.1-70B-Instruct
          engine: VLLM
          resourceProfile: nvidia-gpu-h100:2
          args: [--max-model-len=131072, --tensor-parallel-size=2]
        """,
    )
    result = lint_path(path, rules)
    [error] = [f for f in result.diagnostics if f.severity is Severity.ERROR]
    assert error.code == "HBM102" and error.span.line == 8


def test_kubeai_profile_a_cluster_defines_itself_is_a_warning_not_a_guess(tmp_path, rules):
    path = write(
        tmp_path,
        "model.yaml",
        """
        apiVersion: kubeai.org/v1
        kind: Model
        metadata: {name: custom}
        spec:
          url: hf://Qwen/Qwen2.5-7B-Instruct
          engine: VLLM
          resourceProfile: my-team-gpus:4
          args: [--tensor-parallel-size=4]
        """,
    )
    result = lint_path(path, rules)
    assert read(result) == [("custom", "vllm", "Qwen/Qwen2.5-7B-Instruct", 4, None, 4)]
    assert errors(result) == []
    assert [f.code for f in result.diagnostics] == ["HBM005"]


# ------------------------------------------------------------------------------------ Dynamo


def test_dynamo_workers_are_read_frontend_skipped_and_trtllm_flags_read(rules):
    """A TRT-LLM worker with no --extra-engine-args is read from its flags alone (TensorRT-LLM's
    defaults for the rest); tests/test_formats_orchestrators_real.py reads the config files."""
    result = lint_path(REAL / "dynamo-vllm-disagg-multinode.yaml", rules)
    names = [d.deployment.name for d in result.deployments]
    assert not any("Frontend" in name for name in names)
    assert codes(result, "HBM014") == []
    assert result.deployments[-1].deployment.engine == "trtllm"
    decode = result.deployments[0]
    assert decode.budget is not None  # H100 from the extraPodSpec nodeSelector
    assert decode.deployment.gpu.count == 8  # 4 a pod x multinode.nodeCount 2


def test_dynamo_tp_beyond_the_worker_gpus_is_an_error_at_the_flag(tmp_path, rules):
    path = write(
        tmp_path,
        "dgd.yaml",
        """
        apiVersion: nvidia.com/v1alpha1
        kind: DynamoGraphDeployment
        metadata: {name: short}
        spec:
          services:
            worker:
              componentType: worker
              resources: {limits: {gpu: "2"}}
              extraPodSpec:
                nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
                mainContainer:
                  image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1
                  command: [python3, -m, dynamo.vllm]
                  args: [--model, meta-llama/Llama-3.1-8B-Instruct, --tensor-parallel-size, "4"]
        """,
    )
    result = lint_path(path, rules)
    assert read(result) == [
        ("short/worker", "vllm", "meta-llama/Llama-3.1-8B-Instruct", 4, None, 2)
    ]
    assert [f.code for f in result.diagnostics if f.severity is Severity.ERROR] == ["HBM007"]


def test_dynamo_v1beta1_components_are_read_with_their_container_gpus(tmp_path, rules):
    # nvidia.com/v1beta1 as the Dynamo docs write it (a components list, each a podTemplate
    # whose "main" container runs the worker); a 70B model on one GPU cannot load
    path = write(
        tmp_path,
        "dgd.yaml",
        """
        apiVersion: nvidia.com/v1beta1
        kind: DynamoGraphDeployment
        metadata: {name: beta}
        spec:
          components:
          - name: Frontend
            type: frontend
            podTemplate:
              spec:
                containers:
                - {name: main, image: nvcr.io/nvidia/ai-dynamo/sglang-runtime:0.9.0}
          - name: SGLangWorker
            type: worker
            podTemplate:
              spec:
                nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
                containers:
                - name: main
                  image: nvcr.io/nvidia/ai-dynamo/sglang-runtime:0.9.0
                  command: [python3, -m, dynamo.sglang]
                  args: [--model-path, Qwen/Qwen3-8B, --tp, "2"]
                  resources: {limits: {nvidia.com/gpu: "2"}}
          - name: BigWorker
            type: worker
            podTemplate:
              spec:
                nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
                containers:
                - name: main
                  image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0
                  command: [python3, -m, dynamo.vllm]
                  args: [--model, meta-llama/Llama-3.1-70B-Instruct]
                  resources: {limits: {nvidia.com/gpu: "1"}}
        """,
    )
    result = lint_path(path, rules)
    assert read(result) == [
        ("beta/SGLangWorker", "sglang", "Qwen/Qwen3-8B", 2, None, 2),
        ("beta/BigWorker", "vllm", "meta-llama/Llama-3.1-70B-Instruct", None, None, 1),
    ]
    errors = [f for f in result.diagnostics if f.severity is Severity.ERROR]
    assert [f.code for f in errors] == ["HBM101"]
    assert "Llama-3.1-70B" in path.read_text().splitlines()[errors[0].span.line - 1]


def test_a_dynamo_worker_in_an_unknown_format_is_not_passed_in_silence(tmp_path, rules):
    path = write(
        tmp_path,
        "worker.yaml",
        """
        kind: SomethingNew
        run: python3 -m dynamo.sglang --model-path Qwen/Qwen3-8B
        """,
    )
    result = lint_path(path, rules)
    assert [f.code for f in result.diagnostics] == ["HBM014"]


# ------------------------------------------------------------------------------------- llm-d


def test_llm_d_pools_take_the_chart_parallelism_and_accelerator_labels(rules):
    result = lint_path(REAL / "llm-d-modelservice-pd-values.yaml", rules)
    decode, prefill = (d.deployment for d in result.deployments)
    text = (REAL / "llm-d-modelservice-pd-values.yaml").read_text().splitlines()
    assert "tensor: 4" in text[decode.locations["parallel.tensor"].line - 1]
    assert decode.serving.block_size == 128
    assert prefill.model.quantization == "fp8"
    assert all(d.budget is not None for d in result.deployments)  # H100 from acceleratorTypes
    assert result.diagnostics == []


def test_llm_d_70b_fp8_on_one_gpu_is_an_error_and_a_disabled_pool_is_not_read(tmp_path, rules):
    path = write(
        tmp_path,
        "values.yaml",
        """
        modelArtifacts:
          uri: hf://meta-llama/Llama-3.3-70B-Instruct
        decode:
          parallelism: {tensor: 1}
          acceleratorTypes:
            labelKey: nvidia.com/gpu.product
            labelValues: [NVIDIA-H100-80GB-HBM3]
          containers:
            - name: vllm
              image: ghcr.io/llm-d/llm-d-cuda:v0.3.0
              modelCommand: vllmServe
              args: ["--max-model-len=32000", "--quantization=fp8"]
              resources: {limits: {nvidia.com/gpu: "1"}}
        prefill:
          create: false
          containers:
            - name: vllm
              modelCommand: vllmServe
        """,
    )
    result = lint_path(path, rules)
    assert [d.deployment.name for d in result.deployments] == ["decode"]
    [error] = [f for f in result.diagnostics if f.severity is Severity.ERROR]
    assert error.code == "HBM102" and error.span.line == 12


# ------------------------------------------------------------------------------------- KAITO


def test_kaito_config_map_settings_apply_at_their_lines(rules):
    result = lint_path(REAL / "kaito-workspaces.yaml", rules)
    llama = result.deployments[0].deployment
    text = (REAL / "kaito-workspaces.yaml").read_text().splitlines()
    assert llama.serving.max_model_len == 65536
    assert "max-model-len: 65536" in text[llama.locations["serving.max_model_len"].line - 1]
    assert result.deployments[0].budget.resolved.gpu.name == "A100-SXM4-80GB"  # the VM size
    # no max-model-len: KAITO fits it at start-up; an info says what is checked instead
    [info] = codes(result, "HBM011")
    assert info.severity is Severity.INFO and "one KV block" in info.message
    assert "phi-4-mini-instruct" in text[info.span.line - 1]


KAITO_TP2 = """
apiVersion: v1
kind: ConfigMap
metadata: {name: params}
data:
  inference_config.yaml: |
    vllm:
      tensor-parallel-size: 2
      max-model-len: 8192
---
apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata: {name: tp2-on-one-gpu}
resource:
  instanceType: Standard_NC24ads_A100_v4
inference:
  preset: {name: phi-4}
  config: params
"""


def test_kaito_tensor_parallel_2_on_a_one_gpu_vm_is_an_error_at_the_config(tmp_path, rules):
    result = lint_path(write(tmp_path, "ws.yaml", KAITO_TP2), rules)
    [error] = [f for f in result.diagnostics if f.severity is Severity.ERROR]
    # at the VM size, whose one GPU cannot hold tensor-parallel-size 2
    assert error.code == "HBM007" and error.span.line == 14
    assert "tensor-parallel-size" in " ".join(error.fixes)


def test_kaito_config_map_elsewhere_and_transformers_runtime_are_infos(tmp_path, rules):
    path = write(
        tmp_path,
        "ws.yaml",
        """
        apiVersion: kaito.sh/v1beta1
        kind: Workspace
        metadata: {name: elsewhere}
        resource: {instanceType: Standard_NC24ads_A100_v4}
        inference:
          preset: {name: llama-3.1-8b-instruct}
          config: params-in-another-file
        ---
        apiVersion: kaito.sh/v1beta1
        kind: Workspace
        metadata:
          name: hf-runtime
          annotations: {kaito.sh/runtime: transformers}
        resource: {instanceType: Standard_NC24ads_A100_v4}
        inference:
          preset: {name: falcon-7b-instruct}
        """,
    )
    result = lint_path(path, rules)
    assert [d.deployment.name for d in result.deployments] == ["elsewhere"]
    assert errors(result) == []
    messages = [f.message for f in result.diagnostics if f.severity is Severity.INFO]
    assert any("params-in-another-file" in m for m in messages)
    assert any("transformers" in m for m in messages)


def test_kaito_defaults_are_in_the_budgets_assumed_list_with_kaito_named(rules):
    result = lint_path(REAL / "kaito-inferenceset.yaml", rules)
    [deployment] = result.deployments
    assumed = deployment.budget.assumed
    assert assumed["max_model_len"].startswith("16 ") and "KAITO" in assumed["max_model_len"]
    assert assumed["tensor_parallel"].startswith("1 ") and "VM's GPUs" in assumed["tensor_parallel"]
    # KAITO's memory fraction, not vLLM's 0.9: the share free at start-up, capped at 0.95
    assert deployment.budget.settings.memory_fraction == 0.95
    assert "KAITO" in assumed["gpu_memory_utilization"]


def test_kaito_settings_the_config_map_gives_are_not_assumed(rules):
    result = lint_path(REAL / "kaito-workspaces.yaml", rules)
    assumed = result.deployments[0].budget.assumed
    assert "KAITO" not in assumed.get("max_model_len", "")
    assert "KAITO" not in assumed.get("gpu_memory_utilization", "")
    assert result.deployments[0].budget.settings.memory_fraction == 0.95  # the config's own


def test_kaito_config_map_in_another_file_of_the_run_is_read(tmp_path, rules):
    from hbmlint.lint import lint_paths

    (tmp_path / "params.yaml").write_text(KAITO_TP2.split("---")[0])
    (tmp_path / "ws.yaml").write_text(KAITO_TP2.split("---")[1])
    results = {r.display.rsplit("/", 1)[-1]: r for r in lint_paths([str(tmp_path)], rules)}
    workspace = results["ws.yaml"]
    [error] = [f for f in workspace.diagnostics if f.severity is Severity.ERROR]
    assert error.code == "HBM007"  # TP 2 from the other file's config, on a one-GPU VM
    [deployment] = workspace.deployments
    assert deployment.deployment.serving.max_model_len == 8192
    text = (tmp_path / "ws.yaml").read_text().splitlines()
    assert (
        "config: params" in text[deployment.deployment.locations["serving.max_model_len"].line - 1]
    )


# --------------------------------------------------------------------------------------- OME


def test_ome_service_runtime_and_base_model_in_one_file(rules):
    result = lint_path(REAL / "ome-qwen3-8b.yaml", rules)
    [deployment] = (d.deployment for d in result.deployments)
    text = (REAL / "ome-qwen3-8b.yaml").read_text().splitlines()
    # $(MODEL_PATH) is the base model: named by its hf:// storage URI, at that line
    assert "storageUri: hf://Qwen/Qwen3-8B" in text[deployment.locations["model.name"].line - 1]
    assert deployment.serving.gpu_memory_utilization == 0.9  # the runtime's --mem-frac
    assert deployment.engine_version == "0.5.5"  # the runner image's tag
    assert result.deployments[0].budget.resolved.gpu.name == "H100-SXM-80GB"
    assert result.diagnostics == []  # the router runs no engine; the runtime is used


def test_ome_multinode_pd_runtime_in_another_file(rules):
    from hbmlint.lint import lint_paths

    results = {Path(r.display).name: r for r in lint_paths([str(REAL / "ome-deepseek-pd")], rules)}
    service, runtime = results["service.yaml"], results["runtime.yaml"]
    # PARALLELISM_SIZE: 8 GPUs a pod x (1 leader + 1 worker); --nnodes $(LWS_GROUP_SIZE) = 2
    assert read(service) == [
        ("deepseek-v3/engine", "sglang", "deepseek-ai/DeepSeek-V3", 16, None, 16),
        ("deepseek-v3/decoder", "sglang", "deepseek-ai/DeepSeek-V3", 16, None, 16),
    ]
    assert errors(service) == []
    engine = service.deployments[0].deployment
    assert engine.serving.gpu_memory_utilization == 0.849  # the runtime's prefill fraction
    # values from runtime.yaml are placed at the service's `runtime:` line
    lines = (REAL / "ome-deepseek-pd" / "service.yaml").read_text().splitlines()
    assert "name: srt-deepseek-pd" in lines[engine.locations["parallel.tensor"].line - 1]
    assert runtime.diagnostics == []  # used by the service: checked there


OME_SERVICE = """
apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {name: llama}
spec:
  model: {name: llama-3-1-70b}
  runtime: {name: vllm-llama-70b}
  engine:
    nodeSelector: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}
"""
OME_RUNTIME = """
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata: {name: vllm-llama-70b}
spec:
  engineConfig:
    runner:
      name: ome-container
      image: docker.io/vllm/vllm-openai:v0.9.1
      command: [vllm, serve, $(MODEL_PATH), --tensor-parallel-size, "1"]
      resources: {limits: {nvidia.com/gpu: 1}}
"""
OME_MODEL = """
apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata: {name: llama-3-1-70b}
spec:
  storage: {storageUri: hf://meta-llama/Llama-3.1-70B-Instruct, path: /raid/models/llama}
"""


def test_ome_70b_on_one_gpu_is_an_error_at_the_services_runtime_line(tmp_path, rules):
    results = lint_tree(
        tmp_path, rules, **{"isvc.yaml": OME_SERVICE, "rt.yaml": OME_RUNTIME, "m.yaml": OME_MODEL}
    )
    found = [f for f in results["isvc.yaml"].diagnostics if f.severity is Severity.ERROR]
    assert [f.code for f in found] == ["HBM101"]  # 70B in BF16 does not fit one A100
    assert found[0].span.line in (5, 6)  # the model or the runtime named here
    assert results["rt.yaml"].diagnostics == [] and results["m.yaml"].diagnostics == []


def test_ome_missing_runtime_base_model_or_runtime_name_are_infos(tmp_path, rules):
    alone = lint_tree(tmp_path / "a", rules, **{"isvc.yaml": OME_SERVICE})["isvc.yaml"]
    [info] = alone.diagnostics
    assert info.code == "HBM014" and "vllm-llama-70b" in info.message and info.span.line == 6
    no_model = lint_tree(
        tmp_path / "b", rules, **{"isvc.yaml": OME_SERVICE, "rt.yaml": OME_RUNTIME}
    )
    assert no_model["isvc.yaml"].deployments == []
    assert any("llama-3-1-70b" in f.message for f in no_model["isvc.yaml"].diagnostics)
    assert errors(no_model["isvc.yaml"]) == []
    unnamed = OME_SERVICE.replace("  runtime: {name: vllm-llama-70b}\n", "")
    picked = lint_tree(tmp_path / "c", rules, **{"isvc.yaml": unnamed})["isvc.yaml"]
    [info] = picked.diagnostics
    assert info.code == "HBM014" and "names no runtime" in info.message
    lonely = lint_tree(tmp_path / "d", rules, **{"rt.yaml": OME_RUNTIME})["rt.yaml"]
    [info] = lonely.diagnostics
    assert info.code == "HBM014" and "template" in info.message


# ------------------------------------------------------------------------------------ dstack


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("H100:8", ("H100-SXM-80GB", None, 8)),
        ("A100:40GB", ("A100-SXM4-40GB", None, 1)),
        ("A100:80GB:2", ("A100-SXM4-80GB", None, 2)),
        ("A10G,A100:2", ("A10G-24GB", None, 2)),  # the least memory of the alternatives
        ("nvidia:L4:1..2", ("L4-24GB", None, 1)),  # the least count of a range
        ("80GB:2", (None, 80.0, 2)),
        ("24GB..40GB", (None, 24.0, 1)),
        ("{name: [H100, H200], count: 4}", ("H100-SXM-80GB", None, 4)),
    ],
)
def test_dstack_gpu_specs(tmp_path, rules, spec, expected):
    path = write(
        tmp_path,
        "svc.dstack.yml",
        f"""
        type: service
        commands: ["vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192"]
        resources:
          gpu: {spec}
        """,
    )
    result = lint_path(path, rules)
    [deployment] = (d.deployment for d in result.deployments)
    memory = deployment.gpu.memory.to("GiB").magnitude if deployment.gpu.memory else None
    assert (deployment.gpu.type, memory, deployment.gpu.count) == expected
    assert deployment.locations["gpu.count"].line == 4
    assert errors(result) == []


def test_dstack_70b_on_two_small_gpus_is_an_error_and_nodes_multiply(tmp_path, rules):
    path = write(
        tmp_path,
        "svc.dstack.yml",
        """
        type: task
        nodes: 2
        env:
          MODEL: meta-llama/Llama-3.1-70B-Instruct
        commands:
          - >-
            vllm serve $MODEL --tensor-parallel-size $DSTACK_GPUS_PER_NODE
            --pipeline-parallel-size $DSTACK_NODES_NUM
        resources:
          gpu: L4:2
        """,
    )
    result = lint_path(path, rules)
    [deployment] = (d.deployment for d in result.deployments)
    assert (deployment.parallel.tensor, deployment.parallel.pipeline) == (2, 2)
    assert deployment.gpu.count == 4  # TP 2 x PP 2 spans both nodes
    assert [f.code for f in result.diagnostics if f.severity is Severity.ERROR] == ["HBM101"]


# --------------------------------------------------------------- production-stack operator


def test_vllm_runtime_fields_become_the_operators_flags_at_their_lines(rules):
    result = lint_path(REAL / "production-stack-operator-vllmruntime.yaml", rules)
    llama, qwen = (d.deployment for d in result.deployments)
    text = (REAL / "production-stack-operator-vllmruntime.yaml").read_text().splitlines()
    assert llama.serving.max_model_len == 4096 and llama.serving.max_num_seqs == 32
    assert llama.serving.gpu_memory_utilization == 0.8
    assert llama.serving.chunked_prefill is False  # the operator writes --no-enable-...
    assert "maxModelLen: 4096" in text[llama.locations["serving.max_model_len"].line - 1]
    assert qwen.serving.kv_cache_dtype == "fp8"  # extraArgs, as written
    assert qwen.engine_version == "0.9.2"
    assert [label.value for label in qwen.gpu.labels] == ["NVIDIA-L40S"]
    [warning] = result.diagnostics  # the sample names no GPU type: say how to unblock
    assert warning.code == "HBM005" and warning.severity is Severity.WARNING


def test_vllm_runtime_tensor_parallel_above_its_gpus_is_an_error(tmp_path, rules):
    path = write(
        tmp_path,
        "vr.yaml",
        """
        apiVersion: production-stack.vllm.ai/v1alpha1
        kind: VLLMRuntime
        metadata: {name: tp4-on-one}
        spec:
          model: {modelURL: Qwen/Qwen2.5-7B-Instruct, maxModelLen: 8192}
          vllmConfig: {tensorParallelSize: 4}
          deploymentConfig:
            resources: {gpu: "1"}
            image: {name: "vllm/vllm-openai:v0.10.0"}
        """,
    )
    result = lint_path(
        path,
        rules,
    )
    found = [f for f in result.diagnostics if f.severity is Severity.ERROR]
    assert [f.code for f in found] == ["HBM007"]


# ------------------------------------------------------------------- llm-d multinode and DP


def test_llm_d_multinode_data_parallel_spans_the_workers_pods(rules):
    result = lint_path(REAL / "llm-d-modelservice-wide-ep-values.yaml", rules)
    decode, prefill = (d.deployment for d in result.deployments)
    # $DP_SIZE is parallelism.data; 2 pods (data / dataLocal) of 8 GPUs (filled in by the chart)
    assert (decode.parallel.data, decode.gpu.count, decode.parallel.expert) == (16, 16, True)
    # vllmServe: the chart writes --data-parallel-size from parallelism.data
    assert (prefill.parallel.data, prefill.gpu.count) == (8, 8)
    lines = (REAL / "llm-d-modelservice-wide-ep-values.yaml").read_text().splitlines()
    assert "data: 8" in lines[prefill.locations["parallel.data"].line - 1]
    assert result.diagnostics == []


def test_llm_d_data_parallel_above_the_pods_gpus_is_an_error(tmp_path, rules):
    path = write(
        tmp_path,
        "values.yaml",
        """
        modelArtifacts: {uri: hf://Qwen/Qwen2.5-7B-Instruct, name: qwen}
        decode:
          parallelism: {tensor: 2, data: 2}
          acceleratorTypes: {labelKey: nvidia.com/gpu.product, labelValues: [NVIDIA-L4]}
          containers:
            - name: vllm
              image: ghcr.io/llm-d/llm-d-cuda:v0.3.0
              modelCommand: vllmServe
              args: ["--max-model-len", "8192"]
              resources: {limits: {nvidia.com/gpu: "2"}}
        """,
    )
    result = lint_path(path, rules)
    # the chart keeps the explicit limit of 2, but vLLM needs TP 2 x DP 2 = 4 GPUs
    assert [f.code for f in result.diagnostics if f.severity is Severity.ERROR] == ["HBM007"]


def test_kaito_confidential_h100_vm_size_names_its_gpu(tmp_path, rules):
    path = write(
        tmp_path,
        "ws.yaml",
        """
        apiVersion: kaito.sh/v1beta1
        kind: Workspace
        metadata: {name: confidential}
        resource: {instanceType: Standard_NCC40ads_H100_v5}
        inference:
          preset: {name: phi-4}
        """,
    )
    result = lint_path(path, rules)
    [deployment] = result.deployments
    assert deployment.budget.resolved.gpu.name == "H100-NVL-94GB"
    assert deployment.deployment.gpu.count == 1


def test_kaito_on_a_nebius_platform_gets_its_gpu_but_no_guessed_count(tmp_path, rules):
    # Nebius names a platform (gpu-h100-sxm), whose presets carry 1 or 8 GPUs: the GPU type is
    # known, the count is not, so KAITO's tensor parallelism is not derived from it
    path = write(
        tmp_path,
        "ws.yaml",
        """
        apiVersion: kaito.sh/v1beta1
        kind: Workspace
        metadata: {name: on-nebius}
        resource: {instanceType: gpu-h100-sxm}
        inference:
          preset: {name: llama-3.1-8b-instruct}
        """,
    )
    result = lint_path(path, rules)
    [deployment] = result.deployments
    assert deployment.budget.resolved.gpu.name == "H100-SXM-80GB"
    assert errors(result) == []
