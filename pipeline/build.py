"""run_build: the only module that knows the order of the stages.

ingest -> nlp.extract -> resolve -> rdf -> write (graph.ttl, report.json) -> render (graph.html)
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Protocol

from .config import BuildConfig
from .errors import ExitCode, InputError, MlkgError
from .model import BuildReport, Document, SkippedDocument
from .vocab import local_name

__all__ = ["run_build", "BuildCallbacks", "exit_code_for"]


class BuildCallbacks(Protocol):
    """Progress hooks; stages never print."""

    def on_documents(self, total: int) -> None: ...
    def on_document_done(self, doc_id: str) -> None: ...
    def on_stage(self, name: str) -> None: ...


class _Silent:
    def on_documents(self, total: int) -> None: pass
    def on_document_done(self, doc_id: str) -> None: pass
    def on_stage(self, name: str) -> None: pass


def run_build(config: BuildConfig, callbacks: BuildCallbacks | None = None) -> BuildReport:
    """Build the knowledge graph from ``config.inputs`` into ``config.out_dir``.

    Outputs are written atomically, all computed before the first is replaced, so a failed run leaves
    the previous graph.ttl, graph.html and report.json as they were.
    """
    from . import analysis, ingest, rdf, resolve, write
    from .cache import DEFAULT_CACHE_DIR, ExtractionCache
    from .executor import ExtractStats, extract_documents
    from .nlp import pick_model

    cb = callbacks or _Silent()
    t = {}
    t0 = time.perf_counter()
    skipped: list[SkippedDocument] = []
    cb.on_stage("read")
    documents = list(ingest.read_documents(config.inputs, config.max_bytes, skipped))
    if not documents:
        raise InputError(f"no readable documents under {', '.join(map(str, config.inputs))}"
                         + (f" ({len(skipped)} skipped)" if skipped else ""))
    t["read"] = time.perf_counter() - t0

    cb.on_stage("parse")
    t0 = time.perf_counter()
    model = pick_model(config.model)
    cb.on_documents(len(documents))

    def failed(document: Document, exc: Exception) -> None:
        skipped.append(SkippedDocument(path=str(document.path), reason=f"processing failed ({type(exc).__name__}: {exc}); skipped"))

    store = ExtractionCache(config.cache_dir or Path(config.out_dir) / DEFAULT_CACHE_DIR, model) if config.cache else None
    counts = ExtractStats()
    extractions = extract_documents(documents, model, batch_size=config.batch_size, executor=config.executor,
                                    workers=config.workers, scheduler=config.scheduler, cache=store,
                                    on_error=failed, on_done=cb.on_document_done, stats=counts)
    del documents  # from here on only the Extractions are kept
    t["parse+extract"] = time.perf_counter() - t0

    cb.on_stage("resolve")
    t0 = time.perf_counter()
    resolution = resolve.resolve(extractions)
    documents_read = len(extractions)
    del extractions  # the resolution keeps what the graph needs; the mentions can go
    graph = rdf.to_graph(resolution) if config.html else None  # only the page needs an rdflib Graph
    t["resolve+rdf"] = time.perf_counter() - t0

    cb.on_stage("write")
    t0 = time.perf_counter()
    ttl = write.turtle_bytes(graph if graph is not None else rdf.triples(resolution))
    html = None
    if config.html:
        from . import render

        html = render.render_html(graph).encode("utf-8")
    stats = analysis.graph_stats(analysis.resolution_to_networkx(resolution))
    report = BuildReport(
        documents_read=documents_read,
        skipped=tuple(sorted(skipped, key=lambda s: s.path)),
        entities_per_class=dict(sorted(Counter(local_name(e.cls) for e in resolution.entities).items())),
        relations_per_property=dict(sorted(Counter(local_name(r.predicate) for r in resolution.relations).items())),
        seconds=t,
        model=model,
        outputs=tuple(str(config.out_dir / n) for n in (["graph.ttl", "graph.html"] if html else ["graph.ttl"]) + ["report.json"]),
        graph_stats=stats,
        documents_parsed=counts.parsed,
        documents_cached=counts.cached,
    )
    if config.strict and skipped:
        raise MlkgError(f"{len(skipped)} document(s) skipped and --strict is set; nothing written: "
                        + "; ".join(f"{s.path}: {s.reason}" for s in skipped))
    out = Path(config.out_dir)
    write.atomic_write(out / "graph.ttl", ttl)
    if html is not None:
        write.atomic_write(out / "graph.html", html)
    write.write_json(report_dict(report, include_timing=False), out / "report.json")
    if store is not None:
        store.prune()  # entries of documents removed or changed since: their facts are gone, so is their cache
    t["write"] = time.perf_counter() - t0
    return report


def report_dict(report: BuildReport, include_timing: bool = True) -> dict:
    """The report as JSON-ready data; without timings it is deterministic (for the committed output)."""
    d = {
        "documents_read": report.documents_read,
        "skipped": [{"path": s.path, "reason": s.reason} for s in report.skipped],
        "entities_per_class": report.entities_per_class,
        "relations_per_property": report.relations_per_property,
        "model": report.model,
        "graph": report.graph_stats,
    }
    if include_timing:  # what varies from run to run stays out of the committed report.json
        d["seconds"] = {k: round(v, 3) for k, v in report.seconds.items()}
        d["documents_parsed"] = report.documents_parsed
        d["documents_cached"] = report.documents_cached
    return d


def exit_code_for(report: BuildReport) -> ExitCode:
    """OK, or OK_WITH_SKIPS when any document was skipped."""
    return ExitCode.OK_WITH_SKIPS if report.skipped else ExitCode.OK
