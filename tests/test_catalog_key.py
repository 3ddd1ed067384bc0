"""Catalog lookup keys: the text lower-cased and stripped, each run of whitespace, underscores and
hyphens one hyphen. Names with nothing to replace skip the substitution; the key is the same."""

from __future__ import annotations

import re
import sys

import pytest

from hbmlint import catalog

SEPARATORS = re.compile(r"[\s_\-]+")


def reference(name: str) -> str:
    return SEPARATORS.sub("-", name.strip().lower())


def fresh_key(name: str) -> str:
    return catalog._key.__wrapped__(name)


def test_every_character_alone_and_between_letters():
    for code in range(sys.maxunicode + 1):
        for name in (chr(code), f"a{chr(code)}b", f"a-{chr(code)}b"):
            assert fresh_key(name) == reference(name), (code, name)


@pytest.mark.parametrize(
    "name",
    [
        "H100",
        "NVIDIA-H100-80GB-HBM3",
        "nvidia h100",
        "Tesla_T4",
        "a--b",
        "a - b",
        "-x-",
        " padded ",
        "",
        "   ",
        "A\u00a0B",
        "a\u2028b",
        "meta-llama/Llama-3.1-8B-Instruct",
        "x\x1cy",
    ],
)
def test_names(name):
    assert fresh_key(name) == reference(name)


def test_every_catalog_name():
    for file, section, field in (("gpus.yaml", "gpus", "name"), ("models.yaml", "models", "id")):
        for entry in catalog._load(file)[section]:
            for name in (entry[field], *entry.get("aliases", [])):
                assert fresh_key(str(name)) == reference(str(name))
