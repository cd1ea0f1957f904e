"""Writing one file safely: readers see the old file or the new one, never a part. The lowest layer of the
build's writing (``write.py`` commits several files at once on top of it); extraction uses it too, for the cached
copy of the weights and the gazetteer (:func:`derived_copy`), without depending on the stages that write the
graph. And a file's digest (:func:`file_digest`, :func:`digest_file`), for the fingerprints of the code and its
data (``cache.py``, ``stamp.py``) and the names of the derived copies: a large file's is kept by its stat, so an
unchanged file of megabytes (the weights, the gazetteer) is not read and hashed again by every build."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

__all__ = ["atomic_write", "temp_beside", "digest_file", "file_digest", "derived_copy", "derived_copy_path"]

T = TypeVar("T")

_CHUNK = 1 << 20


def _sha256(path) -> str:
    """The SHA-256 of the file at ``path``, read a megabyte at a time into one buffer (not read whole and
    copied into one string)."""
    h = hashlib.sha256()
    buffer = bytearray(_CHUNK)
    view = memoryview(buffer)
    with open(path, "rb") as fh:
        while n := fh.readinto(buffer):
            h.update(view[:n])
    return h.hexdigest()


MEMO_FROM = 1 << 18
"""Files from this size on (bytes) have their digest kept by their stat (:func:`file_digest`): the weights (13 MB),
the gazetteer (3 MB) and the English words (0.4 MB), hashed twice in every build's process and once in the copy that
parses (0.03 s for each 16 MB, on the path of a one-document rebuild); smaller files cost less to hash than a
record would."""

SETTLED_NS = 2_000_000_000
"""A file's stat stands for its content only if neither its modification nor its change time is within this long
(ns) of when it was hashed: a write in the same tick of the file system's clock as the hashing might keep the stat
(as ``incremental.SETTLED_NS``)."""

_MEMO_FORMAT = "mlkg-digests-1"
_MEMO: dict | None = None  # this process's copy of the record: path -> [stat..., hashed_ns, digest]


def _memo_path() -> Path:
    return _cache_root() / "mlkg" / "digests.json"


def _cache_root() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")


def _file_key(st: os.stat_result) -> list[int]:
    """What stands for a file's content: its size, modification and change times (ns), inode and device (the
    change time cannot be set back by a program, so any write since shows)."""
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]


def _read_memo() -> dict:
    global _MEMO
    if _MEMO is None:
        try:
            data = json.loads(_memo_path().read_bytes())
            _MEMO = data["files"] if isinstance(data, dict) and data.get("format") == _MEMO_FORMAT \
                and isinstance(data.get("files"), dict) else {}
        except (OSError, ValueError, KeyError, TypeError):
            _MEMO = {}
    return _MEMO


def file_digest(path) -> str:
    """The SHA-256 (hex) of the file at ``path``'s bytes. A file of :data:`MEMO_FROM` bytes or more is hashed once
    and its digest kept with its stat (:func:`_file_key`) in the user's cache folder; it is taken from there while
    the file's stat is the same, and only if the file had settled (:data:`SETTLED_NS`) before it was hashed. In
    any doubt (no record, another stat, a file then recent, a record unreadable) the file is hashed."""
    st = os.stat(path)
    if st.st_size < MEMO_FROM:
        return _sha256(path)
    key, where = _file_key(st), os.path.realpath(path)
    memo = _read_memo()
    got = memo.get(where)
    if isinstance(got, list) and len(got) == len(key) + 2 and got[:len(key)] == key and isinstance(got[-1], str) \
            and isinstance(got[-2], int) and max(st.st_mtime_ns, st.st_ctime_ns) < got[-2] - SETTLED_NS:
        return got[-1]
    hashed_ns = time.time_ns()  # taken before the file is read: a write during the read is after it
    digest = _sha256(path)
    if _file_key(os.stat(path)) == key:  # unchanged while it was read
        memo[where] = [*key, hashed_ns, digest]
        try:
            atomic_write(_memo_path(), json.dumps({"format": _MEMO_FORMAT, "files": memo}, sort_keys=True).encode(),
                         durable=False)  # a memo: lost, the files are hashed again
        except OSError:  # a read-only cache folder: hashed each time
            pass
    return digest


def digest_file(h, name: str, path: Path) -> None:
    """Add ``name``, NUL, the :func:`file_digest` of the file at ``path`` and NUL to the digest ``h``: the file
    stands in it by its content's digest (a large unchanged file's, kept, is not read again)."""
    h.update(name.encode() + b"\0" + file_digest(path).encode() + b"\0")


def temp_beside(path: Path) -> tuple[int, str]:
    """A temporary file beside ``path``, with the permissions a new file gets (mkstemp's are 0600)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    mask = os.umask(0)
    os.umask(mask)
    try:
        os.fchmod(fd, 0o666 & ~mask)
    except (AttributeError, OSError):  # not POSIX
        pass
    return fd, tmp


def atomic_write(path: Path, data: bytes, durable: bool = True) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, never a part.

    ``durable=False`` skips the flush to the disk before the rename (5 to 10 ms a file): for a record a build
    keeps for the next one (its state, its page's, its stamp, the cache's manifest), which that build checks
    against the outputs it describes and its own format before using it, so that a record lost or left empty
    by a crash costs a full build, never a wrong one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = temp_beside(path)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def derived_copy_path(kind: str, fmt: str, source: Path) -> Path:
    """Where the binary copy made from the file ``source`` (a committed JSON file) is kept: the user's cache folder
    (``$XDG_CACHE_HOME``, else ``~/.cache``), named by ``kind``, the copy's format ``fmt`` and ``source``'s digest
    (:func:`file_digest`), so a changed file or format never reads another's copy."""
    h = hashlib.sha256(f"{fmt}\0{file_digest(source)}".encode())
    return _cache_root() / "mlkg" / f"{kind}-{h.hexdigest()[:32]}.bin"


def derived_copy(kind: str, fmt: str, source: Path, kept: int, decode: Callable[[bytes], T],
                 make: Callable[[bytes], T], encode: Callable[[T], bytes]) -> T:
    """What the file ``source`` reads as, from its binary copy (:func:`derived_copy_path`) when there is one that
    ``decode`` accepts, else ``make(its bytes)``, whose ``encode``-d bytes become the copy; only the ``kept`` latest
    copies of ``kind`` stay (other trees may use other files). A read-only cache folder: made each time. The
    file itself is read only when the copy is made (its digest is kept by its stat: :func:`file_digest`)."""
    path = derived_copy_path(kind, fmt, source)
    try:
        return decode(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):  # none yet (or unreadable): made from the JSON
        pass
    value = make(Path(source).read_bytes())
    try:
        atomic_write(path, encode(value))
        for old in sorted(path.parent.glob(f"{kind}-*.bin"), key=lambda p: p.stat().st_mtime)[:-kept]:
            old.unlink(missing_ok=True)
    except OSError:
        pass
    return value
