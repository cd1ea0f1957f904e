"""Check a graph against ``ontology/shapes.ttl``, and set aside the statements that violate it.

The shapes are checked by SPARQL queries compiled from them (``shacl.py``) on a pyoxigraph store: seconds on a
graph of millions of triples. pySHACL, the reference, stays available (``engine="pyshacl"``) and the tests check
that both give the same violations.

``validate_graph`` says whether a graph conforms, one readable ``Violation`` (node, shape, message) per result.
``quarantine`` splits a graph into the part that conforms and the statements that do not, so a build never
publishes a violating statement. ``validate_file`` does the same checks on any graph file, read straight into
pyoxigraph; ``validate_store`` on a graph already in a pyoxigraph store; ``validate_turtle`` on Turtle bytes (the
build's graph.ttl before it is written), loaded by pyoxigraph's own parser; ``validate_patch`` on a patched
graph.ttl, checked only where the patch changed it.
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
           "validate_file", "validate_turtle", "validate_patch", "prepare_patch_check", "load_graph", "TurtleLoad"]

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


def shapes_graph(path: Path = SHAPES) -> Graph:
    """The SHACL shapes graph (parsed once per process, however the path is given: ``shapes_graph()`` and
    ``shapes_graph(SHAPES)`` are one parse, not two, in a patch's check)."""
    return _parsed_shapes(Path(path))


@lru_cache(maxsize=4)
def _parsed_shapes(path: Path) -> Graph:
    if not path.is_file():
        raise MlkgError(f"{path}: the SHACL shapes file is missing; mlkg must run from its checkout (ontology/ beside pipeline/)")
    return Graph().parse(str(path), format="turtle")


_SHAPES_NS = "https://w3id.org/mlkg/shapes#"
LOCAL_SPARQL = frozenset(URIRef(_SHAPES_NS + name) for name in ("ExtendsSameClass", "RelationHasEvidence", "Evidence"))
"""The shapes of ``shapes.ttl`` whose SPARQL constraints read only the focus node's statements and its neighbours'
(``$this ?path ?value`` and the ``?value``'s classes; the records whose rdf:subject is ``$this``; a record's
subject's statements), so a patched graph is checked for them around what changed (``validate_patch``)."""
_SPARQL_BACKWARD = frozenset({RDF.subject})
"""The predicates those SPARQL constraints follow from object to subject (a relation's records, by rdf:subject)."""
_SPARQL_NEIGHBOURS = frozenset({RDF.predicate, RDF.object})
"""What those SPARQL constraints read of a neighbour besides its classes and relations (``validate._read_of_neighbours``):
a relation's records' rdf:predicate and rdf:object (RelationHasEvidence)."""


@lru_cache(maxsize=8)
def _checks(path: Path = SHAPES, subclasses: bool = False, local: frozenset | None = None):
    from .shacl import compile_shapes

    return compile_shapes(shapes_graph(path), subclasses, local)


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
    return _store_report(store, _sparql_findings(store))


def _store_report(store, findings: list, triples: int | None = None) -> ValidationReport:
    import pyoxigraph as ox

    shape_namespaces, namespaces = _namespaces(shapes_graph()), _namespaces()

    def label(node):
        if not isinstance(node, (URIRef, BNode)):
            return None
        subject = ox.NamedNode(str(node)) if isinstance(node, URIRef) else ox.BlankNode(str(node))
        return min((q.object.value for q in store.quads_for_pattern(subject, ox.NamedNode(str(RDFS.label)), None)), default=None)

    found = [_Found(_to_rdflib(f.focus), f.shape, f.path, f.inverse, _to_rdflib(f.value), f.messages[0])
             for f in findings]
    violations = sorted((_violation(f, label, namespaces, shape_namespaces) for f in found),
                        key=lambda v: (v.node, v.shape, v.message, v.value))
    return ValidationReport(conforms=not violations, violations=tuple(violations),
                            triples=len(store) if triples is None else triples)


def validate_turtle(data: bytes) -> ValidationReport:
    """Validate a Turtle document given as bytes: loaded into a pyoxigraph store, then ``validate_store``.

    A large build checks its graph.ttl this way before writing it, with no rdflib Graph at all.
    """
    return validate_store(_turtle_store(data))


class TurtleLoad:
    """A pyoxigraph store filled with Turtle as it comes (:meth:`add`: whole statements, prefixed names of
    ``vocab.PREFIXES``), then checked whole (:meth:`report`): what ``validate_turtle`` gives for the same
    statements. A streamed build hands it the blocks of graph.ttl as it renders them, to a copy of itself
    (``executor.Fed``), so the graph is loaded by the time the last block is rendered."""

    def __init__(self) -> None:
        self.header = "".join(f"@prefix {name}: <{ns}> .\n" for name, ns in PREFIXES.items()).encode("utf-8")
        self.store = None

    def add(self, chunk: bytes) -> None:
        import pyoxigraph as ox

        if self.store is None:
            self.store = ox.Store()
        _bulk_load(self.store, self.header + chunk)

    def report(self) -> ValidationReport:
        if self.store is None:
            self.add(b"")
        return validate_store(self.store)


def _turtle_store(data: bytes):
    import pyoxigraph as ox

    store = ox.Store()
    _bulk_load(store, data)
    return store


def _bulk_load(store, data: bytes) -> None:
    """Load the Turtle ``data`` into the pyoxigraph ``store``; an MlkgError when it is not Turtle."""
    import pyoxigraph as ox

    try:
        store.bulk_load(data, ox.RdfFormat.TURTLE)
    except (SyntaxError, ValueError) as exc:
        raise MlkgError(f"the graph to validate is not valid Turtle ({type(exc).__name__}: {exc})") from exc


def validate_patch(data: bytes, removed: bytes, added: bytes) -> ValidationReport:
    """Validate the Turtle ``data``, a graph that conformed before the statements of some subjects changed:
    ``removed`` (Turtle) holds those subjects' statements before, ``added`` after. Gives the violations
    ``validate_turtle(data)`` gives, checking the shapes only where a violation can now be.

    Every shape of ``shapes.ttl`` is local (``shacl.local_shape``): it reads a focus node's statements, those
    that point at it by a predicate read backwards (``sh:targetObjectsOf``, inverse paths, a record's
    rdf:subject), and its neighbours' own statements (their classes, an evidence record's fields, the relation
    a record is about). So a node can fail one now only if it changed, points at a changed subject, or a
    changed subject pointed (before or after) at it by a predicate read backwards: those nodes are checked, in
    a store of just what their checks read. A shape that is not local, rdfs:subClassOf in the data (classes then reach
    further) or a blank node near a change means the whole graph is checked.

    ``data`` as the build writes it (``write.turtle_bytes``: one block per subject, sorted) is not parsed
    whole: the blocks of the nodes a check reads are found by their subject, and those that point at a node by
    a search for its IRI (:class:`_Blocks`). Any other Turtle is parsed whole. ``data`` made by a patch
    (``incremental.PatchedTurtle``) holds its blocks (``data.blocks``), so its text is not split or checked
    again. When no subject's statements changed, nothing is checked.
    """
    import pyoxigraph as ox

    try:
        before, after = _differing(*(list(ox.parse(x, ox.RdfFormat.TURTLE)) for x in (removed, added)))
        if not before and not after:
            return ValidationReport(conforms=True, violations=(), triples=0)  # the graph that conformed
        blocks = _Blocks.of(data, getattr(data, "blocks", None))
        report = _patch_in_blocks(data, blocks, before, after) if blocks is not None and _all_local() else None
        if report is not None:
            return report
        triples = list(ox.parse(data, ox.RdfFormat.TURTLE))
    except (SyntaxError, ValueError) as exc:
        raise MlkgError(f"the graph to validate is not valid Turtle ({type(exc).__name__}: {exc})") from exc
    subclass = ox.NamedNode(str(RDFS.subClassOf))
    if not _all_local() or any(t.predicate == subclass for t in triples):
        return validate_turtle(data)
    focus = _focus(before, after, triples)
    if any(isinstance(n, ox.BlankNode) for n in focus):
        return validate_turtle(data)  # a blank node cannot be named in a query: the whole graph then
    back = _back()
    near = [t for t in triples if t.subject in focus or (t.object in focus and t.predicate in back)]
    neighbours = {x for t in near for x in (t.subject, t.object)} - focus
    return _check_focus(focus, near + [t for t in triples if t.subject in neighbours], len(triples))


def prepare_patch_check() -> None:
    """Read and compile what :func:`validate_patch` reads of the shapes alone (the parsed shapes.ttl, its checks,
    what they read backwards and of neighbours): a patched build does it while its pipeline loads beside, so
    that its check, in a forked copy of it, begins with them (0.04 s of CPU at 1,000 documents, on the way of
    a one-document rebuild otherwise)."""
    import pyoxigraph  # noqa: F401

    if _all_local():
        _backward()
        _read_of_neighbours()
        _checks(SHAPES, False, LOCAL_SPARQL)


def _differing(before: list, after: list) -> tuple[list, list]:
    """``before`` and ``after`` without the subjects whose statements are the same in both: a block rendered
    again as it was is no change, and checking around it (a hub entity's thousands of records) would be wasted."""
    def by_subject(triples: list) -> dict:
        out: dict = {}
        for t in triples:
            out.setdefault(t.subject, set()).add(t)
        return out

    old, new = by_subject(before), by_subject(after)
    same = {s for s in old.keys() & new.keys() if old[s] == new[s]}
    return [t for t in before if t.subject not in same], [t for t in after if t.subject not in same]


def _back() -> set:
    import pyoxigraph as ox

    return {ox.NamedNode(str(p)) for p in _backward()}


def _focus(before: list, after: list, pointing: list) -> set:
    """The nodes to check after a patch: the changed subjects; what they point at by a predicate read backwards
    (before or after), when that statement came or went or when what a neighbour's check reads of the subject
    changed (:func:`_read_changed`); and the subjects of ``pointing`` (statements, all those whose object is
    among those) that point at such a subject."""
    import pyoxigraph as ox

    back = _back()
    changed = {t.subject for t in before} | {t.subject for t in after}
    read = _read_changed(before, after)
    focus = changed | {t.object for t in set(before) ^ set(after) if t.predicate in back}
    focus.update(t.object for t in before + after if t.predicate in back and t.subject in read)
    focus.update(t.subject for t in pointing if t.object in read)
    return {n for n in focus if not isinstance(n, ox.Literal)}


def _read_changed(before: list, after: list) -> set:
    """The changed subjects whose statements that a neighbour's check reads (:func:`_read_of_neighbours`)
    changed: only what points at these can fail now for what it reads of them. A hub entity rendered again
    for one more document that names it (its rdfs:label, mlkg:mentionedIn) is not among them, so the
    hundreds of records and relations that point at it are not checked again."""
    read = _read_of_neighbours()
    if read is None:
        return {t.subject for t in before} | {t.subject for t in after}
    import pyoxigraph as ox

    predicates = {ox.NamedNode(str(p)) for p in read}
    return {t.subject for t in set(before) ^ set(after) if t.predicate in predicates}


_TERM_CONSTRAINTS = {SH["class"], SH.datatype, SH.nodeKind, SH["in"], SH.minLength, SH.maxLength, SH.pattern, SH.flags,
                     SH.minInclusive, SH.maxInclusive, SH.minExclusive, SH.maxExclusive, SH.hasValue}
"""What a value shape nested in sh:or, sh:and, sh:not, sh:xone or sh:qualifiedValueShape may say for
:func:`_read_of_neighbours` to know what it reads: of a value, only its term and (sh:class) its classes."""


@lru_cache(maxsize=1)
def _read_of_neighbours() -> frozenset | None:
    """The predicates the shapes read of a focus node's neighbours (not of the node itself): rdf:type, where
    a value's class is checked (sh:class, ExtendsSameClass's SPARQL); the relations a record's subject holds
    (Evidence's SPARQL reads ``?s ?p ?o`` for the record's rdf:predicate ``?p``, which in a graph that
    conformed is one of the predicates the shape on rdf:predicate allows, its sh:in); and
    :data:`_SPARQL_NEIGHBOURS`. None when that cannot be told (no such sh:in, or a nested shape that reads more
    than a value's term and classes): then a check of any neighbour of a changed subject may read what
    changed."""
    from rdflib.collection import Collection

    g = shapes_graph()
    if (None, SH.node, None) in g:
        return None
    nested = [m for p in (SH["or"], SH["and"], SH.xone) for head in g.objects(None, p) for m in Collection(g, head)]
    nested += [*g.objects(None, SH["not"]), *g.objects(None, SH.qualifiedValueShape)]
    if any(p not in _TERM_CONSTRAINTS for m in nested for p in g.predicates(m)):
        return None
    allowed = {v for shape in g.subjects(SH.path, RDF.predicate) for head in g.objects(shape, SH["in"])
               for v in Collection(g, head)}
    return frozenset({RDF.type, *allowed, *_SPARQL_NEIGHBOURS}) if allowed else None


def _check_focus(focus: set, statements: list, triples: int | None) -> ValidationReport:
    """The local shapes checked on ``focus`` in a store of ``statements`` (what their checks read)."""
    import pyoxigraph as ox

    store = ox.Store()
    store.bulk_extend(statements)
    found = _checks(SHAPES, False, LOCAL_SPARQL).run(store, [n.value for n in focus])
    return _store_report(store, found if any(f.violation for f in found) else [], triples)


def _patch_in_blocks(data: bytes, blocks: _Blocks, before: list, after: list) -> ValidationReport | None:
    """:func:`validate_patch` on graph.ttl's blocks, without parsing it whole; None when a node to look up
    cannot be found by its text (then the whole graph is parsed)."""
    import pyoxigraph as ox

    if b"subClassOf" in data:
        return None  # maybe rdfs:subClassOf in the data (or only in a literal): the caller decides on the triples
    pointing = blocks.pointing_at(_read_changed(before, after))
    if pointing is None:
        return None
    focus = _focus(before, after, pointing)
    if any(isinstance(n, ox.BlankNode) for n in focus):
        return None
    pointing, own = blocks.pointing_at(focus), blocks.of_subjects(focus)
    if pointing is None or own is None:
        return None
    back = _back()
    near = own + [t for t in pointing if t.object in focus and t.predicate in back and t.subject not in focus]
    neighbours = {x for t in near for x in (t.subject, t.object)} - focus
    around = blocks.of_subjects({n for n in neighbours if not isinstance(n, ox.Literal)})
    if around is None or any(isinstance(x, ox.BlankNode) for t in near + around for x in (t.subject, t.object)):
        return None
    return _check_focus(focus, near + around, None)


class _Blocks:
    """graph.ttl as ``write.turtle_bytes`` writes it: ``@prefix`` lines, a blank line, then one block per
    subject (each line after its first indented), blocks apart by a blank line and sorted by their subject's
    text. A subject's statements are found by bisection; the statements that point at an IRI, by searching
    for its text (one pass for many IRIs)."""

    def __init__(self, header: bytes, pieces: list[bytes], offsets: list[int], data: bytes,
                 prefixes: list[tuple[str, str]]) -> None:
        self.header, self.pieces, self.offsets, self.data = header, pieces, offsets, data
        self.prefixes = prefixes

    @staticmethod
    def _key(piece: bytes) -> bytes:
        """A block's subject, as written."""
        return piece[:max(piece.find(b" "), 0)]

    @classmethod
    def of(cls, data: bytes, pieces: list[bytes] | None = None) -> _Blocks | None:
        """The blocks of ``data``, or None when it is not laid out so; with ``pieces`` (``data``'s blocks, as
        the caller made it) its text is not split or checked."""
        import itertools
        import re

        end = data.find(b"\n\n") if data.startswith(b"@prefix") else -2
        if data.startswith(b"@prefix") and end < 0:
            return None
        header, body = data[:end + 1] if end >= 0 else b"", data[end + 2:]
        if pieces is None:
            if not body.endswith(b" .\n") or b"\n\n\n" in body:
                return None
            # every line break inside a block is followed by an indented line: a block holds one subject
            if body.count(b"\n") != body.count(b"\n ") + 2 * body.count(b"\n\n") + 1:
                return None
            pieces = body[:-1].split(b"\n\n")
            keys = [cls._key(p) for p in pieces]
            if not all(keys) or any(a >= b for a, b in zip(keys, keys[1:])):
                return None
        prefixes = []
        for line in header.splitlines():
            m = re.fullmatch(rb"@prefix ([A-Za-z][A-Za-z0-9_-]*)?: <([^<>\\]*)> \.", line)
            if m is None:
                return None
            prefixes.append(((m.group(1) or b"").decode(), m.group(2).decode("utf-8")))
        offsets = list(itertools.accumulate(map(len, pieces), lambda a, n: a + n + 2, initial=len(data) - len(body)))
        return cls(header, pieces, offsets, data, prefixes)

    def _forms(self, node) -> list[bytes] | None:
        """Every text ``node`` (an IRI) may be written as: ``<IRI>``, and ``prefix:local`` under a prefix."""
        import re

        from .write import quote_iri

        iri = node.value
        forms = [quote_iri(iri).encode("utf-8")]
        for name, ns in self.prefixes:
            if iri.startswith(ns):
                local = iri[len(ns):]
                if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*|", local):
                    return None  # a local name the writer might have escaped: not looked for by its text
                forms.append(f"{name}:{local}".encode("utf-8"))
        return forms

    def _parse(self, indices) -> list:
        import pyoxigraph as ox

        chosen = [self.pieces[i] for i in sorted(set(indices))]
        if not chosen:
            return []
        return list(ox.parse(self.header + b"\n" + b"\n\n".join(chosen) + b"\n", ox.RdfFormat.TURTLE))

    def of_subjects(self, nodes) -> list | None:
        """Every statement whose subject is one of ``nodes`` (IRIs); None when one cannot be looked for."""
        import bisect

        found = []
        for node in nodes:
            forms = self._forms(node)
            if forms is None:
                return None
            for form in forms:
                i = bisect.bisect_left(self.pieces, form, key=self._key)
                if i < len(self.pieces) and self._key(self.pieces[i]) == form:
                    found.append(i)
        return [t for t in self._parse(found) if t.subject in nodes]

    def pointing_at(self, nodes) -> list | None:
        """The statements of every block that names one of ``nodes`` (IRIs) after its subject: every statement
        whose object is one of them, and others; None when a node may be written as a prefixed name (its text
        is then not one)."""
        import bisect
        import re

        needles = []
        for node in nodes:
            forms = self._forms(node)
            if forms is None or len(forms) > 1 or len(forms[0]) > 500:
                return None
            needles.append(forms[0])
        if not needles:
            return []
        if len(needles) > _MAX_NEEDLES:
            return None  # a large patch: parsing the whole graph is as quick as compiling the search
        found = set()
        for m in re.compile(_trie(needles)).finditer(self.data, self.offsets[0]):
            i = bisect.bisect_right(self.offsets, m.start()) - 1
            if m.start() > self.offsets[i] + len(self._key(self.pieces[i])):  # named after the subject: an object (or inside a literal)
                found.add(i)
        return self._parse(found)


_MAX_NEEDLES = 2000
"""The most IRIs one search of graph.ttl's text looks for (:meth:`_Blocks.pointing_at`)."""


def _trie(words: list[bytes]) -> bytes:
    """A regular expression matching exactly ``words``, as a trie: one pass over a text finds them all, each
    position tried once whatever their number."""
    import re

    root: dict = {}
    for w in words:
        node = root
        for b in w:
            node = node.setdefault(b, {})
        node[None] = {}

    def emit(node: dict) -> bytes:
        alts = [re.escape(bytes([b])) + emit(node[b]) for b in sorted(k for k in node if k is not None)]
        if not alts:
            return b""
        if len(alts) == 1 and None not in node:
            return alts[0]
        return b"(?:" + b"|".join(alts) + b")" + (b"?" if None in node else b"")

    return emit(root)


@lru_cache(maxsize=1)
def _backward() -> frozenset:
    from .shacl import backward_predicates

    return frozenset(backward_predicates(shapes_graph()) | _SPARQL_BACKWARD)


@lru_cache(maxsize=1)
def _all_local() -> bool:
    from .shacl import all_shapes, local_shape

    g = shapes_graph()
    return all(local_shape(g, s, LOCAL_SPARQL) for s in all_shapes(g))


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
