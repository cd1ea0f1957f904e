"""The graph in other RDF syntaxes, deterministically: sorted N-Triples, JSON-LD with a context file, and TriG
with one named graph per source document.

Each function returns bytes; ``build`` writes them with ``write.atomic_write`` beside graph.ttl.
"""

from __future__ import annotations

import json

from rdflib import Graph, URIRef
from rdflib.namespace import RDF

from .vocab import MLKG, PREFIXES, RELATIONS, bind_prefixes

__all__ = ["CONTEXT_FILE", "ntriples_bytes", "context_bytes", "jsonld_bytes", "by_document", "trig_bytes",
           "format_files"]

CONTEXT_FILE = "context.jsonld"


def format_files(fmt: str) -> tuple[str, ...]:
    """The files one format writes.

    Examples
    --------
    >>> format_files("jsonld")
    ('graph.jsonld', 'context.jsonld')
    """
    return {"ttl": ("graph.ttl",), "nt": ("graph.nt",), "jsonld": ("graph.jsonld", CONTEXT_FILE),
            "trig": ("graph.trig",)}[fmt]


def ntriples_bytes(graph: Graph) -> bytes:
    """N-Triples, one statement a line, lines sorted: byte-identical for equal graphs without blank nodes."""
    text = graph.serialize(format="nt", encoding="utf-8").decode("utf-8")
    lines = sorted({line for line in text.splitlines() if line.strip()})
    return ("\n".join(lines) + "\n").encode("utf-8") if lines else b""


def _context() -> dict:
    return {prefix: str(ns) for prefix, ns in sorted(PREFIXES.items())}


def context_bytes() -> bytes:
    """The JSON-LD context document (``context.jsonld``): the project's prefixes."""
    return (json.dumps({"@context": _context()}, indent=2, sort_keys=True) + "\n").encode("utf-8")


def _sort_json(value):
    if isinstance(value, dict):
        return {k: _sort_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return sorted((_sort_json(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    return value


def jsonld_bytes(graph: Graph, context_ref: str = CONTEXT_FILE) -> bytes:
    """Compacted JSON-LD whose ``@context`` is a reference to ``context_ref`` (a file beside it).

    Nodes are sorted by ``@id`` and every list of values is sorted, so equal graphs give equal bytes.
    """
    data = json.loads(graph.serialize(format="json-ld", context=_context(), auto_compact=True))
    nodes = data.get("@graph", [] if data.keys() <= {"@context"} else [{k: v for k, v in data.items() if k != "@context"}])
    doc = {"@context": context_ref, "@graph": _sort_json(nodes)}
    return (json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


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


def trig_bytes(graph: Graph) -> bytes:
    """TriG: the default graph, then one named graph per source document (named by the document's IRI), in IRI
    order, each written by rdflib's sorted Turtle serialiser: byte-identical for equal graphs."""
    default, named = by_document(graph)
    prefixes: set[str] = set()
    blocks: list[str] = []

    def body(g: Graph) -> str:
        lines = []
        for line in g.serialize(format="turtle").splitlines():
            if line.startswith("@prefix"):
                prefixes.add(line)
            else:
                lines.append(line)
        return "\n".join(lines).strip("\n")

    if len(default):
        blocks.append(body(default))
    for doc in sorted(named):
        inner = "\n".join(("    " + line) if line else "" for line in body(named[doc]).splitlines())
        blocks.append(f"<{doc}> {{\n{inner}\n}}")
    head = "\n".join(sorted(prefixes))
    return (head + "\n\n" + "\n\n".join(blocks) + "\n").encode("utf-8")
