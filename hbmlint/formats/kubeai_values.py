"""Values of KubeAI's ``models`` chart (kubeai-project/kubeai charts/models): a ``catalog`` of
models by name, each entry a Model's spec (``url``, ``engine``, ``args``, ``env``,
``resourceProfile``, ``minReplicas``) with ``enabled``. The chart renders a ``kubeai.org/v1``
Model for each entry whose ``enabled`` is true (charts/models/templates/models.yaml), so each
such entry is read as that Model (kubeai.py), at the entry's own lines.
"""

from __future__ import annotations

from typing import Any

from ..diagnostics import Diagnostic
from ..spec import Deployment
from ..yamlsrc import Span, YamlDocument

NAME = "kubeai-models-values"


def _catalog(data: Any) -> tuple[str, ...]:
    """Where the catalog is: ``catalog`` (the models chart's own values) or ``models.catalog``
    (the kubeai chart's values, which pass it on to the models subchart); () for none."""
    if not isinstance(data, dict) or "apiVersion" in data:
        return ()
    if isinstance(data.get("catalog"), dict):
        return ("catalog",)
    models = data.get("models")
    if isinstance(models, dict) and isinstance(models.get("catalog"), dict):
        return ("models", "catalog")
    return ()


def detect(data: Any) -> bool:
    where = _catalog(data)
    if not where:
        return False
    catalog = data[where[0]] if len(where) == 1 else data[where[0]][where[1]]
    return any(
        isinstance(entry, dict)
        and "url" in entry
        and ("engine" in entry or "resourceProfile" in entry)
        for entry in catalog.values()
    )


class _Entry(YamlDocument):
    """One catalog entry as the Model the chart renders: ``spec`` is the entry, placed at its
    own lines in the values file."""

    def __init__(self, values: YamlDocument, at: tuple[str, ...], name: str):
        entry = _at(values.data, at)[name]
        super().__init__(
            data={
                "apiVersion": "kubeai.org/v1",
                "kind": "Model",
                "metadata": {"name": name},
                "spec": {k: v for k, v in entry.items() if k != "enabled"},
            },
            index=values.index,
            text=values.text,
        )
        self.values, self.at, self.name = values, at, name

    def _where(self, path: Any) -> tuple:
        path = tuple(path) if not isinstance(path, str) else tuple(path.split("."))
        if path[:1] == ("spec",):
            return (*self.at, self.name, *path[1:])
        return (*self.at, self.name)

    def span(self, path: Any) -> Span:
        return self.values.span(self._where(path))

    def key_span(self, path: Any) -> Span:
        return self.values.key_span(self._where(path))


def to_deployments(
    document: YamlDocument, path: Any, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    from . import kubeai

    deployments: list[Deployment] = []
    findings: list[Diagnostic] = []
    at = _catalog(document.data)
    for name, entry in _at(document.data, at).items():
        if not isinstance(entry, dict) or entry.get("enabled") is not True:
            continue  # the chart renders only the enabled entries
        found, said = kubeai.to_deployments(_Entry(document, at, str(name)), path, display)
        deployments += found
        findings += said
    return deployments, findings


def _at(data: Any, at: tuple[str, ...]) -> dict:
    for key in at:
        data = data[key]
    return data
