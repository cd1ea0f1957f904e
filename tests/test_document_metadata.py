"""What is known of a document (title, URL, date, format...) is on its node in the graph, the same in every path."""

import shutil
from pathlib import Path

import pyoxigraph as ox
import pytest
from rdflib import URIRef
from rdflib.namespace import XSD

from pipeline import BuildConfig, build, incremental, stream
from pipeline.rdf import date_literal, document_iri_text, web_iri

INGEST = Path(__file__).parent / "data" / "ingest"
OUTPUTS = ("graph.ttl", "merges.json", "report.json")


@pytest.fixture
def docs(tmp_path):
    d = tmp_path / "docs"
    d.mkdir()
    for name in ("lab_post.md", "release.html"):
        shutil.copy(INGEST / name, d / name)
    return d


def _meta(graph: Path, doc_id: str) -> dict[str, set[str]]:
    """``{predicate: {object as N-Triples}}`` of a document's node, by SPARQL over the written Turtle."""
    store = ox.Store()
    store.load(graph.read_bytes(), ox.RdfFormat.TURTLE)
    out: dict[str, set[str]] = {}
    for row in store.query(f"SELECT ?p ?o WHERE {{ <{document_iri_text(doc_id)}> ?p ?o }}"):
        out.setdefault(row["p"].value, set()).add(str(row["o"]))
    return out


DC, SCHEMA = "http://purl.org/dc/terms/", "https://schema.org/"
XSD_NS = "http://www.w3.org/2001/XMLSchema#"


def test_markdown_front_matter_and_html_meta_are_on_the_document_nodes(docs, tmp_path):
    out = tmp_path / "out"
    build(BuildConfig(inputs=(docs,), out_dir=out, html=False, validate=True, cache=False))
    md = _meta(out / "graph.ttl", "lab_post.md")
    assert md[DC + "title"] == {'"Harbor Lab at NeurIPS 2025"'}
    assert md[DC + "format"] == {'"markdown"'}
    assert md[DC + "date"] == {f'"2025-11-24"^^<{XSD_NS}date>'}
    assert md[DC + "creator"] == {'"Harbor Lab"'}
    assert md[SCHEMA + "url"] == {"<https://harbor-lab.example/blog/neurips-2025>"}
    html = _meta(out / "graph.ttl", "release.html")
    assert html[DC + "title"] == {'"Release: Orca-Vision 2.0"'}
    assert html[DC + "format"] == {'"html"'}
    assert html[DC + "date"] == {f'"2026-02-10"^^<{XSD_NS}date>'}  # ingest keeps the day
    assert html[SCHEMA + "url"] == {"<https://orca.example/releases/orca-vision-2>"}
    assert any("Orca-Vision 2.0" in d for d in html[DC + "description"])


def test_streamed_and_in_memory_builds_write_the_same_bytes(docs, tmp_path, monkeypatch):
    plain, streamed = tmp_path / "plain", tmp_path / "streamed"
    build(BuildConfig(inputs=(docs,), out_dir=plain, html=True, validate=False, cache=False))  # html: the plain path
    monkeypatch.setattr(stream, "SPILL_BYTES", 500)
    build(BuildConfig(inputs=(docs,), out_dir=streamed, html=False, validate=False, cache=False))
    assert b"dcterms:title" in (plain / "graph.ttl").read_bytes()
    for name in OUTPUTS:
        assert (streamed / name).read_bytes() == (plain / name).read_bytes(), name


def test_editing_only_a_meta_date_rebuilds_that_document(docs, tmp_path, monkeypatch):
    for f in sorted((Path(__file__).parents[1] / "corpus").glob("*.txt")):  # one change in seven: a patch
        shutil.copy(f, docs / f.name)
    calls = []
    real = incremental.rebuild
    monkeypatch.setattr(incremental, "rebuild", lambda *a, **k: calls.append(real(*a, **k)) or calls[-1])
    out = tmp_path / "out"
    config = BuildConfig(inputs=(docs,), out_dir=out, html=False, validate=False)
    build(config)
    before = (out / "graph.ttl").read_bytes()
    page = docs / "release.html"
    page.write_text(page.read_text("utf-8").replace("2026-02-10T09:00:00Z", "2026-03-01"), "utf-8")
    build(config)
    after = (out / "graph.ttl").read_bytes()
    assert after != before
    assert _meta(out / "graph.ttl", "release.html")[DC + "date"] == {f'"2026-03-01"^^<{XSD_NS}date>'}
    assert calls and calls[-1] is not None  # patched in place, the document's block rendered again
    fresh = tmp_path / "fresh"
    build(BuildConfig(inputs=(docs,), out_dir=fresh, html=False, validate=False, cache=False))
    assert after == (fresh / "graph.ttl").read_bytes()


@pytest.mark.parametrize("value, datatype", [
    ("2025-11-03", XSD.date), ("2026-02-10T09:00:00Z", XSD.dateTime), ("2026-02-10T09:00:00+01:00", XSD.dateTime),
    ("2025-11", None), ("2025", None), ("2025-13-40", None), ("yesterday", None)])
def test_dates_are_typed_only_when_they_are_dates(value, datatype):
    lit = date_literal(value)
    assert str(lit) == value and lit.datatype == datatype


@pytest.mark.parametrize("value, ok", [
    ("https://a.example/x?y=1", True), ("http://a.example", True), ("ftp://a.example/x", False),
    ("/relative/path", False), ("https://a.example/a b", False), ("javascript:alert(1)", False), ("https://", False)])
def test_urls_are_iris_only_when_absolute_http(value, ok):
    assert (web_iri(value) == URIRef(value)) if ok else web_iri(value) is None
