"""SGLang and TGI accounting against their start-up logs (benchmarks/calibration/sglang.yaml and
tgi.yaml): fixture manifests of logged deployments, each budget against the record's numbers,
and the release-dependent pieces (drafter inside or outside the fraction, --max-total-tokens,
TGI's warm-up) and verdicts (SGLang starts with a pool shorter than its context)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from helpers import REPO

from hbmlint.diagnostics import Severity
from hbmlint.lint import lint_file
from hbmlint.rules import load_rules

FIDELITY = Path(__file__).parent / "fixtures" / "fidelity"
CALIBRATION = REPO / "benchmarks" / "calibration"
GIB = 2**30


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def record(engine: str, record_id: str) -> dict:
    records = yaml.safe_load((CALIBRATION / f"{engine}.yaml").read_text(encoding="utf-8"))
    return next(r for r in records if r["id"] == record_id)


def linted(name: str, rules):
    result = lint_file(FIDELITY / name, name, rules)
    [deployment] = result.deployments
    return deployment.budget, result.diagnostics


def tokens(budget) -> int:
    return int(budget.kv_tokens.magnitude)


def test_qwq_on_four_l4s_holds_the_logged_pool_within_15_percent(rules):
    # Validation record: 46,611 tokens. Known gaps, none fitted on this record: SGLang's TP 4
    # start takes 0.13 GiB for torch.distributed before weight loading, and its weight loading
    # 0.25 GiB more than the parameters (15.54 logged, 15.29 computed); both leave less pool
    # than hbmlint's TP 1 figures, so the estimate is high, by 13%.
    logged = record("sglang", "sglang-llmsinclouds-qwq32b-4xl4-tp4")
    assert logged["split"] == "validation"
    budget, findings = linted("sglang-qwq32b-4xl4.yaml", rules)
    assert budget.settings.memory_fraction == logged["mem_fraction_static"]  # SGLang's own 0.85
    measured = logged["memory"]["kv_cache_tokens"]
    assert tokens(budget) == pytest.approx(measured, rel=0.15)
    assert budget.weights.to("GiB").magnitude == pytest.approx(
        logged["memory"]["weights_gb"], rel=0.02
    )
    # It started, serving 131072-token contexts out of a 46,611-token pool: no refusal
    # predicted; the short pool is a warning at --context-length
    assert not [f for f in findings if f.severity is Severity.ERROR]
    [short] = [f for f in findings if f.code == "HBM104"]
    assert short.severity is Severity.WARNING and "131,072" in short.message


def test_max_total_tokens_caps_the_pool_as_logged(rules):
    # Validation record: target and EAGLE draft pools both hold the 20,480-token cap
    logged = record("sglang", "sglang-docs-eagle-llama3-8b-h100")
    budget, findings = linted("sglang-eagle-llama3-8b-capped.yaml", rules)
    assert tokens(budget) == logged["memory"]["kv_cache_tokens"] == 20480
    # the cap leaves bytes free: the pool holds 20,480 tokens' worth, not the fraction's rest;
    # in this release (0.4.4) the drafter's pool of as many tokens sits in the reserve
    per_token = budget.kv_bytes_per_token_target.to("byte / token").magnitude
    assert budget.kv_cache.to("byte").magnitude == pytest.approx(20480 * per_token)
    assert not [f for f in findings if f.severity is Severity.ERROR]


def test_tgi_warmup_sizes_the_cache_from_what_is_free_after_the_prefill(rules):
    budget, _ = linted("tgi-mistral7b-a10g.yaml", rules)
    s = budget.settings
    assert s.max_num_batched_tokens == 4145  # TGI 2.0: max_input_tokens + 50
    # CUDA graphs are captured after the KV cache: not taken off it
    assert "cuda_graphs" not in budget.overhead
    free = (budget.usable - budget.weights - budget.overhead_total).to("byte").magnitude
    # the warm-up batch: 4145 prefill tokens in requests of at most 4095 (the default
    # max_input_tokens), each allowed up to max_total_tokens 4096: 4095 + 1 and 50 + 4046, so
    # 2 x 256 blocks of 16 tokens held while the free memory is read
    block = 16 * budget.kv_bytes_per_token_target.to("byte / token").magnitude
    batch = 512 * block
    blocks = int(0.95 * (free - batch) // block) + 512
    assert budget.kv_cache.to("byte").magnitude == pytest.approx(blocks * block)
    # the warm-up asks for prefill logprobs: the peak holds logits over all 4145 tokens
    assert budget.overhead["activation"].to("byte").magnitude >= 4145 * 32768 * 8
    # calibration record: 43,808 tokens logged; the estimate is high (the warm-up peak is
    # larger than the lower bound taken; the JumpStart container's settings are not logged):
    # +25.5% at this commit, within 30%
    logged = record("tgi", "tgi-hyperpod-mistral7b-a10g")["memory"]["kv_cache_tokens"]
    assert logged < tokens(budget) < 1.3 * logged


SGLANG_EAGLE = """
engine: sglang
engine_version: "{version}"
gpu: {{type: H100}}
model: {{name: meta-llama/Llama-3.1-8B-Instruct}}
serving: {{gpu_memory_utilization: 0.8}}
speculative: {{method: eagle, model: yuhuili/EAGLE-LLaMA3.1-Instruct-8B, num_speculative_tokens: 3}}
"""


def sglang_budget(text: str):
    from test_fidelity import budget_of

    budget, _ = budget_of(text)
    return budget


def test_sglang_drafter_leaves_the_fraction_by_release():
    old = sglang_budget(SGLANG_EAGLE.format(version="0.5.9"))
    mid = sglang_budget(SGLANG_EAGLE.format(version="0.5.12"))
    new = sglang_budget(SGLANG_EAGLE.format(version="0.5.14"))
    usable = old.usable.to("byte").magnitude
    weights = old.weights.to("byte").magnitude
    draft = old.draft_weights.to("byte").magnitude
    target = old.kv_bytes_per_token_target.to("byte / token").magnitude
    both = old.kv_bytes_per_token.to("byte / token").magnitude
    # before 0.5.11 the pool is sized on the target's cells after the target's weights; the
    # drafter's weights and pool come out of the reserve
    assert tokens(old) == int((usable - weights) // target)
    # from 0.5.11 the cell counts the draft layer; from 0.5.14 the draft weights are inside
    assert tokens(mid) == int((usable - weights) // both)
    assert tokens(new) == int((usable - weights - draft) // both)
    assert tokens(old) > tokens(mid) > tokens(new)


def test_sglang_fraction_is_of_the_memory_free_at_start():
    b = sglang_budget("""
        engine: sglang
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving: {gpu_memory_utilization: 0.88}
    """)
    free = b.total.to("GiB").magnitude - 0.4
    assert b.usable.to("GiB").magnitude == pytest.approx(0.88 * free)
    assert "free_at_start" in b.assumed
    # the shared docs record: 78.81 GiB free on an H100, 444,500 tokens of Llama 3.1 8B
    assert tokens(b) == pytest.approx(444_500, rel=0.01)


def test_sglang_weights_beyond_the_fraction_refuse(rules, tmp_path):
    manifest = tmp_path / "x.yaml"
    manifest.write_text(
        "apiVersion: hbmlint/v1\nkind: ServingManifest\nmetadata: {name: big}\nspec:\n"
        "  engine: sglang\n  gpu: {type: L4}\n  model: {name: Qwen/QwQ-32B}\n"
        "  serving: {max_model_len: 32768}\n",
        encoding="utf-8",
    )
    result = lint_file(manifest, "x.yaml", rules)
    # 61 GiB of weights on a 22 GiB card: "Not enough memory. Please try to increase
    # --mem-fraction-static", an error at HBM101, and no HBM102 on top of it
    found = {f.code for f in result.diagnostics if f.severity is Severity.ERROR}
    assert found == {"HBM101"}


def test_tgi_3_warms_up_without_prefill_logprobs():
    from test_fidelity import budget_of

    text = """
        engine: tgi
        engine_version: "{v}"
        gpu: {{type: A10G}}
        model: {{name: mistralai/Mistral-7B-Instruct-v0.3}}
        serving: {{max_model_len: 4096, max_num_batched_tokens: 4145}}
    """
    two, _ = budget_of(text.format(v="2.0.4"))
    three, _ = budget_of(text.format(v="3.0.1"))
    # 2.x holds logits over all 4145 prefill tokens; 3.x (prefill logprobs off by default)
    # only the forward pass's peak
    assert two.overhead["activation"].to("byte").magnitude >= 4145 * 32768 * 8
    assert three.overhead["activation"] < two.overhead["activation"]
    # but 3.x keeps 5% of the whole card back (fraction x wiggle room), not 5% of what is free,
    # in blocks of 1 token (flashinfer): on a 22 GiB A10G that outweighs the logits
    per_token = three.kv_bytes_per_token_target.to("byte / token").magnitude
    usable = three.usable.to("byte").magnitude
    free = usable - (three.weights + three.overhead_total).to("byte").magnitude
    assert three.settings.block_size == 1
    assert tokens(three) == int((free - 0.05 * usable) // per_token)
    assert tokens(three) < tokens(two)


def test_sglang_cuda_graph_max_bs_moves_the_default_fraction(rules, tmp_path):
    manifest = tmp_path / "k.yaml"
    manifest.write_text(
        (FIDELITY / "sglang-qwq32b-4xl4.yaml")
        .read_text(encoding="utf-8")
        .replace("v0.4.3.post4-cu125", "v0.5.4-cu126")
        .replace(
            "- --trust-remote-code",
            "- --trust-remote-code\n        - --cuda-graph-max-bs\n        - '8'",
        ),
        encoding="utf-8",
    )
    [deployment] = lint_file(manifest, "k.yaml", rules).deployments
    budget = deployment.budget
    assert deployment.deployment.serving.cuda_graph_max_bs == 8
    total = budget.total.to("MiB").magnitude
    # 0.5.4 on a 22 GiB card: 512 + 2048 x 1.5 + 8 graphs x 2 + 4 x 1 / 8 x 1024 MiB
    reserved = 512 + 2048 * 1.5 + 8 * 2 + 4 / 8 * 1024
    assert budget.settings.memory_fraction == round((total - reserved) / total, 3)


def test_sglang_gemma3_keeps_every_layer_and_cuts_the_fraction_for_vision():
    # sglang-pr4826-gemma3-4b-it-h200 (0.4.4): "KV Cache is allocated. #tokens: 834615, K size:
    # 54.12 GB": all 34 layers hold the whole context (SGLang keeps Gemma 3 out of its hybrid
    # SWA pool), in 0.88 x 0.95 of the memory free at start (a multimodal model)
    spec = """
        engine: sglang
        engine_version: "{version}"
        gpu: {{type: H200, memory: 139.61 GiB}}
        model: {{name: google/gemma-3-4b-it}}
        serving: {{gpu_memory_utilization: 0.88}}
    """
    b = sglang_budget(spec.format(version="0.4.4"))
    assert b.kv_bytes_per_token.to("byte / token").magnitude == 34 * 2 * 4 * 256 * 2
    assert b.settings.memory_fraction == pytest.approx(0.88 * 0.95)
    assert tokens(b) == pytest.approx(834_615, rel=0.005)
    # from 0.4.9 SGLang cuts only a default it derived itself, by the tower's size: SigLIP's 27
    # layers of 1152 against a ViT-L/14's 24 of 1024
    assert sglang_budget(spec.format(version="0.5.10")).settings.memory_fraction == 0.88
    unset = sglang_budget(
        spec.format(version="0.5.10").replace(
            "serving: {gpu_memory_utilization: 0.88}", "serving: {max_model_len: 8192}"
        )
    )
    text_only = sglang_budget(
        spec.format(version="0.5.10")
        .replace("google/gemma-3-4b-it", "google/gemma-2-9b-it")
        .replace("serving: {gpu_memory_utilization: 0.88}", "serving: {max_model_len: 8192}")
    )
    factor = 0.95 * (1 - 0.1 * (27 * 1152**2 / (24 * 1024**2) - 1))
    assert unset.settings.memory_fraction == pytest.approx(
        text_only.settings.memory_fraction * factor
    )
    assert "multimodal" in unset.assumed["gpu_memory_utilization"]


SGLANG_TP = """
engine: sglang
engine_version: "0.5.6"
gpu: {{type: {gpu}, count: {tp}}}
model: {{name: {model}}}
parallel: {{tensor: {tp}}}
serving: {{gpu_memory_utilization: 0.8}}
"""


def test_sglang_weights_count_the_allocators_rounding_of_per_rank_tensors():
    # Qwen3-14B at TP 4 (record kuiperinfer-projecta-v2-sglang-qwen3-14b-4x4090-tp4): "Load
    # weight end ... mem usage=7.08 GB" against 6.89 GiB of tensors. Per rank its down
    # projection is 42.5 MiB and gate/up 85 MiB; the allocator gives each a segment rounded up
    # to 2 MiB, and SGLang reads the device's free memory
    b = sglang_budget(SGLANG_TP.format(gpu="RTX-4090", tp=4, model="Qwen/Qwen3-14B"))
    assert b.weights.to("GiB").magnitude == pytest.approx(7.08, abs=0.02)
    note = b.assumed["weights"]
    assert "allocator holds beyond the weight tensors" in note and "float32" in note
    # on one GPU the same shapes are whole multiples of 2 MiB: the allocator holds nothing more
    from hbmlint import catalog
    from hbmlint.catalog.allocator import weights_slack

    entry = catalog.find_model("Qwen/Qwen3-32B")
    arch = catalog.architecture_from_config(entry["config"], entry["id"], entry["source"])
    assert weights_slack(arch, 1, 1, 2) < 2**20
    assert weights_slack(arch, 4, 1, 2) > 0


@pytest.mark.parametrize(
    ("mib", "slack_mib"),
    [(17.5, 0.5), (42.5, 1.5), (85, 1), (12.5, 1.5), (100, 0), (9.5, 0), (0.5, 0)],
)
def test_allocator_slack_per_tensor(mib, slack_mib):
    from hbmlint.catalog.allocator import slack

    assert slack(mib * 2**20) == slack_mib * 2**20


def test_allocator_packs_tensors_under_10_mib_into_shared_20_mib_segments():
    # three 8 MiB tensors: the first takes a 20 MiB segment and leaves a 12 MiB block, the
    # second fits there and leaves 4 MiB, the third needs a new segment: 40 MiB for 24
    from hbmlint.catalog.allocator import held

    assert held([8 * 2**20] * 3) == 16 * 2**20
    # a rest of 1 MiB or less is not split off: it stays with its tensor
    assert held([19.5 * 2**20, 0.75 * 2**20]) == 0.5 * 2**20
