"""Run the per-document stages (parse, rules, extract) on documents: in this process, in worker processes, or on Dask.

Documents in, Extractions out, in document order. The incremental cache is consulted first; only the
documents it misses are parsed, by one of three executors that run the same function on chunks of documents:

- ``local`` with one worker: ``nlp.pipe`` in batches in this process, keeping each Extraction and dropping the
  spaCy Doc at once (memory holds the Extractions, never the Docs); from ``OVERLAP_MIN`` documents on a machine
  of two cores or more, a second process takes chunks of documents while this one does others (``_run_shared``;
  on Linux that process is this one forked once the pipeline is loaded);
- ``local`` with ``workers > 1``: a process pool, each process loading the pipeline once;
- ``dask``: chunks submitted to a Dask cluster (a ``LocalCluster`` when no scheduler address is given), each
  worker thread loading the pipeline once.

Whatever the executor, the Extraction of a document depends on its text alone, and the build resolves them in
document order, so every executor gives the same graph.
"""

from __future__ import annotations

import os
import pickle
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from .model import Document, Extraction

__all__ = ["Beside", "serve", "Fed", "Here", "EarlyParse", "ExtractStats", "Extracted", "Facts", "Failed", "Result", "DocumentFacts", "extract_documents", "iter_facts", "extract_chunk",
           "release_pipelines", "EXECUTORS"]

EXECUTORS = ("local", "dask")

_local = threading.local()


@dataclass
class ExtractStats:
    """How many documents were parsed and how many came from the cache."""

    parsed: int = 0
    cached: int = 0


def _nlp(model: str):
    cache = getattr(_local, "nlp", None)
    if cache is None:
        cache = _local.nlp = {}
    if model not in cache:
        import gc

        from .nlp import load_nlp

        # loading makes some hundred thousand objects that live as long as the pipeline: a cycle collection during
        # the load, or any later one, would only walk them (a collection of the whole heap costs ~0.1 s, a
        # tenth of a one-document rebuild). Loaded with no automatic collection (a threshold of 0: srsly turns
        # the collector back on after each msgpack message, so gc.disable would not hold), then moved out of its
        # reach (frozen); release_pipelines gives them back to it.
        thresholds = gc.get_threshold()
        gc.set_threshold(0)
        try:
            cache[model] = load_nlp(model)
        finally:
            gc.set_threshold(*thresholds)
        gc.freeze()
    return cache[model]


# the extraction's caches keyed by names (compiled per-name patterns, normalised names) fill with every new
# name of a long run: cleared when over these sizes, they refill with the names that recur (a few hundred)
def release_pipelines() -> None:
    """Drop the pipelines this thread loaded, and hand the freed memory back to the system where glibc allows.

    A streaming build calls this once every document is parsed, so that resolving and writing a large graph
    do not add to the memory spaCy held. Dropping the references frees almost all of it (the weight arrays and
    the vocabulary go with their last reference: 56 of 60 MB, 40 documents parsed); a collection here would add
    the few MB held in cycles, but walks the whole heap, the build's name table too (0.13 s at 1,000 documents,
    between the parse and the rest, when the other core is idle): they are left to the collector's next pass
    (after the build: a streamed build keeps the collector off what exists from here until it returns).
    """
    import gc

    _local.nlp = {}
    gc.unfreeze()  # what _nlp froze (the pipelines among it) can be collected again
    _malloc_trim()


def _malloc_trim() -> None:
    """Hand the C heap's free pages back to the system (glibc only; elsewhere nothing)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


@dataclass(frozen=True)
class Extracted:
    """A document's Extraction, made in this process (or returned by a Dask worker)."""

    extraction: Extraction


@dataclass(frozen=True)
class Facts:
    """A document's Extraction as compact facts (``facts.compact``), as the second process sends it back."""

    document: Document
    facts: tuple


@dataclass(frozen=True)
class Failed:
    """A document whose processing raised: the exception's type name and message (it is left out)."""

    document: Document
    error: str
    message: str


Result = Extracted | Facts | Failed
"""What an executor yields for each document."""


def extract_chunk(documents: list[Document], model: str, batch_size: int = 16) -> list[Result]:
    """Parse ``documents`` with pipeline ``model`` (loaded once per worker thread) and run the rules on them.

    Returns an :class:`Extracted` per document parsed, in order, then a :class:`Failed` per document that failed.
    """
    from .nlp.extract import extract_all

    failures: list[Result] = []
    out: list[Result] = [Extracted(ex) for ex in extract_all(
        _nlp(model), documents, batch_size=batch_size,
        on_error=lambda d, exc: failures.append(Failed(d, type(exc).__name__, str(exc))))]
    return out + failures


OVERLAP_MIN = 200
"""Documents to parse from which one local worker shares them with a second process (below it, starting that
process costs more than it saves: on 2 cores, 100 generated documents took 2.55 s with it and 2.38 s without,
300 took 4.5 s and 5.05 s)."""

AHEAD = 3
"""Chunks handed to the second process and not yet answered, at most: enough that it never waits for this
process (busy with a chunk of its own), few enough that the last ones can be taken back when the work ends."""


def _framed(obj) -> bytes:
    """``obj`` as :func:`_send` writes it: its pickle's length, then the pickle."""
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return len(data).to_bytes(8, "little") + data


def _send(stream, obj) -> None:
    stream.write(_framed(obj))
    stream.flush()


def _receive(stream):
    """The next object :func:`_send` wrote to ``stream``, or None at its end."""
    head = stream.read(8)
    if len(head) < 8:
        return None
    return pickle.loads(stream.read(int.from_bytes(head, "little")))


FORK = sys.platform == "linux"
"""Start the second process by forking this one once its pipeline is loaded (Linux), rather than as a new
Python process that imports spaCy and loads the pipeline again: about two seconds of CPU time saved a build."""


class _Forked:
    """A forked child's id and, once waited for, its exit status (``subprocess.Popen``'s ``returncode``)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None

    def kill(self) -> None:
        import signal

        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def wait(self) -> int:
        if self.returncode is None:
            _, status = os.waitpid(self.pid, 0)
            self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode


def _fork_server(model: str, batch_size: int):
    """A forked copy of this process serving chunks of documents (:func:`serve`, which loads the pipeline if this
    process had not): the copy, and the two ends of its pipes this process keeps (to write chunks, to read
    results)."""
    down, up = os.pipe(), os.pipe()  # (read, write) each: chunks down to the child, results up from it
    pid = os.fork()
    if pid == 0:  # the child: serve, and end without returning into the caller's code (nor its cleanup)
        code = 1
        try:
            import gc

            gc.freeze()  # what it has of this process is never collected there: not walked, its pages not copied
            # it keeps none of this process's files (the output folder's lock among them) but its two pipes
            keep = sorted((down[0], up[1]))
            os.closerange(3, keep[0])
            os.closerange(keep[0] + 1, keep[1])
            os.closerange(keep[1] + 1, os.sysconf("SC_OPEN_MAX"))
            with open(down[0], "rb") as stdin, open(up[1], "wb") as stdout:
                serve(model, batch_size, stdin, stdout)
            code = 0
        except BaseException:  # noqa: BLE001  (the parent does what this child did not answer)
            pass
        finally:
            os._exit(code)
    os.close(down[0])
    os.close(up[1])
    return _Forked(pid), open(down[1], "wb"), open(up[0], "rb")


class _Piped:
    """A forked copy of this process with a pipe to it (``stdin``) and one from it (``stdout``), or none
    (``proc`` None)."""

    proc: _Forked | None = None

    def close(self) -> None:
        """End the copy (if it still runs, what it would answer is not wanted)."""
        if self.proc is not None:
            self.proc.kill()
            for stream in (self.stdin, self.stdout):
                try:
                    stream.close()
                except OSError:
                    pass
            self.proc.wait()
            self.proc = None


class EarlyParse(_Piped):
    """A forked copy of this process that loads the pipeline as soon as it is made, then parses and extracts the
    documents :meth:`results` hands it. A patched build makes it once it knows it may parse a few documents, before
    it reads them: loading spaCy (most of a one-document rebuild) then runs on the second core while this
    process reads the documents, the state and the page. Not made (and :meth:`results` gives None) off Linux, when
    this process holds the pipeline already, or runs other threads."""

    def __init__(self, model: str, batch_size: int) -> None:
        self.proc, self.sent = None, None
        if not FORK or model in getattr(_local, "nlp", {}) or threading.active_count() > 1:
            return
        try:
            self.proc, self.stdin, self.stdout = _fork_server(model, batch_size)
        except OSError:
            self.proc = None

    @staticmethod
    def takes(documents: list[Document]) -> bool:
        """Whether the copy parses ``documents`` (else they are parsed as without it): fewer than
        :data:`OVERLAP_MIN`, which one process parses as soon as two would."""
        return len(documents) < OVERLAP_MIN

    def send(self, documents: list[Document]) -> None:
        """Hand ``documents`` (one chunk) to the copy now, so that it parses them as soon as it is loaded, while
        this process goes on; :meth:`results` of the same documents then waits for its answer. Not when the
        chunk would not fit in the pipe (this process would wait for the copy to read it) or is not
        :meth:`takes`-n: then :meth:`results` hands it over."""
        if self.proc is None or self.sent is not None or not documents or not self.takes(documents):
            return
        import fcntl

        data = _framed(documents)
        try:
            room = fcntl.fcntl(self.stdin.fileno(), fcntl.F_GETPIPE_SZ)  # what the pipe holds unread
        except (AttributeError, OSError):
            return
        if len(data) > room:
            return
        try:
            self.stdin.write(data)
            self.stdin.close()  # the end of the work: it answers and ends
        except (OSError, ValueError):
            self.close()
            return
        self.sent = [d.id for d in documents]

    def answered(self) -> bool:
        """Whether the copy's answer to what :meth:`send` handed it is there to be read (no wait)."""
        import select

        if self.proc is None or self.sent is None:
            return False
        try:
            return bool(select.select([self.stdout], [], [], 0)[0])
        except (OSError, ValueError):
            return False

    def results(self, documents: list[Document]) -> list[Result] | None:
        """The results of ``documents`` (one chunk), or None when the copy gave none (it is then ended): so when
        it was sent other documents (:meth:`send`)."""
        if self.proc is None or (self.sent is not None and self.sent != [d.id for d in documents]):
            self.close()
            return None
        try:
            if self.sent is None:
                _send(self.stdin, documents)
                self.stdin.close()  # the end of the work: it answers and ends
            got = _receive(self.stdout)
        except (OSError, EOFError, ValueError, pickle.UnpicklingError):
            got = None
        self.close()
        return None if got is None else _restored(got, documents)

class _SecondProcess:
    """A second process parsing and extracting chunks of documents, speaking pickles over two pipes.

    On Linux it is this process forked once the pipeline is loaded (:data:`FORK`), so nothing is imported or
    loaded twice; elsewhere a plain subprocess (``python -m pipeline.executor``), not ``multiprocessing``: a
    spawned ``multiprocessing`` child imports the caller's main module again, which a script or notebook
    calling :func:`pipeline.build.run_build` without an ``if __name__ == "__main__"`` guard would run twice.
    One thread writes the chunks and one reads the results as they come, so neither side waits on the other's
    full pipe, and this process never waits to hand a chunk over.
    """

    def __init__(self, model: str, batch_size: int) -> None:
        import queue

        self.results: queue.Queue = queue.Queue()
        self.outbox: queue.Queue = queue.Queue()
        if FORK:
            self._fork(model, batch_size)
        else:
            self._spawn(model, batch_size)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.writer = threading.Thread(target=self._write, daemon=True)
        self.reader.start()
        self.writer.start()

    def _spawn(self, model: str, batch_size: int) -> None:
        import subprocess

        package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # importable as here
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
        self.proc = subprocess.Popen([sys.executable, "-m", "pipeline.executor", model, str(batch_size)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout

    def _fork(self, model: str, batch_size: int) -> None:
        tokenizer = _nlp(model).tokenizer  # loaded before the fork: the child has it as this process does
        if hasattr(tokenizer, "settle"):  # (so are the special cases that both would load after a few documents)
            tokenizer.settle()
        self.proc, self.stdin, self.stdout = _fork_server(model, batch_size)

    def _read(self) -> None:
        try:
            while (result := _receive(self.stdout)) is not None:
                self.results.put(result)
        except (OSError, EOFError, pickle.UnpicklingError):
            pass
        finally:
            self.results.put(None)  # the process has ended (or its output broke): nothing more comes

    def _write(self) -> None:
        try:
            while (chunk := self.outbox.get()) is not None:
                _send(self.stdin, chunk)
        except (OSError, ValueError):  # it has ended: the reader says so
            pass
        finally:
            try:
                self.stdin.close()  # the end of the work: the process answers what it has and ends
            except OSError:
                pass

    def send(self, chunk: list[Document]) -> None:
        """Hand ``chunk`` to the process (should it be gone, the results' queue says so)."""
        self.outbox.put(chunk)

    def close(self, kill: bool = False) -> None:
        """End the process: once it has answered what it was handed, or at once with ``kill``."""
        if kill:
            self.proc.kill()
        self.outbox.put(None)
        self.writer.join()
        self.proc.wait()
        self.reader.join()
        self.stdout.close()


class Beside:
    """``fn(*args)`` computed in a forked copy of this process while this one goes on (:data:`FORK`); elsewhere,
    when this process runs other threads (a lock one of them holds would stay held in the copy), or when the
    copy cannot be made or fails, computed here when :meth:`result` is asked for. ``fn`` must change nothing
    this process reads after (the copy's changes are lost) and return something picklable."""

    def __init__(self, fn: Callable, *args) -> None:
        self.fn, self.args, self.proc = fn, args, None
        if not FORK or threading.active_count() > 1:
            return
        try:
            read, write = os.pipe()
            pid = os.fork()
        except OSError:
            return
        if pid == 0:  # the copy: compute, send, and end without returning into the caller's code
            code = 1
            try:
                import gc
                import signal

                signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the process group: this one ends it
                gc.freeze()
                os.closerange(3, write)  # none of this process's files (the output folder's lock among them)
                os.closerange(write + 1, os.sysconf("SC_OPEN_MAX"))
                with open(write, "wb") as out:
                    _send(out, [fn(*args)])
                code = 0
            except BaseException:  # noqa: BLE001  (the parent computes it itself)
                pass
            finally:
                os._exit(code)
        os.close(write)
        self.proc, self.stream = _Forked(pid), open(read, "rb")

    def result(self):
        """``fn(*args)``: the copy's answer, or computed here if it gave none."""
        if self.proc is not None:
            try:
                got = _receive(self.stream)
            except (OSError, EOFError, pickle.UnpicklingError):
                got = None
            finally:
                self.close()
            if got is not None:
                return got[0]
        return self.fn(*self.args)

    def close(self) -> None:
        """End the copy (if it still runs, its answer is not wanted)."""
        if self.proc is not None:
            self.proc.kill()
            self.stream.close()
            self.proc.wait()
            self.proc = None


def _widen(fd: int, size: int = 1 << 20) -> None:
    """Let the pipe ``fd`` hold ``size`` bytes (Linux; as far as the system allows), so that handing an item to a
    copy busy with the last one does not wait for it."""
    try:
        import fcntl

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), size)
    except (OSError, ImportError):
        pass


class Fed(_Piped):
    """A forked copy of this process (:data:`FORK`) handed pieces of work as this one makes them: each
    :meth:`feed` item is passed to ``take(item)`` there, and once every item is handed over, :meth:`result` is
    ``done()`` computed there. The copy works beside this process while it makes the next items. None from
    :meth:`result` (the caller then computes it itself) off Linux, when this process runs other threads, or
    when the copy could not be made or gave no answer. ``take`` and ``done`` must change nothing this process
    reads after (the copy's changes are lost), and ``done`` must return something picklable."""

    def __init__(self, take: Callable, done: Callable) -> None:
        self.proc = None
        if not FORK or threading.active_count() > 1:
            return
        try:
            down, up = os.pipe(), os.pipe()
            pid = os.fork()
        except OSError:
            return
        if pid == 0:  # the copy: take the items, answer, and end without returning into the caller's code
            code = 1
            try:
                import gc
                import signal

                signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the process group: this one ends it
                gc.freeze()
                keep = sorted((down[0], up[1]))
                os.closerange(3, keep[0])  # none of this process's files (the output folder's lock among them)
                os.closerange(keep[0] + 1, keep[1])
                os.closerange(keep[1] + 1, os.sysconf("SC_OPEN_MAX"))
                with open(down[0], "rb") as stdin, open(up[1], "wb") as stdout:
                    while (item := _receive(stdin)) is not None:
                        take(item)
                    _send(stdout, [done()])
                code = 0
            except BaseException:  # noqa: BLE001  (the parent computes it itself)
                pass
            finally:
                os._exit(code)
        os.close(down[0])
        os.close(up[1])
        _widen(down[1])
        self.proc, self.stdin, self.stdout = _Forked(pid), open(down[1], "wb"), open(up[0], "rb")

    def feed(self, item) -> None:
        """Hand ``item`` to the copy (should it be gone, :meth:`result` says so)."""
        if self.proc is not None:
            try:
                _send(self.stdin, item)
            except (OSError, ValueError):
                self.close()

    def end(self) -> None:
        """Tell the copy that every item is handed over: it computes ``done()`` (:meth:`result` waits for it)."""
        if self.proc is not None:
            try:
                self.stdin.close()
            except OSError:
                self.close()

    def result(self):
        """``done()`` as the copy computed it once it had every item, or None."""
        self.end()
        if self.proc is None:
            return None
        try:
            got = _receive(self.stdout)
        except (OSError, EOFError, ValueError, pickle.UnpicklingError):
            got = None
        self.close()
        return None if got is None else got[0]


class Here(Beside):
    """``fn(*args)`` computed in this process when :meth:`result` is asked for: a :class:`Beside` for work that
    costs less than the fork would."""

    def __init__(self, fn: Callable, *args) -> None:
        self.fn, self.args, self.proc = fn, args, None


def serve(model: str, batch_size: int, stdin=None, stdout=None) -> None:
    """The second process: chunks of documents in on ``stdin``, their results out on ``stdout`` (by default
    this process's standard input and output), each Extraction as compact facts (:func:`_compacted`)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group: the build ends this one
    stdin, stdout = stdin or sys.stdin.buffer, stdout or sys.stdout.buffer
    sys.stdout = sys.stderr  # whatever a library prints must not corrupt the results
    _nlp(model)
    _warm_up(model, batch_size, stdin)
    while (chunk := _receive(stdin)) is not None:
        _send(stdout, _compacted(extract_chunk(chunk, model, batch_size), chunk))


WARM_UP = Document("warm-up.txt", "warm-up.txt", "We fine-tune Llama 2 on ImageNet and SQuAD; it outperforms BERT. "
                   "Presented at NeurIPS 2023, trained on NVIDIA A100 GPUs at Stanford University.")
"""A made-up document a second process extracts once loaded, before any chunk has come (:func:`_warm_up`)."""


def _warm_up(model: str, batch_size: int, stdin) -> None:
    """Extract :data:`WARM_UP` (its results unused) if no chunk is waiting yet: a first document pays for what
    the rules and the decision make once per process (tables, patterns, weight rows), 0.03 to 0.05 s, which an
    ``EarlyParse`` copy, loaded while its build still reads, then pays before the document it is waited for.
    Extractions do not depend on what was extracted before (as chunks shared between processes do not)."""
    import select

    try:
        if select.select([stdin], [], [], 0)[0]:
            return
    except (OSError, ValueError):  # not a pipe select can wait on (Windows): no warm-up
        return
    extract_chunk([WARM_UP], model, batch_size)


@dataclass(frozen=True)
class _FactsAt:
    """:class:`Facts` as the second process sends them: the document by its place in the chunk it was handed
    (the parent has the document and its text), the facts as plain tuples (quick to pickle)."""

    place: int
    facts: tuple


@dataclass(frozen=True)
class _FailedAt:
    """:class:`Failed` as the second process sends it: the document by its place in the chunk."""

    place: int
    error: str
    message: str


def _compacted(results: list[Result], chunk: list[Document]) -> list[_FactsAt | _FailedAt]:
    """``results`` as the second process sends them back."""
    from .facts import compact

    place = {id(document): i for i, document in enumerate(chunk)}
    return [_FactsAt(place[id(r.extraction.document)], compact(r.extraction)) if isinstance(r, Extracted)
            else _FailedAt(place[id(r.document)], r.error, r.message) for r in results]


def _restored(sent: list[_FactsAt | _FailedAt], chunk: list[Document]) -> list[Result]:
    """The inverse of :func:`_compacted` in the parent."""
    return [Facts(chunk[r.place], r.facts) if isinstance(r, _FactsAt) else Failed(chunk[r.place], r.error, r.message)
            for r in sent]


def _extraction(result: Extracted | Facts) -> Extraction:
    """The Extraction of an executor's result."""
    if isinstance(result, Extracted):
        return result.extraction
    from .facts import expand

    return expand(result.document, result.facts)


def _document_facts(result: Extracted | Facts) -> tuple[Document, tuple]:
    """The document and compact facts of an executor's result."""
    if isinstance(result, Facts):
        return result.document, result.facts
    from .facts import compact

    return result.extraction.document, compact(result.extraction)


class _Shared:
    """The chunks of one run shared between this process and a second one, and their results in order.

    The second process is handed chunks in order and answers in that order; this process keeps it
    :data:`AHEAD` chunks ahead and does the next chunk itself meanwhile. Once every chunk is handed out, this
    process takes back from the second one's queue those it has not begun (its answers to them are not needed).
    Should the second process end, this one does what it had not answered.
    """

    def __init__(self, model: str, batch_size: int) -> None:
        from collections import deque

        self.model, self.batch_size = model, batch_size
        try:
            self.worker: _SecondProcess | None = _SecondProcess(model, batch_size)
        except OSError:  # no second process to be had: every chunk is done here
            self.worker = None
        self.results: dict[int, list[Result] | None] = {}  # chunk number -> its results, None until done
        self.handed: dict[int, list[Document]] = {}  # chunk number -> chunk, handed over and not yet answered
        self.queue = deque()  # the numbers of the chunks handed over and not answered, in order
        self.made = self.done = 0  # chunks made, chunks whose results were yielded

    def add(self, chunk: list[Document]) -> None:
        """A new chunk: to the second process if it has fewer than AHEAD, else done here."""
        self.take(wait=False)
        k, self.made = self.made, self.made + 1
        self.results[k] = None
        if self.worker is not None and len(self.queue) < AHEAD:
            self.handed[k] = chunk
            self.queue.append(k)
            self.worker.send(chunk)
        else:
            self.here(k, chunk)

    def wants(self) -> bool:
        """Whether the second process has fewer chunks than :data:`AHEAD` to do."""
        self.take(wait=False)
        return self.worker is not None and len(self.queue) < AHEAD

    def here(self, k: int, chunk: list[Document]) -> None:
        self.results[k] = extract_chunk(chunk, self.model, self.batch_size)

    def take(self, wait: bool) -> None:
        """Collect the second process's answers that have come (with ``wait``, at least one)."""
        while self.worker is not None and self.queue:
            if not wait and self.worker.results.empty():
                return
            sent = self.worker.results.get()
            if sent is None:  # it has ended: what it had not answered is done here
                dead, self.worker = self.worker, None
                dead.close(kill=True)
                break
            k = self.queue.popleft()
            if k in self.handed:  # else this process did that chunk already
                self.results[k] = _restored(sent, self.handed.pop(k))
            wait = False
        if self.worker is None:
            for k in sorted(self.handed):
                self.here(k, self.handed.pop(k))
            self.queue.clear()

    def ready(self) -> Iterator[Result]:
        """The results of the chunks done, in order, up to the first not done."""
        while self.done < self.made and self.results[self.done] is not None:
            yield from self.results.pop(self.done)
            self.done += 1

    def finish(self) -> Iterator[Result]:
        """The rest, once every chunk is handed out: this process takes back the chunks the second one has not
        begun (the last first), and waits for the one it is on."""
        while self.done < self.made:
            self.take(wait=False)
            behind = [k for k in self.queue if k != self.queue[0] and k in self.handed]
            if behind:
                k = max(behind)
                self.here(k, self.handed.pop(k))
            elif self.handed:
                self.take(wait=True)
            yield from self.ready()

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close(kill=bool(self.queue))  # its answers to chunks taken back are not needed


def _run_shared(misses: list[Document], model: str, batch_size: int, consume: bool) -> Iterator[Result]:
    """Parse and extract in this process and in a second one, each taking chunks of ``batch_size`` documents,
    so that each of two cores does about half the work; results in document order. With ``consume`` the
    documents are removed from ``misses`` as they are taken."""
    source = misses if consume else list(misses)
    shared = _Shared(model, batch_size)
    try:
        while source:
            chunk = _next_chunk(source, batch_size)
            while shared.wants() and source:  # keep the other process busy before taking a chunk here
                shared.add(chunk)
                chunk = _next_chunk(source, batch_size)
            shared.add(chunk)
            yield from shared.ready()
        yield from shared.finish()
    finally:
        shared.close()


TAIL_CHUNKS = AHEAD + 2
"""Chunks of a full batch left from which a shared run hands out quarter chunks (:func:`_next_chunk`)."""


def _next_chunk(source: list[Document], batch_size: int) -> list[Document]:
    """The next chunk of a shared run, taken from ``source``: a batch, or a quarter of one among the last
    :data:`TAIL_CHUNKS` batches' documents. The two processes end their last chunks at different times, one
    waiting on the other for up to a chunk (16 generated documents: 0.4 s of CPU); quarter chunks at the end
    bound that wait to a quarter (the parse of a few documents fewer at a time costs less than that)."""
    size = batch_size if len(source) > TAIL_CHUNKS * batch_size else max(1, batch_size // 4)
    return next(_parts(source, size))


def _chunks(documents: list[Document], size: int) -> list[list[Document]]:
    return [documents[i:i + size] for i in range(0, len(documents), size)]


def _run_local(misses: list[Document], model: str, batch_size: int, workers: int) -> Iterator[Result]:
    if workers <= 1:  # one document at a time, so a long run of misses is never held all at once
        from .nlp.extract import extract_all

        failures: list[Result] = []
        for i, ex in enumerate(extract_all(_nlp(model), misses, batch_size=batch_size, on_error=lambda d, exc:
                                           failures.append(Failed(d, type(exc).__name__, str(exc))))):
            yield Extracted(ex)
            yield from failures
            failures.clear()
            if i % 512 == 511:
                _malloc_trim()
        yield from failures
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    ctx = multiprocessing.get_context("spawn")  # no fork of a process that holds a loaded pipeline and threads
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        size = max(1, min(64, -(-len(misses) // (workers * 4))))
        chunks = _chunks(misses, size)
        for result in pool.map(extract_chunk, chunks, [model] * len(chunks), [batch_size] * len(chunks)):
            yield from result


def _run_dask(misses: list[Document], model: str, batch_size: int, workers: int, scheduler: str | None) -> Iterator[Result]:
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as exc:  # an optional extra
        from .errors import InputError

        raise InputError("--executor dask needs the dask extra, not installed here: pip install 'mlkg[dask]'") from exc
    cluster = None
    if scheduler:
        try:
            client = Client(scheduler, timeout="20s")
        except (OSError, TimeoutError, ValueError) as exc:
            from .errors import MlkgError

            raise MlkgError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from exc
    else:
        cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    try:
        n = max(1, len(client.scheduler_info().get("workers", {})) or workers)
        size = max(1, min(64, -(-len(misses) // (n * 4))))
        futures = client.map(extract_chunk, _chunks(misses, size), model=model, batch_size=batch_size, pure=False)
        for future in futures:  # in submission order: the order of the documents
            yield from future.result()
            future.release()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def extract_documents(
    documents: Iterable[Document],
    model: str,
    *,
    batch_size: int = 16,
    executor: str = "local",
    workers: int = 1,
    scheduler: str | None = None,
    cache=None,
    on_error: Callable[[Document, Exception], None] | None = None,
    on_done: Callable[[str], None] | None = None,
    stats: ExtractStats | None = None,
    overlap: bool = True,
) -> list[Extraction]:
    """The Extractions of ``documents`` (in their order), from ``cache`` where it has them, else parsed.

    ``on_error(document, exc)`` is told of each document whose processing failed (it is left out);
    ``on_done(doc_id)`` of each document finished. Newly parsed Extractions are written to ``cache``.
    """
    stats = stats if stats is not None else ExtractStats()
    docs = list(documents)
    order = {d.id: i for i, d in enumerate(docs)}
    found: dict[str, Extraction] = {}
    misses: list[Document] = []
    for d in docs:
        ex = cache.get(d) if cache is not None else None
        if ex is None:
            misses.append(d)
        else:
            found[d.id] = ex
            stats.cached += 1
            if on_done:
                on_done(d.id)
    if misses:
        for r in _parse(misses, model, batch_size, executor, workers, scheduler, overlap=overlap):
            if isinstance(r, Failed):
                _failed(r, on_error)
                continue
            ex = _extraction(r)
            found[ex.document.id] = ex
            stats.parsed += 1
            if cache is not None:
                cache.put(ex)
            if on_done:
                on_done(ex.document.id)
    return sorted(found.values(), key=lambda ex: order[ex.document.id])


def _parse(misses: list[Document], model: str, batch_size: int, executor: str, workers: int, scheduler: str | None,
           chunked: bool = False, overlap: bool = True) -> Iterator[Result]:
    """The executor's results for ``misses``, one :data:`Result` per document.

    With ``chunked`` (in process, one worker) the misses are parsed 256 at a time and removed from the list as
    they go, so texts already parsed are not held to the end. With ``overlap``, one local worker and at least
    ``OVERLAP_MIN`` misses on a machine of two cores or more, a second process takes half the chunks.
    """
    if executor == "dask":
        return _run_dask(misses, model, batch_size, workers, scheduler)
    if executor == "local" and workers <= 1 and overlap and len(misses) >= OVERLAP_MIN and (os.cpu_count() or 1) >= 2:
        return _run_shared(misses, model, batch_size, consume=chunked)
    if executor == "local" and workers <= 1 and chunked:
        return (r for part in _parts(misses) for r in _run_local(part, model, batch_size, 1))
    if executor == "local":
        return _run_local(misses, model, batch_size, workers)
    from .errors import InputError

    raise InputError(f"unknown executor {executor!r}; use one of {', '.join(EXECUTORS)}")


def _parts(documents: list[Document], size: int = 256) -> Iterator[list[Document]]:
    """``documents`` ``size`` at a time, each part removed from the list as it is taken, so that the texts
    already handed on are not held to the end."""
    while documents:
        part = documents[:size]
        del documents[:size]
        yield part


def _failed(result: Failed, on_error: Callable[[Document, Exception], None] | None) -> None:
    """Tell ``on_error`` of a failed document, or raise when nobody listens."""
    if on_error is None:
        raise RuntimeError(f"{result.document.id}: {result.error}: {result.message}")
    on_error(result.document, type(result.error, (Exception,), {})(result.message))


@dataclass(frozen=True)
class DocumentFacts:
    """What :func:`iter_facts` gives of a document."""

    document: Document
    facts: tuple
    """Its compact facts (``facts.compact``)."""
    memo: tuple | None
    """What its cache entry holds beside them (``cache.Entry.memo``), or None."""
    parsed: bool
    """Parsed in this build, not read from the cache."""


def iter_facts(
    documents: list[Document],
    model: str,
    *,
    batch_size: int = 16,
    executor: str = "local",
    workers: int = 1,
    scheduler: str | None = None,
    cache=None,
    on_error: Callable[[Document, Exception], None] | None = None,
    on_done: Callable[[str], None] | None = None,
    stats: ExtractStats | None = None,
    put: bool = True,
    consume: bool = False,
    overlap: bool = True,
    early: EarlyParse | None = None,
) -> Iterator[DocumentFacts]:
    """The :class:`DocumentFacts` of each of ``documents``, cache hits first, then the parsed ones as they come: not in document
    order, and nothing kept (a streaming build's first pass).

    Arguments as for :func:`extract_documents`; spaCy is loaded only when some document misses the cache.
    With ``put=False`` the parsed documents are not written to the cache (the caller writes them). With
    ``consume=True`` the entries of the list ``documents`` are set to None as they are taken, and (in
    process) misses are parsed in chunks, so that texts already parsed are not held to the end. ``early``: an
    :class:`EarlyParse` under way, which parses the misses when they are fewer than :data:`OVERLAP_MIN` (else
    it is ended and they are parsed as without it).
    """
    import gc

    stats = stats if stats is not None else ExtractStats()
    misses: list[Document] = []
    collecting = gc.isenabled()
    gc.disable()  # reading the cache makes many small acyclic objects: the cycle collector would only walk them
    try:
        for i, d in enumerate(documents):
            if consume:
                documents[i] = None
            entry = cache.get_entry(d) if cache is not None else None
            if entry is None:
                misses.append(d)
                continue
            stats.cached += 1
            if on_done:
                on_done(d.id)
            yield DocumentFacts(d, entry.facts, entry.memo, False)
    finally:
        if collecting:
            gc.enable()
    if not misses:
        return
    done = early.results(misses) if early is not None and early.takes(misses) else None
    if early is not None:
        early.close()
    for r in done if done is not None else _parse(misses, model, batch_size, executor, workers, scheduler,
                                                    chunked=consume, overlap=overlap):
        if isinstance(r, Failed):
            _failed(r, on_error)
            continue
        document, facts = _document_facts(r)
        stats.parsed += 1
        if cache is not None and put:
            cache.put_facts(document, facts)
        if on_done:
            on_done(document.id)
        yield DocumentFacts(document, facts, None, True)


if __name__ == "__main__":  # the second process of a shared run (_SecondProcess)
    # served by the imported module, not this __main__ copy: its results are pickled as pipeline.executor's
    # classes, which the parent can load (as __main__._FactsAt they failed there and the work was redone)
    from pipeline.executor import serve

    serve(sys.argv[1], int(sys.argv[2]))
