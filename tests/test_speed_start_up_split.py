"""benchmarks/speed.py: the 1,000-file CPU split into start-up and per-file work, hbmlint's and
the floor's, and the ratio hbmlint would have with the floor's start-up (issue 18: whether the
bound is within reach of start-up work alone)."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from helpers import REPO

SPEC = importlib.util.spec_from_file_location("speed", REPO / "benchmarks" / "speed.py")
speed = importlib.util.module_from_spec(SPEC)
sys.modules["speed"] = speed  # dataclasses look their module up there
SPEC.loader.exec_module(speed)


def scenario(name: str, files: int, cpu_s: float):
    return speed.Scenario(name, files, 5, cpu_s, cpu_s, 20.0, None)


def figures(floor_start: float = 0.025):
    return [
        scenario("hbmlint 1 file", 1, 0.070),
        scenario("floor no file", 0, floor_start),
        scenario("hbmlint dir (1000) --jobs 1", 1000, 0.4196),
        scenario("floor dir (1000)", 1000, 0.100),
    ]


def test_the_split_of_start_up_and_per_file_work():
    split = speed.start_up_and_per_file(figures(), 1000)
    # hbmlint: (0.4196 - 0.070) / 999 a file; its one-file run less that file is start-up
    assert split["per_file_ms"] == pytest.approx(0.35, abs=1e-4)
    assert split["start_up_s"] == pytest.approx(0.0697, abs=1e-4)
    # the floor: its run over no file is start-up, the rest a thousandth a file
    assert split["floor_start_up_s"] == 0.025
    assert split["floor_per_file_ms"] == pytest.approx(0.075, abs=1e-4)
    assert split["per_file_ratio"] == pytest.approx(4.67, abs=0.01)
    # 0.025 s + 1,000 x 0.35 ms against the floor's 0.100 s
    assert split["ratio_with_floor_start_up"] == pytest.approx(3.75, abs=0.01)


def test_the_printed_lines_carry_the_figures():
    lines = speed.split_lines(speed.start_up_and_per_file(figures(), 1000), 1000)
    assert lines[0] == "hbmlint: start-up 0.070 s, per file 0.350 ms"
    assert lines[1] == "floor:   start-up 0.025 s, per file 0.075 ms (hbmlint 4.67x per file)"
    assert lines[2] == "with the floor's start-up, hbmlint's 1,000 files would be 3.75x the floor"


def test_no_split_without_the_floor_or_with_one_file():
    without_floor = [s for s in figures() if not s.name.startswith("floor")]
    assert speed.start_up_and_per_file(without_floor, 1000) is None  # --no-peers
    assert speed.start_up_and_per_file(figures(), 1) is None
