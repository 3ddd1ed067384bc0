"""Writing a report to ``--output FILE``: atomically, through a symlink to its target, keeping
the target's mode, and never over something that is not a regular file or over an input of the
same run (``hbmlint -o deploy.yaml deploy.yaml`` must not destroy the manifest)."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path


class OutputError(Exception):
    """The report cannot or must not be written there; the message says why."""


def _umask_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_report(path: str, text: str, inputs: Iterable[str | os.PathLike[str]] = ()) -> None:
    """Write ``text`` to ``path``. A symlink is followed and stays a symlink (its target gets
    the report); an existing target keeps its permissions; readers never see half a report (a
    temporary file beside the target is renamed over it)."""
    target = Path(os.path.realpath(path))
    try:
        info = os.stat(target)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    if info is not None:
        if not stat.S_ISREG(info.st_mode):
            raise OutputError(f"cannot write {path}: not a regular file; not overwritten")
        for source in inputs:
            try:
                other = os.stat(source)
            except (OSError, ValueError):
                continue
            if (other.st_dev, other.st_ino) == (info.st_dev, info.st_ino):
                raise OutputError(
                    f"cannot write {path}: it is an input of this run ({source}); not overwritten"
                )
        mode = stat.S_IMODE(info.st_mode)
    else:
        mode = _umask_mode()
    try:
        handle, temporary = tempfile.mkstemp(
            dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
        )
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
        os.chmod(temporary, mode)  # mkstemp makes it private; a report is not
        os.replace(temporary, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_in_place(path: str | os.PathLike[str], text: str) -> None:
    """Rewrite a file hbmlint fixed: atomically (a temporary file beside it, renamed over
    it), through a symlink to its target, keeping its permissions."""
    target = Path(os.path.realpath(path))
    try:
        info = os.stat(target)
        if not stat.S_ISREG(info.st_mode):
            raise OutputError(f"cannot fix {path}: not a regular file")
        handle, temporary = tempfile.mkstemp(
            dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
        )
    except OSError as exc:
        raise OutputError(f"cannot fix {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
        os.chmod(temporary, stat.S_IMODE(info.st_mode))
        os.replace(temporary, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, OSError):
            raise OutputError(f"cannot fix {path}: {exc.strerror or exc}") from None
        raise
