"""SHACL shapes checked by SPARQL: each shape of a shapes graph compiled into a few queries run on pyoxigraph.

The queries are derived from the shapes graph, not written per shape, so a new shape is checked without new code.
A *unit* is a shape with the focus nodes it applies to: a shape's own targets (``sh:targetClass``,
``sh:targetNode``, ``sh:targetSubjectsOf``, ``sh:targetObjectsOf``, a shape that is itself a class), or those of
a node shape that lists it under ``sh:property``. Each unit gives at most four queries, each over all its focus
nodes at once (pySHACL runs the checks focus node by focus node, which does not finish on large graphs):

- *values*: every value node that fails one of the value constraints (``sh:class``, ``sh:datatype``,
  ``sh:nodeKind``, ``sh:in``, ``sh:minLength``, ``sh:maxLength``, ``sh:pattern``, ``sh:min/maxInclusive``,
  ``sh:min/maxExclusive``, ``sh:or``, ``sh:and``, ``sh:not``, ``sh:xone``, ``sh:node``), with one column per
  constraint saying which;
- *counts*: the number of value nodes (and of those that conform to ``sh:qualifiedValueShape``) per focus node,
  for ``sh:minCount``, ``sh:maxCount`` and ``sh:qualifiedMin/MaxCount``;
- *hasValue*: the focus nodes missing an ``sh:hasValue``;
- one per ``sh:sparql`` constraint, the constraint's own SELECT joined with the focus nodes (``$this`` is a
  variable of the join rather than pre-bound, so the SELECT must use it in its patterns, as every SHACL-SPARQL
  constraint does).

Results follow the SHACL rules pySHACL follows (one per focus node for a count, one per focus and value node for a
value constraint; a node shape's value node is the focus node itself), so both give the same report; the tests
check it on every kind of broken graph. A constraint this module does not know is an error, never skipped.
"""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Iterable

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import RDF, RDFS, SH, XSD

from .config import CHECK_THREADS
from .errors import MlkgError

__all__ = ["Finding", "ShapeChecks", "compile_shapes", "local_shape", "all_shapes", "backward_predicates",
           "FOCUS"]

FOCUS = "__MLKG_FOCUS_NODES__"
"""In the queries of ``compile_shapes(..., local=...)``: where the focus nodes a run is limited to go (a VALUES list)."""

_VALUE = {SH["class"], SH.datatype, SH.nodeKind, SH["in"], SH.minLength, SH.maxLength, SH.pattern, SH.flags,
          SH.minInclusive, SH.maxInclusive, SH.minExclusive, SH.maxExclusive, SH["or"], SH["and"], SH["not"],
          SH.xone, SH.node}
_COUNT = {SH.minCount, SH.maxCount, SH.qualifiedValueShape, SH.qualifiedMinCount, SH.qualifiedMaxCount,
          SH.qualifiedValueShapesDisjoint}
_TARGET = {SH.targetClass, SH.targetNode, SH.targetSubjectsOf, SH.targetObjectsOf}
_OTHER = {SH.path, SH.property, SH.sparql, SH.select, SH.hasValue, SH.message, SH.severity, SH.deactivated, SH.name,
          SH.description, SH.order, SH.group, SH.defaultValue, SH.declare, SH.prefixes}
_KNOWN = _VALUE | _COUNT | _TARGET | _OTHER
_NUMERIC = {XSD[t] for t in ("decimal", "integer", "float", "double", "long", "int", "short", "byte",
                             "nonNegativeInteger", "positiveInteger", "nonPositiveInteger", "negativeInteger",
                             "unsignedLong", "unsignedInt", "unsignedShort", "unsignedByte")}
_NODE_KINDS = {SH.IRI: "isIRI({v})", SH.BlankNode: "isBlank({v})", SH.Literal: "isLiteral({v})",
               SH.BlankNodeOrIRI: "!isLiteral({v})", SH.BlankNodeOrLiteral: "!isIRI({v})",
               SH.IRIOrLiteral: "!isBlank({v})"}
_COUNTS = ((SH.minCount, "<"), (SH.maxCount, ">"), (SH.qualifiedMinCount, "<"), (SH.qualifiedMaxCount, ">"))
_QUALIFIED = {SH.qualifiedMinCount, SH.qualifiedMaxCount}
_COMPARE = {SH.minInclusive: ">=", SH.maxInclusive: "<=", SH.minExclusive: ">", SH.maxExclusive: "<"}


@dataclass(frozen=True, slots=True)
class Finding:
    """One validation result, in the terms of the data store (pyoxigraph) and of the shapes graph (rdflib)."""

    focus: object
    """The focus node (a pyoxigraph term)."""
    shape: URIRef | BNode
    """The shape whose constraint failed (``sh:sourceShape``)."""
    path: URIRef | None
    """The predicate of the shape's path, or of the SPARQL result's ``?path``; None for a node shape."""
    inverse: bool
    """True when the path is ``[ sh:inversePath path ]``."""
    value: object | None
    """The value node (a pyoxigraph term), when the constraint names one."""
    messages: tuple[str, ...]
    """The shape's ``sh:message``s (and a SPARQL constraint's), or a message made from the constraint."""
    violation: bool = True
    """False when the shape's ``sh:severity`` is a warning or an information."""


@dataclass(frozen=True, slots=True)
class _Query:
    text: str
    read: Callable[[object], Iterable[Finding]]  # one solution -> its findings


@dataclass(frozen=True, slots=True)
class _Unit:
    """What every finding of one shape shares."""

    shape: URIRef | BNode
    messages: tuple[str, ...]
    path: URIRef | None
    inverse: bool
    violation: bool

    def finding(self, focus, value, default: str = "", msgs: tuple[str, ...] = (), path=None) -> Finding:
        p, inverse = path if path is not None else (self.path, self.inverse)
        return Finding(focus, self.shape, p, inverse, value, msgs or self.messages or (default,), self.violation)


class _Columns:
    """The per-focus-node columns of one focus set's query: SPARQL blocks, a failure test and a reader each."""

    def __init__(self) -> None:
        self.blocks: list[str] = []
        self.fails: list[str] = []
        self.readers: list[Callable[[object], list[Finding]]] = []
        self.n = 0

    def var(self, stem: str) -> str:
        self.n += 1
        return f"?_{stem}{self.n}"

    def add(self, block: str, fails: str = "", read: Callable[[object], list[Finding]] | None = None) -> None:
        if block:
            self.blocks.append(block)
        if fails:
            self.fails.append(fails)
        if read is not None:
            self.readers.append(read)

    def query(self, focus: str) -> _Query:
        text = f"SELECT * WHERE {{ {focus} {' '.join(self.blocks)} FILTER({' || '.join(self.fails)}) }}"
        readers = list(self.readers)
        return _Query(text, lambda sol: [f for read in readers for f in read(sol)])


@dataclass(frozen=True, slots=True)
class ShapeChecks:
    """The compiled queries of one shapes graph; ``run`` checks a pyoxigraph store with them."""

    queries: tuple[_Query, ...]

    def run(self, store, focus: Iterable[str] | None = None) -> list[Finding]:
        """Every finding on ``store`` (the default graph and, for a dataset, the union of its named graphs).

        ``focus`` (IRIs): with checks compiled with ``local``, the local shapes are checked on these focus nodes
        only (the others on the whole graph)."""
        values = " ".join(f"<{iri}>" for iri in sorted(focus or ()))

        def findings(q: _Query) -> list[Finding]:
            return [f for solution in store.query(q.text.replace(FOCUS, values), use_default_graph_as_union=True)
                    for f in q.read(solution)]

        threads = min(CHECK_THREADS, os.cpu_count() or 1, len(self.queries))
        if focus is not None or threads <= 1:  # a patch's few focus nodes: each query takes a millisecond
            return [f for q in self.queries for f in findings(q)]
        with ThreadPoolExecutor(threads) as pool:  # (the findings in the queries' order, as one after the other)
            return [f for part in pool.map(findings, self.queries) for f in part]


# ---------------------------------------------------------------- reading the shapes graph

def _term(t) -> str:
    """A shapes-graph term in SPARQL syntax."""
    if isinstance(t, URIRef):
        return f"<{t}>"
    if isinstance(t, Literal):
        return t.n3()
    raise MlkgError(f"shapes: a blank node ({t}) where SPARQL needs an IRI or a literal")


def _list(g: Graph, head) -> list:
    return list(Collection(g, head))


def _path(g: Graph, p) -> str:
    """A SHACL path as a SPARQL property path."""
    if isinstance(p, URIRef):
        return f"<{p}>"
    if (p, RDF.first, None) in g:
        return "(" + "/".join(_path(g, x) for x in _list(g, p)) + ")"
    for pred, fmt in ((SH.inversePath, "^({})"), (SH.zeroOrMorePath, "({})*"), (SH.oneOrMorePath, "({})+"),
                      (SH.zeroOrOnePath, "({})?")):
        inner = g.value(p, pred)
        if inner is not None:
            return fmt.format(_path(g, inner))
    alt = g.value(p, SH.alternativePath)
    if alt is not None:
        return "(" + "|".join(_path(g, x) for x in _list(g, alt)) + ")"
    raise MlkgError(f"shapes: {p} is not a SHACL path")


def _shown_path(g: Graph, p) -> tuple[URIRef | None, bool]:
    if isinstance(p, URIRef):
        return p, False
    inner = g.value(p, SH.inversePath) if p is not None else None
    return (inner, True) if isinstance(inner, URIRef) else (None, False)


def _messages(g: Graph, node) -> tuple[str, ...]:
    return tuple(sorted(str(m) for m in g.objects(node, SH.message)))


def _check_known(g: Graph, shape) -> None:
    for p in set(g.predicates(shape, None)):
        if str(p).startswith(str(SH)) and p not in _KNOWN:
            raise MlkgError(f"shapes: {shape} uses {p}, which the SPARQL validator does not check "
                            "(pipeline/shacl.py lists what it does)")


class _Compiler:
    def __init__(self, shapes: Graph, subclasses: bool) -> None:
        self.g = shapes
        self.limit = ""  # "VALUES ?this { FOCUS }" while compiling a shape checked on given focus nodes only
        # with rdfs:subClassOf in the data, an instance of a subclass is an instance of the class (as in SHACL)
        self.type_path = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>" + (
            "/<http://www.w3.org/2000/01/rdf-schema#subClassOf>*" if subclasses else "")
        self.n = 0

    def var(self) -> str:
        self.n += 1
        return f"?_v{self.n}"

    # -------- focus nodes

    def targets(self, shape) -> list[str]:
        g, out = self.g, []
        classes = list(g.objects(shape, SH.targetClass))
        if (shape, RDF.type, RDFS.Class) in g:
            classes.append(shape)
        out += [f"{{ ?this {self.type_path} {_term(c)} }}" for c in classes]
        out += [f"{{ VALUES ?this {{ {_term(n)} }} }}" for n in g.objects(shape, SH.targetNode)]
        out += [f"{{ ?this {_term(p)} {self.var()} }}" for p in g.objects(shape, SH.targetSubjectsOf)]
        out += [f"{{ {self.var()} {_term(p)} ?this }}" for p in g.objects(shape, SH.targetObjectsOf)]
        return out

    def focus(self, targets: list[str]) -> str:
        if self.limit:
            return "{ " + self.limit + " FILTER EXISTS { " + " UNION ".join(targets) + " } }"
        return "{ SELECT DISTINCT ?this WHERE { " + " UNION ".join(targets) + " } }"

    # -------- conditions on one value node (a SPARQL expression, never an error)

    def condition(self, shape, v: str) -> list[tuple[str, str]]:
        """(constraint, expression true when ``v`` satisfies it) for each value constraint of ``shape``."""
        g, out = self.g, []
        for c in g.objects(shape, SH["class"]):
            out.append(("class", f"EXISTS {{ {v} {self.type_path} {_term(c)} }}"))
        for d in g.objects(shape, SH.datatype):
            expr = f"isLiteral({v}) && DATATYPE({v}) = {_term(d)}"
            out.append(("datatype", expr + (f" && isNumeric({v})" if d in _NUMERIC else "")))
        for k in g.objects(shape, SH.nodeKind):
            if k not in _NODE_KINDS:
                raise MlkgError(f"shapes: {shape} has sh:nodeKind {k}, not a SHACL node kind")
            out.append(("nodeKind", _NODE_KINDS[k].format(v=v)))
        for lst in g.objects(shape, SH["in"]):
            out.append(("in", "(" + " || ".join([f"sameTerm({v}, {_term(x)})" for x in _list(g, lst)] or ["false"]) + ")"))
        for n in g.objects(shape, SH.minLength):
            out.append(("minLength", f"!isBlank({v}) && STRLEN(STR({v})) >= {int(n)}"))
        for n in g.objects(shape, SH.maxLength):
            out.append(("maxLength", f"!isBlank({v}) && STRLEN(STR({v})) <= {int(n)}"))
        for pat in g.objects(shape, SH.pattern):
            flags = g.value(shape, SH.flags)
            out.append(("pattern", f"!isBlank({v}) && REGEX(STR({v}), {Literal(str(pat)).n3()}"
                        + (f", {Literal(str(flags)).n3()})" if flags is not None else ")")))
        for pred, op in _COMPARE.items():
            for x in g.objects(shape, pred):
                out.append((pred.split("#")[1], f"{v} {op} {_term(x)}"))
        for pred, join in ((SH["or"], " || "), (SH["and"], " && ")):
            for lst in g.objects(shape, pred):
                out.append((pred.split("#")[1], "(" + join.join(self.conforms(s, v) for s in _list(g, lst)) + ")"))
        for lst in g.objects(shape, SH.xone):
            out.append(("xone", "(" + " + ".join(f"IF({self.conforms(s, v)}, 1, 0)" for s in _list(g, lst)) + ") = 1"))
        for s in g.objects(shape, SH["not"]):
            out.append(("not", f"!{self.conforms(s, v)}"))
        for s in g.objects(shape, SH.node):
            out.append(("node", self.conforms(s, v)))
        return [(name, f"COALESCE({expr}, false)") for name, expr in out]

    def conforms(self, shape, v: str) -> str:
        """An expression true when ``v`` conforms to ``shape``, a shape of value constraints only."""
        _check_known(self.g, shape)
        extra = {p for p in self.g.predicates(shape, None) if p in (_COUNT | {SH.property, SH.sparql, SH.path, SH.hasValue})}
        if extra:
            raise MlkgError(f"shapes: {shape} is used as a condition on one value (sh:or, sh:node, ...) but has "
                            f"{', '.join(sorted(map(str, extra)))}; the SPARQL validator checks only value constraints there")
        parts = [expr for _, expr in self.condition(shape, v)]
        return "(" + (" && ".join(parts) if parts else "true") + ")"

    # -------- the queries of one focus set

    def focus_set(self, targets: list[str], units: list[tuple]) -> list[_Query]:
        """The queries that check ``units`` ((shape, path) pairs) on the focus nodes ``targets`` select.

        A violation of a value constraint on a path, or of a SPARQL constraint, is a row that exists: those
        queries find the failing rows first and keep those whose ``?this`` is a focus node (``FILTER EXISTS`` on
        the targets), so they cost what the path costs. What a focus node lacks (a count too low, a missing
        ``sh:hasValue``) or is itself (a node shape's value constraints) needs the focus nodes listed: one query
        per focus set lists them once, with one column per such constraint.
        """
        member = "FILTER EXISTS { " + " UNION ".join(targets) + " }"
        queries, columns = [], _Columns()
        for shape, path in units:
            _check_known(self.g, shape)
            shown, inverse = _shown_path(self.g, path)
            u = _Unit(shape, _messages(self.g, shape), shown, inverse,
                      self.g.value(shape, SH.severity) in (None, SH.Violation))
            sparql_path = _path(self.g, path) if path is not None else None
            if sparql_path is None:
                self.node_values(shape, u, columns)
            else:
                queries += self.path_values(shape, sparql_path, member, u)
            queries += self.counts(shape, sparql_path, member, u, columns)
            for hv in self.g.objects(shape, SH.hasValue):
                test = f"EXISTS {{ ?this {sparql_path} {_term(hv)} }}" if sparql_path else f"sameTerm(?this, {_term(hv)})"
                col = columns.var("hv")
                columns.add(f"BIND({test} AS {col})", f"!{col}",
                            lambda sol, u=u, col=col: [u.finding(sol["this"], None, "fails sh:hasValue")]
                            if sol[col[1:]].value != "true" else [])
            queries += [self.sparql(shape, c, member, sparql_path, u) for c in self.g.objects(shape, SH.sparql)]
        if columns.blocks:
            queries.append(columns.query(self.focus(targets)))
        return queries

    def path_values(self, shape, sparql_path: str, member: str, u: "_Unit") -> list[_Query]:
        """Value constraints depend on the value alone: each distinct value is checked once, and only the failing
        ones are joined back to their focus nodes (the inner SELECTs keep the membership test from running first)."""
        checks = self.condition(shape, "?value")
        if not checks:
            return []
        cols = [f"?ok{i}" for i in range(len(checks))]
        binds = " ".join(f"BIND({expr} AS {col})" for (_, expr), col in zip(checks, cols))
        if self.limit:  # from the focus nodes given: their values, each checked
            text = (f"SELECT DISTINCT ?this ?value {' '.join(cols)} WHERE {{ {self.limit} ?this {sparql_path} ?value . "
                    f"{binds} FILTER({' || '.join('!' + col for col in cols)}) {member} }}")
        else:
            text = (f"SELECT DISTINCT ?this ?value {' '.join(cols)} WHERE {{ {{ SELECT ?value {' '.join(cols)} WHERE {{ "
                    f"{{ SELECT DISTINCT ?value WHERE {{ ?_s {sparql_path} ?value }} }} {binds} "
                    f"FILTER({' || '.join('!' + col for col in cols)}) }} }} ?this {sparql_path} ?value . {member} }}")
        names = [name for name, _ in checks]

        def read(sol):
            return [u.finding(sol["this"], sol["value"], f"fails sh:{name}")
                    for i, name in enumerate(names) if sol[f"ok{i}"].value != "true"]
        return [_Query(text, read)]

    def node_values(self, shape, u: "_Unit", columns: "_Columns") -> None:
        for name, expr in self.condition(shape, "?this"):
            col = columns.var("ok")
            columns.add(f"BIND({expr} AS {col})", f"!{col}",
                        lambda sol, name=name, col=col: [u.finding(sol["this"], sol["this"], f"fails sh:{name}")]
                        if sol[col[1:]].value != "true" else [])

    def counts(self, shape, sparql_path: str | None, member: str, u: "_Unit", columns: "_Columns") -> list[_Query]:
        """Too many values is a row that exists (a group over the path's statements); too few needs the focus
        nodes: a column of their query (an EXISTS for at least one, a count for more)."""
        g = self.g
        tests = [(p, op, int(g.value(shape, p))) for p, op in _COUNTS if g.value(shape, p) is not None]
        if not tests:
            return []
        if sparql_path is None:
            raise MlkgError(f"shapes: {shape} has a count constraint but no sh:path")
        if g.value(shape, SH.qualifiedValueShapesDisjoint) not in (None, Literal(False)):
            raise MlkgError(f"shapes: {shape} uses sh:qualifiedValueShapesDisjoint, which the SPARQL validator does not check")
        qualified = g.value(shape, SH.qualifiedValueShape)
        if qualified is None and any(p in _QUALIFIED for p, _, _ in tests):
            raise MlkgError(f"shapes: {shape} has a qualified count but no sh:qualifiedValueShape")
        queries = []
        for p, op, bound in tests:
            name = p.split("#")[1]
            where = f"?this {sparql_path} ?_x" + (f" FILTER({self.conforms(qualified, '?_x')})" if p in _QUALIFIED else "")
            grouped = f"{self.limit} {where}"  # a group over every focus node, or over those given
            if op == ">":
                text = (f"SELECT ?this WHERE {{ {{ SELECT ?this WHERE {{ {grouped} }} GROUP BY ?this "
                        f"HAVING (COUNT(DISTINCT ?_x) > {bound}) }} {member} }}")
                queries.append(_Query(text, lambda sol, name=name, bound=bound: [
                    u.finding(sol["this"], None, f"fails sh:{name} {bound}")]))
                continue
            col = columns.var("c")
            if bound == 1:
                columns.add(f"BIND(EXISTS {{ {where} }} AS {col})", f"!{col}")
            elif bound > 1:
                n = columns.var("n")
                columns.add(f"OPTIONAL {{ SELECT ?this (COUNT(DISTINCT ?_x) AS {n}) WHERE {{ {grouped} }} GROUP BY ?this }} "
                            f"BIND(COALESCE({n}, 0) >= {bound} AS {col})", f"!{col}")
            else:
                continue
            columns.add("", "", lambda sol, name=name, bound=bound, col=col: [
                u.finding(sol["this"], None, f"fails sh:{name} {bound}")] if sol[col[1:]].value != "true" else [])
        return queries

    def sparql(self, shape, constraint, member: str, sparql_path: str | None, u: "_Unit") -> _Query:
        g = self.g
        _check_known(g, constraint)
        select = g.value(constraint, SH.select)
        if select is None:
            raise MlkgError(f"shapes: the sh:sparql constraint of {shape} has no sh:select")
        text = str(select)
        if "$PATH" in text:
            if sparql_path is None:
                raise MlkgError(f"shapes: the SPARQL constraint of {shape} uses $PATH but the shape has no sh:path")
            text = text.replace("$PATH", sparql_path)
        for unbound in ("$currentShape", "$shapesGraph"):
            if unbound in text:
                raise MlkgError(f"shapes: the SPARQL constraint of {shape} uses {unbound}, which the SPARQL validator does not bind")
        head = re.match(r"\s*SELECT\s+(DISTINCT\s+|REDUCED\s+)?(.*?)\s+WHERE\b", text, re.S | re.I)
        if head is None:
            raise MlkgError(f"shapes: the SPARQL constraint of {shape} is not a SELECT ... WHERE query")
        named = re.findall(r"[?$](\w+)", head.group(2))
        if "this" not in named:  # pre-binding is a join here: the focus node must be a column
            text = text[:head.start(2)] + "$this " + text[head.start(2):]
        text = _indexed(text)
        if self.limit:  # pre-bound to the focus nodes given: the VALUES opens the constraint's WHERE
            brace = text.index("{", head.end())
            text = text[:brace + 1] + " " + self.limit + " " + text[brace + 1:]
        projected = sorted(set(named) | {"this"})
        prefixes = "".join(f"PREFIX {p}: <{ns}>\n" for p, ns in self.prefixes(constraint))
        messages = tuple(sorted(set(u.messages) | set(_messages(g, constraint))))
        node_shape = sparql_path is None
        query = f"{prefixes}SELECT DISTINCT {' '.join('?' + v for v in projected)} WHERE {{ {{ {text} }} {member} }}"

        def read(sol):
            bound = {v: sol[v] for v in projected if sol[v] is not None}
            value = bound.get("value", sol["this"] if node_shape else None)
            path = bound.get("path")
            msgs = tuple(_format(m, bound) for m in messages) or ("fails a SPARQL constraint",)
            return [u.finding(sol["this"], value, msgs=msgs, path=(URIRef(path.value), False) if path is not None else None)]
        return _Query(query, read)

    def prefixes(self, constraint) -> list[tuple[str, str]]:
        out = []
        for source in self.g.objects(constraint, SH.prefixes):
            for decl in self.g.objects(source, SH.declare):
                out.append((str(self.g.value(decl, SH.prefix)), str(self.g.value(decl, SH.namespace))))
        return sorted(set(out))


_SCAN = re.compile(r"(\$this\s+\?(\w+)\s+\?\w+\s*\.)\s*FILTER\s*\(\s*\?\2\s+IN\s*\(([^()]*)\)\s*\)", re.I)
_NAME = re.compile(r"<[^<>\s]*>|[A-Za-z][\w-]*:[\w-]+")


def _indexed(text: str) -> str:
    """``$this ?p ?o . FILTER (?p IN (a, b))`` in a constraint's query as ``VALUES ?p { a b } $this ?p ?o .``:
    the same solutions, but Oxigraph reads each of the predicates from its index rather than every triple of
    the graph (a third of the time of RelationHasEvidence). The shapes say it with IN: VALUES is not allowed
    in a SHACL-SPARQL constraint. A list of anything but IRIs and prefixed names is left as it is."""
    def values(m: re.Match) -> str:
        names = [x.strip() for x in m.group(3).split(",")]
        if not all(_NAME.fullmatch(x) for x in names):
            return m.group(0)
        return f"VALUES ?{m.group(2)} {{ {' '.join(names)} }} {m.group(1)}"
    return _SCAN.sub(values, text)


def _format(message: str, bound: dict) -> str:
    """``{?var}`` and ``{$var}`` in a SPARQL constraint's message replaced by the solution's values."""
    for name, term in bound.items():
        message = re.sub(r"\{[?$]" + re.escape(name) + r"\}", lambda _m, t=term: t.value, message)
    return message


def all_shapes(g: Graph) -> list:
    """Every shape of the graph, in a stable order."""
    found = set(g.subjects(RDF.type, SH.NodeShape)) | set(g.subjects(RDF.type, SH.PropertyShape))
    found |= set(g.objects(None, SH.property))
    for p in _TARGET | {SH.path}:
        found |= set(g.subjects(p, None))
    return sorted(found, key=lambda s: (isinstance(s, BNode), str(s)))


def _one_step(g: Graph, path) -> bool:
    """A path of one predicate or its inverse (or none): its values are the focus node's neighbours."""
    return path is None or isinstance(path, URIRef) or isinstance(g.value(path, SH.inversePath), URIRef)


def local_shape(g: Graph, shape, sparql_ok: frozenset = frozenset()) -> bool:
    """Whether ``shape`` (with its property shapes) reads only the statements of a focus node and of its neighbours.

    Then a graph that conformed and changed only in the statements of some subjects can fail the shape only at
    those subjects and their neighbours (before or after the change): ``validate.validate_patch`` checks it there.
    True when every path is one step and the value constraints are on those values (sh:class reads a
    neighbour's rdf:type); a SPARQL constraint can read anything, so its shape is local only when listed in
    ``sparql_ok`` (its query read and found to stay within one step of $this)."""
    units = [shape, *g.objects(shape, SH.property)] if g.value(shape, SH.path) is None else [shape]
    if any(not _one_step(g, g.value(u, SH.path)) for u in units):
        return False
    return all(u in sparql_ok for u in units if g.value(u, SH.sparql) is not None)


def backward_predicates(g: Graph) -> set:
    """The predicates the shapes follow from object to subject: ``sh:targetObjectsOf`` and inverse paths."""
    out = set(g.objects(None, SH.targetObjectsOf))
    out.update(g.value(p, SH.inversePath) for p in g.objects(None, SH.path) if g.value(p, SH.inversePath) is not None)
    return out


def compile_shapes(shapes: Graph, subclasses: bool = False, local: frozenset | None = None) -> ShapeChecks:
    """The queries that check every shape of ``shapes``.

    ``subclasses``: the data graph has ``rdfs:subClassOf`` statements, so classes are matched through them (an
    instance of a subclass is an instance of the class, as SHACL says); without them a plain ``rdf:type`` match
    is the same and faster. ``local``: check the shapes that ``local_shape`` finds local (those with SPARQL
    constraints only when in ``local``) on the focus nodes given to ``ShapeChecks.run`` only, the rest whole.
    """
    c = _Compiler(shapes, subclasses)
    active = [s for s in all_shapes(shapes) if shapes.value(s, SH.deactivated) != Literal(True)]
    queries: list[_Query] = []
    for shape in active:
        targets = c.targets(shape)
        if not targets:
            continue
        units = [(shape, shapes.value(shape, SH.path))]
        if units[0][1] is None:  # a node shape: its property shapes are checked on its focus nodes
            units += [(p, shapes.value(p, SH.path)) for p in sorted(shapes.objects(shape, SH.property), key=str) if p in active]
        c.limit = f"VALUES ?this {{ {FOCUS} }}" if local is not None and local_shape(shapes, shape, local) else ""
        queries += c.focus_set(targets, units)
    for shape in active:
        if shapes.value(shape, SH.path) is not None and shapes.value(shape, SH.property) is not None:
            raise MlkgError(f"shapes: {shape} is a property shape with sh:property, which the SPARQL validator does not check")
    return ShapeChecks(tuple(queries))
