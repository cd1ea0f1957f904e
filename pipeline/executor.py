"""Run the per-document stages (parse, rules, extract) on documents: in this process, in worker processes, or on Dask.

Documents in, Extractions out, in document order. The incremental cache is consulted first; only the
documents it misses are parsed, by one of three executors that run the same function on chunks of documents:

- ``local`` with one worker: ``nlp.pipe`` in batches in this process, keeping each Extraction and dropping the
  spaCy Doc at once (memory holds the Extractions, never the Docs); from ``OVERLAP_MIN`` documents on a machine
  of two cores or more, the rule components run in a second process while this one parses the next batch
  (``_run_overlapped``; on Linux that process is this one forked once the pipeline is loaded);
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

__all__ = ["ExtractStats", "extract_documents", "iter_facts", "extract_chunk", "release_pipelines", "EXECUTORS"]

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
        from .nlp import load_nlp

        cache[model] = load_nlp(model)
    return cache[model]


# the extraction's caches keyed by names (compiled per-name patterns, normalised names) fill with every new
# name of a long run: cleared when over these sizes, they refill with the names that recur (a few hundred)
def release_pipelines() -> None:
    """Drop the pipelines this thread loaded, and hand the freed memory back to the system where glibc allows.

    A streaming build calls this once every document is parsed, so that resolving and writing a large graph
    do not add to the memory spaCy held.
    """
    import gc

    _local.nlp = {}
    gc.collect()
    _malloc_trim()


def _malloc_trim() -> None:
    """Hand the C heap's free pages back to the system (glibc only; elsewhere nothing)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


def extract_chunk(documents: list[Document], model: str, batch_size: int = 16) -> list[tuple]:
    """Parse ``documents`` with pipeline ``model`` (loaded once per worker thread).

    Returns one ``("ok", extraction)`` or ``("error", document, exception type name, message)`` per document.
    """
    from .nlp.extract import extract_all

    failures: list[tuple] = []
    out: list[tuple] = [("ok", ex) for ex in extract_all(
        _nlp(model), documents, batch_size=batch_size,
        on_error=lambda d, exc: failures.append(("error", d, type(exc).__name__, str(exc))))]
    return out + failures


def extract_parsed_chunk(items: list[tuple[Document, object]], model: str) -> list[tuple]:
    """Run the rule components on parsed documents (``parse_all``'s pairs) with pipeline ``model``, loaded once
    per worker process; results as :func:`extract_chunk` gives them."""
    from .nlp.extract import extract_parsed

    nlp = _nlp(model)
    out: list[tuple] = []
    for document, parse in items:
        try:
            out.append(("ok", extract_parsed(nlp, document, parse)))
        except Exception as exc:  # noqa: BLE001  (one bad document must not stop the others)
            out.append(("error", document, type(exc).__name__, str(exc)))
    return out


OVERLAP_MIN = 200
"""Documents to parse from which one local worker runs the rules in a second process, beside the parse (below
it, starting that process, about a second, costs more than it saves: on 2 cores, 100 generated documents took
2.55 s with it and 2.38 s without, 300 took 4.5 s and 5.05 s)."""


def _send(stream, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(len(data).to_bytes(8, "little") + data)
    stream.flush()


def _receive(stream):
    """The next object :func:`_send` wrote to ``stream``, or None at its end."""
    head = stream.read(8)
    if len(head) < 8:
        return None
    return pickle.loads(stream.read(int.from_bytes(head, "little")))


FORK = sys.platform == "linux"
"""Start the rules' process by forking this one once its pipeline is loaded (Linux), rather than as a new
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


class _RulesProcess:
    """A second process running the rule components on parsed documents, speaking pickles over two pipes.

    On Linux it is this process forked once the pipeline is loaded (:data:`FORK`), so nothing is imported or
    loaded twice; elsewhere a plain subprocess (``python -m pipeline.executor``), not ``multiprocessing``: a
    spawned ``multiprocessing`` child imports the caller's main module again, which a script or notebook
    calling :func:`pipeline.build.run_build` without an ``if __name__ == "__main__"`` guard would run twice.
    A thread reads the results as they come, so neither side waits on the other's full pipe.
    """

    def __init__(self, model: str) -> None:
        import queue

        self.results: queue.Queue = queue.Queue()
        if FORK:
            self._fork(model)
        else:
            self._spawn(model)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _spawn(self, model: str) -> None:
        import subprocess

        package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # importable as here
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
        self.proc = subprocess.Popen([sys.executable, "-m", "pipeline.executor", model],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout

    def _fork(self, model: str) -> None:
        _nlp(model)  # loaded before the fork: the child has it as this process does
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
                    _serve_rules(model, stdin, stdout)
                code = 0
            except BaseException:  # noqa: BLE001  (the parent does what this child did not answer)
                pass
            finally:
                os._exit(code)
        os.close(down[0])
        os.close(up[1])
        self.proc = _Forked(pid)
        self.stdin, self.stdout = open(down[1], "wb"), open(up[0], "rb")

    def _read(self) -> None:
        try:
            while (result := _receive(self.stdout)) is not None:
                self.results.put(result)
        except (OSError, EOFError, pickle.UnpicklingError):
            pass
        finally:
            self.results.put(None)  # the process has ended (or its output broke): nothing more comes

    def send(self, chunk: list) -> bool:
        """Hand ``chunk`` to the process; False when it is gone."""
        try:
            _send(self.stdin, chunk)
            return True
        except (OSError, ValueError):
            return False

    def close(self, kill: bool = False) -> None:
        """End the process: once it has answered what it was handed, or at once with ``kill``."""
        if kill:
            self.proc.kill()
        try:
            self.stdin.close()
        except OSError:
            pass
        self.proc.wait()
        self.reader.join()
        self.stdout.close()


def _serve_rules(model: str, stdin=None, stdout=None) -> None:
    """The rules' process: parsed chunks in on ``stdin``, ``extract_parsed_chunk`` results out on ``stdout``
    (by default this process's standard input and output)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group: the build ends this one
    stdin, stdout = stdin or sys.stdin.buffer, stdout or sys.stdout.buffer
    sys.stdout = sys.stderr  # whatever a library prints must not corrupt the results
    _nlp(model)
    while (chunk := _receive(stdin)) is not None:
        _send(stdout, _compacted(extract_parsed_chunk(chunk, model), chunk))


def _compacted(results: list[tuple], chunk: list[tuple]) -> list[tuple]:
    """``results`` as the rules' process sends them back: each Extraction as ``("facts", its place in
    ``chunk``, compact facts)`` (plain tuples, quick to pickle; the parent has the document and its text)."""
    from .facts import compact

    place = {id(document): i for i, (document, _) in enumerate(chunk)}
    return [("facts", place[id(r[1].document)], compact(r[1])) if r[0] == "ok" else r for r in results]


def _restored(results: list[tuple], chunk: list[tuple]) -> list[tuple]:
    """The inverse of :func:`_compacted` in the parent: ``("facts", document, facts)``."""
    return [("facts", chunk[r[1]][0], r[2]) if r[0] == "facts" else r for r in results]


def _extraction(result: tuple) -> Extraction:
    """The Extraction of an executor's ``("ok", extraction)`` or ``("facts", document, facts)``."""
    if result[0] == "ok":
        return result[1]
    from .facts import expand

    return expand(result[1], result[2])


def _document_facts(result: tuple) -> tuple[Document, tuple]:
    """The document and compact facts of an executor's ``("ok", extraction)`` or ``("facts", document, facts)``."""
    if result[0] == "facts":
        return result[1], result[2]
    from .facts import compact

    return result[1].document, compact(result[1])


def _run_overlapped(misses: list[Document], model: str, batch_size: int, consume: bool) -> Iterator[tuple]:
    """Parse in this process and run the rule components in a second one, at the same time.

    The parse (tok2vec and parser) and the rules are the two halves of the work, and Python threads cannot run
    them side by side (thinc keeps the GIL), so a second process takes the rules: each batch's parses go to it
    as arrays (``parse_all``) while this process parses the next batch. Results come back in document order.
    Should that process fail, the rules of the batches it had not answered run here. With ``consume`` the
    documents are removed from ``misses`` as they are parsed.
    """
    from .nlp.extract import parse_all

    failures: list[tuple] = []

    def parsed() -> Iterator[tuple]:
        nlp = _nlp(model)
        for part in _parts(misses if consume else list(misses)):
            yield from parse_all(nlp, part, batch_size=batch_size, on_error=lambda d, exc:
                                 failures.append(("error", d, type(exc).__name__, str(exc))))

    try:
        worker: _RulesProcess | None = _RulesProcess(model)  # it loads the pipeline while this process does
    except OSError:  # no second process to be had: the rules run here, batch by batch
        worker = None
    results: dict[int, list | None] = {}  # chunk number -> its results, None until answered (there or here)
    chunks: dict[int, list] = {}  # the chunks not yet answered
    done = handed = answered = 0  # chunks yielded, handed over, answered by the worker (it answers in order)

    def take(wait: bool) -> None:
        """Collect the worker's answers that have come (with ``wait``, at least one)."""
        nonlocal worker, answered
        while worker is not None and answered < handed:
            if not wait and worker.results.empty():
                return
            result = worker.results.get()
            if result is None:  # it has ended: what it had not answered is done here
                worker = None
                return
            if answered in chunks:  # else this process did that chunk already
                results[answered] = _restored(result, chunks[answered])
                del chunks[answered]
            answered += 1
            wait = False

    def here(k: int) -> None:
        results[k] = extract_parsed_chunk(chunks.pop(k), model)

    def ready() -> Iterator[tuple]:
        nonlocal done
        while done < handed and results[done] is not None:
            yield from results.pop(done)
            done += 1

    def hand(chunk: list) -> Iterator[tuple]:
        nonlocal handed
        results[handed], chunks[handed] = None, chunk
        handed += 1
        if worker is not None:
            worker.send(chunk)  # should it fail, the worker has ended, and take() will say so
        take(wait=handed - done > 8)  # a few batches ahead, not the corpus
        if worker is None and chunks:
            here(min(chunks))
        yield from ready()

    try:
        chunk: list = []
        for pair in parsed():
            chunk.append(pair)
            if len(chunk) == batch_size:
                yield from hand(chunk)
                chunk = []
            yield from failures
            failures.clear()
        if chunk:
            yield from hand(chunk)
        # the parse is over: this process takes chunks from the back while the worker goes on from the front
        while done < handed:
            take(wait=False)
            behind = [k for k in chunks if worker is None or k > answered]  # not the one the worker is on
            if behind:
                here(max(behind) if worker is not None else min(behind))
            elif chunks:
                take(wait=True)
            yield from ready()
        yield from failures
    finally:
        if worker is not None:
            worker.close(kill=answered < handed)  # its answers to chunks done here are not needed


def _chunks(documents: list[Document], size: int) -> list[list[Document]]:
    return [documents[i:i + size] for i in range(0, len(documents), size)]


def _run_local(misses: list[Document], model: str, batch_size: int, workers: int) -> Iterator[tuple]:
    if workers <= 1:  # one document at a time, so a long run of misses is never held all at once
        from .nlp.extract import extract_all

        failures: list[tuple] = []
        for i, ex in enumerate(extract_all(_nlp(model), misses, batch_size=batch_size, on_error=lambda d, exc:
                                           failures.append(("error", d, type(exc).__name__, str(exc))))):
            yield ("ok", ex)
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


def _run_dask(misses: list[Document], model: str, batch_size: int, workers: int, scheduler: str | None) -> Iterator[tuple]:
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
            if r[0] == "error":
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
           chunked: bool = False, overlap: bool = True) -> Iterator[tuple]:
    """The executor's results for ``misses``: ``("ok", extraction)`` or ``("error", document, type name, message)``.

    With ``chunked`` (in process, one worker) the misses are parsed 256 at a time and removed from the list as
    they go, so texts already parsed are not held to the end. With ``overlap``, one local worker and at least
    ``OVERLAP_MIN`` misses on a machine of two cores or more, the rules run in a second process beside the parse.
    """
    if executor == "dask":
        return _run_dask(misses, model, batch_size, workers, scheduler)
    if executor == "local" and workers <= 1 and overlap and len(misses) >= OVERLAP_MIN and (os.cpu_count() or 1) >= 2:
        return _run_overlapped(misses, model, batch_size, consume=chunked)
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


def _failed(result: tuple, on_error: Callable[[Document, Exception], None] | None) -> None:
    """Tell ``on_error`` of a failed document, or raise when nobody listens."""
    _, d, name, msg = result
    if on_error is None:
        raise RuntimeError(f"{d.id}: {name}: {msg}")
    on_error(d, type(name, (Exception,), {})(msg))


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
) -> Iterator[tuple[Document, tuple, tuple | None, bool]]:
    """``(document, compact facts, memo, parsed)`` (``facts.compact``; the memo the cache entry holds, or
    None) for each of ``documents``, cache hits first, then the parsed ones as they come: not in document
    order, and nothing kept (a streaming build's first pass).

    Arguments as for :func:`extract_documents`; spaCy is loaded only when some document misses the cache.
    With ``put=False`` the parsed documents are not written to the cache (the caller writes them). With
    ``consume=True`` the entries of the list ``documents`` are set to None as they are taken, and (in
    process) misses are parsed in chunks, so that texts already parsed are not held to the end.
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
            yield d, entry.facts, entry.memo, False
    finally:
        if collecting:
            gc.enable()
    if not misses:
        return
    for r in _parse(misses, model, batch_size, executor, workers, scheduler, chunked=consume, overlap=overlap):
        if r[0] == "error":
            _failed(r, on_error)
            continue
        document, facts = _document_facts(r)
        stats.parsed += 1
        if cache is not None and put:
            cache.put_facts(document, facts)
        if on_done:
            on_done(document.id)
        yield document, facts, None, True


if __name__ == "__main__":  # the rules' process of an overlapped run (_RulesProcess)
    _serve_rules(sys.argv[1])
