"""The Oxigraph server children of ``mlkg serve``: started, watched, killed at a query's deadline, restarted.

Oxigraph cannot cancel a running query (neither a closed connection nor ``--timeout-s`` stops a cartesian
product), so the only thing that really stops its CPU use is ending the process. ``Backend`` therefore keeps a
small pool of children (``Child``), each an ``oxigraph serve-read-only`` on its own private loopback port over
one shared store (read-only processes may share it). A request goes to a child with no request running long
and the fewest in flight, so a runaway query soon has its child to itself: ``restart`` (called by the deadline
watch) kills that one child with SIGKILL and starts it again with a new *generation*, and the other children
keep answering. A read caught in the restart knows it by the generation and is sent again elsewhere. With
updates allowed the store is writable, which only one process may hold: the pool is then one child.

The child dies with its parent: on Linux it is started with ``prctl(PR_SET_PDEATHSIG, SIGKILL)``. That
signal follows the *thread* that started the child, so every start happens on one supervisor thread that
lives as long as the endpoint. Each store folder holds ``owner.pid``; ``clean_stale_stores`` deletes the
folders whose owner is gone (a ``kill -9`` of an earlier ``mlkg serve``).
"""

from __future__ import annotations

import ctypes
import http.client
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from .errors import MlkgError

__all__ = ["Backend", "BackendConn", "clean_stale_stores", "free_port", "oxigraph_binary"]

HOST = "127.0.0.1"
STORE_PREFIX = "mlkg-serve-"
_PR_SET_PDEATHSIG = 1
LONG_RUNNING = 0.5   # s after which a request marks its child as one to avoid: it may be a runaway


def oxigraph_binary() -> str:
    """The ``oxigraph`` server binary: beside this Python (a virtualenv's ``bin``), else on PATH."""
    beside = Path(sys.executable).parent / "oxigraph"
    if beside.is_file():
        return str(beside)
    found = shutil.which("oxigraph")
    if not found:
        raise MlkgError("the oxigraph server is not installed; `pip install oxigraph` (it is a dependency of mlkg)")
    return found


def free_port() -> int:
    """A TCP port on the loopback interface that is free now."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _load_prctl():
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None  # not Linux: the stale-store cleanup at the next start is the fallback
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    return prctl


_PRCTL = _load_prctl()  # looked up here, not in the forked child, where loading a library could deadlock


def _die_with_parent(parent: int):
    """A ``preexec_fn``: the child gets SIGKILL when the thread that started it ends (or its process)."""
    def run() -> None:
        if _PRCTL is not None:
            _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if os.getppid() != parent:  # the parent died before the line above: nobody would signal us
                os._exit(1)
    return run


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie (dead, not yet reaped) counts as gone
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def clean_stale_stores(root: Path) -> list[Path]:
    """Delete the ``mlkg-serve-*`` folders under ``root`` that are ours and whose owner process is gone."""
    removed = []
    for folder in root.glob(STORE_PREFIX + "*"):
        try:
            if folder.stat().st_uid != os.getuid() or not folder.is_dir():
                continue
            owner = int((folder / "owner.pid").read_text().strip())
        except (OSError, ValueError):
            continue  # being created right now, or not one of ours
        if not _alive(owner):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


@dataclass(frozen=True)
class BackendConn:
    """A connection to one generation of one Oxigraph child, handed out at ``since`` (time.monotonic())."""

    conn: http.client.HTTPConnection
    child: "Child"
    generation: int
    since: float


class Child:
    """One Oxigraph server process of the pool; ``generation`` counts its starts, ``busy`` its requests."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.port = 0
        self.generation = 0
        self.proc: subprocess.Popen | None = None
        self.ready = threading.Event()
        self.idle: list[http.client.HTTPConnection] = []
        self.busy: dict[int, float] = {}    # id(BackendConn) -> since

    def rank(self, now: float) -> tuple[bool, int, int]:
        """Children are given a request in this order: none running long first, then the least busy."""
        return any(now - t > LONG_RUNNING for t in self.busy.values()), len(self.busy), self.index

    def current(self, bc: BackendConn) -> bool:
        """Whether ``bc`` is a connection to this child's running process."""
        return bc.child is self and bc.generation == self.generation


class Backend:
    """A pool of ``processes`` Oxigraph children over a store loaded from ``graph`` into a private temporary
    folder (one child when ``writable``)."""

    def __init__(self, graph: Path, writable: bool, startup_timeout: float = 60.0,
                 workdir: Path | None = None, processes: int = 2) -> None:
        self.graph = graph
        self.writable = writable
        self.startup_timeout = startup_timeout
        self.root = Path(workdir or tempfile.gettempdir())
        self.children = [Child(i) for i in range(1 if writable else max(1, processes))]
        self.restarts = 0
        self._store: Path | None = None
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)   # a child became ready
        self._jobs: queue.Queue = queue.Queue()
        self._thread: threading.Thread | None = None
        self._failure: BaseException | None = None

    @property
    def pids(self) -> list[int]:
        """The process ids of the running children."""
        return [c.proc.pid for c in self.children if c.proc is not None]

    def start(self) -> None:
        """Load the store and start the children (on the supervisor thread); ``MlkgError`` on failure."""
        clean_stale_stores(self.root)
        self._thread = threading.Thread(target=self._supervise, name="mlkg-serve-oxigraph", daemon=True)
        self._thread.start()
        done = self._call(self._first_start)
        if isinstance(done, BaseException):
            raise done

    def _call(self, job):
        answer: queue.Queue = queue.Queue()
        self._jobs.put((job, answer))
        return answer.get()

    def _supervise(self) -> None:
        while True:
            job, answer = self._jobs.get()
            if job is None:
                answer.put(None)
                return
            try:
                answer.put(job())
            except BaseException as exc:  # handed to the caller
                answer.put(exc)

    def _first_start(self) -> None:
        binary = oxigraph_binary()
        self._store = Path(tempfile.mkdtemp(prefix=STORE_PREFIX, dir=self.root))
        (self._store / "owner.pid").write_text(f"{os.getpid()}\n")
        load = subprocess.run([binary, "load", "--location", str(self._store / "db"), "--file", str(self.graph)],
                              capture_output=True, text=True, preexec_fn=_die_with_parent(os.getpid()))
        if load.returncode != 0:
            raise MlkgError(f"{self.graph}: oxigraph cannot load it: {load.stderr.strip()[-500:]}")
        procs = [self._launch(c) for c in self.children]   # all start at once, then each is awaited
        for child, (proc, port) in zip(self.children, procs):
            self._await(child, proc, port)

    def _launch(self, child: Child) -> tuple[subprocess.Popen, int]:
        port = free_port()
        mode = "serve" if self.writable else "serve-read-only"
        with (self._store / f"oxigraph-{child.index}.log").open("ab") as err:
            proc = subprocess.Popen([oxigraph_binary(), mode, "--location", str(self._store / "db"),
                                     "--bind", f"{HOST}:{port}"], stdout=subprocess.DEVNULL, stderr=err,
                                    stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent(os.getpid()))
        return proc, port

    def _await(self, child: Child, proc: subprocess.Popen, port: int) -> None:
        """Wait until ``proc`` accepts connections, then make it ``child``'s running process."""
        deadline = time.monotonic() + self.startup_timeout
        while True:
            if proc.poll() is not None:
                log = self._store / f"oxigraph-{child.index}.log"
                tail = log.read_bytes()[-500:].decode("utf-8", "replace").strip()
                raise MlkgError(f"the oxigraph server stopped: {tail}")
            try:
                with socket.create_connection((HOST, port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    proc.kill()
                    proc.wait()
                    raise MlkgError(f"the oxigraph server did not answer within {self.startup_timeout:.0f}s")
                time.sleep(0.02)
        with self._lock:
            child.proc, child.port = proc, port
            child.generation += 1
            child.ready.set()
            self._changed.notify_all()

    def _kill(self, child: Child) -> None:
        with self._lock:
            child.ready.clear()
            proc, child.proc = child.proc, None
            idle, child.idle = child.idle, []
            child.busy.clear()   # their connections die with the process; release() of a stale one is a no-op
        for conn in idle:
            conn.close()
        if proc is not None and proc.poll() is None:
            proc.kill()
        if proc is not None:
            proc.wait()

    def restart(self, child: Child) -> None:
        """Kill one child (every query in it stops now) and start it again on the same store."""
        self.restarts += 1
        done = self._call(lambda: (self._kill(child), self._await(child, *self._launch(child))))
        if isinstance(done, BaseException):
            self._failure = done

    def dead(self) -> list[Child]:
        """The children whose process ended on its own."""
        return [c for c in self.children if c.ready.is_set() and c.proc is not None and c.proc.poll() is not None]

    def acquire(self, wait: float, fresh: bool = False) -> BackendConn:
        """A connection to a running child, reused when one is idle unless ``fresh``; waits up to ``wait`` s
        while every child restarts. A write takes a fresh one: it is never sent twice, so it must not meet a
        stale socket."""
        with self._lock:
            ready = self._changed.wait_for(lambda: any(c.ready.is_set() for c in self.children), wait)
            if not ready:
                raise MlkgError(self._failure and f"the oxigraph server cannot be restarted: {self._failure}"
                                or "the oxigraph server is restarting")
            now = time.monotonic()
            child = min((c for c in self.children if c.ready.is_set()), key=lambda c: c.rank(now))
            conn = child.idle.pop() if child.idle and not fresh else http.client.HTTPConnection(HOST, child.port)
            bc = BackendConn(conn, child, child.generation, now)
            child.busy[id(bc)] = now
        return bc

    def release(self, bc: BackendConn, reusable: bool) -> None:
        with self._lock:
            child = bc.child
            if child.current(bc):
                child.busy.pop(id(bc), None)
                if reusable and len(child.idle) < 64:
                    child.idle.append(bc.conn)
                    return
        bc.conn.close()

    def stop(self) -> None:
        """Stop the children and delete the store; safe to call more than once."""
        if self._thread is not None:
            for child in self.children:
                self._call(lambda c=child: self._kill(c))
            self._call(None)
            self._thread = None
        if self._store is not None:
            shutil.rmtree(self._store, ignore_errors=True)
            self._store = None
