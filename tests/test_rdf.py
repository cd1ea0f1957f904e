"""IRIs and the graph: valid in every serialisation, stable, provenance complete."""

import pyoxigraph as ox
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF

from data import CORPUS_DIR
from pipeline.rdf import entity_iri, slug
from pipeline.vocab import MLKG


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=60))
def test_rdf_minted_iris_always_parse(label):
    iri = entity_iri("Method/" + label)
    nt = f"<{iri}> <http://example.org/p> \"x\" .\n"
    assert list(ox.parse(nt.encode(), format=ox.RdfFormat.N_TRIPLES))
    Graph().parse(data=nt, format="nt")


@pytest.mark.parametrize("a,b", [("ICLR 2025", "ICLR 2025"), ("a<b", "a<b")])
def test_rdf_slug_is_deterministic(a, b):
    assert slug(a) == slug(b)


def test_rdf_corpus_graph_parses_in_pyoxigraph(corpus_build):
    quads = list(ox.parse(path=str(corpus_build[1] / "graph.ttl"), format=ox.RdfFormat.TURTLE))
    assert len(quads) > 500


@pytest.mark.parametrize("cls", ["Paper", "Method", "Dataset", "Venue", "Hardware"])
def test_rdf_corpus_graph_has_every_class(corpus_graph, cls):
    assert any(corpus_graph.subjects(RDF.type, MLKG[cls]))


@pytest.mark.parametrize("prop", ["presentedAt", "introduces", "extends", "demoedAt", "demoedOn"])
def test_rdf_corpus_graph_has_core_relations(corpus_graph, prop):
    assert any(corpus_graph.subject_objects(MLKG[prop]))


def test_rdf_every_relation_has_provenance_whose_offsets_slice_the_document(corpus_graph):
    from rdflib.namespace import RDFS

    texts = {p.name: p.read_text("utf-8") for p in CORPUS_DIR.glob("*.txt")}
    n = 0
    for prop in [MLKG.presentedAt, MLKG.introduces, MLKG.extends, MLKG.evaluatedOn, MLKG.runsOn, MLKG.demoedAt,
                 MLKG.demoedOn, MLKG.outperforms, MLKG.uses, MLKG.partOf, MLKG.affiliatedWith]:
        for s, o in corpus_graph.subject_objects(prop):
            evs = [e for e in corpus_graph.subjects(RDF.subject, s)
                   if corpus_graph.value(e, RDF.predicate) == prop and corpus_graph.value(e, RDF.object) == o]
            assert evs, f"no provenance for {s} {prop} {o}"
            for e in evs:
                doc = str(corpus_graph.value(corpus_graph.value(e, MLKG.source), RDFS.label))
                start, end = int(corpus_graph.value(e, MLKG.startChar)), int(corpus_graph.value(e, MLKG.endChar))
                assert texts[doc][start:end] == str(corpus_graph.value(e, MLKG.sentence))
                assert 0.0 <= float(corpus_graph.value(e, MLKG.confidence)) <= 1.0
                n += 1
    assert n > 50
