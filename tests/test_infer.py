"""`mlkg build --infer`: the OWL-RL entailments make the graph answer queries in the aligned vocabularies."""

from __future__ import annotations

import pytest
from rdflib import Graph
from rdflib.namespace import OWL, RDF

from data import TEST_DATA_DIR
from pipeline import infer
from pipeline.vocab import MLKG, SCHEMA

TINY_DOCS = TEST_DATA_DIR / "docs_tiny"
SCHOLARLY_ARTICLES = """
PREFIX schema: <https://schema.org/>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?paper ?title WHERE { ?paper a schema:ScholarlyArticle ; rdfs:label ?title } ORDER BY ?title
"""


@pytest.fixture(scope="module")
def entailed(corpus_graph) -> Graph:
    return infer.entail(corpus_graph)


def test_infer_scholarly_article_query_finds_exactly_the_papers(entailed, corpus_graph):
    papers = set(corpus_graph.subjects(RDF.type, MLKG.Paper))
    assert len(papers) > 10
    found = {row.paper for row in entailed.query(SCHOLARLY_ARTICLES)}
    assert found == papers
    assert not set(corpus_graph.query(SCHOLARLY_ARTICLES))  # without inference, nothing


def test_infer_adds_alignments_and_keeps_the_graph(entailed, corpus_graph):
    assert set(corpus_graph) <= set(entailed)
    venue = next(corpus_graph.subjects(RDF.type, MLKG.Venue))
    assert (venue, RDF.type, SCHEMA.Event) in entailed
    doc, entity = next((d, e) for e, d in corpus_graph.subject_objects(MLKG.mentionedIn))
    assert (doc, SCHEMA.mentions, entity) in entailed  # owl:inverseOf
    # no noise: nothing about the vocabulary, no reflexive sameAs, no owl:Thing
    assert (None, OWL.sameAs, None) not in entailed
    assert (None, RDF.type, OWL.Thing) not in entailed
    assert (MLKG.Paper, None, None) not in entailed


def test_infer_entailed_graph_still_conforms_and_is_deterministic(entailed, corpus_graph):
    from pipeline.validate import validate_graph
    from pipeline.write import turtle_bytes

    assert validate_graph(entailed).conforms
    assert turtle_bytes(infer.entail(corpus_graph)) == turtle_bytes(entailed)


def test_infer_build_flag_answers_sparql_on_the_written_graph(tmp_path):
    from pipeline import BuildConfig, build
    from pipeline.query import load_query, run_query

    build(BuildConfig(inputs=(TINY_DOCS,), out_dir=tmp_path / "plain", html=False))
    build(BuildConfig(inputs=(TINY_DOCS,), out_dir=tmp_path / "infer", html=False, infer=True))
    query = tmp_path / "articles.rq"
    query.write_text(SCHOLARLY_ARTICLES)
    with_infer = run_query(load_query(str(query)), tmp_path / "infer" / "graph.ttl", {})
    without = run_query(load_query(str(query)), tmp_path / "plain" / "graph.ttl", {})
    assert [r[1] for r in with_infer.rows] == ["Zorblax: Fast Widget Networks for Everyone"]
    assert not without.rows
