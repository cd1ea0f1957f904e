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
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from .config import MEMORY_RECORDS, SPILL_BYTES
from .names import clean
from .outputs import SPILL_PREFIX
from .rdf import document_iri_text, entity_iri_text, merges_json
from .resolve import NameTable, merge_rule
from .vocab import local_name

__all__ = ["StreamResolver", "RenderMemo", "Sorter", "Spill", "render_fingerprint"]



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


def render_fingerprint() -> str:
    """A digest of the code that renders a document's blocks: a memo from other code is not reused."""
    if not _FINGERPRINT:
        import hashlib

        h = hashlib.sha256()
        root = Path(__file__).parent
        for name in ("stream.py", "write.py", "rdf.py", "vocab.py", "resolve.py", "names.py", "facts.py", "model.py"):
            h.update(name.encode() + b"\0" + (root / name).read_bytes() + b"\0")
        _FINGERPRINT.append(h.hexdigest()[:16])
    return _FINGERPRINT[0]


# ---------------------------------------------------------------------------------------------------------------
# the two passes

@dataclass(frozen=True, slots=True)
class RenderMemo:
    """What :meth:`StreamResolver.render` made of a document, kept in its cache entry for the next build."""

    sig: tuple
    """What it depended on: the rendering code, each mention's entity, each relation's support count."""
    blocks: list
    """``(subject, Turtle text)`` of each evidence block."""
    records: list
    """``(entity IRI, merge record)`` of each mention."""
    evidence_records: int
    """Distinct (relation, sentence, rule, confidence) records: 11 triples each."""
    prefixes: frozenset
    """The prefixes its blocks use."""


class StreamResolver(NameTable):
    """A :class:`~pipeline.resolve.NameTable` that renders its graph's blocks document by document (pass 2)."""

    documents: Mapping = MappingProxyType({})
    """The documents by id (their text not needed): what :meth:`document_block` says of each (set by the build)."""

    def finish(self, keep: bool = False) -> bool:
        """Merge names into entities and relations; False when only the plain path gives the exact graph (two
        entities with one IRI). With ``keep`` the name tables stay: ``incremental.save_state`` keeps them for
        the next build to patch."""
        self.keep = keep
        super().finish()
        if not keep:
            self.votes = self.surface = self.docs = self.links = self.long_forms = self.rel = None
        self.iri = {k: entity_iri_text(k) for k in self.entities}
        self.count()
        return self.iris_distinct()

    def iris_distinct(self) -> bool:
        """Whether every entity has an IRI of its own (else two keys, one IRI: the plain writer merges them)."""
        return len(set(self.iri.values())) == len(self.iri)

    def count(self) -> None:
        """Count the triples (the bounds before rendering: whether the graph is small enough to validate)."""
        # rdf.triples yields per entity 2 + alt labels + 3 per document, per document named the metadata of
        # rdf.document_metadata, per relation 1 + 11 per distinct (sentence, rule, confidence): exact after
        # render(); before, the least count decides whether to validate
        from .rdf import document_metadata

        self._entity_triples = sum(2 + len(alts) + 3 * len(docs) for _, _, alts, docs in self.entities.values())
        named = {d for *_, docs in self.entities.values() for d in docs}
        self._entity_triples += sum(len(document_metadata(self.documents[d])) for d in named if d in self.documents)
        self.min_triples = self._entity_triples + 12 * len(self.relations)
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

    def graph_stats(self) -> dict:
        """``analysis.graph_stats`` of the entity graph (as of ``analysis.resolution_to_networkx``)."""
        from .analysis import entity_graph, graph_stats

        return graph_stats(entity_graph(((self.iri[k], e[0], e[1]) for k, e in self.entities.items()),
                                        ((self.iri[s], p, self.iri[o]) for s, p, o in self.relations)))

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
        from .write import Terms

        self.terms = t = Terms({k: str(v) for k, v in PREFIXES.items()})
        # the fixed terms are rendered by a scratch renderer: a prefix goes in the header only once used
        scratch = Terms({k: str(v) for k, v in PREFIXES.items()})
        self._used: set[str] = set()  # texts of fixed terms written (their prefixes are marked in turtle())
        self.blocks, self.records = blocks, records
        doc_iris: dict[str, str] = {}

        def doc_iri(d: str) -> str:
            out = doc_iris.get(d)
            if out is None:
                out = doc_iris[d] = t.render_iri(document_iri_text(d))
            return out

        self.doc_iri = doc_iri
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
        from .write import turtle_block, quote_string

        cls, label, alts, doc_ids = entity
        P = self._p
        pairs = {(P["type"], self._iri_term(cls)), (P["label"], quote_string(label))}
        pairs.update((P["alt"], quote_string(a)) for a in alts)
        pairs.update((P["mentionedIn"], self.doc_iri(d)) for d in doc_ids)
        pairs.update(out)
        used = self._used
        used.add(P["label"])
        if alts:
            used.add(P["alt"])
        if doc_ids:
            used.add(P["mentionedIn"])
        subject = self._text[key]
        return subject, turtle_block(subject, pairs), _pairs_prefixes(subject, pairs) if prefixes else None

    def document_block(self, doc_id: str) -> tuple[str, str, frozenset]:
        """``(subject, text, prefixes)`` of the Turtle block of a document named by some entity."""
        from .write import turtle_block, quote_string

        from .rdf import document_metadata

        P = self._p
        self._used.update((self._doc_cls, P["label"]))
        subject = self.doc_iri(doc_id)
        pairs = {(P["type"], self._doc_cls), (P["label"], quote_string(doc_id))}
        document = self.documents.get(doc_id)
        if document is not None:
            term = self.terms.term
            pairs.update((term(p), term(o)) for p, o in document_metadata(document))
        return subject, turtle_block(subject, pairs), _pairs_prefixes(subject, pairs)

    def _iri_term(self, iri: str) -> str:
        return "a" if iri == "http://www.w3.org/1999/02/22-rdf-syntax-ns#type" else self.terms.iri(iri)

    def render(self, doc_id: str, facts: tuple, memo: RenderMemo | None = None) -> RenderMemo | None:
        """Render one document's evidence blocks and merge records.

        ``memo`` is what this returned for the same facts in an earlier build: when the entities and support
        counts the document's output depends on are still the same, its blocks are reused as they are. Returns
        the new memo to store, or None when ``memo`` was reused.
        """
        from .rdf import confidence_literal, evidence_iri, literal
        from .write import turtle_block, quote_string

        evs, ms, rs = facts
        entity_of = self.entity_of
        # what the output depends on besides the facts: each mention's entity, each relation's support
        occurrences = [entity_of(m) for m in ms]
        supports = []
        for s, p, o, *_ in rs:
            ks, ko = entity_of(s), entity_of(o)
            occurrences += (ks, ko)
            supports.append(self.relations.get((ks[1], p, ko[1]), 0))
        sig = (render_fingerprint(), tuple(occurrences), tuple(supports))
        if isinstance(memo, RenderMemo) and memo.sig == sig:
            for b in memo.blocks:
                self.blocks.add(b, len(b[1]) + len(b[0]) + 150)
            for r in memo.records:
                self.records.add(r, len(r[1][3]) + len(r[1][4]) + 400)  # about what the tuples take
            self.evidence_records += memo.evidence_records
            self.terms.used.update(memo.prefixes)
            return None

        P, term = self._p, self.terms.term
        seen: dict[tuple, None] = {}
        occurrence = iter(occurrences)

        def entity(m: tuple) -> str:
            cls, text, a, b, _, can, aliases = m
            name = can or text
            glabel, key = next(occurrence)
            rec = (self.iri[key], (doc_id, a, b, text, clean(name), merge_rule(name, aliases, glabel)))
            if rec not in seen:
                seen[rec] = None
            return key

        for m in ms:
            entity(m)
        nodes: dict[str, set] = {}
        records: set[tuple] = set()  # what rdf.triples counts: (relation, sentence, rule, confidence)
        doc = self.doc_iri(doc_id)
        for s, p, o, e, rule, conf in rs:
            ks, ko = entity(s), entity(o)
            if ks == ko:
                continue
            sentence, a, b = evs[e]
            node = str(evidence_iri(ks, local_name(p), ko, doc_id, a, b))
            pairs = nodes.get(node)
            if pairs is None:
                pairs = nodes[node] = {
                    (P["type"], self._evidence_cls), (P["subject"], self._text[ks]), (P["predicate"], self._iri_term(p)),
                    (P["object"], self._text[ko]), (P["source"], doc), (P["sentence"], quote_string(sentence)),
                    (P["startChar"], term(literal(a))), (P["endChar"], term(literal(b))),
                    (P["supportCount"], term(literal(self.relations[(ks, p, ko)])))}
            records.add((ks, p, ko, a, b, rule, conf))
            pairs.add((P["rule"], term(literal(rule))))
            pairs.add((P["confidence"], term(confidence_literal(conf))))
        blocks = []
        texts: set[str] = set()
        for node, pairs in nodes.items():
            subject = self.terms.render_iri(node)  # not remembered: each evidence node is written once
            blocks.append((subject, turtle_block(subject, pairs)))
            texts.add(subject)
            for p_, o_ in pairs:
                texts.add(p_)
                texts.add(o_)
        prefixes = frozenset(_prefixes(texts))
        new = RenderMemo(sig=sig, blocks=blocks, records=list(seen), evidence_records=len(records), prefixes=prefixes)
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
        """merges.json, in chunks (``rdf.merges_json``), from the sorted merge records."""
        by_iri = {iri: key for key, iri in self.iri.items()}

        def sections():
            current, mentions = None, []
            for iri, record in self.records:
                if iri != current:
                    if current is not None:
                        yield current, *self.entities[by_iri[current]][:2], mentions
                    current, mentions = iri, []
                mentions.append(record)
            if current is not None:
                yield current, *self.entities[by_iri[current]][:2], mentions

        return merges_json(sections())
