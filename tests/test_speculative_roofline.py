"""The speculative advisor's step-time model (hbmlint/roofline.py): the regimes teams run, from
one sequence to large batches of short and long contexts, for an 8B model on an H100; what
happens when nothing starts or the catalog lacks a GPU's figures; the GPU performance facts."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from helpers import manifest

from hbmlint import catalog, roofline
from hbmlint.lint import lint_file
from hbmlint.rules import load_rules
from hbmlint.speculative import compare

LLAMA_8B_H100 = """
    gpu: {type: H100}
    model: {name: meta-llama/Llama-3.1-8B-Instruct}
    serving: {max_model_len: %(len)d, max_num_seqs: %(seqs)d}
    speculative: {method: draft_model, model: meta-llama/Llama-3.2-1B-Instruct,
                  num_speculative_tokens: 4}
    workload: {concurrency: %(seqs)d, context_tokens: %(context)d}
"""
DRAFT_KEYS = ("current", "draft_fp8", "draft_int8", "draft_offload")


def params() -> dict:
    rules, problems = load_rules()
    assert not problems
    return next(r for r in rules if r.name == "speculative-tradeoff").params


def table_for(write, spec: str, name: str = "deploy.yaml"):
    path = write(manifest(spec), name)
    [item] = lint_file(path, path.name, []).deployments
    assert item.budget is not None
    return compare(item.budget, params())


def llama(write, seqs: int, context: int):
    spec = LLAMA_8B_H100 % {"len": max(context, 4096), "seqs": seqs, "context": context}
    return table_for(write, spec)


def test_one_sequence_is_memory_bound_and_speculation_pays(write):
    table = llama(write, 1, 512)
    best = table.best
    assert best is not None and best.method != "none"
    assert best.speedup > 1.3
    # one sequence reads 15 GB of weights for a handful of FLOPs: the verify pass of 1 + k
    # tokens costs what a plain step costs
    current = table.current
    assert current.step.verify.bound == "weights"
    assert current.step.verify.total == pytest.approx(current.baseline_seconds)


def test_a_1b_draft_slows_256_short_sequences_and_is_not_the_advice(write):
    table = llama(write, 256, 512)
    current = table.current
    assert current.served == 256
    # 256 x (1 + 4) verify tokens through 8 B parameters: about 20 TFLOP a step
    assert current.step.verify.bound == "compute"
    assert current.step.verify.compute > 3 * current.baseline_seconds / 2
    assert current.speedup < 1.0
    assert table.best is not None and table.best.key not in DRAFT_KEYS


def test_long_contexts_make_speculation_pay_again_at_64_sequences(write):
    short, long = llama(write, 64, 512), llama(write, 64, 16384)
    # at 512 tokens the 64 x 5 verify tokens are past the H100's ridge point; at 16k every
    # step is bound by the KV reads, which verification amortises over 1 + k tokens
    assert {r.key: r for r in short.rows}["eagle3"].step.verify.bound == "compute"
    assert {r.key: r for r in long.rows}["eagle3"].step.verify.bound == "KV reads"
    assert long.best.speedup > 1.15 * short.best.speedup
    eagle_short = {r.key: r for r in short.rows}["eagle3"].speedup
    eagle_long = {r.key: r for r in long.rows}["eagle3"].speedup
    assert eagle_long > 1.15 * eagle_short


NOTHING_STARTS = """
    gpu: {type: H100}
    model: {name: meta-llama/Llama-3.1-70B-Instruct}
    serving: {max_model_len: 8192}
    speculative: {method: draft_model, model: meta-llama/Llama-3.2-1B-Instruct,
                  num_speculative_tokens: 4}
"""


def test_when_nothing_starts_nothing_is_advised(write, cli):
    table = table_for(write, NOTHING_STARTS)
    assert not any(r.starts for r in table.rows)
    assert table.best is None and table.gain is None
    path = write(manifest(NOTHING_STARTS), "nothing.yaml")
    [item] = cli("budget", "--compare-speculative", "--format", "json", path).json()
    assert item["best"] is None and item["gain"] is None
    text = cli("budget", "--compare-speculative", path).output
    assert "best: none: none of them starts" in text
    assert "*" not in text.split("best:")[0].split("alternative", 1)[1]
    rules, _ = load_rules()
    result = lint_file(path, path.name, rules)
    assert not [d for d in result.diagnostics if d.code == "HBM208"]


def test_a_gpu_without_datasheet_figures_gets_a_note_not_a_guess(write, cli):
    spec = LLAMA_8B_H100.replace("H100", "A10G") % {"len": 4096, "seqs": 4, "context": 2048}
    table = table_for(write, spec)
    assert "cannot estimate decode speed" in table.cannot_estimate
    assert "A10G" in table.cannot_estimate
    assert table.best is None
    assert all(r.speedup is None and r.throughput is None for r in table.rows)
    path = write(manifest(spec), "a10g.yaml")
    [item] = cli("budget", "--compare-speculative", "--format", "json", path).json()
    assert item["best"] is None and "A10G" in item["cannot_estimate"]
    assert (
        "best: none: no speed estimate for this GPU"
        in cli("budget", "--compare-speculative", path).output
    )


def test_json_and_text_show_each_steps_terms(write, cli):
    spec = LLAMA_8B_H100 % {"len": 4096, "seqs": 256, "context": 512}
    path = write(manifest(spec))
    [item] = cli("budget", "--compare-speculative", "--format", "json", path).json()
    current = item["alternatives"][0]
    step = current["step"]
    assert step["verify"]["bound"] == "compute" and step["draft"]["passes"] == 4
    assert step["total_ms"] == pytest.approx(
        step["verify"]["total_ms"] + 4 * step["draft"]["total_ms"], abs=1e-3
    )
    assert current["speedup"] == pytest.approx(
        current["tokens_per_step"] * step["without_speculation_ms"] / step["total_ms"], rel=1e-3
    )
    text = cli("budget", "--compare-speculative", path).output
    assert "bound by" in text and "compute-bound" in text
    assert f"{step['verify']['total_ms']:.2f} ms (compute-bound" in text


def test_tensor_parallel_adds_all_reduce_time(write):
    spec = LLAMA_8B_H100 % {"len": 4096, "seqs": 1, "context": 512}
    one = table_for(write, spec).rows[-1]  # no speculation
    two = table_for(
        write, spec.replace("type: H100}", "type: H100, count: 2}\n    parallel: {tensor: 2}")
    ).rows[-1]
    assert one.step.verify.comm == 0
    # two all-reduces a layer, 32 layers, each at least the 10 us latency
    assert two.step.verify.comm >= 64 * 10e-6
    assert two.step.verify.weights < 0.55 * one.step.verify.weights


# ----------------------------------------------------------------------------- the roofline


def hardware(**changes) -> roofline.Hardware:
    base = dict(
        name="test",
        bandwidth=1e12,
        peak={"bf16": 1e14},
        link=1e11,
        host_link=1e10,
        allreduce_latency=0.0,
    )
    return roofline.Hardware(**{**base, **changes})


def test_pass_time_takes_the_larger_of_memory_and_compute():
    hw = hardware()
    memory = roofline.pass_time(roofline.Pass(weight_bytes=1e9, kv_bytes=1e9, flops=1e11), hw)
    assert memory.total == pytest.approx(2e-3) and memory.bound == "weights"
    compute = roofline.pass_time(roofline.Pass(weight_bytes=1e9, flops=1e12), hw)
    assert compute.total == pytest.approx(1e-2) and compute.bound == "compute"
    kv = roofline.pass_time(roofline.Pass(weight_bytes=1e9, kv_bytes=3e9), hw)
    assert kv.bound == "KV reads"


def test_a_moe_pass_reads_the_experts_its_tokens_are_routed_to():
    shape = roofline.Shape(
        linear_params=0,
        expert_share=0.9,
        experts=64,
        experts_per_token=8,
        attention_flops=0,
        window_flops=(),
        embedding_bytes=0,
        allreduces=0,
        hidden=1,
    )
    assert roofline.touched(shape, 1) == pytest.approx(8 / 64)
    assert roofline.touched(shape, 1000) == pytest.approx(1.0)
    one = roofline.model_pass(shape, 100e9, 0, 1, 1, 0, "bf16", 1)
    assert one.weight_bytes == pytest.approx(10e9 + 90e9 * 8 / 64)


def test_the_catalog_lacks_a_figure_so_the_model_says_so():
    gpu = catalog.find_gpu("A10G")
    with pytest.raises(roofline.CannotEstimate, match="A10G"):
        roofline.hardware(gpu, 1e-5)


# ---------------------------------------------------------------------- the GPU's figures

GPUS = yaml.safe_load((Path(catalog.__file__).parent / "gpus.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("entry", GPUS["gpus"], ids=lambda e: e["name"])
def test_every_gpu_has_its_datasheet_figures_with_a_source(entry):
    # a new GPU needs its datasheet figures, or its family and a source saying none are published
    assert "performance" in entry, f"{entry['name']} has no performance: block"
    data = entry["performance"]
    assert data["family"] in GPUS["efficiency"]
    assert len(str(data["source"])) > 40
    info = catalog.find_gpu(entry["name"])
    perf = info.performance
    assert perf is not None and perf.family == data["family"]
    if "memory_bandwidth" in data:
        # HBM parts move 0.3-8 TB/s; GDDR cards 0.19-1.8 (Tesla P4 0.192); the GB10's LPDDR5X 0.273
        assert 0.15e12 <= perf.memory_bandwidth.to("byte / second").magnitude <= 8e12
    for dtype, figure in perf.dense.items():
        assert dtype in ("bf16", "fp16", "fp8", "int8", "int4", "fp4")
        assert 50e12 <= figure.to("FLOPS").magnitude <= 16e15
    if "fp8" in perf.dense:
        assert info.fp8  # an FP8 figure only where the GPU has FP8 tensor cores


def test_h100_figures_are_the_datasheets_dense_ones():
    perf = catalog.find_gpu("H100").performance
    assert perf.memory_bandwidth.to("TB/s").magnitude == pytest.approx(3.35)
    assert perf.dense["bf16"].to("TFLOPS").magnitude == pytest.approx(989.4)
    assert perf.dense["fp8"].to("TFLOPS").magnitude == pytest.approx(1978.9)
    assert perf.nvlink.to("GB/s").magnitude == 900
    efficiency = catalog.efficiency(perf.family)
    assert 0 < efficiency.memory <= 1 and 0 < efficiency.compute <= 1
    assert "fit" in efficiency.source


def test_fp8_weights_run_on_fp8_tensor_cores_only_where_the_gpu_has_them():
    h100, a100 = catalog.find_gpu("H100"), catalog.find_gpu("A100-80GB")
    assert roofline.compute_dtype("fp8", h100, "bfloat16") == "fp8"
    assert roofline.compute_dtype("fp8", a100, "bfloat16") == "bf16"  # Marlin: weight-only
    assert roofline.compute_dtype("awq", h100, "float16") == "fp16"


def test_the_comparison_reads_no_rule_file():
    import subprocess
    import sys

    code = "import sys, hbmlint.speculative; print('hbmlint.rules' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_benchmarks_comparison_with_published_speedups_is_current():
    """benchmarks/README.md holds benchmarks/speculative.py's table: each published speed-up
    with its source, and the model's figure as the code computes it today."""
    import importlib.util
    import sys

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("bench", root / "benchmarks" / "speculative.py")
    bench = importlib.util.module_from_spec(spec)
    sys.modules["bench"] = bench  # dataclasses look their module up
    try:
        spec.loader.exec_module(bench)
    finally:
        del sys.modules["bench"]
    params = bench.rule_params()
    rows, fit = bench.single_gpu_rows(params)
    rows += bench.magicdec_rows(params)
    readme = (root / "benchmarks" / "README.md").read_text(encoding="utf-8")
    assert "158.34 tokens/s" in readme and f"{fit.model:.1f}" in readme
    for row in rows:
        line = (
            f"| {row.setup} | {row.batch} | {row.context:,} | {row.published:.2f}x | "
            f"{row.model:.2f}x | {row.error:+.0%} |"
        )
        assert line in readme, line
    assert len({r.source for r in rows}) >= 4
