"""The streaming build (stream.py) writes the very bytes of the plain path, from sorted runs on disk."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from data import CORPUS_DIR, TEST_DATA_DIR

from pipeline import BuildConfig, build, stream
from pipeline.facts import compact, expand
from pipeline.generate import generate_corpus
from pipeline.model import Document, Evidence, Extraction, Mention, RelationMention
from pipeline.vocab import MLKG

OUTPUTS = ("graph.ttl", "merges.json", "report.json")


def _plain_and_streamed(inputs, tmp_path, monkeypatch, spill_bytes):
    """Build twice: the plain path (html forces it) and the streaming one; return both folders."""
    plain, streamed = tmp_path / "plain", tmp_path / "streamed"
    build(BuildConfig(inputs=inputs, out_dir=plain, html=True, validate=False, cache=False))
    monkeypatch.setattr(stream, "SPILL_BYTES", spill_bytes)  # tiny runs: the k-way merge is exercised
    runs = []
    real = stream.Sorter._flush
    monkeypatch.setattr(stream.Sorter, "_flush", lambda self: (runs.append(self.stem), real(self))[1])
    report = build(BuildConfig(inputs=inputs, out_dir=streamed, html=False, validate=False, cache=False))
    assert not (streamed / "graph.html").exists()
    assert {"ttl", "merges"} <= set(runs), "the streaming path should have spilled sorted runs"
    assert not list(streamed.glob(".mlkg-spill-*")), "the spill folder is removed after the build"
    return plain, streamed, report


@pytest.mark.parametrize("inputs", [(CORPUS_DIR,), (TEST_DATA_DIR / "generalisation" / "docs",)], ids=["corpus", "generalisation"])
def test_stream_writes_the_bytes_of_the_plain_path(inputs, tmp_path, monkeypatch):
    plain, streamed, report = _plain_and_streamed(inputs, tmp_path, monkeypatch, 3000)
    for name in OUTPUTS:
        assert (streamed / name).read_bytes() == (plain / name).read_bytes(), name
    assert report.documents_read == json.loads((plain / "report.json").read_text())["documents_read"]


def test_stream_generated_corpus_and_auto_validation_limit(tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    generate_corpus(150, docs)
    plain, streamed, _ = _plain_and_streamed((docs,), tmp_path, monkeypatch, 20000)
    for name in OUTPUTS:
        assert (streamed / name).read_bytes() == (plain / name).read_bytes(), name


def test_stream_auto_validation_decides_by_the_same_triple_count(tmp_path, monkeypatch):
    """Validation left automatic: over the limit the build streams and says so; at the limit it validates."""
    from pipeline import config, rdf, resolve
    from pipeline.executor import extract_documents
    from pipeline.ingest import read_documents
    from pipeline.nlp import pick_model

    docs = tmp_path / "docs"
    generate_corpus(16, docs)
    monkeypatch.setattr(config, "VALIDATE_AUTO_LIMIT", 100)
    monkeypatch.setattr(sys.modules["pipeline.build"], "VALIDATE_AUTO_LIMIT", 100)
    auto = build(BuildConfig(inputs=(docs,), out_dir=tmp_path / "auto", html=False, cache=False))
    assert auto.validation.startswith("skipped: ") and "over the automatic limit of 100" in auto.validation
    n = int(auto.validation.split()[1])
    exs = extract_documents(list(read_documents([docs], 5_000_000, [])), pick_model())
    assert n == sum(1 for _ in rdf.triples(resolve.resolve(exs)))  # the count the plain path decides by
    monkeypatch.setattr(sys.modules["pipeline.build"], "VALIDATE_AUTO_LIMIT", n)
    small = build(BuildConfig(inputs=(docs,), out_dir=tmp_path / "small", html=False, cache=False))
    assert small.validation == "" and "validate" in small.seconds
    assert (tmp_path / "small" / "graph.ttl").read_bytes() == (tmp_path / "auto" / "graph.ttl").read_bytes()


def test_stream_compact_facts_round_trip():
    doc = Document(id="a.txt", path=Path("a.txt"), text="We propose FooNet. It beats BERT.")
    e1 = Evidence("a.txt", "We propose FooNet.", 0, 18)
    e2 = Evidence("a.txt", "It beats BERT.", 19, 33)
    foo = Mention("a.txt", "FooNet", MLKG.Method, 11, 17, e1, "FooNet", ("FN",))
    bert = Mention("a.txt", "BERT", MLKG.Method, 28, 32, e2)
    ex = Extraction(doc, (foo, bert), (RelationMention(foo, MLKG.outperforms, bert, e2, "beats", 0.8),))
    facts = compact(ex)
    assert expand(doc, facts) == ex
    with pytest.raises(ValueError):
        compact(Extraction(Document("b.txt", Path("b.txt"), ""), (foo,), ()))


def test_stream_failed_write_leaves_previous_outputs_and_no_spill(tmp_path):
    """A streaming build that fails while writing graph.ttl (an injected I/O error) changes nothing."""
    docs = tmp_path / "docs"
    generate_corpus(12, docs)
    out = tmp_path / "out"
    build(BuildConfig(inputs=(docs,), out_dir=out, html=False, validate=False))
    before = {n: (out / n).read_bytes() for n in OUTPUTS}
    (docs / "extra.txt").write_text("We propose GlimmerNet, which outperforms BERT on ImageNet.\n", "utf-8")
    env = {**os.environ, "MLKG_TEST_FAULT": "raise:staged"}
    r = subprocess.run([sys.executable, "-m", "pipeline", "build", str(docs), "--out", str(out), "--no-html",
                        "--no-validate"], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode != 0 and "fault injected" in r.stderr
    assert {n: (out / n).read_bytes() for n in OUTPUTS} == before
    assert not [p.name for p in out.iterdir() if p.name.startswith(".") and p.name != ".mlkg-cache"]


def test_stream_render_memo_is_reused_only_while_its_entities_and_supports_hold(tmp_path, monkeypatch):
    """A document's rendered blocks are kept in its cache entry; a rebuild reuses them, unless what they
    depend on elsewhere (the support count of a relation, an entity's label) changed: the bytes always
    equal a fresh build's."""
    import shutil

    docs, out = tmp_path / "docs", tmp_path / "out"
    generate_corpus(10, docs)
    fresh_renders = []
    real = stream.StreamResolver.render

    def render(self, doc_id, facts, memo=None):
        new = real(self, doc_id, facts, memo)
        if new is not None:
            fresh_renders.append(doc_id)
        return new

    monkeypatch.setattr(stream.StreamResolver, "render", render)

    def rebuild() -> list[str]:
        fresh_renders.clear()
        build(BuildConfig(inputs=(docs,), out_dir=out, html=False, validate=False))
        rendered = sorted(fresh_renders)
        shutil.rmtree(tmp_path / "fresh", ignore_errors=True)
        build(BuildConfig(inputs=(docs,), out_dir=tmp_path / "fresh", html=False, validate=False, cache=False))
        for name in OUTPUTS:
            assert (out / name).read_bytes() == (tmp_path / "fresh" / name).read_bytes(), name
        return rendered

    assert len(rebuild()) == 10
    assert rebuild() == []  # nothing changed: every document's blocks come from its memo
    first = sorted(docs.glob("*.txt"))[0]
    (docs / "zz_copy.txt").write_text(first.read_text("utf-8"), "utf-8")  # its relations now have support 2
    assert {first.name, "zz_copy.txt"} <= set(rebuild())
    (docs / "zz_copy.txt").unlink()
    assert first.name in rebuild()  # support back to 1: its memo is stale again
    victim = sorted(docs.glob("*.txt"))[4]
    victim.write_text(victim.read_text("utf-8") + "\nWe also release QuuxNet-7, which outperforms BERT.\n", "utf-8")
    assert victim.name in rebuild()


def test_stream_spill_of_a_killed_build_is_removed_by_the_next(tmp_path):
    out = tmp_path / "out"
    dead = out / ".mlkg-spill-999999999-abc"  # no such process
    dead.mkdir(parents=True)
    (dead / "facts.pkl").write_bytes(b"x")
    alive = out / f".mlkg-spill-{os.getpid()}-abc"  # this process: a build still running
    alive.mkdir()
    with stream.Spill(out) as spill:
        assert spill.root.is_dir() and spill.root.name.startswith(f".mlkg-spill-{os.getpid()}-")
    assert not dead.exists() and alive.exists() and not spill.root.exists()


def test_streamed_build_with_graph_html_writes_the_bytes_of_the_in_memory_build(tmp_path, monkeypatch):
    """graph.html of a streamed build is rendered from graph.ttl's bytes, without an rdflib Graph; the page is
    the one the in-memory build (``--formats nt`` asks for a Graph) renders from its Graph."""
    memory, streamed = tmp_path / "memory", tmp_path / "streamed"
    build(BuildConfig(inputs=(CORPUS_DIR,), out_dir=memory, html=True, validate=False, cache=False,
                      formats=("ttl", "nt")))
    monkeypatch.setattr(stream, "SPILL_BYTES", 3000)
    runs = []
    real = stream.Sorter._flush
    monkeypatch.setattr(stream.Sorter, "_flush", lambda self: (runs.append(self.stem), real(self))[1])
    report = build(BuildConfig(inputs=(CORPUS_DIR,), out_dir=streamed, html=True, validate=False, cache=False))
    assert runs, "the streamed path should have spilled sorted runs"
    assert "graph.html" in {Path(p).name for p in report.outputs}
    for name in (*OUTPUTS, "graph.html"):
        assert (streamed / name).read_bytes() == (memory / name).read_bytes(), name
