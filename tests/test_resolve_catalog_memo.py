"""What resolve finds in the catalog for a model name, made once per catalog entry a run
(resolve._from_catalog): every catalog model gets what it gets worked out afresh, and a team
catalog read later that changes what a re-upload inherits from its base (the head parts it
stores) is seen. A model name with no `model-paths` configured is looked up as it is written.
"""

from __future__ import annotations

import yaml

from hbmlint import catalog, resolve

BASE = "meta-llama/Llama-3.2-3B-Instruct"
REUPLOAD = "unsloth/Llama-3.2-3B-Instruct"  # models.yaml: base: meta-llama/Llama-3.2-3B-Instruct


def test_every_catalog_model_is_found_as_its_entry_gives_it():
    ids = catalog.model_ids()
    assert len(ids) > 100
    for model_id in ids:
        first = resolve._from_catalog(model_id, False)
        fresh = resolve._found_in_catalog(catalog.find_model(model_id))
        assert first == fresh, model_id
        assert resolve._from_catalog(model_id, False) == fresh
    assert resolve._from_catalog("no-such-org/no-such-model", False) is None


def test_a_team_catalog_read_later_changes_what_a_reupload_inherits(tmp_path):
    assert resolve._from_catalog(REUPLOAD, False).stores is None
    base = dict(catalog.find_model(BASE))
    team = tmp_path / "team.yaml"
    base["stores"] = ["embed_tokens"]
    team.write_text(yaml.safe_dump({"models": [base]}))
    try:
        catalog.use_extra_files([team])
        assert resolve._from_catalog(REUPLOAD, False).stores == ("embed_tokens",)
        assert resolve._from_catalog(BASE, False).stores == ("embed_tokens",)
    finally:
        catalog.use_extra_files([])
    assert resolve._from_catalog(REUPLOAD, False).stores is None
    assert resolve._from_catalog(BASE, False).stores is None


def test_model_paths_map_names_only_where_configured():
    assert resolve._mapped("/models/llama/", ()) is None
    paths = (("/models/llama", BASE),)
    assert resolve._mapped("/models/llama/", paths) == BASE
    assert resolve._mapped("/models/llama/7b/../", paths) == BASE
    assert resolve._mapped("/models/other", paths) is None
