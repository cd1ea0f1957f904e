"""run_build: the only module that knows the order of the stages.

ingest -> [cache] -> nlp.extract (executor: in process, process pool or Dask) -> resolve -> rdf ->
validate (quarantine.ttl) -> [infer] -> write (graph.ttl, other formats, merges.json, report.json) -> render (graph.html)
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Protocol

from .config import FORMATS, VALIDATE_AUTO_LIMIT, BuildConfig
from .errors import ExitCode, InputError, MlkgError
from .model import BuildReport, Document, SkippedDocument, Violation
from .outputs import STAMP
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
    the previous graph.ttl, graph.html and report.json as they were. The output folder is locked from start
    to end: a second build into it waits (``callbacks.on_stage("wait")``), so it reads the state and the cache
    manifest this one leaves, never a mix of two builds.
    """
    from . import stamp, write

    cb = callbacks or _Silent()
    unknown = sorted(set(config.formats) - set(FORMATS))
    if unknown:
        raise InputError(f"unknown output format(s) {', '.join(unknown)}; choose from {', '.join(FORMATS)}")
    out = Path(config.out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MlkgError(f"cannot write the outputs in {out}: {exc}") from exc
    with write.folder_lock(out, on_wait=lambda: cb.on_stage("wait")):
        last = stamp.unchanged(config)
        if last is not None:
            return _report_from_dict(last, up_to_date=True)
        (out / STAMP).unlink(missing_ok=True)  # this build may change the outputs: the stamp goes until it is done
        report = _run_locked(config, cb)
        stamp.save(config, [Path(p).name for p in report.outputs], report_dict(report, include_timing=False))
        return report


def _report_from_dict(d: dict, **extra) -> BuildReport:
    """The inverse of :func:`report_dict` without timings (an unchanged build's report is the last one's)."""
    return BuildReport(
        documents_read=d["documents_read"], skipped=tuple(SkippedDocument(**s) for s in d["skipped"]),
        entities_per_class=d["entities_per_class"], relations_per_property=d["relations_per_property"],
        model=d["model"], graph_stats=d["graph"], encodings=d["encodings"], validation=d.get("validation", ""),
        quarantine=tuple(Violation(**v) for v in d.get("quarantine", ())), **extra)


def _run_locked(config: BuildConfig, cb: BuildCallbacks) -> BuildReport:
    from . import analysis, incremental, ingest, rdf, resolve, serialize, validate, write
    from .cache import DEFAULT_CACHE_DIR, ExtractionCache
    from .executor import ExtractStats, extract_documents
    from .executor import iter_facts as extract_iter
    from .executor import release_pipelines
    from .nlp import pick_model

    t = {}
    t0 = time.perf_counter()
    skipped: list[SkippedDocument] = []
    write.recover(config.out_dir)  # finish the commit of a build that died while replacing its outputs
    streaming = not (config.html or config.infer or set(config.formats) - {"ttl"} or config.validate)
    cb.on_stage("read")
    documents = list(ingest.read_documents(config.inputs, config.max_bytes, skipped))
    if not documents:
        raise InputError(f"no readable documents under {', '.join(map(str, config.inputs))}"
                         + (f" ({len(skipped)} skipped: " + "; ".join(f"{s.path}: {s.reason}" for s in skipped) + ")"
                            if skipped else ""))
    if config.strict and skipped:
        raise MlkgError(f"{len(skipped)} document(s) skipped and --strict is set; nothing written: "
                        + "; ".join(f"{s.path}: {s.reason}" for s in skipped))
    t["read"] = time.perf_counter() - t0

    cb.on_stage("parse")
    t0 = time.perf_counter()
    model = pick_model(config.model)
    cb.on_documents(len(documents))

    def failed(document: Document, exc: Exception) -> None:
        skipped.append(SkippedDocument(path=ingest.source_name(document), reason=f"processing failed ({type(exc).__name__}: {exc}); skipped"))

    store = ExtractionCache(config.cache_dir or Path(config.out_dir) / DEFAULT_CACHE_DIR, model) if config.cache else None
    # the state an earlier streaming build left for patching its outputs (incremental.py); taken either way,
    # since this build changes what it describes
    version = incremental.state_version(store.version) if store is not None and streaming else None
    state = incremental.take_state(config.out_dir, version)
    counts = ExtractStats()
    run = dict(batch_size=config.batch_size, executor=config.executor, workers=config.workers,
               scheduler=config.scheduler, cache=store, on_error=failed, on_done=cb.on_document_done, stats=counts,
               overlap=config.overlap)
    if streaming:
        # only graph.ttl, and validation only if the graph is small: stream (stream.py); memory holds the
        # entity table, not the mentions, unless the graph turns out small enough to validate
        from .stream import Spill, StreamResolver, expand

        from dataclasses import replace

        # each text is dropped once parsed (or found in the cache): what the rest needs is kept apart
        kept = {d.id: (i, replace(d, text=""), store.entry_path(d) if store is not None else None)
                for i, d in enumerate(documents)}
        feed, documents = documents, [k[1] for k in kept.values()]
        if state is not None:  # patch the last build's outputs, if few documents changed
            changes = incremental.plan(state, {d: k[2] for d, k in kept.items()})
            if changes is not None:
                report = _build_incremental(config, state, changes, feed, kept, skipped, counts, store, model, run, t, t0,
                                            version)
                if report is not None:
                    return report
        spill = Spill(Path(config.out_dir))
        try:
            resolver = StreamResolver()
            for document, facts, memo, parsed in extract_iter(feed, model, put=False, consume=True, **run):
                if parsed:  # taken in once spaCy is gone: the name tables do not add to the parse's memory
                    spill.add_later(document.id, facts)
                else:
                    resolver.add(document.id, facts)
                spill.add(document.id, facts, memo, parsed, keep=not parsed)  # parsed: cached with their memo
            if counts.parsed:
                if counts.parsed >= 256:  # a large parse: what spaCy held goes back before resolving
                    release_pipelines()
                for doc_id, facts in spill.later():
                    resolver.add(doc_id, facts)
            t["parse+extract"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            exact = resolver.finish(keep=store is not None)  # the tables stay for the state (incremental.py)
            if exact and (config.validate is False or resolver.bounds[0] > VALIDATE_AUTO_LIMIT):
                return _write_streaming(config, resolver, spill, kept, skipped, counts, store, model, t, t0, version)
            extractions = []  # the graph is small: the plain path (its documents have no text: none is needed)
            for doc_id, facts, _, parsed in sorted(spill.facts(), key=lambda x: kept[x[0]][0]):
                extractions.append(expand(kept[doc_id][1], facts))
                if parsed and store is not None:
                    store.put_entry(kept[doc_id][2], doc_id, facts)
        finally:
            spill.close()
        t["parse+extract"] += time.perf_counter() - t0
    else:
        extractions = extract_documents(documents, model, **run)
    del documents  # from here on only the Extractions are kept
    t["parse+extract"] = t.get("parse+extract", time.perf_counter() - t0)

    cb.on_stage("resolve")
    t0 = time.perf_counter()
    resolution = resolve.resolve(extractions)
    documents_read = len(extractions)
    encodings = {ex.document.id: ex.document.encoding for ex in extractions}
    del extractions  # the resolution keeps what the graph needs; the mentions can go
    # an rdflib Graph is needed to validate, infer, write other formats or render; a large build that asks
    # for none of these (--no-validate --no-html) writes its Turtle straight from the resolution
    validation = ""
    do_validate = config.validate
    if do_validate is None:
        n = sum(1 for _ in rdf.triples(resolution))
        do_validate = n <= VALIDATE_AUTO_LIMIT
        if not do_validate:
            validation = (f"skipped: {n} triples is over the automatic limit of {VALIDATE_AUTO_LIMIT} (pySHACL takes "
                          "minutes at this size); `mlkg validate` checks the graph, `mlkg build --validate` forces it")
    elif not do_validate:
        validation = "skipped (--no-validate)"
    need_graph = do_validate or config.infer or config.html or set(config.formats) - {"ttl"}
    graph = rdf.to_graph(resolution) if need_graph else None
    t["resolve+rdf"] = time.perf_counter() - t0

    quarantined, violations = None, ()
    if do_validate:
        cb.on_stage("validate")
        t0 = time.perf_counter()
        graph, quarantined, violations = validate.quarantine(graph)
        t["validate"] = time.perf_counter() - t0
    if config.infer:
        from . import infer

        cb.on_stage("infer")
        t0 = time.perf_counter()
        published = infer.entail(graph)
        t["infer"] = time.perf_counter() - t0
    else:
        published = graph

    cb.on_stage("write")
    t0 = time.perf_counter()
    ttl = write.turtle_bytes(published if published is not None else rdf.triples(resolution))
    files = {"graph.ttl": ttl}
    if "nt" in config.formats:
        files["graph.nt"] = serialize.ntriples_bytes(published)
    if "jsonld" in config.formats:
        files["graph.jsonld"] = serialize.jsonld_bytes(published)
        files[serialize.CONTEXT_FILE] = serialize.context_bytes()
    if "trig" in config.formats:
        files["graph.trig"] = serialize.trig_bytes(published)
    if violations:
        # what failed the shapes may hold anything, blank nodes too: rdflib's own serialiser writes it
        files["quarantine.ttl"] = quarantined.serialize(format="turtle").encode("utf-8")
    files["merges.json"] = write.json_bytes(rdf.merge_log(resolution))
    html = None
    if config.html:
        from . import render

        html = render.render_html(graph).encode("utf-8")
    stats = analysis.graph_stats(analysis.to_networkx(graph) if violations else analysis.resolution_to_networkx(resolution))
    report = BuildReport(
        documents_read=documents_read,
        skipped=tuple(sorted(skipped, key=lambda s: s.path)),
        entities_per_class=dict(sorted(Counter(local_name(e.cls) for e in resolution.entities).items())),
        relations_per_property=dict(sorted(Counter(local_name(r.predicate) for r in resolution.relations).items())),
        seconds=t,
        model=model,
        outputs=tuple(str(config.out_dir / n) for n in ["graph.ttl", *(["graph.html"] if html else []),
                                                          *sorted(set(files) - {"graph.ttl"}), "report.json"]),
        graph_stats=stats,
        quarantine=violations,
        encodings=encodings,
        validation=validation,
        documents_parsed=counts.parsed,
        documents_cached=counts.cached,
    )
    if violations:  # count what the published graph holds, not what was resolved before the quarantine
        from dataclasses import replace

        from rdflib.namespace import RDF

        from .vocab import ENTITY_CLASSES, RELATIONS

        report = replace(
            report,
            entities_per_class=dict(sorted(Counter(local_name(o) for o in graph.objects(None, RDF.type) if o in ENTITY_CLASSES).items())),
            relations_per_property=dict(sorted(Counter(local_name(p) for _, p, _ in graph if p in RELATIONS).items())))
    if config.strict and violations:
        raise MlkgError(f"{len(violations)} shape violation(s) and --strict is set; nothing written:\n  "
                        + "\n  ".join(str(v) for v in violations))
    if html is not None:
        files["graph.html"] = html
    files["report.json"] = write.json_bytes(report_dict(report, include_timing=False))
    out = Path(config.out_dir)
    write.write_outputs(out, files)  # all replaced in one commit, or none
    if not violations:  # a quarantine.ttl left by an earlier build is not about this graph
        (out / "quarantine.ttl").unlink(missing_ok=True)
    _after_commit(config, store)
    t["write"] = time.perf_counter() - t0
    return report


def _write_streaming(config: BuildConfig, resolver, spill, kept, skipped, counts, store, model, t, t0, version) -> BuildReport:
    """The rest of a streaming build (``stream.py``): render each document's facts again, write in one commit."""
    import gc

    done = {}
    collecting = gc.isenabled()
    gc.disable()  # rendering makes many small acyclic objects: the cycle collector would only walk them
    try:
        resolver.start_render(spill)
        for doc_id, facts, memo, parsed in spill.facts():
            new = resolver.render(doc_id, facts, memo)
            if store is not None and (new is not None or parsed):  # the memo helps the next build
                store.put_entry(kept[doc_id][2], doc_id, facts, new or memo)
            used = new or memo
            done[doc_id] = (kept[doc_id][2], resolver.document_block(doc_id)[2] if facts[1] or facts[2] else None,
                            used[3], used[4])  # what the state keeps of it (incremental.py)
    finally:
        if collecting:
            gc.enable()
    t["resolve+rdf"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    report = _commit_streamed(config, resolver, done, kept, skipped, counts, store, model, t, version)
    t["write"] = time.perf_counter() - t0
    return report


def _streamed_report(config: BuildConfig, resolver, done, kept, skipped, counts, model, t, patched: str = "") -> BuildReport:
    validation = "skipped (--no-validate)" if config.validate is False else (
        f"skipped: {resolver.triples} triples is over the automatic limit of {VALIDATE_AUTO_LIMIT} (pySHACL takes "
        "minutes at this size); `mlkg validate` checks the graph, `mlkg build --validate` forces it")
    return BuildReport(
        documents_read=len(done),
        skipped=tuple(sorted(skipped, key=lambda s: s.path)),
        entities_per_class=resolver.entities_per_class(),
        relations_per_property=resolver.relations_per_property(),
        seconds=t,
        model=model,
        outputs=tuple(str(config.out_dir / n) for n in ["graph.ttl", "merges.json", "report.json"]),
        graph_stats=resolver.graph_stats(),
        encodings={d.id: d.encoding for _, d, _ in kept.values() if d.id in done},
        validation=validation,
        documents_parsed=counts.parsed,
        documents_cached=counts.cached,
        patched=patched,
    )


def _commit_streamed(config: BuildConfig, resolver, done, kept, skipped, counts, store, model, t, version,
                     files: dict | None = None, patched: str = "") -> BuildReport:
    """Write graph.ttl, merges.json and report.json in one commit; then prune the cache and leave the state."""
    from . import incremental, write

    out = Path(config.out_dir)
    report = _streamed_report(config, resolver, done, kept, skipped, counts, model, t, patched)
    files = files or {"graph.ttl": resolver.turtle(), "merges.json": resolver.merges()}
    write.write_outputs(out, {**files, "report.json": write.json_bytes(report_dict(report, include_timing=False))})
    (out / "quarantine.ttl").unlink(missing_ok=True)
    _after_commit(config, store)
    if store is not None:
        incremental.save_state(out, version, resolver, done)
    return report


def _after_commit(config: BuildConfig, store) -> None:
    """Once the outputs are replaced (the folder still locked): prune the cache of the entries this folder
    used before and no longer uses (documents removed or changed since: their facts are gone, so is their
    cache)."""
    from . import write

    write.fault("committed")
    if store is not None:
        store.prune(config.out_dir, own=config.cache_dir is None)


def _build_incremental(config: BuildConfig, state, changes, feed, kept, skipped, counts, store, model, run, t, t0,
                       version) -> BuildReport | None:
    """Parse the changed documents and patch the last build's outputs (``incremental.py``); None when only a
    full build gives the exact graph (nothing is written then, and the parsed documents are in the cache)."""
    from . import incremental
    from .executor import ExtractStats
    from .executor import iter_facts as extract_iter

    changed, removed = changes
    want = set(changed)
    todo = [d for d in feed if d.id in want]
    n_skipped = len(skipped)
    stats = ExtractStats()
    got = []
    for document, facts, memo, parsed in extract_iter(todo, model, put=False, consume=True, **dict(run, stats=stats)):
        got.append((document.id, facts, memo, kept[document.id][2], parsed))
    failed = sorted(want - {g[0] for g in got})  # processing failed: skipped, and its old facts go
    t["parse+extract"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    rebuilt = incremental.rebuild(state, config.out_dir, store, [g[:4] for g in got], removed + failed)
    if rebuilt is not None and config.validate is None and rebuilt.resolver.bounds[0] <= VALIDATE_AUTO_LIMIT:
        rebuilt = None  # small enough to validate now: the full path does
    if rebuilt is None:
        for doc_id, facts, _, path, parsed in got:
            if parsed:
                store.put_entry(path, doc_id, facts)
        del skipped[n_skipped:]  # the full build meets them again
        return None
    for path, doc_id, facts, memo in rebuilt.entries:
        store.put_entry(path, doc_id, facts, memo)
    store.used.update(v[0] for v in rebuilt.docs.values())
    counts.parsed, counts.cached = stats.parsed, len(rebuilt.docs) - stats.parsed
    t["resolve+rdf"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    patched = (f"graph.ttl and merges.json patched: {len(changed)} document(s) new or changed, {len(removed)} removed, "
               f"{rebuilt.rendered} rendered again")
    report = _commit_streamed(config, rebuilt.resolver, rebuilt.docs, kept, skipped, counts, store, model, t, version,
                              rebuilt.files, patched)
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
        "encodings": report.encodings,
    }
    if report.validation:  # only when the graph was not validated
        d["validation"] = report.validation
    if report.quarantine:  # only when there is one, so a clean build's report.json is as before
        d["quarantine"] = [{"node": v.node, "shape": v.shape, "message": v.message, "value": v.value}
                           for v in report.quarantine]
    if include_timing:  # what varies from run to run stays out of the committed report.json
        d["seconds"] = {k: round(v, 3) for k, v in report.seconds.items()}
        d["documents_parsed"] = report.documents_parsed
        d["documents_cached"] = report.documents_cached
        if report.patched:  # a patched graph's report.json is that of a full build
            d["patched"] = report.patched
        if report.up_to_date:
            d["up_to_date"] = True
    return d


def exit_code_for(report: BuildReport) -> ExitCode:
    """OK, or OK_WITH_SKIPS when any document was skipped or any statement quarantined."""
    return ExitCode.OK_WITH_SKIPS if report.skipped or report.quarantine else ExitCode.OK
