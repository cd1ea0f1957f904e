"""``mlkg serve``: a SPARQL 1.1 Protocol endpoint on localhost over a built graph, safe to leave open in a browser.

The SPARQL server is the real Oxigraph server (the ``oxigraph`` package from PyPI, a Rust binary), run by
``serve_backend.Backend`` on a private loopback port over a temporary copy of the graph; ``oxigraph
serve-read-only`` unless updates are allowed. A front on the public port (this module) serves Oxigraph's own
query page at ``/``, ``graph.html`` at ``/graph``, and forwards the SPARQL paths after the checks of
``serve_guard`` (``Host``, ``SERVICE``/``LOAD``, origins and forms with updates on, ``Content-Length``).

Limits (``Limits``): a deadline per request that stops the query (its Oxigraph child is killed and restarted,
the only way to stop its CPU use, while the pool's other children keep answering); a cap on requests in flight
(503 with ``Retry-After`` beyond it, after a short wait); a cap on open connections; an idle timeout per
connection; a cap on request bodies. Answers are streamed, never held (small ones are sent whole, in one write).

Of the requests in flight only ``parallel`` (four per CPU) run at once in Oxigraph while they are young; one
running longer than ``LONG_RUNNING`` gives its place to the next. Quick queries then share the CPUs a few at a
time rather than all together, which keeps the slowest of them fast under load (20 clients, 2 CPUs: fewer
places left the CPUs idle while the scheduler ran other work, more stretched every query), and a slow query
never holds up the quick ones.
"""

from __future__ import annotations

import http.client
import os
import shutil
import socket
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from .errors import MlkgError
from .serve_backend import HOST, LONG_RUNNING, Backend, BackendConn, free_port, oxigraph_binary
from .serve_guard import (SPARQL_BODY_TYPES, HTTPRefusal, body_length, host_allowed, own_origins,
                          remote_keywords, sparql_texts, write_refusal)

__all__ = ["Endpoint", "Limits", "oxigraph_binary", "free_port"]

_HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade",
               "host", "content-length", "expect"}
QUERY_PATHS = ("/query", "/sparql")
FORWARDED = QUERY_PATHS + ("/update", "/store", "/", "/yasgui.min.js", "/yasgui.min.css", "/logo.svg")
PAGE_PATHS = ("/graph", "/graph.html")
_QUIET = (ConnectionError, TimeoutError, socket.timeout)
PREFIX = 65536    # bytes of an answer read before the front answers: smaller answers are sent whole, in one write
RETRY_AFTER = 1   # s, sent with a 503 that is about load (the caps, a restart), not about the request itself


@dataclass(frozen=True)
class Limits:
    """What one client may take from the endpoint; every field is a ``mlkg serve`` option."""

    timeout: float = 30.0          # s a request may run before its query is stopped (--timeout)
    max_queries: int = 16          # requests forwarded to Oxigraph at once (--max-queries)
    queue_wait: float = 1.0        # s a request waits for a free slot before 503
    max_connections: int = 256     # open client connections (--max-connections)
    idle_timeout: float = 30.0     # s a connection may stay silent (--idle-timeout)
    max_body: int = 16 * 2**20     # bytes of a request body (--max-body)
    processes: int = 3             # Oxigraph processes over the store, one with updates on (--processes)
    parallel: int = 0              # requests run at once until they pass LONG_RUNNING; 0: four per CPU


class _InFlight:
    """One forwarded request, watched for its deadline; ``lane`` while it holds a place among the quick ones."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.expired = False
        self.bc: BackendConn | None = None
        self.lane = False
        self.since = 0.0


class Endpoint:
    """A running endpoint; use as a context manager, or ``start()`` and ``stop()``.

    ``port`` 0 picks a free port. ``url`` is the base address: Oxigraph's query page at ``url + "/"``, the
    SPARQL endpoint at ``url + "/query"``, updates at ``url + "/update"``, the Graph Store Protocol at
    ``url + "/store"``, the graph page at ``url + "/graph"``. ``allow_service`` lets queries use
    ``SERVICE`` and updates ``LOAD``; ``allowed_hosts`` adds ``Host`` values (``name:port``) besides the
    loopback names.
    """

    def __init__(self, graph: Path, port: int = 7878, allow_updates: bool = False, html: Path | None = None,
                 startup_timeout: float = 60.0, allow_service: bool = False, limits: Limits = Limits(),
                 allowed_hosts: tuple[str, ...] = (), workdir: Path | None = None) -> None:
        self.graph = Path(graph)
        self.port = port
        self.allow_updates = allow_updates
        self.allow_service = allow_service
        self.limits = limits
        self.allowed_hosts = tuple(allowed_hosts)
        self.html = Path(html) if html is not None else self.graph.with_name("graph.html")
        self.backend = Backend(self.graph, allow_updates, startup_timeout, workdir, limits.processes)
        self.origins: set[str] = set()
        self._front: _FrontServer | None = None
        self._threads: list[threading.Thread] = []
        self._stopping = threading.Event()
        self._slots = threading.BoundedSemaphore(limits.max_queries)
        self._lanes = threading.Semaphore(limits.parallel or 4 * (os.cpu_count() or 1))
        self._inflight: set[_InFlight] = set()
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def __enter__(self) -> "Endpoint":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        """Load the graph, start Oxigraph and the front; raises ``MlkgError`` with the reason on failure."""
        if not self.graph.is_file():
            raise MlkgError(f"{self.graph}: no graph there; run `mlkg build` first or pass --graph")
        oxigraph_binary()
        try:
            self._front = _FrontServer((HOST, self.port), _front_handler(self), self.limits.max_connections)
        except OSError as exc:
            raise MlkgError(f"cannot listen on {HOST}:{self.port}: {exc}") from exc
        self.port = self._front.server_address[1]
        self.origins = own_origins(self.port, self.allowed_hosts)
        try:
            self.backend.start()
            for target, name in ((self._front.serve_forever, "front"), (self._watch, "deadline")):
                self._threads.append(threading.Thread(target=target, name=f"mlkg-serve-{name}", daemon=True))
                self._threads[-1].start()
        except BaseException:
            self.stop()
            raise

    def _watch(self) -> None:
        """Every 50 ms: stop the requests past their deadline (by restarting the Oxigraph child that runs each),
        restart a child that died."""
        while not self._stopping.wait(0.05):
            now = time.monotonic()
            with self._lock:
                late = [f for f in self._inflight if not f.expired and now > f.deadline]
                for f in late:
                    f.expired = True
                for f in self._inflight:
                    if f.lane and now - f.since > LONG_RUNNING:
                        self._leave_lane(f)
            running = {f.bc.child for f in late if f.bc is not None and f.bc.child.current(f.bc)}
            for child in sorted(running | set(self.backend.dead()), key=lambda c: c.index):
                self.backend.restart(child)
            for f in late:
                _shut(f.bc)

    def stop(self) -> None:
        """Stop the front and the server and delete the temporary store; safe to call more than once."""
        self._stopping.set()
        if self._front is not None:
            if self._threads:
                self._front.shutdown()
            self._front.server_close()
            self._front = None
        for t in self._threads:
            t.join(timeout=5)
        self._threads = []
        self.backend.stop()

    def track(self) -> _InFlight:
        """A slot for one forwarded request (``HTTPRefusal`` 503 when none frees up in time), with its deadline,
        once it has a place to run (:data:`LONG_RUNNING`)."""
        if not self._slots.acquire(timeout=self.limits.queue_wait):
            raise HTTPRefusal(503, f"busy: {self.limits.max_queries} requests are running (--max-queries); "
                                   f"try again in {RETRY_AFTER} s", RETRY_AFTER)
        f = _InFlight(time.monotonic() + self.limits.timeout)
        with self._lock:
            self._inflight.add(f)
        got = self._lanes.acquire(timeout=self.limits.timeout)
        with self._lock:
            f.lane, f.since = got, time.monotonic()
        if not got or f.expired:
            self.untrack(f)
            raise _late(self)
        return f

    def untrack(self, f: _InFlight) -> None:
        with self._lock:
            self._inflight.discard(f)
            self._leave_lane(f)
        self._slots.release()

    def _leave_lane(self, f: _InFlight) -> None:
        """(Under ``_lock``.) Let the next request run in ``f``'s place."""
        if f.lane:
            f.lane = False
            self._lanes.release()


def _shut(bc: BackendConn | None) -> None:
    sock = bc.conn.sock if bc is not None else None
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class _FrontServer(ThreadingHTTPServer):
    """A threading server with a normal listen backlog, a cap on connections and no tracebacks on disconnects."""

    request_queue_size = 128
    daemon_threads = True
    block_on_close = False

    def __init__(self, address, handler, max_connections: int) -> None:
        self._connections = threading.BoundedSemaphore(max_connections)
        super().__init__(address, handler)

    def process_request(self, request, client_address) -> None:
        if not self._connections.acquire(blocking=False):
            try:
                request.sendall(b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: %d\r\nContent-Length: 0\r\n"
                                b"Connection: close\r\n\r\n" % RETRY_AFTER)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._connections.release()

    def handle_error(self, request, client_address) -> None:
        exc = sys.exc_info()[1]
        if not isinstance(exc, _QUIET):
            print(f"mlkg serve: {type(exc).__name__}: {exc}", file=sys.stderr)


def _front_handler(endpoint: Endpoint):
    class Front(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "mlkg-serve"
        timeout = endpoint.limits.idle_timeout
        disable_nagle_algorithm = True  # else a small answer waits 40 ms for the client's delayed ACK
        wbufsize = 65536  # headers and answer leave in one write (flushed after each request), not one per line

        def log_message(self, fmt, *args) -> None:  # quiet; the CLI prints the addresses once
            pass

        def _plain(self, status: int, text: str, extra: dict | None = None) -> None:
            body = (text.rstrip("\n") + "\n").encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            for k, v in (extra or {}).items():
                self.send_header(k, v)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _page(self) -> None:
            if not endpoint.html.is_file():
                self._plain(404, f"no graph.html beside the graph ({endpoint.html}); run `mlkg view`")
                return
            with endpoint.html.open("rb") as f:
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(endpoint.html.stat().st_size))
                self.end_headers()
                if self.command != "HEAD":
                    shutil.copyfileobj(f, self.wfile)

        def _handle(self) -> None:
            try:
                self._route()
            except HTTPRefusal as r:
                self.close_connection = self.close_connection or r.status in (400, 411, 413, 501)
                self._plain(r.status, r.message,
                            {"Retry-After": str(r.retry_after)} if r.retry_after is not None else None)
            except _QUIET:
                self.close_connection = True

        def _route(self) -> None:
            path, _, query_string = self.path.partition("?")
            if not host_allowed(self.headers.get("Host"), endpoint.port, endpoint.allowed_hosts):
                raise HTTPRefusal(421, f"this endpoint answers only to its own address ({endpoint.url}), "
                                       f"not to Host {self.headers.get('Host')!r}")
            if path in PAGE_PATHS and self.command in ("GET", "HEAD"):
                return self._page()
            if path not in FORWARDED:
                raise HTTPRefusal(404, f"nothing at {path}; the SPARQL endpoint is {endpoint.url}/query")
            body = self._body()
            if endpoint.allow_updates:
                refusal = write_refusal(self.command, path, self.headers, body, endpoint.origins)
                if refusal is not None:
                    raise refusal
            mime = self.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
            if body is not None and path in QUERY_PATHS + ("/update",) and mime not in SPARQL_BODY_TYPES:
                raise HTTPRefusal(415, f"a SPARQL request body must be one of {', '.join(SPARQL_BODY_TYPES)}")
            if not endpoint.allow_service:
                for text in sparql_texts(query_string, mime, body):
                    found = remote_keywords(text)
                    if found:
                        raise HTTPRefusal(403, f"{' and '.join(sorted(found))} refused: it would make this server "
                                               "send requests to other servers (`mlkg serve --allow-service` allows it)")
            self._forward(path, body)

        def _body(self) -> bytes | None:
            if "Transfer-Encoding" in self.headers:
                raise HTTPRefusal(411, "send the body with a Content-Length, not a Transfer-Encoding")
            n = body_length(self.headers.get("Content-Length"), endpoint.limits.max_body)
            if self.command in ("GET", "HEAD") or n == 0:
                if n:
                    self.rfile.read(n)
                return None
            data = self.rfile.read(n)
            if len(data) < n:
                raise ConnectionError("the client closed the connection inside the body")
            return data

        def _forward(self, path: str, body: bytes | None) -> None:
            flight = endpoint.track()
            try:
                _relay(self, endpoint, flight, path, body)
            finally:
                endpoint.untrack(flight)

        do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = do_OPTIONS = _handle

    return Front


def _open(handler, endpoint: Endpoint, flight: _InFlight, path: str, body: bytes | None):
    """Send the request to Oxigraph; a read caught in a restart is sent again to the new child."""
    headers = {k: v for k, v in handler.headers.items() if k.lower() not in _HOP_BY_HOP}
    retry = handler.command in ("GET", "HEAD") or path in QUERY_PATHS
    for attempt in (0, 1):
        try:
            bc = endpoint.backend.acquire(max(0.0, flight.deadline - time.monotonic()), fresh=not retry or attempt > 0)
        except MlkgError as exc:
            raise HTTPRefusal(503, str(exc), RETRY_AFTER) from exc
        flight.bc = bc
        try:
            bc.conn.request(handler.command, handler.path, body=body, headers=headers)
            return bc, bc.conn.getresponse()
        except (OSError, http.client.HTTPException) as exc:
            endpoint.backend.release(bc, False)
            if flight.expired:
                raise _late(endpoint) from exc
            if not (retry and attempt == 0):
                raise HTTPRefusal(502, f"the oxigraph server did not answer: {exc}") from exc
    raise AssertionError("unreachable")


def _late(endpoint: Endpoint) -> HTTPRefusal:
    return HTTPRefusal(503, f"stopped: the request ran longer than {endpoint.limits.timeout:g} s (--timeout)")


def _relay(handler, endpoint: Endpoint, flight: _InFlight, path: str, body: bytes | None) -> None:
    """Forward one request and send the answer back: whole, with its length, when it fits in ``PREFIX`` bytes
    (most answers: one write), else streamed chunk by chunk."""
    bc, resp = _open(handler, endpoint, flight, path, body)
    done = False
    try:
        bodiless = handler.command == "HEAD" or resp.status in (204, 304)
        head, whole = (b"", True) if bodiless else _prefix(resp, flight, endpoint)
        handler.send_response(resp.status, resp.reason)
        for k, v in resp.getheaders():
            if k.lower() not in _HOP_BY_HOP:
                handler.send_header(k, v)
        chunked = not whole and handler.request_version == "HTTP/1.1"
        length = resp.getheader("Content-Length") if bodiless else None if not whole else str(len(head))
        if length is not None:
            handler.send_header("Content-Length", length)
        elif chunked:
            handler.send_header("Transfer-Encoding", "chunked")
        elif not bodiless:
            handler.close_connection = True
        handler.end_headers()
        if whole:
            handler.wfile.write(head)
        else:
            _copy(resp, handler.wfile, chunked, flight, head)
        done = not resp.will_close
    except (OSError, http.client.HTTPException):
        handler.close_connection = True  # a cut answer: the client sees the connection end before the answer
    finally:
        endpoint.backend.release(bc, done and not flight.expired)


def _prefix(resp: http.client.HTTPResponse, flight: _InFlight, endpoint: Endpoint) -> tuple[bytes, bool]:
    """The answer's first ``PREFIX`` bytes, and whether that is all of it (then ``resp`` is read to its end).
    Stopped at the deadline before any byte of it was sent: 503."""
    parts, size = [], 0
    try:
        while size < PREFIX:
            data = resp.read1(PREFIX - size)
            if flight.expired:
                raise ConnectionAbortedError("deadline")
            if not data:
                resp.read()  # closes the answer at its end, so that its connection can carry the next request
                return b"".join(parts), True
            parts.append(data)
            size += len(data)
    except (OSError, http.client.HTTPException) as exc:
        if flight.expired:
            raise _late(endpoint) from exc
        raise HTTPRefusal(502, f"the oxigraph server stopped in the middle of its answer: {exc}") from exc
    return b"".join(parts), False


def _copy(resp: http.client.HTTPResponse, out, chunked: bool, flight: _InFlight, head: bytes) -> None:
    data = head
    while data:
        out.write(b"%x\r\n%s\r\n" % (len(data), data) if chunked else data)
        data = resp.read1(65536)
        if flight.expired:
            raise ConnectionAbortedError("deadline")
    resp.read()
    if chunked:
        out.write(b"0\r\n\r\n")
    out.flush()
