"""The job summary is appended completely or not at all (issue 7: output files)."""

from __future__ import annotations

import errno
import os

from hbmlint.reporters import summary


def test_a_write_that_fails_half_way_leaves_the_summary_as_it_was(tmp_path, monkeypatch):
    path = tmp_path / "summary.md"
    path.write_text("# earlier step\n")
    real_write = os.write

    def full_disk(fd, data):
        real_write(fd, data[:10])  # some bytes land, then the disk is full
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(summary.os, "write", full_disk)
    problem = summary.append(str(path), "## hbmlint\n\n| a | b |\n")
    assert problem == "No space left on device"
    assert path.read_text() == "# earlier step\n"


def test_append_keeps_what_other_steps_wrote(tmp_path):
    path = tmp_path / "summary.md"
    path.write_text("# earlier step\n")
    assert summary.append(str(path), "## hbmlint\n") is None
    assert summary.append(str(path), "## again\n") is None
    assert path.read_text() == "# earlier step\n## hbmlint\n## again\n"
