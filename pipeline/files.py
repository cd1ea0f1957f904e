"""Writing one file safely: readers see the old file or the new one, never a part. The lowest layer of the
build's writing (``write.py`` commits several files at once on top of it); extraction uses it too, for the cached
copy of the weights and the gazetteer (:func:`derived_copy`), without depending on the stages that write the
graph. And a file read into a digest (:func:`digest_file`), for the fingerprints of the code and its data
(``cache.py``, ``stamp.py``)."""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

__all__ = ["atomic_write", "temp_beside", "digest_file", "derived_copy", "derived_copy_path"]

T = TypeVar("T")

_CHUNK = 1 << 20


def digest_file(h, name: str, path: Path) -> None:
    """Add ``name``, NUL, the bytes of the file at ``path`` and NUL to the digest ``h``: what
    ``h.update(name.encode() + b"\0" + path.read_bytes() + b"\0")`` adds, read a megabyte at a time into one
    buffer, not read whole and copied into one string (the rule data and weights are megabytes, hashed twice
    per build: about 10 ms less of a rebuild)."""
    h.update(name.encode() + b"\0")
    buffer = bytearray(_CHUNK)
    view = memoryview(buffer)
    with open(path, "rb") as fh:
        while n := fh.readinto(buffer):
            h.update(view[:n])
    h.update(b"\0")


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


def derived_copy_path(kind: str, fmt: str, raw: bytes) -> Path:
    """Where the binary copy made from the bytes ``raw`` (a committed JSON file) is kept: the user's cache folder
    (``$XDG_CACHE_HOME``, else ``~/.cache``), named by ``kind`` and the digest of the copy's format ``fmt`` and
    ``raw``, so a changed file or format never reads another's copy."""
    h = hashlib.sha256(f"{fmt}\0".encode())
    h.update(raw)  # (not joined to the format first: a copy of megabytes)
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return root / "mlkg" / f"{kind}-{h.hexdigest()[:32]}.bin"


def derived_copy(kind: str, fmt: str, raw: bytes, kept: int, decode: Callable[[bytes], T], make: Callable[[], T],
                 encode: Callable[[T], bytes]) -> T:
    """What ``raw`` reads as, from its binary copy (:func:`derived_copy_path`) when there is one that ``decode``
    accepts, else ``make()``, whose ``encode``-d bytes become the copy; only the ``kept`` latest copies of ``kind``
    stay (other trees may use other files). A read-only cache folder: made each time."""
    path = derived_copy_path(kind, fmt, raw)
    try:
        return decode(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):  # none yet (or unreadable): made from the JSON
        pass
    value = make()
    try:
        atomic_write(path, encode(value))
        for old in sorted(path.parent.glob(f"{kind}-*.bin"), key=lambda p: p.stat().st_mtime)[:-kept]:
            old.unlink(missing_ok=True)
    except OSError:
        pass
    return value
