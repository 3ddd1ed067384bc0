"""Chart values a GitOps object holds where the chart readers do not look, each read as the
document it is, in place: an Argo CD Application's ``spec.source.helm.values`` (a string of
YAML, the older form beside ``valuesObject``: argo-cd.readthedocs.io "Helm", "Values") and the
same under a multi-source Application's ``spec.sources[]``; a kustomization's
``helmCharts[].valuesInline`` (kubectl.docs.kubernetes.io "helmCharts"); a helmfile's
``releases[].values[]`` mappings (helmfile.readthedocs.io "Configuration").

Each such block is cut out of the file with every line where it was (the lines around it left
empty), so the values parse as a document of their own whose positions are the file's: a
finding about ``maxModelLen`` points at its line in the Application. The readers
(helm_values.py, app_template.py, ...) then read it as they read a values file. Fixes are not
written for these documents (``overlay``): the values sit inside another object."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..yamlsrc import YamlDocument, load_documents

# what the lint loop reads from a document of this module: fixes are not written for it
OVERLAY = "chart values held inline by a GitOps object"


def embedded_documents(documents: list[YamlDocument], text: str) -> list[YamlDocument]:
    """The chart values the documents hold as blocks of their own, each as a document placed
    in the file (an empty list for most files)."""
    lines = text.split("\n")
    found: list[YamlDocument] = []
    for document in documents:
        for path, value in _blocks(document.data):
            made = _cut(document, path, value, lines)
            if made is not None:
                made.overlay = OVERLAY  # type: ignore[attr-defined]
                found.append(made)
    return found


def _blocks(data: Any) -> Iterator[tuple[tuple, Any]]:
    """(path, value) of each block of chart values in ``data`` no chart reader looks at."""
    if not isinstance(data, dict):
        return
    spec = data.get("spec")
    kind = data.get("kind")
    if kind in ("Application", "ApplicationSet") and isinstance(spec, dict):
        if kind == "ApplicationSet":
            template = spec.get("template")
            spec = template.get("spec") if isinstance(template, dict) else None
            base: tuple = ("spec", "template", "spec")
        else:
            base = ("spec",)
        if not isinstance(spec, dict):
            return
        source = spec.get("source")
        if isinstance(source, dict):
            yield from _helm(source, (*base, "source"), multi=False)
        sources = spec.get("sources")
        for i, item in enumerate(sources if isinstance(sources, list) else []):
            if isinstance(item, dict):
                yield from _helm(item, (*base, "sources", i), multi=True)
    charts = data.get("helmCharts")
    for i, chart in enumerate(charts if isinstance(charts, list) else []):
        if isinstance(chart, dict) and isinstance(chart.get("valuesInline"), dict):
            yield ("helmCharts", i, "valuesInline"), chart["valuesInline"]
    releases = data.get("releases")
    for i, release in enumerate(releases if isinstance(releases, list) else []):
        values = release.get("values") if isinstance(release, dict) else None
        for j, value in enumerate(values if isinstance(values, list) else []):
            if isinstance(value, dict):
                yield ("releases", i, "values", j), value


def _helm(source: dict, path: tuple, multi: bool) -> Iterator[tuple[tuple, Any]]:
    helm = source.get("helm")
    if not isinstance(helm, dict):
        return
    if isinstance(helm.get("values"), str):
        yield (*path, "helm", "values"), helm["values"]
    # a single source's valuesObject is read by the chart readers themselves
    if multi and isinstance(helm.get("valuesObject"), dict):
        yield (*path, "helm", "valuesObject"), helm["valuesObject"]


def _cut(document: YamlDocument, path: tuple, value: Any, lines: list[str]) -> Any:
    """The block at ``path`` parsed with every line where the file has it; None where it is
    not a block on lines of its own (a flow mapping, a quoted string) or holds no mapping."""
    span = document.span(path)
    if isinstance(value, str):
        # a literal block scalar: its text starts on the line after the `|`
        first = span.line + 1
        count = value.count("\n") + (0 if value.endswith("\n") else 1)
        last = first + count - 1
        if span.line > len(lines) or not lines[span.line - 1].rstrip().endswith(("|", "|-", "|+")):
            return None
    else:
        first = span.line
        last = span.end_line or span.line
        if span.end_column == 1:  # the end is the start of the next line
            last -= 1
    if first < 1 or last > len(lines) or last < first:
        return None
    block = lines[first - 1 : last]
    if not isinstance(value, str):
        # a list item's mapping (`- servingEngineSpec:`) starts after its dash: blanked, so the
        # block is the mapping alone, each key still at its column
        block[0] = " " * (span.column - 1) + block[0][span.column - 1 :]
    wanted = (
        [line.rstrip() for line in value.rstrip("\n").split("\n")] if isinstance(value, str) else []
    )
    if isinstance(value, str) and _dedented(block) != wanted:
        return None  # not the scalar's own lines (a folded or indented-indicator block)
    padded = "\n" * (first - 1) + "\n".join(block) + "\n"
    made, error = load_documents(padded)
    if error is not None or len(made) != 1 or not isinstance(made[0].data, dict):
        return None
    made[0].index = document.index
    return made[0]


def _dedented(block: list[str]) -> list[str]:
    indents = [len(line) - len(line.lstrip(" ")) for line in block if line.strip()]
    cut = min(indents) if indents else 0
    return [line[cut:].rstrip() for line in block]
