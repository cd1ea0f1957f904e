"""Write graphs and reports deterministically and atomically (temporary file, then rename)."""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path

from rdflib import Graph, Literal, URIRef

__all__ = ["atomic_write", "write_turtle", "turtle_bytes", "write_json"]


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, never a part."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


_XSD = "http://www.w3.org/2001/XMLSchema#"
_BARE = {_XSD + "integer": re.compile(r"[+-]?\d+"), _XSD + "decimal": re.compile(r"[+-]?\d*\.\d+"),
         _XSD + "boolean": re.compile(r"true|false")}
_LOCAL = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_ESC = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_NEEDS_ESC = re.compile(r'[\x00-\x1f\x7f"\\]')
_IRI_BAD = re.compile(r'[\x00-\x20<>"{}|^`\\]')
_RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


def _string(text: str) -> str:
    if _NEEDS_ESC.search(text):
        text = _NEEDS_ESC.sub(lambda m: _ESC.get(m.group(), f"\\u{ord(m.group()):04X}"), text)
    return f'"{text}"'


class _Terms:
    """Turtle text of terms: prefixed names where the local part is plain, else ``<IRI>``; IRIs rendered once."""

    def __init__(self, prefixes: dict[str, str]) -> None:
        self.prefixes = sorted(prefixes.items(), key=lambda kv: -len(kv[1]))
        self.used: set[str] = set()
        self.memo: dict[str, str] = {}

    def iri(self, iri: str) -> str:
        out = self.memo.get(iri)
        if out is None:
            out = "<" + _IRI_BAD.sub(lambda m: f"\\u{ord(m.group()):04X}", iri) + ">"
            for name, ns in self.prefixes:
                if iri.startswith(ns) and _LOCAL.fullmatch(iri[len(ns):]):
                    self.used.add(name)
                    out = f"{name}:{iri[len(ns):]}"
                    break
            self.memo[iri] = out
        return out

    def term(self, t) -> str:
        if isinstance(t, Literal):
            lex = str(t)
            dt = str(t.datatype) if t.datatype else None
            if t.language:
                return f"{_string(lex)}@{t.language}"
            if dt in _BARE and _BARE[dt].fullmatch(lex):
                return lex
            if dt and dt != _XSD + "string":
                return f"{_string(lex)}^^{self.iri(dt)}"
            return _string(lex)
        if isinstance(t, URIRef):
            return "a" if str(t) == _RDF_TYPE else self.iri(str(t))
        raise ValueError(f"blank node {t!r}: mlkg graphs name every node")


def turtle_bytes(graph: Graph | Iterable[tuple]) -> bytes:
    """Turtle, deterministic: byte-identical for equal graphs, in time O(n log n) and little memory per triple.

    One block per subject, subjects in order of their Turtle text, ``a`` (``rdf:type``) first and then
    predicates in order of their text, objects in order of their text. rdflib's own Turtle serialiser is far
    slower and grows faster than linearly with the graph, which at ten thousand documents made it the build's
    bottleneck; this writer renders each triple to text at once and keeps only that. ``graph`` may be a Graph
    or any iterable of triples (repeats are written once), so a large build need not hold an rdflib Graph at
    all. The graph has no blank nodes (every node is named by ``rdf.py``).

    Examples
    --------
    >>> from rdflib import Namespace
    >>> EX = Namespace("http://example.org/")
    >>> g = Graph(); _ = g.add((EX.a, EX.p, Literal("x \\"y\\""))); _ = g.add((EX.a, EX.p, Literal(3)))
    >>> print(turtle_bytes(g).decode())
    <http://example.org/a> <http://example.org/p> "x \\"y\\"", 3 .
    <BLANKLINE>
    """
    from .vocab import PREFIXES

    terms = _Terms({k: str(v) for k, v in PREFIXES.items()})
    by_subject: dict[str, set[tuple[str, str]]] = {}
    for s, p, o in graph:
        if not isinstance(s, URIRef):
            raise ValueError(f"blank node {s!r}: mlkg graphs name every node")
        key = terms.iri(str(s))
        po = by_subject.get(key)
        if po is None:
            po = by_subject[key] = set()
        po.add((terms.term(p), terms.term(o)))
    blocks: list[str] = []
    for subject in sorted(by_subject):
        pairs = sorted(by_subject.pop(subject), key=lambda po: (po[0] != "a", po[0], po[1]))
        preds: list[str] = []
        i = 0
        while i < len(pairs):
            p = pairs[i][0]
            j = i
            while j < len(pairs) and pairs[j][0] == p:
                j += 1
            preds.append(f"{p} {', '.join(o for _, o in pairs[i:j])}")
            i = j
        blocks.append(subject + " " + " ;\n    ".join(preds) + " .\n")
    head = "".join(f"@prefix {name}: <{ns}> .\n" for name, ns in sorted(
        (name, ns) for name, ns in terms.prefixes if name in terms.used))
    return ((head + "\n" if head else "") + "\n".join(blocks)).encode("utf-8")


def write_turtle(graph: Graph, path: Path) -> None:
    """Serialise ``graph`` as Turtle to ``path`` atomically."""
    atomic_write(path, turtle_bytes(graph))


def write_json(obj, path: Path) -> None:
    """Write ``obj`` as sorted, indented JSON atomically."""
    atomic_write(path, (json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8"))
