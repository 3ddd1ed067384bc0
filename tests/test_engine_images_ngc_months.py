"""NGC's vLLM container of a month whose release notes hbmlint has not read
(nvcr.io/nvidia/vllm:25.09-py3, 25.11, 25.12.post1, 26.02...) holds at most the newest vLLM
release by that month's end: a flag vLLM removed later is no finding there; a month it has
read keeps the release its notes name."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.engines import image_version
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
NGC = REAL / "compose-vllm-ngc-month-bound.yml"
COVERED = {NGC.name}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _removed(tmp_path: Path, rules, image: str) -> list[str]:
    text = NGC.read_text().replace(
        "--disable-log-stats", "--disable-log-stats\n      --disable-log-requests"
    )
    path = tmp_path / NGC.name
    path.write_text(text.replace("nvcr.io/nvidia/vllm:25.09-py3", image))
    result = lint_file(path, path.name, rules, LintOptions(default_gpu="H100-80GB"))
    return [f.message for f in result.diagnostics if f.code == "HBM010"]


def test_an_unread_month_is_bounded_by_its_end():
    # PyPI: vllm 0.10.2 on 2025-09-13, 0.11.0 on 2025-10-02 (release_dates.yaml)
    assert image_version("nvcr.io/nvidia/vllm:25.09-py3") == (
        "0.10.2 (at most the newest release by 2025-09-30, the end of the container's month)"
    )
    assert image_version("nvcr.io/nvidia/vllm:25.12.post1-py3").startswith("0.13.0 (at most")
    # months whose notes are read keep their release: 26.03 holds 0.17.1, below its bound
    assert image_version("nvcr.io/nvidia/vllm:26.03-py3") == "0.17.1"
    assert image_version("nvcr.io/nvidia/vllm:latest") is None


def test_a_flag_removed_after_the_month_is_no_finding(rules, tmp_path):
    # --disable-log-requests went in vLLM 0.17 (March 2026), after September 2025
    assert _removed(tmp_path, rules, "nvcr.io/nvidia/vllm:25.09-py3") == []
    # a container of a month after it: at most 0.20.0, maybe older, so a warning that says so
    [message] = _removed(tmp_path, rules, "nvcr.io/nvidia/vllm:26.04-py3")
    assert "vLLM 0.20.0 (at most the newest release by 2026-04-30" in message
    assert "the image may hold an older release, and one before 0.17.0 takes it" in message
