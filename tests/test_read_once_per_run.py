"""A run reads each file once: shared_objects reads every file of the run for the objects one
file may take from another (a ConfigMap applied from another file), and the lint takes those
texts instead of reading the files a second time, up to lint.KEPT_TEXT_CHARS characters.

The workload is tests/fixtures/real/configmap-elsewhere.yaml (its header names the pattern: the
model comes from a ConfigMap applied from another file, as kustomize bases and GitOps
repositories do); the ConfigMap it names is written here as that other file."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest
from helpers import REPO

from hbmlint import files, lint
from hbmlint.formats import podspec
from hbmlint.rules import load_rules

WORKLOAD = REPO / "tests" / "fixtures" / "real" / "configmap-elsewhere.yaml"
CONFIG_MAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: model-settings
data:
  model: Qwen/Qwen2.5-7B-Instruct
"""


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


@pytest.fixture
def run(tmp_path, monkeypatch):
    """The two files of the run, and a count of each file's reads."""
    shutil.copy(WORKLOAD, tmp_path / "a-workload.yaml")
    (tmp_path / "b-settings.yaml").write_text(CONFIG_MAP)
    reads: Counter[str] = Counter()
    read_text = files.read_text

    def counted(path, *args, **kwargs):
        if Path(path).parent == tmp_path:  # not the catalogs' own reads
            reads[Path(path).name] += 1
        return read_text(path, *args, **kwargs)

    monkeypatch.setattr(files, "read_text", counted)
    yield list(lint.discover([str(tmp_path)])), reads
    podspec.use_tree_objects({})  # no later test sees this run's ConfigMap


def _shown(results):
    return [
        (r.display, [(d.code, d.span.line, d.span.column, d.message) for d in r.diagnostics])
        for r, _ in results
    ]


def _model(results):
    [workload] = [r for r, _ in results if r.display.endswith("a-workload.yaml")]
    return workload.deployments[0].deployment.model.name


def test_each_file_of_a_run_is_read_once_and_takes_the_other_files_config_map(run, rules):
    items, reads = run
    results = lint.lint_many(items, rules, lint.LintOptions())
    assert reads == {"a-workload.yaml": 1, "b-settings.yaml": 1}
    assert _model(results) == "Qwen/Qwen2.5-7B-Instruct"  # from b-settings.yaml
    # nothing read is kept past its run: the next run reads the files as they are now
    settings = items[1][0]
    settings.write_text(CONFIG_MAP.replace("Qwen2.5-7B", "Qwen2.5-14B"))
    assert _model(lint.lint_many(items, rules, lint.LintOptions())) == "Qwen/Qwen2.5-14B-Instruct"
    assert reads == {"a-workload.yaml": 2, "b-settings.yaml": 2}


def test_files_past_the_kept_texts_are_read_again_with_the_same_findings(run, rules, monkeypatch):
    items, reads = run
    kept = lint.lint_many(items, rules, lint.LintOptions())
    reads.clear()
    # room for the first file's text only: the second is read again when it is linted
    monkeypatch.setattr(lint, "KEPT_TEXT_CHARS", len(WORKLOAD.read_text()))
    again = lint.lint_many(items, rules, lint.LintOptions())
    assert reads == {"a-workload.yaml": 1, "b-settings.yaml": 2}
    assert _shown(again) == _shown(kept)
    assert _model(again) == "Qwen/Qwen2.5-7B-Instruct"
    assert any(d.code.startswith("HBM") for r, _ in again for d in r.diagnostics)
