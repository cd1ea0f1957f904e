"""The networkx view, its exports for graph tools, and the merge log written beside the graph."""

import json

import networkx as nx
import pytest
from rdflib.namespace import RDF, SKOS

from pipeline.analysis import export
from pipeline.model import MERGE_RULES
from pipeline.vocab import ENTITY_CLASSES, MLKG, RELATIONS


def _entities(g):
    return {s for c in ENTITY_CLASSES for s in g.subjects(RDF.type, c)}


@pytest.mark.parametrize("fmt,read", [("graphml", nx.read_graphml), ("gexf", nx.read_gexf)])
def test_export_has_one_node_per_entity_and_one_edge_per_relation(corpus_graph, tmp_path, fmt, read):
    path = tmp_path / f"g.{fmt}"
    export(corpus_graph, path, fmt)
    G = read(str(path))
    entities = _entities(corpus_graph)
    relations = [(s, p, o) for p in RELATIONS for s, o in corpus_graph.subject_objects(p)]
    assert set(G.nodes) == {str(e) for e in entities}
    assert G.number_of_edges() == len(relations)
    venue = next(e for e in entities if (e, RDF.type, MLKG.Venue) in corpus_graph and str(e).endswith("/iclr2025"))
    node = G.nodes[str(venue)]
    assert node["label"] == "ICLR 2025" and node["cls"] == "Venue"
    assert set(node["altLabels"].split(" | ")) == {str(a) for a in corpus_graph.objects(venue, SKOS.altLabel)}


def test_export_rejects_an_unknown_format(corpus_graph, tmp_path):
    from pipeline.errors import InputError

    with pytest.raises(InputError, match="graphml, gexf"):
        export(corpus_graph, tmp_path / "g.dot", "dot")


def test_merge_log_covers_every_entity_with_known_rules(corpus_build, corpus_graph):
    log = json.loads((corpus_build[1] / "merges.json").read_text("utf-8"))
    assert set(log["entities"]) == {str(e) for e in _entities(corpus_graph)}
    records = [m for e in log["entities"].values() for m in e["mentions"]]
    assert records and {m["rule"] for m in records} <= set(MERGE_RULES)
    # the offsets point at the mention's text in its document
    from data import CORPUS_DIR

    texts = {p.name: p.read_text("utf-8") for p in CORPUS_DIR.iterdir()}
    for m in records[:200]:
        assert texts[m["document"]][m["start"]:m["end"]] == m["text"]
