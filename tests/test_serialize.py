"""N-Triples, JSON-LD and TriG from the same build: each parsed back is the Turtle graph, and each is
byte-identical for the same graph."""

from __future__ import annotations

import json

import pytest
from rdflib import Dataset, Graph
from rdflib.compare import isomorphic, to_isomorphic
from rdflib.namespace import RDF

from data import TEST_DATA_DIR
from pipeline import serialize as S
from pipeline.vocab import MLKG, RELATIONS

TINY_DOCS = TEST_DATA_DIR / "docs_tiny"


def _assert_same(expected: Graph, actual: Graph) -> None:
    if not isomorphic(expected, actual):
        only_e = set(to_isomorphic(expected)) - set(to_isomorphic(actual))
        only_a = set(to_isomorphic(actual)) - set(to_isomorphic(expected))
        pytest.fail(f"only in Turtle: {sorted(only_e)[:5]}\nonly in the other: {sorted(only_a)[:5]}")


@pytest.fixture(scope="module")
def written(tmp_path_factory, corpus_graph):
    out = tmp_path_factory.mktemp("formats")
    (out / "graph.nt").write_bytes(S.ntriples_bytes(corpus_graph))
    (out / "graph.jsonld").write_bytes(S.jsonld_bytes(corpus_graph))
    (out / S.CONTEXT_FILE).write_bytes(S.context_bytes())
    (out / "graph.trig").write_bytes(S.trig_bytes(corpus_graph))
    return out


def test_serialize_ntriples_round_trips_and_is_sorted(written, corpus_graph):
    import pyoxigraph as ox

    _assert_same(corpus_graph, Graph().parse(str(written / "graph.nt"), format="nt"))
    lines = (written / "graph.nt").read_text(encoding="utf-8").splitlines()
    assert lines == sorted(lines) and len(lines) == len(corpus_graph)
    assert len(list(ox.parse(path=str(written / "graph.nt"), format=ox.RdfFormat.N_TRIPLES))) == len(corpus_graph)


def test_serialize_jsonld_round_trips_through_its_context_file(written, corpus_graph):
    doc = json.loads((written / "graph.jsonld").read_text(encoding="utf-8"))
    assert doc["@context"] == S.CONTEXT_FILE  # a reference, resolved against the file's own location
    context = json.loads((written / S.CONTEXT_FILE).read_text())["@context"]
    assert context["mlkg"] == str(MLKG._NS)
    assert any(k.startswith("mlkg:") for node in doc["@graph"] for k in node)  # compacted with the context
    _assert_same(corpus_graph, Graph().parse(str(written / "graph.jsonld"), format="json-ld"))


def test_serialize_jsonld_without_its_context_file_fails_loudly(tmp_path, written):
    (tmp_path / "graph.jsonld").write_bytes((written / "graph.jsonld").read_bytes())
    with pytest.raises(Exception):
        Graph().parse(str(tmp_path / "graph.jsonld"), format="json-ld")


def test_serialize_trig_union_is_the_turtle_graph_with_one_graph_per_document(written, corpus_graph):
    import pyoxigraph as ox

    ds = Dataset()
    ds.parse(str(written / "graph.trig"), format="trig")
    union = Graph()
    for s, p, o, _ in ds.quads((None, None, None, None)):
        union.add((s, p, o))
    _assert_same(corpus_graph, union)  # default graph + all named graphs == the Turtle graph, exactly
    documents = set(corpus_graph.subjects(RDF.type, MLKG.Document))
    named = {g.identifier: g for g in ds.graphs() if g.identifier != ds.default_graph.identifier and len(g)}
    assert set(named) == documents
    for doc, g in named.items():
        # each evidence record is in the graph of the document it was read from, with the relation it supports
        for ev in g.subjects(RDF.type, MLKG.Evidence):
            assert g.value(ev, MLKG.source) == doc
            assert (g.value(ev, RDF.subject), g.value(ev, RDF.predicate), g.value(ev, RDF.object)) in g
        for s, p, o in g:
            if p in RELATIONS:
                assert any(g.value(ev, MLKG.source) == doc for ev in g.subjects(RDF.subject, s)), (s, p, o)
    default = ds.default_graph
    assert (None, RDF.type, MLKG.Evidence) not in default and (None, MLKG.mentionedIn, None) not in default
    quads = list(ox.parse(path=str(written / "graph.trig"), format=ox.RdfFormat.TRIG))
    assert {q.graph_name.value for q in quads if isinstance(q.graph_name, ox.NamedNode)} == {str(d) for d in documents}


@pytest.mark.parametrize("fn", [S.ntriples_bytes, S.jsonld_bytes, S.trig_bytes], ids=lambda f: f.__name__)
def test_serialize_is_deterministic(fn, corpus_build):
    g1 = Graph().parse(str(corpus_build[1] / "graph.ttl"))
    g2 = Graph().parse(data=Graph().parse(str(corpus_build[1] / "graph.ttl")).serialize(format="nt"), format="nt")
    assert fn(g1) == fn(g2)


def test_serialize_build_formats_flag_writes_them_and_leaves_turtle_alone(tmp_path):
    from typer.testing import CliRunner

    from pipeline.cli import app

    runner = CliRunner()
    plain = runner.invoke(app, ["build", str(TINY_DOCS), "--out", str(tmp_path / "a"), "--no-html"])
    full = runner.invoke(app, ["build", str(TINY_DOCS), "--out", str(tmp_path / "b"), "--no-html", "--formats", "all"])
    assert plain.exit_code == 0 and full.exit_code == 0, plain.output + full.output
    assert sorted(p.name for p in (tmp_path / "a").iterdir() if p.is_file()) == ["graph.ttl", "merges.json", "report.json"]
    assert sorted(p.name for p in (tmp_path / "b").iterdir() if p.is_file()) == sorted(
        ["graph.ttl", "graph.nt", "graph.jsonld", "context.jsonld", "graph.trig", "merges.json", "report.json"])
    for name in ("graph.ttl", "report.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    ttl = Graph().parse(str(tmp_path / "b" / "graph.ttl"))
    _assert_same(ttl, Graph().parse(str(tmp_path / "b" / "graph.nt"), format="nt"))
    _assert_same(ttl, Graph().parse(str(tmp_path / "b" / "graph.jsonld"), format="json-ld"))
    bad = runner.invoke(app, ["build", str(TINY_DOCS), "--out", str(tmp_path / "c"), "--formats", "ttl,rdfxml"])
    assert bad.exit_code == 3 and "rdfxml" in bad.output
