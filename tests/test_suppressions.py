"""Inline suppressions: comments on the line, on the line above, for the file; the Kubernetes-
style annotation; unused and unreadable ones reported as HBM090 (info)."""

from __future__ import annotations

import pytest

from hbmlint.suppressions import scan
from hbmlint.yamlsrc import load_documents

# 70B FP8 + BF16 8B draft on one H100. Line 6: `model:` (HBM101); line 11: the draft model (HBM201).
# A 32k context, so that no alternative to the drafter holds a whole sequence either (HBM208
# stays quiet: these tests are about suppressions, not the trade-off).
BASE = """\
apiVersion: hbmlint/v1
kind: ServingManifest
metadata: {name: draft}
spec:
  gpu: {type: H100}
  model: {name: meta-llama/Llama-3.1-70B-Instruct, quantization: fp8}
  serving: {max_model_len: 32768, gpu_memory_utilization: 0.95}
  speculative:
    method: draft_model
    # a comment line
    model: meta-llama/Llama-3.1-8B-Instruct
"""


def lint(cli, write, text: str, *flags: str) -> list[tuple[int, str, str]]:
    path = write(text)
    return [
        (f["line"], f["code"], f["message"]) for f in cli("--format", "json", *flags, path).json()
    ]


def with_line(line: int, suffix: str) -> str:
    lines = BASE.splitlines()
    lines[line - 1] += suffix
    return "\n".join(lines) + "\n"


def test_without_suppressions(cli, write):
    assert [c for _, c, _ in lint(cli, write, BASE)] == ["HBM101", "HBM201"]


@pytest.mark.parametrize(
    "directive",
    [
        "  # hbmlint: disable=HBM201",
        "  # hbmlint: disable=draft-weights-share -- the drafter pays for itself here",
        "  #hbmlint:disable=HBM201,HBM201",
        "  # hbmlint: disable",  # every code on this line
    ],
)
def test_disable_on_the_line(cli, write, directive):
    assert [c for _, c, _ in lint(cli, write, with_line(11, directive))] == ["HBM101"]


def test_disable_next_line(cli, write):
    text = BASE.replace("    # a comment line", "    # hbmlint: disable-next-line=HBM201 -- why")
    assert [c for _, c, _ in lint(cli, write, text)] == ["HBM101"]


def test_disable_file(cli, write):
    text = "# hbmlint: disable-file=HBM101,HBM201 -- a known-bad fixture\n" + BASE
    assert lint(cli, write, text) == []
    assert lint(cli, write, "# hbmlint: disable-file\n" + BASE) == []


def test_annotation_covers_its_document_only(cli, write):
    annotated = BASE.replace(
        "metadata: {name: draft}",
        "metadata:\n  name: draft\n  annotations:\n    hbmlint.io/disable: HBM201,HBM101",
    )
    other = BASE.replace("name: draft", "name: other")
    found = lint(cli, write, annotated + "---\n" + other)
    assert [(c, line > 15) for line, c, _ in found] == [("HBM101", True), ("HBM201", True)]


def test_unused_suppression_is_reported_as_info(cli, write):
    text = with_line(7, "  # hbmlint: disable=HBM102 -- stale")
    found = lint(cli, write, text)
    assert [(line, c) for line, c, _ in found] == [(6, "HBM101"), (7, "HBM090"), (11, "HBM201")]
    assert "no HBM102 finding here" in found[1][2]
    run = cli(
        "--format", "json", "--fail-on", "warning", write(with_line(7, "  # hbmlint: disable"))
    )
    assert [f["severity"] for f in run.json() if f["code"] == "HBM090"] == ["info"]


def test_partly_used_suppression_reports_the_unused_code(cli, write):
    found = lint(cli, write, with_line(11, "  # hbmlint: disable=HBM201,HBM103"))
    assert [(line, c) for line, c, _ in found] == [(6, "HBM101"), (11, "HBM090")]
    assert "no HBM103 finding" in found[1][2]


def test_unknown_code_and_directive(cli, write):
    found = lint(cli, write, with_line(11, "  # hbmlint: disable=HBM201,HBM777"))
    assert "unknown code 'HBM777'" in found[-1][2]
    found = lint(cli, write, with_line(11, "  # hbmlint: disabel=HBM201"))
    assert [c for _, c, _ in found] == ["HBM101", "HBM201", "HBM090"]  # by column on line 11
    assert "unknown hbmlint directive 'disabel'" in found[2][2]


def test_suppression_of_an_ignored_code_is_not_called_unused(cli, write):
    text = with_line(7, "  # hbmlint: disable=HBM102")
    assert [c for _, c, _ in lint(cli, write, text, "--ignore", "HBM102")] == ["HBM101", "HBM201"]
    assert [c for _, c, _ in lint(cli, write, text, "--ignore", "HBM090")] == ["HBM101", "HBM201"]


def test_a_hash_inside_a_value_is_not_a_comment():
    text = 'a: "x#hbmlint: disable=HBM201"\nb: 1 # hbmlint: disable=HBM201 -- r\n'
    documents, _ = load_documents(text)
    found, problems = scan(text, documents, "f.yaml")
    assert [(s.kind, s.first_line, s.codes, s.reason) for s in found] == [
        ("line", 2, ("HBM201",), "r")
    ]
    assert problems == []


def test_suppressed_findings_appear_in_sarif(cli, write):
    text = with_line(11, "  # hbmlint: disable=HBM201 -- accepted until the FP8 draft ships")
    results = cli("--format", "sarif", write(text)).json()["runs"][0]["results"]
    by_rule = {r["ruleId"]: r for r in results}
    assert "suppressions" not in by_rule["HBM101"]
    [suppression] = by_rule["HBM201"]["suppressions"]
    assert suppression["kind"] == "inSource"
    assert suppression["justification"] == "accepted until the FP8 draft ships"
    assert suppression["location"]["physicalLocation"]["region"]["startLine"] == 11


def test_annotation_on_a_kubernetes_deployment(cli, tmp_path):
    """Generated YAML loses comments; the annotation on the Deployment (or its pod template)
    suppresses in that document only."""
    from helpers import EXAMPLES

    source = (EXAMPLES / "k8s-llama70b-l4-draft.yaml").read_text()
    before = [
        f["code"] for f in cli("--format", "json", EXAMPLES / "k8s-llama70b-l4-draft.yaml").json()
    ]
    if "HBM201" not in before:
        pytest.skip("the Kubernetes example no longer has an HBM201 finding")
    marker = "kind: Deployment\nmetadata:\n"
    assert marker in source
    annotated = source.replace(
        marker, marker + "  annotations:\n    hbmlint.io/disable: HBM201 -- accepted\n", 1
    )
    path = tmp_path / "k8s.yaml"
    path.write_text(annotated)
    after = [f["code"] for f in cli("--format", "json", path).json()]
    assert after == [c for c in before if c != "HBM201"]
