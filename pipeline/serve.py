"""``mlkg serve``: a SPARQL 1.1 Protocol endpoint on localhost over a built graph, with its ``graph.html``.

The SPARQL server is the real Oxigraph server (the ``oxigraph`` package from PyPI, a Rust binary): the graph is
loaded into a fresh on-disk store in a temporary folder, and ``oxigraph serve-read-only`` serves it, so SPARQL
updates and Graph Store writes are refused with 403 by the server itself; ``allow_updates`` runs
``oxigraph serve`` instead (changes then live until the endpoint stops; ``graph.ttl`` is never written).
Oxigraph listens on a private loopback port; a small front on the public port serves ``/graph.html`` and
forwards every other request (``/query``, ``/update``, ``/store``) to it unchanged.
"""

from __future__ import annotations

import http.client
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from .errors import MlkgError

__all__ = ["Endpoint", "oxigraph_binary", "free_port"]

HOST = "127.0.0.1"
_HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade",
               "host", "content-length"}


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


class Endpoint:
    """A running endpoint; use as a context manager, or ``start()`` and ``stop()``.

    ``port`` 0 picks a free port. ``url`` is the base address; the SPARQL endpoint is ``url + "/query"``,
    updates go to ``url + "/update"``, the Graph Store Protocol is at ``url + "/store"``, the page at
    ``url + "/graph.html"``.
    """

    def __init__(self, graph: Path, port: int = 7878, allow_updates: bool = False, html: Path | None = None,
                 startup_timeout: float = 60.0) -> None:
        self.graph = Path(graph)
        self.port = port
        self.allow_updates = allow_updates
        self.html = Path(html) if html is not None else self.graph.with_name("graph.html")
        self.startup_timeout = startup_timeout
        self._tmp: tempfile.TemporaryDirectory | None = None
        self._proc: subprocess.Popen | None = None
        self._front: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.backend_port = 0

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
        binary = oxigraph_binary()
        try:
            self._front = ThreadingHTTPServer((HOST, self.port), _front_handler(self))
        except OSError as exc:
            raise MlkgError(f"cannot listen on {HOST}:{self.port}: {exc}") from exc
        self.port = self._front.server_address[1]
        try:
            self._tmp = tempfile.TemporaryDirectory(prefix="mlkg-serve-")
            db = Path(self._tmp.name) / "db"
            load = subprocess.run([binary, "load", "--location", str(db), "--file", str(self.graph)],
                                  capture_output=True, text=True)
            if load.returncode != 0:
                raise MlkgError(f"{self.graph}: oxigraph cannot load it: {load.stderr.strip()[-500:]}")
            self.backend_port = free_port()
            mode = "serve" if self.allow_updates else "serve-read-only"
            self._proc = subprocess.Popen([binary, mode, "--location", str(db), "--bind",
                                           f"{HOST}:{self.backend_port}"],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            self._wait_ready()
            self._thread = threading.Thread(target=self._front.serve_forever, name="mlkg-serve-front", daemon=True)
            self._thread.start()
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise MlkgError(f"the oxigraph server stopped: {self._proc.stderr.read().strip()[-500:]}")
            try:
                with socket.create_connection((HOST, self.backend_port), timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        raise MlkgError(f"the oxigraph server did not answer within {self.startup_timeout:.0f}s")

    def stop(self) -> None:
        """Stop the front and the server and delete the temporary store; safe to call more than once."""
        if self._front is not None:
            if self._thread is not None:
                self._front.shutdown()
            self._front.server_close()
            self._front = None
            self._thread = None
        if self._proc is not None:
            if self._proc.poll() is None:
                self._proc.terminate()
                try:
                    self._proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self._proc.kill()
                    self._proc.wait()
            if self._proc.stderr is not None:
                self._proc.stderr.close()
            self._proc = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


def _front_handler(endpoint: Endpoint):
    class Front(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "mlkg-serve"

        def log_message(self, fmt, *args) -> None:  # quiet; the CLI prints the addresses once
            pass

        def _page(self, head_only: bool) -> None:
            if not endpoint.html.is_file():
                self._plain(404, f"no graph.html beside the graph ({endpoint.html}); run `mlkg view`\n")
                return
            body = endpoint.html.read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not head_only:
                self.wfile.write(body)

        def _plain(self, status: int, text: str) -> None:
            body = text.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _forward(self) -> None:
            path = self.path.split("?", 1)[0]
            if path in ("/", "/graph.html") and self.command in ("GET", "HEAD"):
                if path == "/":
                    self.send_response(302)
                    self.send_header("Location", "/graph.html")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self._page(self.command == "HEAD")
                return
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                self._plain(411, "send a Content-Length\n")
                return
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP}
            conn = http.client.HTTPConnection(HOST, endpoint.backend_port, timeout=300)
            try:
                conn.request(self.command, self.path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
            except OSError as exc:
                self._plain(502, f"the oxigraph server did not answer: {exc}\n")
                return
            finally:
                conn.close()
            self.send_response(resp.status, resp.reason)
            for k, v in resp.getheaders():
                if k.lower() not in _HOP_BY_HOP:
                    self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = do_OPTIONS = _forward

    return Front
