"""Resolution in, rdflib Graph out: the only module that mints resource IRIs and adds triples."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Iterator
from json.encoder import encode_basestring as _js
from functools import lru_cache
from datetime import date, datetime
from urllib.parse import quote, urlsplit

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF, RDFS, SKOS, XSD

from .model import Document, Resolution
from .vocab import DCTERMS, MLKG, RES, SCHEMA, bind_prefixes, local_name
from .write import json_bytes

__all__ = ["to_graph", "triples", "document_metadata", "entity_iri", "entity_iri_text", "document_iri", "document_iri_text", "evidence_iri",
           "literal", "confidence_literal", "slug", "merge_log", "merges_json", "resolution_merges", "merges_frame",
           "merge_section"]


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
    """The triples of the knowledge graph one by one (some more than once), without holding a Graph."""
    for e in resolution.entities:
        iri = entity_iri(e.key)
        yield (iri, RDF.type, e.cls)
        yield (iri, RDFS.label, Literal(e.label))
        for alt in sorted(e.alt_labels):
            yield (iri, SKOS.altLabel, Literal(alt))
        for d in e.doc_ids:
            doc = document_iri(d)
            yield (iri, MLKG.mentionedIn, doc)
            yield (doc, RDF.type, MLKG.Document)
            yield (doc, RDFS.label, Literal(d))
    for d, document in sorted(resolution.documents.items()):
        doc = document_iri(d)
        for p, o in document_metadata(document):
            yield (doc, p, o)
    for r in resolution.relations:
        s, o = entity_iri(r.subject), entity_iri(r.object)
        yield (s, r.predicate, o)
        support = len({ev.doc_id for ev, _, _ in r.evidence})
        for ev, rule, conf in r.evidence:
            node = evidence_iri(r.subject, local_name(r.predicate), r.object, ev.doc_id, ev.start_char, ev.end_char)
            yield (node, RDF.type, MLKG.Evidence)
            yield (node, RDF.subject, s)
            yield (node, RDF.predicate, r.predicate)
            yield (node, RDF.object, o)
            yield (node, MLKG.source, document_iri(ev.doc_id))
            yield (node, MLKG.sentence, Literal(ev.sentence))
            yield (node, MLKG.startChar, literal(ev.start_char))
            yield (node, MLKG.endChar, literal(ev.end_char))
            yield (node, MLKG.rule, literal(rule))
            yield (node, MLKG.confidence, confidence_literal(conf))
            yield (node, MLKG.supportCount, literal(support))


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
