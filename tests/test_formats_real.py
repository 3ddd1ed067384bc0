"""Real serving manifests in the formats people run engines with (SkyPilot, KubeRay, Ray Serve
LLM, AIBrix, vLLM's Helm chart): each fixture under tests/fixtures/real/ reproduces a public
pattern (its source is named in its first lines) and is checked for what a correct reader finds:
the deployments, the model, tensor/pipeline parallelism, GPU type and count, and no error the
engine would not raise. docs/real-manifests.md lists the patterns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from format_helpers import line_of, run, write
from helpers import REPO

from hbmlint.lint import lint_file
from hbmlint.rules import load_rules

REAL = REPO / "tests" / "fixtures" / "real"


def read(path: Path, *options: str) -> tuple[list, list]:
    """The deployments hbmlint reads from ``path`` and its findings (`--format json`)."""
    rules, _ = load_rules()
    result = lint_file(path, str(path), rules)
    found = json.loads(run("--format", "json", "--fail-on", "info", *options, path).output)
    return [r.deployment for r in result.deployments], found


def budgets(path: Path, *options: str) -> dict[str, dict]:
    out = run("budget", "--format", "json", *options, path).output
    return {item["name"]: item for item in json.loads(out)}


# fixture -> {deployment name: (engine, model, GPU, GPU count, TP, PP)}
EXPECTED = {
    "skypilot-vllm-alternatives.sky.yaml": {
        # {H200:8, H100:8, B200:8}: budget on the smallest, 8 of them; TP from
        # $SKYPILOT_NUM_GPUS_PER_NODE
        "skypilot-vllm-alternatives.sky": (
            "vllm",
            "meta-llama/Llama-3.3-70B-Instruct",
            "H100-SXM-80GB",
            8,
            8,
            1,
        ),
    },
    "skypilot-vllm-multinode.sky.yaml": {
        # TP 8 per node x PP over num_nodes 2: one engine on both nodes' 16 GPUs
        "llama-405b-two-nodes": (
            "vllm",
            "meta-llama/Llama-3.1-405B-Instruct-FP8",
            "H100-SXM-80GB",
            16,
            8,
            2,
        ),
    },
    "skypilot-vllm-mixed-counts.sky.yaml": {
        # counts differ: the least HBM in all is A100 40 GB x 4 (158 GiB, against 158.3 for
        # A100-80GB x 2 and 177 for L4 x 8), with TP = its 4 GPUs
        "skypilot-vllm-mixed-counts.sky": (
            "vllm",
            "meta-llama/Llama-3.1-70B-Instruct",
            "A100-SXM4-40GB",
            4,
            4,
            1,
        ),
    },
    "skypilot-openai-api-server.yaml": {
        "skypilot-openai-api-server": (
            "vllm",
            "Qwen/Qwen2.5-7B-Instruct",
            "L4-24GB",
            1,
            1,
            1,
        ),
    },
    "skypilot-sglang-any-of.sky.yaml": {
        "skypilot-sglang-any-of.sky": ("sglang", "Qwen/Qwen3-32B", "L40S-48GB", 4, 4, 1),
    },
    "kuberay-rayservice-llm-serve.yaml": {
        # one replica is one GPU (TP x PP = 1); the worker's 4 GPUs hold up to 4 replicas
        "qwen-serve-llm": ("vllm", "Qwen/Qwen2.5-7B-Instruct", "L4-24GB", 1, 1, 1),
    },
    "kuberay-rayservice-tp-pp.yaml": {
        "llama-70b": ("vllm", "meta-llama/Llama-3.1-70B-Instruct", "A100-SXM4-80GB", 8, 4, 2),
    },
    "aibrix-rayclusterfleet.yaml": {
        # TP 2 over Ray: the head's GPU and the worker's
        "qwen-coder-7b": ("vllm", "Qwen/Qwen2.5-Coder-7B-Instruct", "L4-24GB", 2, 2, 1),
    },
    "ray-serve-llm-config.yaml": {
        "ray-serve-llm-config/qwen-small": (
            "vllm",
            "Qwen/Qwen2.5-1.5B-Instruct",
            "A10G-24GB",
            1,
            1,
            1,
        ),
        "ray-serve-llm-config/mistral-7b": (
            "vllm",
            "mistralai/Mistral-7B-Instruct-v0.3",
            "A10G-24GB",
            2,
            2,
            1,
        ),
    },
    # a prefill/decode application: one server of each, read from prefill_config and
    # decode_config (was "not a manifest hbmlint reads", silent)
    "ray-serve-llm-pd.yaml": {
        "ray-serve-llm-pd/gptoss/prefill": (
            "vllm",
            "openai/gpt-oss-120b",
            "H100-SXM-80GB",
            4,
            4,
            1,
        ),
        "ray-serve-llm-pd/gptoss/decode": (
            "vllm",
            "openai/gpt-oss-120b",
            "H100-SXM-80GB",
            4,
            4,
            1,
        ),
    },
    "vllm-chart-values.yaml": {
        # gpuModels [L40S, A100-80GB]: the one with less memory
        "vllm-chart-values": ("vllm", "Qwen/Qwen3-8B", "L40S-48GB", 1, 1, 1),
    },
}


# findings a fixture is written to carry: skypilot's multinode recipe installs the newest vLLM
# ("vllm>=0.10.0"), which refuses Meta's fbgemm_fp8 405B export without
# --allow-deprecated-quantization (test_vllm_deprecated_quantization.py)
EXPECTED_FINDINGS = {"skypilot-vllm-multinode.sky.yaml": ["HBM004"]}

# every fixture this file checks (test_real_manifests.py checks that none goes untested)
COVERED = set(EXPECTED) | {
    "kuberay-rayservice-custom-app.yaml",
    "vllm-chart-default-gpu.yaml",
    "skypilot-gpt-oss-default-length.sky.yaml",
}


@pytest.mark.parametrize("fixture", sorted(EXPECTED))
def test_real_pattern_is_read_right(fixture):
    path = REAL / fixture
    assert "Pattern:" in path.read_text().splitlines()[0]  # each names the source it follows
    deployments, found = read(path)
    expected = EXPECTED[fixture]
    assert {d.name: d.model.name for d in deployments} == {n: e[1] for n, e in expected.items()}
    made = budgets(path)
    for name, (engine, _, gpu, count, tp, pp) in expected.items():
        got = made[name]
        assert (got["engine"], got["gpu"], got["gpu_count"]) == (engine, gpu, count), name
        assert (got["tensor_parallel"], got["pipeline_parallel"]) == (tp, pp), name
    assert [f for f in found if f["severity"] == "error"] == []
    assert [f["code"] for f in found] == EXPECTED_FINDINGS.get(fixture, [])


def test_skypilot_fields_are_located_in_the_task_file():
    path = REAL / "skypilot-vllm-multinode.sky.yaml"
    (deployment,), _ = read(path)
    assert deployment.location("model.name").line == line_of(path, "vllm serve $MODEL_NAME")
    assert deployment.location("parallel.pipeline").line == line_of(
        path, "--pipeline-parallel-size"
    )
    assert deployment.location("gpu.type").line == line_of(path, "accelerators: H100:8")
    alternatives = REAL / "skypilot-vllm-alternatives.sky.yaml"
    (deployment,), _ = read(alternatives)
    assert deployment.engine_version == "0.10.1"  # pinned in setup
    assert deployment.location("gpu.type").line == line_of(alternatives, "accelerators:")


def test_ray_serve_llm_fields_are_located_inside_serve_config_v2():
    """serveConfigV2 is a string holding YAML: its fields point at their own lines."""
    path = REAL / "kuberay-rayservice-tp-pp.yaml"
    (deployment,), _ = read(path)
    source = line_of(path, "model_source: meta-llama")
    assert deployment.location("model.name").line == source
    text = path.read_text().splitlines()[source - 1]
    assert deployment.location("model.name").column == text.index("meta-llama") + 1
    assert deployment.location("parallel.tensor").line == line_of(path, "tensor_parallel_size")
    assert deployment.location("gpu.type").line == line_of(path, "accelerator_type: A100-80G")


def test_custom_ray_serve_app_is_said_to_be_unread_not_passed():
    path = REAL / "kuberay-rayservice-custom-app.yaml"
    deployments, found = read(path)
    assert deployments == []
    assert [(f["code"], f["severity"], f["line"]) for f in found] == [
        ("HBM014", "info", line_of(path, "import_path: serve:model"))
    ]


def test_vllm_chart_default_values_read_the_model_path_and_gpu_placeholder():
    """The chart as shipped: the model on the PVC (/data/), gpuModels at TYPE_GPU_USED, which
    names no GPU, so --gpu gives it; the model path is for the resolver to identify."""
    path = REAL / "vllm-chart-default-gpu.yaml"
    (deployment,), _ = read(path)
    assert deployment.model.name == "/data/"
    assert deployment.model.dtype == "bfloat16"
    assert deployment.gpu.type is None and deployment.gpu.count == 1
    assert deployment.serving.enforce_eager is True
    _, found = read(path)
    assert {(f["code"], f["severity"]) for f in found} == {
        ("HBM005", "warning"),  # no GPU named: --gpu unblocks it
        ("HBM006", "warning"),  # a local path: model-paths unblocks it
    }
    _, found = read(path, "--gpu", "L4")
    assert [(f["code"], f["severity"]) for f in found] == [("HBM006", "warning")]


def test_formats_command_names_each_new_format():
    for fixture, name in (
        ("skypilot-vllm-alternatives.sky.yaml", "skypilot"),
        ("kuberay-rayservice-llm-serve.yaml", "ray"),
        ("aibrix-rayclusterfleet.yaml", "ray"),
        ("ray-serve-llm-config.yaml", "ray-serve-llm"),
        ("vllm-chart-values.yaml", "vllm-helm-chart"),
    ):
        out = run("formats", REAL / fixture).output
        assert f"read as {name}" in out, out


# --- the edges, inline ----------------------------------------------------------------------


def test_skypilot_env_passed_on_the_command_line_is_an_info_not_an_error(tmp_path):
    path = write(
        tmp_path,
        "task.yaml",
        """
        envs:
          MODEL_NAME: null  # sky launch --env MODEL_NAME=...
        resources:
          accelerators: L4:1
        run: |
          vllm serve $MODEL_NAME --max-model-len 8192
        """,
    )
    deployments, found = read(path)
    assert deployments == []
    assert [(f["code"], f["severity"]) for f in found] == [("HBM011", "info")]


def test_skypilot_parallelism_beyond_every_node_is_an_error_at_its_line(tmp_path):
    path = write(
        tmp_path,
        "task.yaml",
        """
        resources:
          accelerators: A100-80GB:4
        run: |
          vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 8
        """,
    )
    _, found = read(path)
    assert [(f["code"], f["severity"], f["line"]) for f in found] == [("HBM007", "error", 2)]


def test_skypilot_fraction_of_a_gpu_and_yaml_set_of_alternatives(tmp_path):
    path = write(
        tmp_path,
        "task.yaml",
        """
        resources:
          accelerators: {A10G, L4, A100}
        run: vllm serve Qwen/Qwen2.5-1.5B-Instruct --max-model-len 4096
        """,
    )
    (deployment,), found = read(path)
    # L4 reports 22.16 GiB, A10G 22.18 GiB, A100 39.56 GiB: the budget must hold on the L4
    assert deployment.gpu.type == "L4" and deployment.gpu.count == 1
    assert found == []
    # and the budget says which of the alternatives it was made for, and why
    assert deployment.assumed["gpu"].startswith(
        "L4, the alternative with the least memory of A10G, L4, A100: SkyPilot may place"
    )
    shared = write(
        tmp_path,
        "shared.yaml",
        """
        resources: {accelerators: "T4:0.5"}
        run: vllm serve Qwen/Qwen2.5-0.5B-Instruct --max-model-len 4096
        """,
    )
    (deployment,), _ = read(shared)
    assert deployment.gpu.type == "T4" and deployment.gpu.count is None


def test_ray_serve_llm_needing_more_gpus_than_the_cluster_has_is_an_error(tmp_path):
    path = write(
        tmp_path,
        "rayservice.yaml",
        """
        apiVersion: ray.io/v1
        kind: RayService
        metadata: {name: too-big}
        spec:
          serveConfigV2: |
            applications:
            - name: llm
              import_path: ray.serve.llm:build_openai_app
              args:
                llm_configs:
                - model_loading_config:
                    model_id: m
                    model_source: meta-llama/Llama-3.1-70B-Instruct
                  accelerator_type: H100
                  engine_kwargs: {tensor_parallel_size: 8}
          rayClusterConfig:
            headGroupSpec:
              template:
                spec:
                  containers: [{name: head, image: rayproject/ray-llm:2.50.1}]
            workerGroupSpecs:
            - groupName: gpu
              replicas: 1
              template:
                spec:
                  containers:
                  - name: worker
                    image: rayproject/ray-llm:2.50.1
                    resources: {limits: {nvidia.com/gpu: 4}}
        """,
    )
    _, found = read(path)
    assert [(f["code"], f["severity"], f["line"]) for f in found] == [
        ("HBM007", "error", line_of(path, "nvidia.com/gpu: 4"))
    ]
    # with the autoscaler allowed two workers, the cluster can hold the replica
    scaled = path.read_text().replace("replicas: 1\n", "replicas: 1\n      maxReplicas: 2\n")
    scaled = scaled.replace(
        "rayClusterConfig:\n", "rayClusterConfig:\n    enableInTreeAutoscaling: true\n"
    )
    path.write_text(scaled)
    assert read(path)[1] == []


def test_ray_job_entrypoint_runs_the_engine(tmp_path):
    path = write(
        tmp_path,
        "rayjob.yaml",
        """
        apiVersion: ray.io/v1
        kind: RayJob
        metadata: {name: batch}
        spec:
          entrypoint: vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2 --max-model-len 8192
          rayClusterSpec:
            headGroupSpec:
              template:
                spec:
                  nodeSelector: {nvidia.com/gpu.product: NVIDIA-L40S}
                  containers:
                  - name: head
                    image: rayproject/ray-llm:2.50.1
                    resources: {limits: {nvidia.com/gpu: 2}}
        """,
    )
    (deployment,), found = read(path)
    assert (deployment.model.name, deployment.parallel.tensor) == ("Qwen/Qwen3-8B", 2)
    assert deployment.gpu.count == 2
    assert budgets(path)["batch"]["gpu"] == "L40S-48GB"  # from the head's node label
    assert found == []


def test_broken_yaml_inside_serve_config_v2_is_located_in_the_outer_file(tmp_path):
    path = write(
        tmp_path,
        "rayservice.yaml",
        """
        apiVersion: ray.io/v1
        kind: RayService
        metadata: {name: broken}
        spec:
          serveConfigV2: |
            applications:
            - name: llm
              args: llm_configs: []
        """,
    )
    _, found = read(path)
    assert [(f["code"], f["line"]) for f in found][:1] == [("HBM002", 8)]


def test_ray_clusters_that_run_no_engine_are_not_ours(tmp_path):
    path = write(
        tmp_path,
        "raycluster.yaml",
        """
        apiVersion: ray.io/v1
        kind: RayCluster
        metadata: {name: training}
        spec:
          headGroupSpec:
            template:
              spec:
                containers: [{name: head, image: rayproject/ray:2.50.1}]
        """,
    )
    assert read(path) == ([], [])


def test_a_file_that_runs_an_engine_in_a_format_hbmlint_does_not_read_gets_an_info(tmp_path):
    path = write(
        tmp_path,
        "workflow.yml",
        """
        # a comment about vllm serve is not a mention
        jobs:
          smoke:
            steps:
              - run: pip install vllm && vllm serve Qwen/Qwen3-8B --port 8000
        """,
    )
    deployments, found = read(path)
    assert deployments == []
    assert [(f["code"], f["severity"], f["line"], f["column"]) for f in found] == [
        ("HBM014", "info", 5, 34)
    ]
    out = run(path).output
    assert "in 1 file, 0 deployments" in out
    described = run("formats", path).output
    assert "line 5: 'vllm serve' here runs an inference engine" in described
    quiet = write(tmp_path, "other.yaml", "# vllm serve, only in a comment\nname: x\n")
    result = run(quiet)
    assert result.exit_code == 0
    assert "no findings in 1 file, 0 deployments" in result.output  # never "0 files"


def test_a_recognised_task_whose_engine_line_is_not_read_is_not_passed_in_silence(tmp_path):
    """A task whose engine line hbmlint does not read (here the engine's image started on a
    cluster with `kubectl run`) is recognised, and the file still gets its info."""
    path = write(
        tmp_path,
        "tgi.yaml",
        """
        resources:
          accelerators: A100:1
        run: |
          kubectl run tgi --image=ghcr.io/huggingface/text-generation-inference \\
            -- --model-id lmsys/vicuna-13b-v1.5
        """,
    )
    assert "read as skypilot" in run("formats", path).output
    deployments, found = read(path)
    assert deployments == []
    assert [(f["code"], f["line"]) for f in found] == [("HBM014", line_of(path, "kubectl run"))]


def test_odd_shapes_in_ray_documents_are_not_a_crash(tmp_path):
    """Found by mutating the fixtures: a mapping where a string belongs is read past."""
    odd_kind = write(tmp_path, "kind.yaml", "apiVersion: ray.io/v1\nkind: {a: b}\nspec: {}\n")
    assert read(odd_kind) == ([], [])
    odd_config = write(
        tmp_path,
        "serve.yaml",
        """
        applications:
        - name: llm
          import_path: ray.serve.llm:build_openai_app
          args:
            llm_configs:
            - model_loading_config: [not, a, mapping]
              engine_kwargs: {max_model_len: 4096}
        """,
    )
    deployments, found = read(odd_config)
    assert deployments == [] and [f for f in found if f["severity"] == "error"] == []


def test_redirections_are_not_words_of_the_engine_command(tmp_path):
    # The pattern of skypilot-org/skypilot llm/dbrx/dbrx.yaml: the server's output sent to a log
    # (`... 2>&1 | tee api_server.log &`); `2>` was read as a positional model, which wins over
    # --model. Other redirections (`> log`, `&>/dev/null`, `2>err`) hide nothing either.
    path = write(
        tmp_path,
        "task.yaml",
        """
        envs:
          MODEL_NAME: Qwen/Qwen2.5-7B-Instruct
        resources:
          accelerators: L4:2
        run: |
          python -u -m vllm.entrypoints.openai.api_server \\
            --model $MODEL_NAME \\
            --tensor-parallel-size $SKYPILOT_NUM_GPUS_PER_NODE \\
            --max-model-len 8192 \\
            2>&1 | tee api_server.log &
        """,
    )
    deployments, found = read(path)
    assert [(d.model.name, d.parallel.tensor) for d in deployments] == [
        ("Qwen/Qwen2.5-7B-Instruct", 2)
    ]
    assert found == []
    # words after a redirection's file are still the command's
    later = write(
        tmp_path,
        "later.yaml",
        """
        resources:
          accelerators: L4:1
        run: vllm serve Qwen/Qwen2.5-7B-Instruct >/tmp/log 2>err --max-model-len 4096 &>/dev/null
        """,
    )
    deployments, found = read(later)
    assert [(d.model.name, d.serving.max_model_len) for d in deployments] == [
        ("Qwen/Qwen2.5-7B-Instruct", 4096)
    ]
    assert found == []


def test_tgi_named_in_prose_or_a_bucket_is_not_an_engine(tmp_path):
    # The pattern of huggingface/text-generation-inference .github/: an issue form that
    # describes the project, a package name, a CI image and a bucket named after it. None runs
    # the engine; TGI's name counts only as its image (.../text-generation-inference[:tag]).
    path = write(
        tmp_path,
        "forms.yml",
        """
        description: Submit a bug report to help us improve text-generation-inference
        package: text-generation-inference
        images: docker.io/huggingface/text-generation-inference-ci
        results: s3://text-generation-inference-ci/benchmarks/ci.parquet
        """,
    )
    assert read(path) == ([], [])
    image = write(
        tmp_path,
        "values.yaml",
        "tgi:\n  repository: ghcr.io/huggingface/text-generation-inference\n",
    )
    assert [f["code"] for f in read(image)[1]] == ["HBM014"]


def test_a_kustomization_that_names_an_engine_says_to_lint_what_it_builds(tmp_path):
    # The pattern of GoogleCloudPlatform/accelerated-platforms online-inference-gpu/vllm/*/
    # kustomization.yaml: an overlay that sets the engine image and generates the ConfigMap the
    # base Deployment's $(MODEL_ID) flags read. Its output is what can be checked.
    path = write(
        tmp_path,
        "kustomization.yaml",
        """
        apiVersion: kustomize.config.k8s.io/v1beta1
        kind: Kustomization
        configMapGenerator:
          - name: runtime
            envs: [runtime.env]
        images:
          - name: replaced-by-kustomize
            newName: vllm/vllm-openai
            newTag: v0.10.1
        resources: [../base]
        """,
    )
    _, found = read(path)
    line = line_of(path, "newName: vllm/vllm-openai")
    assert [(f["code"], f["severity"], f["line"]) for f in found] == [("HBM014", "info", line)]
    assert "kubectl kustomize DIR | hbmlint -" in found[0]["fixes"][0]["message"]


def test_an_engine_image_run_with_docker_in_a_script_is_read(tmp_path):
    # The pattern of skypilot-org/skypilot examples/serve/huggingface-tgi.yaml and tgi_coder.yaml:
    # the task's run script starts the engine's image with `docker run [options] IMAGE ARGS`;
    # the ARGS go to the image's entrypoint (TGI's launcher, vLLM's server).
    tgi = write(
        tmp_path,
        "tgi.yaml",
        """
        envs:
          MODEL_ID: Qwen/Qwen2.5-7B-Instruct
        resources:
          accelerators: A100:1
        run: |
          docker run --gpus all --shm-size 1g -p 8080:80 -e NUM_SHARD=1 \\
            -v ~/data:/data ghcr.io/huggingface/text-generation-inference \\
            --model-id $MODEL_ID --max-total-tokens 8192
        """,
    )
    vllm_run = write(
        tmp_path,
        "vllm.yaml",
        """
        resources:
          accelerators: L4:2
        run: |
          podman run --device nvidia.com/gpu=all --ipc=host -p 8000:8000 \\
            vllm/vllm-openai:v0.10.1 --model Qwen/Qwen2.5-7B-Instruct \\
            --tensor-parallel-size 2 --max-model-len 8192
        """,
    )
    read_back = []
    for path in (tgi, vllm_run):
        deployments, found = read(path)
        assert [f for f in found if f["severity"] == "error"] == []
        read_back += [(d.engine, d.model.name, d.parallel.tensor) for d in deployments]
    assert read_back == [
        ("tgi", "Qwen/Qwen2.5-7B-Instruct", 1),
        ("vllm", "Qwen/Qwen2.5-7B-Instruct", 2),
    ]


def test_a_skypilot_finding_about_a_default_points_at_the_engine_line():
    """No --max-model-len: the KV error is about the engine's command, not the `run:` key
    (a run script holds other lines: activating a venv, downloads)."""
    path = REAL / "skypilot-gpt-oss-default-length.sky.yaml"
    _, found = read(path)
    [short] = [f for f in found if f["code"] == "HBM102"]
    assert short["severity"] == "error" and "H100" in short["message"]
    assert short["line"] == line_of(path, "  vllm serve $MODEL_NAME \\")
