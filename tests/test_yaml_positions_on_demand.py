"""yamlsrc finds a value's or key's position in the composed document when a reader asks for it,
instead of recording every node's span while loading: each answer must be the one the recorded
maps give (the maps a document read with every span recorded up front holds), on hbmlint's real
fixtures and examples (each names its source) and on two fixtures of keys written twice
(tests/fixtures/positions, each naming the file it is derived from)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.yamlsrc import YamlDocument, load_documents

TESTS = Path(__file__).parent
POSITIONS = TESTS / "fixtures" / "positions"
FILES = sorted(
    path
    for folder in (TESTS / "fixtures" / "real", TESTS.parent / "examples", POSITIONS)
    for path in folder.rglob("*")
    if path.suffix in (".yaml", ".yml")
)


def _both(text: str) -> list[tuple[YamlDocument, YamlDocument]]:
    """Each document twice: as loaded (positions found on demand) and with its maps recorded."""
    on_demand, error = load_documents(text)
    recorded, _ = load_documents(text)
    for document in recorded:
        document.spans  # noqa: B018 - reading the map records it
    return list(zip(on_demand, recorded, strict=True))


def _asked(paths: list[tuple]) -> list:
    """The recorded paths and what readers and rules also ask: a missing child, an index past
    the end, the dotted form, numbers equal to an index, an unhashable part."""
    asked: list = [(), "", "spec", "spec.template.spec.containers.0.args"]
    for path in paths:
        asked += [path, (*path, "missing"), (*path, 99), ".".join(map(str, path))]
        if path and isinstance(path[-1], int):
            asked += [(*path[:-1], float(path[-1])), (*path[:-1], str(path[-1]))]
            if path[-1] in (0, 1):
                asked.append((*path[:-1], bool(path[-1])))
        if path:
            asked.append((*path[:-1], [path[-1]]))
    return asked


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_position_on_demand_is_the_recorded_one(path):
    for on_demand, recorded in _both(path.read_text(encoding="utf-8")):
        assert on_demand.data == recorded.data
        for asked in _asked(list(recorded.spans)):
            assert on_demand.span(asked) == recorded.span(asked), asked
            assert on_demand.key_span(asked) == recorded.key_span(asked), asked
        assert on_demand.field_spans("spec") == recorded.field_spans("spec")
        # read whole, the maps are the recorded ones, in the same order
        assert list(on_demand.spans.items()) == list(recorded.spans.items())
        assert list(on_demand.key_spans.items()) == list(recorded.key_spans.items())


def test_a_path_under_the_first_of_a_repeated_key_keeps_its_own_line():
    text = (POSITIONS / "k8s-repeated-keys.yaml").read_text(encoding="utf-8")
    (document,), _ = load_documents(text)
    container = ("spec", "template", "spec", "containers", 0)
    # the second `args:` is the value; its fourth word exists only there
    assert document.span((*container, "args", 3)).line == 33
    assert document.key_span((*container, "args")).line == 29
    # `memory` is only under the first `resources:` (line 28); `nvidia.com/gpu` is the second's
    assert document.span((*container, "resources", "limits", "memory")).line == 28
    assert document.span((*container, "resources", "limits", "nvidia.com/gpu")).line == 36


def test_a_native_manifest_with_a_repeated_section_points_at_its_fields():
    # the second `serving:` (line 18) has no max_model_len: the field keeps the first one's line,
    # the section its second key's, as the recorded maps say
    path = POSITIONS / "native-repeated-section.yaml"
    (document,), _ = load_documents(path.read_text(encoding="utf-8"))
    spans = dict(document.field_spans("spec"))
    assert spans[("spec", "serving")].line == 18
    assert spans[("spec", "serving", "max_model_len")].line == 16
    assert spans[("spec", "serving", "gpu_memory_utilization")].line == 19
