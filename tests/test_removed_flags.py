"""vLLM flags that later releases removed: --cuda-graph-sizes (0.13), --swap-space (0.18),
--calculate-kv-scales (0.28), --num-redundant-experts (0.12), --disable-mm-preprocessor-cache,
--enable-multimodal-encoder-data-parallel and --task (0.13), --disable-log-requests (0.17),
--disable-frontend-multiprocessing (0.19), and V0's scheduler flags (--num-scheduler-steps in
0.10.1; --max-seq-len-to-capture, --scheduler-delay-factor, --preemption-mode in 0.11). Their
argparse refuses them ("unrecognized arguments") and the server exits; hbmlint ignored them.
They are HBM010 warnings where the manifest's release has them removed, or where it names none
(the newest), and nothing where an older release still takes them."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import vllm_compose

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
FIXTURE = "vllm-swap-space-latest.yaml"

QWEN3_8B = "vllm serve Qwen/Qwen3-8B --max-model-len 8192"


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def removed(tmp_path: Path, rules, flags: str, version: str):
    path = vllm_compose(tmp_path, f"{QWEN3_8B} {flags}", version)
    result = lint_file(path, "compose.yaml", rules, LintOptions(default_gpu="H100"))
    return [d for d in result.diagnostics if d.code == "HBM010"]


def test_swap_space_on_the_latest_image_is_a_warning_at_the_flag(rules):
    result = lint_file(REAL / FIXTURE, FIXTURE, rules, LintOptions(default_gpu="L40S"))
    [warning] = [d for d in result.diagnostics if d.code == "HBM010"]
    assert warning.severity.name == "WARNING"
    assert warning.message == (
        "--swap-space was removed from vLLM in 0.18.0 and the newest vLLM refuses to start "
        "with it (argparse: unrecognized arguments); the newest is assumed as the manifest "
        "names no release hbmlint can read (no image, or a tag such as latest, dev or a "
        "commit): an image before 0.18.0 still takes it"
    )
    assert warning.span.line == 32
    assert [f.message for f in warning.fixes] == ["Remove it: the CPU swap space it sized is gone"]
    assert [d for d in result.diagnostics if d.severity.name == "ERROR"] == []
    assert len(result.deployments) == 1  # still budgeted


@pytest.mark.parametrize(
    ("flags", "version", "warned"),
    [
        ("--swap-space 4", "v0.17.0", False),
        ("--swap-space=4", "v0.18.0", True),
        ("--swap-space 4", "latest", True),
        ("--cuda-graph-sizes 8 16 32", "v0.12.0", False),
        ("--cuda-graph-sizes 8", "v0.13.0", True),
        ("--calculate-kv-scales", "v0.27.1", False),
        ("--calculate-kv-scales", "v0.28.0", True),
        ("--max-num-seqs 8", "latest", False),
        # request logging's old switch: 204 lines of the sweeps' vLLM manifests write it
        ("--disable-log-requests", "v0.16.0", False),
        ("--disable-log-requests", "v0.17.0", True),
        ("--disable-log-requests", "v0.32.0", True),
        # 0.33 pairs every --enable-X switch with --disable-X again (EnableDisableAction)
        ("--disable-log-requests", "v0.33.0", False),
        ("--disable-log-requests", "latest", False),
        ("--disable-frontend-multiprocessing", "v0.18.0", False),
        ("--disable-frontend-multiprocessing", "v0.19.0", True),
        ("--enable-eplb --num-redundant-experts 32", "v0.11.2", False),
        ("--enable-eplb --num-redundant-experts 32", "v0.12.0", True),
        ("--disable-mm-preprocessor-cache", "v0.12.0", False),
        ("--disable-mm-preprocessor-cache", "v0.13.0", True),
        ("--task generate", "v0.13.0", True),
        ("--enable-log-requests", "latest", False),
        ("--num-scheduler-steps 8", "v0.10.0", False),
        ("--num-scheduler-steps 8", "v0.10.1", True),
        ("--max-seq-len-to-capture 8192", "v0.10.2", False),
        ("--max-seq-len-to-capture 8192", "v0.11.0", True),
        ("--preemption-mode swap", "latest", True),
        # vllm-project/recipes Qwen2.5-VL-7B-Instruct.yaml (sweep 10) still writes it
        ("--guided-decoding-backend xgrammar", "v0.11.2", False),
        ("--guided-decoding-backend xgrammar", "v0.12.0", True),
        ('--rope-scaling \'{"rope_type":"yarn","factor":4.0}\'', "v0.11.0", False),
        ('--rope-scaling \'{"rope_type":"yarn","factor":4.0}\'', "v0.11.1", True),
        ("--rope-theta 1000000", "latest", True),
        ("--disable_async_output_proc", "v0.10.2", False),  # vllm-project/aibrix's macOS sample
        ("--disable_async_output_proc", "v0.11.0", True),
        ("--device cuda", "v0.9.2", False),
        ("--device cuda", "v0.10.0", True),
        ("--device-ids 0", "latest", False),  # its successor's prefix is no match
        ("--enable-eplb --eplb-window-size 1000", "v0.12.0", True),
        # surajssd/llm-k8s configs/phi-4/multimodal/values.yaml (sweep 10) writes it
        ("--enable-lora --lora-extra-vocab-size 256", "v0.11.2", False),
        ("--enable-lora --lora-extra-vocab-size 256", "v0.12.0", True),
    ],
)
def test_only_the_releases_that_removed_a_flag_warn(tmp_path, rules, flags, version, warned):
    assert bool(removed(tmp_path, rules, flags, version)) is warned


def test_the_fix_of_a_removed_flag_is_not_the_speculative_migration(tmp_path, rules):
    """A manifest with a removed speculative flag too: each finding keeps its own fix."""
    flags = "--speculative-model Qwen/Qwen3-0.6B --num-speculative-tokens 3 --swap-space 4"
    path = vllm_compose(tmp_path, f"{QWEN3_8B} {flags}", "v0.19.0")
    result = lint_file(path, "compose.yaml", rules, LintOptions(default_gpu="H100"))
    found = [d for d in result.diagnostics if d.code == "HBM010"]
    [swap] = [d for d in found if "--swap-space" in d.message]
    assert len(found) == 3
    assert all("--speculative-config" in d.fixes[0].message for d in found if d is not swap)
    assert [f.message for f in swap.fixes] == ["Remove it: the CPU swap space it sized is gone"]


def test_disable_log_requests_between_017_and_032_says_how_to_fix_it(tmp_path, rules):
    """InferenceX's and Dynamo's recipes hit it on vLLM 0.17-0.32 ("vllm: error: unrecognized
    arguments: --disable-log-requests"); 0.33 takes it again, as --enable-log-requests'
    negation (vllm/utils/argparse_utils.py EnableDisableAction), so a manifest that names no
    release (the newest) is told nothing."""
    [warning] = removed(tmp_path, rules, "--disable-log-requests", "v0.20.0")
    assert warning.message == (
        "--disable-log-requests was removed from vLLM in 0.17.0 and vLLM 0.20.0 refuses to "
        "start with it (argparse: unrecognized arguments); vLLM 0.33 and later take it again"
    )
    assert warning.fixes[0].message.startswith("Remove it: request logging is off by default")
    assert removed(tmp_path, rules, "--disable-log-requests", "latest") == []


def test_a_removal_in_a_patch_release_names_that_release(tmp_path, rules):
    [warning] = removed(tmp_path, rules, "--num-scheduler-steps 8", "v0.10.1")
    assert warning.message.startswith("--num-scheduler-steps was removed from vLLM in 0.10.1 ")


def test_a_release_inside_a_vendor_tag_is_the_release_that_runs(tmp_path, rules):
    """AIBrix's samples run vllm-openai:aibrix-kvcache-v0.8.5-20250520, a vLLM 0.8.5 build, with
    --disable-log-requests and --swap-space: 0.8.5 takes both, so nothing is said (the tag was
    read as no release, the newest, and both were called refused)."""
    assert (
        removed(tmp_path, rules, "--disable-log-requests", "aibrix-kvcache-v0.8.5-20250520") == []
    )
    assert removed(tmp_path, rules, "--disable-log-requests", "gemma4-v0.19.0")
