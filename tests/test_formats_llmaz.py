"""llmaz (InftyAI/llmaz): a Playground is read with the OpenModels it claims and the
BackendRuntime it names (formats/llmaz.py). The fixtures reproduce the patterns of llmaz's own
docs/examples (speculative decoding with roles, backendName sglang, flavors with limits and
node selectors, models applied from a file of their own); before this reader they passed in
silence ("All clear"), as no word in them names an engine."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_formats_orchestrators import codes, errors, read, write

from hbmlint.diagnostics import Severity
from hbmlint.lint import lint_file, lint_paths
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
COVERED = {
    "llmaz-speculative-vllm.yaml",
    "llmaz-sglang-l4-too-small.yaml",
    "llmaz-models-elsewhere/models.yaml",
    "llmaz-models-elsewhere/playground.yaml",
    "llmaz-first-api-model-kind.yaml",
    "llmaz-backend-resources-gpu.yaml",
    "llmaz-multimodelsclaims-backendconfig.yaml",
}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def test_speculative_playground_reads_target_draft_gpu_and_release(rules):
    path = REAL / "llmaz-speculative-vllm.yaml"
    result = lint_file(path, path.name, rules)
    assert read(result) == [
        ("vllm-speculator", "vllm", "meta-llama/Llama-3.1-8B-Instruct", 1, None, 1)
    ]
    [item] = result.deployments
    deployment = item.deployment
    assert deployment.speculative.model.name == "meta-llama/Llama-3.2-1B-Instruct"
    assert deployment.speculative.num_speculative_tokens == 5  # the chart's config
    assert deployment.serving.max_model_len == 8192  # the Playground's own args
    assert item.budget.resolved.gpu.name == "L4-24GB"  # the flavor's node selector
    assert deployment.engine_version == "0.7.3"  # backendRuntimeConfig.version
    assert errors(result) == []
    # the draft's findings point at the line where the Playground claims the draft
    draft_line = line_of(path, "- name: llama3-1b")
    assert {f.span.line for f in codes(result, "HBM201")} == {draft_line}


def test_a_model_too_big_for_the_flavor_is_an_error_at_its_claim(rules):
    path = REAL / "llmaz-sglang-l4-too-small.yaml"
    result = lint_file(path, path.name, rules)
    # the Playground's inferenceFlavors picks the second flavor: 2 x L4, not 8 x H100
    assert read(result) == [("qwen2--5-72b", "sglang", "Qwen/Qwen2.5-72B-Instruct", 2, None, 2)]
    [error] = [f for f in result.diagnostics if f.severity is Severity.ERROR]
    assert error.code == "HBM101"
    assert error.span.line == line_of(path, "modelName: qwen2--5-72b")
    assert "L4-24GB" in error.message


def test_an_openmodel_in_another_file_of_the_run_is_found(rules):
    folder = REAL / "llmaz-models-elsewhere"
    results = {Path(r.display).name: r for r in lint_paths([str(folder)], rules)}
    models, playgrounds = results["models.yaml"], results["playground.yaml"]
    assert models.diagnostics == [] and models.deployments == []  # read with its Playground
    assert read(playgrounds) == [("qwen2--5-7b", "vllm", "Qwen/Qwen2.5-7B-Instruct", None, None, 1)]
    [item] = playgrounds.deployments
    assert item.budget.resolved.gpu.name == "T4-16GB"
    # a 7B model in 16-bit does not fit a T4's 16 GB with any engine setting
    # (vLLM 0.34 loads the weights into the 14.24 GiB free at start, then has no room left)
    errors = [f.code for f in playgrounds.diagnostics if f.severity is Severity.ERROR]
    assert errors in (["HBM101"], ["HBM102"])
    infos = codes(playgrounds, "HBM014")
    text = (folder / "playground.yaml").read_text()
    missing = next(f for f in infos if "qwen3-32b" in f.message)
    assert missing.severity is Severity.INFO
    assert text.splitlines()[missing.span.line - 1].strip() == "modelName: qwen3-32b"
    unused = next(f for f in infos if "vllm-custom" in f.message)
    assert "template" in unused.message


def test_the_playground_alone_names_a_model_it_cannot_find(rules):
    path = REAL / "llmaz-models-elsewhere" / "playground.yaml"
    result = lint_file(path, path.name, rules)
    assert read(result) == []
    assert {f.code for f in result.diagnostics} == {"HBM014"}
    assert all(f.severity is Severity.INFO for f in result.diagnostics)


def test_a_runtime_in_the_same_file_gives_command_args_and_release(tmp_path, rules):
    path = write(
        tmp_path,
        "custom.yaml",
        """
        apiVersion: inference.llmaz.io/v1alpha1
        kind: BackendRuntime
        metadata:
          name: vllm-tuned
        spec:
          command: [python3, -m, vllm.entrypoints.openai.api_server]
          image: vllm/vllm-openai
          version: v0.10.1
          envs:
            - name: VLLM_USE_V1
              value: "1"
          recommendedConfigs:
            - name: default
              args: [--model, "{{.ModelPath}}", --tensor-parallel-size, "2",
                     --max-model-len, "16384"]
        ---
        apiVersion: llmaz.io/v1alpha1
        kind: OpenModel
        metadata:
          name: llama3-8b
        spec:
          familyName: llama3
          source: {modelHub: {modelID: meta-llama/Llama-3.1-8B-Instruct}}
          inferenceConfig:
            flavors:
              - name: a100
                limits: {nvidia.com/gpu: 2}
                nodeSelector: {cloud.google.com/gke-accelerator: nvidia-tesla-a100}
        ---
        apiVersion: inference.llmaz.io/v1alpha1
        kind: Playground
        metadata:
          name: llama3-8b
        spec:
          modelClaim: {modelName: llama3-8b}
          backendRuntimeConfig:
            backendName: vllm-tuned
            args: [--max-model-len, "8192"]
        """,
    )
    result = lint_file(path, path.name, rules)
    assert read(result) == [("llama3-8b", "vllm", "meta-llama/Llama-3.1-8B-Instruct", 2, None, 2)]
    [item] = result.deployments
    assert item.deployment.engine_version == "0.10.1"
    assert item.deployment.serving.max_model_len == 8192  # the Playground's args come last
    assert errors(result) == []
    assert codes(result, "HBM014") == []  # the runtime is used, not a template alone


@pytest.mark.parametrize("backend", ["llamacpp", "ollama"])
def test_engines_hbmlint_does_not_budget_are_an_info_not_silence(tmp_path, rules, backend):
    path = write(
        tmp_path,
        "cpp.yaml",
        f"""
        apiVersion: llmaz.io/v1alpha1
        kind: OpenModel
        metadata: {{name: qwen2-gguf}}
        spec:
          familyName: qwen2
          source:
            modelHub: {{modelID: Qwen/Qwen2-0.5B-Instruct-GGUF, filename: q5_k_m.gguf}}
        ---
        apiVersion: inference.llmaz.io/v1alpha1
        kind: Playground
        metadata: {{name: qwen2-gguf}}
        spec:
          modelClaim: {{modelName: qwen2-gguf}}
          backendRuntimeConfig: {{backendName: {backend}}}
        """,
    )
    result = lint_file(path, path.name, rules)
    assert result.deployments == []
    [info] = result.diagnostics
    assert (info.code, info.severity) == ("HBM014", Severity.INFO)
    assert info.span.line == line_of(path, f"backendName: {backend}")


def test_the_runtime_names_no_config_the_playground_needs(tmp_path, rules):
    """SGLang's runtime in llmaz's chart has only a default config: a Playground with a draft
    asks for speculative-decoding, which llmaz cannot find; an info, not a guess."""
    path = write(
        tmp_path,
        "spec.yaml",
        """
        apiVersion: llmaz.io/v1alpha1
        kind: OpenModel
        metadata: {name: target}
        spec: {familyName: x, source: {modelHub: {modelID: meta-llama/Llama-3.1-8B-Instruct}}}
        ---
        apiVersion: llmaz.io/v1alpha1
        kind: OpenModel
        metadata: {name: draft}
        spec: {familyName: x, source: {modelHub: {modelID: meta-llama/Llama-3.2-1B-Instruct}}}
        ---
        apiVersion: inference.llmaz.io/v1alpha1
        kind: Playground
        metadata: {name: sglang-spec}
        spec:
          modelClaims:
            models: [{name: target, role: main}, {name: draft, role: draft}]
          backendRuntimeConfig: {backendName: sglang}
        """,
    )
    result = lint_file(path, path.name, rules)
    assert result.deployments == []
    [info] = result.diagnostics
    assert info.code == "HBM014" and "speculative-decoding" in info.message


def test_formats_shows_the_models_read_with_their_playground(cli):
    path = REAL / "llmaz-speculative-vllm.yaml"
    out = cli("formats", path).output
    assert out.count("a model, read with the Playground that claims it") == 2
    # where the Playground claims it (the OpenModel may be in another file)
    model_line = line_of(path, "- name: llama3-8b")
    [row] = [line for line in out.splitlines() if line.strip().startswith("model.name")]
    assert row.split()[1:] == ["meta-llama/Llama-3.1-8B-Instruct", "line", str(model_line)]


# llmaz's earlier APIs, still in its README history and in tutorials: the fixture -> what is read
EARLIER_APIS = {
    # kind Model, dataSource.modelID, inferenceFlavors with requests
    "llmaz-first-api-model-kind.yaml": ("llama3-8b", "meta-llama/Llama-3.1-8B-Instruct", 1),
    # an OpenModel with no flavors: the GPU from the Playground's backend resources
    "llmaz-backend-resources-gpu.yaml": ("qwen2-1-5b", "Qwen/Qwen2.5-7B-Instruct", 1),
    # multiModelsClaims' modelNames (target, draft) and backendConfig
    "llmaz-multimodelsclaims-backendconfig.yaml": (
        "spec-old",
        "meta-llama/Llama-3.1-8B-Instruct",
        1,
    ),
}


@pytest.mark.parametrize("name", sorted(EARLIER_APIS))
def test_earlier_llmaz_apis_are_read(name, rules):
    path = REAL / name
    result = lint_file(path, path.name, rules)
    [item] = result.deployments
    deployment = item.deployment
    expected = EARLIER_APIS[name]
    assert (deployment.name, deployment.model.name, deployment.gpu.count) == expected
    assert deployment.engine == "vllm"


def test_a_16_bit_8b_model_on_a_t4_is_an_error_whichever_api(cli):
    """Llama 3.1 8B and Qwen2.5 7B in 16-bit are ~15 GiB and ~14 GiB of weights: a T4's
    14.74 GiB cannot hold them at any gpu-memory-utilization."""
    for name in ("llmaz-first-api-model-kind.yaml", "llmaz-backend-resources-gpu.yaml"):
        path = REAL / name
        found = cli("--format", "json", "--gpu", "T4", path).json()
        # (the weights fit what vLLM 0.34 finds free at start with no room left, or do not)
        [error] = [f for f in found if f["severity"] == "error"]
        assert error["code"] in ("HBM101", "HBM102")
        line = path.read_text().splitlines()[error["line"] - 1]
        if error["code"] == "HBM101":
            assert line.strip().startswith("modelName:")  # at the Playground's claim
        else:  # the length, the model's own: at the model's name
            assert line.strip().startswith(("modelName:", "name:"))


def test_earlier_speculative_pair_reads_the_draft_and_its_release(rules):
    path = REAL / "llmaz-multimodelsclaims-backendconfig.yaml"
    result = lint_file(path, path.name, rules)
    [item] = result.deployments
    assert item.deployment.speculative.model.name == "meta-llama/Llama-3.2-1B-Instruct"
    assert item.deployment.engine_version == "0.6.0"  # backendConfig.version
    assert item.budget.resolved.gpu.name == "L4-24GB"  # the flavor's node selector
    assert errors(result) == []
