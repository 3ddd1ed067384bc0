"""TensorRT-LLM's Mamba cache of hybrid models (sweep 24, F5): the PyTorch backend allocates
one state slot per max_batch_size request for every Mamba / gated delta-net layer, whole on
each GPU under attention DP, before the KV cache is sized (engines.yaml trtllm mamba_state).

Fixtures (tests/fixtures/real/trtllm-nemotron3-super/): NVIDIA's deployment guide for
Nemotron-3-Super on TensorRT-LLM (docs/source/deployment-guide/deployment-guide-for-nemotron-
3-super-on-trtllm.md @ 53132c21) in its heredoc form, which writes the curated throughput
config (examples/configs/curated/nemotron-3-super-throughput.yaml @ 7f86dbcf: max_batch_size
512, TP 4, EP 4, attention DP, free_gpu_memory_fraction 0.8); and the same with
trtllm-serve's default max_batch_size 2048 (a VARIANT)."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_lint import errors, lint

from hbmlint.lint import LintOptions, lint_file
from hbmlint.reporters.budget import render_text
from hbmlint.rules import load_rules

FIXTURES = Path(__file__).parent / "fixtures" / "real" / "trtllm-nemotron3-super"
GUIDE = FIXTURES / "serve-heredoc.sh"
BATCH_2048 = FIXTURES / "serve-heredoc-batch2048-VARIANT.sh"
COVERED = {
    "trtllm-nemotron3-super/nemotron-3-super-throughput.yaml",
    "trtllm-nemotron3-super/serve-heredoc.sh",
    "trtllm-nemotron3-super/serve-heredoc-batch2048-VARIANT.sh",
}

GIB = 2**30


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def budget_of(path: Path, gpu: str):
    [item] = lint_file(path, path.name, [], LintOptions(default_gpu=gpu)).deployments
    return item.budget


def test_the_guide_on_h100_counts_512_slots_of_whole_state_before_the_kv_cache(rules):
    b = budget_of(GUIDE, "H100")
    note = b.assumed["kv_cache"]
    # 40 Mamba-2 layers x (3 x 10,240 conv + 128 x 64 x 128 SSM) in bfloat16, not split:
    # attention DP gives the state tp_size 1
    assert "512 slots (max_batch_size) of 82.3 MiB: 41.17 GiB" in note
    assert "whole on each GPU under attention DP" in note
    # the KV cache is 80% of what the weights, the overhead and the state leave (47.60 GiB
    # before the state was counted)
    assert round(b.kv_cache.to("GiB").magnitude, 2) == 14.66
    # the KV pool holds the 8 attention layers alone: 8 x 2 KV heads x 128 x 2 x 1 byte
    assert int(b.kv_bytes_per_token_target.magnitude) == 4096
    text = render_text([lint_file(GUIDE, GUIDE.name, [], LintOptions(default_gpu="H100"))])
    assert "weights + overhead + Mamba cache + 80% of the memory free after them" in text
    # it starts: no finding (the float32 SSM state later releases keep is not counted)
    result = lint(GUIDE, rules, gpu="H100")
    assert result.diagnostics == []


def test_the_guide_on_b200_keeps_94_gib_of_kv_cache(rules):
    b = budget_of(GUIDE, "B200")
    assert "41.17 GiB" in b.assumed["kv_cache"]
    assert round(b.kv_cache.to("GiB").magnitude, 2) == 93.99
    assert lint(GUIDE, rules, gpu="B200").diagnostics == []


def test_the_state_follows_max_batch_size():
    small = budget_of(GUIDE, "H100").whatif(max_num_seqs=8)
    assert "8 slots (max_batch_size)" in small.assumed["kv_cache"]
    assert small.kv_cache > budget_of(GUIDE, "H100").kv_cache


def test_default_batch_on_h100_leaves_no_kv_cache_but_no_promised_refusal(rules):
    # 2048 slots of 82.3 MiB (164.6 GiB) are more than the card: the estimate has no KV cache,
    # but a release that names none runs the newest, whose pooled state manager may hold
    # fewer slots rather than refuse, so the error rules' generous edge goes without it
    b = budget_of(BATCH_2048, "H100")
    assert "2048 slots (max_batch_size)" in b.assumed["kv_cache"]
    assert b.kv_cache.to("GiB").magnitude < 0
    assert int(b.kv_tokens.magnitude) == 0
    result = lint(BATCH_2048, rules, gpu="H100")
    assert errors(result) == []
    # the budget's "no room" is said as what it is: a risk hbmlint cannot settle (HBM111)
    [warning] = [d for d in result.diagnostics if d.code == "HBM111"]
    assert warning.severity.name == "WARNING"
    assert "2,048 slots (max_batch_size)" in warning.message and "164.69 GiB" in warning.message
    assert "Lower max_batch_size (serving.max_num_seqs) to" in warning.fixes[0]


MANIFEST = """\
apiVersion: hbmlint/v1
kind: ServingManifest
metadata:
  name: nemotron-3-super-one-b200
spec:
  engine: trtllm
{version}  gpu:
    type: B200
    count: 1
  model:
    name: nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4
"""


@pytest.mark.parametrize(
    ("version", "refused"), [("1.2.1", True), ("1.3.0rc9", False), (None, False)]
)
def test_default_batch_on_one_b200_is_refused_only_where_the_state_is_its_own(
    tmp_path, rules, version, refused
):
    # the guide's "1x B200" with trtllm-serve's default max_batch_size: 2048 slots of 82.3 MiB
    # (164.69 GiB) beside the weights. Through 1.2 the Python manager allocates them as tensors
    # of their own (a start-up OOM); from 1.3 the state may sit in the KV pool, and what such a
    # release does when it does not fit was not read: no error there
    path = tmp_path / "m.yaml"
    path.write_text(MANIFEST.format(version=f'  engine_version: "{version}"\n' if version else ""))
    result = lint(path, rules)
    found = errors(result)
    assert [e.split(":")[0] for e in found] == (["HBM102"] if refused else [])
    warned = [d.code for d in result.diagnostics if d.code == "HBM111"]
    assert warned == ([] if refused else ["HBM111"])
    if refused:
        assert "TensorRT-LLM's Mamba cache (164.69 GiB for 2,048" in found[0]
    b = budget_of(path, "B200")
    assert "2048 slots (max_batch_size) of 82.3 MiB: 164.69 GiB" in b.assumed["kv_cache"]
