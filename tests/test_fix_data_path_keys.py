"""Fix verification reads an edit back from the document's data only along mappings whose keys
are all strings (fixes._at): a key the loader built as another type (an int, a bool, a null) is
not the text the path holds, so such an edit is composed in full. The check runs in C over the
keys' types; these cases pin down that it refuses exactly what ``type(key) is str`` refuses."""

from __future__ import annotations

import pytest

from hbmlint.fixes import _at


class _Text(str):
    """A str subclass: not ``str`` itself, so refused like any other non-str key."""


@pytest.mark.parametrize("other_key", [1, True, None, 1.5, ("a",), _Text("b")], ids=repr)
def test_a_mapping_with_a_key_that_is_not_a_str_is_not_walked(other_key):
    data = {"spec": {"serving": {"max_model_len": 4096}, other_key: "x"}}
    assert _at(data, ("spec", "serving", "max_model_len")) == (None, None)
    # the mappings below it are walked as before
    assert _at(data["spec"]["serving"], ("max_model_len",)) == (
        [data["spec"]["serving"]],
        4096,
    )


def test_mappings_of_str_keys_and_lists_are_walked():
    data = {"spec": {"args": ["--a", "--b"], "empty": {}}}
    parents, value = _at(data, ("spec", "args", 1))
    assert value == "--b"
    assert parents == [data, data["spec"], data["spec"]["args"]]
    assert _at(data, ("spec", "empty")) == ([data, data["spec"]], {})
    assert _at(data, ("spec", "missing")) == (None, None)
    assert _at(data, ("spec", "args", 2)) == (None, None)
