"""What ``mlkg serve`` refuses before a request reaches Oxigraph: pure checks on one HTTP request.

A browser can make any page it shows send requests to ``127.0.0.1``: ``<img src>`` and ``fetch`` send GETs,
a form sends a POST, and a DNS name rebound to 127.0.0.1 makes them same-origin with a foreign ``Host``. So:

- ``Host`` must name the endpoint itself (``host_allowed``), else 421;
- ``SERVICE`` (a federated query: the server fetches another URL) and ``LOAD`` (an update that fetches one) are
  refused unless allowed (``remote_keywords``), since both turn the endpoint into a client of the local network;
- with updates on, requests from another origin and form-encoded updates are refused (``write_refusal``);
- ``Content-Length`` must be a plain decimal number within the limit (``body_length``).
"""

from __future__ import annotations

import re
import urllib.parse

__all__ = ["HTTPRefusal", "body_length", "host_allowed", "own_origins", "remote_keywords", "sparql_texts",
           "write_refusal"]

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
FORM = "application/x-www-form-urlencoded"
SPARQL_BODY_TYPES = ("application/sparql-query", "application/sparql-update", FORM)

# SPARQL's own lexical rules for what may hide a keyword: strings (long and short), IRIs and comments.
_SKIP = re.compile("|".join((
    r'"""(?:[^"\\]|\\.|"(?!""))*"""',          # long strings
    r"'''(?:[^'\\]|\\.|'(?!''))*'''",
    r'"(?:[^"\\\n\r]|\\.)*"',                  # short strings
    r"'(?:[^'\\\n\r]|\\.)*'",
    r'<[^<>"{}|^`\\\x00-\x20]*>',                # IRIs
    r"#[^\n\r]*",                                # comments
)), re.S)
# A keyword is a bare word: not part of a variable (?x, $x), a prefixed name (ex:SERVICE, SERVICE:x) or a
# longer local name (a-SERVICE, SERVICE.x is a name only with a following name character).
_KEYWORD = re.compile(r"(?<![\w?$:.\-])(SERVICE|LOAD)(?![\w:\-])", re.I)
_CODEPOINT = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")


class HTTPRefusal(Exception):
    """A request the front answers itself with ``status``, a one-line ``message`` and, for a refusal that may
    succeed later, ``retry_after`` seconds (the ``Retry-After`` header)."""

    def __init__(self, status: int, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after = retry_after


def _unescape_codepoints(text: str) -> str:
    r"""SPARQL 1.1 section 19.2: ``\uXXXX`` anywhere in a query is read as the character before parsing."""
    def one(m: re.Match) -> str:
        code = int(m.group(1) or m.group(2), 16)
        return chr(code) if code <= 0x10FFFF else m.group(0)
    return _CODEPOINT.sub(one, text)


def remote_keywords(text: str) -> set[str]:
    r"""The keywords of ``text`` that make the server fetch a URL: ``SERVICE``, ``LOAD`` (upper case).

    Both the text as sent and the text with codepoint escapes read are checked.

    >>> sorted(remote_keywords('SELECT * { service <http://127.0.0.1:9/s> { ?s ?p ?o } }'))
    ['SERVICE']
    >>> remote_keywords('SELECT ?service { ?service a "SERVICE" ; ex:SERVICE <urn:SERVICE> } # SERVICE')
    set()
    >>> sorted(remote_keywords(r'SELECT * { \u0053ERVICE <http://x/> { ?s ?p ?o } }'))
    ['SERVICE']
    >>> sorted(remote_keywords('LOAD <http://127.0.0.1:9/x.ttl>'))
    ['LOAD']
    >>> remote_keywords("SELECT * { ?a <urn:x> \'\'\'long SERVICE 'x' LOAD\'\'\' . FILTER(?a < ?b && ?c > 1) }")
    set()
    """
    found: set[str] = set()
    for variant in {text, _unescape_codepoints(text)}:
        found.update(m.group(1).upper() for m in _KEYWORD.finditer(_SKIP.sub(" ", variant)))
    return found


def sparql_texts(query_string: str, content_type: str, body: bytes | None) -> list[str]:
    """Every SPARQL text a request carries: ``query``/``update`` URL and form parameters, or a SPARQL body.

    Raises ``HTTPRefusal`` (400) when a form or SPARQL body is not UTF-8.

    >>> sparql_texts("query=ASK%7B%7D", "", None)
    ['ASK{}']
    >>> sparql_texts("", "application/x-www-form-urlencoded", b"update=LOAD+%3Chttp%3A%2F%2Fx%3E")
    ['LOAD <http://x>']
    >>> sparql_texts("", "application/sparql-query; charset=utf-8", b"ASK {}")
    ['ASK {}']
    """
    def params(text: str) -> list[str]:
        pairs = urllib.parse.parse_qsl(text, keep_blank_values=True, errors="strict")
        return [v for k, v in pairs if k in ("query", "update")]

    try:
        texts = params(query_string)
        mime = content_type.split(";", 1)[0].strip().lower()
        if body and mime == FORM:
            texts += params(body.decode("utf-8"))
        elif body and mime in SPARQL_BODY_TYPES:
            texts.append(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise HTTPRefusal(400, f"the request is not UTF-8 text: {exc}") from exc
    return texts


def host_allowed(host: str | None, port: int, extra: tuple[str, ...] = ()) -> bool:
    """Whether a ``Host`` header names this endpoint: a loopback name with its port, or one of ``extra``.

    >>> host_allowed("127.0.0.1:7878", 7878), host_allowed("LOCALHOST:7878", 7878), host_allowed("[::1]:7878", 7878)
    (True, True, True)
    >>> host_allowed("evil.example:7878", 7878), host_allowed("127.0.0.1:7879", 7878), host_allowed(None, 7878)
    (False, False, False)
    >>> host_allowed("kg.lan:7878", 7878, ("kg.lan:7878",))
    True
    """
    if not host:
        return False
    host = host.strip().lower()
    return host in {f"{name}:{port}" for name in LOOPBACK_NAMES} or host in {h.lower() for h in extra}


def own_origins(port: int, extra_hosts: tuple[str, ...] = ()) -> set[str]:
    """The ``Origin`` values of pages served by the endpoint itself."""
    return {f"http://{name}:{port}" for name in LOOPBACK_NAMES} | {f"http://{h.lower()}" for h in extra_hosts}


def write_refusal(method: str, path: str, headers, body: bytes | None, origins: set[str]) -> HTTPRefusal | None:
    """With updates on: why a request may not be served, or ``None``.

    Refused: a foreign ``Origin`` or a cross-site ``Sec-Fetch-Site`` (a page elsewhere must neither write nor
    read through a name it rebinds), and every body an HTML form can send without the page's consent
    (form-encoded, multipart, plain text) when it is an update or a write: to ``/update`` or ``/store``, or
    with an ``update`` parameter.
    """
    origin = headers.get("Origin")
    if origin is not None and origin.lower() not in origins:
        return HTTPRefusal(403, f"requests from another origin ({origin}) are refused while updates are allowed")
    if headers.get("Sec-Fetch-Site", "").lower() in ("cross-site", "same-site"):
        return HTTPRefusal(403, "cross-site requests are refused while updates are allowed")
    mime = headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
    if method in ("GET", "HEAD", "OPTIONS") or mime not in (FORM, "multipart/form-data", "text/plain"):
        return None
    is_update = path in ("/update", "/store") or mime != FORM or any(
        k == "update" for k, _ in urllib.parse.parse_qsl((body or b"").decode("utf-8", "replace")))
    if is_update:
        return HTTPRefusal(415, f"{mime} updates are refused while updates are allowed (an HTML form on any "
                                "site can send them); send application/sparql-update or an RDF type")
    return None


def body_length(value: str | None, limit: int) -> int:
    """The validated ``Content-Length``: 0 when absent; ``HTTPRefusal`` 400 when not a decimal, 413 over ``limit``.

    >>> body_length(None, 10), body_length("7", 10)
    (0, 7)
    >>> body_length("-1", 10)
    Traceback (most recent call last):
    ...
    pipeline.serve_guard.HTTPRefusal: Content-Length '-1' is not a number of bytes
    >>> body_length("11", 10)
    Traceback (most recent call last):
    ...
    pipeline.serve_guard.HTTPRefusal: the request body (11 bytes) is over the limit of 10 bytes (--max-body)
    """
    if value is None:
        return 0
    value = value.strip()
    if not value.isascii() or not value.isdigit() or len(value) > 18:
        raise HTTPRefusal(400, f"Content-Length {value!r} is not a number of bytes")
    n = int(value)
    if n > limit:
        raise HTTPRefusal(413, f"the request body ({n} bytes) is over the limit of {limit} bytes (--max-body)")
    return n
