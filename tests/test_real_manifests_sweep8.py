"""Patterns from public repositories hbmlint had never seen (sweep 8): each fixture under
tests/fixtures/real/ names its source in its first lines; each test says what a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(name: str, rules, gpu: str | None = None):
    return lint_file(REAL / name, name, rules, LintOptions(default_gpu=gpu))


def line_of(name: str, needle: str) -> int:
    lines = (REAL / name).read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if needle in line)


COVERED = {
    "compose-device-ids-variable.yml",
    "lws-sed-placeholder-model.yaml",
    "shell-angle-placeholders.yaml",
    "skypilot-sglang-fp8-block-tp4.sky.yaml",
    "vllm-omni-stages.yaml",
}


@pytest.mark.parametrize("gpu", [None, "H100"])
def test_an_angle_bracket_placeholder_in_a_shell_script_is_not_a_redirection(rules, gpu):
    # `--model <model-path>` in `sh -c`: a placeholder to fill in (an info at the word), not
    # "names no model" and "--model needs a value" errors
    name = "shell-angle-placeholders.yaml"
    result = lint(name, rules, gpu)
    sample = [f for f in result.diagnostics if f.deployment == "neuron-pool"]
    [info] = sample
    assert (info.code, info.severity.name) == ("HBM011", "INFO")
    assert "'<model-path>'" in info.message and "placeholder" in info.message
    assert info.span.line == line_of(name, "--model <model-path> \\")


def test_real_redirections_around_an_engine_are_still_skipped(rules):
    # `< /dev/null > /tmp/vllm.log` after the flags: the model is read, the log file is not
    # taken as a served name or a flag value
    result = lint("shell-angle-placeholders.yaml", rules, "H100")
    [filled] = [d for d in result.deployments if d.deployment.name == "filled-in"]
    assert filled.deployment.model.name == "Qwen/Qwen3-8B"
    assert filled.budget is not None
    assert [f for f in result.diagnostics if f.deployment == "filled-in"] == []


@pytest.mark.parametrize("gpu", [None, "L4"])
def test_vllm_omni_stages_are_not_budgeted_as_one_engine(rules, gpu):
    # `vllm serve MODEL --omni` on 2 GPUs: vllm-omni's stage config uses both, so no "leaves
    # 1 idle" warning (whose fix, "Request 1 GPUs", would starve the talker stage) and no
    # single-engine budget; an info at --omni says why
    name = "vllm-omni-stages.yaml"
    result = lint(name, rules, gpu)
    assert result.deployments == []
    [info] = result.diagnostics
    assert (info.code, info.severity.name) == ("HBM011", "INFO")
    assert "vllm-omni" in info.message and "not budgeted" in info.message
    assert info.span.line == line_of(name, "- --omni")


def test_a_compose_device_id_left_to_a_variable_leaves_the_gpu_count_unknown(rules):
    # device_ids: ["${GPU_ID_x:?error}"], which a setup script fills with "0,1": no false
    # "1 GPUs requested ... cannot start" error; an info says why; a written single id still
    # refuses TP 2
    name = "compose-device-ids-variable.yml"
    result = lint(name, rules, "H100")
    by_name = {d.deployment.name: d for d in result.deployments}
    assert by_name["qwen-32b"].budget is not None
    assert by_name["qwen-32b"].deployment.parallel.tensor == 2
    variable = [f for f in result.diagnostics if f.deployment == "qwen-32b"]
    assert [(f.code, f.severity.name) for f in variable] == [("HBM011", "INFO")]
    assert "GPU_ID_qwen_32b" in variable[0].message and "not known" in variable[0].message
    assert variable[0].span.line == line_of(name, 'device_ids: ["${GPU_ID_qwen_32b')
    [short] = [f for f in result.diagnostics if f.deployment == "qwen-32b-one-gpu"]
    assert (short.code, short.severity.name) == ("HBM007", "ERROR")


# not under fixtures/real (whose files raise no start-up error): an error on purpose
ISSUE_17569 = """\
# The command line of vllm-project/vllm issue #17569 (vllm serve Qwen3-235B-A22B-FP8 with
# --tensor-parallel-size 8; vLLM exits with "The output_size of gate's and up's weight = 192
# is not divisible by weight quantization block_n = 128") in a Deployment on 8 H100s, and the
# same with --enable-expert-parallel, which places the experts whole. Written for hbmlint's
# tests (not a copy).
apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen3-235b-tp8
spec:
  selector:
    matchLabels: {app: qwen3-235b-tp8}
  template:
    metadata:
      labels: {app: qwen3-235b-tp8}
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.8.5
          args:
            - --model
            - Qwen/Qwen3-235B-A22B-FP8
            - --tensor-parallel-size
            - "8"
            - --max-model-len
            - "32768"
          resources:
            limits:
              nvidia.com/gpu: 8
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen3-235b-tp8-ep
spec:
  selector:
    matchLabels: {app: qwen3-235b-tp8-ep}
  template:
    metadata:
      labels: {app: qwen3-235b-tp8-ep}
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.8.5
          args:
            - --model
            - Qwen/Qwen3-235B-A22B-FP8
            - --tensor-parallel-size
            - "8"
            - --enable-expert-parallel
            - --max-model-len
            - "32768"
          resources:
            limits:
              nvidia.com/gpu: 8
"""


def test_tp_that_splits_fp8_blocks_is_refused_and_expert_parallel_is_not(rules, tmp_path):
    # Qwen3-235B-A22B-FP8 at TP 8: each expert's 1536-wide MLP becomes 192 per GPU, not a
    # whole 128 block, which vLLM refuses; expert parallelism keeps the experts whole
    path = tmp_path / "vllm-fp8-block-tp8.yaml"
    path.write_text(ISSUE_17569)
    result = lint_file(path, path.name, rules, LintOptions())
    by_deployment: dict[str, list] = {}
    for f in result.diagnostics:
        by_deployment.setdefault(f.deployment, []).append(f)
    [error] = by_deployment["qwen3-235b-tp8"]
    assert (error.code, error.severity.name) == ("HBM324", "ERROR")
    assert "192 per GPU" in error.message and "128" in error.message
    lines = ISSUE_17569.splitlines()
    assert error.span.line == lines.index("            - --tensor-parallel-size") + 1
    assert any("to 4" in fix for fix in error.fixes)
    assert "qwen3-235b-tp8-ep" not in by_deployment


def test_tp_suggestions_skip_sizes_that_split_fp8_blocks(rules):
    # the SkyPilot task runs TP 4 on 8 GPUs on purpose: the idle-GPU warning no longer offers
    # "--tp-size 8", which the engine refuses for this checkpoint, and nothing is an error
    result = lint("skypilot-sglang-fp8-block-tp4.sky.yaml", rules)
    [idle] = result.diagnostics
    assert (idle.code, idle.severity.name) == ("HBM007", "WARNING")
    assert [str(fix) for fix in idle.fixes] == ["Request 4 GPUs"]


@pytest.mark.parametrize("gpu", [None, "H100"])
def test_a_sed_placeholder_model_is_a_placeholder_not_an_unknown_model(rules, gpu):
    # `vllm serve __MODEL__` (a Justfile's sed fills it in): an info that the template is to be
    # rendered, not an "unknown model" warning and no budget
    name = "lws-sed-placeholder-model.yaml"
    result = lint(name, rules, gpu)
    assert result.deployments == []
    assert {(f.code, f.severity.name) for f in result.diagnostics} == {("HBM011", "INFO")}
    [model] = [f for f in result.diagnostics if "__MODEL__" in f.message]
    assert "placeholder" in model.message
    assert model.span.line == line_of(name, "  __MODEL__ \\")
