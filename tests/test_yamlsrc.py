"""yamlsrc: YAML loading that remembers where every value and key sits (1-based)."""

from __future__ import annotations

import textwrap

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from hbmlint import yamlsrc
from hbmlint.yamlsrc import YamlLoadError, load_documents


def load_one(text: str):
    documents, error = load_documents(textwrap.dedent(text))
    assert error is None, error
    assert len(documents) == 1
    return documents[0]


MANIFEST = """\
    spec:
      gpu:
        type: H100
      serving:
        max_model_len: 8192
      extra_args:
        - --enforce-eager
        - name: seed
          value: 7
    """


def test_value_span_is_one_based_line_and_column():
    doc = load_one(MANIFEST)
    span = doc.span("spec.serving.max_model_len")
    assert (span.line, span.column) == (5, 20)
    assert doc.data["spec"]["serving"]["max_model_len"] == 8192


def test_key_span_points_at_the_key_not_the_value():
    doc = load_one(MANIFEST)
    span = doc.key_span("spec.serving.max_model_len")
    assert (span.line, span.column) == (5, 5)


def test_dotted_string_and_tuple_paths_agree():
    doc = load_one(MANIFEST)
    assert doc.span("spec.gpu.type") == doc.span(("spec", "gpu", "type"))
    assert doc.span("spec.gpu.type").line == 3


def test_list_indices_in_paths():
    doc = load_one(MANIFEST)
    assert doc.span("spec.extra_args.0").line == 7
    assert doc.span(("spec", "extra_args", 1, "value")).line == 9
    assert doc.key_span("spec.extra_args.1.value").column == 7


def test_missing_path_falls_back_to_nearest_existing_ancestor():
    doc = load_one(MANIFEST)
    # serving has no max_num_seqs: point at the serving mapping that should hold it
    assert doc.span("spec.serving.max_num_seqs") == doc.span("spec.serving")
    assert doc.span("spec.serving.max_num_seqs").line == 5
    assert doc.key_span("spec.serving.max_num_seqs") == doc.span("spec.serving")
    assert doc.span("spec.extra_args.9").line == 7  # index past the end: the list itself


def test_multi_document_file_gives_one_document_each_with_its_index():
    text = textwrap.dedent(
        """\
        name: first
        ---
        name: second
        ---
        name: third
        """
    )
    documents, error = load_documents(text)
    assert error is None
    assert [d.index for d in documents] == [0, 1, 2]
    assert [d.data["name"] for d in documents] == ["first", "second", "third"]
    # spans are lines of the whole file, not of the document
    assert [d.span("name").line for d in documents] == [1, 3, 5]


def test_syntax_error_in_second_document_keeps_the_first():
    text = textwrap.dedent(
        """\
        name: good
        ---
        name: bad
          nested: oops
        """
    )
    documents, error = load_documents(text)
    assert [d.data for d in documents] == [{"name": "good"}]
    assert isinstance(error, YamlLoadError)
    assert error.span.line == 4
    assert "syntax error" in error.message


def test_python_object_tag_is_refused_at_its_line_and_not_executed(tmp_path):
    marker = tmp_path / "pwned"
    text = textwrap.dedent(
        f"""\
        spec:
          gpu: H100
          model: !!python/object/apply:os.system ["touch {marker}"]
        """
    )
    documents, error = load_documents(text)
    assert documents == []
    assert isinstance(error, YamlLoadError)
    assert "not allowed" in error.message
    assert "python/object" in error.message
    assert error.span.line == 3
    assert not marker.exists()


def test_billion_laughs_alias_bomb_is_refused():
    # 9**9 (387 million) strings once expanded; building it would exhaust memory.
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    documents, error = load_documents("\n".join(lines) + "\n")
    assert documents == []
    assert isinstance(error, YamlLoadError)
    assert "aliases" in error.message
    assert "refusing" in error.message


def test_ordinary_aliases_and_merge_keys_still_load():
    doc = load_one(
        """\
        defaults: &defaults
          max_model_len: 8192
          max_num_seqs: 16
        small:
          <<: *defaults
          max_num_seqs: 4
        same: *defaults
        """
    )
    assert doc.data["small"] == {"max_model_len": 8192, "max_num_seqs": 4}
    assert doc.data["same"] == {"max_model_len": 8192, "max_num_seqs": 16}
    assert doc.span("small.max_model_len").line == 2  # inherited: where the value is written


def test_key_that_overrides_a_merge_is_located_at_the_override():
    doc = load_one(
        """\
        defaults: &defaults
          max_num_seqs: 16
        small:
          <<: *defaults
          max_num_seqs: 4
        """
    )
    assert doc.data["small"]["max_num_seqs"] == 4
    assert doc.span("small.max_num_seqs").line == 5
    assert doc.key_span("small.max_num_seqs").line == 5


def test_duplicate_key_is_refused_or_located_at_the_value_in_effect():
    text = textwrap.dedent(
        """\
        max_model_len: 4096
        max_num_seqs: 8
        max_model_len: 131072
        """
    )
    documents, error = load_documents(text)
    if error is not None:
        assert error.span.line == 3
    else:
        assert documents[0].data["max_model_len"] == 131072
        assert documents[0].span("max_model_len").line == 3


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    st.sampled_from(["1", "0x1F", "1_000", "yes", "~", "2026-12-02", "1e3", ".inf", "-0.0"]),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(_SCALARS, children, max_size=4)
    ),
    max_leaves=25,
)


@settings(max_examples=200, deadline=None)
@given(_VALUES, st.sampled_from([None, False, True]), st.sampled_from([None, '"', "'"]))
def test_the_walk_builds_what_pyyaml_builds_with_every_span(value, flow, quotes):
    """The data is the safe loader's, twice over (the second time from what the first
    remembered: tags of plain texts, built numbers); the spans are those PyYAML's node marks
    give each value and key (_record_spans, the reference walk of aliased documents)."""
    text = yaml.safe_dump({"root": value}, default_flow_style=flow, default_style=quotes)
    expected = yaml.load(text, Loader=yaml.SafeLoader)
    loader = yamlsrc._Loader(text)
    reference = yamlsrc.YamlDocument(data=None, index=0)
    yamlsrc._record_spans(loader.get_single_node(), (), reference, set())
    loader.dispose()
    for _ in range(2):
        [document], error = load_documents(text)
        assert error is None
        assert document.data == expected
        assert document.spans == reference.spans
        assert document.key_spans == reference.key_spans
