"""NVIDIA NIM (formats/nim.py): a NIM image in a Kubernetes workload, the NIM Operator's
NIMService and the nim-llm chart's values are read, budgeted as the profile NIM would pick, and
never pass in silence. Fixtures in tests/fixtures/real/nim-*.yaml name their sources."""

from __future__ import annotations

from pathlib import Path

from format_helpers import budgets, findings, run, write

from hbmlint.formats.nim import hf_id, nim_image, read_profile

REAL = Path(__file__).parent / "fixtures" / "real"
SERVICE = REAL / "nim-operator-nimservice-llama.yaml"
MULTINODE = REAL / "nim-operator-multinode-deepseek-r1.yaml"
STATEFULSET = REAL / "nim-statefulset-nemotron-49b.yaml"
CHART = REAL / "nim-llm-chart-values.yaml"
COMPOSE = REAL / "nim-compose-rag.yaml"


def line_of(path: Path, needle: str, occurrence: int = 1) -> int:
    lines = path.read_text().splitlines()
    return [i for i, line in enumerate(lines, 1) if needle in line][occurrence - 1]


def column_of(path: Path, line: int, needle: str) -> int:
    return path.read_text().splitlines()[line - 1].index(needle) + 1


def test_a_nimservice_is_read_and_budgeted_at_the_least_any_profile_needs():
    [one_l4, _] = budgets(SERVICE)
    assert (one_l4["engine"], one_l4["gpu"], one_l4["gpu_count"]) == ("trtllm", "L4-24GB", 1)
    assumed = one_l4["assumed"]
    # the profile is not pinned: 4 bits a weight, and the budget says how to pin one
    assert "4 bits a weight" in assumed["quantization"]
    assert "NIM_MODEL_PROFILE" in assumed["quantization"]
    assert "least strict" in assumed["engine"]
    assert "NIM 1.8" in assumed["engine_version"]
    # no NIM_MAX_MODEL_LEN: one KV block, and an info at the image that names the variable
    assert one_l4["max_model_len"] == 16
    info = [f for f in findings(SERVICE) if f["deployment"] == "meta-llama3-8b-instruct"]
    assert [(f["code"], f["severity"], f["line"]) for f in info] == [
        ("HBM011", "info", line_of(SERVICE, "repository: nvcr.io/nim/meta/llama-3.1-8b"))
    ]
    assert "NIM_MAX_MODEL_LEN" in info[0]["message"]


def test_an_image_name_maps_to_its_hugging_face_model():
    result = run("budget", SERVICE)
    assert "meta-llama/Llama-3.1-8B-Instruct (int4)" in result.output
    assert hf_id("meta", "llama3-8b-instruct") == "meta-llama/Meta-Llama-3-8B-Instruct"
    assert hf_id("mistralai", "mistral-7b-instruct-v03") == "mistralai/Mistral-7B-Instruct-v0.3"
    assert hf_id("meta", "llama-3.3-70b-instruct") == "meta-llama/Llama-3.3-70B-Instruct"
    assert hf_id("nvidia", "nv-embedqa-e5-v5") is None
    assert nim_image("nvcr.io/nim/meta/llama-3.1-8b-instruct:1.3.3") == (
        "meta",
        "llama-3.1-8b-instruct",
        "1.3.3",
    )
    assert nim_image("vllm/vllm-openai:v0.10.0") is None


def test_nemotron_3_nims_name_their_checkpoints():
    """NVIDIA's RAG blueprint runs nvcr.io/nim/nvidia/nemotron-3-super-120b-a12b:1.8.0 in
    compose (NVIDIA-AI-Blueprints/rag@deploy/compose/nims.yaml): the image names the Nemotron 3
    Super checkpoint, whose upload is named differently; it was HBM014 (not checked)."""
    assert hf_id("nvidia", "nemotron-3-super-120b-a12b") == (
        "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16"
    )
    assert hf_id("nvidia", "nemotron-3-nano-30b-a3b") == (
        "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"
    )


def test_a_model_no_profile_can_hold_is_an_error_at_its_image():
    # 70B on one L4: even at 4 bits a weight (37 GiB) no profile fits, whatever NIM picks:
    # the weights' error (TensorRT-LLM's memory rule: the card is the limit), at the image
    [error] = [f for f in findings(SERVICE) if f["severity"] == "error"]
    line = line_of(SERVICE, "nvcr.io/nim/meta/llama-3.1-70b-instruct")
    assert (error["code"], error["deployment"], error["line"]) == (
        "HBM101",
        "llama-70b-on-one-l4",
        line,
    )
    assert "weights need 37.07 GiB per GPU" in error["message"]
    assert error["fixes"][0]["message"].startswith("Raise tensor parallelism to 2")
    result = run(SERVICE)
    assert result.exit_code == 1
    assert f"nim-operator-nimservice-llama.yaml:{line}:{error['column']}: error HBM101" in (
        result.output
    )


def test_the_same_model_on_a_card_a_profile_may_fit_raises_no_error():
    service = SERVICE.read_text().replace("NVIDIA-L4", "NVIDIA-H100-80GB-HBM3")
    result = run("--format", "json", "--stdin-filename", "service.yaml", "-", stdin=service)
    assert '"code": "HBM011"' in result.output
    assert '"severity": "error"' not in result.output


def test_a_pinned_profile_is_budgeted_as_its_backend_and_precision():
    [pinned] = budgets(STATEFULSET)
    assert (pinned["engine"], pinned["gpu"], pinned["tensor_parallel"]) == ("vllm", "L4-24GB", 1)
    assert pinned["assumed"]["engine"] == "vllm, bf16: the pinned profile vllm-bf16-tp1"
    assert pinned["weights_bytes"] > 14 * 2**30  # bf16 (16 GB), not the 4-bit bound
    # vLLM refuses a 128k sequence its KV cache cannot hold: an error at NIM_MAX_MODEL_LEN
    [error] = [f for f in findings(STATEFULSET) if f["severity"] == "error"]
    assert (error["code"], error["line"]) == ("HBM102", line_of(STATEFULSET, '"131072"'))


def test_an_image_whose_model_is_unknown_is_an_info_that_says_how_to_name_it():
    [info] = [f for f in findings(STATEFULSET) if f["deployment"] == "aiq-nim-llm"]
    line = line_of(STATEFULSET, "image: nvcr.io/nim/nvidia/llama-3.3-nemotron")
    assert (info["code"], info["severity"], info["line"]) == ("HBM014", "info", line)
    assert info["column"] == column_of(STATEFULSET, line, "nvcr.io")
    assert "hbmlint.io/model" in info["fixes"][0]["message"]


def test_the_annotation_names_the_model_of_an_image_hbmlint_does_not_know(tmp_path):
    path = write(
        tmp_path,
        "nim.yaml",
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: custom
          annotations:
            hbmlint.io/model: meta-llama/Llama-3.1-8B-Instruct
        spec:
          template:
            spec:
              containers:
              - name: nim
                image: nvcr.io/nim/acme/our-finetune:1.0
                env:
                - {name: NIM_MAX_MODEL_LEN, value: "8192"}
                resources: {limits: {nvidia.com/gpu: 1}}
        """,
    )
    [budget] = budgets(path, "--gpu", "L4")
    assert budget["max_model_len"] == 8192
    assert findings(path, "--gpu", "L4") == []


def test_the_multi_llm_container_takes_its_model_from_the_env(tmp_path):
    path = write(
        tmp_path,
        "nim.yaml",
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: multi}
        spec:
          template:
            spec:
              containers:
              - name: nim
                image: nvcr.io/nim/nvidia/llm-nim:1.12
                env:
                - {name: NIM_MODEL_NAME, value: "hf://Qwen/Qwen2.5-7B-Instruct"}
                - {name: NIM_MAX_MODEL_LEN, value: "32768"}
                resources: {limits: {nvidia.com/gpu: 1}}
              - name: local
                image: nvcr.io/nim/nvidia/llm-nim:1.12
                env:
                - {name: NIM_MODEL_NAME, value: /models/my-model}
                resources: {limits: {nvidia.com/gpu: 1}}
        """,
    )
    result = run("budget", "--gpu", "L4", path)
    assert "Qwen/Qwen2.5-7B-Instruct (int4)" in result.output
    [info] = findings(path, "--gpu", "L4")
    assert (info["code"], info["deployment"]) == ("HBM014", "multi/local")
    assert "/models/my-model" in info["message"]


def test_a_multi_node_sglang_service_spans_its_pipeline_stages():
    [budget] = budgets(MULTINODE, "--gpu", "H100")
    assert (budget["engine"], budget["gpu_count"]) == ("sglang", 16)
    assert (budget["tensor_parallel"], budget["pipeline_parallel"]) == (8, 2)
    assert [f["severity"] for f in findings(MULTINODE, "--gpu", "H100")] == ["info"]


def test_chart_values_with_a_profile_id_say_the_id_cannot_be_read():
    infos = findings(CHART)
    line = line_of(CHART, "751382df")
    assert [(f["code"], f["line"]) for f in infos] == [("HBM011", line)]
    assert "profile id" in infos[0]["message"]
    assert "name" in infos[0]["fixes"][0]["message"]
    [budget] = budgets(CHART)
    assert (budget["gpu"], budget["max_model_len"]) == ("A10G-24GB", 8192)


def test_profile_names_are_read_and_ids_are_not():
    assert read_profile("tensorrt_llm-h100-fp8-tp2-pp1-throughput") == {
        "backend": "trtllm",
        "precision": "fp8",
        "tp": 2,
        "pp": 1,
    }
    assert read_profile("vllm-bf16-tp4-pp1-lora") == {
        "backend": "vllm",
        "precision": "bf16",
        "tp": 4,
        "pp": 1,
    }
    assert read_profile("sglang-h100-bf16-tp8-pp2")["pp"] == 2
    assert read_profile("751382df4272eafc83f541f364d61b35aed9cce8c7b0c869269cea5a366cd08c") is None


def test_a_nim_deployment_no_longer_passes_in_silence(tmp_path):
    path = write(
        tmp_path,
        "nim.yaml",
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: embed}
        spec:
          template:
            spec:
              containers:
              - name: nim
                image: nvcr.io/nim/nvidia/nv-embedqa-e5-v5:1.0.1
                resources: {limits: {nvidia.com/gpu: 1}}
        """,
    )
    result = run("--fail-on", "info", path)
    assert "All clear" not in result.output
    assert "HBM014" in result.output and "not checked" in result.output
    assert "read as nim" in run("formats", path).output


def test_compose_nims_are_read_and_an_unknown_gpu_count_is_an_info_not_a_guess():
    found = findings(COMPOSE, "--gpu", "L4")
    count_line = line_of(COMPOSE, "count: ${INFERENCE_GPU_COUNT")
    embed_line = line_of(COMPOSE, "image: nvcr.io/nim/nvidia/nv-embedqa")
    assert [(f["code"], f["deployment"], f["line"], f["column"]) for f in found] == [
        ("HBM011", "nemollm-inference", count_line, column_of(COMPOSE, count_line, "${")),
        ("HBM014", "nemollm-embedding", embed_line, column_of(COMPOSE, embed_line, "nvcr")),
    ]
    assert "not budgeted" in found[0]["message"]
    assert "annotation `hbmlint.io/model" not in found[1]["fixes"][0]["message"]
    [budget] = budgets(COMPOSE, "--gpu", "L4")
    assert (budget["gpu_count"], budget["max_model_len"]) == (1, 8192)


def test_a_kserve_predictor_running_a_nim_image_is_read(tmp_path):
    path = write(
        tmp_path,
        "isvc.yaml",
        """
        apiVersion: serving.kserve.io/v1beta1
        kind: InferenceService
        metadata: {name: llama}
        spec:
          predictor:
            nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}
            containers:
            - name: kserve-container
              image: nvcr.io/nim/meta/llama-3.1-70b-instruct:1.3.3
              env:
              - {name: NIM_MAX_MODEL_LEN, value: "4096"}
              resources: {limits: {nvidia.com/gpu: 1}}
        """,
    )
    [error] = findings(path)
    assert (error["code"], error["severity"], error["deployment"]) == ("HBM101", "error", "llama")


def test_an_unpinned_profile_is_budgeted_with_the_smallest_kv_cache_any_profile_keeps(tmp_path):
    """Llama 3.1 8B at 131,072 tokens on one L4: with a 16-bit KV cache no profile would hold
    one sequence, but an FP8 profile holds it (about 220k tokens), so NIM may well start: no
    error, and the budget says it assumed the one-byte cache."""
    path = write(
        tmp_path,
        "nim.yaml",
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: llama}
        spec:
          template:
            spec:
              nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}
              containers:
              - name: nim
                image: nvcr.io/nim/meta/llama-3.1-8b-instruct:1.3.3
                env:
                - {name: NIM_MAX_MODEL_LEN, value: "131072"}
                resources: {limits: {nvidia.com/gpu: 1}}
        """,
    )
    assert [f for f in findings(path) if f["severity"] == "error"] == []
    [budget] = budgets(path)
    assert "fp8" in budget["assumed"]["kv_cache_dtype"]
    assert "NIM_MODEL_PROFILE" in budget["assumed"]["kv_cache_dtype"]
