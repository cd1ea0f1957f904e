"""Run named SPARQL queries (``queries/*.rq``) or ``.rq`` files against a built graph, with pyoxigraph."""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path

from .errors import QueryError

__all__ = ["QUERIES_DIR", "list_queries", "load_query", "run_query", "format_result", "QueryResult", "parse_params",
           "open_store", "query_parameters"]

QUERIES_DIR = Path(__file__).parent / "queries"


@dataclass(frozen=True, slots=True)
class QueryResult:
    """Variables and rows (each value a string, or None when unbound).

    ``terms`` has, for each row, each value as a SPARQL 1.1 Query Results JSON term (``{"type": "uri" |
    "literal" | "bnode", "value": ..., "datatype"?: ..., "xml:lang"?: ...}``) or None; empty when unknown.
    """

    variables: tuple[str, ...]
    rows: tuple[tuple[str | None, ...], ...]
    terms: tuple[tuple[dict | None, ...], ...] = ()


_PLAIN = "http://www.w3.org/2001/XMLSchema#string"


def _json_term(term) -> dict:
    import pyoxigraph as ox

    if isinstance(term, ox.NamedNode):
        return {"type": "uri", "value": term.value}
    if isinstance(term, ox.BlankNode):
        return {"type": "bnode", "value": term.value}
    out = {"type": "literal", "value": term.value}
    if term.language:
        out["xml:lang"] = term.language
    elif term.datatype.value != _PLAIN:
        out["datatype"] = term.datatype.value
    return out


def list_queries() -> dict[str, str]:
    """Named queries and the first comment line of each (what it answers)."""
    out = {}
    for path in sorted(QUERIES_DIR.glob("*.rq")):
        first = next((ln[1:].strip() for ln in path.read_text("utf-8").splitlines() if ln.startswith("#")), "")
        out[path.stem] = first
    return out


def query_parameters(text: str) -> dict[str, str | None]:
    """The parameters a query's ``# Parameters:`` comment declares, each with its example value (or None).

    Examples
    --------
    >>> query_parameters('# Parameters: venue (a label, e.g. "Conf 2031"), n.\\nSELECT ...')
    {'venue': 'Conf 2031', 'n': None}
    >>> query_parameters("# Parameters: none.")
    {}
    """
    line = next((ln for ln in text.splitlines() if ln.startswith("# Parameters:")), "")
    decl = line.split(":", 1)[1].strip() if line else ""
    if not decl or decl.rstrip(".") == "none":
        return {}
    out: dict[str, str | None] = {}
    for m in re.finditer(r"(?:^|,\s*)([A-Za-z_]\w*)\s*(\((?:[^()\"]|\"[^\"]*\")*\))?", decl):
        ex = re.search(r'e\.g\. "([^"]*)"', m.group(2) or "")
        out[m.group(1)] = ex.group(1) if ex else None
    return out


def load_query(name_or_file: str) -> str:
    """The text of a named query or a ``.rq`` file.

    Raises
    ------
    QueryError
        When neither a named query nor a readable file has that name.
    """
    path = Path(name_or_file)
    if path.suffix == ".rq" and path.is_file():
        return path.read_text("utf-8")
    named = QUERIES_DIR / f"{name_or_file}.rq"
    if named.is_file():
        return named.read_text("utf-8")
    raise QueryError(f"{name_or_file}: no such named query or .rq file; `mlkg query --list` shows the named queries")


def parse_params(pairs: list[str]) -> dict[str, str]:
    """``["venue=ICLR 2025"]`` to ``{"venue": "ICLR 2025"}``.

    Examples
    --------
    >>> parse_params(["venue=ICLR 2025", "method=Adam"])
    {'venue': 'ICLR 2025', 'method': 'Adam'}
    """
    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise QueryError(f"--param {pair!r}: expected NAME=VALUE")
        k, v = pair.split("=", 1)
        if not re.fullmatch(r"[A-Za-z_]\w*", k):
            raise QueryError(f"--param {pair!r}: {k!r} is not a SPARQL variable name")
        out[k] = v
    return out


def open_store(graph_path: Path, store_dir: Path | None = None):
    """A pyoxigraph store holding the Turtle graph at ``graph_path``.

    With ``store_dir`` None the store is in memory and the graph is loaded on every call. With a folder, the
    store is on disk (``store_dir/oxigraph``): the graph is loaded the first time and reused after, and loaded
    again only when ``graph_path`` changed since (another file, a newer modification time, another size);
    ``store_dir/mlkg-store.json`` records what was loaded. The caller closes nothing: the store is released when
    it is garbage-collected.

    Raises
    ------
    QueryError
        When there is no graph at ``graph_path``, it is not valid Turtle, or the store folder cannot be opened
        (for example while another process holds it).
    """
    import pyoxigraph as ox

    graph_path = Path(graph_path)
    if not graph_path.is_file():
        raise QueryError(f"{graph_path}: no graph there; run `mlkg build` first or pass --graph")
    if store_dir is None:
        store = ox.Store()
        _load(store, graph_path)
        return store
    store_dir = Path(store_dir)
    marker = store_dir / "mlkg-store.json"
    st = graph_path.stat()
    source = {"graph": str(graph_path.resolve()), "mtime_ns": st.st_mtime_ns, "size": st.st_size}
    try:
        store_dir.mkdir(parents=True, exist_ok=True)
        store = ox.Store(str(store_dir / "oxigraph"))
    except (OSError, RuntimeError) as exc:
        raise QueryError(f"--store {store_dir}: cannot open the store: {exc}") from exc
    try:
        loaded = json.loads(marker.read_text("utf-8"))
    except (OSError, ValueError):
        loaded = None
    if loaded != source:
        marker.unlink(missing_ok=True)  # a load that fails half-way is retried next time
        store.clear()
        _load(store, graph_path)
        store.flush()
        from .write import atomic_write

        atomic_write(marker, json.dumps(source, sort_keys=True).encode("utf-8"))
    return store


def _load(store, graph_path: Path) -> None:
    import pyoxigraph as ox

    try:
        with graph_path.open("rb") as fh:
            store.bulk_load(fh, ox.RdfFormat.TURTLE)
    except SyntaxError as exc:
        raise QueryError(f"{graph_path}: not a valid Turtle graph: {exc}") from exc


def run_query(query: str, graph_path: Path, params: dict[str, str] | None = None,
              store_dir: Path | None = None) -> QueryResult:
    """Run a SELECT query over the Turtle graph at ``graph_path`` in pyoxigraph.

    The store is in memory, or on disk in ``store_dir`` (see ``open_store``). Parameters are bound as
    literals through the engine's substitutions, never pasted into the text.
    """
    import pyoxigraph as ox

    for k in params or {}:
        if not re.search(r"[?$]" + re.escape(k) + r"\b", query):
            raise QueryError(f"--param {k}: the query has no variable ?{k}")
    store = open_store(graph_path, store_dir)
    subs = {ox.Variable(k): ox.Literal(v) for k, v in (params or {}).items()}
    try:
        result = store.query(query, substitutions=subs) if subs else store.query(query)
    except (SyntaxError, RuntimeError) as exc:
        raise QueryError(f"query cannot run: {exc}") from exc
    if not isinstance(result, ox.QuerySolutions):
        raise QueryError("only SELECT queries are supported here")
    variables = tuple(v.value for v in result.variables)
    rows, terms = [], []
    for sol in result:
        values = [sol[v] for v in variables]
        rows.append(tuple(None if t is None else t.value for t in values))
        terms.append(tuple(None if t is None else _json_term(t) for t in values))
    return QueryResult(variables=variables, rows=tuple(rows), terms=tuple(terms))


def format_result(result: QueryResult, fmt: str = "table") -> str:
    """Format as an aligned ``table``, ``csv``, or SPARQL 1.1 Query Results ``json``."""
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(result.variables)
        w.writerows([["" if v is None else v for v in row] for row in result.rows])
        return buf.getvalue()
    if fmt == "json":
        if result.terms:
            bindings = [{k: t for k, t in zip(result.variables, row) if t is not None} for row in result.terms]
        else:  # a result made by hand, without term kinds
            bindings = [{k: {"type": "uri" if v.startswith("http") else "literal", "value": v}
                         for k, v in zip(result.variables, row) if v is not None} for row in result.rows]
        return json.dumps({"head": {"vars": list(result.variables)}, "results": {"bindings": bindings}}, indent=2, ensure_ascii=False)
    if fmt != "table":
        raise QueryError(f"--format {fmt!r}: use table, csv or json")
    cells = [list(result.variables)] + [["" if v is None else v.replace("\n", " ") for v in row] for row in result.rows]
    widths = [min(60, max(len(r[i]) for r in cells)) for i in range(len(result.variables))]
    lines = []
    for n, r in enumerate(cells):
        lines.append("  ".join((c if len(c) <= 60 else c[:59] + "…").ljust(w) for c, w in zip(r, widths)).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines.append(f"({len(result.rows)} rows)")
    return "\n".join(lines)
