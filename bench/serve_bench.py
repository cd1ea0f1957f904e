"""Latency of `mlkg serve` under concurrent clients, against the Oxigraph server it fronts, asked directly.

    .venv/bin/python bench/serve_bench.py [--graph output/graph.ttl] [--clients 20] [--queries 200] [--rounds 1]
                                          [--stream-mb 150]

Starts `mlkg serve` (a separate process, as a user runs it) on a free loopback port and, for comparison, a
plain `oxigraph serve-read-only` over the same graph. Each client is a process of its own (so that no client
waits for another's turn at Python's lock to read its clock) with one keep-alive connection that sends its
queries one after another (the bundled named queries without parameters, and an ASK, in turn); every latency
is from sending the request to the last byte of the answer. Prints one row per target and round, the targets
taking turns, with the machine's load average: on a shared machine the figures move with it. Then the front's
memory while one client reads a large answer (the rows of a cartesian query) to its end.
Figures, not assertions: nothing here fails on a slow machine.
"""

from __future__ import annotations

import argparse
import http.client
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline.query import list_queries, load_query, query_parameters  # noqa: E402
from pipeline.serve_backend import free_port, oxigraph_binary  # noqa: E402


def workload() -> list[str]:
    queries = [load_query(n) for n in list_queries()]
    return [q for q in queries if not query_parameters(q)] + ["ASK { ?s ?p ?o }"]


def wait_up(port: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server stopped: {proc.communicate()}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/query?query=ASK%7B%7D")
            if conn.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("the server did not start within 60 s")


def client(port: int, paths: list[str], n: int, offset: int, out: list, errors: list) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Accept": "application/sparql-results+json"}
    for i in range(n):
        t0 = time.perf_counter()
        try:
            conn.request("GET", paths[(offset + i) % len(paths)], headers=headers)
            resp = conn.getresponse()
            resp.read()
            if resp.status != 200:
                errors.append(resp.status)
        except (OSError, http.client.HTTPException) as exc:
            errors.append(type(exc).__name__)
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        out.append(time.perf_counter() - t0)
    conn.close()


def one_client(args: tuple) -> tuple[list[float], list]:
    times: list[float] = []
    errors: list = []
    client(*args, times, errors)
    return times, errors


def load(port: int, clients: int, n: int) -> dict:
    paths = ["/query?" + urllib.parse.urlencode({"query": q}) for q in workload()]
    for p in paths:   # warm up: every query once
        client(port, [p], 1, 0, [], [])
    with multiprocessing.get_context("fork").Pool(clients) as pool:
        t0 = time.perf_counter()
        done = pool.map(one_client, [(port, paths, n, i) for i in range(clients)])
        wall = time.perf_counter() - t0
    times = [t for ts, _ in done for t in ts]
    errors = [e for _, es in done for e in es]
    q = statistics.quantiles(times, n=100)
    return {"n": len(times), "errors": len(errors), "qps": len(times) / wall, "p50": q[49] * 1000,
            "p90": q[89] * 1000, "p99": q[98] * 1000, "max": max(times) * 1000}


def start(cmd: list[str], port: int) -> subprocess.Popen:
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wait_up(port, proc)
    return proc


def rss_mb(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def stream_memory(graph: Path, mb: int) -> str:
    """Read ``mb`` MB of one answer through ``mlkg serve``; the front's resident memory before and at peak."""
    port = free_port()
    proc = start([sys.executable, "-m", "pipeline", "serve", "--graph", str(graph), "--port", str(port),
                  "--timeout", "600"], port)
    try:
        before = rss_mb(proc.pid, "VmRSS")
        query = "SELECT * { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("GET", "/query?" + urllib.parse.urlencode({"query": query}),
                     headers={"Accept": "application/sparql-results+json"})
        resp, got, t0 = conn.getresponse(), 0, time.perf_counter()
        while got < mb * 2**20:
            chunk = resp.read1(2**20)
            if not chunk:
                break
            got += len(chunk)
        took = time.perf_counter() - t0
        peak = rss_mb(proc.pid, "VmHWM")
        conn.close()
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
    return (f"streamed {got / 2**20:.0f} MB of one answer in {took:.1f} s through mlkg serve: front resident "
            f"memory {before:.0f} MB before, peak {peak:.0f} MB")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graph", type=Path, default=ROOT / "output" / "graph.ttl")
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--queries", type=int, default=200, help="queries per client")
    ap.add_argument("--rounds", type=int, default=1, help="times each target is measured, in turn")
    ap.add_argument("--stream-mb", type=int, default=150, help="size of the large answer read (0: skip)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="mlkg-serve-bench-") as tmp:
        db = Path(tmp) / "db"
        subprocess.run([oxigraph_binary(), "load", "--location", str(db), "--file", str(args.graph)],
                       check=True, capture_output=True)
        targets = {
            "mlkg serve": lambda p: [sys.executable, "-m", "pipeline", "serve", "--graph", str(args.graph),
                                     "--port", str(p)],
            "oxigraph direct": lambda p: [oxigraph_binary(), "serve-read-only", "--location", str(db),
                                          "--bind", f"127.0.0.1:{p}"],
        }
        print(f"{args.clients} clients x {args.queries} queries ({len(workload())} queries in turn), "
              f"graph {args.graph}, {os.cpu_count()} CPUs")
        print(f"{'target':<16} {'queries':>7} {'errors':>6} {'q/s':>7} {'p50 ms':>7} {'p90 ms':>7} "
              f"{'p99 ms':>7} {'max ms':>7} {'load':>5}")
        for name, cmd in [t for _ in range(args.rounds) for t in targets.items()]:
            port = free_port()
            proc = start(cmd(port), port)
            try:
                r = load(port, args.clients, args.queries)
            finally:
                proc.terminate()
                proc.communicate(timeout=30)
            print(f"{name:<16} {r['n']:>7} {r['errors']:>6} {r['qps']:>7.0f} {r['p50']:>7.1f} {r['p90']:>7.1f} "
                  f"{r['p99']:>7.1f} {r['max']:>7.1f} {os.getloadavg()[0]:>5.1f}", flush=True)
    if args.stream_mb:
        print(stream_memory(args.graph, args.stream_mb))


if __name__ == "__main__":
    main()
