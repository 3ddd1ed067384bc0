"""resolve: what hbmlint cannot identify in a manifest written for an engine is a warning that
says how to unblock it; local-path models are read from the hints the manifest holds; the GPU
count is split the way the engine splits it."""

from __future__ import annotations

import pytest
from format_helpers import budgets, findings, line_of, native, run, write

LLAMA_8B = "meta-llama/Llama-3.1-8B-Instruct"

DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm
{metadata}spec:
  template:
    metadata:
      labels:
        app: llm
{pod_labels}    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-L4
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.11.0
        args: ["--model", "{model}", "--max-model-len", "8192"{extra}]
        resources:
          limits:
            nvidia.com/gpu: "{gpus}"
"""


def deployment(tmp_path, model, *, gpus=1, extra="", metadata="", pod_labels="", name="d.yaml"):
    text = DEPLOYMENT.format(
        model=model, gpus=gpus, extra=extra, metadata=metadata, pod_labels=pod_labels
    )
    return write(tmp_path, name, text)


def by_code(path, code, *options):
    return [f for f in findings(path, *options) if f["code"] == code]


def test_an_unknown_local_path_is_a_warning_that_says_how_to_unblock_it(tmp_path):
    path = deployment(tmp_path, "/models/my-finetune")
    [finding] = by_code(path, "HBM006")
    assert finding["severity"] == "warning"
    assert finding["line"] == line_of(path, "/models/my-finetune")
    assert "model-paths" in finding["message"] and "hbmlint.io/model" in finding["message"]
    assert run(path).exit_code == 0  # not a CI failure


def test_a_storage_uri_is_named_as_one_not_as_a_local_path(tmp_path):
    # The pattern of vllm-project/semantic-router deploy/kserve/inference-examples: a KServe
    # storageUri of a Red Hat "modelcar" OCI image, which no Hugging Face id names.
    uri = "oci://quay.io/redhat-ai-services/modelcar-catalog:granite-3.2-8b-instruct"
    [finding] = by_code(deployment(tmp_path, uri), "HBM006")
    assert finding["severity"] == "warning"
    assert "is a storage URI (oci://) hbmlint cannot identify" in finding["message"]
    assert "local path" not in finding["message"]


def test_a_near_name_the_hub_cannot_confirm_is_a_warning_with_the_catalog_name(tmp_path):
    """Offline, a name near a catalog id may be a typo or a real sibling (gemma-3-4b-pt beside
    gemma-3-4b-it, granite-3.1-1b beside granite-3.3-8b): hbmlint cannot tell, so it warns and
    names the catalog model; only the Hub saying the name does not exist makes it an error
    (tests/test_hub.py)."""
    path = native(tmp_path, "gpu: {type: L4}\nmodel: {name: meta-llama/Llama-3.1-8B-Instrct}\n")
    [finding] = by_code(path, "HBM015")
    assert finding["severity"] == "warning"
    assert "Did you mean meta-llama/Llama-3.1-8B-Instruct" in finding["message"]
    assert not by_code(path, "HBM006")
    assert run(path).exit_code == 0


@pytest.mark.parametrize(
    "model, why",
    [
        # a Hugging Face cache mounted from a PVC: the cache directory names the model
        ("/data/hub/models--meta-llama--Llama-3.1-8B-Instruct/snapshots/0e9e39f2", "cache"),
        # the model downloaded under its own name
        ("/models/Llama-3.1-8B-Instruct", "catalog model"),
        ("/mnt/models/meta-llama/Llama-3.1-8B-Instruct/", "last two parts"),
    ],
)
def test_a_local_path_is_read_from_the_hint_it_holds(tmp_path, model, why):
    path = deployment(tmp_path, model)
    [budget] = budgets(path)
    assert why in budget["assumed"]["model"] and LLAMA_8B in budget["assumed"]["model"]
    assert by_code(path, "HBM006") == []
    twin = deployment(tmp_path, LLAMA_8B, name="twin.yaml")
    [expected] = budgets(twin)
    budget["assumed"].pop("model")
    assert budget == expected


def test_a_model_label_names_the_model_of_a_local_path(tmp_path):
    labels = "        ai.gke.io/model: Llama-3-1-8B-Instruct\n"  # no dots in a label value
    path = deployment(tmp_path, "/data/model", pod_labels=labels)
    [budget] = budgets(path)
    assert "ai.gke.io/model" in budget["assumed"]["model"]
    assert LLAMA_8B in budget["assumed"]["model"]


def test_the_hbmlint_annotation_names_the_model(tmp_path):
    metadata = f"  annotations:\n    hbmlint.io/model: {LLAMA_8B}\n"
    path = deployment(tmp_path, "/models/v3-final", metadata=metadata)
    [budget] = budgets(path)
    assert "hbmlint.io/model" in budget["assumed"]["model"]


def test_the_configuration_maps_a_model_path(tmp_path):
    path = deployment(tmp_path, "/models/team-a/chat-v3")
    (tmp_path / ".hbmlint.yaml").write_text(f"model-paths:\n  /models/team-a: {LLAMA_8B}\n")
    [budget] = budgets(path, "--config", tmp_path / ".hbmlint.yaml")
    assert "model-paths" in budget["assumed"]["model"]
    assert by_code(path, "HBM006", "--config", tmp_path / ".hbmlint.yaml") == []


def test_an_unknown_drafter_warns_and_the_target_is_still_budgeted(tmp_path):
    config = '{\\"model\\": \\"/models/drafter\\", \\"num_speculative_tokens\\": 4}'
    spec = f', "--speculative-config", "{config}"'
    path = deployment(tmp_path, LLAMA_8B, extra=spec)
    [finding] = by_code(path, "HBM006")
    assert finding["severity"] == "warning" and "drafter" in finding["message"]
    [budget] = budgets(path)
    assert budget["draft_weights_bytes"] == 0
    assert "not counted" in budget["assumed"]["speculative"]


def test_gpus_the_engine_does_not_use_are_a_warning_and_the_default_tp_is_budgeted(tmp_path):
    path = deployment(tmp_path, LLAMA_8B, gpus=2)  # no --tensor-parallel-size: vLLM uses 1
    [finding] = by_code(path, "HBM007")
    assert finding["severity"] == "warning" and "1 idle" in finding["message"]
    assert finding["line"] == line_of(path, "nvidia.com/gpu:")
    assert "--tensor-parallel-size 2" in " ".join(f["message"] for f in finding["fixes"])
    [budget] = budgets(path)
    assert budget["tensor_parallel"] == 1 and "tensor_parallel" in budget["assumed"]


def test_fewer_gpus_than_tp_is_an_error(tmp_path):
    path = deployment(tmp_path, LLAMA_8B, gpus=2, extra=', "--tensor-parallel-size", "4"')
    [finding] = by_code(path, "HBM007")
    assert finding["severity"] == "error" and "cannot start" in finding["message"]


def test_data_parallel_ranks_use_their_share_of_the_gpus(tmp_path):
    extra = ', "-tp", "2", "--data-parallel-size", "2"'
    path = deployment(tmp_path, LLAMA_8B, gpus=4, extra=extra)
    assert by_code(path, "HBM007") == []
    [budget] = budgets(path)
    assert budget["tensor_parallel"] == 2 and budget["gpu_count"] == 2


PREFILL_DECODE = """
apiVersion: serving.kserve.io/v1alpha2
kind: LLMInferenceService
metadata:
  name: pd
spec:
  model:
    uri: pvc://models/finetune-v2
  template:
    nodeSelector:
      cloud.google.com/gke-accelerator: nvidia-h100-80gb
    containers:
      - name: main
        resources:
          limits: {nvidia.com/gpu: "1"}
  prefill:
    template:
      nodeSelector:
        cloud.google.com/gke-accelerator: nvidia-h100-80gb
      containers:
        - name: main
          resources:
            limits: {nvidia.com/gpu: "1"}
"""


def test_the_same_finding_is_reported_once_per_place(tmp_path):
    # the decode and the prefill pool serve the same model: one warning at its line, not two
    path = write(tmp_path, "pd.yaml", PREFILL_DECODE)
    [finding] = by_code(path, "HBM006")
    assert finding["line"] == line_of(path, "uri: pvc://")
    assert finding["severity"] == "warning"


def test_zero_gpus_requested_is_a_warning_not_a_refusal(tmp_path):
    """nvidia.com/gpu: 0 gets no GPU from the device plugin, but on nodes whose default runtime
    is NVIDIA's the CUDA images' NVIDIA_VISIBLE_DEVICES=all exposes them all anyway: the
    engine is not certain to fail, so hbmlint warns and still budgets the GPU it uses."""
    path = tmp_path / "zero.yaml"
    path.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: z}\nspec:\n  template:\n"
        "    spec:\n      nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}\n"
        "      containers:\n        - name: vllm\n          image: vllm/vllm-openai:v0.11.0\n"
        '          args: ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", '
        '"8192"]\n'
        "          resources: {limits: {nvidia.com/gpu: 0}}\n"
    )
    [finding] = by_code(path, "HBM007")
    assert finding["severity"] == "warning"
    assert finding["message"].startswith("0 GPUs requested but tensor x pipeline parallelism")
    assert run(path).exit_code == 0
