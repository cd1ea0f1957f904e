"""Write graphs and reports deterministically and atomically (temporary file, then rename)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from rdflib import Graph

__all__ = ["atomic_write", "write_turtle", "turtle_bytes", "write_json"]


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, never a part."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def turtle_bytes(graph: Graph) -> bytes:
    """Turtle with subjects and predicates in sorted order: byte-identical for identical graphs.

    rdflib's Turtle serialiser sorts subjects, predicates and objects, and the graph has no blank nodes,
    so equal graphs give equal bytes.
    """
    return graph.serialize(format="turtle").encode("utf-8")


def write_turtle(graph: Graph, path: Path) -> None:
    """Serialise ``graph`` as Turtle to ``path`` atomically."""
    atomic_write(path, turtle_bytes(graph))


def write_json(obj, path: Path) -> None:
    """Write ``obj`` as sorted, indented JSON atomically."""
    atomic_write(path, (json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8"))
