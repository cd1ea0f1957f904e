"""The shapes accept the corpus graph and reject each kind of broken graph, naming the node; the build
quarantines exactly the bad statements; --strict fails; `mlkg validate` exits non-zero."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF, RDFS, SH, SKOS, XSD

from data import OUTPUT_DIR, ROOT, TEST_DATA_DIR
from pipeline import validate as V
from pipeline.vocab import MLKG, RES

SHAPES_NS = "https://w3id.org/mlkg/shapes#"
TINY_DOCS = TEST_DATA_DIR / "docs_tiny"
DOMAIN_RANGE = {  # from ../shared/spec/knowledge-model.md
    "presentedAt": (["Paper"], ["Venue"]),
    "introduces": (["Paper"], ["Method", "Dataset"]),
    "extends": (["Method", "Dataset"], ["Method", "Dataset"]),
    "evaluatedOn": (["Method", "Paper"], ["Dataset"]),
    "runsOn": (["Method"], ["Hardware"]),
    "demoedAt": (["Method"], ["Venue"]),
    "demoedOn": (["Method"], ["Hardware"]),
    "outperforms": (["Method"], ["Method"]),
    "uses": (["Method", "Paper"], ["Method"]),
    "partOf": (["Venue"], ["Venue"]),
    "affiliatedWith": (["Paper"], ["Organization"]),
}
CLASSES = ["Paper", "Method", "Dataset", "Venue", "Hardware", "Organization"]


# ---------------------------------------------------------------- building blocks of valid and broken graphs

def _entity(g: Graph, cls: str, name: str, doc) -> URIRef:
    iri = RES[f"{cls.lower()}/{name}"]
    g.add((iri, RDF.type, MLKG[cls]))
    g.add((iri, RDFS.label, Literal(name)))
    g.add((iri, MLKG.mentionedIn, doc))
    return iri


def _evidence(g: Graph, s, p, o, doc, name: str) -> URIRef:
    ev = RES[f"evidence/{name}"]
    g.add((ev, RDF.type, MLKG.Evidence))
    g.add((ev, RDF.subject, s))
    g.add((ev, RDF.predicate, p))
    g.add((ev, RDF.object, o))
    g.add((ev, MLKG.source, doc))
    g.add((ev, MLKG.sentence, Literal(f"A sentence that says {name}.")))
    g.add((ev, MLKG.startChar, Literal(0)))
    g.add((ev, MLKG.endChar, Literal(10)))
    g.add((ev, MLKG.rule, Literal("test")))
    g.add((ev, MLKG.confidence, Literal("0.80", datatype=XSD.decimal)))
    g.add((ev, MLKG.supportCount, Literal(1)))
    return ev


def _relation(g: Graph, s, p, o, doc, name: str) -> URIRef:
    g.add((s, p, o))
    return _evidence(g, s, p, o, doc, name)


def _triples_of(g: Graph, node) -> set:
    return set(g.triples((node, None, None))) | set(g.triples((None, None, node)))


def _document(g: Graph) -> URIRef:
    return sorted(g.subjects(RDF.type, MLKG.Document))[0]


# Each mutation adds fresh nodes to a valid graph, breaks one shape, and returns
# (expected shape, the node the violation must name, the statements that must be quarantined).

def _m_two_classes(g, doc):
    e = _entity(g, "Paper", "two-classes", doc)
    g.add((e, RDF.type, MLKG.Method))
    return "EntityOneClass", e, _triples_of(g, e)


def _m_no_class(g, doc):
    e = _entity(g, "Paper", "no-class", doc)
    g.remove((e, RDF.type, MLKG.Paper))
    return "EntityOneClass", e, _triples_of(g, e)


def _m_two_labels(g, doc):
    e = _entity(g, "Method", "two-labels", doc)
    g.add((e, RDFS.label, Literal("another name")))
    return "EntityOneLabel", e, _triples_of(g, e)


def _m_empty_alt_label(g, doc):
    e = _entity(g, "Method", "empty-alt", doc)
    g.add((e, SKOS.altLabel, Literal("")))
    return "EntityAltLabels", e, {(e, SKOS.altLabel, Literal(""))}


def _m_not_mentioned(g, doc):
    e = _entity(g, "Dataset", "not-mentioned", doc)
    g.remove((e, MLKG.mentionedIn, doc))
    return "EntityMentionedIn", e, _triples_of(g, e)


def _m_blank_entity(g, doc):
    e = BNode("blankentity")
    g.add((e, RDF.type, MLKG.Hardware))
    g.add((e, RDFS.label, Literal("blank")))
    g.add((e, MLKG.mentionedIn, doc))
    return "Entity", e, _triples_of(g, e)


def _m_untyped_document(g, doc):
    e = _entity(g, "Venue", "odd-source", doc)
    other = RES["document/not-a-document"]
    g.add((other, RDFS.label, Literal("not-a-document")))
    g.add((e, MLKG.mentionedIn, other))
    return "Document", other, {(e, MLKG.mentionedIn, other), (other, RDFS.label, Literal("not-a-document"))}


def _m_document_without_label(g, doc):
    other = RES["document/unlabelled"]
    g.add((other, RDF.type, MLKG.Document))
    return "DocumentOneLabel", other, {(other, RDF.type, MLKG.Document)}


def _wrong(classes):
    return next(c for c in CLASSES if c not in classes)


def _m_domain(prop):
    def mutate(g, doc):
        dom, rng = DOMAIN_RANGE[prop]
        s = _entity(g, _wrong(dom), f"{prop}-wrong-subject", doc)
        o = _entity(g, rng[0], f"{prop}-right-object", doc)
        ev = _relation(g, s, MLKG[prop], o, doc, f"{prop}-domain")
        return f"{prop[0].upper()}{prop[1:]}Domain", o, {(s, MLKG[prop], o)} | set(g.triples((ev, None, None)))
    mutate.__name__ = f"_m_domain_{prop}"
    return mutate


def _m_range(prop):
    def mutate(g, doc):
        dom, rng = DOMAIN_RANGE[prop]
        s = _entity(g, dom[0], f"{prop}-right-subject", doc)
        o = _entity(g, _wrong(rng), f"{prop}-wrong-object", doc)
        ev = _relation(g, s, MLKG[prop], o, doc, f"{prop}-range")
        return f"{prop[0].upper()}{prop[1:]}Range", s, {(s, MLKG[prop], o)} | set(g.triples((ev, None, None)))
    mutate.__name__ = f"_m_range_{prop}"
    return mutate


def _m_extends_across(g, doc):
    s = _entity(g, "Method", "extends-across", doc)
    o = _entity(g, "Dataset", "extended-across", doc)
    ev = _relation(g, s, MLKG.extends, o, doc, "extends-across")
    return "ExtendsSameClass", s, {(s, MLKG.extends, o)} | set(g.triples((ev, None, None)))


def _m_no_evidence(g, doc):
    s = _entity(g, "Method", "unsupported", doc)
    o = _entity(g, "Hardware", "unsupported-device", doc)
    g.add((s, MLKG.runsOn, o))
    return "RelationHasEvidence", s, {(s, MLKG.runsOn, o)}


def _m_dangling_evidence(g, doc):
    s = _entity(g, "Method", "dangling", doc)
    o = _entity(g, "Method", "dangling-other", doc)
    ev = _evidence(g, s, MLKG.outperforms, o, doc, "dangling")
    return "Evidence", ev, set(g.triples((ev, None, None)))


def _evidence_mutation(shape, change):
    def mutate(g, doc):
        s = _entity(g, "Paper", f"{shape}-paper", doc)
        o = _entity(g, "Organization", f"{shape}-org", doc)
        ev = _relation(g, s, MLKG.affiliatedWith, o, doc, shape)
        change(g, ev)
        # the record goes whole, and with it the relation it was the only support of
        return shape, ev, set(g.triples((ev, None, None))) | {(s, MLKG.affiliatedWith, o)}
    mutate.__name__ = f"_m_{shape}"
    return mutate


def _drop(p):
    return lambda g, ev: g.remove((ev, p, None))


def _replace(p, value):
    return lambda g, ev: (g.remove((ev, p, None)), g.add((ev, p, value)))


MUTATIONS = [
    _m_two_classes, _m_no_class, _m_two_labels, _m_empty_alt_label, _m_not_mentioned, _m_blank_entity,
    _m_untyped_document, _m_document_without_label,
    *[_m_domain(p) for p in DOMAIN_RANGE], *[_m_range(p) for p in DOMAIN_RANGE],
    _m_extends_across, _m_no_evidence, _m_dangling_evidence,
    _evidence_mutation("EvidenceDocument", _drop(MLKG.source)),
    _evidence_mutation("EvidenceSentence", _replace(MLKG.sentence, Literal(""))),
    _evidence_mutation("EvidenceConfidence", _replace(MLKG.confidence, Literal(Decimal("1.5")))),
    _evidence_mutation("EvidenceSubject", lambda g, ev: g.add((ev, RDF.subject, Literal("not a node")))),
    _evidence_mutation("EvidencePredicate", lambda g, ev: g.add((ev, RDF.predicate, MLKG.mentionedIn))),
    _evidence_mutation("EvidenceObject", _drop(RDF.object)),
]


@pytest.fixture(scope="module")
def valid_graph() -> Graph:
    """A small valid graph: one entity of each class and one relation per property, each with evidence."""
    g = Graph()
    doc = RES["document/tiny.txt"]
    g.add((doc, RDF.type, MLKG.Document))
    g.add((doc, RDFS.label, Literal("tiny.txt")))
    for prop, (dom, rng) in DOMAIN_RANGE.items():
        s = _entity(g, dom[-1], f"{prop}-s", doc)
        o = _entity(g, rng[-1] if prop != "extends" else dom[-1], f"{prop}-o", doc)
        _relation(g, s, MLKG[prop], o, doc, prop)
    g.add((RES["method/uses-s"], SKOS.altLabel, Literal("US")))
    return g


# ---------------------------------------------------------------- the shapes files

def test_validate_every_shape_has_a_message_and_a_breaking_test():
    shapes = V.shapes_graph()
    named = {str(s)[len(SHAPES_NS):] for t in (SH.NodeShape, SH.PropertyShape) for s in shapes.subjects(RDF.type, t)
             if str(s).startswith(SHAPES_NS)}
    tested = {m(Graph(), RES["document/x"])[0] for m in MUTATIONS}
    assert named == tested
    for s in named:
        iri = URIRef(SHAPES_NS + s)
        assert (iri, SH.message, None) in shapes or any(shapes.objects(c, SH.message) for c in shapes.objects(iri, SH.sparql)), s


# ---------------------------------------------------------------- graphs

def test_validate_corpus_graph_conforms(corpus_graph):
    report = V.validate_graph(corpus_graph)
    assert report.conforms, "\n".join(map(str, report.violations))
    assert report.triples == len(corpus_graph)


def test_validate_small_valid_graph_conforms(valid_graph):
    report = V.validate_graph(valid_graph)
    assert report.conforms, "\n".join(map(str, report.violations))


@pytest.mark.parametrize("mutate", MUTATIONS, ids=lambda m: m.__name__.lstrip("_m"))
def test_validate_broken_graph_is_rejected_naming_node_and_quarantined(valid_graph, mutate):
    g = Graph()
    g += valid_graph
    shape, node, bad = mutate(g, _document(g))
    report = V.validate_graph(g)
    assert not report.conforms
    named = V._compact(node, g)
    hits = [v for v in report.violations if v.shape == f"mlkgsh:{shape}" and v.node.startswith(named)]
    assert hits, f"no {shape} violation naming {named}: " + "\n".join(map(str, report.violations))
    assert all(v.message for v in hits)
    clean, quarantined, violations = V.quarantine(g)
    assert V.validate_graph(clean).conforms
    assert bad <= set(quarantined), bad - set(quarantined)
    assert not bad & set(clean)
    # nothing valid was set aside with it: the graph minus the quarantine is the valid graph plus good additions
    assert set(valid_graph) <= set(clean) | {t for t in valid_graph if t in quarantined and t[0] == node}
    assert set(clean) | set(quarantined) == set(g)


# ---------------------------------------------------------------- the SPARQL validator against pySHACL

def _both(g: Graph) -> tuple[list, list]:
    """The results (violation and blamed statements) of the SPARQL engine and of pySHACL, the reference."""
    return [(r.violation, r.statements) for r in V._run(g, "sparql")], [(r.violation, r.statements) for r in V._run(g, "pyshacl")]


@pytest.mark.parametrize("mutate", MUTATIONS, ids=lambda m: m.__name__.lstrip("_m"))
def test_validate_sparql_engine_gives_pyshacl_violations(valid_graph, mutate):
    g = Graph()
    g += valid_graph
    mutate(g, _document(g))
    sparql, reference = _both(g)
    assert reference and sparql == reference


def test_validate_sparql_engine_gives_pyshacl_violations_with_every_mutation_at_once(valid_graph):
    g = Graph()
    g += valid_graph
    for m in MUTATIONS:
        m(g, _document(g))
    sparql, reference = _both(g)
    assert len(reference) > len(MUTATIONS) and sparql == reference
    clean, bad, violations = V.quarantine(g)
    assert (set(clean), set(bad), violations) == tuple(map(lambda x: set(x) if isinstance(x, Graph) else x,
                                                        V.quarantine(g, engine="pyshacl")))


EXTRA_SHAPES = """
@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix ex: <https://example.org/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:Named a sh:NodeShape ; sh:targetClass ex:Thing ; sh:targetNode ex:lonely ;
    sh:property ex:NamePattern, ex:Score, ex:Tag, ex:Kind ; sh:not [ sh:in ( ex:forbidden ) ] .
ex:NamePattern sh:path rdfs:label ; sh:pattern "^[A-Z]" ; sh:maxLength 8 ; sh:minCount 1 .
ex:Score sh:path ex:score ; sh:datatype xsd:integer ; sh:minExclusive 0 ; sh:maxExclusive 10 ; sh:maxCount 2 .
ex:Tag sh:path ( ex:tag ex:name ) ; sh:hasValue "core" .
ex:Kind sh:path [ sh:alternativePath ( ex:kind ex:sort ) ] ; sh:nodeKind sh:IRI ;
    sh:xone ( [ sh:in ( ex:a ex:b ) ] [ sh:in ( ex:b ex:c ) ] ) ; sh:severity sh:Warning ; sh:message "odd kind"@en .
ex:Sub rdfs:subClassOf ex:Thing .
"""
EXTRA_DATA = """
@prefix ex: <https://example.org/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:ok a ex:Thing ; rdfs:label "Fine" ; ex:score 3 ; ex:tag [ ex:name "core" ] ; ex:kind ex:a .
ex:bad a ex:Sub ; rdfs:label "lowercase and long" ; ex:score 0, 12, "7" ; ex:tag ex:t ; ex:sort ex:b, "lit" .
ex:t ex:name "other" .
ex:lonely ex:score 2 .
ex:forbidden a ex:Thing ; rdfs:label "X" ; ex:tag [ ex:name "core" ] .
"""


def test_validate_sparql_engine_checks_a_new_shape_without_new_code():
    # shapes and data that use constraints ontology/shapes.ttl does not (pattern, lengths, ranges, sequence and
    # alternative paths, hasValue, not, xone, a warning, a subclass target): both engines give the same results
    shapes = Graph().parse(data=EXTRA_SHAPES, format="turtle")
    data = Graph().parse(data=EXTRA_DATA + EXTRA_SHAPES.split("ex:Named")[0] + "ex:Sub rdfs:subClassOf ex:Thing .", format="turtle")
    def key(found):  # the messages of shapes without sh:message are each engine's own
        return sorted((str(f.focus), str(f.shape), str(f.path), f.inverse, str(f.value),
                       f.message if f.shape.endswith("Kind") else "") for f in found)
    sparql, reference = key(V._sparql(data, shapes)), key(V._pyshacl(data, shapes))
    assert len(reference) >= 10 and sparql == reference
    assert {s.rsplit("/", 1)[1] for _, s, *_ in reference} == {"Kind", "Named", "NamePattern", "Score", "Tag"}
    # a graph with warnings only conforms
    warned = Graph().parse(data="""@prefix ex: <https://example.org/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
        ex:lonely rdfs:label "L" ; ex:tag [ ex:name "core" ] ; ex:kind ex:b .""", format="turtle")
    assert V._sparql(warned, shapes) == V._pyshacl(warned, shapes) == []


def test_validate_sparql_engine_refuses_a_constraint_it_does_not_check():
    from pipeline.errors import MlkgError
    from pipeline.shacl import compile_shapes

    shapes = Graph().parse(data="""@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <https://example.org/> .
        ex:S a sh:NodeShape ; sh:targetClass ex:Thing ; sh:closed true .""", format="turtle")
    with pytest.raises(MlkgError, match="closed"):
        compile_shapes(shapes)


def test_validate_file_reads_graph_straight_into_the_store(tmp_path, valid_graph):
    g = Graph()
    g += valid_graph
    _m_range("presentedAt")(g, _document(g))
    _m_two_labels(g, _document(g))
    path = tmp_path / "broken.nt"
    path.write_text(g.serialize(format="nt"))
    assert V.validate_file(path).violations == V.validate_file(path, engine="pyshacl").violations


def test_validate_quarantine_returns_a_conforming_graph_unchanged(valid_graph):
    clean, quarantined, violations = V.quarantine(valid_graph)
    assert clean is valid_graph and len(quarantined) == 0 and violations == ()


def test_validate_file_reads_any_syntax(tmp_path, valid_graph):
    for fmt, suffix in [("nt", ".nt"), ("json-ld", ".jsonld"), ("turtle", ".ttl")]:
        path = tmp_path / f"g{suffix}"
        path.write_text(valid_graph.serialize(format=fmt))
        assert V.validate_file(path).conforms


def test_validate_file_reports_unreadable_file(tmp_path):
    from pipeline.errors import InputError

    bad = tmp_path / "bad.ttl"
    bad.write_text("<a> <b> .")
    with pytest.raises(InputError, match="bad.ttl"):
        V.validate_file(bad)
    with pytest.raises(InputError, match="no such file"):
        V.validate_file(tmp_path / "missing.ttl")


# ---------------------------------------------------------------- the build and the command line

def _inject(mp: pytest.MonkeyPatch, mutations, expected: list | None = None) -> None:
    """Put ``mutations`` into the graphs a build checks: the rdflib Graph of the full plan (``rdf.to_graph``), the
    graph.ttl a streamed build validates before writing it (``validate.validate_turtle``, or the store its
    blocks were loaded into as they were rendered, ``validate.TurtleLoad``) and a patched one
    (``validate.validate_patch``)."""
    from pipeline import rdf

    real_graph, real_turtle, real_patch = rdf.to_graph, V.validate_turtle, V.validate_patch

    def to_graph_with_faults(resolution):
        g = real_graph(resolution)
        doc = _document(g)
        for m in mutations:
            found = m(g, doc)
            if expected is not None:
                expected.append(found)
        return g

    def turtle_with_faults(data):
        g = Graph().parse(data=data, format="turtle")
        doc = _document(g)
        for m in mutations:
            m(g, doc)
        return real_turtle(g.serialize(format="nt", encoding="utf-8"))

    def patch_with_faults(data, removed, added):  # the mutated subjects are changed ones too
        before = Graph().parse(data=data, format="turtle")
        g = Graph()
        g += before
        doc = _document(g)
        for m in mutations:
            m(g, doc)
        changed = {s for s, _, _ in set(before) ^ set(g)}
        old, new = Graph().parse(data=removed, format="turtle"), Graph().parse(data=added, format="turtle")
        old += [t for t in before if t[0] in changed]
        new += [t for t in g if t[0] in changed]
        return real_patch(*(x.serialize(format="nt", encoding="utf-8") for x in (g, old, new)))

    def fed_with_faults(self):  # the store's statements, checked as graph.ttl would be
        import pyoxigraph as ox

        self.add(b"")
        return turtle_with_faults(self.store.dump(format=ox.RdfFormat.N_TRIPLES, from_graph=ox.DefaultGraph()))

    mp.setattr(rdf, "to_graph", to_graph_with_faults)
    mp.setattr(V, "validate_turtle", turtle_with_faults)
    mp.setattr(V, "validate_patch", patch_with_faults)
    mp.setattr(V.TurtleLoad, "report", fed_with_faults)


@pytest.fixture(scope="module")
def broken_build(tmp_path_factory):
    """A real build of a tiny document, with every mutation injected into the graphs it checks: the streamed
    graph.ttl fails the shapes, and the full plan it hands over to quarantines the bad statements."""
    from pipeline import BuildConfig, build

    expected = []
    out = tmp_path_factory.mktemp("broken_build")
    mp = pytest.MonkeyPatch()
    _inject(mp, MUTATIONS, expected)
    try:
        report = build(BuildConfig(inputs=(TINY_DOCS,), out_dir=out, html=False))
    finally:
        mp.undo()
    return report, out, expected


def test_validate_build_quarantines_bad_statements(broken_build):
    report, out, expected = broken_build
    graph = Graph().parse(str(out / "graph.ttl"))
    quarantined = Graph().parse(str(out / "quarantine.ttl"))
    assert V.validate_graph(graph).conforms
    for shape, node, bad in expected:
        if isinstance(node, BNode):  # blank nodes get new ids in a Turtle round trip: compare by label
            assert (None, RDFS.label, Literal("blank")) in quarantined and (None, RDFS.label, Literal("blank")) not in graph
            continue
        assert bad <= set(quarantined), (shape, bad - set(quarantined))
        assert not bad & set(graph), (shape, bad & set(graph))
    assert not any(isinstance(t, BNode) for triple in graph for t in triple)
    # the tiny document's own relations survive
    assert (None, MLKG.presentedAt, None) in graph and (None, MLKG.runsOn, None) in graph


def test_validate_build_report_lists_node_shape_and_message(broken_build):
    report, out, expected = broken_build
    listed = json.loads((out / "report.json").read_text())["quarantine"]
    assert {tuple(sorted(v)) for v in listed} == {("message", "node", "shape", "value")}
    for shape, node, _ in expected:
        if isinstance(node, BNode):
            continue  # blank nodes are relabelled by the Turtle round trip
        assert any(v["shape"] == f"mlkgsh:{shape}" and v["node"].startswith(V._compact(node)) for v in listed), shape
    from pipeline.build import exit_code_for
    from pipeline.errors import ExitCode

    assert exit_code_for(report) == ExitCode.OK_WITH_SKIPS


def test_validate_strict_build_fails_and_keeps_last_good_output(tmp_path, monkeypatch):
    from pipeline import BuildConfig, build
    from pipeline.errors import MlkgError

    out = tmp_path / "out"
    build(BuildConfig(inputs=(TINY_DOCS,), out_dir=out, html=False, strict=True))
    before = (out / "graph.ttl").read_bytes()
    _inject(monkeypatch, [_m_two_labels])
    with pytest.raises(MlkgError, match="two-labels.*EntityOneLabel"):
        build(BuildConfig(inputs=(TINY_DOCS,), out_dir=out, html=False, strict=True))
    assert (out / "graph.ttl").read_bytes() == before
    assert not (out / "quarantine.ttl").exists()


def test_validate_clean_build_removes_stale_quarantine(tmp_path):
    from pipeline import BuildConfig, build

    (tmp_path / "quarantine.ttl").write_text("# from an earlier build\n")
    build(BuildConfig(inputs=(TINY_DOCS,), out_dir=tmp_path, html=False))
    assert not (tmp_path / "quarantine.ttl").exists()


def test_validate_cli_passes_committed_graph_and_fails_broken_one(tmp_path, valid_graph):
    from typer.testing import CliRunner

    from pipeline.cli import app

    runner = CliRunner()
    ok = runner.invoke(app, ["validate", str(OUTPUT_DIR / "graph.ttl")])
    assert ok.exit_code == 0, ok.output
    assert "conforms" in ok.output
    g = Graph()
    g += valid_graph
    shape, node, _ = _m_range("presentedAt")(g, _document(g))
    path = tmp_path / "broken.ttl"
    path.write_text(g.serialize(format="turtle"))
    bad = runner.invoke(app, ["validate", str(path)])
    assert bad.exit_code == 2
    assert f"mlkgsh:{shape}" in bad.output and V._compact(node) in bad.output
    missing = runner.invoke(app, ["validate", str(tmp_path / "nope.ttl")])
    assert missing.exit_code == 3


def test_validate_build_report_counts_the_published_graph(broken_build):
    report, out, expected = broken_build
    graph = Graph().parse(str(out / "graph.ttl"))
    published = sum(1 for _, p, _ in graph if str(p).startswith(str(MLKG._NS)) and p in set(map(MLKG.__getitem__, DOMAIN_RANGE)))
    assert sum(report.relations_per_property.values()) == published
    assert sum(report.entities_per_class.values()) == sum(1 for o in graph.objects(None, RDF.type) if o in {MLKG[c] for c in CLASSES})


def test_validate_streamed_and_patched_builds_check_the_graph_they_write(tmp_path, monkeypatch):
    """With validation on (the default), a build of graph.ttl alone streams and checks the Turtle it writes in
    pyoxigraph, with no rdflib Graph; the rebuild after one change patches graph.ttl and checks it again, where
    it changed (``validate.validate_patch``)."""
    from pipeline import BuildConfig, build, executor, incremental, rdf
    from pipeline.generate import generate_corpus

    docs, out = tmp_path / "docs", tmp_path / "out"
    generate_corpus(20, docs)
    monkeypatch.setattr(executor, "FORK", False)  # the check runs in this process, where the spy below sees it
    checked = []
    real, real_patch = V.validate_turtle, V.validate_patch
    monkeypatch.setattr(V, "validate_turtle", lambda data: checked.append(data) or real(data))
    monkeypatch.setattr(V, "validate_patch", lambda data, *blocks: checked.append(data) or real_patch(data, *blocks))
    monkeypatch.setattr(rdf, "to_graph", lambda resolution: pytest.fail("the streamed build made an rdflib Graph"))
    first = build(BuildConfig(inputs=(docs,), out_dir=out, html=False))
    assert first.validation == "" and "validate" in first.seconds and not first.quarantine
    assert checked == [(out / "graph.ttl").read_bytes()] and (out / incremental.STATE_FILE).is_file()
    victim = sorted(docs.glob("*.txt"))[3]
    victim.write_text(victim.read_text("utf-8") + "\nWe also release the code of this work.\n", "utf-8")
    second = build(BuildConfig(inputs=(docs,), out_dir=out, html=False))
    assert second.patched and second.documents_parsed == 1 and "validate" in second.seconds
    assert len(checked) == 2 and checked[-1] == (out / "graph.ttl").read_bytes()
