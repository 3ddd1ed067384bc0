"""The n-gram fix in hbmlint's own manifest: switching a draft model to n-gram lookup removes the
drafter's keys with it, so the edit is offered (before, the manifest still named its draft model
after the edit, the fix check refused it, and the fix had no edit).

The pattern is vLLM's draft-model speculative decoding: a small model of the target's family
and tokenizer beside it (Qwen3-32B with Qwen3-1.7B), on four L4s."""

from __future__ import annotations

import textwrap

from hbmlint.rewrite import Edit, Source, apply_edits

MANIFEST = textwrap.dedent("""\
    apiVersion: hbmlint/v1
    kind: ServingManifest
    metadata:
      name: qwen3-32b-draft
    spec:
      engine: vllm
      gpu:
        type: L4
        count: 4
      model:
        name: Qwen/Qwen3-32B
        quantization: fp8
      parallel:
        tensor: 4
      serving:
        max_num_seqs: 64
        gpu_memory_utilization: 0.85
      speculative:
        method: draft_model
        model: Qwen/Qwen3-1.7B   # same tokenizer as the target
        num_speculative_tokens: 4
        kv_cache_dtype: auto
    """)


def _ngram_fix(cli, path):
    run = cli("--format", "json", path)
    assert run.exit_code in (0, 1), run.output
    [finding] = [f for f in run.json() if f["code"] == "HBM202"]
    [fix] = [f for f in finding["fixes"] if "speculative.method: ngram" in f["message"]]
    return fix


def test_the_ngram_fix_removes_the_drafters_keys(cli, tmp_path):
    path = tmp_path / "draft.yaml"
    path.write_text(MANIFEST)
    fix = _ngram_fix(cli, path)
    edits = [Edit(**{k: e[k] for k in Edit.__dataclass_fields__}) for e in fix["edits"]]
    assert len(edits) == 3  # the method, and the two drafter keys deleted line by line
    edited = apply_edits(MANIFEST, Source(MANIFEST, str(path)), edits)
    speculative = edited[edited.index("  speculative:") :]
    assert speculative == "  speculative:\n    method: ngram\n    num_speculative_tokens: 4\n"
    # the edited manifest reads as an n-gram drafter: no drafter weights displace the cache
    path.write_text(edited)
    run = cli("--format", "json", path)
    codes = {f["code"] for f in run.json()}
    assert not codes & {"HBM201", "HBM202"}, run.output


def test_a_flow_mapping_keeps_the_fix_as_advice(cli, tmp_path):
    path = tmp_path / "flow.yaml"
    flow = "  speculative: {method: draft_model, model: Qwen/Qwen3-1.7B, num_speculative_tokens: 4}"
    path.write_text(MANIFEST[: MANIFEST.index("  speculative:")] + flow + "\n")
    fix = _ngram_fix(cli, path)
    assert fix["edits"] == []  # no line to delete: the fix is still given, without an edit
    assert fix["setting"] == "speculative.method: ngram"
