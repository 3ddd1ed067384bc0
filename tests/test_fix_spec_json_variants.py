"""A --speculative-config edit writes the JSON _spec_json made for the fix's setting, and the
JSON in the other separators only where that cannot be encoded: the same edits as writing both
first and trying them in turn."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from hbmlint import rewrite
from hbmlint.formats import kubernetes
from hbmlint.rewrite import ArgvWriter, Locator, Source, _dumps
from hbmlint.yamlsrc import load_documents


def _kubernetes(args: str) -> str:
    return textwrap.dedent(
        """\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: m}
        spec:
          template:
            spec:
              nodeSelector: {cloud.google.com/gke-accelerator: nvidia-h100-80gb}
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.11.0
        """
    ) + textwrap.indent(textwrap.dedent(args), " " * 10)


SPEC = '{"method": "draft_model", "model": "org/d", "num_speculative_tokens": 4}'
COMPACT = '{"method":"draft_model","model":"org/d","num_speculative_tokens":4}'

MANIFESTS = {
    "single-quoted item": _kubernetes(
        f"""\
        args:
          - --model
          - meta-llama/Llama-3.1-8B-Instruct
          - --speculative-config
          - '{SPEC}'
        """
    ),
    "compact, double-quoted item": _kubernetes(
        """\
        args:
          - --model
          - meta-llama/Llama-3.1-8B-Instruct
          - --speculative-config
          - "{\\"method\\":\\"draft_model\\",\\"num_speculative_tokens\\":4}"
        """
    ),
    "joined item": _kubernetes(
        f"""\
        args:
          - --model=meta-llama/Llama-3.1-8B-Instruct
          - '--speculative-config={COMPACT}'
        """
    ),
    "flow list": _kubernetes(
        f"""\
        args: [--model, meta-llama/Llama-3.1-8B-Instruct, --speculative-config, '{SPEC}']
        """
    ),
    "script": _kubernetes(
        f"""\
        command: [sh, -c]
        args:
          - |
            vllm serve meta-llama/Llama-3.1-8B-Instruct \\
              --speculative-config '{SPEC}'
        """
    ),
    "plain script": _kubernetes(
        f"""\
        command: [sh, -c]
        args:
          - vllm serve meta-llama/Llama-3.1-8B-Instruct --speculative-config {COMPACT}
        """
    ),
}

CHANGES = [
    {"speculative.quantization": "fp8"},
    {"speculative.method": "ngram"},
    {"speculative.kv_cache_dtype": "fp8"},
    {"speculative.num_speculative_tokens": 2},
    {"speculative.method": "ngram", "speculative.num_speculative_tokens": 3},
]


class _BothFirst(ArgvWriter):
    """The writer as it was: the JSON texts made here, not the one _spec_json made (written)."""

    def _replace_value(self, item, value, source, locator, written=None):  # type: ignore[override]
        return super()._replace_value(item, value, source, locator, None)


def _read(text: str) -> tuple[Any, Source, Locator]:
    documents, error = load_documents(text)
    assert error is None
    [deployment], _ = kubernetes.to_deployments(documents[0], Path("m.yaml"), "m.yaml")
    assert isinstance(deployment.writer, ArgvWriter)
    source = Source(text, "m.yaml")
    return deployment.writer, source, Locator(source, documents[0])


@pytest.mark.parametrize("name", sorted(MANIFESTS))
@pytest.mark.parametrize("changes", CHANGES, ids=repr)
def test_the_edits_are_those_of_trying_both_texts(name, changes):
    writer, source, locator = _read(MANIFESTS[name])
    old = _BothFirst(writer.engine, writer.items)
    setting = writer.setting(changes, locator)
    assert setting == old.setting(changes, locator)
    assert writer.edits(changes, source, locator) == old.edits(changes, source, locator)


def test_the_setting_and_the_edit_dump_the_json_once(monkeypatch):
    writer, source, locator = _read(MANIFESTS["single-quoted item"])
    dumped = []
    dumps = rewrite._dumps

    def counted(value: dict, compact: bool) -> str:
        dumped.append(compact)
        return dumps(value, compact)

    monkeypatch.setattr(rewrite, "_dumps", counted)
    changes = {"speculative.quantization": "fp8"}
    writer.setting(changes, locator)
    [edit] = writer.edits(changes, source, locator)
    assert dumped == [False]  # the author's separators, once
    assert '"quantization": "fp8"' in edit.replacement


@pytest.mark.parametrize("was", [SPEC, COMPACT])
def test_the_texts_in_order_each_made_when_asked(monkeypatch, was):
    value = {"method": "ngram", "num_speculative_tokens": 4}
    own, other = (False, True) if ": " in was else (True, False)
    assert list(rewrite._variants(value, was, None)) == [_dumps(value, own), _dumps(value, other)]
    assert list(rewrite._variants(value, was, "given")) == ["given", _dumps(value, other)]
    assert list(rewrite._variants(4, was, None)) == ["4"]
    dumped = []
    dumps = rewrite._dumps
    monkeypatch.setattr(rewrite, "_dumps", lambda v, c: dumped.append(c) or dumps(v, c))
    texts = rewrite._variants(value, was, None)
    assert next(texts) == dumps(value, own) and dumped == [own]
    assert next(texts) == dumps(value, other) and dumped == [own, other]
