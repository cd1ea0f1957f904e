"""`mlkg serve` and `mlkg push` against the real Oxigraph server, queried with SPARQLWrapper as any client would.

Every server here listens on 127.0.0.1 on a free port and is stopped at the end of its test, pass or fail.
"""

import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
from local_http import LocalServer
from rdflib import BNode, Graph, Literal
from rdflib.compare import isomorphic
from SPARQLWrapper import JSON, POST, POSTDIRECTLY, TURTLE, SPARQLWrapper
from SPARQLWrapper.SPARQLExceptions import SPARQLWrapperException

from pipeline.errors import InputError, MlkgError
from pipeline.push import push
from pipeline.serve import Endpoint, free_port, oxigraph_binary

PREFIXES = """PREFIX mlkg: <https://w3id.org/mlkg/ontology#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
"""
ICLR_PAPERS = PREFIXES + """SELECT ?title WHERE {
  ?v rdfs:label "ICLR 2025" . ?p mlkg:presentedAt/mlkg:partOf* ?v ; rdfs:label ?title } ORDER BY ?title"""


def values(graph):
    """The triples with typed literals by value: stores write "0.90"^^xsd:decimal as "0.9", the same number.

    The graph has no blank nodes, so equal sets mean isomorphic graphs.
    """
    assert not any(isinstance(t, BNode) for tr in graph for t in tr)
    return {(s, p, (o.value, o.datatype) if isinstance(o, Literal) and o.datatype else o) for s, p, o in graph}


def client(url, query, fmt=JSON, method=None):
    sw = SPARQLWrapper(url)
    sw.setQuery(query)
    sw.setReturnFormat(fmt)
    if method:
        sw.setMethod(method)
    return sw.query().convert()


@pytest.fixture(scope="module")
def endpoint(corpus_build):
    with Endpoint(corpus_build[1] / "graph.ttl", port=0) as ep:
        yield ep


def test_endpoint_answers_select_like_the_embedded_engine(endpoint, corpus_build):
    from pipeline.query import load_query, run_query

    res = client(endpoint.url + "/query", ICLR_PAPERS)
    titles = [b["title"]["value"] for b in res["results"]["bindings"]]
    embedded = run_query(load_query("papers_at_venue"), corpus_build[1] / "graph.ttl", {"venue": "ICLR 2025"})
    assert len(titles) == 12 and titles == sorted(r[1] for r in embedded.rows)
    assert "The AdEMAMix Optimizer: Better, Faster, Older" in titles


def test_endpoint_answers_ask(endpoint):
    assert client(endpoint.url + "/query", PREFIXES + 'ASK { ?m rdfs:label "AdEMAMix" ; mlkg:extends ?b . ?b rdfs:label "Adam" }')["boolean"] is True
    assert client(endpoint.url + "/query", PREFIXES + 'ASK { ?m rdfs:label "Adam" ; mlkg:extends ?b }')["boolean"] is False


def test_endpoint_answers_construct(endpoint, corpus_graph):
    q = PREFIXES + "CONSTRUCT { ?a mlkg:extends ?b } WHERE { ?a mlkg:extends ?b }"
    got = client(endpoint.url + "/query", q, fmt=TURTLE)
    g = Graph().parse(data=got, format="turtle")
    expected = corpus_graph.query(q).graph
    assert len(g) == len(expected) >= 3 and isomorphic(g, expected)
    everything = Graph().parse(data=client(endpoint.url + "/query", "CONSTRUCT WHERE { ?s ?p ?o }", fmt=TURTLE), format="turtle")
    assert len(everything) == len(corpus_graph) and values(everything) == values(corpus_graph)


def test_endpoint_rejects_updates_by_default(endpoint):
    count = PREFIXES + "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    before = client(endpoint.url + "/query", count)["results"]["bindings"][0]["n"]["value"]
    sw = SPARQLWrapper(endpoint.url + "/query", updateEndpoint=endpoint.url + "/update")
    sw.setMethod(POST)
    for update in ("DROP ALL", "INSERT DATA { <https://example.org/a> <https://example.org/b> <https://example.org/c> }"):
        sw.setQuery(update)
        with pytest.raises((urllib.error.HTTPError, SPARQLWrapperException)) as err:
            sw.query()
        assert "403" in str(err.value) or getattr(err.value, "code", None) == 403
    with pytest.raises(MlkgError, match="HTTP 403"):
        push(endpoint.graph, endpoint.url + "/store")   # Graph Store writes are refused too
    assert client(endpoint.url + "/query", count)["results"]["bindings"][0]["n"]["value"] == before


def test_endpoint_serves_graph_html_and_the_query_page(endpoint, corpus_build):
    for path in ("/graph", "/graph.html"):
        with urllib.request.urlopen(endpoint.url + path, timeout=30) as resp:
            assert resp.headers["Content-Type"].startswith("text/html")
            assert resp.read() == (corpus_build[1] / "graph.html").read_bytes()
    with urllib.request.urlopen(endpoint.url + "/", timeout=30) as resp:   # Oxigraph's own SPARQL editor
        page = resp.read().decode("utf-8")
        assert resp.status == 200 and "yasgui" in page.lower()
    with urllib.request.urlopen(endpoint.url + "/yasgui.min.js", timeout=30) as resp:
        assert resp.status == 200 and len(resp.read()) > 10_000


def test_endpoint_accepts_updates_when_allowed(corpus_build):
    with Endpoint(corpus_build[1] / "graph.ttl", port=0, allow_updates=True) as ep:
        sw = SPARQLWrapper(ep.url + "/query", updateEndpoint=ep.url + "/update")
        sw.setMethod(POST)
        sw.setRequestMethod(POSTDIRECTLY)   # a form-encoded update is refused (any web page can send one)
        sw.setQuery(PREFIXES + 'INSERT DATA { <https://example.org/m> a mlkg:Method ; rdfs:label "Zeta" ; mlkg:extends <https://example.org/n> }')
        sw.query()
        assert client(ep.url + "/query", PREFIXES + 'ASK { ?m rdfs:label "Zeta" ; mlkg:extends ?x }')["boolean"] is True
    assert corpus_build[1].joinpath("graph.ttl").read_text("utf-8").count("Zeta") == 0


def test_serve_command_starts_and_stops(corpus_build, tmp_path):
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "pipeline", "serve", "--graph", str(corpus_build[1] / "graph.ttl"),
                             "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    printed = ""
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                res = client(f"http://127.0.0.1:{port}/query", "ASK { ?s ?p ?o }")
                break
            except Exception:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        assert res["boolean"] is True
        for line in proc.stdout:  # it answers before it prints its addresses: stop it once they are out
            printed += line
            if line.startswith("limits"):
                break
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=30)
    out = printed + out
    assert f"http://127.0.0.1:{port}/query" in out and "(read-only)" in out
    assert not [ln for ln in subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout.splitlines()
                if "oxigraph serve" in ln and f":{port}" in ln]


def test_serve_missing_graph_is_a_clear_error(tmp_path):
    with pytest.raises(MlkgError, match="no graph there"):
        Endpoint(tmp_path / "none.ttl", port=0).start()


@pytest.fixture()
def oxigraph_store():
    """A plain read-write Oxigraph server (in memory), as a user's own store would be."""
    port = free_port()
    proc = subprocess.Popen([oxigraph_binary(), "serve", "--bind", f"127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                client(f"http://127.0.0.1:{port}/query", "ASK {}")
                break
            except Exception:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_push_to_the_default_graph_and_read_it_back(oxigraph_store, corpus_build, corpus_graph):
    n = push(corpus_build[1] / "graph.ttl", oxigraph_store + "/store")
    assert n == len(corpus_graph) > 1000
    back = Graph().parse(data=client(oxigraph_store + "/query", "CONSTRUCT WHERE { ?s ?p ?o }", fmt=TURTLE), format="turtle")
    assert len(back) == len(corpus_graph) and values(back) == values(corpus_graph)
    push(corpus_build[1] / "graph.ttl", oxigraph_store + "/store")            # PUT replaces: no duplicates, same count
    count = client(oxigraph_store + "/query", "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
    assert int(count["results"]["bindings"][0]["n"]["value"]) == len(corpus_graph)


def test_push_to_a_named_graph(oxigraph_store, corpus_build, corpus_graph, tmp_path):
    iri = "https://example.org/graphs/mlkg"
    out = subprocess.run([sys.executable, "-m", "pipeline", "push", "--endpoint", oxigraph_store + "/store",
                          "--graph", str(corpus_build[1] / "graph.ttl"), "--graph-iri", iri],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert f"put {len(corpus_graph)} triples" in out.stdout
    named = client(oxigraph_store + "/query", f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{iri}> {{ ?s ?p ?o }} }}")
    default = client(oxigraph_store + "/query", "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
    assert int(named["results"]["bindings"][0]["n"]["value"]) == len(corpus_graph)
    assert int(default["results"]["bindings"][0]["n"]["value"]) == 0
    # --append adds a second graph's triples to the same named graph
    extra = tmp_path / "extra.ttl"
    extra.write_text("<https://example.org/a> <https://example.org/b> <https://example.org/c> .\n", "utf-8")
    push(extra, oxigraph_store + "/store", iri, replace=False)
    named = client(oxigraph_store + "/query", f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{iri}> {{ ?s ?p ?o }} }}")
    assert int(named["results"]["bindings"][0]["n"]["value"]) == len(corpus_graph) + 1


def test_push_errors_are_clear(tmp_path):
    with pytest.raises(InputError, match="no graph there"):
        push(tmp_path / "none.ttl", "http://127.0.0.1:1/store")
    bad = tmp_path / "bad.ttl"
    bad.write_text("not turtle", "utf-8")
    with pytest.raises(InputError, match="not a valid Turtle"):
        push(bad, "http://127.0.0.1:1/store")
    good = tmp_path / "good.ttl"
    good.write_text("<https://example.org/a> <https://example.org/b> <https://example.org/c> .\n", "utf-8")
    with pytest.raises(InputError, match="http"):
        push(good, "ftp://127.0.0.1/store")
    with pytest.raises(MlkgError, match="cannot reach"):
        push(good, f"http://127.0.0.1:{free_port()}/store")


def test_cli_json_output_is_what_a_sparql_endpoint_returns(endpoint, corpus_build):
    import json

    from pipeline.query import format_result, list_queries, load_query, query_parameters, run_query

    checked = 0
    for name in list_queries():
        text = load_query(name)
        if query_parameters(text):
            continue  # the endpoint has no parameter binding
        ours = json.loads(format_result(run_query(text, corpus_build[1] / "graph.ttl"), "json"))
        theirs = client(endpoint.url + "/query", text)
        assert ours["head"]["vars"] == theirs["head"]["vars"], name
        assert ours["results"]["bindings"] == theirs["results"]["bindings"], name
        checked += 1
    assert checked >= 5


class _GuardedStore(LocalServer):
    """A local Graph Store that demands one Authorization value (basic or bearer) and keeps what it is sent."""

    def __init__(self, expected: str):
        self.bodies = []

        def answer(method, path, headers, body):
            if headers.get("Authorization") != expected:
                return 401, {"WWW-Authenticate": 'Basic realm="kg"'}, b""
            self.bodies.append(body)
            return 204, {}, b""

        super().__init__(answer, "/ds/data")


PASSWORD, TOKEN = "s3cret w0rd:é", "tok-3f9a7c1e"


def _push_cli(url, graph, env_extra, *args):
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("MLKG_PUSH_")} | env_extra
    return subprocess.run([sys.executable, "-m", "pipeline", "push", "--endpoint", url, "--graph", str(graph), *args],
                          capture_output=True, text=True, timeout=120, env=env)


def test_push_with_basic_authentication(corpus_build, corpus_graph):
    import base64

    from pipeline.push import Credentials

    graph = corpus_build[1] / "graph.ttl"
    expected = "Basic " + base64.b64encode(f"kg:{PASSWORD}".encode()).decode()
    with _GuardedStore(expected) as store:
        assert push(graph, store.url, auth=Credentials("kg", PASSWORD)) == len(corpus_graph)
        assert len(Graph().parse(data=store.bodies[-1], format="turtle")) == len(corpus_graph)
        ok = _push_cli(store.url, graph, {"MLKG_PUSH_USER": "kg", "MLKG_PUSH_PASSWORD": PASSWORD})
        assert ok.returncode == 0 and f"put {len(corpus_graph)} triples to {store.url}?default" in ok.stdout
        assert len(store.bodies) == 2
        without = _push_cli(store.url, graph, {})
        wrong = _push_cli(store.url, graph, {"MLKG_PUSH_USER": "kg", "MLKG_PUSH_PASSWORD": PASSWORD + "x"})
        in_url = _push_cli(store.url.replace("//", f"//kg:{urllib.parse.quote(PASSWORD, safe='')}@"), graph, {})
        half = _push_cli(store.url, graph, {"MLKG_PUSH_USER": "kg"})
    assert without.returncode == 2 and without.stdout == ""
    assert without.stderr.count("\n") == 1 and "HTTP 401" in without.stderr and "MLKG_PUSH_PASSWORD" in without.stderr
    assert wrong.returncode == 2 and "did not accept the basic credentials" in wrong.stderr
    assert in_url.returncode == 0 and "@" not in in_url.stdout
    assert half.returncode == 3 and "needs both a user and a password" in half.stderr
    assert len(store.bodies) == 3
    for run in (ok, without, wrong, in_url, half):
        assert PASSWORD not in run.stdout + run.stderr and urllib.parse.quote(PASSWORD, safe="") not in run.stdout + run.stderr
        assert "Traceback" not in run.stderr


def test_push_with_a_bearer_token(corpus_build, corpus_graph, tmp_path):
    from pipeline.push import Credentials

    graph = corpus_build[1] / "graph.ttl"
    with _GuardedStore(f"Bearer {TOKEN}") as store:
        ok = _push_cli(store.url, graph, {"MLKG_PUSH_TOKEN": TOKEN}, "--graph-iri", "https://example.org/g")
        by_option = _push_cli(store.url, graph, {}, "--token", TOKEN, "--append")
        without = _push_cli(store.url, graph, {})
        both = _push_cli(store.url, graph, {"MLKG_PUSH_TOKEN": TOKEN, "MLKG_PUSH_USER": "kg", "MLKG_PUSH_PASSWORD": "p"})
        with pytest.raises(MlkgError, match="HTTP 401") as err:
            push(graph, store.url, auth=Credentials(token=TOKEN + "x"))
    assert ok.returncode == 0 and by_option.returncode == 0 and "added" in by_option.stdout
    assert len(store.bodies) == 2
    assert without.returncode == 2 and "HTTP 401" in without.stderr
    assert both.returncode == 3 and "not both" in both.stderr
    assert TOKEN not in str(err.value) and "bearer credentials" in str(err.value)
    for run in (ok, by_option, without, both):
        assert TOKEN not in run.stdout + run.stderr
