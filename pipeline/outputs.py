"""Every file name a build reads or writes in its output folder, hidden ones included: one place to look."""

from __future__ import annotations

__all__ = ["GRAPH_TTL", "GRAPH_HTML", "GRAPH_NT", "GRAPH_JSONLD", "GRAPH_TRIG", "CONTEXT_JSONLD", "MERGES",
           "REPORT", "QUARANTINE", "JOURNAL", "STATE", "PAGE", "CACHE_DIR", "FOLDERS", "folder_record",
           "SPILL_PREFIX", "own_folders", "folder_key", "folder_keys"]

GRAPH_TTL = "graph.ttl"
"""The graph in Turtle: always written."""
GRAPH_HTML = "graph.html"
"""The interactive view (unless ``--no-html``)."""
GRAPH_NT = "graph.nt"
GRAPH_JSONLD = "graph.jsonld"
GRAPH_TRIG = "graph.trig"
CONTEXT_JSONLD = "context.jsonld"
"""The JSON-LD context graph.jsonld refers to."""
MERGES = "merges.json"
"""The merge log: each mention merged into each entity, and by which rule."""
REPORT = "report.json"
"""What the build read, skipped and found (no timings: deterministic)."""
QUARANTINE = "quarantine.ttl"
"""Statements that failed the shapes (only when some did)."""

JOURNAL = ".mlkg-commit.json"
"""The commit journal (``write.write_outputs``): present only while (or after a crash during) the renames."""
STATE = ".mlkg-state.pkl"
"""The name tables of the last build, from which the next one patches its outputs (``incremental.py``)."""
PAGE = ".mlkg-page.marshal"
"""What the last graph.html was made from (the view of graph.ttl it read, its components' layouts and
communities), from which the next patched build renders its page without reading graph.ttl again
(``incremental.py``)."""
CACHE_DIR = ".mlkg-cache"
"""The extraction cache's folder inside the output folder when no ``--cache`` is given."""
FOLDERS = ".mlkg-folders"
"""A folder inside the cache with two records per output folder, named by a digest of its path
(:func:`folder_record`): ``<digest>.used.json``, the cache entries its last build used (the only ones its
next build may prune), and ``<digest>.stamp.json``, what its last build was made from (inputs, options, code,
model) and what it wrote, so that an unchanged build stops (``stamp.py``)."""
SPILL_PREFIX = ".mlkg-spill-"
"""Temporary folders of sorted runs (``<prefix><pid>-...``), removed at the end of a build or by the next."""



def folder_record(cache_dir, out_dir, kind: str):
    """The record ``kind`` (``used`` or ``stamp``) of output folder ``out_dir`` in the cache ``cache_dir``."""
    import hashlib
    import os
    from pathlib import Path

    digest = hashlib.sha256(os.fsencode(os.path.realpath(out_dir))).hexdigest()[:16]
    return Path(cache_dir) / FOLDERS / f"{digest}.{kind}.json"


def own_folders(out_dir, cache_dir) -> tuple:
    """The folders a build writes (its output folder and its cache): never read as its inputs, even when an
    input folder holds them (``mlkg build . --out output``)."""
    from pathlib import Path

    return (Path(out_dir), Path(cache_dir) if cache_dir is not None else Path(out_dir) / CACHE_DIR)


def folder_key(path) -> tuple | None:
    """The (device, inode) of ``path``, or None when it cannot be stat'ed: a folder is the same whatever path
    leads to it."""
    import os

    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def folder_keys(folders) -> frozenset:
    """The :func:`folder_key` of each of ``folders`` that exists."""
    return frozenset(k for k in map(folder_key, folders) if k is not None)
