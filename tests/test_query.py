"""Named queries over the corpus graph, with parameters bound as terms."""

import pytest

from pipeline.errors import QueryError
from pipeline.query import format_result, list_queries, load_query, run_query


def test_query_papers_at_iclr_2025_are_the_twelve_the_post_names(corpus_build):
    res = run_query(load_query("papers_at_venue"), corpus_build[1] / "graph.ttl", {"venue": "ICLR 2025"})
    titles = {r[1] for r in res.rows}
    assert len(titles) == 12
    assert "Cut Your Losses in Large-Vocabulary Language Models" in titles


def test_query_parameter_is_a_term_not_text(corpus_build):
    res = run_query(load_query("papers_at_venue"), corpus_build[1] / "graph.ttl", {"venue": '" } UNION { ?x ?y ?z'})
    assert res.rows == ()


def test_query_method_extensions_of_adam(corpus_build):
    res = run_query(load_query("method_extensions"), corpus_build[1] / "graph.ttl", {"method": "Adam"})
    assert {r[0] for r in res.rows} == {"AdEMAMix"}


@pytest.mark.parametrize("fmt,needle", [("table", "(1 rows)"), ("csv", "extension,venue,method"), ("json", '"bindings"')])
def test_query_formats(corpus_build, fmt, needle):
    res = run_query(load_query("method_extensions"), corpus_build[1] / "graph.ttl", {"method": "Adam"})
    assert needle in format_result(res, fmt)


def test_query_every_named_query_runs(corpus_build):
    params = {"venue": "ICLR 2025", "method": "Adam", "name": "MLX", "document": "000_82f6db891bece596.txt"}
    for name in list_queries():
        text = load_query(name)
        declared = next(ln for ln in text.splitlines() if ln.startswith("# Parameters:"))
        res = run_query(text, corpus_build[1] / "graph.ttl", {k: v for k, v in params.items() if f" {k} (" in declared})
        assert res.rows, name


def test_query_unknown_name_is_a_clear_error():
    with pytest.raises(QueryError, match="mlkg query --list"):
        load_query("no_such_query")
