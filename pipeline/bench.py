"""``mlkg bench``: how fast and how big, measured on generated corpora; figures printed, never asserted.

For each corpus size, in fresh processes (so peak memory is that of one run): spaCy's own ``nlp.pipe`` over
the same texts with the same statistical components mlkg runs (the bare parse), a full ``mlkg build`` (an
empty cache, filled as it goes, no HTML), an incremental rebuild after changing one document (a sentence that
adds a relation), without and with graph.html (after a build that wrote no page, then after one that did),
``mlkg build`` again with nothing changed, and a rebuild after an edit that changes no statement (sizes up to
1,000: the best of two, as the full build); then
SPARQL latency on the largest graph. Each child reports its wall time and ``ru_maxrss``; nothing here is part of the tests.
"""

from __future__ import annotations

import json
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["run_bench"]


def _maxrss_mb() -> float:
    """Peak memory of this process plus the largest peak of its finished child processes (the rules' process of
    an overlapped build): an upper bound of what the run held at any one time."""
    return sum(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)) / 1024


def _cpu_seconds() -> float:
    """User and system CPU time of this process and its finished child processes."""
    return sum(r.ru_utime + r.ru_stime for r in map(resource.getrusage, (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)))


def _texts(corpus: Path) -> list[str]:
    from .ingest import read_documents

    return [d.text for d in read_documents([corpus], 5_000_000, [])]


def _child_bare(corpus: Path, batch_size: int) -> dict:
    import spacy

    from .nlp import STATISTICAL, pick_model

    texts = _texts(corpus)
    t0, c0 = time.perf_counter(), _cpu_seconds()
    nlp = spacy.load(pick_model(), enable=list(STATISTICAL), exclude=[])
    nlp.select_pipes(enable=list(STATISTICAL))
    tokens = 0
    for doc in nlp.pipe(texts, batch_size=batch_size):
        tokens += len(doc)
    return {"seconds": time.perf_counter() - t0, "cpu_seconds": _cpu_seconds() - c0, "tokens": tokens, "pipes": nlp.pipe_names}


def _child_build(corpus: Path, out: Path, cache: bool, workers: int, html: bool = False) -> dict:
    import spacy  # noqa: F401  (imported before the clock starts, as in the bare parse)

    from . import analysis, executor, rdf, resolve, write  # noqa: F401
    from . import cache as _cache_module  # noqa: F401
    from .build import run_build
    from .config import BuildConfig
    from .nlp import components  # noqa: F401

    t0, c0 = time.perf_counter(), _cpu_seconds()
    # validation on, as by default: its share of the build is printed apart (report.seconds["validate"])
    report = run_build(BuildConfig(inputs=(corpus,), out_dir=out, html=html, cache=cache, workers=workers))
    return {"seconds": time.perf_counter() - t0, "cpu_seconds": _cpu_seconds() - c0, "stages": report.seconds, "parsed": report.documents_parsed,
            "cached": report.documents_cached, "documents": report.documents_read, "patched": report.patched}


def _unchanged(corpus: Path, out: Path) -> dict:
    """``mlkg build`` run as a user runs it, twice with nothing changed between: the second's wall time, what
    its report says run_build took, and how many files in the output folder it changed (by size, modification
    time and inode)."""
    def files() -> dict:
        return {p: (st.st_size, st.st_mtime_ns, st.st_ino) for p in out.rglob("*") if (st := p.stat()) and p.is_file()}

    command = [sys.executable, "-m", "pipeline", "build", str(corpus), "--out", str(out)]
    subprocess.run(command, capture_output=True, check=True)  # the options of the command line: a build of its own
    before = files()
    t0 = time.perf_counter()
    subprocess.run(command, capture_output=True, check=True)
    seconds = time.perf_counter() - t0
    after = files()
    report = json.loads((out / "report.json").read_text("utf-8"))
    return {"seconds": seconds, "build_seconds": _in_process_unchanged(corpus, out),
            "changed": sum(1 for p in before.keys() | after.keys() if before.get(p) != after.get(p)),
            "documents": report["documents_read"]}


def _in_process_unchanged(corpus: Path, out: Path) -> float:
    """The time of run_build alone, with the command line's default options, when nothing changed (-1: it
    was not taken for unchanged)."""
    r = subprocess.run([sys.executable, "-c", "import sys, time; from pathlib import Path; "
                        "from pipeline.build import run_build; from pipeline.config import BuildConfig; "
                        "c = BuildConfig(inputs=(Path(sys.argv[1]),), out_dir=Path(sys.argv[2]), stop_if_unchanged=True); "
                        "t = time.perf_counter(); r = run_build(c); print(time.perf_counter() - t if r.up_to_date else -1)",
                        str(corpus), str(out)], capture_output=True, text=True, check=True)
    return float(r.stdout.strip().splitlines()[-1])


def _page_rebuilds(victim: Path, original: str, sentences: list[str], corpus: Path, out: Path, workers: int) -> dict:
    """The quickest of the rebuilds with graph.html after ``victim`` got each of ``sentences`` (then put back)."""
    page = None
    for sentence in sentences:  # as the full build: on the smaller sizes the best of two
        try:
            victim.write_text(original + f"\n{sentence}\n", "utf-8")
            run = _run_child("build", str(corpus), str(out), "cache", str(workers), "html")
        finally:
            victim.write_text(original, "utf-8")
        page = run if page is None or run["seconds"] < page["seconds"] else page
    return page


def _echo_page(echo, what: str, page: dict, full: dict) -> None:
    echo(f"        incremental rebuild {what}: {page['seconds']:.2f}s = {100 * page['seconds'] / full['seconds']:.1f}% "
         f"of the full build, CPU {page['cpu_seconds']:.2f}s ({'patched' if page['patched'] else 'not patched'}; "
         + ", ".join(f"{k} {v:.2f}s" for k, v in page["stages"].items()) + ")")


def _run_child(*args: str) -> dict:
    r = subprocess.run([sys.executable, "-m", "pipeline.bench", *args], capture_output=True, text=True)
    if r.returncode != 0:
        from .errors import MlkgError

        raise MlkgError(f"benchmark step {' '.join(args)} failed: {r.stderr.strip()[-2000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def _sparql(graph: Path) -> dict:
    """Each named query's median time on ``graph``, its parameters bound as ``mlkg query`` binds them (a VALUES
    block) to the label of the most connected entity of the parameter's class (any entity for ``name``)."""
    import pyoxigraph as ox

    from .query import list_queries, load_query, query_parameters, with_values

    store = ox.Store()
    t0 = time.perf_counter()
    with graph.open("rb") as fh:
        store.bulk_load(fh, ox.RdfFormat.TURTLE)
    load = time.perf_counter() - t0

    def most_connected(param: str) -> str:
        cls = "Method" if param == "name" else param[:1].upper() + param[1:]
        q = ("PREFIX mlkg: <https://w3id.org/mlkg/ontology#> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> "
             f"SELECT ?l (COUNT(?x) AS ?n) WHERE {{ ?e a mlkg:{cls} ; rdfs:label ?l . ?x ?p ?e }} GROUP BY ?l ORDER BY DESC(?n) ?l LIMIT 1")
        rows = list(store.query(q))
        return rows[0]["l"].value if rows else "x"

    out = {"load_seconds": load, "queries": {}}
    for name in list_queries():
        text = load_query(name)
        params = {p: most_connected(p) for p in query_parameters(text)}
        bound = with_values(text, params) if params else text
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            n = sum(1 for _ in store.query(bound))
            times.append(time.perf_counter() - t0)
        out["queries"][name] = {"ms": 1000 * statistics.median(times), "rows": n, "params": params}
    return out


def _compile_package() -> None:
    """Compile mlkg's modules to bytecode, as installing it does, so that no child process compiles them (with
    PYTHONDONTWRITEBYTECODE set, each would, at a cost of about 0.15 s of CPU time)."""
    import compileall

    try:
        compileall.compile_dir(Path(__file__).parent, quiet=2)
    except OSError:  # a read-only installation has its bytecode already
        pass


def run_bench(sizes: list[int], work: Path, workers: int = 1, echo=print, batch_size: int = 16, rounds: int = 2) -> dict:
    """Run the benchmark over generated corpora of ``sizes`` documents under ``work`` and print the figures."""
    from .generate import generate_corpus

    work = Path(work)
    _compile_package()
    results: dict = {"sizes": {}}
    echo(f"mlkg bench: sizes {sizes}, workers {workers}, scratch {work}")
    for n in sizes:
        corpus = work / f"corpus-{n}"
        if not corpus.is_dir() or len(list(corpus.glob("*.txt"))) != n:
            generate_corpus(n, corpus)
        # other processes share the CPU: on the smaller sizes alternate the two runs and keep each one's best
        bare = full = None
        out = work / f"out-{n}"
        for _ in range(rounds if n <= 1000 else 1):
            b = _run_child("bare", str(corpus), str(batch_size))
            shutil.rmtree(out, ignore_errors=True)  # a full build: an empty cache, filled as it goes
            f = _run_child("build", str(corpus), str(out), "cache", str(workers))
            bare = b if bare is None or b["seconds"] < bare["seconds"] else bare
            full = f if full is None or f["seconds"] < full["seconds"] else full
        if full["parsed"] != full["documents"]:
            from .errors import MlkgError

            raise MlkgError(f"the full build at {n} documents read {full['cached']} from a cache")
        results["sizes"][n] = {"bare": bare, "full": full}
        echo(f"{n:>6} docs  {bare['tokens']:>9} tokens  bare parse {bare['seconds']:8.2f}s "
             f"({bare['tokens'] / bare['seconds']:,.0f} tok/s, {bare['maxrss_mb']:.0f} MB)  "
             f"mlkg build {full['seconds']:8.2f}s ({bare['tokens'] / full['seconds']:,.0f} tok/s, "
             f"{full['maxrss_mb']:.0f} MB)  build/bare {full['seconds'] / bare['seconds']:.2f}")
        beside = full["cpu_seconds"] > 1.05 * full["seconds"]  # a second process shared the documents
        echo(f"        CPU time: bare parse {bare['cpu_seconds']:.2f}s, mlkg build {full['cpu_seconds']:.2f}s "
             f"(build/bare {full['cpu_seconds'] / bare['cpu_seconds']:.2f}"
             + ("; a second process shared the documents: wall time under CPU time)" if beside else ")"))
        echo("        stages: " + ", ".join(f"{k} {v:.2f}s" for k, v in full["stages"].items()))
        checked = full["stages"].get("validate")
        echo(f"        validation (on, as by default): {checked:.2f}s = {100 * checked / full['seconds']:.1f}% of the build"
             if checked is not None else "        validation: not run")
        # incremental: one document changed, rebuilt with the cache the full build left; each change gives the
        # document's method one more dataset (a relation, its record, the dataset's block: the graph changes)
        victim = sorted(corpus.glob("*.txt"))[n // 2]
        original = victim.read_text("utf-8")
        try:
            victim.write_text(original + "\nWe also evaluate it on ImageNet.\n", "utf-8")
            warm = _run_child("build", str(corpus), str(out), "cache", str(workers))
        finally:
            victim.write_text(original, "utf-8")
        results["sizes"][n]["incremental"] = warm
        echo(f"        incremental rebuild, one document changed: {warm['seconds']:.2f}s = "
             f"{100 * warm['seconds'] / full['seconds']:.1f}% of the full build, CPU {warm['cpu_seconds']:.2f}s ({warm['parsed']} parsed, "
             f"{warm['cached']} from the cache; " + ", ".join(f"{k} {v:.2f}s" for k, v in warm["stages"].items()) + ")")
        # the same with graph.html, as the default build writes it: first after the build above, which wrote no
        # page (the page is rendered from the whole patched graph), then after one that wrote it (its view patched)
        for key, sentences, after in (("incremental_html", ["COCO"], "after a build without it"),
                                      ("incremental_page", ["SQuAD", "GLUE"][:rounds if n <= 1000 else 1],
                                       "after a build with it")):
            page = _page_rebuilds(victim, original, [f"We also evaluate it on {x}." for x in sentences], corpus, out, workers)
            results["sizes"][n][key] = page
            _echo_page(echo, f"with graph.html {after}, one document changed", page, full)
        results["sizes"][n]["unchanged"] = noop = min((_unchanged(corpus, out) for _ in range(rounds if n <= 1000 else 1)),
                                                     key=lambda r: r["seconds"])
        echo(f"        unchanged rebuild (`mlkg build` again, nothing changed): {noop['seconds']:.2f}s for the whole command "
             f"({noop['build_seconds']:.3f}s in run_build); {noop['changed']} file(s) in the output folder changed")
        # and an edit that changes no statement (the build above left the original): the outputs are left as they are
        page = _page_rebuilds(victim, original, [f"We also release the {x} of this work." for x in ("code", "logs")]
                              [:rounds if n <= 1000 else 1], corpus, out, workers)
        results["sizes"][n]["incremental_same_graph"] = page
        _echo_page(echo, "with graph.html, one document changed but not its graph", page, full)
    ns = sorted(results["sizes"])
    for a, b in zip(ns, ns[1:]):
        fa, fb = results["sizes"][a]["full"], results["sizes"][b]["full"]
        echo(f"scaling {a} -> {b} docs: time x{fb['seconds'] / fa['seconds']:.2f} (docs x{b / a:g}), "
             f"peak memory x{fb['maxrss_mb'] / fa['maxrss_mb']:.2f}")
    big = max(ns)
    sq = _sparql(work / f"out-{big}" / "graph.ttl")
    results["sparql"] = sq
    echo(f"SPARQL on the {big}-document graph (pyoxigraph, load {sq['load_seconds']:.2f}s), median of 5 runs per query:")
    for k, v in sq["queries"].items():
        bound = ", ".join(f"{p}={x!r}" for p, x in v["params"].items())
        echo(f"  {k:<20} {v['ms']:8.1f} ms  {v['rows']:>7} rows" + (f"  ({bound})" if bound else ""))
    return results


def _main(argv: list[str]) -> None:
    mode = argv[0]
    if mode == "bare":
        res = _child_bare(Path(argv[1]), int(argv[2]))
    elif mode == "build":
        res = _child_build(Path(argv[1]), Path(argv[2]), argv[3] == "cache", int(argv[4]), argv[5:] == ["html"])
    else:
        raise SystemExit(f"unknown mode {mode}")
    res["maxrss_mb"] = _maxrss_mb()
    print(json.dumps(res))


if __name__ == "__main__":
    _main(sys.argv[1:])
