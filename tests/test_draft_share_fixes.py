"""HBM201's n-gram fix is offered only where the target's weights fit without the drafter, as
HBM101's is: where they do not, an n-gram drafter frees the draft's weights and still leaves no
KV cache ("KV cache 0 tokens -> 0 tokens"), and HBM101 already says what would fit.

The patterns: a 70B FP8 target with a BF16 8B draft on one H100 (tests/golden/manifests/
over-budget.yaml), and the same family's 70B in BF16 with a 1B draft on one L4, a card a third
of its weights' size."""

from __future__ import annotations

import textwrap

import pytest

MANIFEST = textwrap.dedent("""\
    apiVersion: hbmlint/v1
    kind: ServingManifest
    metadata: {{name: draft-share}}
    spec:
      gpu: {{type: {gpu}}}
      model: {{name: meta-llama/Llama-3.1-70B-Instruct{quantization}}}
      serving: {{max_model_len: 8192, gpu_memory_utilization: 0.95}}
      speculative:
        method: draft_model
        model: {draft}
    """)


def _hbm201_fixes(cli, tmp_path, **fields):
    path = tmp_path / "m.yaml"
    path.write_text(MANIFEST.format(**fields))
    run = cli("--format", "json", path)
    assert run.exit_code == 1, run.output
    [finding] = [f for f in run.json() if f["code"] == "HBM201"]
    return [fix["message"] for fix in finding["fixes"]]


@pytest.mark.parametrize(
    ("fields", "offered"),
    [
        # the target fits alone: dropping the draft's weights gives the KV cache room
        (
            {
                "gpu": "H100",
                "quantization": ", quantization: fp8",
                "draft": "meta-llama/Llama-3.1-8B-Instruct",
            },
            True,
        ),
        # 70B in BF16 is some 131 GiB: no drafter makes it fit on a 24 GB L4
        ({"gpu": "L4", "quantization": "", "draft": "meta-llama/Llama-3.2-1B-Instruct"}, False),
    ],
)
def test_the_ngram_fix_only_where_the_target_fits(cli, tmp_path, fields, offered):
    fixes = _hbm201_fixes(cli, tmp_path, **fields)
    ngram = [m for m in fixes if "speculative.method: ngram" in m]
    assert bool(ngram) is offered, fixes
    if offered:
        assert "KV cache 0 tokens -> 0 tokens" not in ngram[0]
        assert "tokens -> " in ngram[0]  # what the switch gives the cache, in tokens
