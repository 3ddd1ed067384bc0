"""The KV cache is an estimate: HBM102 promises a refusal only beyond the estimate's
uncertainty; inside it HBM105 warns that the engine may refuse. The pattern is from a public
GKE sample (GoogleCloudPlatform/kubernetes-engine-samples, ai-ml/adk-vllm/deploy-llm): vLLM
0.8.5 serving Llama-3.1-8B on one L4 with --max-model-len=32768, which sits 10% above
hbmlint's estimate of what the KV cache holds, well inside what the estimate can be off by."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_startup_rules import deployment, findings, line_of, lint

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

MODEL = "meta-llama/Llama-3.1-8B-Instruct"


@pytest.fixture(scope="module")
def rules():
    loaded, problems = load_rules()
    assert not problems
    return loaded


def on_l4(max_model_len: int, image: str = "vllm/vllm-openai:v0.8.5") -> str:
    return deployment([f"--max-model-len={max_model_len}"], model=MODEL, image=image)


def test_shortfall_inside_the_estimates_uncertainty_is_a_warning_not_an_error(tmp_path, rules):
    text = on_l4(32768)
    result = lint(tmp_path, rules, text)
    assert not [d for d in result.diagnostics if d.severity == Severity.ERROR]
    [warning] = findings(result, "HBM105")
    assert warning.severity == Severity.WARNING
    assert warning.span.line == line_of(text, "--max-model-len")
    assert "may refuse to start" in warning.message
    assert "32,768 tokens" in warning.message
    # the band's edges are printed, and the low edge is offered as a length that fits
    band = warning.message.split("within the estimate's uncertainty (")[1].split(" tokens to ")[0]
    low = int(band.replace(",", ""))
    assert 0 < low < 32768
    assert warning.fixes[0].startswith(f"Lower max_model_len to {low:,} tokens")


def test_shortfall_beyond_the_uncertainty_is_still_an_error(tmp_path, rules):
    text = on_l4(65536)
    result = lint(tmp_path, rules, text)
    [error] = findings(result, "HBM102")
    assert error.severity == Severity.ERROR
    assert "allowing for the estimate's uncertainty" in error.message
    assert not findings(result, "HBM105")


def test_comfortable_fit_has_neither(tmp_path, rules):
    result = lint(tmp_path, rules, on_l4(8192))
    assert not findings(result, "HBM102")
    assert not findings(result, "HBM105")


def test_the_band_holds_each_calibration_refusal_hbmlint_does_not_promise(tmp_path, rules):
    """Moving max_model_len across the band: error above it, warning inside, nothing below,
    and never an error while the estimate's high edge still fits the sequence."""
    seen = []
    for length in (20000, 26000, 30000, 34000, 40000, 60000):
        result = lint(tmp_path, rules, on_l4(length))
        codes = {d.code for d in result.diagnostics if d.code in ("HBM102", "HBM105")}
        assert len(codes) <= 1, (length, codes)
        seen.append(next(iter(codes), ""))
    # ordered: nothing, then HBM105, then HBM102; each appears
    order = {"": 0, "HBM105": 1, "HBM102": 2}
    assert [order[c] for c in seen] == sorted(order[c] for c in seen)
    assert {"", "HBM105", "HBM102"} <= set(seen)


def test_tgi3_sizing_its_own_total_tokens_is_not_doubted(tmp_path: Path, rules):
    text = "\n".join(
        [
            "apiVersion: apps/v1",
            "kind: Deployment",
            "metadata: {name: tgi}",
            "spec:",
            "  selector: {matchLabels: {app: tgi}}",
            "  template:",
            "    metadata: {labels: {app: tgi}}",
            "    spec:",
            "      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}",
            "      containers:",
            "      - name: tgi",
            "        image: ghcr.io/huggingface/text-generation-inference:3.0.1",
            "        env:",
            f"        - {{name: MODEL_ID, value: {MODEL}}}",
            "        resources:",
            "          limits: {nvidia.com/gpu: 1}",
            "",
        ]
    )
    result = lint(tmp_path, rules, text)
    assert not findings(result, "HBM105")
    assert not findings(result, "HBM102")


def test_a_refusal_resting_on_an_unread_setting_is_a_warning(tmp_path, rules):
    """`--max-model-len=$(MAX_LEN)` with MAX_LEN set nowhere in the file: the budget takes the
    engine default (the model's 131,072 tokens) in its place, so it cannot promise that one
    sequence does not fit; the same length written out is an error."""
    unread = lint(tmp_path, rules, deployment(["--max-model-len=$(MAX_LEN)"], model=MODEL))
    [warning] = findings(unread, "HBM102")
    assert warning.severity == Severity.WARNING
    assert "max_model_len, which the manifest sets to a value hbmlint cannot read" in (
        warning.message
    )
    assert not [d for d in unread.diagnostics if d.severity == Severity.ERROR]
    written = lint(tmp_path, rules, deployment(["--max-model-len=131072"], model=MODEL))
    [error] = findings(written, "HBM102")
    assert error.severity == Severity.ERROR


def _on_two(gpu: str, max_model_len: int) -> str:
    """Llama-3.1-70B in bf16 at TP 2 with vLLM 0.11.0 at 0.9: weights 65.7 GiB a GPU."""
    return f"""apiVersion: hbmlint/v1
kind: ServingManifest
metadata: {{name: llama70b-tp2}}
spec:
  engine: vllm
  engine_version: "0.11.0"
  gpu: {{type: {gpu}, count: 2}}
  model: {{name: meta-llama/Llama-3.1-70B-Instruct}}
  parallel: {{tensor: 2}}
  serving: {{max_model_len: {max_model_len}, gpu_memory_utilization: 0.9}}
"""


def test_the_nvlink_board_communicator_charge_is_not_a_promise(tmp_path, rules):
    # On an H100 SXM pair the estimate charges the tensor-parallel group's communicators 1.8
    # GiB (engines.yaml multi_gpu: one record, where aiconfigurator's tables give about a
    # fifth), so its KV estimate is below the PCIe card's; the refusal HBM102 promises must
    # hold without that charge: here a warning, as on the PCIe card of the same memory
    def lint_on(gpu: str, length: int):
        path = tmp_path / f"{gpu}-{length}.yaml"
        path.write_text(_on_two(gpu, length))
        return lint_file(path, path.name, rules, LintOptions(keep_budgets=True))

    sxm, pcie = lint_on("H100-SXM-80GB", 16384), lint_on("H100-PCIe-80GB", 16384)
    assert sxm.deployments[0].budget.kv_tokens < pcie.deployments[0].budget.kv_tokens
    for result in (sxm, pcie):
        assert [d.code for d in result.diagnostics if d.severity == Severity.ERROR] == []
        assert findings(result, "HBM105")
    # well beyond both edges it is still an error on either board
    for gpu in ("H100-SXM-80GB", "H100-PCIe-80GB"):
        assert findings(lint_on(gpu, 65536), "HBM102")
