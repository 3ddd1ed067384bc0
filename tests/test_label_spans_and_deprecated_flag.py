"""Workload labels and annotations (Deployment.hints) carry the spans of their keys, and
vLLM's deprecated-checkpoint check looks for --allow-deprecated-quantization only where the
checkpoint's method is deprecated: the same labels, spans and refusals as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.engines import vllm
from hbmlint.engines.args import Token
from hbmlint.formats.podspec import metadata_labels, pod_specs
from hbmlint.spec import Label
from hbmlint.yamlsrc import Span, load_documents

TESTS = Path(__file__).parent
FILES = sorted(
    path
    for folder in (TESTS / "fixtures", TESTS.parent / "examples")
    for path in folder.rglob("*")
    if path.suffix in (".yaml", ".yml")
)


def _eager(document, *paths) -> list[Label]:
    """Every label and annotation at the given metadata paths, with its span, found here."""
    found = []
    for path in paths:
        metadata = document.data
        for key in path:
            metadata = metadata.get(key) if isinstance(metadata, dict) else None
        if not isinstance(metadata, dict):
            continue
        for section in ("annotations", "labels"):
            items = metadata.get(section)
            if isinstance(items, dict):
                for key, value in items.items():
                    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
                        span = document.span((*path, section, key))
                        found.append(Label(str(key), str(value), span))
    return found


def _label_paths(data) -> list[tuple]:
    paths = [("metadata",), ("model",)]
    if isinstance(data, dict):
        paths += [(*pod[:-1], "metadata") for pod, _ in pod_specs(data)]
    return paths


def test_labels_read_as_the_eager_ones_on_every_fixture_and_example():
    compared = 0
    for path in FILES:
        documents, _ = load_documents(path.read_text(encoding="utf-8"))
        for document in documents:
            paths = _label_paths(document.data)
            eager = _eager(document, *paths)
            read = metadata_labels(document, *paths)
            assert read == eager and eager == read, path
            assert [(h.key, h.value, h.span) for h in read] == [
                (h.key, h.value, h.span) for h in eager
            ]
            assert repr(read) == repr(eager)
            compared += len(eager)
    assert compared >= 20  # the fixtures hold labels and annotations


def _command(words: str) -> vllm.EngineCommand:
    span = Span(1, 1, 1, 1)
    return vllm.parse([Token(w, span) for w in words.split()], span)


def test_the_flag_is_not_looked_for_where_the_checkpoint_is_current(monkeypatch):
    def scanned(command):
        raise AssertionError("the command line was scanned for the flag")

    monkeypatch.setattr(vllm, "_deprecated_allowed", scanned)
    command = _command("Qwen/Qwen3-8B --max-model-len 8192")
    vllm._deprecated_checkpoint(command)
    assert command.refusals == []


@pytest.mark.parametrize(
    ("flags", "refused"),
    [
        ("", True),
        ("--allow-deprecated-quantization", False),
        ("--allow-deprecated-quantization --no-allow-deprecated-quantization", True),
        ("--allow-deprecated-quantization=false", True),
    ],
)
def test_a_deprecated_checkpoint_still_reads_the_flag(flags, refused):
    command = _command(f"meta-llama/Llama-3.1-405B-Instruct-FP8 {flags}".strip())
    command.refusals.clear()
    vllm._deprecated_checkpoint(command)
    assert bool(command.refusals) is refused
