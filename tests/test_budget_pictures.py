"""`hbmlint budget --format svg|html` and the job summary's Mermaid chart: the picture is
well-formed, self-contained, and carries each deployment's numbers in GiB."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from helpers import EXAMPLES, manifest

SVG = "{http://www.w3.org/2000/svg}"
NGRAM = EXAMPLES / "llama8b-l4-ngram.yaml"  # 14.99 GiB weights, 4.72 GiB KV cache on an L4
DRAFT = EXAMPLES / "llama70b-fp8-h100-8b-draft.yaml"  # weights exceed one H100


def _texts(root: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]


def test_svg_is_well_formed_and_shows_the_split(cli):
    run = cli("budget", "--format", "svg", NGRAM)
    assert run.exit_code == 0
    root = ET.fromstring(run.output)
    assert root.tag == f"{SVG}svg"
    texts = _texts(root)
    assert "examples/llama8b-l4-ngram.yaml: llama8b-l4-ngram" in texts[0] or any(
        t.endswith("llama8b-l4-ngram.yaml: llama8b-l4-ngram") for t in texts
    )
    for label in (
        "target weights 14.99 GiB",
        "drafter 0.00 GiB",
        "overhead 0.67 GiB",
        "KV cache 4.72 GiB",
        "held back 1.77 GiB",
    ):
        assert label in texts
    assert any("KV capacity 38,688 tokens" in t for t in texts)
    # the bar: one rectangle a non-empty part, widths in proportion (weights / KV = 14.99 / 4.72)
    bars = {
        r.find(f"{SVG}title").text.split(":")[0]: float(r.get("width"))
        for r in root.iter(f"{SVG}rect")
        if r.find(f"{SVG}title") is not None
    }
    assert set(bars) == {"target weights", "overhead", "KV cache", "held back"}
    assert abs(bars["target weights"] / bars["KV cache"] - 14.99 / 4.72) < 0.01


def test_svg_reads_on_dark_and_light_and_fetches_nothing(cli):
    out = cli("budget", "--format", "svg", NGRAM).output
    assert "@media (prefers-color-scheme: dark)" in out
    assert "href" not in out and "@import" not in out and "url(" not in out


def test_svg_marks_a_deployment_that_does_not_fit(cli):
    run = cli("budget", "--format", "svg", DRAFT)
    root = ET.fromstring(run.output)
    texts = _texts(root)
    assert any(t.startswith("needs ") and t.endswith("GiB more than the GPU has") for t in texts)
    assert root.find(f".//{SVG}line[@class='limit']") is not None


def test_svg_escapes_names_and_reports_what_it_cannot_budget(cli, write):
    bad = write(
        manifest(
            """
            gpu: {type: H100}
            model: {name: meta-llama/Llama-3.1-8B-Instruct}
        """,
            name='"a<b>&c"',
        )
    )
    nogpu = write(manifest("model: {name: meta-llama/Llama-3.1-8B-Instruct}\n"), "nogpu.yaml")
    run = cli("budget", "--format", "svg", bad, nogpu)
    root = ET.fromstring(run.output)  # well-formed despite <, > and & in a name
    texts = _texts(root)
    assert any("a<b>&c" in t for t in texts)
    assert any(t.startswith("cannot compute a budget: ") for t in texts)
    assert run.exit_code == 1


def test_html_is_one_self_contained_page(cli):
    run = cli("budget", "--format", "html", NGRAM, DRAFT)
    assert run.exit_code == 0
    page = run.output
    assert page.startswith("<!DOCTYPE html>")
    assert page.count("<svg ") == 2
    assert "<script" not in page and "src=" not in page and "<link" not in page
    assert "prefers-color-scheme: dark" in page
    assert 'KV cache</td><td class="num">4.72 GiB' in page
    # every picture in it is well-formed XML on its own
    for picture in re.findall(r"<svg .*?</svg>", page, re.S):
        ET.fromstring(picture)


def test_job_summary_draws_each_budget_as_a_mermaid_pie(cli, write, tmp_path, monkeypatch):
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    cli("--format", "text", NGRAM, DRAFT)
    text = summary.read_text()
    blocks = re.findall(r"```mermaid\n(.*?)```", text, re.S)
    assert len(blocks) == 2
    ngram = next(b for b in blocks if "llama8b-l4-ngram" in b)
    lines = ngram.splitlines()
    assert lines[0].startswith("pie showData title llama8b-l4-ngram, one L4-24GB")
    assert lines[1:] == [
        '    "target weights" : 14.99',
        '    "overhead" : 0.67',
        '    "KV cache" : 4.72',
        '    "held back" : 1.77',
    ]
    draft = next(b for b in blocks if "llama70b" in b)
    assert '"drafter" : 14.99' in draft and "KV cache" not in draft  # no KV cache left


def test_readme_shows_the_budget_picture_the_tool_draws(cli, monkeypatch):
    from helpers import REPO

    readme = (REPO / "README.md").read_text()
    assert "![" in readme and "(docs/budget-example.svg)" in readme
    monkeypatch.chdir(REPO)
    run = cli("budget", "--format", "svg", *(f"examples/{n}" for n in PICTURED))
    assert (REPO / "docs" / "budget-example.svg").read_text() == run.output, (
        "docs/budget-example.svg is stale: regenerate it with the command in the README"
    )


PICTURED = (
    "llama8b-l4-ngram.yaml",
    "qwen3-32b-h200-small-draft.yaml",
    "llama70b-fp8-h100-8b-draft.yaml",
)
