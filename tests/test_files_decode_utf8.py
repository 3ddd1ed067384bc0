"""files.decode reads UTF-8 as the utf-8-sig codec does (one leading byte-order mark dropped,
an undecodable byte named by its position after the mark) without that codec."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from hbmlint import files

BOM = b"\xef\xbb\xbf"
SAMPLES = [
    b"",
    BOM,
    BOM + BOM,
    b"a: 1\n",
    BOM + b"a: 1\n",
    BOM + BOM + b"a: 1\n",
    "model: caf\u00e9 \u2603 \U0001f600\n".encode(),
    BOM + "x: \u00e9\n".encode(),
    b"\xef\xbb",  # a mark cut short: not a mark
    b"a: \xff\n",
    BOM + b"a: \xff\n",
    BOM + b"\xc3",  # cut inside a character
    b"\xed\xa0\x80",  # an encoded surrogate: refused by UTF-8
]


def _expected(data: bytes) -> str | tuple[str, int]:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return "error", exc.start


def _got(data: bytes) -> str | tuple[str, int]:
    try:
        return files.decode(data, "f.yaml")
    except files.FileReadError as exc:
        text = str(exc)
        assert "not UTF-8 text (byte " in text
        return "error", int(text.split("(byte ")[1].split()[0])


@pytest.mark.parametrize("data", SAMPLES)
def test_as_the_utf_8_sig_codec(data: bytes) -> None:
    assert _got(data) == _expected(data)


def test_as_the_utf_8_sig_codec_on_random_bytes() -> None:
    rng = random.Random(18)
    pieces = [BOM, b"\xef", b"\xbb", b"\xbf", b"\xff", b"\xc3\xa9", b"\xe2\x98\x83", b"a", b"\n"]
    for _ in range(3000):
        data = b"".join(rng.choice(pieces) for _ in range(rng.randrange(0, 8)))
        assert _got(data) == _expected(data), data


def test_a_utf8_mark_is_dropped_once_and_the_text_kept() -> None:
    assert files.decode(BOM + b"a: 1\n") == "a: 1\n"
    assert files.decode(BOM + BOM + b"a") == "\ufeffa"


def test_utf16_still_read() -> None:
    assert files.decode(b"\xff\xfe" + "a: 1\n".encode("utf-16-le")) == "a: 1\n"


def test_no_codec_module_is_imported_for_utf8() -> None:
    script = (
        "import sys; from hbmlint import files\n"
        "files.decode(b'\\xef\\xbb\\xbfa: 1'); files.decode(b'a: 1')\n"
        "print('encodings.utf_8_sig' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr
