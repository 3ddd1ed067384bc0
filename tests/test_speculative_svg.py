"""`hbmlint budget --compare-speculative --format svg`: the alternatives side by side."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from helpers import EXAMPLES

SVG = "{http://www.w3.org/2000/svg}"
DRAFT = EXAMPLES / "llama70b-fp8-h100-8b-draft.yaml"  # the 8B draft does not fit one H100


def test_alternatives_side_by_side(cli):
    run = cli("budget", "--compare-speculative", "--format", "svg", DRAFT)
    assert run.exit_code == 0
    root = ET.fromstring(run.output)
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    json_run = cli("budget", "--compare-speculative", "--format", "json", DRAFT).json()[0]
    rows = json_run["alternatives"]
    # one row per alternative, in the same order, with its numbers
    labels = [
        t.removeprefix("* ")
        for t in texts
        if any(t.removeprefix("* ") == r["label"][:40] for r in rows)
    ]
    assert labels == [r["label"][:40] for r in rows]
    current = rows[0]
    assert not current["starts"]
    assert any(t.startswith("does not start; draft 14.99 GiB") for t in texts)
    best = next(r for r in rows if r["key"] == json_run["best"])
    assert f"* {best['label'][:40]}" in texts
    assert any(f"KV {best['kv_cache_tokens']:,} tokens" in t for t in texts)


def test_alternatives_in_a_self_contained_page(cli):
    run = cli("budget", "--compare-speculative", "--format", "html", DRAFT)
    assert run.exit_code == 0
    assert run.output.startswith("<!DOCTYPE html>")
    assert "<svg" in run.output and "does not start; draft 14.99 GiB" in run.output
    assert "<script" not in run.output and "http://" not in run.output.replace(
        "http://www.w3.org/2000/svg", ""
    )
