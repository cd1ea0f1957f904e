"""Incremental rebuilds (incremental.py): the patched outputs are the bytes of a full build, whatever changed."""

import random
import shutil
from pathlib import Path

import pytest

from pipeline import BuildConfig, build, incremental
from pipeline.facts import compact
from pipeline.stream import StreamResolver

DATA = Path(__file__).parent / "data"
CORPUS = Path(__file__).parents[1] / "corpus"
OUTPUTS = ("graph.ttl", "merges.json", "report.json")


def _config(docs: Path, out: Path, **kw) -> BuildConfig:
    return BuildConfig(inputs=(docs,), out_dir=out, html=False, validate=False, **kw)


@pytest.fixture
def patched(monkeypatch):
    """Whether each build patched its outputs (True), fell back to a full build (False) or had no state (absent)."""
    calls = []
    real = incremental.rebuild

    def spy(*args, **kwargs):
        out = real(*args, **kwargs)
        calls.append(out is not None)
        return out

    monkeypatch.setattr(incremental, "rebuild", spy)
    return calls


def _mixed_corpus(dest: Path, n: int | None = None) -> list[Path]:
    """The bundled corpus and the documents of every generalisation set (49 real documents by many labs), or
    the first ``n`` of them."""
    dest.mkdir()
    sources = [CORPUS, *sorted(DATA.glob("generalisation*/docs"))]
    files = [(f"{src.parent.name if src.name == 'docs' else 'corpus'}_{f.name}", f)
             for src in sources for f in sorted(src.glob("*.txt"))]
    for name, f in sorted(files)[:n]:
        shutil.copy(f, dest / name)
    return sorted(dest.iterdir())


def _same_as_full(docs: Path, out: Path, ref: Path, ref_cache: Path) -> None:
    shutil.rmtree(ref, ignore_errors=True)
    build(_config(docs, ref, cache_dir=ref_cache))  # a fresh output folder: no state, the full path
    for name in OUTPUTS:
        assert (out / name).read_bytes() == (ref / name).read_bytes(), name


def test_patched_rebuilds_are_the_bytes_of_a_full_build_after_random_changes(tmp_path, patched):
    docs = tmp_path / "docs"
    files = _mixed_corpus(docs)
    originals = {f.name: f.read_bytes() for f in files}
    out, ref, ref_cache = tmp_path / "out", tmp_path / "ref", tmp_path / "ref-cache"
    build(_config(docs, out))
    assert (out / incremental.STATE_FILE).is_file()
    assert patched == []  # no state yet: nothing to patch
    rng = random.Random(7)
    kinds = []
    for step in range(10):
        for _ in range(rng.choice([1, 2, 3])):
            a, b = rng.sample(files, 2)
            kind = ["swap", "append", "delete", "restore", "half"][len(kinds) % 5]
            kinds.append(kind)
            if kind == "swap" and b.exists():  # another lab's text: its names now counted twice
                a.write_bytes(b.read_bytes())
            elif kind == "append" and a.exists() and b.exists():
                a.write_bytes(a.read_bytes() + b"\n" + b.read_bytes())
            elif kind == "half" and a.exists():
                a.write_bytes(a.read_bytes()[: len(a.read_bytes()) // 2])
            elif kind == "restore":
                a.write_bytes(originals[a.name])
            else:
                a.unlink(missing_ok=True)
        report = build(_config(docs, out))
        assert patched[-1] is True, f"step {step} was not patched"
        assert report.patched.startswith("graph.ttl and merges.json patched")
        assert report.documents_parsed <= 3
        _same_as_full(docs, out, ref, ref_cache)
    assert {"swap", "append", "delete", "restore", "half"} <= set(kinds)


def test_a_new_document_that_joins_two_names_patches_both_entities(tmp_path, patched):
    """An acronym and its long form, each alone in its own document, become one entity when a third document
    gives the pair; and two again when that document goes."""
    docs = tmp_path / "docs"
    _mixed_corpus(docs, 12)
    (docs / "zz_long.txt").write_text("Marlow Lab\n\nWe evaluate Quorum Gradient Descent on ImageNet and report "
                                      "gains over Adam.\n", "utf-8")
    (docs / "zz_short.txt").write_text("Marlow Lab\n\nOur new optimizer QGD outperforms Adam on CIFAR-10.\n", "utf-8")
    out, ref, ref_cache = tmp_path / "out", tmp_path / "ref", tmp_path / "ref-cache"
    build(_config(docs, out))
    before = (out / "graph.ttl").read_text("utf-8")
    joiner = docs / "zz_pair.txt"
    joiner.write_text("Marlow Lab\n\nWe introduce Quorum Gradient Descent (QGD), an optimizer that extends Adam.\n",
                      "utf-8")
    build(_config(docs, out))
    assert patched == [True]
    _same_as_full(docs, out, ref, ref_cache)
    after = (out / "graph.ttl").read_text("utf-8")
    assert after != before
    joiner.unlink()
    build(_config(docs, out))
    assert patched == [True, True]
    _same_as_full(docs, out, ref, ref_cache)
    assert (out / "graph.ttl").read_text("utf-8") == before


def test_an_edited_output_or_a_lost_cache_entry_means_a_full_build(tmp_path, patched):
    docs = tmp_path / "docs"
    files = _mixed_corpus(docs, 10)
    out, ref, ref_cache = tmp_path / "out", tmp_path / "ref", tmp_path / "ref-cache"
    build(_config(docs, out))

    # someone edits graph.ttl: the state no longer describes it, so it is not patched
    with open(out / "graph.ttl", "ab") as fh:
        fh.write(b"# edited\n")
    files[0].write_text(files[0].read_text("utf-8") + "\nWe also release the code.\n", "utf-8")
    build(_config(docs, out))
    assert patched == []  # the state was dropped before any patching
    _same_as_full(docs, out, ref, ref_cache)

    # the changed document's old cache entry is gone: its old facts cannot be taken out, so a full build
    state = incremental.take_state(out, incremental.state_version(_cache_version(out)))
    assert state is not None
    incremental.save_state(out, state.version, state.resolver(), state.docs)
    Path(state.docs[files[1].name].entry).unlink()
    files[1].write_text(files[1].read_text("utf-8") + "\nWe also release the code.\n", "utf-8")
    build(_config(docs, out))
    assert patched == [False]
    _same_as_full(docs, out, ref, ref_cache)

    # and the state that full build left is used again
    files[2].write_text(files[2].read_text("utf-8") + "\nWe also release the code.\n", "utf-8")
    build(_config(docs, out))
    assert patched == [False, True]
    _same_as_full(docs, out, ref, ref_cache)


def _cache_version(out: Path) -> str:
    from pipeline.cache import DEFAULT_CACHE_DIR, ExtractionCache
    from pipeline.nlp import pick_model

    return ExtractionCache(out / DEFAULT_CACHE_DIR, pick_model(None)).version


def test_many_changes_build_afresh_and_a_failed_patch_leaves_the_last_outputs(tmp_path, patched, monkeypatch):
    docs = tmp_path / "docs"
    files = _mixed_corpus(docs, 8)
    out = tmp_path / "out"
    build(_config(docs, out))
    for f in files[:3]:  # 3 of 8 is over incremental.MAX_CHANGED: patching would save little
        f.write_text(f.read_text("utf-8") + "\nWe also release the code.\n", "utf-8")
    build(_config(docs, out))
    assert patched == []
    assert (out / incremental.STATE_FILE).is_file()

    last = {name: (out / name).read_bytes() for name in OUTPUTS}
    files[4].write_text("Nowhere Lab\n\nWe propose FlimsyNet, which outperforms ResNet-50 on ImageNet.\n", "utf-8")
    from pipeline import write

    def broken(*args, **kwargs):
        raise OSError("disk full (injected)")

    monkeypatch.setattr(write, "write_outputs", broken)
    with pytest.raises(OSError):
        build(_config(docs, out))
    assert patched == [True]
    assert {name: (out / name).read_bytes() for name in OUTPUTS} == last
    assert not (out / incremental.STATE_FILE).exists(), "a failed build leaves no state to patch from"
    monkeypatch.undo()
    build(_config(docs, out))
    _same_as_full(docs, out, tmp_path / "ref", tmp_path / "ref-cache")


def test_remove_takes_out_exactly_what_add_put_in():
    """Adding documents A, B, C and removing B leaves the tables (and so the graph) of adding A and C."""
    from pipeline.executor import extract_documents
    from pipeline.ingest import read_documents
    from pipeline.nlp import pick_model

    documents = list(read_documents([CORPUS], 5_000_000, []))[:3]
    facts = {ex.document.id: compact(ex) for ex in extract_documents(documents, pick_model(None))}
    a, b, c = sorted(facts)

    def finished(add, remove=()) -> StreamResolver:
        r = StreamResolver()
        for d in add:
            r.add(d, facts[d])
        for d in remove:
            r.remove(d, facts[d])
        assert r.finish()
        return r

    both, without = finished([a, c]), finished([a, b, c], [b])
    assert without.entities == both.entities
    assert without.relations == both.relations
    assert without.relation_mentions == both.relation_mentions
    assert facts[b][1], "the removed document should have mentions of its own"


def test_patched_rebuilds_with_graph_html_are_the_bytes_of_the_in_memory_build(tmp_path, patched):
    """The default build writes graph.html: a patched rebuild renders it again from the patched graph, and
    every output is the bytes of the in-memory build (an rdflib Graph: ``--formats nt`` asks for one)."""
    docs = tmp_path / "docs"
    files = _mixed_corpus(docs, 24)
    out, ref = tmp_path / "out", tmp_path / "ref"
    html = dict(html=True, validate=False)
    build(BuildConfig(inputs=(docs,), out_dir=out, **html))
    rng = random.Random(11)
    for step in range(4):
        a, b = rng.sample([f for f in files if f.exists()], 2)
        if step % 2:
            a.unlink()
        else:
            a.write_bytes(a.read_bytes() + b"\n" + b.read_bytes())
        report = build(BuildConfig(inputs=(docs,), out_dir=out, **html))
        assert patched[-1] is True, f"step {step} was not patched"
        assert "graph.html rendered from the patched graph" in report.patched
        shutil.rmtree(ref, ignore_errors=True)
        build(BuildConfig(inputs=(docs,), out_dir=ref, formats=("ttl", "nt"), cache=False, **html))
        for name in (*OUTPUTS, "graph.html"):
            assert (out / name).read_bytes() == (ref / name).read_bytes(), (step, name)


def test_a_patched_page_is_rendered_from_the_last_pages_view(tmp_path, patched, monkeypatch):
    """After a build that wrote graph.html, a patched rebuild patches that page's view (``.mlkg-page.marshal``)
    instead of reading graph.ttl whole; after one without graph.html (no page state) or when graph.ttl was
    touched since, it reads graph.ttl. Either way every output is the bytes of the in-memory build."""
    from pipeline import render
    from pipeline.outputs import PAGE

    docs = tmp_path / "docs"
    files = _mixed_corpus(docs, 20)
    out, ref = tmp_path / "out", tmp_path / "ref"
    read_whole = []
    real = render.GraphView.of_turtle.__func__
    monkeypatch.setattr(render.GraphView, "of_turtle", classmethod(lambda cls, data: read_whole.append(1) or real(cls, data)))
    rng = random.Random(4)
    for step, html in enumerate([True, True, False, True, True, True]):
        a, b = rng.sample([f for f in files if f.exists()], 2)
        a.write_bytes(a.read_bytes() + b"\n" + b.read_bytes()[:400])
        if step == 5:
            (out / "graph.ttl").touch()  # the state and the page no longer describe it: a full build
        read_whole.clear()
        build(BuildConfig(inputs=(docs,), out_dir=out, html=html, validate=True))
        assert (out / PAGE).exists() == html
        if step in (1, 4):
            assert patched[-1] is True and not read_whole, f"step {step}: the last page's view, patched"
        elif html:
            assert read_whole, f"step {step}: no page state to patch, graph.ttl read"
        if html:
            shutil.rmtree(ref, ignore_errors=True)
            build(BuildConfig(inputs=(docs,), out_dir=ref, formats=("ttl", "nt"), cache=False, html=True))
            for name in (*OUTPUTS, "graph.html"):
                assert (out / name).read_bytes() == (ref / name).read_bytes(), (step, name)


def test_a_patched_build_reads_only_the_files_whose_stat_changed(tmp_path, patched, monkeypatch):
    """A document whose file has the size, modification time, inode and change time the last build recorded is
    taken from that build's record, not read; an edit that keeps the size and sets the modification time back
    still changes the change time, so the file is read and its change lands. A build that cannot patch reads
    every file it did not."""
    import os

    from pipeline import ingest

    monkeypatch.setattr(incremental, "SETTLED_NS", 0)  # files written just now count as settled
    docs = tmp_path / "docs"
    files = _mixed_corpus(docs, 12)
    out, ref, ref_cache = tmp_path / "out", tmp_path / "ref", tmp_path / "ref-cache"
    build(_config(docs, out))
    read = []
    real = ingest.read_document
    monkeypatch.setattr(ingest, "read_document", lambda path, doc_id, limit: read.append(doc_id) or real(path, doc_id, limit))

    files[0].write_text(files[0].read_text("utf-8") + "\nWe also release the code of this work.\n", "utf-8")
    build(_config(docs, out))
    assert patched == [True] and read == [files[0].name]
    _same_as_full(docs, out, ref, ref_cache)

    # the same size, the modification time set back: the change time tells
    st, text = files[1].stat(), files[1].read_text("utf-8")
    swapped = text.replace(" and ", " with", 1)
    assert len(swapped.encode("utf-8")) == st.st_size and swapped != text
    files[1].write_text(swapped, "utf-8")
    os.utime(files[1], ns=(st.st_atime_ns, st.st_mtime_ns))
    assert files[1].stat().st_size == st.st_size and files[1].stat().st_mtime_ns == st.st_mtime_ns
    read.clear()
    build(_config(docs, out))
    assert patched[-1] is True and read == [files[1].name]
    _same_as_full(docs, out, ref, ref_cache)

    # too many changes to patch: the streamed plan reads the files the patch did not
    for f in files[2:8]:
        f.write_text(f.read_text("utf-8") + "\nWe also release the data.\n", "utf-8")
    read.clear()
    n = len(patched)
    build(_config(docs, out))
    assert len(patched) == n and sorted(read) == sorted(f.name for f in files)  # no patch tried, each read once
    _same_as_full(docs, out, ref, ref_cache)


def test_an_edit_that_changes_no_statement_leaves_the_outputs_as_they_are(tmp_path, patched):
    """A document edited without changing what the graph says of it: graph.ttl, merges.json and graph.html are
    left as they are (not rendered again, not written: their size, modification time and inode kept), and are
    the bytes of the in-memory build; the next change that does change the graph patches them as usual."""
    import os

    docs = tmp_path / "docs"
    files = _mixed_corpus(docs, 12)
    out, ref = tmp_path / "out", tmp_path / "ref"
    build(BuildConfig(inputs=(docs,), out_dir=out, html=True, validate=True))

    def stats():
        return {name: (st.st_size, st.st_mtime_ns, st.st_ino) for name in ("graph.ttl", "merges.json", "graph.html")
                if (st := os.stat(out / name))}

    def same_as_in_memory():
        shutil.rmtree(ref, ignore_errors=True)
        build(BuildConfig(inputs=(docs,), out_dir=ref, formats=("ttl", "nt"), cache=False, html=True))
        for name in (*OUTPUTS, "graph.html"):
            assert (out / name).read_bytes() == (ref / name).read_bytes(), name

    before = stats()
    files[3].write_text(files[3].read_text("utf-8") + "\nWe thank the reviewers for their comments.\n", "utf-8")
    report = build(BuildConfig(inputs=(docs,), out_dir=out, html=True, validate=True))
    assert patched == [True] and report.documents_parsed == 1
    assert stats() == before, "left as they are"
    same_as_in_memory()

    files[4].write_bytes(files[4].read_bytes() + b"\n" + files[5].read_bytes())
    build(BuildConfig(inputs=(docs,), out_dir=out, html=True, validate=True))
    assert patched == [True, True] and stats()["graph.ttl"] != before["graph.ttl"]
    same_as_in_memory()


def test_a_large_patch_is_checked_beside_the_build_and_one_that_fails_the_shapes_builds_afresh(tmp_path, patched,
                                                                                               monkeypatch):
    """Above ``config.CHECK_BESIDE_TRIPLES`` a patched graph is checked against the shapes in a forked copy of the
    build (``executor.Beside``) while graph.html is rendered: the outputs are the in-memory build's bytes. When
    that check finds a violation, nothing of the patch is written: the build starts afresh (and quarantines)."""
    import importlib
    import threading

    from pipeline import executor, validate

    build_module = importlib.import_module("pipeline.build")
    monkeypatch.setattr(build_module, "CHECK_BESIDE_TRIPLES", 0)
    forks = []

    class Counted(executor.Beside):
        def __init__(self, fn, *args):
            super().__init__(fn, *args)
            # forked where it can be: on Linux, with no other thread in this process (another test's Dask cluster)
            forks.append((self.proc is not None) == (executor.FORK and threading.active_count() == 1))

    monkeypatch.setattr(executor, "Beside", Counted)
    docs = tmp_path / "docs"
    files = _mixed_corpus(docs, 12)
    out, ref = tmp_path / "out", tmp_path / "ref"
    config = BuildConfig(inputs=(docs,), out_dir=out, html=True, validate=True)
    build(config)
    forks.clear()  # the streamed build checks its graph beside too

    def same_as_in_memory():
        shutil.rmtree(ref, ignore_errors=True)
        build(BuildConfig(inputs=(docs,), out_dir=ref, formats=("ttl", "nt"), cache=False, html=True))
        for name in (*OUTPUTS, "graph.html"):
            assert (out / name).read_bytes() == (ref / name).read_bytes(), name

    files[2].write_text(files[2].read_text("utf-8") + "\nWe also evaluate BERT on ImageNet.\n", "utf-8")
    report = build(config)
    assert patched == [True] and report.patched and forks == [True]
    same_as_in_memory()

    def failing(data, removed, added):
        return validate.ValidationReport(conforms=False, violations=())

    monkeypatch.setattr(validate, "validate_patch", failing)  # the forked copy has it too
    files[3].write_text(files[3].read_text("utf-8") + "\nWe also evaluate GPT-2 on SQuAD.\n", "utf-8")
    report = build(config)
    assert patched == [True, True] and not report.patched, "the patch failed the shapes: built afresh"
    assert report.documents_parsed == 0 and report.documents_cached == len(files)
    same_as_in_memory()


def test_a_patch_parses_in_a_copy_that_loaded_the_pipeline_while_the_documents_were_read(tmp_path, patched,
                                                                                         monkeypatch):
    """A build that may patch and has no pipeline loaded forks a copy that loads it at once
    (``executor.EarlyParse``); the changed documents are handed to it as soon as they are known (before the
    build reads what it patches) and parsed there, and the outputs are the in-memory build's bytes. A change that
    parses nothing leaves the copy unused."""
    import threading

    from pipeline import executor

    docs = tmp_path / "docs"
    files = _mixed_corpus(docs, 10)
    out, ref = tmp_path / "out", tmp_path / "ref"
    config = BuildConfig(inputs=(docs,), out_dir=out, html=True, validate=True)
    build(config)
    answered, sent = [], []
    real, real_send = executor.EarlyParse.results, executor.EarlyParse.send

    def spy(self, documents):
        got = real(self, documents)
        answered.append(None if got is None else sorted(r.document.id for r in got))
        return got

    def spy_send(self, documents):
        real_send(self, documents)
        sent.append(self.sent)

    monkeypatch.setattr(executor.EarlyParse, "results", spy)
    monkeypatch.setattr(executor.EarlyParse, "send", spy_send)
    monkeypatch.setattr(executor, "_local", threading.local())  # as in a new process: no pipeline loaded
    files[1].write_text(files[1].read_text("utf-8") + "\nWe also evaluate BERT on ImageNet.\n", "utf-8")
    forks = executor.FORK and threading.active_count() == 1  # not beside another test's Dask cluster's threads
    report = build(config)
    assert patched == [True] and report.patched and report.documents_parsed == 1
    assert answered == ([[files[1].name]] if forks else [None])
    assert sent == ([[files[1].name]] if forks else [])
    shutil.rmtree(ref, ignore_errors=True)
    build(BuildConfig(inputs=(docs,), out_dir=ref, formats=("ttl", "nt"), cache=False, html=True))
    for name in (*OUTPUTS, "graph.html"):
        assert (out / name).read_bytes() == (ref / name).read_bytes(), name


def _in_a_new_process(test_id: str) -> None:
    """Run one test of this suite in a fresh interpreter, and fail if it does not pass there."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", test_id], cwd=root,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and f"PASSED {test_id}" in r.stdout, r.stdout + r.stderr  # (run, not skipped)


def test_an_early_parse_answers_the_chunk_sent_ahead_and_no_other(monkeypatch):
    """``EarlyParse.send`` hands a chunk to the copy while it loads; ``results`` of that chunk waits for its
    answer, of another chunk gives None (the caller parses it itself). A chunk the pipe cannot hold is not sent
    ahead (the caller would wait for the load): ``results`` sends it then."""
    import threading

    import pipeline.executor as ex
    from pipeline.model import Document
    from pipeline.nlp import pick_model

    if not ex.FORK:
        pytest.skip("a copy is forked only on Linux")
    if threading.active_count() > 1:  # (not beside another test's threads, a Dask cluster's: run alone, in a new process)
        _in_a_new_process("tests/test_incremental.py::test_an_early_parse_answers_the_chunk_sent_ahead_and_no_other")
        return
    monkeypatch.setattr(ex, "_local", threading.local())  # as in a new process: no pipeline loaded
    model = pick_model()
    doc = Document("a.txt", "a.txt", "We fine-tune BERT on ImageNet and SQuAD.")
    early = ex.EarlyParse(model, 16)
    early.send([doc])
    assert early.sent == ["a.txt"]
    got = early.results([doc])
    assert [r.document.id for r in got] == ["a.txt"] and isinstance(got[0], ex.Facts) and early.proc is None
    other = ex.EarlyParse(model, 16)
    other.send([doc])
    assert other.results([Document("b.txt", "b.txt", "Another text.")]) is None and other.proc is None
    big = ex.EarlyParse(model, 16)
    try:
        big.send([Document("c.txt", "c.txt", "We evaluate BERT. " * 20_000)])
        assert big.sent is None and not big.answered()
    finally:
        big.close()
