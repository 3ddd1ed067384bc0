"""One ResolveOptions for a run's settings (lint._resolve_options), not one per deployment:
equal settings share it, other settings get their own, and model paths given as a list (not
hashable) still work."""

from __future__ import annotations

from hbmlint import lint


def test_one_resolve_options_for_equal_settings_and_lists_still_work():
    one = lint._resolve_options(lint.LintOptions(default_gpu="H100"))
    again = lint._resolve_options(lint.LintOptions(default_gpu="H100"))
    assert one is again
    assert one.default_gpu == "H100" and one.model_paths == ()
    other = lint._resolve_options(lint.LintOptions(default_gpu="A100"))
    assert other.default_gpu == "A100"
    listed = lint._resolve_options(lint.LintOptions(model_paths=[("/m", "org/model")]))
    assert listed.model_paths == [("/m", "org/model")]
