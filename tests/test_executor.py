"""Executors: a Dask cluster and a local process pool give exactly the graph of the default executor."""

import pytest
from rdflib import Graph
from rdflib.compare import isomorphic

from data import CORPUS_DIR
from pipeline import BuildConfig, build
from pipeline.errors import InputError
from pipeline.generate import generate_corpus


@pytest.fixture(scope="module")
def dask_scheduler():
    distributed = pytest.importorskip("dask.distributed")
    # two workers of one thread each, in this process: cheap on a 2-core machine, and each thread loads its own pipeline
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            assert len(client.scheduler_info()["workers"]) == 2
            yield cluster.scheduler_address


def _same(a, b):
    ga, gb = Graph().parse(str(a / "graph.ttl")), Graph().parse(str(b / "graph.ttl"))
    assert isomorphic(ga, gb)
    assert (a / "graph.ttl").read_bytes() == (b / "graph.ttl").read_bytes()


def test_executor_dask_matches_default_on_the_bundled_corpus(tmp_path, corpus_build, dask_scheduler):
    report = build(BuildConfig(inputs=(CORPUS_DIR,), out_dir=tmp_path, executor="dask", scheduler=dask_scheduler,
                               cache=False))
    assert report.documents_parsed == 5
    _same(corpus_build[1], tmp_path)
    assert (tmp_path / "report.json").read_bytes() == (corpus_build[1] / "report.json").read_bytes()


def test_executor_dask_matches_default_on_200_generated_documents(tmp_path, dask_scheduler):
    docs = tmp_path / "docs"
    generate_corpus(200, docs)
    default = build(BuildConfig(inputs=(docs,), out_dir=tmp_path / "local", html=False, cache=False))
    dask = build(BuildConfig(inputs=(docs,), out_dir=tmp_path / "dask", html=False, cache=False,
                             executor="dask", scheduler=dask_scheduler))
    assert default.documents_read == dask.documents_read == 200
    assert default.entities_per_class == dask.entities_per_class
    _same(tmp_path / "local", tmp_path / "dask")


def test_executor_local_process_pool_matches_default(tmp_path):
    docs = tmp_path / "docs"
    generate_corpus(24, docs)
    build(BuildConfig(inputs=(docs,), out_dir=tmp_path / "one", html=False, cache=False))
    report = build(BuildConfig(inputs=(docs,), out_dir=tmp_path / "two", html=False, cache=False, workers=2))
    assert report.documents_parsed == 24
    _same(tmp_path / "one", tmp_path / "two")


def test_executor_unknown_name_is_a_usage_error(tmp_path):
    with pytest.raises(InputError, match="unknown executor"):
        build(BuildConfig(inputs=(CORPUS_DIR,), out_dir=tmp_path, executor="spark", cache=False))


@pytest.fixture(scope="module")
def two_hundred(tmp_path_factory):
    docs = tmp_path_factory.mktemp("two_hundred") / "docs"
    generate_corpus(200, docs)
    return docs


@pytest.fixture
def spy(monkeypatch):
    """The second processes started, and the chunks parsed and extracted in this process."""
    import pipeline.executor as ex

    seen = {"processes": [], "here": 0}
    start, here = ex._SecondProcess.__init__, ex.extract_chunk

    def started(self, model, batch_size):
        start(self, model, batch_size)
        seen["processes"].append(self)

    def counted(documents, model, batch_size=16):
        seen["here"] += 1
        return here(documents, model, batch_size)

    monkeypatch.setattr(ex._SecondProcess, "__init__", started)
    monkeypatch.setattr(ex, "extract_chunk", counted)
    return seen


def test_executor_shared_run_gives_the_in_process_graph(tmp_path, two_hundred, spy):
    # one worker and 200 documents (OVERLAP_MIN): a second process parses and extracts chunks beside this one
    build(BuildConfig(inputs=(two_hundred,), out_dir=tmp_path / "here", html=False, cache=False, validate=False, overlap=False))
    assert spy["processes"] == []
    report = build(BuildConfig(inputs=(two_hundred,), out_dir=tmp_path / "beside", html=False, cache=False, validate=False))
    assert report.documents_parsed == 200 and not report.skipped
    assert len(spy["processes"]) == 1
    # each process did some of the chunks (this one also takes in the results, so it does fewer)
    assert 0 < spy["here"] < _chunks_of(200)
    _same(tmp_path / "here", tmp_path / "beside")


def _chunks_of(n: int, batch_size: int = 16) -> int:
    """How many chunks a shared run of ``n`` documents hands out (executor._next_chunk)."""
    from pipeline.executor import _next_chunk

    source, k = list(range(n)), 0
    while source:
        _next_chunk(source, batch_size)
        k += 1
    return k


def _dies_at_once(model, batch_size, stdin=None, stdout=None):
    import os

    os._exit(3)


@pytest.mark.parametrize("fork,executable,started", [
    (True, None, 1),  # the forked child ends at once, having answered nothing
    (False, "/bin/false", 1),  # the spawned process exits at once, having read nothing
    (False, "/nonexistent/python", 0),  # it cannot be started at all
])
def test_executor_shared_run_loses_nothing_when_its_second_process_dies(tmp_path, two_hundred, spy, monkeypatch,
                                                                           fork, executable, started):
    import sys

    import pipeline.executor as ex

    build(BuildConfig(inputs=(two_hundred,), out_dir=tmp_path / "here", html=False, cache=False, validate=False, overlap=False))
    monkeypatch.setattr(ex, "FORK", fork)
    if executable:
        monkeypatch.setattr(sys, "executable", executable)
    else:
        monkeypatch.setattr(ex, "serve", _dies_at_once)
    report = build(BuildConfig(inputs=(two_hundred,), out_dir=tmp_path / "beside", html=False, cache=False, validate=False))
    # each one started was waited for (no zombie left) and ended in failure
    assert len(spy["processes"]) == started and all(p.proc.returncode not in (None, 0) for p in spy["processes"])
    assert spy["here"] == _chunks_of(200)  # every chunk was done here instead
    assert report.documents_parsed == 200 and not report.skipped
    _same(tmp_path / "here", tmp_path / "beside")


def test_executor_spawned_second_process_gives_the_forked_graph(tmp_path, two_hundred, monkeypatch, spy):
    import pipeline.executor as ex

    build(BuildConfig(inputs=(two_hundred,), out_dir=tmp_path / "forked", html=False, cache=False, validate=False))
    forked_here, spy["here"] = spy["here"], 0
    monkeypatch.setattr(ex, "FORK", False)
    build(BuildConfig(inputs=(two_hundred,), out_dir=tmp_path / "spawned", html=False, cache=False, validate=False))
    _same(tmp_path / "forked", tmp_path / "spawned")
    # the spawned process's answers are taken, not redone here (off Linux this is the only kind)
    assert 0 < forked_here < _chunks_of(200) and 0 < spy["here"] < _chunks_of(200)


def test_executor_overlapped_build_from_a_script_without_a_main_guard(tmp_path, two_hundred):
    # a multiprocessing child would import the calling script again and build twice (or fail); the rules'
    # second process is forked (or a plain subprocess), so a notebook-style script needs no `if __name__ == "__main__"`
    import subprocess
    import sys

    script = tmp_path / "script.py"
    script.write_text("from pathlib import Path\nfrom pipeline import BuildConfig, build\n"
                      f"r = build(BuildConfig(inputs=(Path({str(two_hundred)!r}),), out_dir=Path({str(tmp_path / 'out')!r}), "
                      "html=False, cache=False, validate=False))\nprint('built', r.documents_parsed)\n", "utf-8")
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.splitlines() == ["built 200"]
    assert (tmp_path / "out" / "graph.ttl").stat().st_size > 10_000


def test_beside_computes_in_a_forked_copy_or_here():
    import os
    import threading

    import pipeline.executor as ex

    if not ex.FORK:
        pytest.skip("forking is Linux's")
    copy = ex.Beside(os.getpid)
    if threading.active_count() == 1:  # answered by the copy
        assert copy.proc is not None and copy.result() != os.getpid()
    else:  # this module's Dask cluster runs threads in this process
        assert copy.proc is None and copy.result() == os.getpid()
    busy = threading.Event()
    other = threading.Thread(target=busy.wait)
    other.start()
    try:  # another thread could hold a lock the copy would need: no copy
        here = ex.Beside(os.getpid)
        assert here.proc is None and here.result() == os.getpid()
    finally:
        busy.set()
        other.join()
    failing = ex.Beside(lambda: 1 / 0)  # the copy fails: computed here, where the error is raised
    with pytest.raises(ZeroDivisionError):
        failing.result()
    assert failing.proc is None


def test_a_shared_run_hands_out_quarter_chunks_at_its_end():
    """executor._next_chunk: full batches while more than TAIL_CHUNKS batches are left, then quarters, every
    document once and in order."""
    from pipeline.executor import TAIL_CHUNKS, _next_chunk

    source = list(range(16 * (TAIL_CHUNKS + 3) + 5))
    chunks = []
    while source:
        chunks.append(_next_chunk(source, 16))
    assert [x for c in chunks for x in c] == list(range(16 * (TAIL_CHUNKS + 3) + 5))
    sizes = [len(c) for c in chunks]
    assert sizes[:5] == [16, 16, 16, 16, 4] and set(sizes[4:-1]) == {4} and sizes[-1] == 1  # 69 left after four
    assert [len(c) for c in [_next_chunk([1, 2], 3)]] == [1]


def test_a_waiting_second_process_warms_up_only_while_nothing_is_sent(monkeypatch):
    """The second process extracts its made-up document only when no chunk is waiting on its input: a chunk
    already there is never delayed by it."""
    import os

    from pipeline import executor

    seen = []
    monkeypatch.setattr(executor, "extract_chunk", lambda docs, model, batch: seen.append([d.id for d in docs]))
    r, w = os.pipe()
    with os.fdopen(r, "rb") as stdin, os.fdopen(w, "wb") as out:
        executor._warm_up("model", 8, stdin)
        assert seen == [[executor.WARM_UP.id]]
        out.write(b"x")
        out.flush()
        executor._warm_up("model", 8, stdin)
        assert len(seen) == 1
