"""The graph in other RDF syntaxes, deterministically and exactly: sorted N-Triples, JSON-LD with its context
embedded, and TriG with one named graph per source document.

N-Triples and TriG are written with the same term escaping as graph.ttl (``write.quote_string`` and
``write.quote_iri``): every control character and line separator inside a literal or IRI is a ``\\u`` escape, so
each N-Triples statement is exactly one line and no text a document holds can end a line or a statement early.
Each function returns bytes; ``build`` writes them with ``write.write_outputs`` beside graph.ttl.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS, SKOS, XSD

from .vocab import DCTERMS, MLKG, PREFIXES, RELATIONS, SCHEMA, bind_prefixes
from .write import quote_iri, quote_string, turtle_bytes

__all__ = ["CONTEXT_FILE", "ntriples_bytes", "jsonld_context", "context_bytes", "jsonld_bytes", "by_document",
           "trig_bytes", "format_files"]

CONTEXT_FILE = "context.jsonld"
"""The JSON-LD context on its own (the same one graph.jsonld embeds), for compacting other data with its terms."""


def format_files(fmt: str) -> tuple[str, ...]:
    """The files one format writes.

    Examples
    --------
    >>> format_files("jsonld")
    ('graph.jsonld', 'context.jsonld')
    """
    return {"ttl": ("graph.ttl",), "nt": ("graph.nt",), "jsonld": ("graph.jsonld", CONTEXT_FILE),
            "trig": ("graph.trig",)}[fmt]


def _nt_term(t, memo: dict) -> str:
    out = memo.get(t)
    if out is not None:
        return out
    if isinstance(t, URIRef):
        out = quote_iri(str(t))
    elif isinstance(t, Literal):
        out = quote_string(str(t))
        if t.language:
            out += "@" + t.language
        elif t.datatype is not None and t.datatype != XSD.string:
            out += "^^" + quote_iri(str(t.datatype))
    else:
        raise ValueError(f"blank node {t!r}: mlkg graphs name every node")
    memo[t] = out
    return out


def ntriples_bytes(graph) -> bytes:
    """N-Triples, one statement a line, lines sorted: byte-identical for equal graphs.

    Examples
    --------
    >>> g = Graph(); _ = g.add((URIRef("http://e.org/s"), URIRef("http://e.org/p"), Literal("a\\u2028b")))
    >>> ntriples_bytes(g)
    b'<http://e.org/s> <http://e.org/p> "a\\\\u2028b" .\\n'
    """
    memo: dict = {}
    lines = {f"{_nt_term(s, memo)} {_nt_term(p, memo)} {_nt_term(o, memo)} .\n" for s, p, o in graph}
    return "".join(sorted(lines)).encode("utf-8")


# JSON-LD -------------------------------------------------------------------------------------------------------

_ALIASES = {"id": "@id", "type": "@type"}
_COMMON_TERMS = {"label": RDFS.label, "altLabel": SKOS.altLabel, "subject": RDF.subject, "predicate": RDF.predicate,
                 "object": RDF.object, "title": DCTERMS.title, "format": DCTERMS.format, "date": DCTERMS.date,
                 "creator": DCTERMS.creator, "description": DCTERMS.description, "url": SCHEMA.url}
"""Terms for the standard properties mlkg graphs use (a document's metadata among them), beside one term per
``vocab.MLKG`` name."""
_CANONICAL_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")


def _coercion(iri: URIRef, ontology: Graph) -> str | None:
    """The value type a term declares: ``@id`` for an object property, the range of a datatype property (not
    xsd:string, a JSON string already, nor xsd:integer, written as a JSON number), else none."""
    if (iri, RDF.type, OWL.ObjectProperty) in ontology or iri in (RDF.subject, RDF.predicate, RDF.object):
        return "@id"
    rng = ontology.value(iri, RDFS.range)
    if (iri, RDF.type, OWL.DatatypeProperty) in ontology and rng is not None and rng not in (XSD.string, XSD.integer):
        return str(rng)
    return None


@lru_cache(maxsize=1)
def _terms() -> tuple[tuple[str, str, str | None], ...]:
    """(term, IRI, coercion) for every term of the context: the vocabulary's names, then the common ones."""
    from .infer import ontology_graph

    ontology = ontology_graph()
    named = [(name, MLKG[name]) for name in MLKG.__annotations__] + list(_COMMON_TERMS.items())
    return tuple((name, str(iri), _coercion(iri, ontology)) for name, iri in named)


def _prefixed(iri: str) -> str:
    for prefix, ns in sorted(PREFIXES.items(), key=lambda kv: -len(str(kv[1]))):
        rest = iri[len(str(ns)):]
        if iri.startswith(str(ns)) and rest and not rest.startswith("//"):
            return f"{prefix}:{rest}"
    return iri


def jsonld_context() -> dict:
    """The JSON-LD context: ``id`` and ``type`` for ``@id`` and ``@type``, one JSON-friendly term per name of the
    vocabulary (``Paper``, ``presentedAt``, ``sentence``...) and per common property (``label``, ``altLabel``...),
    typed from the ontology, and the project's prefixes for every other IRI."""
    context: dict = dict(_ALIASES)
    context.update({prefix: str(ns) for prefix, ns in sorted(PREFIXES.items())})
    for name, iri, coerce in _terms():
        context[name] = _prefixed(iri) if coerce is None else {
            "@id": _prefixed(iri), "@type": coerce if coerce == "@id" else _prefixed(coerce)}
    return context


def context_bytes() -> bytes:
    """The context alone (``context.jsonld``), the same one ``graph.jsonld`` embeds."""
    return (json.dumps({"@context": jsonld_context()}, indent=2, sort_keys=True) + "\n").encode("utf-8")


class _JsonLd:
    """Graph terms to compacted JSON-LD values under :func:`jsonld_context`."""

    def __init__(self) -> None:
        self.term_of = {iri: name for name, iri, _ in _terms()}
        self.coerce = {name: coerce for name, _, coerce in _terms()}

    def key(self, p: URIRef) -> str:
        return self.term_of.get(str(p)) or _prefixed(str(p))

    def type_name(self, o: URIRef) -> str:
        return self.term_of.get(str(o)) or _prefixed(str(o))

    def value(self, key: str, o):
        coerce = self.coerce.get(key)
        if isinstance(o, URIRef):
            return _prefixed(str(o)) if coerce == "@id" else {"id": _prefixed(str(o))}
        if not isinstance(o, Literal):
            raise ValueError(f"blank node {o!r}: mlkg graphs name every node")
        lex = str(o)
        if o.language:
            return {"@value": lex, "@language": o.language}
        dt = None if o.datatype in (None, XSD.string) else str(o.datatype)
        if dt == coerce or (dt is None and coerce is None):
            return lex
        if dt == str(XSD.integer) and coerce is None and _CANONICAL_INT.fullmatch(lex):
            return int(lex)
        return {"@value": lex} if dt is None else {"@value": lex, "@type": _prefixed(dt)}


def _sort_key(value) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def jsonld_bytes(graph) -> bytes:
    """Compacted JSON-LD with its context embedded: one object per subject (sorted by ``id``), ``type`` and the
    context's terms as keys, a single value as itself and several as a sorted list; equal graphs give equal bytes.

    Examples
    --------
    >>> g = Graph(); _ = g.add((URIRef("https://w3id.org/mlkg/resource/paper/p"), RDF.type, MLKG.Paper))
    >>> json.loads(jsonld_bytes(g))["@graph"]
    [{'id': 'res:paper/p', 'type': 'Paper'}]
    """
    js = _JsonLd()
    nodes: dict[str, dict[str, list]] = {}
    for s, p, o in graph:
        if not isinstance(s, URIRef):
            raise ValueError(f"blank node {s!r}: mlkg graphs name every node")
        node = nodes.setdefault(str(s), {})
        if p == RDF.type and isinstance(o, URIRef):
            node.setdefault("type", []).append(js.type_name(o))
        else:
            key = js.key(p)
            node.setdefault(key, []).append(js.value(key, o))
    out = []
    for s in sorted(nodes):
        obj: dict = {"id": _prefixed(s)}
        for key, values in nodes[s].items():
            values = sorted(values, key=_sort_key)
            obj[key] = values[0] if len(values) == 1 else values
        out.append(obj)
    doc = {"@context": jsonld_context(), "@graph": out}
    return (json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


# TriG ----------------------------------------------------------------------------------------------------------

def by_document(graph: Graph) -> tuple[Graph, dict[URIRef, Graph]]:
    """Split ``graph`` into a default graph and one graph per source document; their union is ``graph``.

    A document's graph holds what that document supports: the document's own description, each
    ``mlkg:mentionedIn`` link to it, its evidence records and the relations they support (a relation read
    from two documents is in both). The default graph holds the rest: the merged description of each
    entity (class, canonical label, other names), which no single document owns.
    """
    default = bind_prefixes(Graph())
    named: dict[URIRef, Graph] = {}

    def into(doc) -> Graph:
        if doc not in named:
            named[doc] = bind_prefixes(Graph(identifier=doc))
        return named[doc]

    placed = set()
    for doc in graph.subjects(RDF.type, MLKG.Document):
        for t in graph.triples((doc, None, None)):
            into(doc).add(t)
            placed.add(t)
    for t in graph.triples((None, MLKG.mentionedIn, None)):
        into(t[2]).add(t)
        placed.add(t)
    for ev in graph.subjects(RDF.type, MLKG.Evidence):
        doc = graph.value(ev, MLKG.source)
        if doc is None:
            continue
        target = into(doc)
        for t in graph.triples((ev, None, None)):
            target.add(t)
            placed.add(t)
        s, p, o = graph.value(ev, RDF.subject), graph.value(ev, RDF.predicate), graph.value(ev, RDF.object)
        if p in RELATIONS and (s, p, o) in graph:
            target.add((s, p, o))
            placed.add((s, p, o))
    for t in graph:
        if t not in placed:
            default.add(t)
    return default, named


def _turtle_parts(graph: Graph) -> tuple[list[str], str]:
    """The ``@prefix`` lines and the statements of ``graph`` as ``write.turtle_bytes`` writes it. Every literal
    and IRI there is on one line (all line breaks are escaped), so splitting at ``\\n`` is exact."""
    text = turtle_bytes(graph).decode("utf-8")
    if not text.startswith("@prefix "):
        return [], text
    head, _, body = text.partition("\n\n")
    return head.split("\n"), body


def trig_bytes(graph: Graph) -> bytes:
    """TriG: the default graph, then one named graph per source document (named by the document's IRI), in IRI
    order, each written by the project's Turtle writer: byte-identical for equal graphs."""
    default, named = by_document(graph)
    prefixes: set[str] = set()
    blocks: list[str] = []
    if len(default):
        head, body = _turtle_parts(default)
        prefixes.update(head)
        blocks.append(body.rstrip("\n"))
    for doc in sorted(named):
        head, body = _turtle_parts(named[doc])
        prefixes.update(head)
        inner = "\n".join(("    " + line) if line else "" for line in body.rstrip("\n").split("\n"))
        blocks.append(f"{quote_iri(str(doc))} {{\n{inner}\n}}")
    return ("\n".join(sorted(prefixes)) + "\n\n" + "\n\n".join(blocks) + "\n").encode("utf-8")
