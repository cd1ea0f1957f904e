"""Write graphs and reports deterministically and atomically (temporary file, then rename).

A build replaces several files (graph.ttl, graph.html, report.json). :func:`write_outputs` makes that one
all-or-nothing step, in the manner of a database commit:

1. every new file is written in full to a temporary file beside its target and fsynced;
2. a journal (``.mlkg-commit.json``) listing the renames is written atomically: this is the commit point;
3. the temporary files are renamed over the targets, and the journal is removed.

A run that dies before step 2 leaves every previous output byte-identical (only stray temporary files, which the
next run removes). A run that dies during step 3 leaves each file either old or new, never partial, and the
journal lets the next ``mlkg build`` (:func:`recover`) finish the renames, so the folder never stays mixed.
A lock on the output folder (:func:`folder_lock`), held by a build from start to end, keeps two builds into the
same folder from interleaving.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import MlkgError
from .files import atomic_write, temp_beside
from .outputs import JOURNAL

if TYPE_CHECKING:  # rdflib loads with the first Terms: the folder lock and atomic writes run without it
    from rdflib import Graph

__all__ = ["atomic_write", "write_turtle", "turtle_bytes", "turtle_block", "quote_string", "quote_iri", "Terms",
           "write_json", "json_bytes", "write_outputs", "recover", "folder_lock", "fault", "JOURNAL"]


_XSD = "http://www.w3.org/2001/XMLSchema#"
_BARE = {_XSD + "integer": re.compile(r"[+-]?\d+"), _XSD + "decimal": re.compile(r"[+-]?\d*\.\d+"),
         _XSD + "boolean": re.compile(r"true|false")}
_LOCAL = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_ESC = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
# every control character and line or paragraph separator is escaped, so each statement stays on one line
# whatever the text holds (a line-by-line reader of N-Triples sees no line the text did not end)
_NEEDS_ESC = re.compile(r'[\x00-\x1f\x7f-\x9f\u2028\u2029"\\]')
_IRI_BAD = re.compile(r'[\x00-\x20\x7f-\x9f\u2028\u2029<>"{}|^`\\]')
_RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


def quote_string(text: str) -> str:
    """``text`` as a Turtle, TriG and N-Triples string literal: quoted, on one line, every control character and
    line separator escaped.

    Examples
    --------
    >>> print(quote_string('a "b"\u2028c\x0b'))
    "a \\"b\\"\\u2028c\\u000B"
    """
    if _NEEDS_ESC.search(text):
        text = _NEEDS_ESC.sub(lambda m: _ESC.get(m.group(), f"\\u{ord(m.group()):04X}"), text)
    return f'"{text}"'


def quote_iri(iri: str) -> str:
    """``<iri>``, with the characters an IRI reference cannot hold raw written as ``\\u`` escapes.

    Examples
    --------
    >>> print(quote_iri("http://example.org/a b"))
    <http://example.org/a\\u0020b>
    """
    return "<" + _IRI_BAD.sub(lambda m: f"\\u{ord(m.group()):04X}", iri) + ">"


class Terms:
    """Turtle text of terms: prefixed names where the local part is plain, else ``<IRI>``; IRIs rendered once."""

    def __init__(self, prefixes: dict[str, str]) -> None:
        from rdflib import Literal, URIRef

        self._literal, self._iri = Literal, URIRef
        self.prefixes = sorted(prefixes.items(), key=lambda kv: -len(kv[1]))
        self.used: set[str] = set()
        self.memo: dict[str, str] = {}

    def iri(self, iri: str) -> str:
        out = self.memo.get(iri)
        if out is None:
            out = self.memo[iri] = self.render_iri(iri)
        return out

    def render_iri(self, iri: str) -> str:
        """The text of ``iri`` (marking its prefix used), without remembering it."""
        for name, ns in self.prefixes:
            if iri.startswith(ns) and _LOCAL.fullmatch(iri[len(ns):]):
                self.used.add(name)
                return f"{name}:{iri[len(ns):]}"
        return quote_iri(iri)

    def header(self, used: set[str] | None = None) -> str:
        """The ``@prefix`` lines of the prefixes in ``used`` (default: those marked used), and a blank line;
        empty when none is."""
        used = self.used if used is None else used
        head = "".join(f"@prefix {name}: <{ns}> .\n" for name, ns in sorted(
            (name, ns) for name, ns in self.prefixes if name in used))
        return head + "\n" if head else ""

    def term(self, t) -> str:
        if isinstance(t, self._literal):
            lex = str(t)
            dt = str(t.datatype) if t.datatype else None
            if t.language:
                return f"{quote_string(lex)}@{t.language}"
            if dt in _BARE and _BARE[dt].fullmatch(lex):
                return lex
            if dt and dt != _XSD + "string":
                return f"{quote_string(lex)}^^{self.iri(dt)}"
            return quote_string(lex)
        if isinstance(t, self._iri):
            return "a" if str(t) == _RDF_TYPE else self.iri(str(t))
        raise ValueError(f"blank node {t!r}: mlkg graphs name every node")


def turtle_block(subject: str, pairs) -> str:
    """The Turtle of one subject from its (predicate, object) texts: ``a`` first, then predicates and objects
    in order of their text (shared by :func:`turtle_bytes` and the streaming writer, ``stream.py``)."""
    objects: dict[str, list[str]] = {}
    for p, o in pairs:
        os_ = objects.get(p)
        if os_ is None:
            objects[p] = [o]
        else:
            os_.append(o)
    preds = sorted(objects)
    if "a" in objects:
        preds.remove("a")
        preds.insert(0, "a")
    return (subject + " " + " ;\n    ".join([p + " " + ", ".join(sorted(objects[p])) for p in preds]) + " .\n")


def turtle_bytes(graph: Graph | Iterable[tuple]) -> bytes:
    """Turtle, deterministic: byte-identical for equal graphs, in time O(n log n) and little memory per triple.

    One block per subject, subjects in order of their Turtle text, ``a`` (``rdf:type``) first and then
    predicates in order of their text, objects in order of their text. rdflib's own Turtle serialiser is far
    slower and grows faster than linearly with the graph, which at ten thousand documents made it the build's
    bottleneck; this writer renders each triple to text at once and keeps only that. ``graph`` may be a Graph
    or any iterable of triples (repeats are written once), so a large build need not hold an rdflib Graph at
    all. The graph has no blank nodes (every node is named by ``rdf.py``).

    Examples
    --------
    >>> from rdflib import Graph, Literal, Namespace
    >>> EX = Namespace("http://example.org/")
    >>> g = Graph(); _ = g.add((EX.a, EX.p, Literal("x \\"y\\""))); _ = g.add((EX.a, EX.p, Literal(3)))
    >>> print(turtle_bytes(g).decode())
    <http://example.org/a> <http://example.org/p> "x \\"y\\"", 3 .
    <BLANKLINE>
    """
    from .vocab import PREFIXES

    terms = Terms({k: str(v) for k, v in PREFIXES.items()})
    by_subject: dict[str, set[tuple[str, str]]] = {}
    for s, p, o in graph:
        if not isinstance(s, terms._iri):
            raise ValueError(f"blank node {s!r}: mlkg graphs name every node")
        key = terms.iri(str(s))
        po = by_subject.get(key)
        if po is None:
            po = by_subject[key] = set()
        po.add((terms.term(p), terms.term(o)))
    blocks: list[str] = [turtle_block(subject, by_subject.pop(subject)) for subject in sorted(by_subject)]
    return (terms.header() + "\n".join(blocks)).encode("utf-8")


def write_turtle(graph: Graph, path: Path) -> None:
    """Serialise ``graph`` as Turtle to ``path`` atomically."""
    atomic_write(path, turtle_bytes(graph))


def json_bytes(obj) -> bytes:
    """``obj`` as sorted, indented UTF-8 JSON."""
    return (json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def write_json(obj, path: Path) -> None:
    """Write ``obj`` as sorted, indented JSON atomically."""
    atomic_write(path, json_bytes(obj))


def fault(checkpoint: str) -> None:
    """Fault injection for the crash and race tests: ``MLKG_TEST_FAULT=pause:<checkpoint>`` or ``raise:<checkpoint>``.

    A pause lasts until the file named by ``MLKG_TEST_RESUME`` exists (when that is set), else ten minutes.
    """
    action, _, where = os.environ.get("MLKG_TEST_FAULT", "").partition(":")
    if where != checkpoint:
        return
    if action == "raise":
        raise OSError(errno.EIO, f"fault injected at {checkpoint} by MLKG_TEST_FAULT")
    if action == "pause":
        print(f"mlkg: paused at {checkpoint} (MLKG_TEST_FAULT)", file=sys.stderr, flush=True)
        resume = os.environ.get("MLKG_TEST_RESUME")
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and not (resume and os.path.exists(resume)):
            time.sleep(0.05)


_HELD: dict[tuple, int] = {}  # (thread, folder) whose lock this thread holds -> how many times taken


@contextlib.contextmanager
def folder_lock(folder: Path, on_wait=None):
    """An exclusive lock on the folder itself (no lock file left behind), released when the process dies.

    Re-entrant within a thread: a build holds its output folder's lock from start to end, and the writer it
    calls takes it again (another thread's build waits, as another process's does). ``on_wait()`` is called once if another process holds it (before waiting for it).
    """
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        yield
        return
    key = (threading.get_ident(), os.path.realpath(folder))
    if _HELD.get(key):
        _HELD[key] += 1
        try:
            yield
        finally:
            _HELD[key] -= 1
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if on_wait is not None:
                    on_wait()
                fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:  # a file system without locks (some network mounts): go on unlocked
            pass
        _HELD[key] = 1
        try:
            yield
        finally:
            del _HELD[key]
    finally:
        os.close(fd)


def _fsync_files(paths: list[Path]) -> None:
    """Flush each of ``paths`` to the disk, all at once (a thread each but the first): the file system commits
    their flushes together, in about the time of one (four outputs of a one-document rebuild at 1,000
    documents: 0.02 s one after the other, 0.01 s at once). Raises the first flush's error, once all are done."""
    errors: list[OSError] = []

    def flush(path: Path) -> None:
        try:
            fd = os.open(path, os.O_RDWR)  # (writable: some systems flush only through a handle that can write)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            errors.append(exc)

    threads = [threading.Thread(target=flush, args=(p,)) for p in paths[1:]]
    for t in threads:
        t.start()
    if paths:
        flush(paths[0])
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _recover_locked(out: Path) -> list[str]:
    done = []
    journal = out / JOURNAL
    if journal.exists():
        for tmp, name in json.loads(journal.read_text("utf-8"))["renames"]:
            if (out / tmp).exists():
                os.replace(out / tmp, out / name)
                done.append(name)
        _fsync_dir(out)
        journal.unlink()
    for stray in out.glob(".*.tmp"):  # temporary files of runs that died before their commit point
        stray.unlink(missing_ok=True)
    return done


def recover(out_dir: Path) -> list[str]:
    """Finish a commit that a dead run left half done, and remove its stray temporary files.

    Returns the names of the outputs the interrupted run had not yet replaced and that are now replaced.
    """
    out = Path(out_dir)
    if not out.is_dir():
        return []
    with folder_lock(out):
        return _recover_locked(out)


def write_outputs(out_dir: Path, files: dict[str, bytes | Iterable[bytes]]) -> None:
    """Replace all of ``files`` (name to content) in ``out_dir`` as one step: all new, or all as they were.

    A content is bytes, or an iterable of byte chunks written as they come (a large graph streamed from
    sorted runs never exists in memory as one bytes object); if it raises, nothing is replaced.

    Raises
    ------
    MlkgError
        When a file cannot be written; the previous outputs are then as they were (or, if the failure came
        after the commit point, the next run completes the replacement).
    """
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
        with folder_lock(out):
            _recover_locked(out)
            staged: list[tuple[str, str]] = []
            try:
                for name, data in files.items():
                    fd, tmp = temp_beside(out / name)
                    staged.append((Path(tmp).name, name))
                    with os.fdopen(fd, "wb") as fh:
                        for chunk in ((data,) if isinstance(data, bytes | bytearray) else data):
                            fh.write(chunk)
                _fsync_files([out / tmp for tmp, _ in staged])
                fault("staged")
                atomic_write(out / JOURNAL, json_bytes({"renames": staged}))
                _fsync_dir(out)
            except BaseException:
                for tmp, _ in staged:
                    (out / tmp).unlink(missing_ok=True)
                raise
            for i, (tmp, name) in enumerate(staged):
                os.replace(out / tmp, out / name)
                if i == 0:
                    fault("committing")
            _fsync_dir(out)
            (out / JOURNAL).unlink()
    except OSError as exc:
        raise MlkgError(f"cannot write the outputs in {out}: {exc}; the previous outputs are left as they were"
                        + (" (the next build completes the replacement)" if (out / JOURNAL).exists() else "")) from exc
