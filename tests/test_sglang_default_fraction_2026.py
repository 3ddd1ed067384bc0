"""SGLang's default mem_fraction_static in the 2026 releases, as `hbmlint budget` shows it.

Sweep 25 (finding 2) read a Qwen3.5-4B start-up on an H200 under a frozen Aug-2026 SGLang
checkout (58974ca16, breakable prefill CUDA graphs) as a run with the default fraction, and
took its ~0.75 effective fraction for a change to the default. The record's own runner
(experiments/qwen35_4b/scripts/runner.sh, code-search file 61920074105) launches with
`--mem-fraction-static 0.75 --disable-radix-cache`: the fraction was set, not derived. With it,
hbmlint's pool matches the log to 0.1%. The default itself, read in the 0.5.20 and 0.5.23
wheels (arg_groups/memory_hook.py) and at sgl-project/sglang main 031ed82d, still reserves 8 MiB
a prefill graph size for breakable graphs as for piecewise ones: 0.903 x 0.95 (vision tower) =
0.858 for this model on an H200, what hbmlint already assumed.

What the wheels did change, and hbmlint now follows: an MLA attention backend reserves a flat
1.5 GiB for the prefill graphs from 0.5.10 (not 8 MiB a size); an EAGLE/NextN drafter reserved
4 GiB in 0.5.10 (2 GiB up to 0.5.9, none from 0.5.11); from 0.5.23 a default largest decode
graph above --max-running-requests is brought down to it before its 2 MiB a batch is reserved.
"""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from hbmlint.cli import main

QWEN35 = "python -m sglang.launch_server --model-path Qwen/Qwen3.5-4B --port 30000 FLAGS\n"
# The INFRA_CHECK record's launch (runner.sh SERVER_FLAGS) and its logged pool:
# "KV Cache is allocated. dtype: torch.bfloat16, #tokens: 1651079, K size: 25.19 GB,
# V size: 25.19 GB" (code-search file 62375882188, infracheck_gpu7_20260801T012122Z).
RUNNER_FLAGS = (
    "--tp 1 --dtype bfloat16 --disable-radix-cache --mem-fraction-static 0.75 "
    "--allow-auto-truncate --trust-remote-code"
)
LOGGED_KV_GIB = 25.19 * 2
LOGGED_TOKENS = 1_651_079


def budget(tmp_path: Path, command: str, gpu: str, version: str) -> str:
    path = tmp_path / "serve.sh"
    path.write_text(command)
    args = ["budget", str(path), "--gpu", gpu, "--set", f"engine_version={version}"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return result.output


# With --set the output shows the deployment as written, then as set: the last block counts.
def figure(output: str, label: str) -> float:
    found = re.findall(rf"^\s+{label}\s+([\d,.]+)", output, re.M)
    assert found, output
    return float(found[-1].replace(",", ""))


def fraction_note(output: str) -> str:
    notes = [line.strip() for line in output.splitlines() if "gpu_memory_utilization =" in line]
    assert notes, output
    return notes[-1]


def test_default_fraction_for_qwen35_4b_on_h200_is_0_858(tmp_path):
    """0.5.23 memory_hook.py: 143,771 - (512 + 8,192 x 1.5 + 256 x 2 + 1,024 / 8 + 58 x 8) =
    129,867 MiB, round(0.9033, 3) x 0.95 for the 24 x 1024 vision tower = 0.858."""
    output = budget(tmp_path, QWEN35.replace("FLAGS", ""), "H200", "0.5.23")
    note = fraction_note(output)
    assert note.startswith("gpu_memory_utilization = 0.858 (the default x 0.950")
    assert "vision tower" in note


def test_the_logged_h200_start_up_is_reproduced_with_its_runners_flags(tmp_path):
    """The record's runner set --mem-fraction-static 0.75: hbmlint's KV pool and tokens come
    within 5% of the logged 50.38 GiB / 1,651,079 tokens (0.1% when written)."""
    output = budget(tmp_path, QWEN35.replace("FLAGS", RUNNER_FLAGS), "H200", "0.5.23")
    assert "gpu_memory_utilization =" not in output  # set on the command line, not assumed
    assert re.search(r"usable\s+[\d.]+ GiB\s+75% of 139.81 GiB", output)
    kv = figure(output, "KV cache")
    tokens = figure(output, "KV capacity")
    assert abs(kv - LOGGED_KV_GIB) / LOGGED_KV_GIB < 0.05
    assert abs(tokens - LOGGED_TOKENS) / LOGGED_TOKENS < 0.05


MLA = (
    "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V2-Lite-Chat "
    "--context-length 8192\n"
)


def test_mla_prefill_graphs_reserve_a_flat_1_5_gib_from_0_5_10(tmp_path):
    """server_args.py (0.5.10, 0.5.14 wheels), memory_hook.py (0.5.20, 0.5.23): "For MLA
    backend the memory overhead is much higher than expected with fa3": 1,536 MiB, not 8 MiB
    a size. 0.5.9 reserved nothing for prefill graphs (piecewise graphs off by default)."""
    for version in ("0.5.10", "0.5.14", "0.5.23"):
        note = fraction_note(budget(tmp_path, MLA, "H100", version))
        # 512 + 8,192 x 1.5 + 256 x 2 + 128 + 1,536
        assert "14976 MiB reserved" in note, (version, note)
    assert "13440 MiB reserved" in fraction_note(budget(tmp_path, MLA, "H100", "0.5.9"))


def test_eagle_reserved_4_gib_in_0_5_10_only(tmp_path):
    """0.5.9 wheel: +2 GiB "eagle draft models and cuda graphs"; 0.5.10 wheel: +4 GiB;
    from 0.5.11 (PR #23862) none."""
    command = (
        "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct "
        "--speculative-algorithm EAGLE3 --speculative-draft-model-path "
        "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B --context-length 8192\n"
    )
    expected = {"0.5.9": 15488, "0.5.10": 18000, "0.5.14": 13904}
    for version, reserved in expected.items():
        note = fraction_note(budget(tmp_path, command, "H100", version))
        assert f"{reserved} MiB reserved" in note, (version, note)


def test_0_5_23_caps_the_default_decode_graphs_at_max_running_requests(tmp_path):
    """memory_hook.py in the 0.5.23 wheel (not 0.5.20): a default decode max_bs of 256 comes
    down to --max-running-requests 32, reserving 448 MiB less."""
    command = (
        "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --context-length 8192 "
        "--max-running-requests 32\n"
    )
    assert "13904 MiB reserved" in fraction_note(budget(tmp_path, command, "H100", "0.5.22"))
    assert "13456 MiB reserved" in fraction_note(budget(tmp_path, command, "H100", "0.5.23"))
    explicit = command.replace("32\n", "32 --cuda-graph-max-bs 256\n")
    assert "13904 MiB reserved" in fraction_note(budget(tmp_path, explicit, "H100", "0.5.23"))
