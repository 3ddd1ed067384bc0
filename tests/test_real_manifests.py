"""Manifests as people write them (tests/fixtures/real/, each naming the public pattern it
reproduces): hbmlint must find every engine deployment, read the model, TP/PP and GPU count the
engine would use, and raise no error the engine would not hit. docs/real-manifests.md lists the
patterns."""

from __future__ import annotations

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


def lint(name: str, rules) -> tuple[list[tuple], list]:
    """(name, engine, model, tensor, pipeline, GPUs) of each deployment, and every finding."""
    result = lint_file(REAL / name, name, rules)
    read = [
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
    return read, result.diagnostics


def errors(findings) -> list[str]:
    return [
        f"{f.code} line {f.span.line}: {f.message}"
        for f in findings
        if f.severity is Severity.ERROR
    ]


def line_of(name: str, needle: str) -> int:
    lines = (REAL / name).read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if needle in line)


def codes(findings, code: str) -> list:
    return [f for f in findings if f.code == code]


# fixture -> the deployments a correct reader finds: (name, engine, model, TP, PP, GPUs)
EXPECTED = {
    "lws-vllm-nnodes.yaml": [
        ("llama-70b-2node/leader", "vllm", "meta-llama/Llama-3.1-70B-Instruct", 4, 2, 8)
    ],
    "lws-sglang.yaml": [("qwen-sglang/leader", "sglang", "Qwen/Qwen2.5-7B-Instruct", 2, None, 2)],
    "vllm-docs-sh-c-secret-token.yaml": [
        ("mistral-7b", "vllm", "mistralai/Mistral-7B-Instruct-v0.3", None, None, 1)
    ],
    "vllm-image-args-served-names.yaml": [
        ("qwen-chat", "vllm", "Qwen/Qwen2.5-14B-Instruct", 2, None, 2),
        ("llama-positional", "vllm", "meta-llama/Llama-3.1-8B-Instruct", None, None, 1),
    ],
    "vllm-image-args-serve.yaml": [("gemma-serve", "vllm", "google/gemma-2-9b-it", None, None, 1)],
    "configmap-envfrom-model.yaml": [
        ("llm-envfrom", "vllm", "meta-llama/Llama-3.1-8B-Instruct", None, None, 1),
        ("llm-keyref", "vllm", "meta-llama/Llama-3.1-8B-Instruct", None, None, 1),
    ],
    "configmap-elsewhere.yaml": [],
    "k8s-args-envsubst-defaults.yaml": [
        # the defaults envsubst writes when the variables are unset: TP 1
        ("envsubst-style", "vllm", "Qwen/Qwen2.5-7B-Instruct", 1, None, 1)
    ],
    "helm-placeholder-one-field.yaml": [
        ("half-rendered", "vllm", "meta-llama/Llama-3.1-8B-Instruct", None, None, 1)
    ],
    "tgi-gke-env.yaml": [("tgi-gemma", "tgi", "google/gemma-2-9b-it", 2, None, 2)],
    "compose-vllm-defaults.yaml": [("vllm", "vllm", "google/gemma-2-9b-it", 2, None, 2)],
    "compose-dotenv/docker-compose.yaml": [
        ("chat", "vllm", "meta-llama/Llama-3.1-8B-Instruct", None, None, 1),
        ("tgi", "tgi", "Qwen/Qwen2.5-14B-Instruct", 2, None, 2),
        ("shell", "vllm", "Qwen/Qwen2.5-1.5B-Instruct", 1, None, 1),
    ],
    "gke-vllm-model-env.yaml": [("vllm-gemma", "vllm", "google/gemma-2-9b-it", 2, None, 2)],
    "vllm-config-file-and-new-switch.yaml": [
        ("new-switch-first", "vllm", "Qwen/Qwen3-8B", None, None, 1)
    ],
    # NVIDIA NIM (formats/nim.py): the model from the image, the backend from the env
    "nim-operator-multinode-deepseek-r1.yaml": [
        ("deepseek-r1", "sglang", "deepseek-ai/DeepSeek-R1", 8, 2, 16)
    ],
    "nim-llm-chart-values.yaml": [
        ("nim-llm", "trtllm", "meta-llama/Meta-Llama-3-8B-Instruct", None, None, 1)
    ],
    "nim-compose-rag.yaml": [
        (
            "nemollm-inference-one-gpu",
            "trtllm",
            "meta-llama/Meta-Llama-3-8B-Instruct",
            None,
            None,
            1,
        )
    ],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_deployments_and_their_models_are_read_with_no_false_error(name, rules):
    read, findings = lint(name, rules)
    assert read == EXPECTED[name]
    assert errors(findings) == []


def test_every_fixture_is_covered_by_a_test():
    from test_catalog_models_2026e import COVERED as CATALOG26E  # 2026 recipes' models
    from test_chart_values_unread import COVERED as CHART_VALUES  # chart values: render first
    from test_dynamo_trtllm_heredoc import COVERED as DYNAMO_HEREDOC  # a DGD script's config
    from test_engine_config_files import COVERED as CONFIG_FILES  # --config files' settings
    from test_engine_images_amd import COVERED as AMD_IMAGES  # ROCm images' releases
    from test_engine_images_ngc_months import COVERED as NGC_MONTHS  # NGC vLLM months
    from test_engine_images_releases import COVERED as IMAGES  # vendor and nightly images
    from test_engine_images_srt_slurm import COVERED as SLURM_IMAGES  # enroot, aliases
    from test_engine_images_vertex import COVERED as VERTEX_IMAGES  # dated Vertex builds
    from test_engine_not_read_session38 import COVERED as UNREAD38  # engines not read, said
    from test_formats_accelerators import COVERED as ACCELERATORS  # Gaudi, Ascend, Neuron...
    from test_formats_app_template import COVERED as APP_TEMPLATE  # bjw-s app-template
    from test_formats_embedded_values import COVERED as EMBEDDED  # GitOps-held chart values
    from test_formats_kthena import COVERED as KTHENA  # Kthena ModelBoosters
    from test_formats_llmaz import COVERED as LLMAZ  # llmaz Playgrounds and OpenModels
    from test_formats_orchestrators import COVERED as ORCHESTRATORS  # CRDs, KServe, KubeAI...
    from test_formats_orchestrators_real import COVERED as ROUND2  # their projects' own files
    from test_formats_real import COVERED  # SkyPilot, Ray, AIBrix, vLLM's chart
    from test_formats_shell import COVERED as SHELL  # launch scripts (sweep 9)
    from test_formats_spark_recipe import COVERED as SPARK_RECIPES  # DGX Spark recipes
    from test_formats_srt_slurm import COVERED as SRT_SLURM  # srt-slurm recipes
    from test_formats_systemd import COVERED as SYSTEMD  # systemd units
    from test_formats_truss import COVERED as TRUSS  # Baseten Truss config.yaml
    from test_gemma4_assistant_drafter import COVERED as GEMMA4_ASSISTANT  # MTP assistants
    from test_kustomize_json_patches import COVERED as KUSTOMIZE  # overlays' JSON patches
    from test_llmd_images import COVERED as LLMD_IMAGES  # llm-d's images' vLLM releases
    from test_llmisvc_baserefs import COVERED as BASEREFS  # LLMInferenceService presets
    from test_pipeline_stage_kv import COVERED as PP_STAGES  # KV of the binding PP stage
    from test_real_manifests_formats12 import COVERED as FORMATS12  # readers' gaps (session 11)
    from test_real_manifests_sweep6 import COVERED as SWEEP6  # repositories of sweep 6
    from test_real_manifests_sweep7 import COVERED as SWEEP7  # repositories of sweep 7
    from test_real_manifests_sweep8 import COVERED as SWEEP8  # repositories of sweep 8
    from test_real_manifests_sweep9 import COVERED as SWEEP9  # repositories of sweep 9
    from test_real_manifests_sweep10 import COVERED as SWEEP10  # repositories of sweep 10
    from test_real_manifests_sweep11 import COVERED as SWEEP11  # repositories of sweep 11
    from test_real_manifests_sweep12 import COVERED as SWEEP12  # repositories of sweep 12
    from test_real_manifests_sweep13 import COVERED as SWEEP13  # repositories of sweep 13
    from test_real_manifests_sweep14 import COVERED as SWEEP14  # repositories of sweep 14
    from test_real_manifests_sweep15 import COVERED as SWEEP15  # repositories of sweep 15
    from test_real_manifests_sweep16 import COVERED as SWEEP16  # repositories of sweep 16
    from test_real_manifests_sweep17 import COVERED as SWEEP17  # repositories of sweep 17
    from test_real_manifests_sweep18 import COVERED as SWEEP18  # repositories of sweep 18
    from test_real_manifests_sweep19 import COVERED as SWEEP19  # repositories of sweep 19
    from test_real_manifests_sweep20 import COVERED as SWEEP20  # repositories of sweep 20
    from test_real_manifests_sweep21 import COVERED as SWEEP21  # repositories of sweep 21
    from test_real_manifests_sweep22 import COVERED as SWEEP22  # repositories of sweep 22
    from test_real_manifests_sweep23 import COVERED as SWEEP23  # repositories of sweep 23
    from test_real_manifests_sweep24 import COVERED as SWEEP24  # repositories of sweep 24
    from test_real_manifests_sweep25 import COVERED as SWEEP25  # repositories of sweep 25
    from test_real_manifests_sweep26 import COVERED as SWEEP26  # repositories of sweep 26
    from test_real_manifests_sweep26b import COVERED as SWEEP26B  # speculative decoding, sweep 26
    from test_real_manifests_sweep26d import COVERED as SWEEP26D  # how GPUs are named (26 D)
    from test_real_manifests_sweep26e import COVERED as SWEEP26E  # sweep 26, part E
    from test_real_manifests_sweep26f import COVERED as SWEEP26F  # sweep 26, part F
    from test_real_manifests_warnaudit14 import COVERED as WARNINGS14  # warnings audit
    from test_shell_docker_entrypoint_env import COVERED as DOCKER_SHELL  # docker's env, shells
    from test_shell_function_library import COVERED as FUNCTIONS  # a sourced library
    from test_shell_scripts_session12 import COVERED as SHELL12  # a corpus of real scripts
    from test_silent_passes import COVERED as SILENT  # once "All clear", now said
    from test_tgi_gemma3_prefill import COVERED as TGI_GEMMA3  # Gemma 3's dense warm-up
    from test_tgi_nf4_prompt_limit import COVERED as TGI_NF4  # TGI 2.x warm-up, NF4 on load
    from test_trtllm_mamba_state import COVERED as TRTLLM_MAMBA  # TensorRT-LLM's Mamba cache

    tested = set(EXPECTED) | set(OTHER_TESTS) | COVERED | ORCHESTRATORS | ROUND2 | SWEEP6
    tested |= SWEEP7 | SWEEP8 | SWEEP9 | SWEEP10 | SWEEP11 | SHELL | KUSTOMIZE | BASEREFS
    tested |= SRT_SLURM | CHART_VALUES | SWEEP12 | SWEEP13 | AMD_IMAGES | FORMATS12 | SHELL12
    tested |= TGI_NF4 | WARNINGS14 | SWEEP14 | ACCELERATORS | SWEEP15 | SWEEP16 | SYSTEMD | SWEEP17
    tested |= IMAGES | CONFIG_FILES | SLURM_IMAGES | VERTEX_IMAGES | NGC_MONTHS | LLMAZ | KTHENA
    tested |= APP_TEMPLATE | SWEEP18 | TRUSS | SWEEP19 | SPARK_RECIPES | GEMMA4_ASSISTANT
    tested |= SILENT | SWEEP20 | EMBEDDED | SWEEP21 | SWEEP22 | SWEEP23
    tested |= FUNCTIONS | SWEEP24 | DOCKER_SHELL | TRTLLM_MAMBA | PP_STAGES | SWEEP25
    tested |= DYNAMO_HEREDOC | UNREAD38 | SWEEP26 | TGI_GEMMA3 | SWEEP26E | SWEEP26D | SWEEP26F
    tested |= SWEEP26B | CATALOG26E | LLMD_IMAGES
    # the GPU-label and local-path fixtures are tested in test_real_manifests_gpus.py
    gpus = (Path(__file__).parent / "test_real_manifests_gpus.py").read_text(encoding="utf-8")
    tested |= {p.name for p in REAL.glob("*.y*ml") if f'"{p.name}"' in gpus}
    fixtures = [*REAL.rglob("*.y*ml"), *REAL.rglob("*.sh")]
    assert {str(p.relative_to(REAL)) for p in fixtures} <= tested


OTHER_TESTS = (
    "yaml-error-not-template.yaml",
    "vllm-max-model-len-auto.yaml",  # test_max_model_len_auto.py
    "vllm-kv-cache-memory-bytes-gb10.yaml",  # test_kv_cache_memory_bytes.py
    "vllm-language-model-only-l40s.yaml",  # test_language_model_only.py
    "shell-sglang-epd-qwen3-vl.sh",  # test_language_model_only.py
    "nim-operator-nimservice-llama.yaml",  # test_formats_nim.py (an error NIM would hit)
    "nim-statefulset-nemotron-49b.yaml",  # test_formats_nim.py (an error NIM would hit)
    "vllm-no-chunked-prefill-l4.yaml",  # test_chunked_prefill_off.py
    "vllm-performance-mode-throughput-l4.yaml",  # test_performance_mode.py
    "vllm-swap-space-latest.yaml",  # test_removed_flags.py
    "shell-vllm-kv-cache-dtype-fp16.sh",  # test_engine_value_refusals.py
    "shell-vllm-load-format-gguf.sh",  # test_vllm_deprecated_quantization.py
    "sglang-defaults-l4-0521.yaml",  # test_sglang_defaults_0520.py
)


def test_served_model_names_are_never_the_model(rules):
    read, _ = lint("vllm-image-args-served-names.yaml", rules)
    assert all(model not in ("qwen", "chat-default", "llama3") for _, _, model, *_ in read)


def test_lws_group_size_is_known_and_runtime_variables_raise_nothing(rules):
    _, findings = lint("lws-vllm-nnodes.yaml", rules)
    assert codes(findings, "HBM011") == []  # LWS_GROUP_SIZE = size; the others feed no sizing


def test_serve_repeated_on_the_server_image_is_a_warning_at_that_word(rules):
    _, findings = lint("vllm-image-args-serve.yaml", rules)
    [warning] = codes(findings, "HBM013")
    assert warning.severity is Severity.WARNING
    assert warning.span.line == line_of("vllm-image-args-serve.yaml", 'args: ["serve", "google')


def test_configmap_in_another_file_is_an_info_naming_its_source(rules):
    _, findings = lint("configmap-elsewhere.yaml", rules)
    [info] = codes(findings, "HBM011")
    assert info.severity is Severity.INFO
    assert "ConfigMap 'model-settings', key 'model'" in info.message
    assert "not set" not in info.message


def test_configmap_in_the_same_file_gives_the_flags_their_values(rules):
    result = lint_file(REAL / "configmap-envfrom-model.yaml", "x", rules)
    for deployment in result.deployments:
        # a finding about the model points at the flag that takes it
        line = deployment.deployment.locations["model.name"].line
        assert (
            "$(LLM_MODEL_ID)"
            in (REAL / "configmap-envfrom-model.yaml").read_text().splitlines()[line - 1]
            or "$(MODEL)"
            in (REAL / "configmap-envfrom-model.yaml").read_text().splitlines()[line - 1]
        )
    [envfrom] = [d.deployment for d in result.deployments if d.deployment.name == "llm-envfrom"]
    assert envfrom.serving.max_model_len == 16384  # $(MAX_LEN) from the same ConfigMap


def test_envsubst_defaults_are_infos_for_their_flags_only(rules):
    _, findings = lint("k8s-args-envsubst-defaults.yaml", rules)
    infos = codes(findings, "HBM011")
    name = "k8s-args-envsubst-defaults.yaml"
    assert sorted(f.span.line for f in infos) == [
        line_of(name, '"--tensor-parallel-size='),
        line_of(name, '"--max-model-len='),
    ]
    assert all("${" in f.message and f.severity is Severity.INFO for f in infos)


def test_one_helm_placeholder_leaves_the_rest_of_the_document_read(rules):
    result = lint_file(REAL / "helm-placeholder-one-field.yaml", "x", rules)
    [info] = codes(result.diagnostics, "HBM011")
    assert "gpu-memory-utilization" in info.message
    assert info.span.line == line_of("helm-placeholder-one-field.yaml", "{{ .Values.gpuMemory")
    assert codes(result.diagnostics, "HBM012") == []
    [deployment] = result.deployments
    assert deployment.deployment.serving.max_model_len == 8192
    assert deployment.budget is not None


def test_a_yaml_error_is_located_even_with_braces_elsewhere(rules):
    result = lint_file(REAL / "yaml-error-not-template.yaml", "x", rules)
    [error] = result.diagnostics
    assert error.code == "HBM002"
    assert error.span.line == line_of("yaml-error-not-template.yaml", "\t")


def test_tgi_model_from_a_configmap_elsewhere_says_so(rules):
    _, findings = lint("tgi-gke-env.yaml", rules)
    [info] = codes(findings, "HBM011")
    assert "ConfigMap 'tgi-config'" in info.message
    assert info.span.line == line_of("tgi-gke-env.yaml", "$(LLM_MODEL_ID)")


def test_compose_defaults_apply_and_an_unset_variable_is_an_info(rules):
    read, findings = lint("compose-vllm-defaults.yaml", rules)
    [deployment] = lint_file(REAL / "compose-vllm-defaults.yaml", "x", rules).deployments
    serving = deployment.deployment.serving
    # ${GPU_MEMORY_UTILIZATION:-0.9}, ${MAX_MODEL_LEN-8192}: the defaults compose uses
    assert (serving.gpu_memory_utilization, serving.max_model_len) == (0.9, 8192)
    # device_ids ['0,1'] are two GPUs
    assert read[0][-1] == 2
    # the SGLang service's model is ${SGLANG_MODEL}, set nowhere: an info, no deployment
    [info] = codes(findings, "HBM011")
    assert info.severity is Severity.INFO
    assert info.span.line == line_of("compose-vllm-defaults.yaml", "--model-path ${SGLANG_MODEL}")
    assert "SGLANG_MODEL" in info.message and ".env" in info.message


def test_compose_reads_dotenv_env_file_and_dollar_escapes(rules):
    result = lint_file(REAL / "compose-dotenv" / "docker-compose.yaml", "x", rules)
    by_name = {d.deployment.name: d.deployment for d in result.deployments}
    assert by_name["chat"].serving.max_model_len == 16384  # .env, inline comment dropped
    assert by_name["tgi"].serving.max_model_len == 8192  # env_file, quotes dropped
    assert by_name["shell"].serving.max_model_len == 4096
    assert [f for f in result.diagnostics if f.code.startswith("HBM01")] == []


def test_a_float32_checkpoint_is_budgeted_in_the_dtype_auto_loads(rules):
    [deployment] = lint_file(REAL / "gke-vllm-model-env.yaml", "x", rules).deployments
    assert deployment.budget.settings.dtype == "bfloat16"
    assert "float32" in deployment.budget.assumed["dtype"]


def test_a_model_in_a_config_file_is_an_info_not_a_missing_model(rules):
    _, findings = lint("vllm-config-file-and-new-switch.yaml", rules)
    [info] = codes(findings, "HBM011")
    assert "--config /etc/vllm/config.yaml" in info.message
    assert codes(findings, "HBM003") == []
