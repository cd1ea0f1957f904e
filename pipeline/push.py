"""``mlkg push``: send a built graph to a store over the SPARQL 1.1 Graph Store HTTP Protocol.

Any store that speaks the protocol takes it: Oxigraph (``http://HOST:7878/store``), Apache Jena Fuseki
(``http://HOST:3030/DATASET/data``), GraphDB (``http://HOST:7200/repositories/REPO/rdf-graphs/service``).
``PUT`` replaces the target graph, ``POST`` adds to it; the target is the store's default graph, or the named
graph ``graph_iri``.
"""

from __future__ import annotations

import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from .errors import InputError, MlkgError

__all__ = ["push", "target_url"]


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
         timeout: float = 300.0) -> int:
    """Send the Turtle graph at ``graph`` to ``endpoint``; returns the number of triples sent.

    Raises
    ------
    InputError
        When the graph is missing or is not valid Turtle, or the endpoint is not an http(s) URL.
    MlkgError
        When the store cannot be reached or refuses the graph (its status and message are given).
    """
    import pyoxigraph as ox

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
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            resp.read()
    except urllib.error.HTTPError as exc:
        detail = exc.read().decode("utf-8", "replace").strip()[:500]
        raise MlkgError(f"{url} refused the graph: HTTP {exc.code} {exc.reason}: {detail}") from exc
    except (urllib.error.URLError, OSError) as exc:
        raise MlkgError(f"{url}: cannot reach the store: {getattr(exc, 'reason', exc)}") from exc
    return triples
