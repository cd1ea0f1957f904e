"""Fetch a document named by an ``http(s)`` address: bounded in time and size, every failure a named skip.

Only ``http`` and ``https`` are fetched, redirects included (at most five). The whole exchange has a deadline
(``timeout`` seconds for connecting, for each read and for the whole body), and a body over ``max_bytes`` is
refused, by its ``Content-Length`` or as it arrives. Nothing is cached or retried.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from . import __version__
from .errors import DocumentError, printable

__all__ = ["Fetched", "fetch", "is_url", "is_address", "FETCH_TIMEOUT"]

FETCH_TIMEOUT = 20.0
"""Seconds a fetch may take, connecting and reading included."""

_URL = re.compile(r"(?i)https?://[^\s/]")
_ADDRESS = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def is_address(name: object) -> bool:
    """Whether an input is written as an address of any scheme (``ftp://...``, ``s3://...``), not a path.

    >>> is_address("ftp://example.org/a.txt"), is_address("C:/docs")
    (True, False)
    """
    return isinstance(name, str) and bool(_ADDRESS.match(name))


def is_url(name: object) -> bool:
    """Whether an input names a web page (``http://`` or ``https://``) rather than a file.

    >>> is_url("https://example.org/post.html"), is_url("posts/a.md")
    (True, False)
    """
    return isinstance(name, str) and bool(_URL.match(name))


@dataclass(frozen=True, slots=True)
class Fetched:
    """The body of a fetched page and what its headers say about it."""

    url: str
    """The address the body came from, after redirects."""
    body: bytes
    """The bytes of the body."""
    content_type: str
    """The media type (``text/html``), lower case, without parameters; empty when not sent."""
    charset: str | None
    """The ``charset`` parameter of ``Content-Type``, if any."""


def _opener():
    """An opener that follows at most five redirects, to http(s) addresses only (urllib loads here: naming an
    input, :func:`is_address`, needs none of it)."""
    import urllib.error
    import urllib.request

    class Redirects(urllib.request.HTTPRedirectHandler):
        max_redirections = 5

        def redirect_request(self, req, fp, code, msg, headers, newurl):
            if not is_url(newurl):
                raise urllib.error.HTTPError(newurl, code, f"redirect to a non-HTTP address {newurl!r}", headers, fp)
            return super().redirect_request(req, fp, code, msg, headers, newurl)

    return urllib.request.build_opener(Redirects)


def fetch(url: str, max_bytes: int, timeout: float = FETCH_TIMEOUT) -> Fetched:
    """GET ``url``.

    Raises
    ------
    DocumentError
        With the reason (HTTP status, timeout, over the size limit, connection refused...).
    """
    import http.client
    import socket
    import urllib.error
    import urllib.request

    where = printable(url)

    def fail(reason: str) -> DocumentError:
        return DocumentError(where, f"{reason}; skipped")

    deadline = time.monotonic() + timeout
    opener = _opener()
    request = urllib.request.Request(url, headers={
        "User-Agent": f"mlkg/{__version__}",
        "Accept": "text/html, application/xhtml+xml, text/markdown, text/plain, application/pdf;q=0.9, */*;q=0.1"})
    try:
        with opener.open(request, timeout=timeout) as response:
            length = response.headers.get("Content-Length", "")
            if length.strip().isdigit() and int(length) > max_bytes:
                raise fail(f"{int(length)} bytes is over the limit of {max_bytes} (--max-bytes)")
            chunks, size = [], 0
            while True:
                if time.monotonic() > deadline:
                    raise fail(f"timed out after {timeout:g}s")
                chunk = response.read(min(1 << 16, max_bytes + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                if size > max_bytes:
                    raise fail(f"over the limit of {max_bytes} bytes (--max-bytes)")
            ctype = response.headers.get_content_type() if response.headers.get("Content-Type") else ""
            return Fetched(response.geturl(), b"".join(chunks), ctype, response.headers.get_content_charset())
    except DocumentError:
        raise
    except urllib.error.HTTPError as exc:
        raise fail(f"HTTP {exc.code} {printable(str(exc.reason))}") from exc
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, (TimeoutError, socket.timeout)):
            raise fail(f"timed out after {timeout:g}s") from exc
        raise fail(f"cannot be fetched ({printable(getattr(reason, 'strerror', None) or str(reason))})") from exc
    except (TimeoutError, socket.timeout) as exc:
        raise fail(f"timed out after {timeout:g}s") from exc
    except (http.client.HTTPException, OSError, ValueError) as exc:
        raise fail(f"cannot be fetched ({type(exc).__name__}: {printable(str(exc))})") from exc
