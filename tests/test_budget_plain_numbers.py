"""The budget computes in plain numbers (bytes, bytes per token, tokens) and hands out
Quantities at the end: its figures must be the ones the Quantity arithmetic gives, to the last
bit and in the units rules and reports read them in.

Each budget here is that of a real deployment's pattern: the real fixtures name their sources
(TensorRT-LLM from ai-dynamo/dynamo's disaggregated examples, TGI from
huggingface/Google-Cloud-Containers, SGLang TP 8 on H200 from a Dynamo recipe), and the vLLM
EAGLE-3 manifest is the pattern of lmsys/sglang-EAGLE3-LLaMA3.3-Instruct-70B's model card
(a Llama 3.3 70B target with its EAGLE-3 head, here on two H200s at TP 2).
"""

from __future__ import annotations

from helpers import REPO, manifest

from hbmlint import lint
from hbmlint.budget import KV_UNCERTAINTY_DOWN
from hbmlint.rules import builtin_rule_files, load_rules
from hbmlint.units import Q, bytes_quantity, in_bytes, in_bytes_per_token, tokens_quantity

REAL = REPO / "tests" / "fixtures" / "real"
EAGLE3_70B = """
    gpu: {type: H200, count: 2}
    parallel: {tensor: 2}
    model: {name: meta-llama/Llama-3.3-70B-Instruct}
    speculative: {method: eagle3, model: lmsys/sglang-EAGLE3-LLaMA3.3-Instruct-70B,
                  num_speculative_tokens: 3}
"""


def budgets(path):
    rules, _ = load_rules(builtin_rule_files())
    result = lint.lint_file(path, path.name, rules, lint.LintOptions())
    found = [d.budget for d in result.deployments if d.budget is not None]
    assert found, result.diagnostics
    return found


def exactly(a, b) -> bool:
    """The same magnitude (value and type) in the same unit."""
    return (
        a.magnitude == b.magnitude
        and type(a.magnitude) is type(b.magnitude)
        and str(a.units) == str(b.units)
    )


def test_a_vllm_budget_is_the_quantity_arithmetic_to_the_last_bit(tmp_path):
    path = tmp_path / "eagle3.yaml"
    # (0.33: a share of the card; 0.34's extensible KV cache keeps a margin of it, below)
    path.write_text(manifest(EAGLE3_70B + '    engine_version: "0.33.0"\n'))
    [b] = budgets(path)
    lines = list(b.overhead.values())
    overhead = sum(lines, Q(0, "byte"))
    assert exactly(b.overhead_total, overhead)
    # vLLM: a share of the card, less the weights, the drafter and the overhead
    usable = b.total * b.settings.memory_fraction
    assert exactly(b.usable, usable)
    assert exactly(b.kv_cache, usable - (b.weights + b.draft_weights) - overhead)
    assert str(b.kv_bytes_per_token_draft.units) == "byte / token"
    assert b.kv_bytes_per_token_draft.magnitude > 0  # the head's own layer holds KV
    assert str(b.kv_tokens.units) == "token" and b.kv_tokens.magnitude > 0
    # the low edge of the KV band, as the Quantity arithmetic gave it
    of_overhead, of_weights = KV_UNCERTAINTY_DOWN
    spread = of_overhead * overhead + of_weights * (b.weights + b.draft_weights)
    assert exactly(b.kv_uncertainty(up=False), spread.to("byte"))
    per_block = float(b.kv_bytes_per_token.to("byte / token").magnitude) * b.settings.block_size
    low = float((b.kv_cache - spread).to("byte").magnitude)
    expected = (low // per_block) * b.settings.block_size
    assert b.kv_tokens_if(b.kv_cache - spread) == Q(int(expected), "token")
    # vLLM 0.34, the fraction unset: the card less the CUDA context and the extensible KV
    # cache's margin, max(1 GiB, 0.75 x the activation peak)
    path.write_text(manifest(EAGLE3_70B))
    [b] = budgets(path)
    assert b.settings.extensible_kv_cache and b.settings.memory_fraction == 1.0
    margin = max(in_bytes(Q(1, "GiB")), 0.75 * in_bytes(b.overhead["activation"]))
    assert in_bytes(b.usable) == in_bytes(b.total) - in_bytes(Q(0.5, "GiB"))
    assert in_bytes(b.overhead["margin"]) == margin


def test_tensorrt_llm_takes_its_share_of_what_is_free_after_loading():
    for b in budgets(REAL / "dynamo-trtllm-configmap.yaml"):
        fixed = b.weights + b.draft_weights
        free = b.total - fixed - b.overhead_total
        kv = free * b.settings.memory_fraction if free.magnitude > 0 else free
        assert exactly(b.kv_cache, kv)
        usable = fixed + b.overhead_total + (kv if kv.magnitude > 0 else Q(0, "byte"))
        assert exactly(b.usable, b.total if usable > b.total else usable)


def test_sglang_and_tgi_figures_keep_their_units():
    for name in ("dynamo-sglang-config-file.yaml", "gke-tgi-google-cloud-dlc.yaml"):
        for b in budgets(REAL / name):
            for figure in (b.usable, b.weights, b.draft_weights, b.kv_cache, b.overhead_total):
                assert str(figure.units) == "byte"
            assert str(b.kv_bytes_per_sequence.units) == "byte"
            assert exactly(b.overhead_total, sum(b.overhead.values(), Q(0, "byte")))
            if b.settings.engine == "tgi":  # the warm-up's margin, in bytes too
                assert str(b.warmup_margin.units) == "byte"


def test_plain_numbers_become_the_quantities_they_stand_for():
    assert exactly(bytes_quantity(3), Q(3, "byte"))
    assert exactly(bytes_quantity(2.5), Q(2.5, "byte"))
    assert exactly(tokens_quantity(4096), Q(4096, "token"))
    assert in_bytes(Q(1.5, "GiB")) == Q(1.5, "GiB").to("byte").magnitude
    assert in_bytes(Q(7, "byte")) == 7 and type(in_bytes(Q(7, "byte"))) is int
    assert in_bytes_per_token(Q(2, "KiB / token")) == 2048
