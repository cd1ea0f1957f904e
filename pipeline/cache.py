"""The incremental cache: one pickled Extraction per document (as plain tuples, ``facts.compact``), keyed by its content and the pipeline's version.

A key is the SHA-256 of the pipeline fingerprint, the document id and its text. The fingerprint covers
everything that decides what is extracted from a text: mlkg's version, the source of the extraction stage
(``pipeline/nlp``, ``model.py``, ``vocab.py``, ``names.py`` whose ``norm`` the rules use) and its rule data,
and the spaCy version and pipeline. Editing a rule, upgrading spaCy or switching pipelines therefore misses
the cache everywhere; an unchanged document under an unchanged pipeline hits it and is not parsed.

Entries are written atomically, so an interrupted build leaves whole entries or none; an entry that cannot be
read (truncated, from another Python) is a miss. The build resolves only the extractions of the documents
it reads now, so the facts of a removed or changed document leave the graph whatever the cache holds.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import pickle
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .files import digest_file
from .model import Document, Extraction
from .outputs import CACHE_DIR as DEFAULT_CACHE_DIR
from .outputs import folder_record
from .write import atomic_write, folder_lock, json_bytes

__all__ = ["ExtractionCache", "CacheEntry", "pipeline_fingerprint", "DEFAULT_CACHE_DIR"]


@dataclass(frozen=True, slots=True)
class CacheEntry:
    """What the cache holds of a document."""

    facts: tuple
    """Its compact facts (``facts.compact``)."""
    memo: object | None
    """What the streamed writer rendered from them last (an ``rdf.RenderMemo``), or None."""


_SOURCES = ("model.py", "vocab.py", "names.py", "nlp")
_FORMAT = 2  # entries hold (document id, facts.compact facts): plain tuples, quick to load


@lru_cache(maxsize=8)
def pipeline_fingerprint(model: str) -> str:
    """A digest of everything that decides the Extraction of a text under spaCy pipeline ``model``."""
    import importlib.metadata

    import spacy

    from . import __version__

    h = hashlib.sha256(f"mlkg {__version__}\nspacy {spacy.__version__}\nentry {_FORMAT}\n".encode())
    try:
        h.update(f"{model} {importlib.metadata.version(model.replace('_', '-'))}\n".encode())
    except importlib.metadata.PackageNotFoundError:
        h.update(f"{model}\n".encode())
    root = Path(__file__).parent
    for name in _SOURCES:
        p = root / name
        files = sorted(p.rglob("*")) if p.is_dir() else [p]
        for f in files:
            if f.is_file() and f.suffix in {".py", ".json"}:
                digest_file(h, f.relative_to(root).as_posix(), f)
    return h.hexdigest()[:16]


class ExtractionCache:
    """Extractions on disk under ``root``, one file per (pipeline version, document id, text)."""

    def __init__(self, root: Path, model: str) -> None:
        self.root = Path(root)
        # entry paths are absolute: the state a build leaves names each document's entry, and the next build,
        # given its output folder as a relative path or from another folder, must name it the same way
        self._root = os.path.abspath(self.root)
        self.version = pipeline_fingerprint(model)
        self.used: set[str] = set()  # entry paths this build read or wrote (strings: thousands of them)
        self._shards: set[str] = set()  # shard folders made (or found) by put_entry

    def _path(self, document: Document) -> str:
        # what the graph says of a document besides its facts (rdf.document_metadata) is in the key: a page
        # whose metadata alone changed is built again
        meta = "\0".join((document.format, document.title, document.url, document.date, document.author,
                          document.description))
        h = hashlib.sha256(f"{self.version}\0{document.id}\0{meta}\0".encode("utf-8", "surrogatepass")
                           + document.text.encode("utf-8", "surrogatepass"))
        d = h.hexdigest()
        return os.path.join(self._root, d[:2], d + ".pkl")

    def has(self, document: Document) -> bool:
        """Whether an entry for ``document`` exists (it may still turn out unreadable)."""
        return os.path.exists(self._path(document))

    def get_entry(self, document: Document) -> CacheEntry | None:
        """The entry of ``document``; None if not cached."""
        return self.read_entry(self._path(document), document.id)

    def read_entry(self, path: str, doc_id: str, keep: bool = True) -> CacheEntry | None:
        """The entry at ``path`` (from :meth:`entry_path`) if it is of ``doc_id``, else None;
        with ``keep=False`` the entry is not kept by :meth:`prune` for having been read (an old version's)."""
        if keep:
            self.used.add(path)
        try:
            with open(path, "rb") as fh:
                entry = pickle.load(fh)
        except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError,
                IndexError):
            return None
        if not (isinstance(entry, tuple) and len(entry) in (2, 3) and entry[0] == doc_id
                and isinstance(entry[1], tuple) and len(entry[1]) == 3):
            return None
        return CacheEntry(entry[1], entry[2] if len(entry) == 3 else None)

    def get_facts(self, document: Document) -> tuple | None:
        """The cached compact facts (``facts.compact``) of ``document``, or None."""
        entry = self.get_entry(document)
        return None if entry is None else entry.facts

    def get(self, document: Document) -> Extraction | None:
        """The cached Extraction of ``document`` (read from the current place and encoding), or None."""
        from .facts import expand

        facts = self.get_facts(document)
        return None if facts is None else expand(document, facts)

    def entry_path(self, document: Document) -> str:
        """Where the entry of ``document`` is (for :meth:`put_entry` once the text is gone)."""
        return self._path(document)

    def put_facts(self, document: Document, facts: tuple, memo: object | None = None) -> None:
        """Store the compact facts of ``document`` and, if given, the streaming writer's memo (atomically)."""
        self.put_entry(self._path(document), document.id, facts, memo)

    def put_entry(self, path: str, doc_id: str, facts: tuple, memo: object | None = None) -> None:
        """Store an entry at ``path`` (from :meth:`entry_path`), atomically.

        A large build writes one entry per document (10,000 in a row): each shard folder is made once, and the
        temporary file is named by the entry and the writing process and thread (no two writers share it)
        instead of ``mkstemp``'s random name tried with ``O_EXCL``, which cost as much again as the write."""
        self.used.add(path)
        parent, name = os.path.split(path)
        if parent not in self._shards:
            os.makedirs(parent, exist_ok=True)
            self._shards.add(parent)
        tmp = os.path.join(parent, f".{name}.{os.getpid()}-{threading.get_ident()}.tmp")
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0)
        try:
            fd = os.open(tmp, flags, 0o600)
        except FileNotFoundError:  # the shard was removed since it was made (the cache cleared meanwhile)
            os.makedirs(parent, exist_ok=True)
            fd = os.open(tmp, flags, 0o600)
        try:
            with os.fdopen(fd, "wb") as fh:
                pickle.dump((doc_id, facts) if memo is None else (doc_id, facts, memo), fh,
                            protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def put(self, extraction: Extraction) -> None:
        """Store ``extraction`` (atomically)."""
        from .facts import compact

        self.put_facts(extraction.document, compact(extraction))

    def prune(self, out_dir: Path, own: bool = False) -> int:
        """Delete the entries the last build into ``out_dir`` used and this one did not (documents removed or
        changed since), and record this build's for the next; return how many were deleted.

        A cache named with ``--cache`` may serve other output folders: only the entries this folder's manifest
        (``outputs.folder_record``) lists are candidates, so a build never deletes another's. With ``own`` (the
        cache inside ``out_dir``) and no manifest yet, every entry this build did not use goes. Entries are
        deleted under a lock on the cache folder, one pruning build at a time.
        """
        manifest = folder_record(self.root, out_dir, "used")
        previous = self._manifest(manifest)
        n = 0
        if self.root.is_dir() and (previous is not None or own):
            with folder_lock(self.root):
                candidates = self._all_entries() if previous is None else previous
                for rel in candidates:
                    path = os.path.join(self._root, rel)
                    if path not in self.used and os.path.exists(path):
                        Path(path).unlink(missing_ok=True)
                        n += 1
        prefix = self._root + os.sep
        entries = sorted(p[len(prefix):] for p in self.used if p.startswith(prefix))
        # not synced: a manifest lost in a crash costs entries not pruned, never one pruned that is used
        atomic_write(manifest, json_bytes({"cache": os.path.realpath(self._root), "out": os.path.realpath(out_dir),
                                           "entries": entries}), durable=False)
        return n

    def _manifest(self, path: Path) -> list[str] | None:
        """The entries a manifest lists, if it is about this cache (else None)."""
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("cache") != os.path.realpath(self._root):
            return None
        entries = data.get("entries")
        if not isinstance(entries, list):
            return None
        # only names of entries (two hex digits, a slash, a digest): a manifest never points outside the cache
        return [e for e in entries if isinstance(e, str) and _ENTRY.fullmatch(e)]

    def _all_entries(self) -> list[str]:
        out = []
        with os.scandir(self._root) as shards:
            for shard in shards:
                if len(shard.name) != 2 or not shard.is_dir():
                    continue
                with os.scandir(shard.path) as entries:
                    out.extend(f"{shard.name}/{e.name}" for e in entries
                               if e.name.endswith(".pkl") and not e.name.startswith("."))
        return out


_ENTRY = re.compile(r"[0-9a-f]{2}/[0-9a-f]{64}\.pkl")
