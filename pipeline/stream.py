"""The on-disk sort of a large build: blocks and merge records sorted in runs on disk, merged as they are written.

A large build (``build.py``'s streamed plan) resolves from compact per-document facts (``facts.compact``) in
two passes: the name table (``resolve.NameTable``) takes every document's facts in, then ``rdf.GraphBlocks``
renders each document's blocks (the triples ``rdf.triples`` defines) and merge records. This module is where
those go: a :class:`Spill` folder holds the facts read back by the second pass, and :class:`Sorter` s keep at
most a few megabytes in memory, spill sorted runs to disk and k-way merge them (``heapq.merge``) into
graph.ttl and merges.json as they are written. :class:`StreamResolver` is ``rdf.GraphBlocks`` over them.
"""

from __future__ import annotations

import heapq
import os
import pickle
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .config import MEMORY_RECORDS, SPILL_BYTES
from .outputs import SPILL_PREFIX
from .rdf import GraphBlocks

__all__ = ["StreamResolver", "Sorter", "Spill"]


# ---------------------------------------------------------------------------------------------------------------
# disk: a spill file of facts, and sorted runs

def _remove_dead(parent: Path) -> None:
    """Remove the spill folders that killed builds left in ``parent`` (their process is gone)."""
    for d in parent.glob(SPILL_PREFIX + "*"):
        try:
            pid = int(d.name.split("-")[2])
            os.kill(pid, 0)
        except (ValueError, IndexError, ProcessLookupError):
            shutil.rmtree(d, ignore_errors=True)
        except OSError:  # alive, but another user's: leave it
            pass


class Spill:
    """A temporary folder (inside the output folder) for the facts read back by the second pass and sorted runs."""

    def __init__(self, parent: Path) -> None:
        parent = Path(parent)
        parent.mkdir(parents=True, exist_ok=True)
        _remove_dead(parent)
        self.root = Path(tempfile.mkdtemp(prefix=f"{SPILL_PREFIX}{os.getpid()}-", dir=parent))
        self._facts = open(self.root / "facts.pkl", "wb")
        self.memory: list[tuple] = []
        self.count = 0
        self._n = 0

    def add(self, *record, keep: bool = False) -> None:
        """Add a record; with ``keep``, held in memory while fewer than ``MEMORY_RECORDS`` are (a small
        incremental build then never reads its cache hits back from disk)."""
        if keep and len(self.memory) < MEMORY_RECORDS:
            self.memory.append(record)
            return
        pickle.dump(record, self._facts, protocol=pickle.HIGHEST_PROTOCOL)
        self.count += 1

    def facts(self) -> Iterator[tuple]:
        """Every record (``doc_id, facts, ...``) added: those kept in memory first, then the others in order."""
        yield from self.memory
        self._facts.flush()
        with open(self.root / "facts.pkl", "rb") as fh:
            for _ in range(self.count):
                yield pickle.load(fh)  # one Unpickler per record: each dump has its own memo

    def path(self, stem: str) -> Path:
        self._n += 1
        return self.root / f"{stem}-{self._n}.pkl"

    def close(self) -> None:
        self._facts.close()
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Spill:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _read_run(path: Path) -> Iterator:
    with open(path, "rb") as fh:
        while True:
            try:
                chunk = pickle.load(fh)
            except EOFError:
                return
            yield from chunk


class Sorter:
    """Items sorted by their natural order, with at most ``limit`` characters in memory: an external merge sort."""

    def __init__(self, spill: Spill, stem: str, limit: int | None = None) -> None:
        self.spill, self.stem = spill, stem
        self.limit = limit or SPILL_BYTES
        self.items: list = []
        self.size = 0
        self.runs: list[Path] = []

    def add(self, item, size: int) -> None:
        self.items.append(item)
        self.size += size
        if self.size >= self.limit:
            self._flush()

    def _flush(self) -> None:
        self.items.sort()
        path = self.spill.path(self.stem)
        with open(path, "wb") as fh:
            for i in range(0, len(self.items), 1024):
                pickle.dump(self.items[i:i + 1024], fh, protocol=pickle.HIGHEST_PROTOCOL)
        self.runs.append(path)
        self.items = []
        self.size = 0

    def __iter__(self) -> Iterator:
        """Every item in order, repeats once."""
        self.items.sort()
        streams = [_read_run(p) for p in self.runs] + [iter(self.items)]
        prev = object()
        for item in heapq.merge(*streams) if len(streams) > 1 else streams[0]:
            if item != prev:
                yield item
                prev = item


class Tee:
    """A :class:`Sorter` of blocks ``(subject, text)`` that also hands their texts on as they come, about
    ``size`` bytes at a time (``feed(bytes)``): to the check of the graph, which loads them while the rest is
    rendered (``validate.TurtleLoad``)."""

    def __init__(self, sorter: Sorter, feed, size: int = 1 << 20) -> None:
        self.sorter, self.feed, self.size = sorter, feed, size
        self.texts: list[str] = []
        self.n = 0

    def add(self, item, size: int) -> None:
        self.sorter.add(item, size)
        self.texts.append(item[1])
        self.n += len(item[1])
        if self.n >= self.size:
            self.flush()

    def flush(self) -> None:
        """Hand on what is left."""
        if self.texts:
            self.feed("".join(self.texts).encode("utf-8"))
        self.texts, self.n = [], 0

    def __iter__(self) -> Iterator:
        self.flush()
        return iter(self.sorter)


class StreamResolver(GraphBlocks):
    """``rdf.GraphBlocks`` whose blocks and merge records are sorted in runs on disk."""

    def start_render(self, spill: Spill, feed=None) -> None:
        """Render the entity and document blocks into sorters of ``spill``; ready :meth:`render` for the
        documents' own. ``feed``: also given the blocks' Turtle as they come (:class:`Tee`)."""
        blocks = Sorter(spill, "ttl")
        self.prepare_render(Tee(blocks, feed) if feed is not None else blocks, Sorter(spill, "merges"))
        self.render_entities()
