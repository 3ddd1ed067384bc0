"""How close the speculative advisor's step-time model comes to published speed-ups.

Each row is a published measurement of speculative decoding (speed-up against the same engine
without speculation, at a batch size and context length), with its source. The model is
hbmlint's own (hbmlint/roofline.py and hbmlint/speculative.py): the GPU's datasheet figures and
efficiency from the catalog, the rule HBM208's parameters (its acceptance rates unless the
source publishes the rate it measured, which the row then says). Nothing is tuned per row.
Error = (model - published) / published.

    python benchmarks/speculative.py            # the table and the summary
    python benchmarks/speculative.py --json out.json

The one fit: the memory efficiency of the hopper family and the per-pass overhead were chosen so
that plain decoding of Llama-3.1-8B-Instruct on one H100 at batch 1 gives SGLang's published
158.34 tokens/s (printed first, as the "fit" row); every speed-up row is then a prediction.

What the engines did that the model does not: SGLang's EAGLE runs verify a token tree (more
tokens per sequence than a chain of k), MagicDec's drafts keep a StreamingLLM KV window (the
rows model exactly that: the draft reads at most that many tokens of KV per sequence).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from hbmlint import catalog, roofline
from hbmlint.budget import compute
from hbmlint.lint import lint_file
from hbmlint.rules import load_rules
from hbmlint.speculative import decode_step, eagle3_head, tokens_per_step

SGLANG_DOCS = (
    "SGLang docs, Speculative Decoding, 'Performance Highlights' (LLaMA-Instruct 3.1 8B, "
    "MT-bench, 1x H100: 158.34 tokens/s without, 244.10 with EAGLE-2, 373.25 with EAGLE-3); "
    "https://docs.sglang.ai/advanced_features/speculative_decoding.html"
)
EAGLE3_PAPER = (
    "EAGLE-3 (Li et al. 2025, arXiv:2503.01840), abstract: 'In the SGLang framework, EAGLE-3 "
    "achieves a 1.38x throughput improvement at a batch size of 64' (LLaMA-Instruct 3.1 8B, H100)"
)
QWEN3_CARD = (
    "Tengyunw/qwen3_8b_eagle3 model card (huggingface.co): Qwen3-8B with an EAGLE-3 head in "
    "SGLang on one H200, 187 -> 365 tokens/s"
)
MAGICDEC_A100 = (
    "MagicDec (Chen et al., arXiv:2408.11049), project page table 'End-to-end Speculative "
    "Decoding Speedups ... on 8xA100s' (infini-ai-lab.github.io/MagicDec), PG-19"
)
MAGICDEC_H100 = "MagicDec (arXiv:2408.11049), project page table '... on 8xH100_SXMs', PG-19"
# MagicDec's measured acceptance of Llama-3.1-8B self-speculation with a 512-token StreamingLLM
# window (project page, 'Choice of Drafts'): 0.84 at 4k tokens ... 0.81 at 32k
SELFSPEC_ACCEPTANCE = {8000: 0.83, 32000: 0.81}
STREAMING_BUDGET = 512  # MagicDec's Figure 6: StreamingLLM KV budget 512

# Llama-2-7B-32K (togethercomputer/LLaMA-2-7B-32K config.json, huggingface.co)
LLAMA2_7B_32K = {
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 4096,
    "intermediate_size": 11008,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 32,
    "vocab_size": 32000,
    "max_position_embeddings": 32768,
    "tie_word_embeddings": False,
    "torch_dtype": "float16",
}


@dataclass(frozen=True)
class Row:
    source: str
    setup: str
    batch: int
    context: int
    published: float
    model: float
    note: str = ""

    @property
    def error(self) -> float:
        return (self.model - self.published) / self.published


def rule_params() -> dict[str, Any]:
    rules, problems = load_rules()
    if problems:
        sys.exit(f"the built-in rules do not load: {problems[0].message}")
    return dict(next(r for r in rules if r.name == "speculative-tradeoff").params)


def hardware(gpu: Any, params: dict[str, Any]) -> roofline.Hardware:
    return roofline.hardware(
        gpu,
        roofline.seconds_per_all_reduce(params["allreduce_latency"]),
        pass_overhead=roofline.seconds_per_all_reduce(params["pass_overhead"]),
    )


def budget_for(folder: Path, spec: str) -> Any:
    path = folder / "deploy.yaml"
    body = "\n".join("  " + line for line in spec.strip().splitlines())
    path.write_text(
        f"apiVersion: hbmlint/v1\nkind: ServingManifest\nmetadata: {{name: b}}\nspec:\n{body}\n"
    )
    [item] = lint_file(path, path.name, []).deployments
    if item.budget is None:
        sys.exit(f"no budget for {spec}: {item.error}")
    return item.budget


def with_eagle3_head(budget: Any, k: int, draft_vocab: int) -> Any:
    """The budget with an EAGLE-3 head sized from the target (as the advisor sizes one)."""
    head = eagle3_head(budget.resolved.target, draft_vocab)
    s = replace(
        budget.settings,
        speculative_method="eagle3",
        num_speculative_tokens=k,
        draft_tensor_parallel=budget.settings.tensor_parallel,
    )
    return compute(replace(budget.resolved, draft=head), s, budget.assumed)


def engine_speedup(
    budget: Any, method: str, k: int, a: float, batch: int, context: int, params: dict
) -> float:
    hw = hardware(budget.resolved.gpu, params)
    step = decode_step(budget, method, k, batch, context, hw)
    plain = decode_step(budget, "none", 0, batch, context, hw)
    return tokens_per_step(a, k) * plain.total / step.total


def single_gpu_rows(params: dict[str, Any]) -> tuple[list[Row], Row]:
    rates = {
        "eagle": float(params["acceptance_eagle"]),
        "eagle3": float(params["acceptance_eagle3"]),
    }
    vocab = int(params["eagle3_draft_vocab"])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        llama = budget_for(
            folder,
            """
gpu: {type: H100}
model: {name: meta-llama/Llama-3.1-8B-Instruct}
serving: {max_model_len: 4096, max_num_seqs: 64}
speculative: {method: none}
""",
        )
        hw = hardware(llama.resolved.gpu, params)
        plain = decode_step(llama, "none", 0, 1, 1024, hw)
        fit = Row(
            SGLANG_DOCS,
            "Llama-3.1-8B, 1x H100, no speculation: tokens/s",
            1,
            1024,
            158.34,
            1 / plain.total,
            "fit (memory efficiency, pass overhead)",
        )
        head = with_eagle3_head(llama, 4, vocab)
        rows.append(
            Row(
                SGLANG_DOCS,
                "Llama-3.1-8B, 1x H100, EAGLE-3",
                1,
                1024,
                373.25 / 158.34,
                engine_speedup(head, "eagle3", 4, rates["eagle3"], 1, 1024, params),
                "SGLang verifies a token tree; model: a chain of k = 4",
            )
        )
        eagle = budget_for(
            folder,
            """
gpu: {type: H100}
model: {name: meta-llama/Llama-3.1-8B-Instruct}
serving: {max_model_len: 4096, max_num_seqs: 64}
speculative: {method: eagle, model: yuhuili/EAGLE-LLaMA3.1-Instruct-8B, num_speculative_tokens: 4}
""",
        )
        rows.append(
            Row(
                SGLANG_DOCS,
                "Llama-3.1-8B, 1x H100, EAGLE-2",
                1,
                1024,
                244.10 / 158.34,
                engine_speedup(eagle, "eagle", 4, rates["eagle"], 1, 1024, params),
                "EAGLE-2's head is EAGLE-1's; model: acceptance_eagle, chain",
            )
        )
        rows.append(
            Row(
                EAGLE3_PAPER,
                "Llama-3.1-8B, 1x H100, EAGLE-3",
                64,
                1024,
                1.38,
                engine_speedup(head, "eagle3", 4, rates["eagle3"], 64, 1024, params),
                "SGLang tree verification; model: a chain of k = 4",
            )
        )
        qwen = budget_for(
            folder,
            """
gpu: {type: H200}
model: {name: Qwen/Qwen3-8B}
serving: {max_model_len: 4096, max_num_seqs: 64}
speculative: {method: none}
""",
        )
        qhead = with_eagle3_head(qwen, 4, vocab)
        rows.append(
            Row(
                QWEN3_CARD,
                "Qwen3-8B, 1x H200, EAGLE-3",
                1,
                1024,
                365 / 187,
                engine_speedup(qhead, "eagle3", 4, rates["eagle3"], 1, 1024, params),
                "SGLang tree (topk 10, 32 draft tokens); model: a chain of k = 4",
            )
        )
    return rows, fit


def magicdec_rows(params: dict[str, Any]) -> list[Row]:
    """MagicDec's 8-GPU runs (TP 8), drafts with a StreamingLLM KV window of 512 tokens."""
    llama2 = catalog.architecture_from_config(LLAMA2_7B_32K, "togethercomputer/LLaMA-2-7B-32K", "")
    llama3 = _arch("meta-llama/Llama-3.1-8B-Instruct")
    tiny = _arch("TinyLlama/TinyLlama-1.1B-Chat-v1.0")
    a_draft = float(params["acceptance_draft_model"])
    table = [
        # (gpu, target, draft, context, batch, k, published)
        ("A100-80GB", llama3, None, 32000, 32, 3, 1.22),
        ("A100-80GB", llama3, None, 32000, 64, 3, 1.38),
        ("A100-80GB", llama3, None, 32000, 128, 4, 1.47),
        ("A100-80GB", llama2, None, 8000, 32, 3, 1.18),
        ("A100-80GB", llama2, None, 8000, 64, 3, 1.48),
        ("A100-80GB", llama2, None, 8000, 128, 4, 1.63),
        ("A100-80GB", llama2, None, 32000, 32, 4, 2.0),
        ("A100-80GB", llama2, tiny, 8000, 32, 3, 1.29),
        ("A100-80GB", llama2, tiny, 8000, 64, 3, 1.57),
        ("A100-80GB", llama2, tiny, 8000, 128, 4, 1.66),
        ("A100-80GB", llama2, tiny, 32000, 32, 4, 1.91),
        ("H100", llama3, None, 32000, 32, 3, 1.23),
        ("H100", llama3, None, 32000, 64, 3, 1.43),
        ("H100", llama2, None, 8000, 32, 3, 1.19),
        ("H100", llama2, None, 8000, 64, 4, 1.42),
        ("H100", llama2, None, 8000, 128, 4, 1.65),
        ("H100", llama2, tiny, 8000, 32, 2, 1.32),
        ("H100", llama2, tiny, 8000, 64, 3, 1.48),
        ("H100", llama2, tiny, 8000, 128, 3, 1.64),
    ]
    rows = []
    for gpu_name, target, draft, context, batch, k, published in table:
        gpu = catalog.find_gpu(gpu_name)
        hw = hardware(gpu, params)
        if draft is None:
            a = SELFSPEC_ACCEPTANCE[context]
            what, note = "self-speculation", f"acceptance {a} (MagicDec's, Llama-3.1-8B)"
        else:
            a = a_draft
            what, note = "TinyLlama-1.1B draft (TP 4)", f"acceptance {a} (HBM208's draft default)"
        model = _magicdec_speedup(hw, target, draft, context, batch, k, a)
        source = MAGICDEC_A100 if gpu_name.startswith("A100") else MAGICDEC_H100
        setup = f"{target.name.rsplit('/', 1)[-1]}, 8x {gpu.name} TP 8, {what}, k = {k}"
        rows.append(Row(source, setup, batch, context, published, model, note))
    return rows


def _arch(model_id: str) -> Any:
    entry = catalog.find_model(model_id)
    return catalog.architecture_from_config(entry["config"], entry["id"], entry["source"])


def _magicdec_speedup(
    hw: roofline.Hardware, target: Any, draft: Any, context: int, batch: int, k: int, a: float
) -> float:
    tp = 8
    dense = 2
    weights = float(target.weight_bytes_per_rank(tp, 1, None).to("byte").magnitude)
    kv_token = target.kv_layout(tp, 1, dense).full_per_token
    shape = roofline.shape(target, tp, 1, dense)

    def target_pass(tokens: int, kv_tokens: int) -> roofline.PassTime:
        p = roofline.model_pass(
            shape, weights, kv_token * kv_tokens, batch, tokens, kv_tokens, "bf16", tp
        )
        return roofline.pass_time(p, hw)

    window = min(context, STREAMING_BUDGET)
    if draft is None:  # the target itself, reading only the window's KV
        draft_pass = target_pass(1, window)
    else:
        dtp = 4
        dweights = float(draft.weight_bytes_per_rank(dtp, 1, None).to("byte").magnitude)
        dshape = roofline.shape(draft, dtp, 1, dense)
        dkv = draft.kv_layout(dtp, 1, dense).full_per_token
        p = roofline.model_pass(dshape, dweights, dkv * window, batch, 1, window, "bf16", dtp)
        draft_pass = roofline.pass_time(p, hw)
    step = roofline.Step(target_pass(1 + k, context), draft_pass, k)
    plain = target_pass(1, context)
    return tokens_per_step(a, k) * plain.total / step.total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="also write the rows here")
    args = parser.parse_args()
    params = rule_params()
    rows, fit = single_gpu_rows(params)
    rows += magicdec_rows(params)
    print(
        f"fit: {fit.setup}: published {fit.published:.2f}, model {fit.model:.2f} ({fit.error:+.1%})"
    )
    print()
    print(f"{'setup':<64} {'batch':>5} {'context':>7} {'published':>9} {'model':>6} {'error':>7}")
    for r in rows:
        print(
            f"{r.setup[:64]:<64} {r.batch:>5} {r.context:>7,} {r.published:>8.2f}x "
            f"{r.model:>5.2f}x {r.error:>+7.1%}"
        )
    errors = [abs(r.error) for r in rows]
    print()
    print(
        f"{len(rows)} published speed-ups: median |error| {statistics.median(errors):.1%}, "
        f"mean {statistics.mean(errors):.1%}, worst {max(errors):.1%}"
    )
    for source in dict.fromkeys(r.source for r in rows):
        print(f"  source: {source}")
    if args.json:
        data = [{**r.__dict__, "error": r.error} for r in [fit, *rows]]
        args.json.write_text(json.dumps(data, indent=2) + "\n")


if __name__ == "__main__":
    main()
