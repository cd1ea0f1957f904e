"""The vocabulary module and the ontology declare the same terms."""

import pytest
from rdflib import Graph, URIRef
from rdflib.namespace import RDF

from data import ONTOLOGY
from pipeline.vocab import MLKG


def _ontology_terms() -> set[str]:
    g = Graph().parse(str(ONTOLOGY))
    ns = str(MLKG._NS)
    return {str(s)[len(ns):] for s in g.subjects(RDF.type, None) if isinstance(s, URIRef) and str(s).startswith(ns)}


def test_vocab_matches_ontology_both_ways():
    declared = set(MLKG.__annotations__)
    assert declared == _ontology_terms()


@pytest.mark.parametrize("name", ["presentedOn", "Person"])
def test_vocab_unknown_term_raises(name):
    with pytest.raises(AttributeError):
        getattr(MLKG, name)


def test_vocab_ontology_parses_in_pyoxigraph():
    import pyoxigraph as ox

    triples = list(ox.parse(path=str(ONTOLOGY), format=ox.RdfFormat.TURTLE))
    assert len(triples) > 50
