"""Streaming resolution and writing: the build of a large graph that holds the entity table, not every mention.

The plain path (``resolve.resolve`` -> ``rdf.triples`` -> ``write.turtle_bytes``) holds every Extraction, the
whole Resolution with its evidence and the rendered Turtle at once, so its memory grows with the corpus. This
module gives the same bytes in two passes over compact per-document facts (:func:`compact`):

1. :meth:`StreamResolver.add`, document by document (in any order), keeps only what identity needs: per
   normalised name its votes, surface forms and documents, the acronym long forms, and per relation its
   documents. :meth:`StreamResolver.finish` then merges names into entities exactly as ``resolve.resolve``.
2. :meth:`StreamResolver.render`, document by document again (the facts are read back from a spill file),
   renders each document's evidence blocks and merge records; with the entity and document blocks they go to
   :class:`Sorter` s that keep at most a few megabytes in memory and spill sorted runs to disk, and are
   k-way merged (``heapq.merge``) into graph.ttl and merges.json as they are written.

What ``render`` made of a document is returned as a memo, stored in the document's cache entry with what it
depended on outside the document (each mention's entity, each relation's support count): an incremental
rebuild reuses it while that still holds, so it renders only what changed.

Anything the streaming path does not reproduce exactly (two entities with one key or one IRI, which the
vocabulary and the slugs make impossible in practice) is reported by ``finish`` returning False, and the build
then takes the plain path.
"""

from __future__ import annotations

import heapq
import os
import pickle
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from json.encoder import encode_basestring as _js
from pathlib import Path

from .outputs import SPILL_PREFIX
from .model import Document, Evidence, Extraction, Mention, RelationMention
from .names import clean as _clean
from .names import entity_key, norm
from .vocab import local_name

__all__ = ["compact", "expand", "StreamResolver", "Sorter", "Spill"]

MEMORY_RECORDS = 2048
"""Cache hits a :class:`Spill` keeps in memory rather than on disk."""

SPILL_BYTES = 8 << 20
"""Text a :class:`Sorter` keeps in memory before it writes a sorted run to disk."""


# ---------------------------------------------------------------------------------------------------------------
# compact facts: an Extraction as plain tuples (quick to pickle, small), and back

def compact(ex: Extraction) -> tuple:
    """The facts of ``ex`` as plain tuples: ``(evidences, mentions, relations)``.

    ``evidences``: ``(sentence, start, end)``; a mention: ``(cls, text, start, end, evidence index, canonical,
    aliases)``; a relation: ``(subject mention, predicate, object mention, evidence index, rule, confidence)``.
    The document id is the Extraction's (every mention and evidence of an Extraction is of its document).
    """
    doc_id = ex.document.id
    evs: dict[tuple, int] = {}

    def ev(e: Evidence) -> int:
        if e.doc_id != doc_id:
            raise ValueError(f"evidence of {e.doc_id!r} in the extraction of {doc_id!r}")
        k = (e.sentence, e.start_char, e.end_char)
        i = evs.get(k)
        if i is None:
            i = evs[k] = len(evs)
        return i

    def men(m: Mention) -> tuple:
        if m.doc_id != doc_id:
            raise ValueError(f"mention of {m.doc_id!r} in the extraction of {doc_id!r}")
        return (str(m.cls), m.text, m.start_char, m.end_char, ev(m.evidence), m.canonical, tuple(m.aliases))

    mentions = tuple(men(m) for m in ex.mentions)
    relations = tuple((men(r.subject), str(r.predicate), men(r.object), ev(r.evidence), r.rule, r.confidence)
                      for r in ex.relations)
    return (tuple(evs), mentions, relations)


_URIS: dict = {}


def _uri(s: str):
    u = _URIS.get(s)
    if u is None:
        from rdflib import URIRef

        u = _URIS[s] = URIRef(s)
    return u


def expand(document: Document, facts: tuple) -> Extraction:
    """The Extraction of ``document`` from its compact ``facts`` (the inverse of :func:`compact`)."""
    evs_t, ms, rs = facts
    d = document.id
    evs = [Evidence(doc_id=d, sentence=s, start_char=a, end_char=b) for s, a, b in evs_t]

    def men(m: tuple) -> Mention:
        cls, text, a, b, e, can, al = m
        return Mention(doc_id=d, text=text, cls=_uri(cls), start_char=a, end_char=b, evidence=evs[e],
                       canonical=can, aliases=al)

    return Extraction(document=document, mentions=tuple(men(m) for m in ms),
                      relations=tuple(RelationMention(subject=men(s), predicate=_uri(p), object=men(o),
                                                      evidence=evs[e], rule=rule, confidence=conf)
                                      for s, p, o, e, rule, conf in rs))


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
        self._later = None
        self.memory: list[tuple] = []
        self.count = 0
        self.later_count = 0
        self._n = 0

    def add(self, *record, keep: bool = False) -> None:
        """Add a record; with ``keep``, held in memory while fewer than ``MEMORY_RECORDS`` are (a small
        incremental build then never reads its cache hits back from disk)."""
        if keep and len(self.memory) < MEMORY_RECORDS:
            self.memory.append(record)
            return
        pickle.dump(record, self._facts, protocol=pickle.HIGHEST_PROTOCOL)
        self.count += 1

    def add_later(self, *record) -> None:
        """Keep a record apart too (the facts of parsed documents, resolved once spaCy is gone)."""
        if self._later is None:
            self._later = open(self.root / "later.pkl", "wb")
        pickle.dump(record, self._later, protocol=pickle.HIGHEST_PROTOCOL)
        self.later_count += 1

    def later(self) -> Iterator[tuple]:
        """Every record given to :meth:`add_later`, in order."""
        if self._later is None:
            return
        self._later.close()
        with open(self.root / "later.pkl", "rb") as fh:
            for _ in range(self.later_count):
                yield pickle.load(fh)

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
        if self._later is not None:
            self._later.close()
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


def name_parts(m: tuple) -> tuple:
    """What resolution reads from a compact mention: ``(class, normalised name, clean name, its names and
    aliases cleaned, the normalised acronyms among its aliases)``."""
    cls, text, _, _, _, can, aliases = m
    name = can or text
    nn = norm(name)
    cname = _clean(name)
    if aliases:
        acronyms = [na for na in map(norm, aliases) if na != nn and len(na) <= 8]
        return cls, nn, cname, [_clean(n) for n in (name, *aliases) if n and norm(n)], acronyms
    return cls, nn, cname, [cname] if name and nn else [], ()


class _Outside(Exception):
    """A link of the names being joined again leads to a name outside them (:meth:`StreamResolver._union`)."""


def _uncount(table, key, item) -> None:
    """One less ``item`` in the counts ``table[key]``; a dict table loses the key once its counts are empty."""
    counts = table[key]
    n = counts[item] - 1
    if n:
        counts[item] = n
        return
    del counts[item]
    if not counts and isinstance(table, dict):
        del table[key]


def _entity_iri(key: str) -> str:
    """``str(rdf.entity_iri(key))``, without making a URIRef."""
    from .rdf import slug
    from .vocab import RES

    cls, name = key.split("/", 1)
    return f"{RES}{cls.lower()}/{slug(name)}"


def _document_iri(doc_id: str) -> str:
    """``str(rdf.document_iri(doc_id))``, without making a URIRef."""
    from urllib.parse import quote

    from .vocab import RES

    return f"{RES}document/" + quote(doc_id.encode("utf-8", "surrogatepass"), safe="")


def _prefixes(texts: Iterable[str]) -> set[str]:
    """The prefixes the Turtle texts of terms use (``mlkg:x``, ``"1.5"^^xsd:decimal``; not ``<...>`` or ``a``)."""
    out = set()
    for t in texts:
        if t.startswith('"'):
            i = t.rfind('"^^')
            if i < 0:
                continue
            t = t[i + 3:]
        if t.startswith("<") or t == "a":
            continue
        k = t.find(":")
        if k > 0:
            out.add(t[:k])
    return out


_PREFIX_SETS: dict[frozenset, frozenset] = {}


def _pairs_prefixes(subject: str, pairs) -> frozenset:
    """The prefixes of a block's terms (interned: most blocks share a few sets)."""
    found = _prefixes([subject, *(t for pair in pairs for t in pair)])
    found = frozenset(found)
    return _PREFIX_SETS.setdefault(found, found)


class _Texts(dict):
    """Entity key -> the Turtle text of its IRI, rendered when first asked for."""

    def __init__(self, resolver: StreamResolver) -> None:
        super().__init__()
        self.resolver = resolver

    def __missing__(self, key: str) -> str:
        out = self[key] = self.resolver.terms.iri(self.resolver.iri[key])
        return out


_FINGERPRINT: list[str] = []


def _render_fingerprint() -> str:
    """A digest of the code that renders a document's blocks: a memo from other code is not reused."""
    if not _FINGERPRINT:
        import hashlib

        h = hashlib.sha256()
        root = Path(__file__).parent
        for name in ("stream.py", "write.py", "rdf.py", "vocab.py", "resolve.py", "names.py", "model.py"):
            h.update(name.encode() + b"\0" + (root / name).read_bytes() + b"\0")
        _FINGERPRINT.append(h.hexdigest()[:16])
    return _FINGERPRINT[0]


# ---------------------------------------------------------------------------------------------------------------
# the two passes

class StreamResolver:
    """``resolve.resolve`` + ``rdf.triples`` + the writers, in two passes over compact facts."""

    def __init__(self) -> None:
        # per normalised name (a "base": class and normalised canonical name), by a small integer id. Names,
        # links and long forms are counted (dicts keep them in order of arrival), so that a document's facts can
        # be taken out again (:meth:`remove`, an incremental rebuild); votes and documents are lists, since most
        # names have one spelling in one document
        self.long_forms: dict[tuple, dict[str, int]] = {}  # (cls, normalised acronym) -> normalised long forms
        self.ids: dict[tuple, int] = {}
        self.votes: list = []     # id -> the canonical name of each mention
        self.surface: list = []   # id -> names -> count
        self.docs: list = []      # id -> distinct document ids
        self.links: list = []     # id -> other normalised names it joins -> count, or None
        self.rel: dict[tuple, list[str]] = {}  # (id s, predicate, id o) -> distinct document ids
        self.relation_mentions = 0

    # pass 1 -------------------------------------------------------------------------------------------------
    def _base(self, doc_id: str, m: tuple) -> int:
        cls, nn, cname, names, acronyms = name_parts(m)
        for na in acronyms:
            lf = self.long_forms.get((cls, na))
            if lf is None:
                self.long_forms[(cls, na)] = {nn: 1}
            else:
                lf[nn] = lf.get(nn, 0) + 1
        i = self.ids.get((cls, nn))
        if i is None:
            i = self.ids[(cls, nn)] = len(self.votes)
            self.votes.append([cname])
            sur = {}
            self.surface.append(sur)
            self.docs.append([doc_id])
            self.links.append(None)
        else:
            self.votes[i].append(cname)
            sur = self.surface[i]
            d = self.docs[i]
            if not d or d[-1] != doc_id:  # a document's mentions come together: a repeat is the last one
                d.append(doc_id)
        for n in names:
            sur[n] = sur.get(n, 0) + 1
            k = norm(n)
            if k != nn:
                ls = self.links[i]
                if ls is None:
                    self.links[i] = {k: 1}
                else:
                    ls[k] = ls.get(k, 0) + 1
        return i

    def _unbase(self, m: tuple) -> int:
        """Take one mention back out (the inverse of :meth:`_base`, but for its document); return its base id."""
        cls, nn, cname, names, acronyms = name_parts(m)
        for na in acronyms:
            _uncount(self.long_forms, (cls, na), nn)
        i = self.ids[(cls, nn)]
        self.votes[i].remove(cname)
        for n in names:
            _uncount(self.surface, i, n)
            k = norm(n)
            if k != nn:
                _uncount(self.links, i, k)
        return i

    def add(self, doc_id: str, facts: tuple) -> None:
        """Take in one document's facts (any order of documents gives the same graph; each document once)."""
        _, ms, rs = facts
        for m in ms:
            self._base(doc_id, m)
        for s, p, o, *_ in rs:
            k = (self._base(doc_id, s), p, self._base(doc_id, o))
            d = self.rel.get(k)
            if d is None:
                self.rel[k] = [doc_id]
            elif d[-1] != doc_id:
                d.append(doc_id)
            self.relation_mentions += 1

    def remove(self, doc_id: str, facts: tuple) -> set[int]:
        """Take out one document's facts, as :meth:`add` took them in; return the base ids they touched."""
        _, ms, rs = facts
        touched = {self._unbase(m) for m in ms}
        for s, p, o, *_ in rs:
            i, j = self._unbase(s), self._unbase(o)
            touched.update((i, j))
            d = self.rel.get((i, p, j))
            if d is not None and doc_id in d:
                d.remove(doc_id)
                if not d:
                    del self.rel[(i, p, j)]
            self.relation_mentions -= 1
        for i in touched:
            d = self.docs[i]
            if doc_id in d:
                d.remove(doc_id)
        return touched

    def finish(self, keep: bool = False) -> bool:
        """Merge names into entities and relations; False when only the plain path gives the exact graph.

        With ``keep`` the name tables stay: ``incremental.save_state`` keeps them for the next build to patch."""
        self.keep = keep
        self.root = self._union(range(len(self.votes)))
        members: dict[int, list[int]] = {}
        for i, r in enumerate(self.root):
            members.setdefault(r, []).append(i)
        # entity per group: label, key; entities by key (cls, label, alt labels, documents)
        self.group: dict[int, tuple[str, str]] = {}
        self.entities: dict[str, tuple] = {}
        ok = self._add_groups(members)
        del members
        if not keep:
            self.votes = self.surface = self.docs = self.links = self.long_forms = None
        self.iri = {k: _entity_iri(k) for k in self.entities}
        ok = ok and self._iris_distinct()
        self.relations = self._relations(self.rel.items())
        if not keep:
            self.rel = None
        self._count()
        return ok

    def _union(self, bases: Iterable[int]) -> dict[int, int] | list[int]:
        """The root of each of ``bases`` (a name's id) once names that share a spelling or an acronym are joined;
        a list when ``bases`` is every id, else a dict. The links of ``bases`` must lead only to ``bases`` or to
        alias-only names (a component of names is closed under its links)."""
        ids, long_forms, links = self.ids, self.long_forms, self.links
        everything = isinstance(bases, range)
        if everything:
            parent = list(range(len(self.votes)))
        else:
            parent = {i: i for i in bases}
        extra: dict[tuple, int] = {}  # names only ever given as another's alias
        cls_of = self._cls_of()

        def find(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        top = len(self.votes)
        for i in bases:
            ls = links[i]
            if not ls:
                continue
            for nk in ls:
                k = (cls_of[i], nk)
                if len(long_forms.get(k, ())) > 1:
                    continue  # an acronym with two meanings joins nothing
                j = ids.get(k)
                if j is None:
                    j = extra.get(k)
                    if j is None:
                        j = extra[k] = top + len(extra)
                        if everything:
                            parent.append(j)
                        else:
                            parent[j] = j
                elif not everything and j not in parent:
                    raise _Outside(j)
                ra, rb = find(i), find(j)
                if ra != rb:
                    parent[max(ra, rb)] = min(ra, rb)  # a root is a name's id, never an alias-only one
        if everything:
            return [find(i) for i in range(top)]
        return {i: find(i) for i in bases}

    def _cls_of(self) -> list:
        cls_of = getattr(self, "_classes", None)
        if cls_of is None or len(cls_of) != len(self.votes):
            cls_of = self._classes = [None] * len(self.votes)
            for base, i in self.ids.items():
                cls_of[i] = base[0]
        return cls_of

    def _add_groups(self, members: dict[int, list[int]]) -> bool:
        """Make the entity of each group of names (root -> ids) into ``group`` and ``entities``; False if two
        groups meet in one key."""
        ok = True
        cls_of = self._cls_of()
        for r, ids in members.items():
            if len(ids) == 1:  # most names: one spelling, its lists already distinct
                i = ids[0]
                votes, surface, docs = self.votes[i], self.surface[i], self.docs[i]
                if not votes:
                    continue  # a name whose every mention was taken out (incremental rebuild)
                if len(set(votes)) == 1:
                    label = votes[0]
                else:
                    label = sorted(Counter(votes).items(), key=lambda kv: (-kv[1], -len(kv[0]), kv[0]))[0][0]
            else:
                counts: Counter = Counter()
                surface, docs = set(), set()
                for i in ids:
                    counts.update(self.votes[i])
                    surface.update(self.surface[i])
                    docs.update(self.docs[i])
                if not counts:
                    continue
                label = sorted(counts.items(), key=lambda kv: (-kv[1], -len(kv[0]), kv[0]))[0][0]
            cls = cls_of[r]
            key = entity_key(cls, label)
            by_norm: dict = {}
            for s in sorted(s for s in surface if s != label):
                by_norm.setdefault((norm(s), s.casefold()), s)
            if key in self.entities:
                ok = False  # two groups, one key: resolve.resolve folds them; leave that to it
            self.entities[key] = (cls, label, tuple(sorted(by_norm.values())), tuple(sorted(docs)))
            self.group[r] = (label, key)
        return ok

    def _iris_distinct(self) -> bool:
        return len(set(self.iri.values())) == len(self.iri)  # else two keys, one IRI: the plain writer merges them

    def _relations(self, rel: Iterable[tuple]) -> dict[tuple, int]:
        """Relations between entities, each with how many documents support it, from ``(ids, documents)`` of names."""
        relations: dict[tuple, set] = {}
        group, root = self.group, self.root
        for (i, p, j), docs in rel:
            ks, ko = group[root[i]][1], group[root[j]][1]
            if ks == ko:
                continue
            r = relations.get((ks, p, ko))
            if r is None:
                relations[(ks, p, ko)] = set(docs)
            else:
                r.update(docs)
        return {k: len(docs) for k, docs in relations.items()}

    def _count(self) -> None:
        # rdf.triples yields per entity 2 + alt labels + 3 per document, per relation 1 + 11 per distinct
        # (sentence, rule, confidence): exact after render(); before, bounds decide whether to validate
        self._entity_triples = sum(2 + len(alts) + 3 * len(docs) for _, _, alts, docs in self.entities.values())
        self.bounds = (self._entity_triples + 12 * len(self.relations),
                       self._entity_triples + len(self.relations) + 11 * self.relation_mentions)
        self.evidence_records = 0

    @property
    def triples(self) -> int:
        """How many triples ``rdf.triples`` yields for this graph (after :meth:`render` of every document)."""
        return self._entity_triples + len(self.relations) + 11 * self.evidence_records

    # summaries ----------------------------------------------------------------------------------------------
    def entities_per_class(self) -> dict[str, int]:
        return dict(sorted(Counter(local_name(e[0]) for e in self.entities.values()).items()))

    def relations_per_property(self) -> dict[str, int]:
        return dict(sorted(Counter(local_name(p) for _, p, _ in self.relations).items()))

    def graph_stats(self, top: int = 5) -> dict:
        """``analysis.graph_stats(analysis.resolution_to_networkx(...))`` without networkx."""
        from .vocab import ENTITY_CLASSES, RELATIONS

        classes = {str(c) for c in ENTITY_CLASSES}
        nodes = {self.iri[k]: (local_name(e[0]), e[1]) for k, e in self.entities.items() if e[0] in classes}
        preds = {str(p) for p in RELATIONS}
        edges = {(self.iri[s], self.iri[o], p) for s, p, o in self.relations if p in preds}
        edges = {e for e in edges if e[0] in nodes and e[1] in nodes}
        parent = {n: n for n in nodes}

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        degree = dict.fromkeys(nodes, 0)
        for s, o, _ in edges:
            degree[s] += 1
            degree[o] += 1
            rs, ro = find(s), find(o)
            if rs != ro:
                parent[rs] = ro
        methods = [(degree[n], label) for n, (cls, label) in nodes.items() if cls == "Method"]
        return {
            "nodes": len(nodes),
            "edges": len(edges),
            "components": len({find(n) for n in nodes}) if nodes else 0,
            "most_connected_methods": [f"{label} ({d})" for d, label in sorted(methods, key=lambda x: (-x[0], x[1]))[:top]],
        }

    # pass 2 -------------------------------------------------------------------------------------------------
    def start_render(self, spill: Spill) -> None:
        """Render the entity and document blocks; ready :meth:`render` for the documents' own."""
        self.prepare_render(Sorter(spill, "ttl"), Sorter(spill, "merges"))
        out = self.out_pairs()
        docs: set[str] = set()
        keep = self.keep
        self.entity_prefixes: dict[str, frozenset] = {}
        for key, entity in self.entities.items():
            subject, text, prefixes = self.entity_block(key, entity, out.get(key, ()), keep)
            self.blocks.add((subject, text), len(text))
            docs.update(entity[3])
            if keep:
                self.entity_prefixes[key] = prefixes
        for d in docs:
            subject, text, _ = self.document_block(d)
            self.blocks.add((subject, text), len(text))

    def prepare_render(self, blocks, records) -> None:
        """Ready the renderer: Turtle blocks ``(subject, text)`` go to ``blocks``, merge records to ``records``
        (each with ``add(item, size)``: a :class:`Sorter`, or a collector of an incremental rebuild)."""
        from rdflib.namespace import RDF, RDFS, SKOS

        from .vocab import MLKG, PREFIXES
        from .write import _Terms

        self.terms = t = _Terms({k: str(v) for k, v in PREFIXES.items()})
        # the fixed terms are rendered by a scratch renderer: a prefix goes in the header only once used
        scratch = _Terms({k: str(v) for k, v in PREFIXES.items()})
        self._used: set[str] = set()  # texts of fixed terms written (their prefixes are marked in turtle())
        self.blocks, self.records = blocks, records
        doc_iris: dict[str, str] = {}

        def doc_iri(d: str) -> str:
            out = doc_iris.get(d)
            if out is None:
                out = doc_iris[d] = t.render_iri(_document_iri(d))
            return out

        self._doc_iri = doc_iri
        self._p = {name: scratch.term(iri) for name, iri in (
            ("type", RDF.type), ("label", RDFS.label), ("alt", SKOS.altLabel), ("mentionedIn", MLKG.mentionedIn),
            ("subject", RDF.subject), ("predicate", RDF.predicate), ("object", RDF.object), ("source", MLKG.source),
            ("sentence", MLKG.sentence), ("startChar", MLKG.startChar), ("endChar", MLKG.endChar),
            ("rule", MLKG.rule), ("confidence", MLKG.confidence), ("supportCount", MLKG.supportCount))}
        self._evidence_cls = scratch.term(MLKG.Evidence)
        self._doc_cls = scratch.term(MLKG.Document)
        self._fixed = {scratch.term(i): i for i in (
            RDF.type, RDFS.label, SKOS.altLabel, MLKG.mentionedIn, RDF.subject, RDF.predicate, RDF.object, MLKG.source,
            MLKG.sentence, MLKG.startChar, MLKG.endChar, MLKG.rule, MLKG.confidence, MLKG.supportCount,
            MLKG.Evidence, MLKG.Document)}
        self._fixed.pop("a", None)
        self._text = _Texts(self)

    def out_pairs(self, subjects: set[str] | None = None) -> dict[str, list]:
        """The ``(predicate, object)`` texts of the relations from each entity key (of ``subjects``, or all)."""
        out: dict[str, list] = {}
        for (s, p, o) in self.relations:
            if subjects is None or s in subjects:
                out.setdefault(s, []).append((self._iri_term(p), self._text[o]))
        return out

    def entity_block(self, key: str, entity: tuple, out: Iterable[tuple], prefixes: bool = False) -> tuple:
        """``(subject, text, prefixes)`` of the Turtle block of entity ``key`` (``entities[key]``, relations
        ``out``); the prefixes its terms use if asked for, else None."""
        from .write import _block, _string

        cls, label, alts, doc_ids = entity
        P = self._p
        pairs = {(P["type"], self._iri_term(cls)), (P["label"], _string(label))}
        pairs.update((P["alt"], _string(a)) for a in alts)
        pairs.update((P["mentionedIn"], self._doc_iri(d)) for d in doc_ids)
        pairs.update(out)
        used = self._used
        used.add(P["label"])
        if alts:
            used.add(P["alt"])
        if doc_ids:
            used.add(P["mentionedIn"])
        subject = self._text[key]
        return subject, _block(subject, pairs), _pairs_prefixes(subject, pairs) if prefixes else None

    def document_block(self, doc_id: str) -> tuple[str, str, frozenset]:
        """``(subject, text, prefixes)`` of the Turtle block of a document named by some entity."""
        from .write import _block, _string

        P = self._p
        self._used.update((self._doc_cls, P["label"]))
        subject = self._doc_iri(doc_id)
        pairs = {(P["type"], self._doc_cls), (P["label"], _string(doc_id))}
        return subject, _block(subject, pairs), _pairs_prefixes(subject, pairs)

    def _iri_term(self, iri: str) -> str:
        return "a" if iri == "http://www.w3.org/1999/02/22-rdf-syntax-ns#type" else self.terms.iri(iri)

    def render(self, doc_id: str, facts: tuple, memo: tuple | None = None) -> tuple | None:
        """Render one document's evidence blocks and merge records.

        ``memo`` is what this returned for the same facts in an earlier build: when the entities and support
        counts the document's output depends on are still the same, its blocks are reused as they are. Returns
        the new memo to store, or None when ``memo`` was reused.
        """
        from .rdf import _confidence, _evidence_iri, _lit
        from .write import _block, _string

        evs, ms, rs = facts
        group, root, ids = self.group, self.root, self.ids
        # what the output depends on besides the facts: each mention's entity, each relation's support
        occurrences = []
        for m in ms:
            occurrences.append(group[root[ids[(m[0], norm(m[5] or m[1]))]]])
        supports = []
        for s, p, o, *_ in rs:
            ks = group[root[ids[(s[0], norm(s[5] or s[1]))]]]
            ko = group[root[ids[(o[0], norm(o[5] or o[1]))]]]
            occurrences += (ks, ko)
            supports.append(self.relations.get((ks[1], p, ko[1]), 0))
        sig = (_render_fingerprint(), tuple(occurrences), tuple(supports))
        if memo is not None and memo[0] == sig:
            _, blocks, records, n, prefixes = memo
            for b in blocks:
                self.blocks.add(b, len(b[1]) + len(b[0]) + 150)
            for r in records:
                self.records.add(r, len(r[1][3]) + len(r[1][4]) + 400)  # about what the tuples take
            self.evidence_records += n
            self.terms.used.update(prefixes)
            return None

        P, term = self._p, self.terms.term
        seen: dict[tuple, None] = {}
        entity_of = iter(occurrences)

        def entity(m: tuple) -> str:
            cls, text, a, b, _, can, aliases = m
            name = can or text
            glabel, key = next(entity_of)
            cname = _clean(name)
            if cname == glabel:
                rule = "label"
            elif norm(cname) == norm(glabel):
                rule = "same-normalised-name"
            elif any(norm(n) == norm(glabel) for n in (_clean(n) for n in (name, *aliases) if n and norm(n))):
                rule = "own-acronym-pair"
            else:
                rule = "shared-alias"
            rec = (self.iri[key], (doc_id, a, b, text, cname, rule))
            if rec not in seen:
                seen[rec] = None
            return key

        for m in ms:
            entity(m)
        nodes: dict[str, set] = {}
        records: set[tuple] = set()  # what rdf.triples counts: (relation, sentence, rule, confidence)
        doc = self._doc_iri(doc_id)
        for s, p, o, e, rule, conf in rs:
            ks, ko = entity(s), entity(o)
            if ks == ko:
                continue
            sentence, a, b = evs[e]
            node = str(_evidence_iri(ks, local_name(p), ko, doc_id, a, b))
            pairs = nodes.get(node)
            if pairs is None:
                pairs = nodes[node] = {
                    (P["type"], self._evidence_cls), (P["subject"], self._text[ks]), (P["predicate"], self._iri_term(p)),
                    (P["object"], self._text[ko]), (P["source"], doc), (P["sentence"], _string(sentence)),
                    (P["startChar"], term(_lit(a))), (P["endChar"], term(_lit(b))),
                    (P["supportCount"], term(_lit(self.relations[(ks, p, ko)])))}
            records.add((ks, p, ko, a, b, rule, conf))
            pairs.add((P["rule"], term(_lit(rule))))
            pairs.add((P["confidence"], term(_confidence(conf))))
        blocks = []
        texts: set[str] = set()
        for node, pairs in nodes.items():
            subject = self.terms.render_iri(node)  # not remembered: each evidence node is written once
            blocks.append((subject, _block(subject, pairs)))
            texts.add(subject)
            for p_, o_ in pairs:
                texts.add(p_)
                texts.add(o_)
        prefixes = frozenset(_prefixes(texts))
        new = (sig, blocks, list(seen), len(records), prefixes)
        return new if self.render(doc_id, facts, new) is None else None  # added through the memo path

    # writing ------------------------------------------------------------------------------------------------
    def turtle(self) -> Iterator[bytes]:
        """graph.ttl, in chunks: the bytes of ``write.turtle_bytes`` of the same graph."""
        for text in self._used:
            if text in self._fixed:
                self.terms.iri(str(self._fixed[text]))  # marks its prefix used
        head = self.terms.header()
        buf: list[str] = [head] if head else []
        prev = None
        size = 0
        for subject, text in self.blocks:
            if subject == prev:
                raise RuntimeError(f"two blocks for one subject {subject}")  # finish() rules this out
            if prev is not None:
                buf.append("\n")
            prev = subject
            buf.append(text)
            size += len(text)
            if size > 1 << 20:
                yield "".join(buf).encode("utf-8")
                buf, size = [], 0
        if buf:
            yield "".join(buf).encode("utf-8")

    def merges(self) -> Iterator[bytes]:
        """merges.json, in chunks: the bytes of ``write.json_bytes(rdf.merge_log(resolution))``."""
        before, after = merges_frame()
        by_iri = {iri: key for key, iri in self.iri.items()}
        buf: list[str] = [before + "{\n"]
        size = 0
        current, mentions = None, []

        def section() -> str:
            cls, label = self.entities[by_iri[current]][:2]
            return merge_section(current, local_name(cls), label, mentions)

        for iri, record in self.records:
            if iri != current:
                if current is not None:
                    buf.append(section() + ",\n")
                    size += len(mentions)
                    if size > 4096:
                        yield "".join(buf).encode("utf-8")
                        buf, size = [], 0
                current, mentions = iri, []
            mentions.append(record)
        if current is None:
            yield (before + "{}" + after).encode("utf-8")
            return
        buf.append(section() + "\n  }" + after)
        yield "".join(buf).encode("utf-8")


def merges_frame() -> tuple[str, str]:
    """merges.json around its entities: ``before + "{" ... "}" + after``."""
    from .model import MERGE_RULES
    from .write import json_bytes

    empty = json_bytes({"entities": {}, "rules": dict(MERGE_RULES)}).decode("utf-8")
    before, after = empty.split('"entities": {}', 1)
    return before + '"entities": ', after


def merge_section(iri: str, cls: str, label: str, mentions: Iterable[tuple]) -> str:
    """One entity's part of merges.json's "entities", as ``json_bytes`` indents it (no comma after it);
    ``mentions`` are ``(document, start, end, text, read as, rule)``, in order."""
    return (f'    {_js(iri)}: {{\n      "class": {_js(cls)},\n      "label": {_js(label)},\n      "mentions": [\n'
            + ",\n".join(f'        {{\n          "document": {_js(doc)},\n          "end": {b},\n          "read_as": '
                          f'{_js(name)},\n          "rule": {_js(rule)},\n          "start": {a},\n          "text": '
                          f'{_js(text)}\n        }}' for doc, a, b, text, name, rule in mentions)
            + "\n      ]\n    }")
