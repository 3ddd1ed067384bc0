"""Format readers read a document's data and leave it as it is: fix verification reads an edit
inside one scalar back from the unedited document's data with that scalar changed (fixes.py,
_one_scalar_edit), which is the edited file's reading only while no reader has changed that
data. Checked on every document of the real-world fixtures (tests/fixtures/real, each naming
the repository it reproduces) and the examples, read as the lint reads them."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from helpers import REPO

from hbmlint import yamlsrc
from hbmlint.formats import detect_format

FILES = sorted(
    path
    for folder in (REPO / "tests" / "fixtures" / "real", REPO / "examples")
    for path in folder.rglob("*")
    if path.suffix in (".yaml", ".yml")
)


def test_there_are_files_of_many_formats():
    formats = set()
    for path in FILES:
        documents, _ = yamlsrc.load_documents(path.read_text())
        formats |= {m.NAME for m in map(detect_format, (d.data for d in documents)) if m}
    assert len(FILES) > 100 and len(formats) > 15


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_a_reader_leaves_the_data_it_reads(path: Path):
    documents, _ = yamlsrc.load_documents(path.read_text())
    for document in documents:
        module = detect_format(document.data)
        if module is None:
            continue
        unread = copy.deepcopy(document.data)
        module.to_deployments(document, path, path.name)
        assert document.data == unread
        assert repr(document.data) == repr(unread)  # the same types and order too
