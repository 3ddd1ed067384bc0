"""vLLM's CUDA graph mode, as --compilation-config (-cc) or an optimization level sets it.
vLLM 0.20+ refuses a hybrid model whose state blocks are fewer than max_num_seqs only when it
captures full CUDA graphs (gpu_model_runner: `if cudagraph_mode.has_full_cudagraphs()`), and
-O0 captures none, -O1 only piecewise ones (docs/design/optimization_levels.md). A manifest
that turns full graphs off must not get HBM109; one that keeps them (FULL_DECODE_ONLY, the
common tuning) still does."""

from __future__ import annotations

import pytest
from helpers import vllm_compose

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

# Qwen3.6-27B-FP8 on one H100 at 0.95 with the default 1024 sequences: refused at 856 blocks
# (vllm-project/recipes#551)
REFUSED = "vllm serve Qwen/Qwen3.6-27B-FP8 --gpu-memory-utilization 0.95"


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(tmp_path, rules, flags: str):
    path = vllm_compose(tmp_path, f"{REFUSED} {flags}", "v0.28.0")
    options = LintOptions(keep_budgets=True, default_gpu="H100")
    return lint_file(path, "compose.yaml", rules, options)


def codes(result) -> list[str]:
    return [d.code for d in result.diagnostics]


@pytest.mark.parametrize(
    "flags",
    [
        "",
        "-O2",
        """--compilation-config '{"cudagraph_mode": "FULL_DECODE_ONLY"}'""",
        """-cc '{"cudagraph_mode":"FULL_AND_PIECEWISE","custom_ops":["all"]}'""",
        "-O1 -cc.cudagraph_mode=FULL_DECODE_ONLY",  # the mode as set wins over the level's
    ],
)
def test_full_cuda_graphs_keep_the_refusal(tmp_path, rules, flags):
    # 1024 sequences against about 880 blocks: inside the blocks' uncertainty, a "may refuse"
    assert "HBM110" in codes(lint(tmp_path, rules, flags))


@pytest.mark.parametrize(
    "flags",
    [
        "--enforce-eager",
        "-O0",
        "-O1",
        "-O 0",
        "--optimization-level 1",
        """--compilation-config '{"cudagraph_mode": "PIECEWISE"}'""",
        """--compilation-config='{"cudagraph_mode":"NONE"}'""",
        "-cc.cudagraph_mode=NONE",
        "--compilation-config.cudagraph_mode piecewise",
    ],
)
def test_no_full_cuda_graphs_no_refusal(tmp_path, rules, flags):
    result = lint(tmp_path, rules, flags)
    assert not {"HBM109", "HBM110"} & set(codes(result))
    assert not [d for d in result.diagnostics if d.severity == Severity.ERROR]


def test_no_graphs_at_all_leave_the_graph_memory_to_the_kv_cache(tmp_path, rules):
    """-O0 captures no CUDA graphs: the budget has no CUDA graph line, as with --enforce-eager."""
    plain = lint(tmp_path, rules, "").deployments[0].budget
    none = lint(tmp_path, rules, "-O0").deployments[0].budget
    assert "cuda_graphs" in plain.overhead
    assert "cuda_graphs" not in none.overhead
    assert none.kv_cache > plain.kv_cache
    assert none.deployment.serving.cudagraph_mode == "NONE"
