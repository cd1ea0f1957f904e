"""Check a graph against ``ontology/shapes.ttl`` with pySHACL, and set aside the statements that violate it.

``validate_graph`` says whether a graph conforms, one readable ``Violation`` (node, shape, message) per result.
``quarantine`` splits a graph into the part that conforms and the statements that do not, so a build never
publishes a violating statement. ``validate_file`` does the same checks on any graph file.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from rdflib import BNode, Dataset, Graph, Literal, URIRef
from rdflib.namespace import RDF, RDFS, SH
from rdflib.util import guess_format

from .config import ONTOLOGY_DIR
from .errors import InputError, MlkgError
from .model import Violation
from .vocab import MLKG, PREFIXES, RELATIONS, bind_prefixes

__all__ = ["SHAPES", "ValidationReport", "shapes_graph", "validate_graph", "quarantine", "validate_file", "load_graph"]

SHAPES = ONTOLOGY_DIR / "shapes.ttl"
_MAX_ROUNDS = 10


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """The outcome of validating one graph."""

    conforms: bool
    """True when no shape is violated."""
    violations: tuple[Violation, ...]
    """One per SHACL result, sorted by node, shape and message."""
    triples: int = 0
    """Size of the graph checked."""


@dataclass(frozen=True, slots=True)
class _Result:
    violation: Violation
    statements: frozenset  # the triples this result blames


@lru_cache(maxsize=4)
def shapes_graph(path: Path = SHAPES) -> Graph:
    """The SHACL shapes graph (parsed once per process)."""
    if not Path(path).is_file():
        raise MlkgError(f"{path}: the SHACL shapes file is missing; mlkg must run from its checkout (ontology/ beside pipeline/)")
    return Graph().parse(str(path), format="turtle")


def _compact(term, *graphs: Graph) -> str:
    """A short readable form of ``term``: ``prefix:local`` where a prefix fits, ``"text"`` for literals."""
    if isinstance(term, Literal):
        text = str(term)
        return repr(text if len(text) <= 60 else text[:57] + "...")
    if isinstance(term, BNode):
        return "[]"
    s = str(term)
    namespaces = {str(ns): p for p, ns in PREFIXES.items()}
    for g in graphs:
        namespaces.update({str(ns): p for p, ns in g.namespaces() if p})
    best = max((ns for ns in namespaces if s.startswith(ns) and len(s) > len(ns)), key=len, default=None)
    return f"{namespaces[best]}:{s[len(best):]}" if best else f"<{s}>"


def _node_triples(graph: Graph, node) -> set:
    return set(graph.triples((node, None, None))) | set(graph.triples((None, None, node)))


def _with_records(data: Graph, blamed: set) -> set:
    """Widen blamed statements to whole evidence records: a record with a bad part, and the records of a bad
    relation, go with it (else the next round would find them incomplete or dangling one by one)."""
    out = set(blamed)
    for s, p, o in blamed:
        if (s, RDF.type, MLKG.Evidence) in data:
            out |= _node_triples(data, s)
        if p in RELATIONS:
            for ev in set(data.subjects(RDF.subject, s)) & set(data.subjects(RDF.predicate, p)) & set(data.subjects(RDF.object, o)):
                out |= _node_triples(data, ev)
    return out


def _results(data: Graph, results: Graph, shapes: Graph) -> list[_Result]:
    out = []
    for r in results.subjects(RDF.type, SH.ValidationResult):
        focus = results.value(r, SH.focusNode)
        path = results.value(r, SH.resultPath)
        value = results.value(r, SH.value)
        shape = results.value(r, SH.sourceShape)
        messages = sorted(str(m) for m in results.objects(r, SH.resultMessage))
        message = messages[0] if messages else "violates the shape"
        inverse = results.value(path, SH.inversePath) if isinstance(path, BNode) else None
        if isinstance(path, URIRef) and value is not None and (focus, path, value) in data:
            blamed = {(focus, path, value)}
        elif inverse is not None and value is not None and (value, inverse, focus) in data:
            blamed = {(value, inverse, focus)}
        else:  # a count, a class of the node itself, a SPARQL check on the node: the whole node goes
            blamed = _node_triples(data, focus)
        blamed = _with_records(data, blamed)
        label = data.value(focus, RDFS.label) if not isinstance(focus, Literal) else None
        node = _compact(focus, data) + (f" ({label})" if label is not None else "")
        shown_value = "" if value is None or value == focus else _compact(value, data)
        if shown_value and path is not None:
            shown_value = (_compact(path, data) if inverse is None else "^" + _compact(inverse, data)) + " " + shown_value
        out.append(_Result(Violation(node=node, shape=_compact(shape, shapes), message=message, value=shown_value),
                           frozenset(blamed)))
    return sorted(out, key=lambda x: (x.violation.node, x.violation.shape, x.violation.message, x.violation.value))


def _run(graph: Graph) -> list[_Result]:
    """Validate with pySHACL over a pyoxigraph copy of ``graph``.

    pySHACL parses each SHACL-SPARQL query again for every focus node when the data graph is an rdflib Graph,
    and rdflib's engine is slow on them: about 4 s for the corpus graph against 0.5-0.8 s with an Oxigraph store
    (``mlkg validate output/graph.ttl`` prints the time; see notes). The results name the same nodes either way.
    """
    import pyoxigraph as ox
    from pyshacl import validate

    shapes = shapes_graph()
    # Oxigraph relabels blank nodes on load, so results could not be traced back to them: a graph with blank
    # nodes (never one mlkg builds; rdf.py names every node) is validated on rdflib, slower but exact.
    if any(isinstance(t, BNode) for triple in graph for t in triple):
        data = graph
    else:
        data = ox.Store()
        data.bulk_load(graph.serialize(format="nt", encoding="utf-8"), format=ox.RdfFormat.N_TRIPLES)
    conforms, results, _ = validate(data, shacl_graph=shapes, inference="none", advanced=True, allow_warnings=True)
    return [] if conforms else _results(graph, results, shapes)


def validate_graph(graph: Graph) -> ValidationReport:
    """Validate ``graph`` against ``ontology/shapes.ttl``.

    Examples
    --------
    >>> from rdflib import Graph
    >>> validate_graph(Graph()).conforms
    True
    """
    found = _run(graph)
    return ValidationReport(conforms=not found, violations=tuple(r.violation for r in found), triples=len(graph))


def quarantine(graph: Graph) -> tuple[Graph, Graph, tuple[Violation, ...]]:
    """Split ``graph`` into (conforming graph, quarantined statements, violations).

    Each violation blames the statements it is about: the one triple when the result names a path and a value
    (a relation whose end has the wrong class, a confidence out of range), else every triple of the focus node
    (an entity with two labels or none). Removing statements can make others violate a shape (a relation whose
    only evidence was removed), so validation runs again until the rest conforms. ``graph`` is not changed;
    when it conforms, it is returned itself.
    """
    found = _run(graph)
    if not found:
        return graph, bind_prefixes(Graph()), ()
    clean = bind_prefixes(Graph())
    clean += graph
    bad = bind_prefixes(Graph())
    violations: list[Violation] = []
    for _ in range(_MAX_ROUNDS):
        if not found:
            return clean, bad, tuple(violations)
        violations.extend(r.violation for r in found)
        for r in found:
            for t in r.statements:
                clean.remove(t)
                bad.add(t)
        found = _run(clean)
    raise MlkgError(f"validation did not settle after {_MAX_ROUNDS} rounds of quarantine; "
                    + "; ".join(str(r.violation) for r in found[:5]))


def load_graph(path: Path) -> Graph:
    """Parse a graph file of any RDF syntax rdflib knows from its suffix; quads are merged into one graph."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    fmt = guess_format(str(path)) or "turtle"
    try:
        if fmt in ("trig", "nquads"):
            ds = Dataset()
            ds.parse(str(path), format=fmt)
            g = bind_prefixes(Graph())
            for s, p, o, _ in ds.quads((None, None, None, None)):
                g.add((s, p, o))
            return g
        return bind_prefixes(Graph()).parse(str(path), format=fmt)
    except Exception as exc:  # rdflib raises many types for bad syntax
        raise InputError(f"{path}: not a readable {fmt} graph ({type(exc).__name__}: {exc})") from exc


def validate_file(path: Path) -> ValidationReport:
    """Validate the graph in ``path`` (Turtle, N-Triples, JSON-LD, TriG, ...) against the shapes."""
    return validate_graph(load_graph(path))
