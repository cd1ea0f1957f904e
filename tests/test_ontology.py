"""ontology/mlkg.ttl: parses strictly, follows the OWL 2 DL structural rules, documents every term, and
declares every class and property the built graph uses, with the kind the graph uses it as.

The full OWL 2 DL profile check (OWL API's OWL2DLProfile) runs when MLKG_OWLAPI_JARS names a folder of
OWL API jars (.ci/run fetches them); the structural rules below run everywhere.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDF, RDFS, XSD

from data import ONTOLOGY, ROOT, TEST_DATA_DIR
from pipeline.vocab import MLKG

SHAPES = ROOT / "ontology" / "shapes.ttl"
RESERVED = (str(RDF), str(RDFS), str(OWL), str(XSD))
PROPERTY_KINDS = (OWL.ObjectProperty, OWL.DatatypeProperty, OWL.AnnotationProperty)
# the built-in vocabulary an OWL 2 DL ontology uses in its axioms (not declared, never a class or property of ours)
STRUCTURAL = {RDF.type, RDF.first, RDF.rest, RDFS.subClassOf, RDFS.subPropertyOf, RDFS.domain, RDFS.range,
              OWL.unionOf, OWL.members, OWL.inverseOf, OWL.versionIRI, OWL.versionInfo, OWL.priorVersion,
              RDFS.label, RDFS.comment, RDFS.seeAlso}
OWL2_DATATYPES = {XSD.string, XSD.integer, XSD.decimal, XSD.nonNegativeInteger, XSD.boolean, XSD.dateTime, XSD.anyURI,
                  RDF.PlainLiteral, RDF.langString}


@pytest.fixture(scope="module")
def onto() -> Graph:
    return Graph().parse(str(ONTOLOGY), format="turtle")


def _declared(g: Graph, kind) -> set:
    return set(g.subjects(RDF.type, kind))


def _class_expressions(g: Graph):
    """Every node the ontology uses in a class position."""
    for p in (RDFS.subClassOf,):
        yield from ((s, p) for s in g.subjects(p, None))
        yield from ((o, p) for o in g.objects(None, p))
    for prop in _declared(g, OWL.ObjectProperty):
        for p in (RDFS.domain, RDFS.range):
            yield from ((o, p) for o in g.objects(prop, p))
    for prop in _declared(g, OWL.DatatypeProperty):
        yield from ((o, RDFS.domain) for o in g.objects(prop, RDFS.domain))
    for lst in list(g.objects(None, OWL.unionOf)) + list(g.objects(None, OWL.members)):
        yield from ((m, OWL.unionOf) for m in Collection(g, lst))


@pytest.mark.parametrize("path", [ONTOLOGY, SHAPES], ids=lambda p: p.name)
def test_ontology_files_parse_in_rdflib_and_pyoxigraph(path):
    import pyoxigraph as ox

    g = Graph().parse(str(path), format="turtle")
    quads = list(ox.parse(path=str(path), format=ox.RdfFormat.TURTLE))
    assert len(g) == len(quads) > 100


def test_ontology_has_iri_version_and_documentation(onto):
    (iri,) = onto.subjects(RDF.type, OWL.Ontology)
    assert isinstance(iri, URIRef)
    version_iri = onto.value(iri, OWL.versionIRI)
    version = onto.value(iri, OWL.versionInfo)
    assert isinstance(version_iri, URIRef) and str(version_iri).endswith(str(version))
    for term in MLKG.__annotations__:
        for p in (RDFS.label, RDFS.comment):
            assert (MLKG[term], p, None) in onto, (term, p)


def test_ontology_every_property_has_exactly_one_kind(onto):
    used_as_predicate = {p for p in onto.predicates() if p not in STRUCTURAL}
    declared = set().union(*(_declared(onto, k) for k in PROPERTY_KINDS))
    for p in used_as_predicate | declared:
        kinds = [k for k in PROPERTY_KINDS if (p, RDF.type, k) in onto]
        assert len(kinds) == 1, (p, kinds)
    for p in declared:  # a property is not also a class (that punning is not allowed in OWL 2 DL)
        assert (p, RDF.type, OWL.Class) not in onto, p


def test_ontology_every_class_is_declared_and_not_reserved(onto):
    classes = _declared(onto, OWL.Class)
    for node, where in _class_expressions(onto):
        if isinstance(node, BNode):
            assert (node, RDF.type, OWL.Class) in onto and (node, OWL.unionOf, None) in onto, where
            continue
        assert not str(node).startswith(RESERVED) or node == OWL.Thing, f"reserved vocabulary as a class: {node} ({where})"
        assert node in classes, f"undeclared class {node} ({where})"


def test_ontology_property_domains_and_ranges_have_the_right_kind(onto):
    classes = _declared(onto, OWL.Class)
    for prop in _declared(onto, OWL.DatatypeProperty):
        for rng in onto.objects(prop, RDFS.range):
            assert rng in OWL2_DATATYPES, (prop, rng)
    for prop in _declared(onto, OWL.ObjectProperty):
        for rng in onto.objects(prop, RDFS.range):
            assert rng in classes or isinstance(rng, BNode), (prop, rng)
        for sup in onto.objects(prop, RDFS.subPropertyOf):
            assert (sup, RDF.type, OWL.ObjectProperty) in onto, (prop, sup)
        inv = onto.value(prop, OWL.inverseOf)
        assert inv is None or (inv, RDF.type, OWL.ObjectProperty) in onto
    for prop in _declared(onto, OWL.DatatypeProperty):
        for sup in onto.objects(prop, RDFS.subPropertyOf):
            assert (sup, RDF.type, OWL.DatatypeProperty) in onto, (prop, sup)


def test_ontology_declares_what_the_graph_uses_with_the_kind_it_is_used_as(onto, corpus_graph):
    reification = {RDF.type, RDF.subject, RDF.predicate, RDF.object}
    for s, p, o in corpus_graph:
        if p in reification or p == RDFS.label:
            continue
        if (p, RDF.type, OWL.ObjectProperty) in onto:
            assert isinstance(o, URIRef), (s, p, o)
        elif (p, RDF.type, OWL.DatatypeProperty) in onto:
            assert isinstance(o, Literal), (s, p, o)
        else:
            assert (p, RDF.type, OWL.AnnotationProperty) in onto, f"{p} is used by the graph but not declared"
    for cls in set(corpus_graph.objects(None, RDF.type)):
        assert (cls, RDF.type, OWL.Class) in onto, cls


def _owlapi_jars() -> Path | None:
    jars = os.environ.get("MLKG_OWLAPI_JARS")
    return Path(jars) if jars else None


@pytest.mark.skipif(_owlapi_jars() is None or shutil.which("java") is None,
                    reason="MLKG_OWLAPI_JARS (a folder of OWL API jars) and java are needed for the OWL API profile check")
def test_ontology_is_in_owl2_dl_profile_per_owlapi():
    jars = _owlapi_jars()
    assert any(jars.glob("owlapi-distribution-*.jar")), f"no OWL API jar in {jars}"
    out = subprocess.run(["java", "-cp", f"{jars}/*", str(TEST_DATA_DIR / "owl" / "OwlDlCheck.java"), str(ONTOLOGY)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and "IN OWL 2 DL PROFILE" in out.stdout, out.stdout + out.stderr


@pytest.mark.skipif(_owlapi_jars() is None or shutil.which("java") is None,
                    reason="MLKG_OWLAPI_JARS (a folder of OWL API jars) and java are needed for the OWL API profile check")
def test_ontology_corpus_graph_with_ontology_is_dl_except_reification(tmp_path, corpus_graph):
    import re

    combined = Graph()
    combined += corpus_graph
    combined.parse(str(ONTOLOGY), format="turtle")
    path = tmp_path / "combined.ttl"
    combined.serialize(str(path), format="turtle")
    out = subprocess.run(["java", "-cp", f"{_owlapi_jars()}/*", str(TEST_DATA_DIR / "owl" / "OwlDlCheck.java"), str(path)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and "IN OWL 2 DL PROFILE" in out.stdout, out.stdout + out.stderr
    # the OWL API drops what is not OWL: exactly the reification triples of the evidence records
    unparsed = re.findall(r"Unparsed triple: (\S+) ->", out.stdout + out.stderr)
    assert set(unparsed) == {str(RDF.subject), str(RDF.predicate), str(RDF.object)}
    assert len(unparsed) == 3 * len(set(corpus_graph.subjects(RDF.type, MLKG.Evidence)))
