"""Patterns that only unusual files need are compiled when first used, not at import: they answer
as the compiled pattern does, and a lint of an ordinary manifest compiles none of them."""

from __future__ import annotations

import copy
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hbmlint.lazyre import LazyPattern

ROOT = Path(__file__).resolve().parents[1]


def span(match: re.Match | None) -> tuple[int, int] | None:
    return None if match is None else match.span()


@pytest.mark.parametrize(
    ("pattern", "flags", "text"),
    [
        (r"\{\{.*?\}\}", re.S, "a {{ b\n }} c {{d}}"),
        (r"^[ \t]*#.*$", re.M, "x\n  # comment\ny"),
        (r"(^|/)([^/]*[-_.])?values([-_.][^/]*)?\.ya?ml$", re.I, "chart/Values-prod.YAML"),
        ("\r\n|[\r\n\x85\u2028\u2029]", 0, "a\r\nb\x85c\u2028d"),
    ],
)
def test_answers_as_the_compiled_pattern(pattern, flags, text):
    lazy, compiled = LazyPattern(pattern, flags), re.compile(pattern, flags)
    assert lazy.search(text).span() == compiled.search(text).span()
    assert span(lazy.match(text)) == span(compiled.match(text))
    assert lazy.sub("<>", text) == compiled.sub("<>", text)
    assert lazy.split(text) == compiled.split(text)
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in compiled.finditer(text)]
    assert lazy.pattern == compiled.pattern
    assert lazy.flags == compiled.flags
    assert lazy.compiled() is lazy.compiled()


def test_compiled_on_first_use_only(monkeypatch):
    made = []
    real = re.compile
    monkeypatch.setattr(re, "compile", lambda *args: made.append(args) or real(*args))
    lazy = LazyPattern(r"x+y", re.I)
    assert made == []
    assert lazy.fullmatch("XXy")
    assert lazy.search("axy")
    assert made == [(r"x+y", re.I)]


def test_copies_and_pickles():
    lazy = LazyPattern(r"a(b)")
    assert copy.copy(lazy).search("ab").group(1) == "b"
    assert pickle.loads(pickle.dumps(lazy)).search("ab").group(1) == "b"
    with pytest.raises(AttributeError):
        lazy._missing  # noqa: B018 - a private name is never looked up on the pattern


def test_a_plain_lint_compiles_none_of_them(tmp_path):
    script = (
        "import sys\n"
        "from hbmlint.cli import main\n"
        "sys.argv = ['hbmlint', '--jobs', '1', sys.argv[1]]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "from hbmlint import config, formats, yamlsrc, catalog\n"
        "from hbmlint.catalog import labels\n"
        "from hbmlint.lazyre import LazyPattern\n"
        "made = [f'{m.__name__}.{n}' for m in (config, formats, yamlsrc, catalog, labels)\n"
        "        for n, v in vars(m).items()\n"
        "        if isinstance(v, LazyPattern) and v._compiled is not None]\n"
        "print(len([v for m in (formats, yamlsrc) for v in vars(m).values()\n"
        "           if isinstance(v, LazyPattern)]), made, file=sys.stderr)\n"
    )
    example = ROOT / "examples" / "llama8b-a10g-full-context.yaml"
    run = subprocess.run(
        [sys.executable, "-c", script, str(example)],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin"},
        cwd=tmp_path,  # outside the source tree: the hbmlint imported is the one installed
        check=False,
    )
    assert "llama8b-a10g-full-context.yaml:" in run.stdout  # the lint ran and reported
    count, made = run.stderr.strip().splitlines()[-1].split(" ", 1)
    assert int(count) >= 15
    assert made == "[]"
