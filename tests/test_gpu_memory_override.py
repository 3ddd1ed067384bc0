"""A manifest that names a GPU type and gives its memory (`gpu: {type, memory}`, or a record's
logged total in benchmarks/accuracy.py) changes the memory only: the card's other facts
(NVLink, compute capability, datasheet figures) still shape the budget."""

from __future__ import annotations

from pathlib import Path

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

MANIFEST = """\
apiVersion: hbmlint/v1
kind: ServingManifest
metadata:
  name: qwen72b-tp2
spec:
  engine: vllm
  engine_version: "0.19.0"
  gpu:
    type: H100-SXM-80GB
    count: 2
{memory}  model:
    name: Qwen/Qwen2.5-72B-Instruct
  parallel:
    tensor: 2
  serving:
    max_model_len: 8192
    gpu_memory_utilization: 0.95
"""


def _budget(tmp_path: Path, memory: str):
    path = tmp_path / "m.yaml"
    path.write_text(MANIFEST.format(memory=memory))
    rules, _ = load_rules()
    result = lint_file(path, path.name, rules, LintOptions(keep_budgets=True))
    [item] = result.deployments
    return item.budget


def _gib(quantity) -> float:
    return float(quantity.to("GiB").magnitude)


def test_the_nvswitch_groups_communicators_are_charged_with_the_memory_given(tmp_path):
    named = _budget(tmp_path, "")
    given = _budget(tmp_path, "    memory: 79.19 GiB\n")
    assert abs(_gib(given.total) - 79.19) < 0.01
    # two H100 SXM over NVSwitch: the group's NCCL buffers (about 1.8 GiB a GPU) were lost
    # when the memory was given, which overstated the KV cache by 70% against vLLM 0.19's log
    assert _gib(given.overhead["non_torch"]) > 1.5
    assert abs(_gib(given.overhead["non_torch"]) - _gib(named.overhead["non_torch"])) < 0.01
    assert given.resolved.gpu.compute_capability == named.resolved.gpu.compute_capability
