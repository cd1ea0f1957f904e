"""mlkg: knowledge graphs of machine-learning research, from documents to RDF, SPARQL and HTML.

The public API for notebooks::

    from pipeline import BuildConfig, build, query
    report = build(BuildConfig(inputs=(Path("corpus"),), out_dir=Path("output")))
    print(query("papers_at_venue", params={"venue": "ICLR 2025"}).rows)
"""

from __future__ import annotations

from pathlib import Path

from . import query as _query_module  # loaded first, so that a later ``import pipeline.query`` keeps the function below
from .build import run_build as build
from .config import BuildConfig

__all__ = ["build", "BuildConfig", "MLKG", "query", "__version__"]
__version__ = "0.1.0"


def __getattr__(name: str):
    """``MLKG`` on first use: the vocabulary loads rdflib, which ``mlkg build`` with nothing changed never needs."""
    if name == "MLKG":
        from .vocab import MLKG

        return MLKG
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def query(name_or_file: str, graph: Path | str = Path("output/graph.ttl"), params: dict[str, str] | None = None,
          store: Path | str | None = None):
    """Run a named query (or a ``.rq`` file) against a built graph; returns a ``QueryResult``.

    ``store``: a folder for an on-disk pyoxigraph store, loaded once and reused while the graph is unchanged
    (default: an in-memory store loaded on each call).
    """
    store = None if store is None else Path(store)
    return _query_module.run_query(_query_module.load_query(name_or_file), Path(graph), params, store)
