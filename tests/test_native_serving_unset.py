"""The native reader's serving settings: each field the manifest gives, None for every other one
(the dataclass's own defaults, an empty tuple for two fields, are not the manifest's), made from
the fields given and the few whose default is not None, as making it from every field gives."""

from __future__ import annotations

from dataclasses import fields

import pytest

from hbmlint.formats import native
from hbmlint.spec import ServingSpec


def _every_field(serving: dict) -> ServingSpec:
    given = {key: value for key, value in serving.items() if key in native._SERVING_UNSET}
    return ServingSpec(**{**{f.name: None for f in fields(ServingSpec)}, **given})


@pytest.mark.parametrize(
    "serving",
    [
        {},
        {"max_model_len": 8192},
        {"max_model_len": 8192, "gpu_memory_utilization": 0.9, "kv_cache_dtype": "fp8"},
        {"enforce_eager": True, "block_size": 16, "max_num_seqs": 64},
        {"mm_zero_limits": ("image",), "human_readable": ("x",)},
        {"human_readable": ()},
        {"not_a_field": 1, "max_num_batched_tokens": 4096},
    ],
)
def test_serving_is_what_naming_every_field_gives(serving):
    made = native._serving(serving)
    assert made == _every_field(serving)
    for spec_field in fields(ServingSpec):
        if spec_field.name not in serving:
            assert getattr(made, spec_field.name) is None, spec_field.name


def test_the_fields_set_after_are_those_whose_default_is_not_none():
    defaults = ServingSpec()
    assert set(native._SERVING_NOT_NONE) == {
        f.name for f in fields(ServingSpec) if getattr(defaults, f.name) is not None
    }
