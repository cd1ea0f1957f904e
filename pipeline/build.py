"""run_build: the only module that knows the order of the stages.

ingest -> [cache] -> nlp.extract (executor: in process, process pool or Dask) -> resolve -> rdf ->
validate (quarantine.ttl) -> [infer] -> write (graph.ttl, other formats, merges.json, report.json) -> render (graph.html)

A build is one of three plans over a :class:`Build` context, chosen once the documents are read:

- **patched** (``incremental.py``): a large build whose last run left its state, with few documents changed:
  parse those, patch the last graph.ttl and merges.json, render graph.html from the patched graph.ttl;
- **streamed** (``stream.py``): a large build of graph.ttl (and graph.html): resolve from compact facts,
  render the blocks ``rdf.py`` defines document by document into sorted runs on disk, graph.html from
  graph.ttl's bytes, never holding an rdflib Graph;
- **full**: resolve in memory, build the rdflib Graph, validate, infer, render graph.html, write every format.

A plan that finds it cannot give the exact graph (the patch needs a full build; the streamed graph is small
enough to validate) hands over to the next one, with what it has parsed.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from .config import CHECK_BESIDE_TRIPLES, FORMATS, MEMORY_RECORDS, RELEASE_AFTER, VALIDATE_AUTO_LIMIT, BuildConfig
from .errors import DocumentError, ExitCode, InputError, MlkgError
from .model import BuildReport, Document, SkippedDocument, Violation
from .outputs import GRAPH_HTML, GRAPH_TTL, MERGES, QUARANTINE, REPORT, STATE, own_folders

if TYPE_CHECKING:  # imported when run: spaCy and the cache load only when a build needs them
    from .cache import ExtractionCache
    from .executor import ExtractStats
    from .incremental import GraphState, PageState

__all__ = ["run_build", "BuildCallbacks", "Build", "KeptDocument", "exit_code_for", "report_dict", "unchanged_report"]


class BuildCallbacks(Protocol):
    """Progress hooks; stages never print."""

    def on_documents(self, total: int) -> None: ...
    def on_document_done(self, doc_id: str) -> None: ...
    def on_stage(self, name: str) -> None: ...


class _Silent:
    def on_documents(self, total: int) -> None: pass
    def on_document_done(self, doc_id: str) -> None: pass
    def on_stage(self, name: str) -> None: pass


@dataclass(frozen=True, slots=True)
class KeptDocument:
    """What a large build keeps of a document once its text is dropped."""

    order: int
    """Its place among the documents read."""
    document: Document
    """The document, without its text."""
    entry: str | None
    """Its cache entry, if the cache is on."""


@dataclass
class Build:
    """One build's context, filled stage by stage."""

    config: BuildConfig
    callbacks: BuildCallbacks
    seconds: dict[str, float] = field(default_factory=dict)
    """Wall-clock seconds per stage."""
    skipped: list[SkippedDocument] = field(default_factory=list)
    documents: list[Document] = field(default_factory=list)
    kept: dict[str, KeptDocument] = field(default_factory=dict)
    model: str = ""
    store: ExtractionCache | None = None
    """The extraction cache, or None with ``--no-cache``."""
    state: GraphState | None = None
    """The state the last build left, when this build may patch it."""
    page: PageState | None = None
    """What the last graph.html was made from, when this build may patch it; then what this one's was."""
    version: str | None = None
    """The version of the state this build leaves (None: it leaves none)."""
    counts: ExtractStats | None = None
    """Documents parsed and read from the cache."""
    clock: float = field(default_factory=time.perf_counter)
    started_ns: int = field(default_factory=time.time_ns)
    """When the build began (wall clock): a file changed since is not taken as settled (``incremental.sources``)."""
    unread: set[str] = field(default_factory=set)
    """The documents given by their files' stats, texts not read (``incremental.KnownSources``)."""
    left: set[str] = field(default_factory=set)
    """The outputs a patch leaves as they are: what it would write is what they hold."""
    stamp: object = None
    """The build's ``stamp.Fingerprint``: taken once, before its outputs are written."""
    last: object = None
    """graph.ttl and merges.json as the last build left them (``incremental.LastOutputs``), when a patch read
    them while its pipeline loaded."""
    early: object = None
    """An ``executor.EarlyParse`` loading the pipeline for the documents a patch may parse (ended by the build)."""
    frozen: bool = False
    """Whether a patch keeps the cycle collector off the state, the page's view and what existed when it had
    its facts (:func:`_no_collection`)."""

    @property
    def out(self) -> Path:
        return Path(self.config.out_dir)

    @property
    def streaming(self) -> bool:
        """graph.ttl alone (and graph.html), validated or not: the build streams, and validates the Turtle it is
        about to write."""
        c = self.config
        return not (c.infer or set(c.formats) - {"ttl"})

    def stage(self, name: str) -> None:
        self.callbacks.on_stage(name)

    def lap(self, key: str) -> None:
        """Add the time since the last lap to ``seconds[key]``."""
        now = time.perf_counter()
        self.seconds[key] = self.seconds.get(key, 0.0) + now - self.clock
        self.clock = now

    def failed(self, document: Document, exc: Exception) -> None:
        from .ingest import source_name

        self.skipped.append(SkippedDocument(path=source_name(document),
                                            reason=f"processing failed ({type(exc).__name__}: {exc}); skipped"))

    def extract_options(self, stats=None) -> dict:
        c = self.config
        return dict(batch_size=c.batch_size, executor=c.executor, workers=c.workers, scheduler=c.scheduler,
                    cache=self.store, on_error=self.failed, on_done=self.callbacks.on_document_done,
                    stats=stats if stats is not None else self.counts, overlap=c.overlap)


def run_build(config: BuildConfig, callbacks: BuildCallbacks | None = None) -> BuildReport:
    """Build the knowledge graph from ``config.inputs`` into ``config.out_dir``.

    Outputs are written atomically, all computed before the first is replaced, so a failed run leaves
    the previous graph.ttl, graph.html and report.json as they were. The output folder is locked from start
    to end: a second build into it waits (``callbacks.on_stage("wait")``), so it reads the state and the cache
    manifest this one leaves, never a mix of two builds. When nothing changed since the last build
    (``stamp.py``), it returns that build's report and touches nothing.
    """
    from . import stamp, write

    cb = callbacks or _Silent()
    unknown = sorted(set(config.formats) - set(FORMATS))
    if unknown:
        raise InputError(f"unknown output format(s) {', '.join(unknown)}; choose from {', '.join(FORMATS)}")
    out = Path(config.out_dir)
    out.mkdir(parents=True, exist_ok=True)  # an OSError here (a file in the way) is the caller's to word
    with write.folder_lock(out, on_wait=lambda: cb.on_stage("wait")):
        known = stamp.Fingerprint(config)
        last = unchanged_report(config, known)
        if last is not None:
            return last
        b = Build(config, cb, stamp=known)
        try:
            _read(b)
            if not b.streaming:
                report = _full_plan(b, _extract(b))
            else:
                report = (_patched_plan(b) if b.state is not None else None) or _streamed_plan(b)
        finally:
            _end_early(b)
            _collect_again(b)
        stamp.save(config, [Path(p).name for p in report.outputs], report_dict(report, include_timing=False), known)
        return report


# stages shared by the plans ---------------------------------------------------------------------------------

def _read(b: Build) -> None:
    """Finish a commit a dead build left half done; open the cache and take the state the last build left
    (:func:`_open_cache`); read the documents (``ingest.py``), but not those whose files that build recorded
    as they are now (``incremental.KnownSources``); keep what the plans need of them (:func:`_keep`)."""
    from . import incremental, ingest, write

    write.recover(b.out)
    b.stage("read")
    _open_cache(b)
    if b.stamp is not None:  # the inputs as this build finds them (a patch: while the pipeline loads beside)
        b.stamp()
    known = incremental.KnownSources(b.state, b.config.max_bytes) if b.state is not None else None
    b.documents = list(ingest.read_documents(b.config.inputs, b.config.max_bytes, b.skipped,
                                             exclude=own_folders(b.config.out_dir, b.config.cache_dir), known=known))
    b.unread = known.unread if known is not None else set()
    skipped = b.skipped
    if not b.documents:
        raise InputError(f"no readable documents under {', '.join(map(str, b.config.inputs))}"
                         + (f" ({len(skipped)} skipped: " + "; ".join(f"{s.path}: {s.reason}" for s in skipped) + ")"
                            if skipped else ""))
    if b.config.strict and skipped:
        raise MlkgError(f"{len(skipped)} document(s) skipped and --strict is set; nothing written: "
                        + "; ".join(f"{s.path}: {s.reason}" for s in skipped))
    _keep(b, known)
    b.lap("read")


def _open_cache(b: Build) -> None:
    """Pick the model; open the cache; read the state the last build left (``incremental.py``), if it is of
    this build's version and its outputs are as it left them; the file is removed once the documents are read
    (:func:`_keep`)."""
    from . import incremental
    from .cache import ExtractionCache
    from .nlp import pick_model
    from .outputs import CACHE_DIR

    b.model = pick_model(b.config.model)
    c = b.config
    if c.cache and b.streaming and c.executor == "local" and c.workers <= 1 and c.overlap and (b.out / STATE).is_file():
        from .executor import EarlyParse

        # the pipeline loads beside while the cache is opened and the state and the documents are read (ended
        # if the state is not usable)
        b.early = EarlyParse(b.model, c.batch_size)
    if c.cache:
        b.store = ExtractionCache(c.cache_dir or b.out / CACHE_DIR, b.model)
    if b.store is not None and b.streaming:
        b.version = incremental.state_version(b.store.version)
    with incremental.no_cycle_collection():  # its objects are then frozen (:func:`_no_collection`), never walked
        b.state = incremental.take_state(b.out, b.version, remove=False)
        if b.state is not None:
            _no_collection(b)
    if b.state is None:
        _end_early(b)


def _keep(b: Build, known) -> None:
    """Remove the state's file (this build changes what it describes) and take the page's; keep what the plans
    need of each document once its text is dropped (a document given by ``known``, its cache entry as
    recorded)."""
    from . import incremental
    from .executor import ExtractStats

    incremental.take_state(b.out, None)  # removed either way
    with incremental.no_cycle_collection():
        b.page = incremental.take_page(b.out, wanted=b.state is not None and b.config.html)  # taken either way, as the state
        if b.page is not None:
            _no_collection(b)  # the page's view too
    b.stage("parse")
    b.callbacks.on_documents(len(b.documents))
    b.counts = ExtractStats()
    if b.streaming:  # each text is dropped once parsed (or found in the cache): what the rest needs is kept apart
        b.kept = {d.id: KeptDocument(i, d, known.entry(d.id)) if d.id in b.unread else _kept(b, i, d)
                  for i, d in enumerate(b.documents)}


def _kept(b: Build, order: int, d: Document) -> KeptDocument:
    """What is kept of a document read (its text is dropped)."""
    return KeptDocument(order, replace(d, text=""), b.store.entry_path(d) if b.store is not None else None)


def _read_unread(b: Build) -> None:
    """Read the texts of the documents given by their files' stats (:func:`_read`), for a plan that parses or
    looks up every document: a file that can no longer be read is skipped, as when reading."""
    from .ingest import read_document

    if not b.unread:
        return
    documents = []
    for d in b.documents:
        if d.id in b.unread:
            try:
                d = read_document(Path(d.path), d.id, b.config.max_bytes)
            except DocumentError as exc:  # gone or changed since it was found: as when reading
                b.skipped.append(SkippedDocument(path=exc.path, reason=exc.reason))
                b.kept.pop(d.id, None)
                continue
            if d.id in b.kept:
                b.kept[d.id] = _kept(b, b.kept[d.id].order, d)
        documents.append(d)
    b.documents, b.unread = documents, set()


def _extract(b: Build) -> list:
    """Every document's Extraction (from the cache, or parsed)."""
    from .executor import extract_documents

    _read_unread(b)
    extractions = extract_documents(b.documents, b.model, **b.extract_options())
    b.documents = []
    b.lap("parse+extract")
    return extractions


def _after_commit(b: Build) -> None:
    """Once the outputs are replaced (the folder still locked): prune the cache of the entries this folder
    used before and no longer uses (documents removed or changed since: their facts are gone, so is their
    cache)."""
    from . import write

    write.fault("committed")
    if b.store is not None:
        b.store.prune(b.out, own=b.config.cache_dir is None)


@dataclass(frozen=True)
class Checked:
    """What a streamed or patched build's check gives: the ``validate.ValidationReport`` of graph.ttl and, when
    the check counted them too, the statistics of the graph (``incremental.GraphStats``)."""

    report: object
    stats: object = None
    tables: bytes | None = None
    """The resolver's tables pickled for the state (``incremental.table_bytes``), when the check did it."""


def _check_shapes(turtle: bytes, changed=None) -> Checked:
    """The ``validate.ValidationReport`` of graph.ttl, about to be written, in pyoxigraph
    (``validate.validate_turtle``): a streamed or patched graph that fails the shapes goes to the full plan, which
    quarantines what fails. A patch (``changed``, its ``incremental.ChangedBlocks``) of a graph that passed is
    checked where it changed (``validate.validate_patch``)."""
    from . import validate

    return Checked(validate.validate_patch(turtle, changed.removed, changed.added) if changed is not None
                   else validate.validate_turtle(turtle))


def _check_patch(turtle: bytes, changed, resolver, state) -> Checked:
    """:func:`_check_shapes` of a patched graph.ttl, the statistics of its graph (``incremental.graph_stats``) and
    its tables pickled for the state: a patch's check is short, so it does these too while this process renders
    graph.html."""
    from . import incremental

    return Checked(_check_shapes(turtle, changed).report, incremental.graph_stats(resolver, state),
                   incremental.table_bytes(resolver))


def _validation_note(b: Build, triples: int) -> str:
    """Why the graph was not validated (empty when it was)."""
    if b.config.validate is False:
        return "skipped (--no-validate)"
    if b.config.validate is None and triples > VALIDATE_AUTO_LIMIT:
        return (f"skipped: {triples} triples is over the automatic limit of {VALIDATE_AUTO_LIMIT} (pySHACL takes "
                "minutes at this size); `mlkg validate` checks the graph, `mlkg build --validate` forces it")
    return ""


# the full plan: resolve in memory, an rdflib Graph --------------------------------------------------------------

def _full_plan(b: Build, extractions: list) -> BuildReport:
    from . import rdf, resolve

    b.stage("resolve")
    resolution = resolve.resolve(extractions)
    documents_read = len(extractions)
    encodings = {ex.document.id: ex.document.encoding for ex in extractions}
    del extractions[:]  # the resolution keeps what the graph needs; the mentions can go
    validation = _validation_note(b, sum(1 for _ in rdf.triples(resolution)) if b.config.validate is None else 0)
    do_validate = b.config.validate is not False and not validation
    c = b.config
    # an rdflib Graph is needed to validate, infer, write other formats or render; a large build that asks
    # for none of these (--no-validate --no-html) writes its Turtle straight from the resolution
    need_graph = do_validate or c.infer or c.html or set(c.formats) - {"ttl"}
    graph = rdf.to_graph(resolution) if need_graph else None
    b.lap("resolve+rdf")
    graph, quarantined, violations = _validate(b, graph) if do_validate else (graph, None, ())
    published = _infer(b, graph) if c.infer else graph
    b.stage("write")
    files = _graph_files(b, published if published is not None else rdf.triples(resolution),
                         quarantined if violations else None)
    files[MERGES] = rdf.resolution_merges(resolution)
    html = None
    if c.html:
        from . import render

        html = render.render_html(graph).encode("utf-8")
    report = _full_report(b, resolution, graph if violations else None, violations,
                          dict(documents_read=documents_read, encodings=encodings, validation=validation,
                               outputs=tuple(str(c.out_dir / n) for n in [GRAPH_TTL, *([GRAPH_HTML] if html else []),
                                                                          *sorted(set(files) - {GRAPH_TTL}), REPORT])))
    if c.strict and violations:
        raise MlkgError(f"{len(violations)} shape violation(s) and --strict is set; nothing written:\n  "
                        + "\n  ".join(str(v) for v in violations))
    if html is not None:
        files[GRAPH_HTML] = html
    return _commit(b, files, report, keep_quarantine=bool(violations))


def _validate(b: Build, graph):
    from . import validate

    b.stage("validate")
    out = validate.quarantine(graph)
    b.lap("validate")
    return out


def _infer(b: Build, graph):
    from . import infer

    b.stage("infer")
    published = infer.entail(graph)
    b.lap("infer")
    return published


def _graph_files(b: Build, published, quarantined) -> dict:
    """graph.ttl and the other formats asked for, and quarantine.ttl when something failed the shapes."""
    from . import serialize, write

    files = {GRAPH_TTL: write.turtle_bytes(published)}
    formats = b.config.formats
    if "nt" in formats:
        files["graph.nt"] = serialize.ntriples_bytes(published)
    if "jsonld" in formats:
        files["graph.jsonld"] = serialize.jsonld_bytes(published)
        files[serialize.CONTEXT_FILE] = serialize.context_bytes()
    if "trig" in formats:
        files["graph.trig"] = serialize.trig_bytes(published)
    if quarantined is not None:
        # what failed the shapes may hold anything, blank nodes too: rdflib's own serialiser writes it
        files[QUARANTINE] = quarantined.serialize(format="turtle").encode("utf-8")
    return files


def _full_report(b: Build, resolution, validated, violations, fields: dict) -> BuildReport:
    """The report of a full build; with ``validated`` (the graph after the quarantine) the counts are of what
    it publishes, not of what was resolved before."""
    from . import analysis
    from .vocab import local_name

    if validated is None:
        from .rdf import entity_iri_text

        stats = analysis.entity_stats(((entity_iri_text(e.key), str(e.cls), e.label) for e in resolution.entities),
                                      ((entity_iri_text(r.subject), str(r.predicate), entity_iri_text(r.object))
                                       for r in resolution.relations))
        per_class = Counter(local_name(e.cls) for e in resolution.entities)
        per_property = Counter(local_name(r.predicate) for r in resolution.relations)
    else:
        from rdflib.namespace import RDF

        from .vocab import ENTITY_CLASSES, RELATIONS

        stats = analysis.graph_stats(analysis.to_networkx(validated))
        per_class = Counter(local_name(o) for o in validated.objects(None, RDF.type) if o in ENTITY_CLASSES)
        per_property = Counter(local_name(p) for _, p, _ in validated if p in RELATIONS)
    return BuildReport(skipped=tuple(sorted(b.skipped, key=lambda s: s.path)),
                       entities_per_class=dict(sorted(per_class.items())),
                       relations_per_property=dict(sorted(per_property.items())), seconds=b.seconds, model=b.model,
                       graph_stats=stats, quarantine=violations, documents_parsed=b.counts.parsed,
                       documents_cached=b.counts.cached, **fields)


def _commit(b: Build, files: dict, report: BuildReport, keep_quarantine: bool = False) -> BuildReport:
    """Write ``files`` and report.json in one commit; prune the cache. Returns the report."""
    from . import write

    write.write_outputs(b.out, {**files, REPORT: write.json_bytes(report_dict(report, include_timing=False))})
    if not keep_quarantine:  # a quarantine.ttl left by an earlier build is not about this graph
        (b.out / QUARANTINE).unlink(missing_ok=True)
    _after_commit(b)
    b.lap("write")
    return report


# the streamed plan: compact facts, sorted runs on disk -----------------------------------------------------------

def _streamed_plan(b: Build) -> BuildReport:
    """Resolve from compact facts (memory holds the name table, not the mentions) and write graph.ttl from
    sorted runs; if the graph fails the shapes, hand the facts to the full plan, which quarantines."""
    from .facts import expand
    from .incremental import no_cycle_collection
    from .stream import Spill, StreamResolver

    _read_unread(b)
    spill = Spill(b.out)
    try:
        resolver = StreamResolver()
        resolver.documents = {d: k.document for d, k in b.kept.items()}
        _feed(b, resolver, spill)
        # from here to the commit only acyclic tables, blocks and bytes are made: with the collector on, its
        # collections walked the name table, the spill and the pipeline release_pipelines dropped for nothing
        # (0.05 to 0.08 s, and a full collection of 0.12 s, at 1,000 documents, serial: the other core idles);
        # what exists then is frozen (_no_collection), else the first collection after would walk all of it. The
        # cycles left (the pipeline's, a few MB) are collected once the build returns (_collect_again)
        with no_cycle_collection():
            exact = resolver.finish(keep=b.store is not None)  # the tables stay for the state (incremental.py)
            report = _write_streamed(b, resolver, spill) if exact else None
            _no_collection(b)
        if report is not None:
            return report
        extractions = []  # the full plan (its documents have no text: none is needed)
        for doc_id, facts, _, parsed in sorted(spill.facts(), key=lambda x: b.kept[x[0]].order):
            extractions.append(expand(b.kept[doc_id].document, facts))
            if parsed and b.store is not None:
                b.store.put_entry(b.kept[doc_id].entry, doc_id, facts)
    finally:
        spill.close()
    b.lap("parse+extract")
    return _full_plan(b, extractions)


def _feed(b: Build, resolver, spill) -> None:
    """Pass 1: every document's facts into the name table and the spill file."""
    from .executor import iter_facts, release_pipelines

    feed, b.documents = b.documents, []
    for got in iter_facts(feed, b.model, put=False, consume=True, **b.extract_options()):
        # taken in as they come: while the second process parses, so that the name table is (almost) whole when
        # the parse ends, instead of a serial step after it (0.3 s of CPU at 1,000 documents)
        resolver.add(got.document.id, got.facts)
        spill.add(got.document.id, got.facts, got.memo, got.parsed, keep=not got.parsed)  # parsed: cached with their memo
    if b.counts.parsed >= RELEASE_AFTER:  # a large parse: what spaCy held goes back before resolving
        release_pipelines()
    b.lap("parse+extract")


def _write_streamed(b: Build, resolver, spill) -> BuildReport | None:
    """Pass 2: render each document's facts again (or reuse its memo), validate, write in one commit; None when
    the graph fails the shapes (nothing is written)."""
    from .incremental import DocumentState, no_cycle_collection

    done = {}
    later = []  # cache entries written while the graph is checked beside (at most MEMORY_RECORDS held)
    feed = _feed_check(b)
    check = None
    try:
        with no_cycle_collection():  # rendering makes many small acyclic objects: the collector would only walk them
            resolver.start_render(spill, feed.feed if feed is not None else None)
            for doc_id, facts, memo, parsed in spill.facts():
                new = resolver.render(doc_id, facts, memo)
                entry = b.kept[doc_id].entry
                if b.store is not None and (new is not None or parsed):  # the memo helps the next build
                    if len(later) < MEMORY_RECORDS:
                        later.append((entry, doc_id, facts, new or memo))
                    else:
                        b.store.put_entry(entry, doc_id, facts, new or memo)
                used = new or memo
                done[doc_id] = DocumentState(entry, resolver.document_prefixes(doc_id) if facts[1] or facts[2]
                                             else None, used.evidence_triples, used.prefixes)
        turtle = resolver.turtle()
        if not _validation_note(b, resolver.triples):
            from .executor import Beside, Here

            turtle = b"".join(turtle)
            # checked in a second process while this one writes the cache entries and counts the statistics
            if feed is not None:
                feed.end()  # every block is handed over (the sorted blocks were read): it checks the graph now
                check = Here(_fed_check, feed, turtle)
            else:
                check = Beside(_check_shapes, turtle)
        for args in later:  # (a third of a second at 1,000 documents: beside the check, not before it)
            b.store.put_entry(*args)
        b.lap("resolve+rdf")
        return _commit_streamed(b, Streamed(resolver, done, {GRAPH_TTL: turtle, MERGES: resolver.merges()}), check)
    finally:
        if check is not None:
            check.close()
        if feed is not None:
            feed.close()


def _feed_check(b: Build):
    """A forked copy of this process (``executor.Fed``) loading graph.ttl's blocks into a store as they are
    rendered (``validate.TurtleLoad``), to check the shapes once the last is: on two cores the load (a third of
    the check) overlaps the rendering. None when the graph is not to be checked, or no copy can be made."""
    if _validation_note(b, 0):
        return None
    from .executor import Fed
    from .validate import TurtleLoad

    load = TurtleLoad()
    feed = Fed(load.add, load.report)
    return feed if feed.proc is not None else None


def _fed_check(feed, turtle: bytes) -> Checked:
    """The check the copy fed graph.ttl's blocks made (:func:`_feed_check`), or :func:`_check_shapes` here
    when it gave none."""
    got = feed.result()
    return Checked(got) if got is not None else _check_shapes(turtle)


def _with_html(b: Build, files: dict, changed=None) -> dict:
    """``files`` and, if asked for, graph.html rendered from graph.ttl's bytes (``render.GraphView``): the page
    a full build renders from its rdflib Graph. A patch (``changed``, its ``incremental.ChangedBlocks``) of the
    graph the last page was made from patches that page's view instead, and reuses what the last page computed
    of the components the patch left as they were (``render.PageMemo``)."""
    if not b.config.html:
        return files
    from . import incremental, render

    b.stage("render")
    ttl = files[GRAPH_TTL] if isinstance(files[GRAPH_TTL], bytes) else b"".join(files[GRAPH_TTL])
    last, b.page = b.page, None
    if changed is not None and GRAPH_TTL in b.left and incremental.page_left(b.out, last):
        b.page = last  # graph.ttl as it was: so is its page
        b.left.add(GRAPH_HTML)
        b.lap("render")
        return {**files, GRAPH_TTL: ttl}
    with incremental.no_cycle_collection():  # many small acyclic containers, a large heap when spaCy is loaded
        view = last.view if last is not None and changed is not None and last.view.patch(changed.removed, changed.added) \
            else render.GraphView.of_turtle(ttl)
        memo = render.PageMemo(last.memo if last is not None else None)
        html = render.render_html(view, memo).encode("utf-8")
    b.page = incremental.PageState(view, memo.used())
    b.lap("render")
    return {**files, GRAPH_TTL: ttl, GRAPH_HTML: html}


@dataclass(frozen=True)
class Streamed:
    """What a streamed or patched plan hands to its commit: the resolver (its summaries for the report and the
    state), each document's state, the outputs' bytes, and for a patch its summary line and changed blocks."""

    resolver: object
    docs: dict
    files: dict
    patched: str = ""
    changed: object = None


def _commit_streamed(b: Build, streamed: Streamed, check=None) -> BuildReport | None:
    """Write graph.ttl, merges.json, graph.html if asked for and report.json in one commit; prune the cache
    and leave the state (and the page's). ``check``: the validation of graph.ttl under way beside this process
    (``executor.Beside``); None, nothing written, when the graph fails the shapes."""
    from . import incremental

    resolver, done = streamed.resolver, streamed.docs
    files = _with_html(b, streamed.files, streamed.changed)
    counts = check is not None and streamed.changed is not None  # a patch's check counts the statistics beside
    stats = None if counts else incremental.graph_stats(resolver, b.state)
    tables = None  # the resolver's tables pickled for the state, if the check did it
    if check is not None:
        b.stage("validate")
        checked = check.result()
        b.lap("validate")  # the wait for it: the check ran beside the page and the statistics
        if not checked.report.conforms:
            return None
        stats, tables = (checked.stats, checked.tables) if counts else (stats, None)
    report = BuildReport(
        documents_read=len(done), skipped=tuple(sorted(b.skipped, key=lambda s: s.path)),
        entities_per_class=resolver.entities_per_class(), relations_per_property=resolver.relations_per_property(),
        seconds=b.seconds, model=b.model,
        outputs=tuple(str(b.config.out_dir / n) for n in [GRAPH_TTL, *sorted((set(files) | b.left) - {GRAPH_TTL}), REPORT]),
        graph_stats=stats.statistics,
        encodings={k.document.id: k.document.encoding for k in b.kept.values() if k.document.id in done},
        validation=_validation_note(b, resolver.triples),
        documents_parsed=b.counts.parsed, documents_cached=b.counts.cached, patched=streamed.patched)
    report = _commit(b, {name: data for name, data in files.items() if name not in b.left}, report)
    if b.store is not None:
        given = {d: b.state.sources[d] for d in b.unread}  # their files were as the state recorded them
        incremental.save_state(b.out, b.version, resolver, done, validated=not _validation_note(b, resolver.triples),
                               stats=stats, sources=incremental.sources(b.kept, b.started_ns, given), tables=tables)
        if b.page is not None:
            incremental.save_page(b.out, b.page)
        b.lap("write")
    return report


# the patched plan: few documents changed since the last streamed build ------------------------------------------

def _patched_plan(b: Build) -> BuildReport | None:
    """Parse the changed documents and patch the last build's outputs (``incremental.py``); None when only a
    full build gives the exact graph (nothing is written then, and the parsed documents are in the cache)."""
    from . import incremental
    from .executor import ExtractStats, iter_facts

    changes = incremental.plan(b.state, {d: k.entry for d, k in b.kept.items()})
    if changes is None:
        _end_early(b)
        _collect_again(b)
        return None
    want = set(changes.changed)
    if want & b.unread:  # not so when the state is whole: a document given unread has its last entry
        _read_unread(b)
    n_skipped = len(b.skipped)
    stats = ExtractStats()
    wanted = [d for d in b.documents if d.id in want]
    if b.early is not None and b.early.proc is not None:
        # the documents the cache lacks go to the copy now: it parses them once loaded, while this process
        # prepares the rest (when that takes longer than the load, as at 10,000 documents, they are parsed by then)
        b.early.send([d for d in wanted if not os.path.exists(b.kept[d.id].entry)])
        with incremental.no_cycle_collection():  # (no collection of the state's many objects either)
            _import_later_stages(b)  # while the pipeline loads beside
    got = [incremental.Change(g.document.id, g.facts, g.memo, b.kept[g.document.id].entry, g.parsed)
           for g in iter_facts(wanted, b.model, put=False, consume=True, early=b.early, **b.extract_options(stats))]
    _end_early(b)  # (when nothing was to be parsed, it is not wanted)
    _no_collection(b)
    failed = sorted(want - {g.doc_id for g in got})  # processing failed: skipped, and its old facts go
    b.lap("parse+extract")
    rebuilt = incremental.rebuild(b.state, b.out, b.store, got, changes.removed + failed,
                                  {d: k.document for d, k in b.kept.items()}, b.last)
    b.lap("resolve+rdf")
    if rebuilt is None:
        return _unpatched(b, got, n_skipped)
    check = None
    if not _validation_note(b, rebuilt.resolver.triples):
        from .executor import Beside, Here

        # a large graph is checked in a second process while this one renders graph.html and counts the statistics
        check = (Beside if rebuilt.resolver.triples > CHECK_BESIDE_TRIPLES else Here)(
            _check_patch, rebuilt.files[GRAPH_TTL], rebuilt.changed if b.state.validated else None, rebuilt.resolver,
            b.state)
    try:
        report = _commit_patch(b, changes, stats, rebuilt, check)
    finally:
        if check is not None:
            check.close()
    return report if report is not None else _unpatched(b, got, n_skipped)


def _end_early(b: Build) -> None:
    """End the copy loading the pipeline for a patch, if any (its memory and CPU are not wanted any more)."""
    if b.early is not None:
        b.early.close()
        b.early = None


def _import_later_stages(b: Build) -> None:
    """Import what rendering graph.html and checking the shapes need (igraph, pyoxigraph: a tenth of a
    one-document rebuild), compute the name forms the patch's regroup reads (``NameTable.warm``) and what the
    page reads of each subject of the last page's view (``render.GraphView.warm``), read and split the outputs
    it patches (``incremental.read_outputs``) and, if the parse beside is still under way, what the check reads
    of the shapes (``validate.prepare_patch_check``), while this process would otherwise wait for the pipeline
    loading beside it."""
    from . import incremental

    b.state.resolver().warm()
    b.last = incremental.read_outputs(b.out)
    if b.config.html:
        import igraph  # noqa: F401

        from . import render  # noqa: F401

        if b.page is not None:  # what the page reads of each subject, which the patch then updates where it changed
            b.page.view.warm()
    if b.config.validate is not False:
        from . import validate

        # the patch is checked where it changed, in a forked copy: what that reads of the shapes is read here
        # if the parse is not done yet (this process would wait), else by the check itself (beside the page)
        if b.state.validated and not b.early.answered():
            validate.prepare_patch_check()


def _unpatched(b: Build, got: list, n_skipped: int) -> None:
    """What a patch that cannot be used leaves for the full build: the documents it parsed in the cache, its
    skipped documents and counts undone, and no output left as it is."""
    from .executor import ExtractStats

    for g in got:
        if g.parsed:
            b.store.put_entry(g.entry, g.doc_id, g.facts)
    del b.skipped[n_skipped:]  # the full build meets them again
    b.left, b.counts = set(), ExtractStats()
    _collect_again(b)
    return None


def _no_collection(b: Build) -> None:
    """Keep the cycle collector off what exists now for the rest of a patched build (gc.freeze): the state's
    tables and the page's view, millions of objects that live as long as the build, which a full collection
    triggered by the little the patch makes would walk (0.1 s at 1,000 documents, a tenth of the rebuild).
    Called as soon as each is read (and again once the patch has its facts), so no collection walks them
    while the rest is read either.
    :func:`_collect_again` gives them back to it when the build returns or hands over to a full build (which
    also gives back what a pipeline loaded in this process had frozen: a later collection walks it again)."""
    import gc

    gc.freeze()  # (again: what was made since the last call joins what is frozen)
    b.frozen = True


def _collect_again(b: Build) -> None:
    """Undo :func:`_no_collection`."""
    import gc

    if b.frozen:
        gc.unfreeze()
        b.frozen = False


def _commit_patch(b: Build, changes, stats, rebuilt, check) -> BuildReport | None:
    """Write the patched outputs (:func:`_commit_streamed`); None when the patched graph fails the shapes
    (``check``, under way beside this process), and nothing is written."""
    from . import incremental

    b.left = incremental.left_as_they_are(b.out, b.state, rebuilt)
    for c in rebuilt.entries:
        b.store.put_entry(c.entry, c.doc_id, c.facts, c.memo)
    b.store.used.update(v.entry for v in rebuilt.docs.values())
    b.counts.parsed, b.counts.cached = stats.parsed, len(rebuilt.docs) - stats.parsed
    b.lap("resolve+rdf")
    patched = (f"graph.ttl and merges.json patched: {len(changes.changed)} document(s) new or changed, "
               f"{len(changes.removed)} removed, {rebuilt.rendered} rendered again"
               + ("; graph.html rendered from the patched graph" if b.config.html else ""))
    return _commit_streamed(b, Streamed(rebuilt.resolver, rebuilt.docs, rebuilt.files, patched, rebuilt.changed), check)


# reports ----------------------------------------------------------------------------------------------------------

def unchanged_report(config: BuildConfig, known=None) -> BuildReport | None:
    """The last build's report, marked up to date, when nothing changed since it (``stamp.unchanged``); else
    None. Every document's facts are reused as they are: all "from the cache". ``known``: the build's
    ``stamp.Fingerprint``."""
    from . import stamp

    last = stamp.unchanged(config, known)
    return None if last is None else _report_from_dict(last, up_to_date=True, documents_cached=last["documents_read"])


def _report_from_dict(d: dict, **extra) -> BuildReport:
    """The inverse of :func:`report_dict` without timings (an unchanged build's report is the last one's)."""
    return BuildReport(
        documents_read=d["documents_read"], skipped=tuple(SkippedDocument(**s) for s in d["skipped"]),
        entities_per_class=d["entities_per_class"], relations_per_property=d["relations_per_property"],
        model=d["model"], graph_stats=d["graph"], encodings=d["encodings"], validation=d.get("validation", ""),
        quarantine=tuple(Violation(**v) for v in d.get("quarantine", ())), **extra)


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
