"""What the catalog tests share: a catalog entry's architecture as the budget builds it, and a
weight figure in bytes."""

from __future__ import annotations

from hbmlint import catalog


def architecture(model_id: str) -> catalog.Architecture:
    entry = catalog.find_model(model_id)
    assert entry is not None, model_id
    return catalog.architecture_from_config(entry["config"], entry["id"], entry["source"])


def stored_bytes(weights) -> float:
    return float(weights.to("byte").magnitude)
