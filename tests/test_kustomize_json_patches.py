"""A kustomize overlay's JSON 6902 patches (llm-d's guides, opendatahub-io/llm-d-playbooks) change
the model, the flags or the GPUs of a base: the overlay is read as kustomize builds it, a patched
value reported at the patch's line; where hbmlint cannot build it, a finding at the patch says
what was not checked rather than the base passing for the overlay."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file, lint_paths
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
LLMISVC = REAL / "kustomize-json-patch-overlay"
ARGS = REAL / "kustomize-json-patch-args"

COVERED = {
    "kustomize-json-patch-overlay/base/kustomization.yaml",
    "kustomize-json-patch-overlay/base/llm-infra.yaml",
    "kustomize-json-patch-overlay/qwen/kustomization.yaml",
    "kustomize-json-patch-args/base/kustomization.yaml",
    "kustomize-json-patch-args/base/decode.yaml",
    "kustomize-json-patch-args/h100/kustomization.yaml",
    "kustomize-json-patch-args/h100/model-patch.yaml",
    "kustomize-json-patch-runtime/base/kustomization.yaml",
    "kustomize-json-patch-runtime/base/inferenceservice.yaml",
    "kustomize-json-patch-runtime/base/servingruntime.yaml",
    "kustomize-json-patch-runtime/dev/kustomization.yaml",
    "kustomize-json-patch-runtime/staging/kustomization.yaml",
}
RUNTIME = REAL / "kustomize-json-patch-runtime"


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(path: Path, rules, gpu: str | None = None):
    return lint_file(path, path.name, rules, LintOptions(default_gpu=gpu))


def test_an_overlay_that_fills_in_a_blank_model_is_budgeted_with_it(rules):
    result = lint(LLMISVC / "qwen" / "kustomization.yaml", rules)
    assert result.diagnostics == []
    [read] = result.deployments
    assert read.deployment.name == "qwen"  # the patched metadata.name
    assert read.deployment.model.name == "Qwen/Qwen3-8B"
    assert read.deployment.location("model").line == 20  # the patch's uri value
    assert read.deployment.serving.max_model_len == 16000  # the base's VLLM_ADDITIONAL_ARGS
    assert read.budget is not None and read.budget.resolved.gpu.name.startswith("L4")


def test_the_base_alone_is_still_a_note(rules):
    [note] = lint(LLMISVC / "base" / "llm-infra.yaml", rules).diagnostics
    assert (note.code, note.severity) == ("HBM014", Severity.INFO)
    assert "left blank" in note.message


def test_a_finding_on_a_patched_value_points_at_the_patch(rules):
    result = lint(ARGS / "h100" / "kustomization.yaml", rules)
    # the overlay's model (70B, from the patch file) on the one H100 its patched node selector
    # asks for: the weights alone do not fit, at the patchesJson6902 entry that names the file
    [error] = result.diagnostics
    assert (error.code, error.severity, error.span.line) == ("HBM101", Severity.ERROR, 32)
    [read] = result.deployments
    deployment = read.deployment
    assert deployment.model.name == "meta-llama/Llama-3.1-70B-Instruct"
    assert deployment.serving.max_model_len == 131072  # args/2 replaced
    assert deployment.location("gpu.type").line == 17  # the patched node selector's value


def test_the_base_of_that_overlay_is_clean_on_its_own(rules):
    result = lint(ARGS / "base" / "decode.yaml", rules)
    assert result.diagnostics == []
    assert result.deployments[0].deployment.model.name == "Qwen/Qwen3-8B"


def _overlay(tmp_path: Path, text: str) -> Path:
    shutil.copytree(ARGS / "base", tmp_path / "base")
    (tmp_path / "overlay").mkdir()
    path = tmp_path / "overlay" / "kustomization.yaml"
    path.write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
        "resources:\n  - ../base\n" + text
    )
    return path


def test_a_patch_of_nothing_hbmlint_reads_adds_no_copy_of_the_base(rules, tmp_path):
    path = _overlay(
        tmp_path,
        "patches:\n  - target: {kind: Deployment, name: decode}\n    patch: |-\n"
        "      - op: add\n        path: /spec/template/spec/containers/0/env/-\n"
        "        value: {name: NCCL_IB_HCA, value: ibp}\n",
    )
    result = lint(path, rules, "H100")
    assert result.deployments == [] and result.diagnostics == []


def test_an_overlay_hbmlint_cannot_build_is_a_warning_at_the_patch(rules, tmp_path):
    # a component (which hbmlint does not apply) besides the JSON patch of the model
    path = _overlay(
        tmp_path,
        "components:\n  - ../gpu-component\n"
        "patches:\n  - target: {kind: Deployment, name: decode}\n    patch: |-\n"
        "      - op: replace\n        path: /spec/template/spec/containers/0/args/0\n"
        "        value: meta-llama/Llama-3.1-70B-Instruct\n",
    )
    result = lint(path, rules, "H100")
    assert result.deployments == []
    [warning] = result.diagnostics
    assert (warning.code, warning.severity) == ("HBM014", Severity.WARNING)
    assert (warning.span.line, warning.span.column) == (11, 15)  # the op's path
    assert "JSON patch changes /spec/template/spec/containers/0/args/0 of Deployment decode" in (
        warning.message
    )
    assert "uses `components`" in warning.message
    assert any("kubectl kustomize DIR | hbmlint -" in fix for fix in warning.fixes)


def test_a_patch_kustomize_would_refuse_is_a_warning(rules, tmp_path):
    path = _overlay(
        tmp_path,
        "patches:\n  - target: {kind: Deployment, name: decode}\n    patch: |-\n"
        "      - op: replace\n        path: /spec/template/spec/containers/0/args/9\n"
        "        value: '--enforce-eager'\n",
    )
    [warning] = lint(path, rules, "H100").diagnostics
    assert (warning.code, warning.severity, warning.span.line) == ("HBM014", Severity.WARNING, 9)
    assert "kustomize cannot apply this JSON patch" in warning.message
    assert "past the end" in warning.message


def test_a_patch_that_removes_a_flag_shifts_the_rest(rules, tmp_path):
    # remove --max-model-len and its value: the engine's default context comes back
    path = _overlay(
        tmp_path,
        "patches:\n  - target: {kind: Deployment}\n    patch: |-\n"
        "      - op: remove\n        path: /spec/template/spec/containers/0/args/1\n"
        "      - op: remove\n        path: /spec/template/spec/containers/0/args/1\n",
    )
    result = lint(path, rules)
    [read] = result.deployments
    assert read.deployment.serving.max_model_len is None
    assert read.deployment.model.name == "Qwen/Qwen3-8B"
    # the JSON that followed the removed pair is still the value of its own flag
    assert [d.code for d in result.diagnostics if d.code == "HBM004"] == []


def test_a_renamed_runtime_is_found_in_the_same_build(rules):
    # namePrefix renames the runtime and the patch points the service at the new name: the
    # runtime is found among the build's objects; its args/3 patched to a context Qwen2.5-7B
    # does not have, the refusal vLLM gives, at the overlay
    result = lint(RUNTIME / "staging" / "kustomization.yaml", rules)
    assert sorted(d.code for d in result.diagnostics) == ["HBM102", "HBM303"]
    assert {d.severity for d in result.diagnostics} == {Severity.ERROR}
    [read] = result.deployments
    assert read.deployment.serving.max_model_len == 131072
    assert read.deployment.model.name == "Qwen/Qwen2.5-7B-Instruct"


def test_an_overlay_that_only_renames_adds_nothing_to_its_base(rules):
    # linted with its base, the dev overlay reads as the base does: no second copy of it;
    # the staging overlay, whose runtime differs, is a deployment of its own
    results = lint_paths([str(RUNTIME)], rules, LintOptions())
    by_file = {Path(r.display).parent.name: r for r in results if r.deployments or r.diagnostics}
    assert sorted(by_file) == ["base", "staging"]
    assert by_file["base"].diagnostics == []
