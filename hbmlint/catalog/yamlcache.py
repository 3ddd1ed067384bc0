"""The catalogs' JSON cache: parsing the model catalog's YAML costs a pre-commit run more than
linting a manifest, so a JSON copy of the parsed data is kept in the user's cache directory.

The cache can never change an answer: an entry is named by the BLAKE2b digest (256 bits) of the
YAML file's own bytes and holds that digest, a version and the digest of its data; every read
checks all three (and the entry's shape) against the bytes just read, and anything else
(corrupt, stale, planted, a symlink, another version) is ignored and rebuilt from the YAML.
Entries are JSON, never pickle: a cache is not code. Any problem with the cache just means
parsing the YAML.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from typing import Any

import yaml

from .. import files

try:  # hashlib itself would load OpenSSL, a tenth of a plain lint's start-up, for one digest
    from _blake2 import blake2b
except ImportError:  # a Python without the module (hashlib's own BLAKE2 is the same digest)
    from hashlib import blake2b

# 3: BLAKE2b digests (2 held SHA-256 ones, under other names); 4: the data's JSON text written as
# the entry's last value, not as a string inside it (read in one parse, not two)
VERSION = 4
# An entry: {"version": 4, "source_blake2b": "...", "data_blake2b": "...", "data": DATA}, where
# DATA is the data's JSON text, as written, and the data digest is that text's.
_DATA_KEY = ', "data": '
# An entry is the YAML's data as JSON; the catalogs are well under 1 MiB of YAML.
MAX_ENTRY_BYTES = 16 * 1024 * 1024


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "hbmlint"


def _safe_dir(directory: Path) -> bool:
    """The cache folder is used only if it is a real folder (not a symlink) of this user that
    nobody else can write to: another user must not be able to plant entries."""
    try:
        info = os.lstat(directory)
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode) or info.st_mode & 0o022:
        return False
    return not hasattr(os, "geteuid") or info.st_uid == os.geteuid()


def _digest(data: bytes) -> str:
    """BLAKE2b with a 256-bit digest: a cryptographic hash, as SHA-256 is, at half its cost."""
    return blake2b(data, digest_size=32).hexdigest()


def _entry_path(path: Path, source_digest: str) -> Path:
    return cache_dir() / f"{path.stem}-{source_digest[:32]}.json"


def read_entry(entry: Path, source_digest: str) -> Any:
    """The data of a valid entry for the source with this digest; KeyError for any other."""
    import json  # here: a run with the shipped catalogs reads no entry (json's import ~4.6M)

    if not _safe_dir(entry.parent):
        raise KeyError("no usable cache folder")
    try:
        body = files.read_text(entry, MAX_ENTRY_BYTES, follow_symlinks=False)
    except files.FileReadError as exc:
        raise KeyError(f"unreadable entry: {exc}") from None
    head, found, _ = body.partition(_DATA_KEY)
    try:
        header = json.loads(head + "}") if found else None
    except (ValueError, RecursionError):
        header = None
    if (
        not isinstance(header, dict)
        or set(header) != {"version", "source_blake2b", "data_blake2b"}
        or header["version"] != VERSION
        or header["source_blake2b"] != source_digest
    ):
        raise KeyError("stale or corrupt entry")
    start = len(head) + len(_DATA_KEY)
    try:  # the one value that follows, and nothing after it but the entry's closing brace
        data, end = json.JSONDecoder().raw_decode(body, start)  # json.loads's own settings
    except (ValueError, RecursionError):
        raise KeyError("corrupt entry data") from None
    if body[end:] != "}" or header["data_blake2b"] != _digest(body[start:end].encode("utf-8")):
        raise KeyError("corrupt entry data")
    return data


def write_entry(entry: Path, source_digest: str, data: Any) -> None:
    """Write atomically, never through a planted symlink: the new file is created exclusively
    (mkstemp) and renamed over the entry's name, which replaces a symlink rather than its
    target. Silently does nothing where the cache cannot be used."""
    import json

    text = json.dumps(data)
    if json.loads(text) != data:
        return  # JSON would change it (integer keys, say): do not cache
    header = json.dumps(
        {
            "version": VERSION,
            "source_blake2b": source_digest,
            "data_blake2b": _digest(text.encode("utf-8")),
        }
    )
    body = header[:-1] + _DATA_KEY + text + "}"  # still one JSON object, the data last
    directory = entry.parent
    with contextlib.suppress(OSError):
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not _safe_dir(directory):
        return
    import tempfile  # only when an entry is written: its imports cost every run's start-up

    handle, temporary = tempfile.mkstemp(dir=directory, prefix=f".{entry.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(body)
        os.replace(temporary, entry)  # readers see the whole entry or none
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def load_yaml_cached(
    path: Path, shipped: tuple[str, Any] | None = None, shipped_source: bytes | None = None
) -> Any:
    """The data of a YAML catalog file, from a valid cache entry or parsed (and cached).
    ``shipped``: (digest, data) written with the package for one of its own catalog files
    (catalog/shipped_data.py), the answer where the file's bytes have that digest, or are
    ``shipped_source``, the bytes it was written from (comparing them costs a copy's worth,
    a digest of them 2% of a plain lint)."""
    source = files.read_bytes(path)
    if shipped is not None and source == shipped_source:
        return shipped[1]
    digest = _digest(source)
    if shipped is not None and shipped[0] == digest:
        return shipped[1]
    entry = _entry_path(path, digest)
    with contextlib.suppress(KeyError):
        return read_entry(entry, digest)
    data = yaml.load(
        files.decode(source, path), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    )
    with contextlib.suppress(OSError, TypeError, ValueError, RecursionError):
        write_entry(entry, digest, data)
    return data


def cached(source: bytes, name: str, parse: Any) -> Any:
    """``parse()``'s data for these source bytes, from a valid entry named ``name`` or computed
    now (and cached). ``parse`` must depend on nothing but ``source``."""
    digest = _digest(source)
    entry = cache_dir() / f"{name}-{digest[:32]}.json"
    with contextlib.suppress(KeyError):
        return read_entry(entry, digest)
    data = parse()
    with contextlib.suppress(OSError, TypeError, ValueError, RecursionError):
        write_entry(entry, digest, data)
    return data
