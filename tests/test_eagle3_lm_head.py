"""An EAGLE-3 head's lm_head as each engine release holds it (engines.yaml
eagle3_lm_head_from_target): vLLM 0.8.5-0.10.2 keep the head's own; 0.11.0 takes the target's
for one of the same shape; from 0.11.1 where the checkpoint holds none, or a copy equal to the
target's. SGLang builds the head's own and swaps only after the draft worker's load.

The fixtures under tests/fixtures/drafters/ name their source (InferenceX's MiniMax-M3 EAGLE-3
recipe); the other deployments are the catalog's real heads on their targets."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from helpers import manifest
from real_lint import errors, lint

from hbmlint import budget
from hbmlint.lint import lint_file
from hbmlint.rules import load_rules

DRAFTERS = Path(__file__).parent / "fixtures" / "drafters"
GIB = 2**30
# MiniMax-M3's 200,064-token vocabulary x 6,144 wide, in BF16
MINIMAX_LM_HEAD = 200_064 * 6_144 * 2


def deployments(path: Path) -> dict:
    result = lint_file(path, path.name, [])
    return {item.deployment.name.rsplit("/", 1)[-1]: item.budget for item in result.deployments}


def draft_bytes(b, **changes) -> float:
    return float((b.whatif(**changes) if changes else b).draft_weights.to("byte").magnitude)


def test_minimax_m3_recipe_runs_its_head_on_the_targets_lm_head_from_vllm_0_11_1():
    decode = deployments(DRAFTERS / "inferencex-minimax-m3-eagle3.yaml")["decode"]
    newest = draft_bytes(decode)
    # the head's own lm_head, a quarter of it on each of the 4 GPUs, in 0.8.5-0.10.2 only
    assert draft_bytes(decode, engine_version="0.10.2") - newest == MINIMAX_LM_HEAD / 4
    # 0.11.0 shares one of the target's shape; 0.11.1 and later the copy its card says it holds
    assert draft_bytes(decode, engine_version="0.11.0") == newest
    assert draft_bytes(decode, engine_version="0.11.1") == newest
    # what is left: one layer, the 3 x 6,144 fc and norms, 0.45 GiB a GPU (was 1.02)
    assert newest / GIB == pytest.approx(0.45, abs=0.005)
    assert (
        "lm_head not counted (200,064 tokens, 0.57 GiB per GPU)" in decode.assumed["draft_weights"]
    )


def test_the_prefill_workers_estimate_holds_the_context_without_a_second_lm_head():
    rules, _ = load_rules()
    # TP 1: a second 200,064-token lm_head would take 2.29 GiB, whole blocks of 128 tokens at
    # 62,464 bytes a token (the target's 61,440 and the head's 1,024, fp8)
    path = DRAFTERS / "minimax-m3-eagle3-long-context.yaml"
    prefill = deployments(path)["prefill"]
    tokens = prefill.kv_tokens.to("token").magnitude
    # the same head counted with an lm_head of its own, as hbmlint did before
    own = replace(prefill.resolved.draft, head_target_copies=frozenset())
    counted = budget.compute(replace(prefill.resolved, draft=own), prefill.settings, {})
    lost = tokens - counted.kv_tokens.to("token").magnitude
    assert lost == pytest.approx(MINIMAX_LM_HEAD / 62_464, abs=128)
    assert tokens >= 500_000 > counted.kv_tokens.to("token").magnitude
    # the context is within the estimate's uncertainty either way: a warning, no error, and the
    # warning's estimate is the one that holds it
    result = lint(path, rules)
    assert errors(result) == []
    [near] = [f for f in result.diagnostics if f.code == "HBM105"]
    assert f"estimated at {int(tokens):,} tokens" in near.message


def eagle3_budget(write, target: str, head: str, engine: str = "vllm", version: str = ""):
    spec = f"""
        engine: {engine}
        {f"engine_version: {version!r}" if version else ""}
        gpu: {{type: H200, count: 8}}
        model: {{name: {target}}}
        parallel: {{tensor: 8}}
        serving: {{max_model_len: 32768}}
        speculative: {{method: eagle3, model: {head}, num_speculative_tokens: 3}}
        """
    path = write(manifest(spec))
    [item] = lint_file(path, path.name, []).deployments
    return item.budget


@pytest.mark.parametrize(
    ("version", "counted"),
    [("0.10.2", True), ("0.11.0", False), ("0.11.1", True), ("", True)],
)
def test_a_trained_full_vocabulary_lm_head_is_kept_from_vllm_0_11_1(write, version, counted):
    # lightseekorg's Kimi-K2.5 head trains a 163,840-token lm_head of its own ("independent
    # embed/lm_head"): vLLM 0.11.0 swapped it for the target's by shape alone; 0.11.1 compares
    b = eagle3_budget(
        write, "moonshotai/Kimi-K2.5", "lightseekorg/kimi-k2.5-eagle3", version=version
    )
    shared = eagle3_budget(
        write, "moonshotai/Kimi-K2.5", "lightseekorg/kimi-k2.5-eagle3", version="0.11.0"
    )
    own = 163_840 * 7_168 * 2 / 8
    assert draft_bytes(b) - draft_bytes(shared) == (own if counted else 0)
    if counted and version != "0.10.2":
        assert "own lm_head counted" in b.assumed["draft_weights"]


@pytest.mark.parametrize("version", ["0.10.2", "0.11.0", "0.11.1", ""])
def test_a_reduced_vocabulary_lm_head_is_the_heads_own_in_every_release(write, version):
    b = eagle3_budget(
        write,
        "meta-llama/Llama-3.3-70B-Instruct",
        "lmsys/sglang-EAGLE3-LLaMA3.3-Instruct-70B",
        version=version,
    )
    head = b.resolved.draft
    assert head.draft_vocab_size == 32_000
    # the embedding is the target's in each (the same shape); the 32,000-token lm_head is not
    embedding_shared = budget.eagle_weights(head, "eagle3", 8, None, frozenset({"embed_tokens"}))
    both_shared = budget.eagle_weights(
        head, "eagle3", 8, None, frozenset({"embed_tokens", "lm_head"})
    )
    assert draft_bytes(b) == float(embedding_shared.to("byte").magnitude)
    lm_head = float((embedding_shared - both_shared).to("byte").magnitude)
    assert lm_head == 32_000 * 8_192 * 2 / 8


def test_sglang_counts_the_lm_head_it_builds_before_the_swap(write):
    b = eagle3_budget(write, "MiniMaxAI/MiniMax-M3", "Inferact/MiniMax-M3-EAGLE3-GQA", "sglang")
    vllm = eagle3_budget(write, "MiniMaxAI/MiniMax-M3", "Inferact/MiniMax-M3-EAGLE3-GQA")
    # SGLang: its embedding and lm_head (the head class builds both) on top of vLLM's layers
    assert draft_bytes(b) - draft_bytes(vllm) == pytest.approx(2 * MINIMAX_LM_HEAD / 8, rel=1e-9)
    assert "lm_head counted (200,064 tokens" in b.assumed["draft_weights"]


@pytest.mark.parametrize(("version", "shared"), [("0.10.2", False), ("0.11.1", True), ("", True)])
def test_a_head_that_stores_no_lm_head_runs_on_the_targets(write, version, shared):
    # nvidia/Kimi-K2.6-Eagle3 ships no lm_head (sgl-project/sglang#27908): here MiniMax-M3's head
    # with its lm_head left out. vLLM 0.10.2 still builds one of its own (unloaded); 0.11.1 shares.
    b = eagle3_budget(
        write, "MiniMaxAI/MiniMax-M3", "Inferact/MiniMax-M3-EAGLE3-GQA", version=version
    )
    head = replace(
        b.resolved.draft,
        head_stores=frozenset({"embed_tokens"}),
        head_target_copies=frozenset(),
    )
    assert budget.eagle3_lm_head_shared(b.settings, head, b.resolved.target) is shared
    kept = replace(head, head_stores=frozenset({"embed_tokens", "lm_head"}))
    # a stored lm_head that is no copy of the target's is kept from 0.11.1
    assert budget.eagle3_lm_head_shared(b.settings, kept, b.resolved.target) is False
    unknown = replace(head, head_stores_known=False)
    assert budget.eagle3_lm_head_shared(b.settings, unknown, b.resolved.target) is False
