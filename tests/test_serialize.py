"""N-Triples, JSON-LD and TriG from the same build: each parsed back is the Turtle graph, and each is
byte-identical for the same graph; graph.jsonld stands alone; hostile text cannot break a line or add a triple."""

from __future__ import annotations

import json

import pytest
from rdflib import Dataset, Graph, Literal, URIRef
from rdflib.compare import isomorphic, to_isomorphic
from rdflib.namespace import RDF, RDFS, XSD

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
    (out / "graph.trig").write_bytes(S.trig_bytes(corpus_graph))
    return out


def test_serialize_ntriples_round_trips_and_is_sorted(written, corpus_graph):
    import pyoxigraph as ox

    _assert_same(corpus_graph, Graph().parse(str(written / "graph.nt"), format="nt"))
    lines = (written / "graph.nt").read_text(encoding="utf-8").splitlines()
    assert lines == sorted(lines) and len(lines) == len(corpus_graph)
    assert len(list(ox.parse(path=str(written / "graph.nt"), format=ox.RdfFormat.N_TRIPLES))) == len(corpus_graph)


def test_serialize_jsonld_embeds_its_context_with_json_friendly_terms(written, corpus_graph):
    doc = json.loads((written / "graph.jsonld").read_text(encoding="utf-8"))
    assert isinstance(doc["@context"], dict) and doc["@context"] == S.jsonld_context()
    keys = {k for node in doc["@graph"] for k in node}
    assert {"id", "type", "label", "presentedAt", "sentence", "confidence", "mentionedIn"} <= keys
    assert not any(":" in k or k.startswith("@") for k in keys), sorted(keys)
    types = {t for node in doc["@graph"] for t in ([node["type"]] if isinstance(node["type"], str) else node["type"])}
    assert {"Paper", "Venue", "Method", "Evidence", "Document"} <= types
    paper = next(n for n in doc["@graph"] if n.get("presentedAt"))
    assert isinstance(paper["presentedAt"], str) and paper["presentedAt"].startswith("res:venue/")
    evidence = next(n for n in doc["@graph"] if n["type"] == "Evidence")
    assert isinstance(evidence["startChar"], int) and isinstance(evidence["supportCount"], int)


def test_serialize_jsonld_context_comes_from_the_vocabulary():
    context = S.jsonld_context()
    assert set(MLKG.__annotations__) <= set(context)
    for name in MLKG.__annotations__:
        entry = context[name]
        assert (entry if isinstance(entry, str) else entry["@id"]) == f"mlkg:{name}"
    assert {local for local in (str(r).rsplit("#", 1)[1] for r in RELATIONS)} <= {
        k for k, v in context.items() if isinstance(v, dict) and v.get("@type") == "@id"}
    assert json.loads(S.context_bytes())["@context"] == context


def test_serialize_jsonld_copied_alone_loads_in_rdflib_pyoxigraph_and_pyld(tmp_path, written, corpus_graph):
    import pyoxigraph as ox
    from pyld import jsonld

    alone = tmp_path / "graph.jsonld"  # an empty folder: nothing beside it to resolve
    alone.write_bytes((written / "graph.jsonld").read_bytes())
    _assert_same(corpus_graph, Graph().parse(str(alone), format="json-ld"))
    _assert_same(corpus_graph, _ox_graph(alone, ox.RdfFormat.JSON_LD))
    nquads = jsonld.to_rdf(json.loads(alone.read_text("utf-8")), {"format": "application/n-quads"})  # default loader
    _assert_same(corpus_graph, Graph().parse(data=nquads, format="nt"))
    # fetched by PyLD's default document loader from a server of that folder alone
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(SimpleHTTPRequestHandler, directory=str(tmp_path)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/graph.jsonld"
        nquads = jsonld.to_rdf(url, {"format": "application/n-quads"})
    finally:
        server.shutdown()
        server.server_close()
    _assert_same(corpus_graph, Graph().parse(data=nquads, format="nt"))


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
    assert sorted(p.name for p in (tmp_path / "a").iterdir() if p.is_file() and not p.name.startswith(".")) == ["graph.ttl", "merges.json", "report.json"]
    assert {"graph.ttl", "graph.nt", "graph.jsonld", "graph.trig", "merges.json", "report.json"} <= {
        p.name for p in (tmp_path / "b").iterdir() if p.is_file()}
    for name in ("graph.ttl", "report.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    ttl = Graph().parse(str(tmp_path / "b" / "graph.ttl"))
    _assert_same(ttl, Graph().parse(str(tmp_path / "b" / "graph.nt"), format="nt"))
    _assert_same(ttl, Graph().parse(str(tmp_path / "b" / "graph.jsonld"), format="json-ld"))
    bad = runner.invoke(app, ["build", str(TINY_DOCS), "--out", str(tmp_path / "c"), "--formats", "ttl,rdfxml"])
    assert bad.exit_code == 3 and "rdfxml" in bad.output


EVIL = "<http://evil.example/s> <http://evil.example/p> <http://evil.example/o> ."
HOSTILE = ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\n"]


def test_serialize_build_of_hostile_text_gives_exact_files_in_both_parsers(tmp_path):
    """Line and paragraph separators, VT, FF and newlines in document ids, names and sentences: graph.nt,
    graph.trig and graph.jsonld as ``mlkg build`` writes them parse in rdflib and pyoxigraph to graph.ttl's graph,
    N-Triples stays one statement a line, and the text's N-Triples never becomes a triple."""
    import pyoxigraph as ox

    from pipeline import BuildConfig, build

    docs = tmp_path / "docs"
    docs.mkdir()
    sentence = (f"Our paper DepthNet: Sharp Depth\u2028{EVIL}\u2028in Less Than a Second will be presented at ICLR 2025."
                "\x0b It evaluates DepthNet on KITTI.\x0c\n\nThe model\x85runs on the Apple M2 Ultra.\u2029\x1c\n")
    (docs / "post\u2028one\x85.txt").write_text(sentence, encoding="utf-8")
    (docs / "feed.jsonl").write_text(json.dumps({"id": "line\nbreak\u2028\u2029\x0b\x0c\x1c\x85", "text": sentence}) + "\n",
                                     encoding="utf-8")
    out = tmp_path / "out"
    build(BuildConfig(inputs=(docs,), out_dir=out, html=False, cache=False, formats=("ttl", "nt", "jsonld", "trig")))
    ttl = Graph().parse(str(out / "graph.ttl"), format="turtle")
    literals = " ".join(str(o) for o in ttl.objects())
    assert all(ch in literals for ch in HOSTILE), [ch for ch in HOSTILE if ch not in literals]
    assert "feed.jsonl#line\nbreak\u2028\u2029\x0b\x0c\x1c\x85" in {str(o) for o in ttl.objects(None, RDFS.label)}

    nt = (out / "graph.nt").read_text("utf-8")
    assert nt.splitlines() == nt.split("\n")[:-1] and len(nt.splitlines()) == len(ttl)  # no separator left raw
    for line in nt.splitlines():  # each line alone is one triple
        assert len(Graph().parse(data=line, format="nt")) == 1
    trig = Dataset()
    trig.parse(str(out / "graph.trig"), format="trig")
    parsed = {
        "nt": Graph().parse(str(out / "graph.nt"), format="nt"),
        "jsonld": Graph().parse(str(out / "graph.jsonld"), format="json-ld"),
        "trig": _union((s, p, o) for s, p, o, _ in trig.quads((None, None, None, None))),
    }
    oxfmt = {"ttl": ox.RdfFormat.TURTLE, "nt": ox.RdfFormat.N_TRIPLES, "jsonld": ox.RdfFormat.JSON_LD,
             "trig": ox.RdfFormat.TRIG}
    for ext, fmt in oxfmt.items():
        parsed[f"{ext} (pyoxigraph)"] = _ox_graph(out / f"graph.{ext}", fmt)
    for name, g in parsed.items():
        assert not any("evil.example" in str(t) for triple in g for t in triple if not isinstance(t, Literal)), name
        _assert_same(ttl, g)


def _ox_graph(path, fmt) -> Graph:
    """The triples pyoxigraph reads from ``path`` (the union of its graphs), as an rdflib Graph."""
    import pyoxigraph as ox

    def term(t):
        if isinstance(t, ox.NamedNode):
            return URIRef(t.value)
        if t.language:
            return Literal(t.value, lang=t.language)
        return Literal(t.value, datatype=None if t.datatype.value == str(XSD.string) else URIRef(t.datatype.value))

    return _union((term(q.subject), term(q.predicate), term(q.object)) for q in ox.parse(path=str(path), format=fmt))


def _union(triples) -> Graph:
    g = Graph()
    for t in triples:
        g.add(t)
    return g
