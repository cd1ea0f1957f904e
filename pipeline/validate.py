"""Check a graph against ``ontology/shapes.ttl``, and set aside the statements that violate it.

The shapes are checked by SPARQL queries compiled from them (``shacl.py``) on a pyoxigraph store: seconds on a
graph of millions of triples. pySHACL, the reference, stays available (``engine="pyshacl"``) and the tests check
that both give the same violations.

``validate_graph`` says whether a graph conforms, one readable ``Violation`` (node, shape, message) per result.
``quarantine`` splits a graph into the part that conforms and the statements that do not, so a build never
publishes a violating statement. ``validate_file`` does the same checks on any graph file, read straight into
pyoxigraph; ``validate_store`` on a graph already in a pyoxigraph store; ``validate_turtle`` on Turtle bytes (the
build's graph.ttl before it is written), loaded by pyoxigraph's own parser.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from rdflib import BNode, Dataset, Graph, Literal, URIRef
from rdflib.namespace import RDF, RDFS, SH, XSD
from rdflib.util import guess_format

from .config import ONTOLOGY_DIR
from .errors import InputError, MlkgError
from .model import Violation
from .vocab import MLKG, PREFIXES, RELATIONS, bind_prefixes

__all__ = ["SHAPES", "ENGINES", "ValidationReport", "shapes_graph", "validate_graph", "validate_store", "quarantine",
           "validate_file", "validate_turtle", "load_graph"]

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
class _Found:
    """One validation result in rdflib terms, from either engine."""

    focus: object
    shape: object
    path: URIRef | None  # the predicate of the result's path, when it is one predicate or its inverse
    inverse: bool
    value: object | None
    message: str


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


@lru_cache(maxsize=8)
def _checks(path: Path = SHAPES, subclasses: bool = False):
    from .shacl import compile_shapes

    return compile_shapes(shapes_graph(path), subclasses)


def _namespaces(*graphs: Graph) -> dict[str, str]:
    namespaces = {str(ns): p for p, ns in PREFIXES.items()}
    for g in graphs:
        namespaces.update({str(ns): p for p, ns in g.namespaces() if p})
    return namespaces


def _compact(term, *graphs: Graph, namespaces: dict[str, str] | None = None) -> str:
    """A short readable form of ``term``: ``prefix:local`` where a prefix fits, ``"text"`` for literals."""
    if isinstance(term, Literal):
        text = str(term)
        return repr(text if len(text) <= 60 else text[:57] + "...")
    if isinstance(term, BNode):
        return "[]"
    s = str(term)
    namespaces = namespaces if namespaces is not None else _namespaces(*graphs)
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


def _violation(f: _Found, label, namespaces: dict[str, str], shape_namespaces: dict[str, str]) -> Violation:
    """The readable form of one result; ``label`` gives a node's rdfs:label (or None)."""
    name = label(f.focus) if not isinstance(f.focus, Literal) else None
    node = _compact(f.focus, namespaces=namespaces) + (f" ({name})" if name is not None else "")
    shown = "" if f.value is None or f.value == f.focus else _compact(f.value, namespaces=namespaces)
    if shown and f.path is not None:
        shown = ("^" if f.inverse else "") + _compact(f.path, namespaces=namespaces) + " " + shown
    return Violation(node=node, shape=_compact(f.shape, namespaces=shape_namespaces), message=f.message, value=shown)


def _blamed(data: Graph, f: _Found) -> set:
    """The statements one result is about: the triple a path and a value name, else every triple of the node."""
    if f.path is not None and f.value is not None:
        triple = (f.value, f.path, f.focus) if f.inverse else (f.focus, f.path, f.value)
        if triple in data:
            return _with_records(data, {triple})
        if isinstance(f.value, Literal) and not f.inverse:  # "x" and "x"^^xsd:string are the same RDF 1.1 literal
            same = {t for t in data.triples((f.focus, f.path, None)) if _plain(t[2]) == _plain(f.value)}
            if same:
                return _with_records(data, same)
    return _with_records(data, _node_triples(data, f.focus))


def _plain(term):
    return Literal(str(term)) if isinstance(term, Literal) and term.datatype == XSD.string else term


def _results(data: Graph, found: list[_Found]) -> list[_Result]:
    namespaces, shape_namespaces = _namespaces(data), _namespaces(shapes_graph())
    out = [_Result(_violation(f, lambda n: min(data.objects(n, RDFS.label), key=str, default=None), namespaces, shape_namespaces),
                   frozenset(_blamed(data, f))) for f in found]
    return sorted(out, key=lambda x: (x.violation.node, x.violation.shape, x.violation.message, x.violation.value))


def _pyshacl(graph: Graph, shapes: Graph | None = None) -> list[_Found]:
    """Validate with pySHACL over a pyoxigraph copy of ``graph`` (the reference the SPARQL engine is tested against).

    pySHACL parses each SHACL-SPARQL query again for every focus node when the data graph is an rdflib Graph,
    and rdflib's engine is slow on them: about 4 s for the corpus graph against 0.5-0.8 s with an Oxigraph store.
    The results name the same nodes either way.
    """
    import pyoxigraph as ox
    from pyshacl import validate

    shapes = shapes_graph() if shapes is None else shapes
    # Oxigraph relabels blank nodes on load, so results could not be traced back to them: a graph with blank
    # nodes (never one mlkg builds; rdf.py names every node) is validated on rdflib, slower but exact.
    if any(isinstance(t, BNode) for triple in graph for t in triple):
        data = graph
    else:
        data = ox.Store()
        data.bulk_load(graph.serialize(format="nt", encoding="utf-8"), format=ox.RdfFormat.N_TRIPLES)
    conforms, results, _ = validate(data, shacl_graph=shapes, inference="none", advanced=True, allow_warnings=True)
    if conforms:
        return []
    out = []
    for r in results.subjects(RDF.type, SH.ValidationResult):
        path = results.value(r, SH.resultPath)
        inverse = results.value(path, SH.inversePath) if isinstance(path, BNode) else None
        messages = sorted(str(m) for m in results.objects(r, SH.resultMessage))
        out.append(_Found(results.value(r, SH.focusNode), results.value(r, SH.sourceShape),
                          inverse if inverse is not None else (path if isinstance(path, URIRef) else None),
                          inverse is not None, results.value(r, SH.value),
                          messages[0] if messages else "violates the shape"))
    return out


def _to_rdflib(term):
    """A pyoxigraph term as rdflib's (a plain string literal without a datatype, as rdflib parses it)."""
    import pyoxigraph as ox

    if term is None or isinstance(term, (URIRef, BNode, Literal)):
        return term
    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    if term.language:
        return Literal(term.value, lang=term.language)
    dt = term.datatype.value
    return Literal(term.value, datatype=None if dt == str(XSD.string) else URIRef(dt))


def _to_oxigraph(term):
    import pyoxigraph as ox

    if isinstance(term, URIRef):
        return ox.NamedNode(term)
    if isinstance(term, BNode):
        return ox.BlankNode(term)
    if term.language:
        return ox.Literal(term, language=term.language)
    return ox.Literal(term, datatype=ox.NamedNode(term.datatype or XSD.string))


def _store_of(graph: Graph):
    """A pyoxigraph store holding ``graph``, blank nodes keeping their ids (so results name them)."""
    import pyoxigraph as ox

    store = ox.Store()
    store.bulk_extend(ox.Quad(_to_oxigraph(s), _to_oxigraph(p), _to_oxigraph(o)) for s, p, o in graph)
    return store


def _sparql_findings(store, shapes: Graph | None = None) -> list:
    """The findings of the compiled shapes on ``store``; none when only warnings were found (it conforms)."""
    from .shacl import compile_shapes

    subclasses = bool(store.query("ASK { ?a <http://www.w3.org/2000/01/rdf-schema#subClassOf> ?b }",
                                  use_default_graph_as_union=True))
    checks = _checks(SHAPES, subclasses) if shapes is None else compile_shapes(shapes, subclasses)
    found = checks.run(store)
    return found if any(f.violation for f in found) else []


def _sparql(graph: Graph, shapes: Graph | None = None) -> list[_Found]:
    """Validate by the SPARQL queries compiled from the shapes (``shacl.py``), over a pyoxigraph copy of ``graph``."""
    return [_Found(_to_rdflib(f.focus), f.shape, f.path, f.inverse, _to_rdflib(f.value), f.messages[0])
            for f in _sparql_findings(_store_of(graph), shapes)]


ENGINES = {"sparql": _sparql, "pyshacl": _pyshacl}
"""The validators: ``sparql`` (the default, queries compiled from the shapes, fast at any size) and ``pyshacl``
(the reference implementation, minutes on large graphs)."""


def _run(graph: Graph, engine: str = "sparql") -> list[_Result]:
    if engine not in ENGINES:
        raise MlkgError(f"unknown validation engine {engine!r}: use {' or '.join(ENGINES)}")
    found = ENGINES[engine](graph)
    return _results(graph, found) if found else []


def validate_graph(graph: Graph, engine: str = "sparql") -> ValidationReport:
    """Validate ``graph`` against ``ontology/shapes.ttl``.

    Examples
    --------
    >>> from rdflib import Graph
    >>> validate_graph(Graph()).conforms
    True
    """
    found = _run(graph, engine)
    return ValidationReport(conforms=not found, violations=tuple(r.violation for r in found), triples=len(graph))


def validate_store(store) -> ValidationReport:
    """Validate the graph in a pyoxigraph ``store`` (the union of its graphs) without copying it to rdflib."""
    import pyoxigraph as ox

    shape_namespaces, namespaces = _namespaces(shapes_graph()), _namespaces()

    def label(node):
        if not isinstance(node, (URIRef, BNode)):
            return None
        subject = ox.NamedNode(str(node)) if isinstance(node, URIRef) else ox.BlankNode(str(node))
        return min((q.object.value for q in store.quads_for_pattern(subject, ox.NamedNode(str(RDFS.label)), None)), default=None)

    found = [_Found(_to_rdflib(f.focus), f.shape, f.path, f.inverse, _to_rdflib(f.value), f.messages[0])
             for f in _sparql_findings(store)]
    violations = sorted((_violation(f, label, namespaces, shape_namespaces) for f in found),
                        key=lambda v: (v.node, v.shape, v.message, v.value))
    return ValidationReport(conforms=not violations, violations=tuple(violations), triples=len(store))


def validate_turtle(data: bytes) -> ValidationReport:
    """Validate a Turtle document given as bytes: loaded into a pyoxigraph store, then ``validate_store``.

    A large build checks its graph.ttl this way before writing it, with no rdflib Graph at all.
    """
    import pyoxigraph as ox

    store = ox.Store()
    try:
        store.bulk_load(data, ox.RdfFormat.TURTLE)
    except (SyntaxError, ValueError) as exc:
        raise MlkgError(f"the graph to validate is not valid Turtle ({type(exc).__name__}: {exc})") from exc
    return validate_store(store)


def quarantine(graph: Graph, engine: str = "sparql") -> tuple[Graph, Graph, tuple[Violation, ...]]:
    """Split ``graph`` into (conforming graph, quarantined statements, violations).

    Each violation blames the statements it is about: the one triple when the result names a path and a value
    (a relation whose end has the wrong class, a confidence out of range), else every triple of the focus node
    (an entity with two labels or none). Removing statements can make others violate a shape (a relation whose
    only evidence was removed), so validation runs again until the rest conforms. ``graph`` is not changed;
    when it conforms, it is returned itself.
    """
    found = _run(graph, engine)
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
        found = _run(clean, engine)
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


def _load_store(path: Path):
    """A pyoxigraph store holding the graph file at ``path``, or None when pyoxigraph does not read its syntax."""
    import pyoxigraph as ox

    fmt = ox.RdfFormat.from_extension(path.suffix.lstrip(".")) if path.suffix else ox.RdfFormat.TURTLE
    if fmt is None:
        return None
    store = ox.Store()
    try:
        store.bulk_load(path=str(path), format=fmt, base_iri=path.resolve().as_uri())
    except (SyntaxError, ValueError) as exc:
        raise InputError(f"{path}: not a readable {fmt.name} graph ({type(exc).__name__}: {exc})") from exc
    return store


def validate_file(path: Path, engine: str = "sparql") -> ValidationReport:
    """Validate the graph in ``path`` (Turtle, N-Triples, JSON-LD, TriG, ...) against the shapes.

    With the SPARQL engine the file is read straight into pyoxigraph (rdflib, for the syntaxes pyoxigraph does
    not read); blank nodes are shown as ``[]``.
    """
    path = Path(path)
    if engine == "sparql":
        if not path.is_file():
            raise InputError(f"{path}: no such file")
        store = _load_store(path)
        if store is not None:
            return validate_store(store)
    return validate_graph(load_graph(path), engine)
