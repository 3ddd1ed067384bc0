"""Warnings on real manifests as a user reads them (warnings audit, session 14): each fixture
in tests/fixtures/real/ names its source repository and path at its top."""

from __future__ import annotations

import pytest
from real_lint import REAL, codes, line_of, lint

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_paths
from hbmlint.rules import load_rules

# fixtures these tests cover (test_real_manifests.py checks every fixture has a test)
COVERED = {
    "gke-tgi-falcon-40b-hub-offline.yaml",
    "compose-vllm-gguf-repo-quant.yml",
    "helm-tgi-chart-templates/service.yaml",
    "helm-tgi-chart-templates/ingress.yaml",
    "helm-tgi-chart-templates/deployment.yaml",
    "rhaiis-vllm-3.2.1-swap-space.yaml",
    "kserve-runtime-tp-from-visible-devices/inference.yaml",
    "kserve-runtime-tp-from-visible-devices/serving-runtime.yaml",
    "shell-sglang-cuda-graph-max-bs-unpinned.sh",
}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def test_a_model_the_hub_cannot_give_says_how_a_kubernetes_manifest_unblocks_it(rules):
    # the tests run offline (conftest): falcon-40b-instruct is outside the catalog
    path = REAL / "gke-tgi-falcon-40b-hub-offline.yaml"
    [finding] = codes(lint(path, rules), "HBM015")
    assert finding.severity is Severity.WARNING
    assert finding.span.line == 32  # MODEL_ID's value
    # the Hub's advice and the hint are separate sentences
    assert "commit .hbmlint/models/, or unset HF_HUB_OFFLINE. Did you mean" in finding.message
    # `model.config` is a field of hbmlint's own format only: a Deployment is unblocked by a
    # team catalog that lists the model
    assert "model.config" not in finding.message
    assert "catalogs:" in finding.message
    assert "id: tiiuae/falcon-40b-instruct" in finding.message


def test_a_gguf_file_of_a_hub_repository_is_named_without_advice_that_cannot_work(rules):
    path = REAL / "compose-vllm-gguf-repo-quant.yml"
    [finding] = codes(lint(path, rules, "L4"), "HBM006")
    assert finding.severity is Severity.WARNING
    assert "a GGUF checkpoint (Q4_K_M of unsloth/Qwen3-30B-A3B-GGUF)" in finding.message
    # `hf download ORG/REPO:Q4_K_M config.json` is no repository id, and GGUF repositories hold
    # no config.json; a mapping to Qwen3-30B-A3B would budget 16-bit weights (a false HBM101 on
    # this L4, where the 4-bit file is about 17 GiB)
    assert "hf download" not in finding.message
    assert "model-paths" not in finding.message
    assert "did you mean" not in finding.message  # unsloth/Qwen3-4B-Base is another model
    assert "per-file-ignores" in finding.message
    assert not [f for f in lint(path, rules, "L4").diagnostics if f.severity is Severity.ERROR]


def test_a_charts_service_and_ingress_templates_are_not_asked_to_be_rendered(rules):
    # the chart is named after TGI, so every template names it in its own actions
    # ({{ include "text-generation-inference.fullname" . }}); only the Deployment runs it
    charts = REAL / "helm-tgi-chart-templates"
    for name in ("service.yaml", "ingress.yaml"):
        assert lint(charts / name, rules).diagnostics == []
    [render] = lint(charts / "deployment.yaml", rules).diagnostics
    assert (render.code, render.severity) == ("HBM012", Severity.WARNING)
    assert "helm template" in render.fixes[0].message


def test_a_removed_flag_on_a_vendor_release_names_the_image_it_cannot_map(rules):
    path = REAL / "rhaiis-vllm-3.2.1-swap-space.yaml"
    [removed] = codes(lint(path, rules, "A10"), "HBM010")
    assert removed.severity is Severity.WARNING
    assert removed.span.line == line_of(path, '"--swap-space"')
    # the image is pinned (3.2.1), not latest: the message says what hbmlint does not know
    assert "no image, or a tag such as latest" not in removed.message
    assert "the image registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.2.1 ships" in removed.message
    assert "before 0.18.0" in removed.message


def test_a_tensor_parallel_size_counted_from_the_visible_gpus_is_not_a_default_of_one(rules):
    # GPU_COUNT="$(echo -n $NVIDIA_VISIBLE_DEVICES | awk ...)" then `if [ -z "$GPU_COUNT" ];
    # then GPU_COUNT=1; fi`: the branch is a fallback, and the pod's 4 GPUs are what the device
    # plugin lists, so vLLM runs TP 4. Read as TP 1 this was "leaves 3 idle" (HBM007).
    folder = REAL / "kserve-runtime-tp-from-visible-devices"
    results = lint_paths([str(folder)], rules, LintOptions())
    findings = [d for r in results for d in r.diagnostics]
    assert [f.code for f in findings if f.severity is not Severity.INFO] == []
    unread = [f for f in findings if f.code == "HBM011" and "$GPU_COUNT" in f.message]
    assert unread and "awk" in unread[0].message  # what it is set to


def test_a_removed_flags_replacement_is_offered_for_the_releases_that_have_it(rules):
    # no release in the script (the benchmark's config pins SGLang 0.5.12 elsewhere): the
    # newest refuses --cuda-graph-max-bs, but the flag that replaces it is new in 0.5.20
    path = REAL / "shell-sglang-cuda-graph-max-bs-unpinned.sh"
    [removed] = codes(lint(path, rules), "HBM010")
    assert removed.severity is Severity.WARNING
    assert removed.span.line == line_of(path, "--cuda-graph-max-bs 512")
    [fix] = removed.fixes
    assert fix.message.startswith("Use --cuda-graph-max-bs-decode (SGLang 0.5.20 and later;")
    assert "a release before it takes --cuda-graph-max-bs as written" in fix.message
