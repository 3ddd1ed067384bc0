"""Chart values a GitOps object holds where the chart readers do not look (sweep 20): an Argo CD
Application's `helm.values: |` string and multi-source `sources[]`, a kustomization's
`helmCharts[].valuesInline`, a helmfile's `releases[].values[]`, each read in place."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_lint import codes

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
ARGO_CPU = REAL / "argocd-helm-values-string-cpu.yaml"

COVERED = {ARGO_CPU.name}

# vllm-stack values: Llama-3.1-8B at its whole context on one L4, which vLLM refuses
STACK = """\
servingEngineSpec:
  modelSpec:
  - name: "llama"
    repository: "vllm/vllm-openai"
    tag: "v0.9.2"
    modelURL: "meta-llama/Llama-3.1-8B-Instruct"
    requestGPU: 1
    vllmConfig:
      maxModelLen: 131072
"""


def _indented(text: str, by: int) -> str:
    return "".join(" " * by + line if line.strip() else line for line in text.splitlines(True))


ARGO = (
    "apiVersion: argoproj.io/v1alpha1\n"
    "kind: Application\n"
    "metadata: {name: vllm}\n"
    "spec:\n"
    "  source:\n"
    "    chart: vllm-stack\n"
    "    repoURL: https://vllm-project.github.io/production-stack\n"
    "    helm:\n"
    "      values: |\n" + _indented(STACK, 8)
)
ARGO_MULTI = (
    "apiVersion: argoproj.io/v1alpha1\n"
    "kind: Application\n"
    "metadata: {name: vllm}\n"
    "spec:\n"
    "  sources:\n"
    "  - chart: vllm-stack\n"
    "    repoURL: https://vllm-project.github.io/production-stack\n"
    "    helm:\n"
    "      valuesObject:\n" + _indented(STACK, 8)
)
KUSTOMIZE = (
    "apiVersion: kustomize.config.k8s.io/v1beta1\n"
    "kind: Kustomization\n"
    "helmCharts:\n"
    "- name: vllm-stack\n"
    "  repo: https://vllm-project.github.io/production-stack\n"
    "  valuesInline:\n" + _indented(STACK, 4)
)
HELMFILE = (
    "releases:\n"
    "  - name: vllm\n"
    "    chart: vllm/vllm-stack\n"
    "    values:\n"
    "      - " + _indented(STACK, 8)[8:]
)


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


@pytest.mark.parametrize(
    ("name", "text"),
    [("argo.yaml", ARGO), ("argo-multi.yaml", ARGO_MULTI), ("kustomization.yaml", KUSTOMIZE)]
    + [("helmfile.yaml", HELMFILE)],
)
def test_chart_values_inside_a_gitops_object_are_read_in_place(rules, tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    result = lint_file(path, path.name, rules, LintOptions(default_gpu="L4"))
    [item] = result.deployments
    assert item.deployment.model.name == "meta-llama/Llama-3.1-8B-Instruct"
    [refused] = codes(result, "HBM102")
    assert refused.severity.name == "ERROR"
    # at maxModelLen's own line in the file
    line = next(n for n, row in enumerate(text.splitlines(), 1) if "maxModelLen" in row)
    assert refused.span.line == line


def test_a_cpu_build_in_argo_values_is_said_to_be_unbudgeted(rules):
    # stianfro/lab apps/vllm/chart.yaml: vllm-stack on the CPU image with `--device cpu` in a
    # `helm.values: |` string: was "All clear", nothing read
    result = lint_file(ARGO_CPU, ARGO_CPU.name, rules, LintOptions())
    [said] = result.diagnostics
    assert said.code == "HBM014" and "--device cpu" in said.message
    assert said.span.line == 47
