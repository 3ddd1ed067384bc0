"""HBM101's message splits the weights into target and draft only where there is a drafter:
without one, "(43.91 GiB target + 0.00 GiB draft)" named a draft the deployment does not have.

The patterns: examples/mistral-small (Mistral-Small-24B in BF16 on one L40S, no drafter) and
tests/golden/manifests/over-budget.yaml (a 70B FP8 target with a BF16 8B draft on one H100)."""

from __future__ import annotations

import textwrap

MANIFEST = textwrap.dedent("""\
    apiVersion: hbmlint/v1
    kind: ServingManifest
    metadata: {{name: weights}}
    spec:
      engine_version: "0.33.0"
      gpu: {{type: {gpu}}}
      model: {{name: {model}}}
    {speculative}""")


def _hbm101(cli, tmp_path, **fields) -> str:
    path = tmp_path / "m.yaml"
    path.write_text(MANIFEST.format(**fields))
    run = cli("--format", "json", path)
    [finding] = [f for f in run.json() if f["code"] == "HBM101"]
    return finding["message"]


def test_without_a_drafter_the_weights_are_not_split(cli, tmp_path):
    message = _hbm101(
        cli, tmp_path, gpu="L40S", model="mistralai/Mistral-Small-24B-Instruct-2501", speculative=""
    )
    assert message.startswith("weights need ")
    assert "draft" not in message
    assert " GiB per GPU but the engine may use " in message and "short by " in message


def test_with_a_drafter_the_split_is_shown(cli, tmp_path):
    speculative = "  speculative: {method: draft_model, model: meta-llama/Llama-3.1-8B-Instruct}\n"
    message = _hbm101(
        cli,
        tmp_path,
        gpu="H100",
        model="meta-llama/Llama-3.1-70B-Instruct, quantization: fp8",
        speculative=speculative,
    )
    assert " GiB target + " in message and " GiB draft) but the engine may use " in message
