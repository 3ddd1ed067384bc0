"""Warnings on real manifests as a user reads them (warnings audit, session 14): each fixture
in tests/fixtures/real/ names its source repository and path at its top."""

from __future__ import annotations

import pytest
from real_lint import REAL, codes, lint

from hbmlint.diagnostics import Severity
from hbmlint.rules import load_rules


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def test_a_model_the_hub_cannot_give_says_how_a_kubernetes_manifest_unblocks_it(rules):
    # the tests run offline (conftest): falcon-40b-instruct is outside the catalog
    path = REAL / "gke-tgi-falcon-40b-hub-offline.yaml"
    [finding] = codes(lint(path, rules), "HBM015")
    assert finding.severity is Severity.WARNING
    assert finding.span.line == 32  # MODEL_ID's value
    # the Hub's advice and the hint are separate sentences
    assert "commit .hbmlint/models/, or unset HF_HUB_OFFLINE. Did you mean" in finding.message
    # `model.config` is a field of hbmlint's own format only: a Deployment is unblocked by a
    # team catalog that lists the model
    assert "model.config" not in finding.message
    assert "catalogs:" in finding.message
    assert "id: tiiuae/falcon-40b-instruct" in finding.message
