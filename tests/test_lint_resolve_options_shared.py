"""One ResolveOptions for a run's settings (LintOptions.resolve_options), not one per
deployment: it holds the settings' GPU and model paths, and model paths given as a list (not
hashable) still work."""

from __future__ import annotations

import pickle

from hbmlint import lint


def test_one_resolve_options_for_a_runs_settings_and_lists_still_work():
    options = lint.LintOptions(default_gpu="H100")
    one = options.resolve_options
    assert one is options.resolve_options
    assert one.default_gpu == "H100" and one.model_paths == ()
    other = lint.LintOptions(default_gpu="A100").resolve_options
    assert other.default_gpu == "A100"
    listed = lint.LintOptions(model_paths=[("/m", "org/model")]).resolve_options
    assert listed.model_paths == [("/m", "org/model")]


def test_the_settings_compare_and_travel_to_workers_as_before():
    options = lint.LintOptions(default_gpu="H100")
    _ = options.resolve_options
    assert options == lint.LintOptions(default_gpu="H100")
    assert pickle.loads(pickle.dumps(options)).resolve_options.default_gpu == "H100"
