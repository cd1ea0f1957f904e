"""The networkx view, its exports for graph tools, and the merge log written beside the graph."""

import json

from decimal import Decimal

import networkx as nx
import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF, SKOS

from pipeline.analysis import export
from pipeline.model import MERGE_RULES
from pipeline.vocab import ENTITY_CLASSES, MLKG, RELATIONS


def _entities(g):
    return {s for c in ENTITY_CLASSES for s in g.subjects(RDF.type, c)}


def _with_second_evidence(g):
    """A copy of ``g`` in which one relation has a second evidence record, from another document and with a higher
    confidence, so that an edge's counts and confidence are aggregated over several records."""
    out = Graph()
    out += g
    first = sorted(out.subjects(RDF.type, MLKG.Evidence))[0]
    source = out.value(first, MLKG.source)
    other = sorted(d for d in set(out.objects(None, MLKG.source)) if d != source)[0]
    twin = URIRef(str(first) + "-twin")
    for p, o in out.predicate_objects(first):
        out.add((twin, p, o))
    out.set((twin, MLKG.source, other))
    out.set((twin, MLKG.sentence, Literal("A second sentence saying the same.")))
    out.set((twin, MLKG.confidence, Literal(Decimal("1.00"))))
    return out


@pytest.mark.parametrize("fmt,read", [("graphml", nx.read_graphml), ("gexf", nx.read_gexf)])
def test_export_has_one_node_per_entity_and_one_edge_per_relation(corpus_graph, tmp_path, fmt, read):
    corpus_graph = _with_second_evidence(corpus_graph)
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
    # each edge: its label, predicate IRI, highest confidence, distinct documents and sentences, from the evidence
    evidence = {}
    for ev in corpus_graph.subjects(RDF.type, MLKG.Evidence):
        key = tuple(str(corpus_graph.value(ev, p)) for p in (RDF.subject, RDF.predicate, RDF.object))
        evidence.setdefault(key, []).append(ev)
    seen = set()
    for s, o, data in G.edges(data=True):
        assert set(data) - {"id"} == {"label", "predicate", "confidence", "supportCount", "evidenceCount"}, data
        assert data["predicate"] == str(MLKG[data["label"]])
        evs = evidence[(s, data["predicate"], o)]
        assert data["evidenceCount"] == len(evs)
        assert data["supportCount"] == len({corpus_graph.value(ev, MLKG.source) for ev in evs})
        assert data["confidence"] == max(float(corpus_graph.value(ev, MLKG.confidence)) for ev in evs)
        seen.add((s, data["predicate"], o))
    assert seen == {(str(s), str(p), str(o)) for s, p, o in relations}
    assert any(d["evidenceCount"] > 1 for _, _, d in G.edges(data=True))


def test_export_gexf_has_edge_labels_and_no_networkx_attributes(corpus_graph, tmp_path):
    import xml.etree.ElementTree as ET

    path = tmp_path / "g.gexf"
    export(corpus_graph, path, "gexf")
    ns = {"g": "http://www.gexf.net/1.2draft"}
    root = ET.parse(path).getroot()
    titles = {a.get("title") for a in root.iterfind(".//g:attributes/g:attribute", ns)}
    assert titles == {"cls", "altLabels", "documents", "predicate", "confidence", "supportCount", "evidenceCount"}
    edges = root.findall(".//g:edges/g:edge", ns)
    assert edges and {e.get("label") for e in edges} <= {str(r).rsplit("#", 1)[1] for r in RELATIONS}
    assert len({e.get("id") for e in edges}) == len(edges)
    assert "networkx" not in path.read_text("utf-8")
    graphml = tmp_path / "g.graphml"
    export(corpus_graph, graphml, "graphml")
    ids = [e.get("id") for e in ET.parse(graphml).getroot().iter("{http://graphml.graphdrawing.org/xmlns}edge")]
    assert len(ids) == len(set(ids)) == len(edges)  # unique edge ids (GraphML requires them)


@pytest.mark.parametrize("fmt,read", [("graphml", nx.read_graphml), ("gexf", nx.read_gexf)])
def test_export_keeps_hostile_labels_readable(tmp_path, fmt, read):
    """Labels with quotes, markup, newlines and controls XML cannot hold: the file parses, text is kept
    (the characters XML 1.0 forbids become U+FFFD)."""
    from pipeline.model import Entity, Evidence, Relation, Resolution
    from pipeline.rdf import to_graph

    label = 'A "B" <c> & d\ne\tf\x0bg\u2028h'
    ev = Evidence(doc_id="d\x0c.txt", sentence=label, start_char=0, end_char=3)
    g = to_graph(Resolution(
        entities=(Entity(key="Method/x", cls=MLKG.Method, label=label, alt_labels=frozenset(), doc_ids=("d\x0c.txt",)),
                  Entity(key="Venue/y", cls=MLKG.Venue, label="V", alt_labels=frozenset(), doc_ids=("d\x0c.txt",))),
        relations=(Relation(subject="Method/x", predicate=MLKG.demoedAt, object="Venue/y", evidence=((ev, "r", 0.5),)),)))
    export(g, tmp_path / f"g.{fmt}", fmt)
    G = read(str(tmp_path / f"g.{fmt}"))
    labels = {d["label"] for _, d in G.nodes(data=True)}
    assert labels == {'A "B" <c> & d\ne\tf\ufffdg\u2028h', "V"}
    assert {d["documents"] for _, d in G.nodes(data=True)} == {"d\ufffd.txt"}
    (edge,) = G.edges(data=True)
    assert edge[2]["label"] == "demoedAt" and edge[2]["confidence"] == 0.5


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


def test_entity_stats_are_networkxs_on_random_graphs():
    """The report's statistics counted straight from the tables (``analysis.entity_stats``, a patched build's)
    are networkx's over ``analysis.entity_graph``: loops, parallel relations, isolated and non-entity nodes."""
    import random

    from pipeline.analysis import entity_graph, entity_stats

    rng = random.Random(5)
    classes = [str(c) for c in ENTITY_CLASSES] + ["https://example.org/NotAnEntity"]
    for _ in range(60):
        n = rng.randrange(0, 40)
        entities = [(f"https://e.org/{i}", rng.choice(classes), rng.choice(["A", "B", "C", f"L{i}"])) for i in range(n)]
        iris = [e[0] for e in entities] + ["https://e.org/missing"]
        relations = [(rng.choice(iris), str(rng.choice(RELATIONS)), rng.choice(iris)) for _ in range(rng.randrange(0, 60))] if n else []
        G = entity_graph(entities, relations)
        want = {"nodes": G.number_of_nodes(), "edges": G.number_of_edges(),
                "components": nx.number_weakly_connected_components(G) if G.number_of_nodes() else 0}
        methods = sorted(((d, G.nodes[v]["label"]) for v, d in G.degree() if G.nodes[v]["cls"] == "Method"),
                         key=lambda x: (-x[0], x[1]))[:5]
        want["most_connected_methods"] = [f"{label} ({d})" for d, label in methods]
        assert entity_stats(entities, relations) == want
