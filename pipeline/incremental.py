"""Incremental rebuilds: after a few documents change, patch the last graph instead of building it again.

A streamed build (``stream.py``) with the cache on leaves a state file beside its outputs (:data:`STATE_FILE`):
the name tables of its :class:`~pipeline.rdf.GraphBlocks`, kept with counts, and its entities and relations;
per document its cache entry, whether it has a document node, and what its evidence blocks use. The next
build that finds the state valid (same pipeline and rendering code, graph.ttl and merges.json as that build
left them, few documents changed) reads only the documents whose text changed and:

1. takes the old facts of the changed and removed documents (their old cache entries) out of the tables and
   puts the new ones in (:meth:`NameTable.remove`, :meth:`NameTable.add`);
2. joins names again only in the groups those names touch, with the groups their links reach: a group is
   closed under its links, so no other group can change;
3. renders again the entity blocks whose entity or relations changed, and the documents whose mentions'
   entities or relations' support counts changed (their memo decides, as in a full streaming build);
4. patches graph.ttl and merges.json: their blocks and sections are sorted by subject, so taking some out
   and putting others in gives the bytes a full build writes.

Anything it cannot do exactly (a cache entry gone, two entities meeting in one key, a graph now small enough
to validate) makes :func:`rebuild` return None, and the build takes the full path. ``tests/test_incremental.py``
checks the bytes against a full build after random changes.
"""

from __future__ import annotations

import bisect
import gc
import hashlib
import json
import os
import pickle
import stat
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .config import MAX_CHANGED
from .outputs import GRAPH_HTML, GRAPH_TTL, MERGES, PAGE
from .outputs import STATE as STATE_FILE
from .rdf import GraphBlocks, RenderMemo, entity_iri_text, merge_section, merges_frame, render_fingerprint
from .resolve import TABLES
from .stream import StreamResolver
from .vocab import local_name

__all__ = ["STATE_FILE", "GraphState", "DocumentState", "ChangedBlocks", "Changes", "Change", "no_cycle_collection", "take_state", "graph_stats",
           "GraphStats",
           "save_state", "table_bytes", "read_outputs", "LastOutputs", "plan", "rebuild", "Rebuilt", "state_version", "PageState", "take_page", "save_page", "Source",
           "sources", "KnownSources", "left_as_they_are", "page_left"]


OUTPUTS = (GRAPH_TTL, MERGES)
"""The outputs an incremental rebuild patches: they must be as the build that left the state wrote them."""

_FORMAT = "mlkg-state-4"


_TABLES = (*TABLES, "iri", "entity_prefixes")  # the name table's, and the renderer's


def state_version(cache_version: str) -> str:
    """What a state depends on: the extraction (the cache's version), the code that renders and patches, and
    the code that reads a document (its :class:`Source` records stand for what that code read)."""
    h = hashlib.sha256(f"{cache_version}\0{render_fingerprint()}\0".encode())
    for name in ("incremental.py", "ingest.py", "markup.py", "model.py"):
        h.update((Path(__file__).parent / name).read_bytes())
    return h.hexdigest()[:16]


def _stat(path: Path) -> tuple:
    st = os.stat(path)
    return (st.st_size, st.st_mtime_ns, st.st_ino)


@dataclass(frozen=True, slots=True)
class DocumentState:
    """What the state keeps of one document of the graph."""

    entry: str
    """Its cache entry (its facts and render memo)."""
    document_prefixes: frozenset | None
    """The prefixes of its document block, or None when it has none (no mention)."""
    evidence_triples: int
    """The triples of its evidence blocks (``rdf.RenderMemo.evidence_triples``)."""
    evidence_prefixes: frozenset
    """The prefixes of its evidence blocks."""


@dataclass
class GraphState:
    """What a streaming build leaves for the next one to patch its outputs."""

    version: str
    outputs: dict[str, tuple]  # name -> (size, mtime_ns, inode) as written
    docs: dict[str, DocumentState]
    tables: dict = field(repr=False)  # the GraphBlocks' tables (_TABLES)
    validated: bool = False  # graph.ttl passed the shapes: a patch of it is checked where it changed
    stats: GraphStats | None = None  # the report's graph statistics of the graph it describes, with their key
    sources: dict = field(default_factory=dict)  # document id -> Source: the files the next build need not read

    def resolver(self) -> StreamResolver:
        r = StreamResolver().restore(self.tables)
        r.iri, r.entity_prefixes = self.tables["iri"], self.tables["entity_prefixes"]
        r.keep = True
        return r


@dataclass(frozen=True, slots=True)
class GraphStats:
    """The report's statistics of an entity graph, with the key of what they were computed from."""

    key: str
    """A digest of the entities and relations the statistics read, and of the code that computes them."""
    statistics: dict
    """``rdf.GraphBlocks.graph_stats``: the report's ``graph`` section."""


def graph_stats(resolver: GraphBlocks, state: GraphState | None) -> GraphStats:
    """The statistics of the resolver's entity graph (``rdf.GraphBlocks.graph_stats``, for the report):
    the last build's when its entity graph had the same key, a digest of the entities' IRIs, classes and labels
    and of the relations (what the statistics read), and of the code that computes them."""
    h = hashlib.sha256((Path(__file__).parent / "analysis.py").read_bytes())
    iri = resolver.iri
    for k in sorted(resolver.entities):
        cls, label = resolver.entities[k][:2]
        h.update(f"{iri[k]}\0{cls}\0{label}\n".encode("utf-8", "surrogatepass"))
    for s, p, o in sorted(resolver.relations):
        h.update(f"{iri[s]}\0{p}\0{iri[o]}\n".encode("utf-8", "surrogatepass"))
    key = h.hexdigest()
    if state is not None and isinstance(state.stats, GraphStats) and state.stats.key == key:
        return state.stats
    return GraphStats(key, resolver.graph_stats())


def take_state(out_dir: Path, version: str | None, remove: bool = True) -> GraphState | None:
    """The state the last build left in ``out_dir`` if it is for ``version`` and its outputs are untouched;
    the file is removed either way (the build about to run changes what it describes), unless ``remove`` is
    False (then by a call with ``version`` None, which only removes it)."""
    path = Path(out_dir) / STATE_FILE
    if version is None:
        path.unlink(missing_ok=True)
        return None
    state = None
    try:
        with open(path, "rb") as fh, no_cycle_collection():
            head = pickle.load(fh)
            if isinstance(head, tuple) and len(head) == 7 and head[:2] == (_FORMAT, version):
                state = GraphState(version=version, outputs=head[2], docs=head[3],
                                   tables={name: pickle.load(fh) for name in _TABLES}, validated=head[4] is True,
                                   stats=head[5], sources=head[6] if isinstance(head[6], dict) else {})
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError,
            IndexError):
        state = None
    if remove:
        path.unlink(missing_ok=True)
    if state is None:
        return None
    try:
        if any(_stat(Path(out_dir) / name) != state.outputs.get(name) for name in OUTPUTS):
            return None  # an output changed since (edited, or written by another build): start afresh
    except OSError:
        return None
    return state


def table_bytes(resolver: GraphBlocks) -> bytes:
    """The resolver's tables as :func:`save_state` writes them: a patch's check (``build._check_patch``)
    pickles them in its forked copy, while the build renders graph.html."""
    import io

    fh = io.BytesIO()
    # one pickle per table: the pickler's memo (an entry per object, ~80 MB at 10,000 documents in one
    # pickle) then holds one table's objects at a time; the file is larger (shared strings repeat)
    pickler = pickle.Pickler(fh, protocol=pickle.HIGHEST_PROTOCOL)
    for name in _TABLES:
        pickler.clear_memo()
        pickler.dump(getattr(resolver, name))
    return fh.getvalue()


def save_state(out_dir: Path, version: str, resolver: GraphBlocks, docs: dict[str, DocumentState],
               validated: bool = False, stats: GraphStats | None = None, sources: dict | None = None,
               tables: bytes | None = None) -> None:
    """Leave the state of the build that just wrote ``out_dir``'s outputs (atomically); ``validated``: its
    graph.ttl passed the shapes; ``sources``: its documents' :class:`Source` records; ``tables``: the
    resolver's tables as :func:`table_bytes` gave them, if they are pickled already."""
    out_dir = Path(out_dir)
    fd, tmp = tempfile.mkstemp(prefix=".mlkg-state-", suffix=".tmp", dir=out_dir)
    try:
        with os.fdopen(fd, "wb") as fh:
            pickle.dump((_FORMAT, version, {name: _stat(out_dir / name) for name in OUTPUTS}, docs, validated, stats,
                         sources or {}), fh, protocol=pickle.HIGHEST_PROTOCOL)
            fh.write(tables if tables is not None else table_bytes(resolver))
        os.replace(tmp, out_dir / STATE_FILE)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass(frozen=True, slots=True)
class Source:
    """A document the build that left the state read from a file: the file as it was then, and what it read."""

    path: str
    """The file."""
    stat: tuple
    """Its size, modification time, inode and change time (ns), as :func:`_file_stat` gives them."""
    document: object
    """The ``model.Document`` read from it, without its text."""
    entry: str
    """Its cache entry."""


SETTLED_NS = 2_000_000_000
"""A file's stat stands for its content only if the file had not changed for this long (ns) when the build that
recorded it started: a change within one tick of the file system's clock might keep the stat it had."""


_SIZE, _MTIME, _INODE, _CTIME = range(4)
"""The fields of a file's stat as :func:`_file_stat` gives it (a plain tuple, as the state stores it)."""


def _file_stat(path) -> tuple | None:
    """A regular file's size, modification time, inode and change time; None for anything else."""
    st = os.stat(path)
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns) if stat.S_ISREG(st.st_mode) else None


def sources(kept: dict, started_ns: int, given: dict[str, Source] | None = None) -> dict[str, Source]:
    """The :class:`Source` of each document read from a file of its own (not a page fetched, not a line of a
    ``.jsonl`` file) with a cache entry, whose file had settled (:data:`SETTLED_NS`) before ``started_ns``,
    when the build began reading: ``kept``, the build's ``build.KeptDocument`` by id. ``given``: the records of
    the documents given unread (:class:`KnownSources`), kept as they are: their files' stats were the recorded
    ones when read, and a file changed since differs from its record (999 stats of 1,000 files not taken again)."""
    settled = started_ns - SETTLED_NS
    out = {}
    for doc_id, k in kept.items():
        s = given.get(doc_id) if given else None
        if s is not None:
            out[doc_id] = s
            continue
        d = k.document
        if k.entry is None or d.format == "jsonl" or not isinstance(d.path, Path):
            continue
        try:
            st = _file_stat(d.path)
        except OSError:
            continue
        if st is not None and st[_MTIME] < settled and st[_CTIME] < settled:
            out[doc_id] = Source(os.fspath(d.path), st, d, k.entry)
    return out


class KnownSources:
    """``ingest.read_documents``'s ``known``: the document of a file whose stat (size, modification and change
    times, inode) is the one the state recorded (:class:`Source`), without reading it. A stat stands for the
    content, as for the unchanged build (``stamp.py``); a file is recorded only once settled, and the change
    time cannot be set back. ``unread``: the ids of the documents given so, whose texts were not read."""

    def __init__(self, state: GraphState, max_bytes: int) -> None:
        self.sources, self.max_bytes = state.sources, max_bytes
        self.unread: set[str] = set()

    def __call__(self, path, doc_id: str):
        s = self.sources.get(doc_id)
        if s is None or s.path != os.fspath(path):
            return None
        try:
            st = _file_stat(path)
        except OSError:
            return None
        if st != s.stat or st[_SIZE] > self.max_bytes:
            return None
        self.unread.add(doc_id)
        return s.document

    def entry(self, doc_id: str) -> str:
        """The cache entry of a document given unread."""
        return self.sources[doc_id].entry


@dataclass(frozen=True, slots=True)
class PageState:
    """What the last graph.html was made from: the view of graph.ttl it read (``render.GraphView``) and what it
    computed of each component (``render.PageMemo``). A patched build patches the view with the blocks it
    changed (``render.GraphView.patch``) instead of reading the whole graph.ttl again."""

    view: object
    """The ``render.GraphView`` of graph.ttl as it is now, with what the page made of each entity and evidence
    record (``render.GraphView.rows``), saved with it."""
    memo: dict
    """The entries of the ``render.PageMemo`` the page used."""
    html: tuple | None = None
    """The size, modification time and inode of the graph.html written from it, as the build left it."""


_PAGE_FORMAT = "mlkg-page-3"


def _page_version() -> str:
    """The code a page state depends on: the view's reader and the layout and communities it memoises (with
    the igraph and numpy that compute them)."""
    import importlib.metadata

    h = hashlib.sha256(_PAGE_FORMAT.encode())
    for name in ("render.py", "layout.py"):
        h.update((Path(__file__).parent / name).read_bytes())
    for dist in ("igraph", "numpy"):
        try:
            h.update(f"\0{dist} {importlib.metadata.version(dist)}".encode())
        except importlib.metadata.PackageNotFoundError:
            h.update(f"\0{dist} missing".encode())
    return h.hexdigest()[:16]


def take_page(out_dir: Path, wanted: bool = True) -> PageState | None:
    """The page state the last build left in ``out_dir`` if it is of the graph.ttl there now and of this code;
    the file is removed either way (the build about to run changes graph.ttl). With ``wanted`` False (a build
    that renders no page, or cannot patch one) it is only removed, not read."""
    import marshal

    path = Path(out_dir) / PAGE
    if not wanted:
        path.unlink(missing_ok=True)
        return None
    try:
        with no_cycle_collection():
            # loads, not load: marshal reading from a file object makes a call per object (ten times slower)
            data = marshal.loads(path.read_bytes())
        ok = (isinstance(data, dict) and data.get("format") == _PAGE_FORMAT and data.get("version") == _page_version()
              and data.get("graph") == _stat(Path(out_dir) / GRAPH_TTL))
    except (OSError, EOFError, ValueError, TypeError):
        ok = False
    path.unlink(missing_ok=True)
    if not ok:
        return None
    from .render import GraphView

    view = GraphView(data["view"])
    if data.get("rows") is not None:
        view.restore_rows(data["rows"])
    return PageState(view, data["memo"], data.get("html"))


def page_left(out_dir: Path, page: PageState | None) -> bool:
    """Whether graph.html is still as the build that left ``page`` wrote it: a graph.ttl that did not change
    then keeps it as it is."""
    try:
        return page is not None and page.html is not None and _stat(Path(out_dir) / GRAPH_HTML) == page.html
    except OSError:
        return False


def save_page(out_dir: Path, page: PageState) -> None:
    """Leave the page state of the graph.html just written beside the graph.ttl it was made from (atomically)."""
    import marshal

    from .write import atomic_write

    out_dir = Path(out_dir)
    data = {"format": _PAGE_FORMAT, "version": _page_version(), "graph": _stat(out_dir / GRAPH_TTL),
            "html": _stat(out_dir / GRAPH_HTML), "view": dict(page.view), "memo": page.memo,
            "rows": page.view.saved_rows()}
    atomic_write(out_dir / PAGE, marshal.dumps(data), durable=False)  # a record for the next build


@dataclass(frozen=True, slots=True)
class ChangedBlocks:
    """What a patch changed in graph.ttl: every statement of the subjects whose blocks it rendered again."""

    removed: bytes
    """The blocks taken out, as Turtle (the old graph's prefixes)."""
    added: bytes
    """The blocks put in, as Turtle (the new graph's prefixes)."""


@dataclass(frozen=True, slots=True)
class Changes:
    """The documents changed since the state was left."""

    changed: list[str]
    """Ids of the documents new or changed."""
    removed: list[str]
    """Ids of the documents gone."""


@dataclass(frozen=True, slots=True)
class Change:
    """A changed or new document's facts, as parsed (or read from the cache) now."""

    doc_id: str
    facts: tuple
    """Its compact facts (``facts.compact``)."""
    memo: object
    """The ``rdf.RenderMemo`` its cache entry holds, or None."""
    entry: str
    """Its cache entry."""
    parsed: bool = False
    """Whether it was parsed now (else read from the cache)."""


def plan(state: GraphState, entries: dict[str, str]) -> Changes | None:
    """The documents changed or new and removed, from each document's cache entry now; None if too many."""
    old = state.docs
    changed = [d for d, path in entries.items() if d not in old or old[d].entry != path]
    removed = [d for d in old if d not in entries]
    if len(changed) + len(removed) > MAX_CHANGED * max(len(entries), 1):
        return None
    return Changes(changed, removed)


class _Collect:
    """Stands in for a Sorter: keeps what is added, unsorted."""

    def __init__(self) -> None:
        self.items: list = []

    def add(self, item, size: int) -> None:
        self.items.append(item)


@dataclass
class Rebuilt:
    """An incremental rebuild's result: the resolver (its summaries for the report), the new outputs' bytes,
    the state to save once they are written, and the cache entries to write."""

    resolver: StreamResolver
    files: dict[str, bytes]
    docs: dict[str, DocumentState]
    entries: list[Change]  # the cache entries to write: each with its new memo
    rendered: int = 0  # documents whose blocks were rendered again (or taken from a memo still valid)
    changed: ChangedBlocks | None = None  # the graph.ttl blocks taken out and put in (``validate.validate_patch``)
    same: frozenset[str] = frozenset()  # the outputs whose patched bytes are those they have (``left_as_they_are``)


@contextmanager
def no_cycle_collection():
    """Many small acyclic containers are made here, and with spaCy loaded a collection walks its whole heap."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def rebuild(state: GraphState, out_dir: Path, store, changes: list[Change], removed: list[str],
            documents: dict | None = None, last: LastOutputs | None = None) -> Rebuilt | None:
    """Patch the outputs of the build that left ``state``.

    ``changes``: each changed or new document; ``removed``: the ids of the documents gone (or failed now);
    ``documents``: the documents by id, for what their graph nodes say of them (``rdf.document_metadata``);
    ``last``: the outputs in ``out_dir`` as read already (:func:`read_outputs`), else read here.
    Returns None when only a full build gives the exact graph.
    """
    with no_cycle_collection():
        patch = _rebuild(state, store, changes, removed, documents or {})
        return None if patch is None else _patch_outputs(*patch, last if last is not None else read_outputs(out_dir))


@dataclass
class _Patch:
    """One patch as it is made, step by step (:func:`_rebuild`): the resolver of the state, each document's
    state, and what is rendered again and what it replaces."""

    r: StreamResolver
    docs: dict[str, DocumentState]
    """Each document's state: the last build's, updated as documents are rendered again."""
    old_memos: dict[str, RenderMemo] = field(default_factory=dict)
    """The render memo of each document leaving (removed or changed), from its old cache entry."""
    blocks: _Collect = field(default_factory=_Collect)
    """The graph.ttl blocks rendered again: ``(subject, text)``."""
    records: _Collect = field(default_factory=_Collect)
    """The merges.json records rendered again: ``(iri, record)``."""
    gone_subjects: set[str] = field(default_factory=set)
    """The subjects whose graph.ttl blocks go."""
    gone_records: dict[str, set[str]] = field(default_factory=dict)
    """IRI -> the documents whose merges.json records of it go."""
    entries: list[Change] = field(default_factory=list)
    """The cache entries to write, each with its new memo."""
    leaving: list[str] = field(default_factory=list)
    """The documents whose old facts left the name table (removed or changed)."""
    touched: set[int] = field(default_factory=set)
    """The ids of the names whose counts changed."""
    names: set[tuple] = field(default_factory=set)
    """The name keys ``(class, normalised name)`` the documents leaving and coming give."""


def _rebuild(state: GraphState, store, changes: list[Change], removed: list[str],
             documents: dict) -> tuple[_Patch, int] | None:
    """Steps 1-5 of a patch: the patch and how many documents it rendered again, or None."""
    r = state.resolver()
    r.documents = documents
    patch = _Patch(r, dict(state.docs))
    old_entities, old_iri = dict(r.entities), dict(r.iri)
    if not _swap_facts(patch, store, changes, removed):
        return None
    g = _regroup(r, patch.touched, patch.names)
    if g is None:
        return None
    touched_keys = g.old_keys | g.new_keys | {k[0] for k in g.moved}
    affected = _affected(r, g, {c.doc_id for c in changes} | set(patch.leaving))
    r.prepare_render(patch.blocks, patch.records)
    if not _render_documents(patch, store, sorted(affected), {c.doc_id: c for c in changes}, set(removed)):
        return None
    _render_entities(patch, touched_keys, old_entities, old_iri)
    r.evidence_triples = sum(v.evidence_triples for v in patch.docs.values())
    return patch, sum(1 for d in affected if d in patch.docs)


def _swap_facts(patch: _Patch, store, changes: list[Change], removed: list[str]) -> bool:
    """Step 1: the old facts of the documents leaving (removed, changed) out of the name table, the new facts
    in (``patch.leaving``, ``touched``, ``names``); False when an old cache entry is gone (cache cleared,
    pruned by another build: the full build starts afresh)."""
    r, docs = patch.r, patch.docs
    patch.leaving = [d for d in removed if d in docs] + [c.doc_id for c in changes if c.doc_id in docs]
    for d in patch.leaving:
        entry = store.read_entry(docs[d].entry, d, keep=False)
        if entry is None or not isinstance(entry.memo, RenderMemo):
            return False
        patch.old_memos[d] = entry.memo
        patch.touched |= r.remove(d, entry.facts)
        patch.names |= r.name_keys(entry.facts)
    for c in changes:
        r.add(c.doc_id, c.facts)
        patch.names |= r.name_keys(c.facts)
    for c in changes:
        patch.touched |= r.name_ids(c.facts)
    return True


def _regroup(r: StreamResolver, touched: set[int], names: set[tuple]):
    """Step 2: join names again where they may have changed (``NameTable.regroup``) and name the entities
    new; None when two entities now meet in one IRI."""
    g = r.regroup(touched, names)
    for k in g.old_keys:
        del r.iri[k]
    for k in g.new_keys:
        r.iri[k] = entity_iri_text(k)
    if not r.iris_distinct():
        return None
    r.count()
    return g


def _affected(r: StreamResolver, g, affected: set[str]) -> set[str]:
    """Step 3: the documents to render again: ``affected`` (those changed, new or removed), those whose
    mentions changed entity, and those that support a relation whose support count changed."""
    region, old_root, old_group, root = g.region, g.old_root, g.old_group, r.root
    for i in region:
        was = old_group.get(old_root[i]) if i < len(old_root) else None
        if was != r.group.get(root[i]):
            affected.update(r.docs[i])
    recount = {k for k in g.moved if k in g.old_relations and k in r.relations}
    if recount:
        for (i, p, j), ds in g.name_relations:
            if (r.group[root[i]][1], p, r.group[root[j]][1]) in recount:
                affected.update(ds)
    return affected


def _render_documents(patch: _Patch, store, affected: list[str], new_facts: dict[str, Change],
                      removed: set[str]) -> bool:
    """Step 4: take out what the last build wrote for each affected document and render it again from its
    facts (new, or its cache entry's); False when a cache entry is gone."""
    r, docs = patch.r, patch.docs
    for d in affected:
        if d in docs:  # what the last build wrote for d goes
            memo = patch.old_memos.get(d)
            if memo is None:
                entry = store.read_entry(docs[d].entry, d)
                if entry is None or not isinstance(entry.memo, RenderMemo):
                    return False
                memo = entry.memo
            patch.gone_subjects.update(subject for subject, _ in memo.blocks)
            for iri, rec in memo.records:
                patch.gone_records.setdefault(iri, set()).add(d)
            if docs[d].document_prefixes is not None:
                patch.gone_subjects.add(r.T.document(d))
        if d in new_facts:
            facts, memo, path = new_facts[d].facts, new_facts[d].memo, new_facts[d].entry
        elif d in docs and d not in removed:
            path = docs[d].entry
            entry = store.read_entry(path, d)
            if entry is None:
                return False
            facts, memo = entry.facts, entry.memo
        else:
            docs.pop(d, None)
            continue
        docs[d] = _render_document(patch, d, facts, memo, path)
    return True


def _render_document(patch: _Patch, d: str, facts: tuple, memo, path: str) -> DocumentState:
    """Document ``d``'s evidence blocks, merge records and document block, rendered again (or from its memo
    while still valid); its state now."""
    r = patch.r
    n = len(patch.records.items)
    new = r.render(d, facts, memo)
    used = new if new is not None else memo
    if new is not None:
        patch.entries.append(Change(d, facts, new, path))
    for iri, _ in patch.records.items[n:]:
        patch.gone_records.setdefault(iri, set()).add(d)
    prefixes = None
    if facts[1] or facts[2]:
        block = r.document_block(d)
        patch.blocks.add((block.subject, block.text), 0)
        prefixes = block.prefixes
    return DocumentState(path, prefixes, used.evidence_triples, used.prefixes)


def _render_entities(patch: _Patch, touched_keys: set[str], old_entities: dict, old_iri: dict) -> None:
    """Step 5: the entity blocks whose entity or relations changed: the old ones go, the new ones come."""
    r = patch.r
    for k in touched_keys:
        if k in old_entities:
            patch.gone_subjects.add(r.T.terms.iri(old_iri[k]))
        r.entity_prefixes.pop(k, None)
    out = r.out_pairs(touched_keys)
    for k in sorted(touched_keys):
        if k in r.entities:
            block = r.entity_block(k, out.get(k, ()))
            r.entity_prefixes[k] = block.prefixes
            patch.blocks.add((block.subject, block.text), 0)


@dataclass(frozen=True, slots=True)
class LastOutputs:
    """graph.ttl and merges.json as the last build wrote them, split into the blocks and sections a patch
    splices (:func:`read_outputs`): read by a patched build while its pipeline loads beside."""

    turtle: bytes
    blocks: list[bytes]
    """graph.ttl's blocks after its prefixes, each without the blank line after it."""
    merges: bytes
    sections: list[bytes] | None
    """merges.json's sections (:func:`_merges_sections`), or None when it is not as a build writes it."""


def read_outputs(out_dir: Path) -> LastOutputs:
    """The :class:`LastOutputs` of ``out_dir``."""
    turtle, merges = (Path(out_dir) / GRAPH_TTL).read_bytes(), (Path(out_dir) / MERGES).read_bytes()
    return LastOutputs(turtle, _turtle_blocks(turtle), merges, _merges_sections(merges))


def _patch_outputs(patch: _Patch, rendered: int, last: LastOutputs) -> Rebuilt | None:
    """Step 6: graph.ttl and merges.json (as ``last`` holds them) patched: the blocks and sections gone taken
    out, the new ones put in, under the prefixes the graph uses now."""
    r, docs = patch.r, patch.docs
    prefixes: set[str] = set()
    for group in {*r.entity_prefixes.values(), *(v.document_prefixes for v in docs.values() if v.document_prefixes is not None),
                  *(v.evidence_prefixes for v in docs.values())}:
        prefixes |= group
    old_turtle, header = last.turtle, r.T.terms.header(prefixes).encode("utf-8")
    patched = _patch_turtle(last.blocks, patch.gone_subjects, patch.blocks.items, header)
    if patched is None:
        return None
    turtle, taken_out = patched
    old_merges = last.merges
    merges = _patch_merges(last.sections, r, patch.gone_records, patch.records.items)
    if merges is None:
        return None
    return Rebuilt(resolver=r, files={GRAPH_TTL: turtle, MERGES: merges}, docs=docs, entries=patch.entries,
                   rendered=rendered, changed=_changed_blocks(old_turtle, taken_out, patch.blocks.items, header),
                   same=frozenset(name for name, new, old in ((GRAPH_TTL, turtle, old_turtle), (MERGES, merges, old_merges))
                                  if new == old))


def left_as_they_are(out_dir: Path, state: GraphState, rebuilt: Rebuilt) -> set[str]:
    """The outputs a patch need not write: their bytes would be those they have (an edit that changed no
    statement), and they are still as the build that left ``state`` wrote them."""
    out = set()
    for name in rebuilt.same:
        try:
            if _stat(Path(out_dir) / name) == state.outputs.get(name):
                out.add(name)
        except OSError:
            pass
    return out


def _subject(piece: bytes) -> bytes:
    return piece[:piece.find(b" ")]


def _splice(pieces: list[bytes], gone: set[bytes], added: list[tuple[bytes, bytes]], key,
            taken_out: list[bytes] | None = None) -> list[bytes] | None:
    """``pieces`` (sorted by ``key``, distinct) without those whose key is in ``gone``, with ``added``
    ``(key, piece)`` in their places; None if a piece to take out is missing or one added is there already.
    The pieces taken out are appended to ``taken_out``, in order."""
    cut = []
    for g in gone:
        i = bisect.bisect_left(pieces, g, key=key)
        if i == len(pieces) or key(pieces[i]) != g:
            return None
        cut.append(i)
    cut.sort()
    kept: list[bytes] = []
    start = 0
    for i in cut:
        kept += pieces[start:i]
        start = i + 1
    kept += pieces[start:]
    if taken_out is not None:
        taken_out += (pieces[i] for i in cut)
    added = sorted(added)
    out: list[bytes] = []
    start = 0
    for k, piece in added:
        i = bisect.bisect_left(kept, k, lo=start, key=key)
        if i < len(kept) and key(kept[i]) == k:
            return None  # two blocks for one subject: the full path will say why
        if out and key(out[-1]) == k:
            return None
        out += kept[start:i]
        out.append(piece)
        start = i
    out += kept[start:]
    return out


class PatchedTurtle(bytes):
    """graph.ttl's bytes as a patch made them, holding its blocks (``blocks``: in order, each without the blank
    line after it): ``validate.validate_patch`` finds a subject's block among them instead of splitting the
    text again. Any other bytes made from these (a copy, a slice) are plain bytes."""

    blocks: list[bytes]


def _turtle_blocks(old: bytes) -> list[bytes]:
    """The blocks of graph.ttl ``old`` after its prefixes, each without the blank line after it."""
    if old.startswith(b"@prefix"):
        end = old.find(b"\n\n")
        body = old[end + 2:]
    else:
        body = old
    return body[:-1].split(b"\n\n") if body else []


def _patch_turtle(pieces: list[bytes], gone: set[str], added: list[tuple[str, str]],
                  header: bytes) -> tuple[PatchedTurtle, list[bytes]] | None:
    """graph.ttl (its blocks ``pieces``, :func:`_turtle_blocks`) with the blocks of subjects ``gone`` taken out
    and ``added`` put in, under ``header``; and the blocks taken out."""
    taken_out: list[bytes] = []
    new = _splice(pieces, {g.encode("utf-8") for g in gone},
                  [(s.encode("utf-8"), t.encode("utf-8")[:-1]) for s, t in added], _subject, taken_out)
    if new is None:
        return None
    turtle = PatchedTurtle(header + b"\n\n".join(new) + b"\n" if new else header)
    turtle.blocks = new
    return turtle, taken_out


def _changed_blocks(old: bytes, taken_out: list[bytes], added: list[tuple[str, str]], header: bytes) -> ChangedBlocks:
    """The blocks the patch took out of ``old`` (under its prefixes) and those it put in (under ``header``)."""
    end = old.find(b"\n\n") if old.startswith(b"@prefix") else 0
    return ChangedBlocks(removed=b"\n\n".join([old[:end], *taken_out]) + b"\n",
                         added=b"\n\n".join([header, *(t.encode("utf-8") for _, t in added)]))


_SECTION_END = b"\n    }"


def _section_iri(piece: bytes) -> bytes:
    return piece[5:piece.find(b'": {\n')]


def _merges_ends() -> tuple[bytes, bytes]:
    """What stands before merges.json's first section and after its last (``rdf.merges_frame``)."""
    before, after = merges_frame()
    return (before + "{\n").encode("utf-8"), (_SECTION_END.decode() + "\n  }" + after).encode("utf-8")


def _merges_sections(old: bytes) -> list[bytes] | None:
    """The sections of merges.json ``old`` (each without its end), or None when it is not as a build writes it."""
    before, after = merges_frame()
    b, a = _merges_ends()
    if old == (before + "{}" + after).encode("utf-8"):
        return []
    if old.startswith(b) and old.endswith(a):
        return old[len(b):-len(a)].split(_SECTION_END + b",\n")
    return None


def _patch_merges(pieces: list[bytes] | None, r: GraphBlocks, gone: dict[str, set[str]], added: list[tuple]) -> bytes | None:
    """merges.json (its sections ``pieces``, :func:`_merges_sections`) with the records of the documents in
    ``gone[iri]`` taken out of each section and ``added`` ``(iri, record)`` put in; each section touched is
    written again from its records."""
    if pieces is None:
        return None
    b, a = _merges_ends()
    by_iri = {iri: key for key, iri in r.iri.items()}
    new_records: dict[str, list] = {}
    for iri, rec in added:
        new_records.setdefault(iri, []).append(rec)
    out_sections = []
    for iri, ds in gone.items():
        key = iri.encode("utf-8")
        if json.dumps(iri, ensure_ascii=False)[1:-1] != iri:
            return None  # an IRI that JSON escapes: sections would not sort by their text
        i = bisect.bisect_left(pieces, key, key=_section_iri)
        records = set(new_records.get(iri, ()))
        if i < len(pieces) and _section_iri(pieces[i]) == key:
            data = json.loads(b"{" + pieces[i] + _SECTION_END + b"}")[iri]
            records.update((m["document"], m["start"], m["end"], m["text"], m["read_as"], m["rule"])
                           for m in data["mentions"] if m["document"] not in ds)
        if records:
            cls, label = r.entities[by_iri[iri]][:2]
            out_sections.append((key, merge_section(iri, local_name(cls), label, sorted(records)).encode("utf-8")[:-len(_SECTION_END)]))
    present = {k for k in (iri.encode("utf-8") for iri in gone) if _has(pieces, k)}
    new = _splice(pieces, present, out_sections, _section_iri)
    if new is None:
        return None
    if not new:
        return (before + "{}" + after).encode("utf-8")
    return b + (_SECTION_END + b",\n").join(new) + a


def _has(pieces: list[bytes], key: bytes) -> bool:
    i = bisect.bisect_left(pieces, key, key=_section_iri)
    return i < len(pieces) and _section_iri(pieces[i]) == key
