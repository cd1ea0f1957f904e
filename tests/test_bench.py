"""The benchmark's graph and its engine comparison (correctness only: the figures are printed, never asserted)."""

import pyoxigraph as ox

from pipeline.querybench import format_bench, replicate, run_bench
from pipeline.query import list_queries


def test_replicated_graph_has_the_shape_of_the_original(corpus_build):
    graph = corpus_build[1] / "graph.ttl"
    n0 = sum(1 for _ in ox.parse(path=str(graph), format=ox.RdfFormat.TURTLE))
    data, n = replicate(graph, 3 * n0)
    assert n == 3 * n0
    store = ox.Store()
    store.bulk_load(data, ox.RdfFormat.N_TRIPLES)
    assert len(store) == n   # renamed copies do not collapse into the original
    count = 'SELECT (COUNT(*) AS ?n) WHERE { ?p <https://w3id.org/mlkg/ontology#presentedAt> ?v }'
    original = ox.Store()
    original.bulk_load(path=str(graph), format=ox.RdfFormat.TURTLE)
    assert int(next(iter(store.query(count)))["n"].value) == 3 * int(next(iter(original.query(count)))["n"].value)


def test_both_engines_agree_on_every_named_query(corpus_build):
    setup, rows = run_bench(corpus_build[1] / "graph.ttl", 2 * 1500, repeat=1, log=lambda m: None)
    assert setup["triples"] >= 3000
    assert [r.query for r in rows] == list(list_queries())
    assert all(r.rows == r.rdflib_rows for r in rows), rows
    assert "geometric mean speed-up" in format_bench(setup, rows)
