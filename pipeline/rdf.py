"""Resolution in, rdflib Graph out: the only module that mints resource IRIs and says which triples a subject has.

A subject's triples are a block: an entity's (:func:`entity_pairs`, with its relations), a document's
(:func:`document_pairs`) and an evidence node's (:func:`evidence_pairs`, :func:`record_pairs`). Each block is
defined once, over a kit of terms: rdflib terms (:class:`GraphTerms`, for :func:`triples` and the Graph) or
Turtle text (:class:`TurtleTerms`, for :class:`GraphBlocks`, which renders a large build's blocks document by
document from a name table). Whether the blocks are sorted in memory or in runs on disk (``stream.py``) is the
only difference between the ways graph.ttl is written.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from functools import lru_cache
from itertools import chain
from json.encoder import encode_basestring as _js
from pathlib import Path
from types import MappingProxyType
from urllib.parse import quote, urlsplit

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF, RDFS, SKOS, XSD

from .model import Document, Resolution
from .names import clean
from .resolve import NameTable, merge_rule
from .vocab import DCTERMS, MLKG, RES, SCHEMA, bind_prefixes, local_name
from .write import Terms, json_bytes, quote_string, turtle_block

__all__ = ["to_graph", "triples", "document_metadata", "entity_iri", "entity_iri_text", "document_iri", "document_iri_text", "evidence_iri",
           "literal", "confidence_literal", "slug", "merge_log", "merges_json", "resolution_merges", "merges_frame",
           "merge_section", "GraphTerms", "GRAPH_TERMS", "TurtleTerms", "entity_pairs", "document_pairs",
           "evidence_pairs", "keep_best_record", "record_pairs", "block_prefixes", "Block", "RenderMemo", "render_fingerprint",
           "GraphBlocks"]


def slug(text: str, limit: int = 80) -> str:
    """An IRI-safe slug: ASCII letters and digits joined by hyphens, with a hash when anything was lost.

    Examples
    --------
    >>> slug("ICLR 2025")
    'iclr-2025'
    >>> slug("Ωmega <script>")[:6]
    'mega-s'
    """
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    s = re.sub(r"[^A-Za-z0-9]+", "-", ascii_text).strip("-").lower()
    lossless = s.replace("-", "") == re.sub(r"[^a-z0-9]", "", text.casefold()) and ascii_text == text
    if len(s) > limit or not lossless or not s:
        digest = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:10]
        s = f"{s[:limit].strip('-')}-{digest}".strip("-")
    return s


@lru_cache(maxsize=1 << 18)  # every relation and evidence record names its entities again
def entity_iri(key: str) -> URIRef:
    """The IRI of an entity from its key (class and normalised label): stable across runs and corpora.

    Examples
    --------
    >>> entity_iri("Venue/iclr2025")
    rdflib.term.URIRef('https://w3id.org/mlkg/resource/venue/iclr2025')
    """
    return URIRef(entity_iri_text(key))


def entity_iri_text(key: str) -> str:
    """``str(entity_iri(key))``, without making a URIRef."""
    cls, name = key.split("/", 1)
    return f"{RES}{cls.lower()}/{slug(name)}"


def document_iri(doc_id: str) -> URIRef:
    """The IRI of a source document from its id (its path relative to the input folder)."""
    return URIRef(document_iri_text(doc_id))


def document_iri_text(doc_id: str) -> str:
    """``str(document_iri(doc_id))``, without making a URIRef."""
    return f"{RES}document/" + quote(doc_id.encode("utf-8", "surrogatepass"), safe="")


def evidence_iri(s: str, p: str, o: str, doc_id: str, start: int, end: int) -> URIRef:
    """The IRI of the evidence record of relation ``(s, p, o)`` (keys and predicate local name) in a sentence."""
    digest = hashlib.sha1(f"{s}|{p}|{o}|{doc_id}|{start}|{end}".encode()).hexdigest()[:16]
    return RES[f"evidence/{digest}"]


def to_graph(resolution: Resolution) -> Graph:
    """Build the knowledge graph: entities with labels and documents, relations, and their evidence."""
    g = bind_prefixes(Graph())
    for t in triples(resolution):
        g.add(t)
    return g


@lru_cache(maxsize=1 << 16, typed=True)
def literal(value) -> Literal:
    """Literals of offsets, counts and rule names recur: make each once (Literal() is slow)."""
    return Literal(value)


@lru_cache(maxsize=1024)
def confidence_literal(conf: float) -> Literal:
    """A confidence as an ``xsd:decimal`` of two places."""
    return Literal(f"{conf:.2f}", datatype=XSD.decimal)


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?")
_IRI_BAD = re.compile(r'[\x00-\x20<>"{}|\\^`]')


def date_literal(value: str) -> Literal:
    """An ISO 8601 date as ``xsd:date`` or ``xsd:dateTime`` when it is one (as written); else a plain literal."""
    try:
        if _DATE.fullmatch(value):
            date.fromisoformat(value)
            return Literal(value, datatype=XSD.date, normalize=False)
        if _DATETIME.fullmatch(value):
            datetime.fromisoformat(value.replace("Z", "+00:00"))
            return Literal(value, datatype=XSD.dateTime, normalize=False)
    except ValueError:
        pass
    return Literal(value)


def web_iri(value: str) -> URIRef | None:
    """``value`` as an IRI when it is an absolute ``http(s)`` IRI, else None."""
    if _IRI_BAD.search(value):
        return None
    try:
        parts = urlsplit(value)
    except ValueError:
        return None
    return URIRef(value) if parts.scheme.lower() in ("http", "https") and parts.netloc else None


def document_metadata(document: Document) -> list[tuple]:
    """The ``(predicate, object)`` of what is known of a document (DCTERMS and schema.org terms): the one
    definition both the plain writer (:func:`triples`) and the streaming one (``stream.py``) render."""
    out: list[tuple] = []
    if document.title:
        out.append((DCTERMS.title, Literal(document.title)))
    if document.format:
        out.append((DCTERMS.format, Literal(document.format)))
    if document.date:
        out.append((DCTERMS.date, date_literal(document.date)))
    out.extend((DCTERMS.creator, Literal(a)) for a in dict.fromkeys(x.strip() for x in document.author.split(";")) if a)
    if document.description:
        out.append((DCTERMS.description, Literal(document.description)))
    url = web_iri(document.url) if document.url else None
    if url is not None:
        out.append((SCHEMA.url, url))
    return out


def triples(resolution: Resolution) -> Iterator[tuple]:
    """The triples of the knowledge graph block by block (each once), without holding a Graph: the blocks of
    :func:`entity_pairs`, :func:`document_pairs` and :func:`evidence_pairs` in rdflib terms."""
    T = GRAPH_TERMS
    out: dict[str, list] = {}
    for r in resolution.relations:
        out.setdefault(r.subject, []).append((r.predicate, entity_iri(r.object)))
    named: set[str] = set()
    for e in resolution.entities:
        iri = entity_iri(e.key)
        named.update(e.doc_ids)
        for p, o in entity_pairs(T, (e.cls, e.label, e.alt_labels, e.doc_ids), out.get(e.key, ())):
            yield (iri, p, o)
    for d in sorted(named):
        doc = document_iri(d)
        for p, o in document_pairs(T, d, resolution.documents.get(d)):
            yield (doc, p, o)
    for r in resolution.relations:
        support = len({ev.doc_id for ev, _, _ in r.evidence})
        nodes: dict[URIRef, set] = {}
        best: dict[URIRef, tuple] = {}
        for ev, rule, conf in r.evidence:
            node = evidence_iri(r.subject, local_name(r.predicate), r.object, ev.doc_id, ev.start_char, ev.end_char)
            if node not in nodes:
                nodes[node] = evidence_pairs(T, (r.subject, r.predicate, r.object), ev.doc_id,
                                             (ev.sentence, ev.start_char, ev.end_char), support)
            keep_best_record(best, node, rule, conf)
        for node, pairs in nodes.items():
            pairs.update(record_pairs(T, *best[node]))
            for p, o in pairs:
                yield (node, p, o)


# ---------------------------------------------------------------------------------------------------------------
# blocks: the one definition of which triples a subject has, in rdflib terms or in Turtle text

class GraphTerms:
    """The terms of a block as rdflib terms (for :func:`triples`, an rdflib Graph)."""

    a, label, alt, mentioned_in = RDF.type, RDFS.label, SKOS.altLabel, MLKG.mentionedIn
    subject, predicate, object, source, sentence = RDF.subject, RDF.predicate, RDF.object, MLKG.source, MLKG.sentence
    start_char, end_char, rule, confidence = MLKG.startChar, MLKG.endChar, MLKG.rule, MLKG.confidence
    support_count, evidence_cls, document_cls = MLKG.supportCount, MLKG.Evidence, MLKG.Document
    iri = staticmethod(URIRef)
    """A class or property IRI."""
    entity = staticmethod(entity_iri)
    """An entity, from its key."""
    document = staticmethod(document_iri)
    """A document, from its id."""
    string = staticmethod(Literal)
    number = staticmethod(literal)
    decimal = staticmethod(confidence_literal)
    metadata = staticmethod(document_metadata)


GRAPH_TERMS = GraphTerms()


def entity_pairs(T, entity: tuple, out: Iterable[tuple]) -> set[tuple]:
    """The ``(predicate, object)`` of an entity ``(class, label, alt labels, document ids)``; ``out``: the
    ``(predicate, object)`` of its relations, already in ``T``'s terms."""
    cls, label, alts, doc_ids = entity
    pairs = {(T.a, T.iri(cls)), (T.label, T.string(label))}
    pairs.update((T.alt, T.string(a)) for a in alts)
    pairs.update((T.mentioned_in, T.document(d)) for d in doc_ids)
    pairs.update(out)
    return pairs


def document_pairs(T, doc_id: str, document: Document | None) -> set[tuple]:
    """The ``(predicate, object)`` of the node of a document (named by some entity): its id and metadata."""
    pairs = {(T.a, T.document_cls), (T.label, T.string(doc_id))}
    if document is not None:
        pairs.update(T.metadata(document))
    return pairs


def evidence_pairs(T, relation: tuple, doc_id: str, sentence: tuple, support: int) -> set[tuple]:
    """The ``(predicate, object)`` of the evidence node of ``relation`` (subject key, predicate, object key) in
    ``sentence`` (text, start, end) of ``doc_id``, but its rules and confidences (:func:`record_pairs`)."""
    s, p, o = relation
    text, a, b = sentence
    return {(T.a, T.evidence_cls), (T.subject, T.entity(s)), (T.predicate, T.iri(p)), (T.object, T.entity(o)),
            (T.source, T.document(doc_id)), (T.sentence, T.string(text)), (T.start_char, T.number(a)),
            (T.end_char, T.number(b)), (T.support_count, T.number(support))}


def keep_best_record(best: dict, node, rule: str, conf: float) -> None:
    """Keep one extraction record per evidence node in ``best`` (node -> ``(rule, confidence)``): two extractions
    of one relation in one sentence (its ends named two ways, then merged into one entity) give the more confident
    record, then the rule first in order."""
    old = best.get(node)
    if old is None or conf > old[1] or (conf == old[1] and rule < old[0]):
        best[node] = (rule, conf)


def record_pairs(T, rule: str, conf: float) -> tuple[tuple, tuple]:
    """What one extraction of a relation in a sentence adds to its evidence node: its rule and confidence."""
    return (T.rule, T.number(rule)), (T.confidence, T.decimal(conf))


def merge_log(resolution: Resolution) -> dict:
    """The merge log as JSON-ready data, keyed by entity IRI: each mention merged into the entity and the
    rule that put it there (``model.MERGE_RULES``), so a wrong merge can be traced to its text.

    Examples
    --------
    >>> merge_log(Resolution(entities=(), relations=()))["entities"]
    {}
    """
    from .model import MERGE_RULES

    return {
        "rules": dict(MERGE_RULES),
        "entities": {
            str(entity_iri(e.key)): {
                "label": e.label,
                "class": local_name(e.cls),
                "mentions": [{"document": r.doc_id, "start": r.start_char, "end": r.end_char, "text": r.text,
                              "read_as": r.name, "rule": r.rule} for r in e.merge_log],
            }
            for e in resolution.entities
        },
    }


def merges_json(sections: Iterable[tuple]) -> Iterator[bytes]:
    """merges.json in chunks: the bytes of ``write.json_bytes(merge_log(resolution))``, from each entity's
    ``(IRI, class IRI, label, mentions)`` in order of IRI, its mentions ``(document, start, end, text, read as,
    rule)`` in order. The one writer of merges.json (a full build, a streamed one, a patched one's sections).

    >>> b"".join(merges_json([])) == json_bytes(merge_log(Resolution(entities=(), relations=())))
    True
    """
    before, after = merges_frame()
    buf: list[str] = []
    size = 0
    for iri, cls, label, mentions in sections:
        buf.append((",\n" if buf else before + "{\n") + merge_section(iri, local_name(cls), label, mentions))
        size += len(mentions)
        if size > 4096:
            yield "".join(buf).encode("utf-8")
            buf, size = [""], 0  # a non-empty list: what follows is not the first section
    if not buf:
        yield (before + "{}" + after).encode("utf-8")
        return
    buf.append("\n  }" + after)
    yield "".join(buf).encode("utf-8")


def resolution_merges(resolution: Resolution) -> Iterator[bytes]:
    """merges.json of a Resolution (:func:`merges_json`)."""
    return merges_json(sorted(
        (entity_iri_text(e.key), e.cls, e.label, [(r.doc_id, r.start_char, r.end_char, r.text, r.name, r.rule)
                                                  for r in e.merge_log]) for e in resolution.entities))


def merges_frame() -> tuple[str, str]:
    """merges.json around its entities: ``before + "{" ... "}" + after``."""
    from .model import MERGE_RULES

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


# ---------------------------------------------------------------------------------------------------------------
# the blocks as Turtle text, rendered from a name table (a large build and a patched one)

class TurtleTerms:
    """The terms of a block as Turtle text (as ``write.turtle_bytes`` writes them), entities by their key."""

    def __init__(self, iri_of: Mapping[str, str]) -> None:
        from .vocab import PREFIXES

        self.terms = Terms({k: str(v) for k, v in PREFIXES.items()})
        fixed = GRAPH_TERMS
        for name in ("label", "alt", "mentioned_in", "subject", "predicate", "object", "source", "sentence",
                     "start_char", "end_char", "rule", "confidence", "support_count", "evidence_cls",
                     "document_cls"):
            # rendered by a scratch Terms: a prefix is marked used by the blocks that write it (block_prefixes)
            setattr(self, name, Terms(dict(self.terms.prefixes)).term(getattr(fixed, name)))
        self.a = "a"
        self.string = quote_string
        self._iri_of = iri_of
        self._entities: dict[str, str] = {}
        self._documents: dict[str, str] = {}
        self._numbers: dict[int, str] = {}
        self._decimals: dict = {}

    def iri(self, iri: str) -> str:
        return "a" if iri == _RDF_TYPE else self.terms.iri(iri)

    def entity(self, key: str) -> str:
        out = self._entities.get(key)
        if out is None:
            out = self._entities[key] = self.terms.iri(self._iri_of[key])
        return out

    def document(self, doc_id: str) -> str:
        out = self._documents.get(doc_id)
        if out is None:
            out = self._documents[doc_id] = self.terms.render_iri(document_iri_text(doc_id))
        return out

    def number(self, value) -> str:
        if type(value) is not int:  # (True would find 1's text)
            return self.terms.term(literal(value))
        out = self._numbers.get(value)  # offsets and counts recur: each rendered once (an rdflib Literal is slow)
        if out is None:
            out = self._numbers[value] = self.terms.term(literal(value))
        return out

    def decimal(self, conf: float) -> str:
        key = conf.hex() if type(conf) is float else conf  # (exact: -0.0 is not 0.0)
        out = self._decimals.get(key)
        if out is None:
            out = self._decimals[key] = self.terms.term(confidence_literal(conf))
        return out

    def metadata(self, document: Document) -> list[tuple]:
        term = self.terms.term
        return [(term(p), term(o)) for p, o in document_metadata(document)]


_RDF_TYPE = str(RDF.type)


def _prefix(t: str) -> str:
    """The prefix the Turtle text of a term uses (``mlkg:x``, ``"1.5"^^xsd:decimal``), or "" (``<...>``, ``a``,
    a plain string)."""
    if t.startswith('"'):
        i = t.rfind('"')  # the closing quote: a quote inside the text is escaped, a datatype has none
        if not t.startswith("^^", i + 1):
            return ""
        t = t[i + 3:]
    if t.startswith("<") or t == "a":
        return ""
    k = t.find(":")
    return t[:k] if k > 0 else ""


_PREFIX_OF: dict[str, str] = {}
""":func:`_prefix` of the terms met so far but plain strings: predicates, classes, entities and numbers recur
in every block; a sentence is written once (and uses no prefix)."""


def _prefixes(texts: Iterable[str]) -> set[str]:
    """The prefixes the Turtle texts of terms use (:func:`_prefix`)."""
    out = set()
    known = _PREFIX_OF
    for t in texts:
        p = known.get(t)
        if p is None:
            if t.endswith('"'):  # a plain string
                continue
            p = known[t] = _prefix(t)
        if p:
            out.add(p)
    return out


_PREFIX_SETS: dict[frozenset, frozenset] = {}


def block_prefixes(subject: str, pairs: Iterable[tuple]) -> frozenset:
    """The prefixes of a block's terms (interned: most blocks share a few sets)."""
    found = frozenset(_prefixes(chain((subject,), chain.from_iterable(pairs))))
    return _PREFIX_SETS.setdefault(found, found)


@dataclass(frozen=True, slots=True)
class Block:
    """The Turtle of one subject."""

    subject: str
    """The subject's Turtle text (blocks are sorted by it)."""
    text: str
    """The block, ending in " .\\n"."""
    prefixes: frozenset
    """The prefixes its terms use."""


_FINGERPRINT: list[str] = []


def render_fingerprint() -> str:
    """A digest of the code that renders a document's blocks: a memo from other code is not reused."""
    if not _FINGERPRINT:
        h = hashlib.sha256()
        root = Path(__file__).parent
        for name in ("stream.py", "write.py", "rdf.py", "vocab.py", "resolve.py", "names.py", "resolution.json", "facts.py",
                     "model.py"):
            h.update(name.encode() + b"\0" + (root / name).read_bytes() + b"\0")
        _FINGERPRINT.append(h.hexdigest()[:16])
    return _FINGERPRINT[0]


@dataclass(frozen=True, slots=True)
class RenderMemo:
    """What :meth:`GraphBlocks.render` made of a document, kept in its cache entry for the next build."""

    sig: tuple
    """What it depended on: the rendering code, each mention's entity, each relation's support count."""
    blocks: list
    """``(subject, Turtle text)`` of each evidence block."""
    records: list
    """``(entity IRI, merge record)`` of each mention."""
    evidence_triples: int
    """The triples of its evidence blocks."""
    prefixes: frozenset
    """The prefixes its blocks use."""


class GraphBlocks(NameTable):
    """A :class:`~pipeline.resolve.NameTable` whose graph is rendered as Turtle blocks (entity, document and
    evidence blocks, as :func:`triples` defines them) and merge records, handed to two sorters: sorted runs
    on disk (``stream.py``) or lists in memory (a patched rebuild, ``incremental.py``)."""

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
        """Count the triples of the entity and document blocks; the least count of the whole graph
        (``min_triples``: each relation has an evidence node of 11 triples at least) decides before rendering
        whether the graph is small enough to validate."""
        self._entity_triples = sum(2 + len(alts) + len(docs) for _, _, alts, docs in self.entities.values())
        named = {d for *_, docs in self.entities.values() for d in docs}
        self._entity_triples += sum(2 + (len(document_metadata(self.documents[d])) if d in self.documents else 0)
                                    for d in named)
        self._entity_triples += len(self.relations)
        self.min_triples = self._entity_triples + 11 * len(self.relations)
        self.evidence_triples = 0

    @property
    def triples(self) -> int:
        """How many triples :func:`triples` yields for this graph (after :meth:`render` of every document)."""
        return self._entity_triples + self.evidence_triples

    # summaries ----------------------------------------------------------------------------------------------
    def entities_per_class(self) -> dict[str, int]:
        return dict(sorted(Counter(local_name(e[0]) for e in self.entities.values()).items()))

    def relations_per_property(self) -> dict[str, int]:
        return dict(sorted(Counter(local_name(p) for _, p, _ in self.relations).items()))

    def graph_stats(self) -> dict:
        """``analysis.graph_stats`` of the entity graph (as of ``analysis.resolution_to_networkx``)."""
        from .analysis import entity_stats

        return entity_stats(((self.iri[k], e[0], e[1]) for k, e in self.entities.items()),
                            ((self.iri[s], p, self.iri[o]) for s, p, o in self.relations))

    # rendering ----------------------------------------------------------------------------------------------
    def prepare_render(self, blocks, records) -> None:
        """Ready the renderer: Turtle blocks ``(subject, text)`` go to ``blocks``, merge records to ``records``
        (each with ``add(item, size)``: a ``stream.Sorter``, or a collector of an incremental rebuild)."""
        self.T = TurtleTerms(self.iri)
        self.blocks, self.records = blocks, records
        self.prefixes: set[str] = set()  # of every block written (the Turtle header)

    def render_entities(self) -> None:
        """Render every entity block and the block of every document an entity names."""
        out = self.out_pairs()
        docs: set[str] = set()
        keep = self.keep
        self.entity_prefixes: dict[str, frozenset] = {}
        for key, entity in self.entities.items():
            block = self.entity_block(key, out.get(key, ()))
            self.blocks.add((block.subject, block.text), len(block.text))
            docs.update(entity[3])
            if keep:
                self.entity_prefixes[key] = block.prefixes
        self._document_prefixes: dict[str, frozenset] = {}
        for d in docs:
            block = self.document_block(d)
            self.blocks.add((block.subject, block.text), len(block.text))
            self._document_prefixes[d] = block.prefixes

    def out_pairs(self, subjects: set[str] | None = None) -> dict[str, list]:
        """The ``(predicate, object)`` texts of the relations from each entity key (of ``subjects``, or all)."""
        out: dict[str, list] = {}
        T = self.T
        for (s, p, o) in self.relations:
            if subjects is None or s in subjects:
                out.setdefault(s, []).append((T.iri(p), T.entity(o)))
        return out

    def _block(self, subject: str, pairs: set) -> Block:
        prefixes = block_prefixes(subject, pairs)
        self.prefixes |= prefixes
        return Block(subject, turtle_block(subject, pairs), prefixes)

    def entity_block(self, key: str, out: Iterable[tuple]) -> Block:
        """The block of entity ``key``, its relations ``out`` (from :meth:`out_pairs`)."""
        return self._block(self.T.entity(key), entity_pairs(self.T, self.entities[key], out))

    def document_block(self, doc_id: str) -> Block:
        """The block of a document named by some entity."""
        return self._block(self.T.document(doc_id), document_pairs(self.T, doc_id, self.documents.get(doc_id)))

    def document_prefixes(self, doc_id: str) -> frozenset:
        """The prefixes of the block of a document (as rendered by :meth:`render_entities`, or anew)."""
        found = getattr(self, "_document_prefixes", {}).get(doc_id)
        return found if found is not None else self.document_block(doc_id).prefixes

    def render(self, doc_id: str, facts: tuple, memo: RenderMemo | None = None) -> RenderMemo | None:
        """Render one document's evidence blocks and merge records.

        ``memo`` is what this returned for the same facts in an earlier build: when the entities and support
        counts the document's output depends on are still the same, its blocks are reused as they are. Returns
        the new memo to store, or None when ``memo`` was reused.
        """
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
            self._add_memo(memo)
            return None
        seen: dict[tuple, None] = {}
        occurrence = iter(occurrences)

        def entity(m: tuple) -> str:
            cls, text, a, b, _, can, aliases = m
            name = can or text
            glabel, key = next(occurrence)
            seen[(self.iri[key], (doc_id, a, b, text, clean(name), merge_rule(name, aliases, glabel, cls)))] = None
            return key

        for m in ms:
            entity(m)
        T = self.T
        nodes: dict[str, set] = {}
        best: dict[str, tuple] = {}
        for s, p, o, e, rule, conf in rs:
            ks, ko = entity(s), entity(o)
            if ks == ko:
                continue
            sentence, a, b = evs[e]
            node = str(evidence_iri(ks, local_name(p), ko, doc_id, a, b))
            if node not in nodes:
                nodes[node] = evidence_pairs(T, (ks, p, ko), doc_id, evs[e], self.relations[(ks, p, ko)])
            keep_best_record(best, node, rule, conf)
        for node, pairs in nodes.items():
            pairs.update(record_pairs(T, *best[node]))
        blocks = []
        prefixes: set[str] = set()
        for node, pairs in nodes.items():
            subject = T.terms.render_iri(node)  # not remembered: each evidence node is written once
            blocks.append((subject, turtle_block(subject, pairs)))
            prefixes |= block_prefixes(subject, pairs)
        new = RenderMemo(sig=sig, blocks=blocks, records=list(seen),
                         evidence_triples=sum(len(pairs) for pairs in nodes.values()), prefixes=frozenset(prefixes))
        self._add_memo(new)  # added as a reused memo is
        return new

    def _add_memo(self, memo: RenderMemo) -> None:
        """Hand a document's rendered blocks and merge records to the sorters."""
        for b in memo.blocks:
            self.blocks.add(b, len(b[1]) + len(b[0]) + 150)
        for r in memo.records:
            self.records.add(r, len(r[1][3]) + len(r[1][4]) + 400)  # about what the tuples take
        self.evidence_triples += memo.evidence_triples
        self.prefixes |= memo.prefixes

    # writing ------------------------------------------------------------------------------------------------
    def turtle(self) -> Iterator[bytes]:
        """graph.ttl, in chunks, from the sorted blocks: the bytes of ``write.turtle_bytes`` of the same graph."""
        head = self.T.terms.header(self.prefixes)
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
        """merges.json, in chunks (:func:`merges_json`), from the sorted merge records."""
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
