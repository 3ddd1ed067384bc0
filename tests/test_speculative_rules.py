"""The speculative rules HBM202-HBM208, each tripped and passed, with their fixes' numbers; the
alternatives table (hbmlint/speculative.py) and `hbmlint budget --compare-speculative`."""

from __future__ import annotations

import json
import re

import pytest
from helpers import EXAMPLES, manifest

from hbmlint.lint import lint_file
from hbmlint.rules import load_rules
from hbmlint.speculative import compare, tokens_per_step


def lint(write, spec: str, name: str = "deploy.yaml"):
    path = write(manifest(spec), name)
    rules, problems = load_rules()
    assert not problems
    return lint_file(path, path.name, rules)


def found(result, code: str):
    hits = [d for d in result.diagnostics if d.code == code]
    return hits[0] if hits else None


def budget(result):
    [item] = result.deployments
    return item.budget


def tokens(text: str) -> list[int]:
    return [int(n.replace(",", "")) for n in re.findall(r"([\d,]+) tokens", text)]


# --- HBM202 draft-displaces-sequences ----------------------------------------------------------

DISPLACING = """
    gpu: {type: H100}
    model: {name: meta-llama/Llama-3.1-8B-Instruct}
    serving: {max_model_len: 32768}
    speculative: {method: draft_model, model: meta-llama/Llama-3.2-3B-Instruct,
                  num_speculative_tokens: 4}
    workload: {concurrency: 12, context_tokens: 32768}
"""


def test_hbm202_trips_when_the_drafter_costs_workload_sequences(write):
    result = lint(write, DISPLACING)
    finding = found(result, "HBM202")
    assert finding is not None and finding.severity.name == "WARNING"
    b = budget(result)
    without = b.whatif(speculative_method="none")
    displaced = int((without.kv_tokens - b.kv_tokens).magnitude)
    assert f"displaces {displaced:,} tokens of KV cache" in finding.message
    fit = int(b.kv_tokens.magnitude) // 32768
    assert fit < 12 <= int(without.kv_tokens.magnitude) // 32768
    assert (
        "Without the drafter 12 of the workload's 12 sequences of 32,768 tokens fit; "
        f"with it {fit}." in finding.fixes
    )
    [fp8] = [f for f in finding.fixes if f.startswith("Quantize the draft to FP8")]
    assert tokens(fp8) == [
        int(b.kv_tokens.magnitude),
        int(b.whatif(draft_quantization="fp8").kv_tokens.magnitude),
    ]
    [kv] = [f for f in finding.fixes if "speculative.kv_cache_dtype: fp8" in f]
    assert tokens(kv)[1] == int(b.whatif(draft_kv_cache_dtype="fp8").kv_tokens.magnitude)


def test_hbm202_passes_when_the_workload_still_fits(write):
    result = lint(write, DISPLACING.replace("concurrency: 12", "concurrency: 4"))
    assert found(result, "HBM202") is None


def test_hbm202_without_workload_uses_the_share_of_the_cache(write):
    # vLLM 0.11's 39-byte sampler: from 0.17 (14 bytes) the rejection sampler's verify bytes
    # (k = 4) exceed the plain sampler's and count against the drafter too
    spec = DISPLACING.replace("    workload: {concurrency: 12, context_tokens: 32768}\n", "")
    older = '    engine_version: "0.11.0"\n    gpu: {type: H100}'
    spec = spec.replace("    gpu: {type: H100}", older)
    finding = found(lint(write, spec), "HBM202")
    assert finding is not None and re.search(
        r"5\d\.\d% of what the cache would hold", finding.message
    )
    small = spec.replace("Llama-3.2-3B-Instruct", "Llama-3.2-1B-Instruct")
    assert found(lint(write, small), "HBM202") is None  # 1B: under a quarter of the cache


# --- HBM203 draft-vocabulary-mismatch ----------------------------------------------------------


def test_hbm203_trips_on_a_draft_from_another_tokenizer(write):
    result = lint(
        write,
        """
        gpu: {type: A100-80GB}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving: {max_model_len: 8192}
        speculative: {method: draft_model, model: TinyLlama/TinyLlama-1.1B-Chat-v1.0,
                      num_speculative_tokens: 4}
        """,
    )
    finding = found(result, "HBM203")
    assert finding.severity.name == "ERROR"
    assert "vocabulary of 32,000 tokens" in finding.message and "128,256" in finding.message
    [ngram] = [f for f in finding.fixes if "speculative.method: ngram" in f]
    ngram_tokens = budget(result).whatif(speculative_method="ngram").kv_tokens.magnitude
    assert tokens(ngram) == [int(ngram_tokens)]


def test_hbm203_passes_for_padded_vocabularies_of_one_family(write):
    result = lint(
        write,
        """
        engine: sglang
        gpu: {type: H100, count: 4}
        model: {name: Qwen/Qwen2.5-72B-Instruct}
        speculative: {method: draft_model, model: Qwen/Qwen2.5-0.5B-Instruct,
                      num_speculative_tokens: 4}
        """,
    )
    b = budget(result)
    assert b.resolved.draft.vocab_size != b.resolved.target.vocab_size  # 151,936 vs 152,064
    assert found(result, "HBM203") is None


def test_hbm203_vllm_wants_the_padded_sizes_equal(write):
    # vLLM's draft_model check compares the numbers (verify_equal_vocab_size_if_draft_model,
    # 0.25.0-0.34.0 wheels; issue #7252: Qwen2 1.5B against 72B refused)
    result = lint(
        write,
        """
        gpu: {type: H100, count: 4}
        model: {name: Qwen/Qwen2.5-72B-Instruct}
        speculative: {method: draft_model, model: Qwen/Qwen2.5-0.5B-Instruct,
                      num_speculative_tokens: 4}
        """,
    )
    refused = found(result, "HBM203")
    assert refused is not None and refused.severity.name == "ERROR"
    assert "should have the same vocabulary size" in refused.message
    assert "vocab_size is 152,064" in refused.fixes[0].message


# --- HBM204 draft-too-large --------------------------------------------------------------------


def test_hbm204_trips_on_a_draft_a_quarter_of_its_target(write):
    result = lint(
        write,
        """
        gpu: {type: H200}
        model: {name: Qwen/Qwen3-32B}
        serving: {max_model_len: 32768, kv_cache_dtype: fp8}
        speculative: {method: draft_model, model: Qwen/Qwen3-8B, num_speculative_tokens: 4}
        """,
    )
    finding = found(result, "HBM204")
    assert finding.message.startswith(
        "the draft Qwen/Qwen3-8B has 25.0% of the parameters of Qwen/Qwen3-32B (limit 20.0%)"
    )


def test_hbm204_passes_for_a_small_draft(write):
    result = lint(write, DISPLACING.replace("3B-Instruct", "1B-Instruct"))
    assert found(result, "HBM204") is None  # 1.24 B of 8.03 B: 15%


# --- HBM205 draft-tensor-parallel --------------------------------------------------------------

DRAFT_TP = """
    gpu: {type: H100, count: 4}
    model: {name: meta-llama/Llama-3.1-70B-Instruct}
    serving: {max_model_len: 8192}
    speculative: {method: draft_model, model: meta-llama/Llama-3.2-1B-Instruct,
                  num_speculative_tokens: 4, tensor_parallel: %d}
"""


def test_hbm205_trips_on_a_draft_tp_vllm_rejects(write):
    result = lint(write, DRAFT_TP % 2)
    finding = found(result, "HBM205")
    assert finding.severity.name == "ERROR"
    assert "accepts only 1 or 4" in finding.message
    b = budget(result)
    one, four = finding.fixes
    assert tokens(one) == [int(b.whatif(draft_tensor_parallel=1).kv_tokens.magnitude)]
    assert tokens(four) == [int(b.whatif(draft_tensor_parallel=4).kv_tokens.magnitude)]
    assert tokens(four)[0] > tokens(one)[0]  # a split draft leaves more for the KV cache


@pytest.mark.parametrize("draft_tp", [1, 4])
def test_hbm205_passes_for_1_or_the_targets_tp(write, draft_tp):
    assert found(lint(write, DRAFT_TP % draft_tp), "HBM205") is None


# --- HBM206 speculative-tokens-unsupported -----------------------------------------------------

MTP_CONFIG = {
    "architectures": ["DeepseekV3ForCausalLM"],
    "hidden_size": 2048,
    "intermediate_size": 8192,
    "num_hidden_layers": 16,
    "num_attention_heads": 16,
    "num_key_value_heads": 16,
    "vocab_size": 100000,
    "num_nextn_predict_layers": 2,
    "torch_dtype": "bfloat16",
}


@pytest.mark.parametrize(("k", "trips"), [(3, True), (4, False), (2, False), (1, False)])
def test_hbm206_mtp_tokens_must_be_a_multiple_of_its_layers(write, k, trips):
    write(json.dumps(MTP_CONFIG), "mtp-config.json")
    spec = f"""
        gpu: {{type: H100}}
        model: {{config: mtp-config.json}}
        serving: {{max_model_len: 8192}}
        speculative: {{method: mtp, num_speculative_tokens: {k}}}
    """
    finding = found(lint(write, spec), "HBM206")
    assert (finding is not None) is trips
    if trips:
        assert "predicts 2 tokens per round" in finding.message
        assert finding.fixes == [
            "Set speculative.num_speculative_tokens to 2.",
            "Or to 2 (a multiple: the MTP layers run again for each round).",
        ]


# --- HBM207 draft-context-shorter --------------------------------------------------------------


def test_hbm207_trips_when_the_eagle_head_covers_less_context(write):
    result = lint(
        write,
        """
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving: {max_model_len: 16384}
        speculative: {method: eagle3, model: yuhuili/EAGLE3-LLaMA3.1-Instruct-8B,
                      num_speculative_tokens: 3}
        """,
    )
    finding = found(result, "HBM207")
    assert "covers 2,048 tokens of context but the target serves up to 16,384 tokens" in (
        finding.message
    )


def test_hbm207_passes_when_the_draft_covers_the_context(write):
    result = lint(write, DISPLACING.replace("3B-Instruct", "1B-Instruct"))
    assert found(result, "HBM207") is None  # Llama-3.2-1B: 131,072 positions


def test_hbm207_reads_the_drafts_own_max_model_len(write):
    spec = DISPLACING.replace(
        "num_speculative_tokens: 4}",
        "num_speculative_tokens: 4,\n                  max_model_len: 4096}",
    )
    finding = found(lint(write, spec), "HBM207")
    assert "covers 4,096 tokens of context" in finding.message


# --- HBM208 speculative-tradeoff ---------------------------------------------------------------


def test_tokens_per_step_formula():
    assert tokens_per_step(0.0, 4) == 1.0
    assert tokens_per_step(0.5, 1) == pytest.approx(1.5)
    assert tokens_per_step(0.43, 3) == pytest.approx(1.694, abs=1e-3)  # n-gram: "1.6-1.7"
    assert tokens_per_step(0.8, 0) == 1.0


def test_hbm208_motivating_case_recommends_ngram(write):
    rules, _ = load_rules()
    path = EXAMPLES / "llama70b-fp8-h100-8b-draft.yaml"
    result = lint_file(path, "examples/llama70b-fp8-h100-8b-draft.yaml", rules)
    finding = found(result, "HBM208")
    assert finding.severity.name == "INFO"
    assert finding.message.startswith("estimate: n-gram lookup would serve this deployment best")
    assert "as set: draft model Llama-3.1-8B-Instruct: does not start" in finding.message
    b = budget(result)
    ngram_tokens = int(b.whatif(speculative_method="ngram").kv_tokens.magnitude)
    assert finding.fixes == [
        f"speculative.method: ngram: KV cache {ngram_tokens:,} tokens; the current setting "
        "does not start."
    ]


def test_hbm208_trips_when_another_drafter_serves_the_workload_better(write):
    finding = found(lint(write, DISPLACING), "HBM208")
    assert "EAGLE-3 head would serve this deployment best, 12 sequences" in finding.message
    [fix] = finding.fixes
    assert re.match(r"speculative\.method: eagle3 .*: about \d+\.\d\dx the decode throughput", fix)


def test_hbm208_passes_when_memory_is_not_tight(write):
    # the workload fits: the rule does not second-guess a drafter that costs nothing needed
    assert (
        found(lint(write, DISPLACING.replace("concurrency: 12", "concurrency: 4")), "HBM208")
        is None
    )


def test_hbm208_acceptance_rates_are_overridable_in_config(write, cli, tmp_path):
    path = write(manifest(DISPLACING))
    (tmp_path / ".hbmlint.yaml").write_text(
        "params:\n  speculative-tradeoff: {acceptance_eagle3: 0.1, acceptance_ngram: 0.1,\n"
        "    acceptance_early_exit: 0.1, acceptance_draft_model: 0.9}\n"
    )
    out = cli("--config", tmp_path / ".hbmlint.yaml", "--format", "json", path).json()
    [tradeoff] = [f for f in out if f["code"] == "HBM208"]
    # with EAGLE-3 at 0.1 the free n-gram drafter wins: 1 + 0.1 + ... = 1.11 tokens a pass
    assert "n-gram lookup would serve this deployment best" in tradeoff["message"]
    assert "x 1.11 tokens per step" in tradeoff["message"]


# --- the alternatives table and the CLI --------------------------------------------------------


def example_budget(name: str):
    result = lint_file(EXAMPLES / name, name, [])
    return budget(result)


def tradeoff_params() -> dict:
    """The comparison takes its parameters from its caller: here, the rule's own."""
    rules, _ = load_rules()
    return next(r for r in rules if r.name == "speculative-tradeoff").params


def test_compare_on_the_motivating_example():
    table = compare(example_budget("llama70b-fp8-h100-8b-draft.yaml"), tradeoff_params())
    by_key = {r.key: r for r in table.rows}
    assert table.context == 8192 and table.wanted == 4 and table.from_workload
    assert not by_key["current"].starts and not by_key["draft_fp8"].starts
    assert by_key["ngram"].served == 2 and by_key["none"].served == 2
    assert by_key["draft_offload"].speedup < 0.1  # 15 GiB over PCIe per drafted token
    assert table.best.key == "ngram" and table.gain is None


def test_compare_on_the_small_draft_example_prefers_an_eagle3_head():
    table = compare(example_budget("qwen3-32b-h200-small-draft.yaml"), tradeoff_params())
    by_key = {r.key: r for r in table.rows}
    assert all(r.served == 8 for r in table.rows)  # every alternative holds the workload
    assert table.best.key == "eagle3"
    # at the same batch the throughput ratio is the speed-up ratio
    assert table.gain == pytest.approx(by_key["eagle3"].speedup / by_key["current"].speedup)
    # the 0.6B draft reads its own KV cache (57 KB a token, 8 x 32k tokens) on each of its 4
    # passes: about 4.7 ms each against a 27 ms verify pass, so it buys little; the EAGLE-3
    # head's one layer of KV costs a fifth of that
    assert 1.1 < by_key["current"].speedup < 1.5
    assert by_key["eagle3"].speedup > 2.5
    assert 1.8 < table.gain < 2.6


def test_budget_compare_speculative_text_and_json(cli):
    example = str(EXAMPLES / "qwen3-32b-h200-small-draft.yaml")
    text = cli("budget", "--compare-speculative", example)
    assert text.exit_code == 0
    assert "speculative decoding alternatives, per GPU; 8 sequences of 32,768 tokens" in text.output
    assert re.search(r"\* EAGLE-3 head .* 8 +0\.80 +4 +3\.36", text.output)
    assert "best: EAGLE-3 head, speculative.method: eagle3" in text.output
    assert "(estimate:" in text.output
    [item] = cli("budget", "--compare-speculative", "--format", "json", example).json()
    assert item["best"] == "eagle3" and item["sequences_wanted"] == 8
    keys = [a["key"] for a in item["alternatives"]]
    assert keys == [
        "current",
        "draft_fp8",
        "draft_offload",
        "eagle3",
        "early_exit",
        "ngram",
        "none",
    ]
    assert item["alternatives"][0]["draft_weights_bytes"] > 0


# --- HBM209 speculation-costs-throughput ---------------------------------------------------------

SLOWING = """
    gpu: {type: H100}
    model: {name: meta-llama/Llama-3.1-8B-Instruct}
    serving: {max_model_len: 4096, max_num_seqs: 256}
    speculative: {method: draft_model, model: meta-llama/Llama-3.2-1B-Instruct,
                  num_speculative_tokens: 4}
    workload: {concurrency: 256, context_tokens: 512}
"""


def test_hbm209_warns_when_the_drafter_slows_decoding_at_the_workload(write):
    result = lint(write, SLOWING)
    finding = found(result, "HBM209")
    assert finding is not None and finding.severity.name == "WARNING"
    assert finding.message.startswith(
        "estimate: speculation costs throughput here: as set: draft model "
        "Llama-3.2-1B-Instruct decodes 256 sequences of 512 tokens at 0.6"
    )
    assert "compute-bound" in finding.message
    best, fewer = finding.fixes
    assert best.startswith("speculative.method: eagle3") and "the decode throughput" in best
    assert "num_speculative_tokens" in fewer
    # the workload fits, so the memory trade-off (HBM208) stays quiet
    assert found(result, "HBM208") is None


def test_hbm209_passes_where_speculation_pays(write):
    one = SLOWING.replace("concurrency: 256", "concurrency: 1")
    assert found(lint(write, one), "HBM209") is None
    # no declared workload: the rule does not guess the batch
    bare = SLOWING.replace("    workload: {concurrency: 256, context_tokens: 512}\n", "")
    assert found(lint(write, bare), "HBM209") is None


def test_hbm209_uses_hbm208s_acceptance_rates_with_the_configuration(write, cli, tmp_path):
    path = write(manifest(SLOWING))
    assert "HBM209" in {f["code"] for f in cli("--format", "json", path).json()}
    # a draft that is accepted 95% of the time yields 4.5 tokens a step: worth the step
    (tmp_path / ".hbmlint.yaml").write_text(
        "params:\n  speculative-tradeoff: {acceptance_draft_model: 0.95}\n"
    )
    out = cli("--config", tmp_path / ".hbmlint.yaml", "--format", "json", path).json()
    assert "HBM209" not in {f["code"] for f in out}
