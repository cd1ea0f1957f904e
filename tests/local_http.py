"""A real HTTP server on 127.0.0.1 for the tests that need one besides `mlkg serve`: a listener that records
what reaches it, a guarded store, another origin's page. Started in a thread on a free port, stopped on exit."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

# (method, path, headers, body) -> (status, headers, body) of the answer
Answer = Callable[[str, str, dict, bytes], "tuple[int, dict, bytes]"]


class LocalServer:
    """Answers every GET, POST and PUT with ``answer``; ``requests`` holds each one as (method, path, headers,
    body). Use as a context manager, or call ``close()``; ``url`` is ``http://127.0.0.1:PORT`` + ``path``."""

    def __init__(self, answer: Answer, path: str = "/") -> None:
        self.requests: list[tuple[str, str, dict, bytes]] = []
        requests = self.requests

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _any(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                requests.append((self.command, self.path, dict(self.headers), body))
                status, headers, out = answer(self.command, self.path, dict(self.headers), body)
                self.send_response(status)
                for k, v in {"Content-Length": str(len(out)), **headers}.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(out)

            do_GET = do_POST = do_PUT = _any

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}{path}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def __enter__(self) -> "LocalServer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
