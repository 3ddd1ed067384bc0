"""Bounded file reading: the one way hbmlint reads a file it did not write itself.

Manifests, config.json files, rule files, the configuration, team catalogs, the catalog cache,
Hugging Face cache files and standard input all come through here, so that none of them can
make hbmlint block (a FIFO, a device such as /dev/zero), read without end (a huge file) or be
steered through a planted symlink where that matters (the cache).

API (small on purpose, other modules depend on it):

- ``read_bytes(path, limit=..., follow_symlinks=True) -> bytes``
- ``read_text(path, limit=..., follow_symlinks=True) -> str``  (UTF-8, a BOM is dropped)
- ``read_stdin_text(limit=...) -> str``
- ``FileReadError``: every refusal, with ``.reason``, a short message fit for a finding
  ("not a regular file; not read", "no such file", ...), and ``.path``.

Nothing here raises anything but FileReadError for a bad file (OSError and UnicodeDecodeError
are translated), so a caller needs one ``except``.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

# A manifest, a configuration or a config.json of that size is no mistake a user makes by hand;
# hbmlint's largest own file (the model catalog) is well under 1 MiB.
MAX_FILE_BYTES = 20 * 1024 * 1024
CHUNK = 1024 * 1024


class FileReadError(ValueError):
    """A file hbmlint will not or cannot read; ``reason`` says why, in a few words."""

    def __init__(self, reason: str, path: str | os.PathLike[str] | None = None):
        super().__init__(reason)
        self.reason = reason
        self.path = None if path is None else str(path)


def _too_big(size: int, limit: int) -> FileReadError:
    shown = f"{size / 2**20:.0f} MiB" if size >= 2**20 else f"{size:,} bytes"
    cap = f"{limit // 2**20} MiB" if limit >= 2**20 else f"{limit:,} bytes"
    return FileReadError(f"file is {shown}, over hbmlint's {cap} limit; not read")


def _read_bounded(stream: BinaryIO | int, limit: int) -> bytes:
    """At most ``limit`` bytes; one byte more means the file is too big (it may be growing, or
    its reported size may lie, as /proc files' does)."""
    parts: list[bytes] = []
    total = 0
    while total <= limit:
        want = min(CHUNK, limit + 1 - total)
        chunk = os.read(stream, want) if isinstance(stream, int) else stream.read(want)
        if not chunk:
            break
        parts.append(chunk)
        total += len(chunk)
    if total > limit:
        raise _too_big(total, limit)
    return b"".join(parts)


def _open_fd(path: str | os.PathLike[str], follow_symlinks: bool) -> int:
    """A read-only, non-blocking descriptor (opening a FIFO must not wait for a writer)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        return os.open(path, flags)
    except FileNotFoundError:
        raise FileReadError("no such file", path) from None
    except IsADirectoryError:
        raise FileReadError("a directory, not a file; not read", path) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            what = "a symlink; not followed" if not follow_symlinks else "a symlink loop"
            raise FileReadError(f"{what}; not read", path) from None
        raise FileReadError(f"cannot read file: {exc.strerror or exc}", path) from None


@contextmanager
def open_regular(path: str | os.PathLike[str], follow_symlinks: bool = True) -> Iterator[BinaryIO]:
    """A regular file opened for reading, or FileReadError.

    The file is opened non-blocking (opening a FIFO must not wait for a writer) and checked
    with fstat on the open descriptor, so what is read is what was checked. With
    ``follow_symlinks=False`` a symlink as the last path component is refused. For callers
    that read only part of a file (a safetensors header); read_bytes reads a whole one."""
    fd = _open_fd(path, follow_symlinks)
    with os.fdopen(fd, "rb") as handle:
        try:
            info = os.fstat(fd)
            if stat.S_ISDIR(info.st_mode):
                raise FileReadError("a directory, not a file; not read", path)
            if not stat.S_ISREG(info.st_mode):
                # a FIFO, socket or device would block or never end
                raise FileReadError("not a regular file; not read", path)
            os.set_blocking(fd, True)
        except OSError as exc:
            raise FileReadError(f"cannot read file: {exc.strerror or exc}", path) from None
        yield handle


def read_bytes(
    path: str | os.PathLike[str], limit: int = MAX_FILE_BYTES, follow_symlinks: bool = True
) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (opened as ``open_regular``:
    non-blocking, checked with fstat on the open descriptor)."""
    try:
        fd = _open_fd(path, follow_symlinks)
    except FileReadError as exc:
        exc.path = str(path)
        raise
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise FileReadError("a directory, not a file; not read", path)
        if not stat.S_ISREG(info.st_mode):
            raise FileReadError("not a regular file; not read", path)  # a FIFO would block
        if info.st_size > limit:
            raise _too_big(info.st_size, limit)
        os.set_blocking(fd, True)
        # the descriptor itself, no buffered reader: the reported size and one byte more in
        # one read, then on to the end (a file that grew, or whose size lies, reads on)
        first = os.read(fd, min(info.st_size + 1, limit + 1))
        if len(first) > limit:
            raise _too_big(len(first), limit)
        try:
            rest = _read_bounded(fd, limit - len(first)) if first else b""
        except FileReadError:  # past the limit: as _read_bounded says it of the whole file
            raise _too_big(limit + 1, limit) from None
        return first + rest if rest else first
    except FileReadError as exc:
        exc.path = str(path)
        raise
    except OSError as exc:
        raise FileReadError(f"cannot read file: {exc.strerror or exc}", path) from None
    finally:
        os.close(fd)


# What Windows PowerShell's `>` writes: UTF-16 with a byte-order mark, which kubectl reads
# (kubernetes/kubernetes#39008, "Support loading UTF16 files if a byte-order-mark is present")
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
UTF8_BOM = b"\xef\xbb\xbf"


def decode(data: bytes, path: str | os.PathLike[str] | None = None) -> str:
    """UTF-8 text, or UTF-16 text that starts with a byte-order mark (the mark is dropped);
    FileReadError naming the first bad byte."""
    encoding = "UTF-16" if data.startswith(UTF16_BOMS) else "UTF-8"
    try:
        if encoding == "UTF-16":
            return data.decode("utf-16")
        # what the utf-8-sig codec does (its mark dropped, the rest decoded as UTF-8, an error's
        # positions counted after the mark), without its Python-level codec: looking that up
        # when first used imports it, a hundredth of a lint's start-up
        return (data[3:] if data.startswith(UTF8_BOM) else data).decode("utf-8")
    except UnicodeDecodeError as exc:
        reason = f"not {encoding} text (byte {exc.start} cannot be decoded)"
        raise FileReadError(reason, path) from None


def read_text(
    path: str | os.PathLike[str], limit: int = MAX_FILE_BYTES, follow_symlinks: bool = True
) -> str:
    """A regular file's UTF-8 text, bounded as ``read_bytes``."""
    return decode(read_bytes(path, limit, follow_symlinks), path)


def read_stdin_text(limit: int = MAX_FILE_BYTES) -> str:
    """Standard input's UTF-8 text, at most ``limit`` bytes (a pipe has no size to check
    first: reading stops one byte past the limit)."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:  # stdin closed, or replaced by a text-only object
        raise FileReadError("standard input cannot be read", "<stdin>")
    try:
        return decode(_read_bounded(stream, limit), "<stdin>")
    except FileReadError as exc:
        exc.path = "<stdin>"
        raise
    except (OSError, ValueError) as exc:
        raise FileReadError(f"cannot read standard input: {exc}", "<stdin>") from None


def is_regular_file(path: Path) -> bool:
    """True for a regular file (following symlinks); False for anything else or an error."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except (OSError, ValueError):
        return False
