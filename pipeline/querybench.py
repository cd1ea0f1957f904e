"""``mlkg bench-query``: named-query latency in pyoxigraph against rdflib's own SPARQL engine, on a large graph.

The large graph is the built graph replicated: copy ``i`` renames every resource IRI (``res:...`` becomes
``res:...-copyI``) and suffixes every label and other name with `` (copy I)``, so it has the same shape as the
original (the same classes, relations and evidence records per entity) with ``copies`` times the entities. Copy 0
is the original, so the queries' example parameters still find their answers. A benchmark, not a test: it prints
figures and checks only that both engines return the same number of rows.
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from .errors import QueryError
from .query import list_queries, load_query, query_parameters

__all__ = ["replicate", "run_bench", "format_bench", "BenchRow"]

_NAMES = ("http://www.w3.org/2000/01/rdf-schema#label", "http://www.w3.org/2004/02/skos/core#altLabel")


@dataclass(frozen=True, slots=True)
class BenchRow:
    query: str
    rows: int
    oxigraph_ms: float
    rdflib_ms: float
    rdflib_rows: int | None  # None: stopped at the time limit


def replicate(graph_path: Path, min_triples: int) -> tuple[bytes, int]:
    """N-Triples of ``graph_path`` replicated until it has at least ``min_triples``; and the triple count."""
    import pyoxigraph as ox

    from .vocab import RES

    graph_path = Path(graph_path)
    if not graph_path.is_file():
        raise QueryError(f"{graph_path}: no graph there; run `mlkg build` first or pass --graph")
    triples = [q.triple for q in ox.parse(path=str(graph_path), format=ox.RdfFormat.TURTLE)]
    if not triples:
        raise QueryError(f"{graph_path}: the graph is empty")
    copies = max(1, math.ceil(min_triples / len(triples)))
    res = str(RES)
    out = []
    for i in range(copies):
        def node(t, i=i):
            if i and isinstance(t, ox.NamedNode) and t.value.startswith(res):
                return ox.NamedNode(f"{t.value}-copy{i}")
            return t

        for t in triples:
            o = t.object
            if i and isinstance(o, ox.Literal) and t.predicate.value in _NAMES:
                o = ox.Literal(f"{o.value} (copy {i})", language=o.language) if o.language else ox.Literal(f"{o.value} (copy {i})")
            out.append(ox.Triple(node(t.subject), t.predicate, node(o)))
    return ox.serialize(out, format=ox.RdfFormat.N_TRIPLES), len(out)


def _time(fn, repeat: int) -> tuple[float, int]:
    times, n = [], 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        n = fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), n


def _time_with_limit(fn, repeat: int, limit_s: float) -> tuple[float, int | None]:
    """``_time`` in a forked child (which shares the loaded graph), stopped after ``limit_s`` seconds.

    A stopped run gives ``(inf, None)``.
    """
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)

    def child():
        send.send(_time(fn, repeat))

    proc = ctx.Process(target=child, daemon=True)
    proc.start()
    try:
        if recv.poll(limit_s):
            return recv.recv()
        return math.inf, None
    finally:
        if proc.is_alive():
            proc.terminate()
        proc.join()


def run_bench(graph_path: Path, min_triples: int = 100_000, repeat: int = 3, rdflib_repeat: int = 1,
              queries: list[str] | None = None, log=print, rdflib_limit_s: float = 120.0) -> tuple[dict, list[BenchRow]]:
    """Load the replicated graph into both engines and time every named query (median of the repeats, ms).

    rdflib runs each query in a forked child stopped after ``rdflib_limit_s`` seconds (shown as more than the
    limit). Returns the setup figures (triples, load seconds, the limit) and one ``BenchRow`` per query.
    """
    import pyoxigraph as ox
    from rdflib import Graph, Literal, Variable

    t0 = time.perf_counter()
    data, n = replicate(graph_path, min_triples)
    setup = {"triples": n, "replicate_s": time.perf_counter() - t0, "rdflib_limit_s": rdflib_limit_s}
    log(f"graph: {n} triples ({graph_path} replicated)")
    t0 = time.perf_counter()
    store = ox.Store()
    store.bulk_load(data, ox.RdfFormat.N_TRIPLES)
    setup["oxigraph_load_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    graph = Graph()
    graph.parse(data=data.decode("utf-8"), format="nt")
    setup["rdflib_load_s"] = time.perf_counter() - t0
    log(f"load: pyoxigraph {setup['oxigraph_load_s']:.2f}s, rdflib {setup['rdflib_load_s']:.2f}s")
    graph.query("ASK { ?s ?p ?o }").askAnswer  # load rdflib's SPARQL parser once, before the timed children fork
    out = []
    for name in queries or list(list_queries()):
        text = load_query(name)
        params = {k: v for k, v in query_parameters(text).items() if v is not None}
        subs = {ox.Variable(k): ox.Literal(v) for k, v in params.items()}
        init = {Variable(k): Literal(v) for k, v in params.items()}
        ox_ms, ox_rows = _time(lambda: sum(1 for _ in store.query(text, substitutions=subs)), repeat)
        rl_ms, rl_rows = _time_with_limit(lambda: sum(1 for _ in graph.query(text, initBindings=init)),
                                          rdflib_repeat, rdflib_limit_s)
        row = BenchRow(name, ox_rows, ox_ms, rl_ms, rl_rows)
        rl_text = f"stopped after {rdflib_limit_s:.0f} s" if rl_rows is None else f"{rl_ms:.1f} ms"
        log(f"  {name}: pyoxigraph {ox_ms:.1f} ms, rdflib {rl_text}")
        out.append(row)
    return setup, out


def format_bench(setup: dict, rows: list[BenchRow]) -> str:
    """A Markdown table of the figures, with the speed-up per query and its geometric mean.

    A query rdflib did not finish within the limit shows as ``> limit`` and a speed-up of at least
    limit / pyoxigraph time; the geometric mean counts it at that lower bound.
    """
    limit_ms = setup.get("rdflib_limit_s", math.inf) * 1000
    lines = [f"graph: {setup['triples']} triples; load: pyoxigraph {setup['oxigraph_load_s']:.2f} s, "
             f"rdflib {setup['rdflib_load_s']:.2f} s", "",
             "| query | rows | pyoxigraph ms | rdflib ms | rdflib / pyoxigraph |", "|---|---:|---:|---:|---:|"]
    ratios = []
    for r in rows:
        stopped = r.rdflib_rows is None
        rl_ms = limit_ms if stopped else r.rdflib_ms
        ratio = rl_ms / max(r.oxigraph_ms, 1e-3)
        ratios.append(ratio)
        flag = "" if stopped or r.rows == r.rdflib_rows else f" (rdflib: {r.rdflib_rows} rows)"
        rl_text = f"> {rl_ms:.0f} (stopped)" if stopped else f"{rl_ms:.1f}"
        lines.append(f"| {r.query} | {r.rows}{flag} | {r.oxigraph_ms:.1f} | {rl_text} | "
                     f"{'>= ' if stopped else ''}{ratio:,.0f}x |")
    if ratios:
        lines.append("")
        lines.append(f"geometric mean speed-up: {'>= ' if any(r.rdflib_rows is None for r in rows) else ''}"
                     f"{math.exp(sum(map(math.log, ratios)) / len(ratios)):,.0f}x")
    return "\n".join(lines)
