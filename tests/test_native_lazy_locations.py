"""The native reader's ``locations`` are recorded from the document when first used
(formats/native.py _Locations): whatever uses them, and whenever, they are the dict that
recording every field's span at once gives, in the same order."""

from __future__ import annotations

import copy
import importlib.util
import operator
import pickle
import sys
from pathlib import Path

import pytest
from helpers import EXAMPLES, REPO

from hbmlint.formats import detect_format, native
from hbmlint.yamlsrc import load_documents

FIXTURES = REPO / "tests" / "fixtures"

TEXT = """\
apiVersion: "hbmlint/v1"
kind: "ServingManifest"
metadata:
  name: "bench-00090-qwen3-32b"
spec:
  engine: "vllm"
  gpu:
    type: "L4"
    count: 4
  model:
    name: "Qwen/Qwen3-32B"
  parallel:
    tensor: 4
  serving:
    max_num_seqs: 64
  speculative:
    method: "draft_model"
    model: "Qwen/Qwen3-1.7B"
    num_speculative_tokens: 4
"""


def _read(text: str, name: str = "m.yaml") -> tuple[list, list]:
    """Each native document of ``text`` with its deployment's locations."""
    found = []
    documents, _ = load_documents(text)
    for document in documents:
        if detect_format(document.data) is native:
            deployments, _ = native.to_deployments(document, Path(name), name)
            found += [(document, d.locations) for d in deployments]
    return documents, found


def _eager(text: str, index: int) -> dict:
    """What recording every span of a fresh read of ``text`` gives."""
    document = load_documents(text)[0][index]
    data = document.data
    return native._field_locations(document, ("metadata", "name") if "metadata" in data else ())


def _generated(directory: Path, monkeypatch) -> list[Path]:
    """speed.py's corpus: its first 300 files."""
    name = "hbmlint_speed_benchmark"
    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / "speed.py")
    speed = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, speed)  # its dataclasses look their module up
    spec.loader.exec_module(speed)
    return speed.generate(directory, 300)


def test_locations_are_the_eager_dict_on_every_manifest(tmp_path, monkeypatch):
    files = [
        p
        for folder in (FIXTURES, EXAMPLES)
        for p in sorted(folder.rglob("*"))
        if p.suffix in (".yaml", ".yml")
    ]
    files += _generated(tmp_path, monkeypatch)
    read = 0
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        if "ServingManifest" not in text:
            continue
        _, found = _read(text, path.name)
        for document, locations in found:
            expected = _eager(text, document.index)
            assert list(locations.items()) == list(expected.items()), path
            read += 1
    assert read > 200


def test_a_later_fill_gives_the_same_dict_after_the_spans_are_recorded():
    documents, [(document, locations)] = _read(TEXT)
    document.spans  # fix verification asks for every span: the tree is given up  # noqa: B018
    assert document._tree is None
    assert dict(locations) == _eager(TEXT, 0)
    assert locations["model.name"].line == 11
    assert locations[""].line == 4  # the manifest's name


def test_a_repeated_key_under_spec_records_the_same_as_before():
    text = TEXT.replace("  serving:\n", "  serving:\n    max_num_seqs: 8\n")
    _, [(_, locations)] = _read(text)
    assert list(locations.items()) == list(_eager(text, 0).items())
    assert locations["serving.max_num_seqs"].line == 16  # the last one written, as recorded


@pytest.mark.parametrize(
    "use",
    [
        lambda d: "gpu.type" in d,
        lambda d: d["gpu.type"],
        lambda d: d.get("gpu.type"),
        lambda d: len(d),
        lambda d: bool(d),
        lambda d: list(d),
        lambda d: list(reversed(d)),
        lambda d: list(d.items()),
        lambda d: list(d.keys()),
        lambda d: list(d.values()),
        lambda d: dict(d),
        lambda d: {**d},
        lambda d: d | {},
        lambda d: {} | d,
        lambda d: d.copy(),
        lambda d: copy.copy(d),
        lambda d: copy.deepcopy(d),
        lambda d: pickle.loads(pickle.dumps(d)),
        lambda d: repr(d),
        lambda d: d == {},
        lambda d: operator.eq({}, d),  # the reflected comparison, as `{} == d`
        lambda d: d != {},
    ],
)
def test_every_use_sees_the_filled_dict(use):
    expected = _eager(TEXT, 0)
    _, [(_, lazy)] = _read(TEXT)
    _, [(_, plain)] = _read(TEXT)
    plain = dict(plain)
    assert use(lazy) == use(plain)
    assert dict(lazy) == expected


def test_writes_keep_the_order_and_two_unused_dicts_compare_equal():
    _, [(_, one)] = _read(TEXT)
    _, [(_, two)] = _read(TEXT)
    assert one == two  # neither used before
    _, [(_, one)] = _read(TEXT)
    _, [(_, two)] = _read(TEXT)
    assert (one != two) is False  # neither used before
    one["gpu.memory"] = one["gpu"]  # resolve adds a field: after the recorded ones
    assert list(one)[-1] == "gpu.memory"
    assert one != two
    assert two.pop("engine").line == 6 and "engine" not in two
    copied = pickle.loads(pickle.dumps(two))
    assert type(copied) is dict and copied == two


def test_held_locations_let_go_of_their_document_when_the_next_manifest_is_read():
    # a run that keeps its results (a budget view) must not keep every file's document alive
    _, [(document, held)] = _read(TEXT)
    assert held._document is document  # not used yet: the document is needed to fill it
    _read(TEXT.replace("bench-00090", "bench-00091"))
    assert held._document is None
    assert list(held.items()) == list(_eager(TEXT, 0).items())
