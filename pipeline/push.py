"""``mlkg push``: send a built graph to a store over the SPARQL 1.1 Graph Store HTTP Protocol.

Any store that speaks the protocol takes it: Oxigraph (``http://HOST:7878/store``), Apache Jena Fuseki
(``http://HOST:3030/DATASET/data``), GraphDB (``http://HOST:7200/repositories/REPO/rdf-graphs/service``).
``PUT`` replaces the target graph, ``POST`` adds to it; the target is the store's default graph, or the named
graph ``graph_iri``.

A store behind a password takes HTTP basic authentication (``Credentials(user=..., password=...)``, or
``http://user:password@host/...``) or a bearer token (``Credentials(token=...)``); ``Credentials.from_env``
reads ``MLKG_PUSH_USER``, ``MLKG_PUSH_PASSWORD`` and ``MLKG_PUSH_TOKEN``. Credentials never appear in a
message: addresses are shown without their user part and the store's answer with every secret masked.
"""

from __future__ import annotations

import base64
import os
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from .errors import InputError, MlkgError

__all__ = ["Credentials", "push", "target_url"]


@dataclass(frozen=True)
class Credentials:
    """HTTP basic (``user`` and ``password``) or bearer (``token``) authentication; ``repr`` shows no secret."""

    user: str | None = None
    password: str | None = None
    token: str | None = None

    def __repr__(self) -> str:
        kind = "bearer" if self.token else "basic" if self.user is not None else "none"
        return f"Credentials({kind})"

    @classmethod
    def from_env(cls, user: str | None = None, password: str | None = None, token: str | None = None,
                 environ=os.environ) -> "Credentials":
        """The given values, else ``MLKG_PUSH_USER``, ``MLKG_PUSH_PASSWORD``, ``MLKG_PUSH_TOKEN``."""
        return cls(user if user is not None else environ.get("MLKG_PUSH_USER") or None,
                   password if password is not None else environ.get("MLKG_PUSH_PASSWORD"),
                   token if token is not None else environ.get("MLKG_PUSH_TOKEN") or None)

    def header(self) -> str | None:
        """The ``Authorization`` value, or ``None``; ``InputError`` when the parts do not make one kind.

        >>> Credentials("kg", "pw").header(), Credentials(token="t0k").header(), Credentials().header()
        ('Basic a2c6cHc=', 'Bearer t0k', None)
        """
        if self.token and (self.user is not None or self.password):
            raise InputError("give a user and password (basic) or a token (bearer), not both")
        if self.token:
            if any(c in self.token for c in "\r\n"):
                raise InputError("the token holds a line break")
            return f"Bearer {self.token}"
        if self.user is None and self.password is None:
            return None
        if self.user is None or self.password is None:
            raise InputError("basic authentication needs both a user and a password "
                             "(--user, and --password or MLKG_PUSH_PASSWORD)")
        if ":" in self.user:
            raise InputError("a user name for basic authentication cannot hold ':'")
        return "Basic " + base64.b64encode(f"{self.user}:{self.password}".encode("utf-8")).decode("ascii")

    def mask(self, text: str) -> str:
        """``text`` with every secret replaced by ``***``."""
        for secret in (self.password, self.token, (self.header() or "").partition(" ")[2]):
            if secret:
                text = text.replace(secret, "***")
        return text


def split_userinfo(endpoint: str) -> tuple[str, Credentials]:
    """The address without ``user:password@`` and the credentials it held.

    >>> split_userinfo("http://kg:p%40ss@localhost:3030/ds/data")
    ('http://localhost:3030/ds/data', Credentials(basic))
    >>> split_userinfo("http://localhost:3030/ds/data")[0]
    'http://localhost:3030/ds/data'
    """
    parts = urllib.parse.urlsplit(endpoint)
    if "@" not in parts.netloc:
        return endpoint, Credentials()
    userinfo, _, hostport = parts.netloc.rpartition("@")
    user, sep, password = userinfo.partition(":")
    creds = Credentials(urllib.parse.unquote(user), urllib.parse.unquote(password) if sep else None)
    return urllib.parse.urlunsplit(parts._replace(netloc=hostport)), creds


def target_url(endpoint: str, graph_iri: str | None = None) -> str:
    """The Graph Store Protocol address of the default graph or of the named graph ``graph_iri``.

    Examples
    --------
    >>> target_url("http://localhost:7878/store")
    'http://localhost:7878/store?default'
    >>> target_url("http://localhost:7878/store", "https://example.org/g 1")
    'http://localhost:7878/store?graph=https%3A%2F%2Fexample.org%2Fg+1'
    """
    parts = urllib.parse.urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InputError(f"--endpoint {endpoint!r}: expected an http(s) URL of a Graph Store Protocol service")
    query = "default" if graph_iri is None else urllib.parse.urlencode({"graph": graph_iri})
    sep = "&" if parts.query else ""
    return urllib.parse.urlunsplit(parts._replace(query=parts.query + sep + query))


def push(graph: Path, endpoint: str, graph_iri: str | None = None, replace: bool = True,
         timeout: float = 300.0, auth: Credentials | None = None) -> int:
    """Send the Turtle graph at ``graph`` to ``endpoint``; returns the number of triples sent.

    ``auth`` authenticates (else the address's ``user:password@``, if any).

    Raises
    ------
    InputError
        When the graph is missing or is not valid Turtle, the endpoint is not an http(s) URL, or the
        credentials are incomplete.
    MlkgError
        When the store cannot be reached or refuses the graph (its status and message are given).
    """
    import pyoxigraph as ox

    endpoint, in_url = split_userinfo(endpoint)
    auth = auth if auth is not None and auth.header() else in_url
    header = auth.header()
    graph = Path(graph)
    if not graph.is_file():
        raise InputError(f"{graph}: no graph there; run `mlkg build` first or pass --graph")
    data = graph.read_bytes()
    try:
        triples = sum(1 for _ in ox.parse(data, ox.RdfFormat.TURTLE))
    except SyntaxError as exc:
        raise InputError(f"{graph}: not a valid Turtle graph: {exc}") from exc
    url = target_url(endpoint, graph_iri)
    req = urllib.request.Request(url, data=data, method="PUT" if replace else "POST",
                                 headers={"Content-Type": "text/turtle; charset=utf-8"})
    if header:
        req.add_unredirected_header("Authorization", header)  # never sent on to another address
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            resp.read()
    except urllib.error.HTTPError as exc:
        detail = auth.mask(exc.read().decode("utf-8", "replace").strip()[:500])
        raise MlkgError(f"{url} refused the graph: HTTP {exc.code} {exc.reason}: "
                        f"{_auth_hint(exc.code, header) or detail}") from exc
    except (urllib.error.URLError, OSError) as exc:
        raise MlkgError(f"{url}: cannot reach the store: {auth.mask(str(getattr(exc, 'reason', exc)))}") from exc
    return triples


def _auth_hint(status: int, header: str | None) -> str:
    if status not in (401, 403):
        return ""
    if header is None:
        return ("the store wants credentials: --user with MLKG_PUSH_PASSWORD (basic), or MLKG_PUSH_TOKEN "
                "(bearer)" if status == 401 else "")
    return f"the store did not accept the {header.split()[0].lower()} credentials given"
