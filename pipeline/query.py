"""Run SPARQL queries against a built graph, with pyoxigraph: named queries (``queries/*.rq``), ``.rq`` files or
query text (SELECT, ASK, CONSTRUCT, DESCRIBE).

A parameter the query matches against ``rdfs:label`` or ``skos:altLabel`` is a name: it finds the entities any
of whose names equals it once normalised as the graph normalises names (case, punctuation and spacing ignored;
``resolve.norm``), or, failing that, contains it as whole words (``ICLR`` finds ICLR 2025 and ICLR 2026); a
parameter named after a class (``venue``, ``method``, ``document``...) looks only at entities of that class.
The query runs with each matched entity's label, and ``QueryResult.matches`` says which matched.
"""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from .errors import QueryError

__all__ = ["QUERIES_DIR", "list_queries", "load_query", "run_query", "format_result", "QueryResult", "NameMatch",
           "parse_params", "open_store", "query_parameters", "is_query_text", "with_values", "match_names"]

QUERIES_DIR = Path(__file__).parent / "queries"


@dataclass(frozen=True, slots=True)
class NameMatch:
    """The entities a name parameter matched."""

    param: str
    value: str
    """The value given."""
    labels: tuple[str, ...]
    """The ``rdfs:label`` of each entity it matched (the query ran with each); empty when none matched."""
    exact: bool
    """True when a name equals the value once normalised; False when the labels only contain its words."""

    def __str__(self) -> str:
        if not self.labels:
            return f"{self.param}={self.value!r}: no entity has this name"
        how = "" if self.exact else " by its words"
        n = len(self.labels)
        names = ", ".join(self.labels[:20]) + (f", ... ({n - 20} more)" if n > 20 else "")
        return f"{self.param}={self.value!r}: {n} {'entity' if n == 1 else 'entities'} matched{how}: {names}"


@dataclass(frozen=True, slots=True)
class QueryResult:
    """Variables and rows (each value a string, or None when unbound).

    ``terms`` has, for each row, each value as a SPARQL 1.1 Query Results JSON term (``{"type": "uri" |
    "literal" | "bnode", "value": ..., "datatype"?: ..., "xml:lang"?: ...}``) or None; empty when unknown.
    An ASK query gives ``boolean`` (and one row, ``true`` or ``false``); a CONSTRUCT or DESCRIBE query gives its
    triples as rows of ``subject``, ``predicate``, ``object``.
    """

    variables: tuple[str, ...]
    rows: tuple[tuple[str | None, ...], ...]
    terms: tuple[tuple[dict | None, ...], ...] = ()
    boolean: bool | None = None
    """The answer of an ASK query; None for the other forms."""
    matches: tuple[NameMatch, ...] = ()
    """What each name parameter matched."""

    def to_dataframe(self):
        """The rows as a pandas DataFrame, numbers and booleans typed (pandas is optional: ``pip install pandas``)."""
        try:
            import pandas as pd
        except ImportError as exc:
            raise QueryError("to_dataframe needs pandas, which is not installed: pip install pandas") from exc
        if not self.terms:
            return pd.DataFrame(list(self.rows), columns=list(self.variables))
        return pd.DataFrame([[_python_value(t) for t in row] for row in self.terms], columns=list(self.variables))


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


_XSD = "http://www.w3.org/2001/XMLSchema#"
_NUMBERS = {_XSD + t: int for t in ("integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger",
                                    "negativeInteger", "nonPositiveInteger", "unsignedInt", "unsignedLong")}
_NUMBERS.update({_XSD + t: float for t in ("decimal", "double", "float")})


def _python_value(term: dict | None):
    """A JSON result term as a Python value: numbers and booleans typed, everything else its string."""
    if term is None:
        return None
    convert = _NUMBERS.get(term.get("datatype", ""))
    try:
        if convert is not None:
            return convert(term["value"])
        if term.get("datatype") == _XSD + "boolean":
            return term["value"] in ("true", "1")
    except ValueError:
        pass
    return term["value"]


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


_QUERY_TEXT = re.compile(r"^\s*(?:#[^\n]*\n\s*)*(?:PREFIX|BASE|SELECT|ASK|CONSTRUCT|DESCRIBE)\b", re.I)


def is_query_text(text: str) -> bool:
    """Does ``text`` read as SPARQL rather than as a query's name or file?

    Examples
    --------
    >>> is_query_text("ASK { ?s ?p ?o }"), is_query_text("papers_at_venue"), is_query_text("# q\\nprefix x: <a:> SELECT")
    (True, False, True)
    """
    return bool(_QUERY_TEXT.match(text))


def load_query(name_or_file: str) -> str:
    """The text of a named query, of a ``.rq`` file, or ``name_or_file`` itself when it is SPARQL text.

    Raises
    ------
    QueryError
        When it is none of these.
    """
    if is_query_text(name_or_file):
        return name_or_file
    path = Path(name_or_file)
    if path.suffix == ".rq" and path.is_file():
        return path.read_text("utf-8")
    named = QUERIES_DIR / f"{name_or_file}.rq"
    if named.is_file():
        return named.read_text("utf-8")
    raise QueryError(f"{name_or_file}: no such named query or .rq file, nor SPARQL text; `mlkg query --list` shows "
                     "the named queries")


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


_NAME_PREDICATES = r"(?:rdfs:label|skos:altLabel|<http://www\.w3\.org/2000/01/rdf-schema#label>|<http://www\.w3\.org/2004/02/skos/core#altLabel>)"


def _is_name(query: str, param: str) -> bool:
    """Is ``?param`` the object of an ``rdfs:label`` or ``skos:altLabel`` pattern in ``query``?"""
    return bool(re.search(_NAME_PREDICATES + r"\s+[?$]" + re.escape(param) + r"\b", query))


def _words(name: str) -> list[str]:
    return re.findall(r"\w+", unicodedata.normalize("NFKC", name).casefold())


def _contains_words(name: str, words: list[str]) -> bool:
    have = _words(name)
    return bool(words) and any(have[i:i + len(words)] == words for i in range(len(have) - len(words) + 1))


def match_names(store, param: str, value: str) -> NameMatch:
    """The entities named ``value`` (see the module's description), as a ``NameMatch``."""
    from .resolve import norm
    from .vocab import MLKG

    try:  # a parameter named after a class of the model looks at its instances only
        cls = MLKG[param[:1].upper() + param[1:]]
    except (AttributeError, KeyError):
        cls = None
    typed = f"?e a <{cls}> ." if cls is not None and store.query(f"ASK {{ ?e a <{cls}> }}") else ""
    names = store.query("PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> PREFIX skos: <http://www.w3.org/2004/02/skos/core#> "
                        f"SELECT ?label ?name WHERE {{ {typed} ?e rdfs:label ?label . {{ ?e rdfs:label ?name }} UNION {{ ?e skos:altLabel ?name }} }}")
    pairs = [(sol["label"].value, sol["name"].value) for sol in names]
    key = norm(value)
    exact = sorted({label for label, name in pairs if norm(name) == key}) if key else []
    if exact:
        return NameMatch(param, value, tuple(exact), True)
    words = _words(value)
    return NameMatch(param, value, tuple(sorted({label for label, name in pairs if _contains_words(name, words)})), False)


_TOKENS = re.compile(r'"""(?:[^"\\]|\\.|"(?!""))*"""' r"|'''(?:[^'\\]|\\.|'(?!''))*'''"
                     r'|"(?:[^"\\\n]|\\.)*"' r"|'(?:[^'\\\n]|\\.)*'" r'|<[^<>"{}|^`\\\s]*>|#[^\n]*|[{}]|\bWHERE\b', re.I)


def with_values(query: str, values: dict[str, str]) -> str:
    """``query`` with ``values`` bound by a ``VALUES`` block at the start of its pattern.

    Each value is written by pyoxigraph as an RDF literal (quotes and line breaks escaped), so it stays one
    term whatever it holds. Unlike the engine's substitutions, which it joins after planning, a VALUES block
    lets Oxigraph start from the bound name (an index lookup) instead of scanning every label. A query with no
    pattern group gets a trailing VALUES clause.

    Examples
    --------
    >>> with_values('SELECT ?x WHERE { ?x <p> ?v }', {"v": 'a"b'})
    'SELECT ?x WHERE { VALUES (?v) { ("a\\\\"b") } ?x <p> ?v }'
    """
    import pyoxigraph as ox

    names = " ".join("?" + k for k in values)
    block = f"VALUES ({names}) {{ ({' '.join(str(ox.Literal(v)) for v in values.values())}) }}"
    depth, where_seen, first = 0, False, None
    for m in _TOKENS.finditer(query):
        tok = m.group(0)
        if tok.upper() == "WHERE" and depth == 0:
            where_seen = True
        elif tok == "{":
            if depth == 0 and (where_seen or first is None):
                first = m.start()
                if where_seen:
                    break
            depth += 1
        elif tok == "}":
            depth -= 1
    if first is None:
        return f"{query}\n{block}"
    return f"{query[:first + 1]} {block}{query[first + 1:]}"


def _result(answer, ox) -> QueryResult:
    """One pyoxigraph answer (solutions, boolean or triples) as a ``QueryResult``."""
    if isinstance(answer, ox.QueryBoolean):
        return _result_boolean(bool(answer), ())
    if isinstance(answer, ox.QuerySolutions):
        variables = tuple(v.value for v in answer.variables)
        values = [[sol[v] for v in variables] for sol in answer]
    else:
        variables = ("subject", "predicate", "object")
        values = [[t.subject, t.predicate, t.object] for t in answer]
    rows = tuple(tuple(None if t is None else t.value for t in row) for row in values)
    terms = tuple(tuple(None if t is None else _json_term(t) for t in row) for row in values)
    return QueryResult(variables=variables, rows=rows, terms=terms)


def run_query(query: str, graph_path: Path, params: dict[str, str] | None = None,
              store_dir: Path | None = None) -> QueryResult:
    """Run a SPARQL query (SELECT, ASK, CONSTRUCT or DESCRIBE) over the Turtle graph at ``graph_path``.

    The store is in memory, or on disk in ``store_dir`` (see ``open_store``). Parameters are bound as
    literals by a VALUES block (``with_values``), never pasted into the text as SPARQL; a name parameter runs the query
    once per entity it matched, with that entity's label, and the rows are merged (see the module's description).
    """
    import itertools

    import pyoxigraph as ox

    params = dict(params or {})
    for k in params:
        if not re.search(r"[?$]" + re.escape(k) + r"\b", query):
            raise QueryError(f"--param {k}: the query has no variable ?{k}")
    store = open_store(graph_path, store_dir)
    matches = tuple(match_names(store, k, v) for k, v in params.items() if _is_name(query, k))
    choices = {k: [v] for k, v in params.items()}
    choices.update({m.param: list(m.labels) for m in matches if m.labels})
    results = []
    for values in itertools.product(*choices.values()):
        try:
            results.append(_result(store.query(with_values(query, dict(zip(choices, values))) if choices else query), ox))
        except (SyntaxError, RuntimeError, ValueError) as exc:
            raise QueryError(f"query cannot run: {exc}") from exc
    first = results[0]
    if len(results) == 1:
        return QueryResult(first.variables, first.rows, first.terms, first.boolean, matches)
    seen, rows, terms = set(), [], []
    for r in results:
        for row, term in zip(r.rows, r.terms):
            if row not in seen:
                seen.add(row)
                rows.append(row)
                terms.append(term)
    boolean = any(r.boolean for r in results) if first.boolean is not None else None
    if boolean is not None:
        return _result_boolean(boolean, matches)
    return QueryResult(first.variables, tuple(rows), tuple(terms), None, matches)


def _result_boolean(value: bool, matches: tuple[NameMatch, ...]) -> QueryResult:
    text = "true" if value else "false"
    return QueryResult(("boolean",), ((text,),), (({"type": "literal", "value": text, "datatype": _XSD + "boolean"},),),
                       boolean=value, matches=matches)


def format_result(result: QueryResult, fmt: str = "table", width: int | None = None) -> str:
    """Format as an aligned ``table``, ``csv``, or SPARQL 1.1 Query Results ``json``.

    The table shows every value in full; with ``width`` (a terminal's), the widest columns are wrapped onto
    more lines so that each row fits in it.
    """
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(result.variables)
        w.writerows([["" if v is None else v for v in row] for row in result.rows])
        return buf.getvalue()
    if fmt == "json":
        if result.boolean is not None:
            return json.dumps({"head": {}, "boolean": result.boolean}, indent=2)
        if result.terms:
            bindings = [{k: t for k, t in zip(result.variables, row) if t is not None} for row in result.terms]
        else:  # a result made by hand, without term kinds
            bindings = [{k: {"type": "uri" if v.startswith("http") else "literal", "value": v}
                         for k, v in zip(result.variables, row) if v is not None} for row in result.rows]
        return json.dumps({"head": {"vars": list(result.variables)}, "results": {"bindings": bindings}}, indent=2, ensure_ascii=False)
    if fmt != "table":
        raise QueryError(f"--format {fmt!r}: use table, csv or json")
    if result.boolean is not None:
        return "true" if result.boolean else "false"
    return _table(result, width)


def _table(result: QueryResult, width: int | None) -> str:
    import textwrap

    cells = [list(result.variables)] + [["" if v is None else " ".join(v.split()) for v in row] for row in result.rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(result.variables))]
    gaps = 2 * (len(widths) - 1)
    while width and sum(widths) + gaps > width and max(widths) > 12:  # narrow the widest column until rows fit
        widths[widths.index(max(widths))] -= 1
    lines = []
    for n, row in enumerate(cells):
        wrapped = [textwrap.wrap(c, w, break_on_hyphens=False) or [""] for c, w in zip(row, widths)]
        for k in range(max(map(len, wrapped))):
            lines.append("  ".join((col[k] if k < len(col) else "").ljust(w) for col, w in zip(wrapped, widths)).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines.append(f"({len(result.rows)} rows)")
    return "\n".join(lines)
