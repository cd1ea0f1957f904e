"""Writing one file safely: readers see the old file or the new one, never a part. The lowest layer of the
build's writing (``write.py`` commits several files at once on top of it); extraction uses it too, for the cached
copy of the weights, without depending on the stages that write the graph. And a file read into a digest
(:func:`digest_file`), for the fingerprints of the code and its data (``cache.py``, ``stamp.py``)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write", "temp_beside", "digest_file"]

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


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, never a part."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = temp_beside(path)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
