"""The fix stage asks a document for a few paths and lines (YamlDocument.recorded, keys_below,
starting_on; Locator.path_at; fixes._Lines), answered from the composed tree without recording
every node's span: the same answers, in the same order, as the recorded maps give."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from helpers import EXAMPLES, REPO

from hbmlint import fixes
from hbmlint.diagnostics import Diagnostic
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rewrite import Locator, Source
from hbmlint.rules import builtin_rule_files, load_rules
from hbmlint.yamlsrc import YamlDocument, load_documents

FIXTURES = REPO / "tests" / "fixtures"

REPEATED = """\
spec:
  a: 1
  b: {x: 1, y: 2}
  a: 3
  c:
    - one
    - two
"""

COMPLEX_KEY = """\
spec:
  ? [a, b]
  : 1
  c: 2
"""

# speed.py's file 2 (a fix for each of the drafter's method, quantization and KV cache dtype)
_SPEC = '"{\\"method\\": \\"draft_model\\", \\"model\\": \\"Qwen/Qwen3-0.6B\\", '
KUBERNETES = f"""\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: bench-00002-qwen3-8b
spec:
  replicas: 1
  selector:
    matchLabels: {{app: bench-00002-qwen3-8b}}
  template:
    metadata:
      labels: {{app: bench-00002-qwen3-8b}}
    spec:
      nodeSelector:
        nvidia.com/gpu.product: H200-NVL
      containers:
        - name: vllm
          image: vllm/vllm-openai:latest
          command: ["vllm", "serve"]
          args:
            - "Qwen/Qwen3-8B"
            - "--tensor-parallel-size"
            - "2"
            - "--max-model-len"
            - "16384"
            - "--gpu-memory-utilization"
            - "0.9"
            - "--kv-cache-dtype"
            - "fp8"
            - "--speculative-config"
            - {_SPEC}\\"num_speculative_tokens\\": 4}}"
          resources:
            limits:
              nvidia.com/gpu: 2
"""


def _generated(directory: Path, monkeypatch) -> list[Path]:
    """speed.py's corpus: its first 300 files."""
    name = "hbmlint_speed_benchmark"
    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / "speed.py")
    speed = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, speed)  # its dataclasses look their module up
    spec.loader.exec_module(speed)
    return speed.generate(directory, 300)


def _texts(tmp_path, monkeypatch) -> list[str]:
    files = [
        p
        for folder in (FIXTURES, EXAMPLES)
        for p in sorted(folder.rglob("*"))
        if p.suffix in (".yaml", ".yml")
    ]
    files += _generated(tmp_path, monkeypatch)
    return [p.read_text(encoding="utf-8", errors="replace") for p in files]


def _recorded(text: str) -> list[YamlDocument]:
    documents, _ = load_documents(text)
    for document in documents:
        document.spans  # every span recorded: the maps the tree's answers must equal  # noqa: B018
    return documents


def _expected_on(document: YamlDocument, line: int) -> tuple[list, list]:
    return (
        [(p, s) for p, s in document.spans.items() if s.line == line],
        [(p, s) for p, s in document.key_spans.items() if s.line == line],
    )


def _check(text: str) -> int:
    """Compare every answer of a fresh read of ``text`` with the recorded maps; the number of
    documents answered from their tree."""
    fresh, _ = load_documents(text)
    recorded = _recorded(text)
    from_tree = 0
    for document, done in zip(fresh, recorded, strict=True):
        from_tree += document._tree is not None
        lines = text.count("\n") + 2
        for line in range(0, lines + 1):
            assert document.starting_on(line) == _expected_on(done, line), line
        paths = (
            list(done.spans)
            + [(*p, "missing") for p in done.spans]
            + [(*p, 99) for p in done.spans]
        )
        for path in paths:
            assert document.recorded(path) == (done.key_spans.get(path), done.spans.get(path))
            assert document.keys_below(path) == [p for p in done.key_spans if p[:-1] == path]
        locator, by_span = Locator(Source(text, ""), document), Locator(Source(text, ""), done)
        for span in done.spans.values():
            assert locator.path_at(span) == by_span.by_span.get(span)
        # fixes' lines, as the one-line spans and the keys grouped by line were
        one_line: dict[int, list] = {}
        for path, span in done.spans.items():
            if span.line == span.end_line:
                one_line.setdefault(span.line, []).append((path, span))
        keys: dict[int, list] = {}
        for path, span in done.key_spans.items():
            keys.setdefault(span.line, []).append((path, span))
        index = fixes._Lines(document)
        for line in range(0, lines + 1):
            assert fixes._ByLine(index, 0).get(line, ()) == one_line.get(line, ())
            assert fixes._ByLine(index, 1).get(line, ()) == keys.get(line, ())
    return from_tree


def test_the_tree_answers_as_the_recorded_maps_on_every_manifest(tmp_path, monkeypatch):
    from_tree = sum(_check(text) for text in _texts(tmp_path, monkeypatch))
    assert from_tree > 300


@pytest.mark.parametrize("text", [REPEATED, COMPLEX_KEY, KUBERNETES])
def test_repeated_and_complex_keys_answer_as_recorded(text):
    _check(text)


def test_a_repeated_key_gives_the_tree_up():
    [document], _ = load_documents(REPEATED)
    assert document._tree is not None
    document.starting_on(2)
    assert document._tree is None  # recorded: a path's span is its last key's
    assert document.recorded(("spec", "a"))[1].line == 4


def test_writing_and_checking_a_fix_leaves_the_spans_unrecorded(tmp_path, monkeypatch):
    """A Kubernetes manifest's speculative fixes are written and checked from the tree."""
    path = tmp_path / "m.yaml"
    path.write_text(KUBERNETES)
    rules, _ = load_rules(builtin_rule_files())
    seen: list[YamlDocument] = []
    complete = fixes.complete

    def watched(findings: list[Diagnostic], deployment, context) -> None:
        complete(findings, deployment, context)
        seen.append(context.document)

    monkeypatch.setattr(fixes, "complete", watched)
    result = lint_file(path, "m.yaml", rules, LintOptions())
    assert seen and all(document._tree is not None for document in seen)
    edits = [f.edits for d in result.diagnostics for f in d.fixes if getattr(f, "edits", ())]
    assert len(edits) >= 2  # the fixes were written and checked
