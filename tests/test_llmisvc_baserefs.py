"""KServe LLMInferenceService spec.baseRefs: the LLMInferenceServiceConfig presets a service names
are merged under it as KServe's controller does (kserve/kserve config_merge.go), so what a preset
sets (here the engine's launch line with --max-model-len) is in the budget; a preset the run does
not hold is a warning that says what was not checked, and a refusal predicted without it is not
an error."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_paths
from hbmlint.rules import load_rules

FIXTURE = Path(__file__).parent / "fixtures" / "real" / "kserve-llmisvc-baserefs"
COVERED = {"kserve-llmisvc-baserefs/service.yaml", "kserve-llmisvc-baserefs/config.yaml"}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def findings(results) -> list[tuple[str, str, int, Severity]]:
    return [
        (Path(r.display).name, d.code, d.span.line, d.severity)
        for r in results
        for d in r.diagnostics
    ]


def test_the_preset_of_the_run_is_merged_under_the_service(rules):
    results = lint_paths([str(FIXTURE)], rules, LintOptions())
    # the preset's own flags are read: its --disable-log-requests, which vLLM 0.17-0.32 refused,
    # is refused by the vLLM 0.26.0 that its image (llm-d-cuda:v0.9.0) ships, said at the
    # service's baseRefs entry; the preset alone is read with its service, so no note of its own
    assert findings(results) == [("service.yaml", "HBM010", 18, Severity.ERROR)]
    [refused] = [d for r in results for d in r.diagnostics]
    assert "--disable-log-requests" in refused.message and "0.26.0" in refused.message
    [read] = [d for r in results for d in r.deployments]
    deployment = read.deployment
    assert deployment.model.name == "meta-llama/Llama-3.1-8B-Instruct"
    assert deployment.serving.max_model_len == 16384  # from the preset's launch line
    assert deployment.location("serving.max_model_len").line == 18  # the preset's own line
    assert read.budget.resolved.gpu.name.startswith("L4")  # the service's node selector


def test_the_same_preset_in_the_services_file_is_merged_too(rules, tmp_path):
    one = tmp_path / "both.yaml"
    one.write_text(
        (FIXTURE / "config.yaml").read_text() + "---\n" + (FIXTURE / "service.yaml").read_text()
    )
    results = lint_paths([str(one)], rules, LintOptions())
    # in the same file, the preset's settings are located at their own lines (the refused
    # --disable-log-requests at the preset's launch line)
    assert findings(results) == [("both.yaml", "HBM010", 21, Severity.ERROR)]
    [read] = [d for r in results for d in r.deployments]
    assert read.deployment.serving.max_model_len == 16384
    where = read.deployment.location("serving.max_model_len").line
    assert "--max-model-len" in one.read_text().splitlines()[where - 1]


def test_a_preset_outside_the_run_is_a_warning_and_no_false_error(rules, tmp_path):
    shutil.copy(FIXTURE / "service.yaml", tmp_path)
    results = lint_paths([str(tmp_path / "service.yaml")], rules, LintOptions())
    found = findings(results)
    # without the preset's --max-model-len the budget takes vLLM's default context (131,072
    # tokens), which does not fit an L4: that refusal is not a promise, a warning
    assert ("service.yaml", "HBM014", 18, Severity.WARNING) in found  # at the baseRefs entry
    assert ("service.yaml", "HBM102", 8, Severity.WARNING) in found
    assert not [f for f in found if f[3] is Severity.ERROR]
    [note] = [d for r in results for d in r.diagnostics if d.code == "HBM014"]
    assert "llmisvc-intelligent-inference-scheduling" in note.message
    assert "not in the files linted" in note.message
