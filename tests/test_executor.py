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
