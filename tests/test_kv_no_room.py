"""Where the weights and overhead leave nothing for the KV cache, the findings and the budget
view say how much is short, never a negative size ("-0.54 GiB at 131,072 bytes/token")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import manifest

from hbmlint.diagnostics import Severity
from hbmlint.lint import lint_file
from hbmlint.rules import load_rule_file, load_rules

LLAMA_8B = "meta-llama/Llama-3.1-8B-Instruct"  # 14.99 GiB of 16-bit weights
NEGATIVE_FIGURE = re.compile(r"(?<![\w.])-\d")


@pytest.fixture(scope="module")
def rules():
    loaded, problems = load_rules()
    assert not problems
    return loaded


def lint(tmp_path: Path, rules, spec: str):
    path = tmp_path / "deploy.yaml"
    path.write_text(manifest(spec))
    result = lint_file(path, path.name, rules)
    [deployment] = result.deployments
    return result.diagnostics, deployment.budget


def short_by(message: str) -> float:
    return float(re.search(r"([\d.]+) GiB short", message)[1])


def on_a10g(engine: str, fraction: float, max_model_len: int, batch: int = 0) -> str:
    tokens = f", max_num_batched_tokens: {batch}" if batch else ""
    return f"""
        engine: {engine}
        gpu: {{type: A10G}}
        model: {{name: {LLAMA_8B}}}
        serving: {{max_model_len: {max_model_len}, gpu_memory_utilization: {fraction}{tokens}}}
    """


@pytest.mark.parametrize(
    ("engine", "fraction", "max_model_len", "batch", "code", "severity", "words"),
    [
        # vLLM at 70% of an A10G: 15.5 GiB usable for 15 GiB of weights and 1 GiB of overhead
        ("vllm", 0.70, 131072, 0, "HBM102", Severity.ERROR, "would refuse to start"),
        # a short context that fits within the estimate's uncertainty: a warning, not an error
        ("vllm", 0.72, 2048, 0, "HBM105", Severity.WARNING, "may refuse to start"),
        # TGI's warm-up batch of a 128k prefill takes its share as well
        ("tgi", 0.90, 131072, 0, "HBM102", Severity.ERROR, "TGI's warm-up batch"),
        # TensorRT-LLM's fraction is of what is free after the weights and the activations of
        # a 64k-token step: nothing, though within the estimate's uncertainty some may be
        ("trtllm", 0.90, 131072, 65536, "HBM108", Severity.WARNING, "may fail to start"),
    ],
)
def test_no_room_says_what_is_short(
    tmp_path, rules, engine, fraction, max_model_len, batch, code, severity, words
):
    spec = on_a10g(engine, fraction, max_model_len, batch)
    diagnostics, budget = lint(tmp_path, rules, spec)
    assert budget.kv_cache.magnitude < 0
    [finding] = [d for d in diagnostics if d.code == code]
    assert finding.severity is severity
    assert "no room for a KV cache" in finding.message and words in finding.message
    assert not NEGATIVE_FIGURE.search(finding.message), finding.message
    shortfall = -budget.kv_cache.to("GiB").magnitude
    assert short_by(finding.message) == pytest.approx(shortfall, abs=0.006)
    for fix in finding.fixes:
        assert not NEGATIVE_FIGURE.search(fix.message), fix.message
        # an FP8 KV cache of no room is still no room: not offered
        assert "FP8 KV cache would hold" not in fix.message


def test_sglang_pool_with_no_room_may_refuse_to_start(tmp_path, rules):
    # Qwen2.5-VL-7B on an L4 at mem_fraction_static 0.72: the weights fit, the multimodal
    # reserve takes the rest; SGLang raises "Not enough memory" with no pool at all
    spec = """
        engine: sglang
        gpu: {type: L4}
        model: {name: Qwen/Qwen2.5-VL-7B-Instruct}
        serving: {max_model_len: 32768, gpu_memory_utilization: 0.72}
    """
    diagnostics, budget = lint(tmp_path, rules, spec)
    assert budget.kv_cache.magnitude < 0
    [finding] = [d for d in diagnostics if d.code == "HBM104"]
    assert "no room for a KV pool" in finding.message
    assert "may refuse to start" in finding.message
    assert not NEGATIVE_FIGURE.search(finding.message), finding.message
    assert not any("KV pool then 0 tokens" in f.message for f in finding.fixes)


def test_a_kv_cache_with_room_still_reads_as_its_size(tmp_path, rules):
    diagnostics, budget = lint(tmp_path, rules, on_a10g("vllm", 0.78, 131072))
    assert budget.kv_cache.magnitude > 0
    [finding] = [d for d in diagnostics if d.code == "HBM102"]
    holds = r"the KV cache holds [\d,]+ tokens .*\(1\.\d\d GiB at 131,072"
    assert re.search(holds, finding.message)
    assert "short" not in finding.message


def test_budget_view_says_what_is_short(tmp_path, cli):
    path = tmp_path / "deploy.yaml"
    path.write_text(manifest(on_a10g("vllm", 0.70, 131072)))
    out = cli("budget", path).output
    [line] = [line for line in out.splitlines() if line.strip().startswith("KV cache")]
    assert re.search(r"KV cache\s+0\.00 GiB\s+none: no room left \(0\.\d\d GiB short\)", line)
    assert not NEGATIVE_FIGURE.search(out)


def test_a_rules_message_may_have_wordings_chosen_by_when(tmp_path):
    path = tmp_path / "HBM901.yaml"
    path.write_text(
        "id: HBM901\nname: say-room\nsummary: Says the room.\nseverity: info\n"
        "check: kv.tokens < 0\nat: serving.max_model_len\n"
        "message:\n"
        "  - {when: kv.bytes < 0, text: 'no room: {kv.shortfall} short'}\n"
        "  - {text: 'room: {kv.bytes}'}\n"
    )
    rule, problems = load_rule_file(path)
    assert not problems and rule is not None
    wordings = ((0.70, r"^no room: 0\.\d\d GiB short$"), (0.9, r"^room: \d+\.\d\d GiB$"))
    for fraction, wording in wordings:
        diagnostics, _ = lint(tmp_path, [rule], on_a10g("vllm", fraction, 8192))
        [finding] = [d for d in diagnostics if d.code == "HBM901"]
        assert re.match(wording, finding.message), finding.message


def test_a_wording_with_an_unknown_name_is_reported_at_load(tmp_path):
    path = tmp_path / "HBM902.yaml"
    path.write_text(
        "id: HBM902\nname: typo\nsummary: A typo.\nseverity: info\n"
        "check: kv.tokens < 0\nat: serving.max_model_len\n"
        "message:\n"
        "  - {when: kv.byts < 0, text: nothing}\n"
        "  - {text: '{kv.bytes}'}\n"
    )
    rule, problems = load_rule_file(path)
    assert rule is None
    assert [p.code for p in problems] == ["HBM009"] and "kv.byts" in problems[0].message
    assert problems[0].span.line == 8
