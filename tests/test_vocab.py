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


def test_vocab_relation_ends_are_allowed_by_the_ontology():
    """Every pair of classes the extraction may join by a relation lies in the ontology's domain and range."""
    from rdflib.collection import Collection
    from rdflib.namespace import OWL, RDFS

    from pipeline.vocab import RELATION_ENDS, RELATIONS, local_name

    g = Graph().parse(str(ONTOLOGY))

    def classes(node):
        union = g.value(node, OWL.unionOf)
        return {local_name(c) for c in Collection(g, union)} if union is not None else {local_name(node)}

    assert set(RELATION_ENDS) == {local_name(r) for r in RELATIONS}
    for name, pairs in RELATION_ENDS.items():
        domain, range_ = classes(g.value(MLKG[name], RDFS.domain)), classes(g.value(MLKG[name], RDFS.range))
        assert all(s in domain and o in range_ for s, o in pairs), name
