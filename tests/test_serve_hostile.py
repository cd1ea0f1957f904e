"""`mlkg serve` against what a web page, a careless client or a crash can do to it (issue 19.4, 18.4).

Every server here is a real one on 127.0.0.1 (the front, the Oxigraph child, the listeners), started by the
test and stopped at its end, pass or fail; every wait is bounded.
"""

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

import pytest
from local_http import LocalServer

from pipeline.serve import Endpoint, Limits, free_port

CARTESIAN = "SELECT * { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
COUNT_CARTESIAN = "SELECT (COUNT(*) AS ?n) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
ASK = "ASK { ?s ?p ?o }"


def request(ep_port, method, path, body=None, headers=None, timeout=30):
    """(status, headers, body) of one request on a fresh connection."""
    conn = http.client.HTTPConnection("127.0.0.1", ep_port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read()
    finally:
        conn.close()


def get_query(port, query, **kw):
    return request(port, "GET", "/query?" + urllib.parse.urlencode({"query": query}),
                   headers={"Accept": "application/sparql-results+json"}, **kw)


def raw(port, data: bytes, timeout=10) -> bytes:
    """Send bytes as they are; everything the server sends back until it closes or goes quiet."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        out = b""
        try:
            while chunk := s.recv(65536):
                out += chunk
        except socket.timeout:
            pass
        return out


NO_ROWS = b'{"head":{"vars":["s"]},"results":{"bindings":[]}}'


def listener() -> LocalServer:
    """A local SPARQL endpoint with no rows that records every request reaching it (``.requests``)."""
    return LocalServer(lambda *_: (200, {"Content-Type": "application/sparql-results+json"}, NO_ROWS), "/sparql")


@pytest.fixture(scope="module")
def graph(corpus_build):
    return corpus_build[1] / "graph.ttl"


@pytest.fixture(scope="module")
def ep(graph):
    with Endpoint(graph, port=0) as endpoint:
        yield endpoint


def test_service_never_reaches_a_local_listener(ep, graph):
    with listener() as local:
        service = f"SELECT * {{ SERVICE <{local.url}> {{ ?s ?p ?o }} }}"
        shapes = [
            ("GET", "/query?" + urllib.parse.urlencode({"query": service}), None, {}),
            ("GET", "/sparql?" + urllib.parse.urlencode({"query": service.replace("SERVICE", "service")}), None, {}),
            ("GET", "/query?" + urllib.parse.urlencode({"query": service.replace("SERVICE", r"\u0053ERVICE")}), None, {}),
            ("POST", "/query", urllib.parse.urlencode({"query": service}).encode(),
             {"Content-Type": "application/x-www-form-urlencoded"}),
            ("POST", "/query", service.encode(), {"Content-Type": "application/sparql-query"}),
            ("POST", "/query", service.encode(), {"Content-Type": "text/plain"}),
        ]
        for method, path, body, headers in shapes:
            status, _, text = request(ep.port, method, path, body, headers)
            assert status in (403, 415), (path, status, text)
        time.sleep(0.5)
        assert local.requests == []
        # the same query with the flag does reach it: the refusal above is what kept it out
        with Endpoint(graph, port=0, allow_service=True) as open_ep:
            status, _, text = get_query(open_ep.port, service)
            assert status == 200, text
        assert local.requests


def test_service_refusal_says_why(ep):
    status, _, text = get_query(ep.port, "SELECT * { SERVICE <http://127.0.0.1:9/x> { ?s ?p ?o } }")
    assert status == 403 and b"--allow-service" in text
    # the word in strings, IRIs, variables and comments is no SERVICE call
    status, _, _ = get_query(ep.port, 'SELECT ?service { ?service ?p "SERVICE" } LIMIT 1 # SERVICE <http://x/>')
    assert status == 200


def test_foreign_host_is_refused(ep):
    for host in ("evil.example", f"evil.example:{ep.port}", f"127.0.0.1:{ep.port + 1}", "127.0.0.1"):
        status, _, text = request(ep.port, "GET", "/query?query=ASK%7B%7D", headers={"Host": host})
        assert status == 421, (host, status)
    status, _, _ = request(ep.port, "GET", "/graph", headers={"Host": "rebound.example"})
    assert status == 421
    for host in (f"127.0.0.1:{ep.port}", f"localhost:{ep.port}"):
        assert request(ep.port, "GET", "/query?query=ASK%7B%7D", headers={"Host": host})[0] == 200


def test_with_updates_other_origins_and_forms_are_refused(graph):
    insert = b"INSERT DATA { <https://example.org/a> <https://example.org/b> <https://example.org/c> }"
    probe = "ASK { <https://example.org/a> ?p ?o }"
    with Endpoint(graph, port=0, allow_updates=True) as ep:
        assert len(ep.backend.pids) == 1   # a writable store is held by one process
        sparql = {"Content-Type": "application/sparql-update"}
        refusals = [
            ({**sparql, "Origin": "http://evil.example"}, insert, "/update"),
            ({**sparql, "Origin": "null"}, insert, "/update"),
            ({**sparql, "Sec-Fetch-Site": "cross-site"}, insert, "/update"),
            ({"Content-Type": "application/x-www-form-urlencoded"}, b"update=" + urllib.parse.quote_plus(insert).encode(), "/update"),
            ({"Content-Type": "text/plain"}, insert, "/update"),
            ({"Content-Type": "multipart/form-data; boundary=x"}, b"--x--", "/store?default"),
        ]
        for headers, body, path in refusals:
            status, _, text = request(ep.port, "POST", path, body, headers)
            assert status in (403, 415), (headers, status, text)
        status, _, _ = request(ep.port, "GET", "/query?query=ASK%7B%7D", headers={"Origin": "http://evil.example"})
        assert status == 403
        assert json.loads(get_query(ep.port, probe)[2])["boolean"] is False
        # the endpoint's own page may write
        status, _, _ = request(ep.port, "POST", "/update", insert, {**sparql, "Origin": f"http://127.0.0.1:{ep.port}"})
        assert status in (200, 204)
        assert json.loads(get_query(ep.port, probe)[2])["boolean"] is True


def test_load_is_refused_with_updates_on(graph):
    with listener() as local, Endpoint(graph, port=0, allow_updates=True) as ep:
        status, _, _ = request(ep.port, "POST", "/update", f"LOAD <{local.url}>".encode(),
                               {"Content-Type": "application/sparql-update"})
        assert status == 403 and local.requests == []


def test_content_length_is_validated(ep):
    head = f"POST /query HTTP/1.1\r\nHost: 127.0.0.1:{ep.port}\r\nContent-Type: application/sparql-query\r\n"
    for value in ("abc", "-1", "+5", "1e3", " 0x10"):
        answer = raw(ep.port, (head + f"Content-Length: {value}\r\n\r\nASK{{}}").encode())
        assert answer.startswith(b"HTTP/1.1 400"), (value, answer[:100])
    answer = raw(ep.port, (head + f"Content-Length: {10**12}\r\n\r\n").encode())
    assert answer.startswith(b"HTTP/1.1 413")
    answer = raw(ep.port, (head + "Transfer-Encoding: chunked\r\n\r\n5\r\nASK{}\r\n0\r\n\r\n").encode())
    assert answer.startswith(b"HTTP/1.1 411")
    assert get_query(ep.port, ASK)[0] == 200


def test_silent_connections_are_closed(graph):
    with Endpoint(graph, port=0, limits=Limits(idle_timeout=1)) as ep:
        t0 = time.monotonic()
        answer = raw(ep.port, f"POST /query HTTP/1.1\r\nHost: 127.0.0.1:{ep.port}\r\nContent-Length: 100\r\n\r\nASK".encode())
        assert answer == b"" and time.monotonic() - t0 < 5
        assert get_query(ep.port, ASK)[0] == 200


def test_answers_are_streamed(ep):
    status, headers, body = request(ep.port, "GET", "/query?" + urllib.parse.urlencode(
        {"query": "CONSTRUCT WHERE { ?s ?p ?o }"}), headers={"Accept": "application/n-triples"})
    assert status == 200 and headers.get("Transfer-Encoding") == "chunked" and body.count(b"\n") > 1000
    status, headers, body = get_query(ep.port, ASK)   # a small answer is sent whole, with its length
    assert status == 200 and headers.get("Content-Length") == str(len(body)) and "Transfer-Encoding" not in headers


def test_a_long_query_leaves_its_place_to_quick_ones(graph):
    with Endpoint(graph, port=0, limits=Limits(timeout=3, parallel=1)) as ep:
        worker = threading.Thread(target=lambda: get_query(ep.port, COUNT_CARTESIAN, timeout=20))
        worker.start()
        time.sleep(0.7)   # past LONG_RUNNING: the one place for a running query is free again
        t0 = time.monotonic()
        status, _, body = get_query(ep.port, ASK)
        assert status == 200 and time.monotonic() - t0 < 1
        worker.join(timeout=20)


def test_deadline_stops_the_cartesian_query_and_others_are_answered(graph):
    with Endpoint(graph, port=0, limits=Limits(timeout=2)) as ep:
        for query in (COUNT_CARTESIAN, CARTESIAN):   # one computes silently, one streams rows
            old_pids, results = set(ep.backend.pids), {}

            def slow():
                t0 = time.monotonic()
                try:
                    results["status"] = get_query(ep.port, query, timeout=20)[0]
                except (http.client.HTTPException, OSError) as exc:   # cut in the middle of the rows
                    results["status"] = type(exc).__name__
                results["took"] = time.monotonic() - t0

            worker = threading.Thread(target=slow)
            worker.start()
            time.sleep(0.5)
            t0 = time.monotonic()
            status, _, body = get_query(ep.port, ASK)
            assert status == 200 and json.loads(body)["boolean"] is True and time.monotonic() - t0 < 1
            worker.join(timeout=20)
            assert not worker.is_alive()
            assert results["status"] in (503, "IncompleteRead", "RemoteDisconnected"), results
            assert 1.9 < results["took"] < 6, results
            # the work really stopped: the process that ran it is gone, and it alone
            pids = _until(lambda: ep.backend.pids if len(ep.backend.pids) == 3 else None)
            gone = old_pids - set(pids)
            assert len(gone) == 1 and not _running(gone.pop())
            t0 = time.monotonic()
            assert get_query(ep.port, ASK)[0] == 200 and time.monotonic() - t0 < 1


def test_requests_beyond_the_cap_get_503(graph):
    with Endpoint(graph, port=0, limits=Limits(timeout=3, max_queries=1, queue_wait=0.2)) as ep:
        worker = threading.Thread(target=lambda: get_query(ep.port, COUNT_CARTESIAN, timeout=20))
        worker.start()
        time.sleep(0.5)
        status, headers, text = get_query(ep.port, ASK)
        assert status == 503 and b"--max-queries" in text and headers.get("Retry-After") == "1"
        worker.join(timeout=20)
        assert get_query(ep.port, ASK)[0] == 200


def test_a_runaway_query_stops_at_its_deadline_and_restarts_only_its_own_process(graph, tmp_path):
    """Against a running `mlkg serve --timeout 4`: the four-way cartesian query is stopped at its deadline by
    restarting the one Oxigraph process that runs it; another client's ASKs answer in under a second all along,
    and a query in flight elsewhere when the runaway is stopped runs to its end."""
    proc, port = _start_serve(graph, tmp_path, "--timeout", "4")
    try:
        before = set(_children(proc.pid))
        assert len(before) == 3
        n = int(json.loads(get_query(port, "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }")[2])
                ["results"]["bindings"][0]["n"]["value"])
        results, asks, t0 = {}, [], time.monotonic()

        def timed(name, query, at):
            time.sleep(max(0.0, t0 + at - time.monotonic()))
            start = time.monotonic()
            try:
                status, _, body = get_query(port, query, timeout=30)
            except (http.client.HTTPException, OSError) as exc:
                status, body = type(exc).__name__, b""
            results[name] = (status, body, time.monotonic() - start)

        def ask_all_along():
            while time.monotonic() < t0 + 6:
                start = time.monotonic()
                status, _, body = get_query(port, ASK, timeout=30)
                asks.append((status, json.loads(body)["boolean"], time.monotonic() - start))
                time.sleep(0.1)

        threads = [threading.Thread(target=timed, args=("runaway", COUNT_CARTESIAN, 0)),
                   threading.Thread(target=timed, args=("inflight", "SELECT (COUNT(*) AS ?n) { ?a ?b ?c . ?d ?e ?f }", 3.5)),
                   threading.Thread(target=ask_all_along)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert not any(t.is_alive() for t in threads)
        status, body, took = results["runaway"]
        assert status == 503 and b"--timeout" in body and 3.9 < took < 8, results["runaway"]
        status, body, took = results["inflight"]
        assert status == 200 and json.loads(body)["results"]["bindings"][0]["n"]["value"] == str(n * n), status
        assert len(asks) > 20 and all(a[:2] == (200, True) for a in asks)
        assert max(a[2] for a in asks) < 1, sorted(a[2] for a in asks)[-5:]
        after = set(_until(lambda: _three_children(proc.pid)))
        assert len(before - after) == 1 and not _running((before - after).pop())
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def _three_children(pid):
    kids = [k for k in _children(pid) if _running(k)]
    return kids if len(kids) == 3 else None


def _until(probe, timeout=10):
    """The first true value of ``probe()`` within ``timeout`` s, polled every 50 ms; fails the test if none."""
    deadline = time.monotonic() + timeout
    while not (value := probe()):
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.05)
    return value


def _running(pid):
    """Whether ``pid`` is a live process (a zombie is not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _children(pid):
    kids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        kids.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return kids


def _start_serve(graph, tmp, *args):
    port = free_port()
    env = {**os.environ, "TMPDIR": str(tmp)}
    proc = subprocess.Popen([sys.executable, "-m", "pipeline", "serve", "--graph", str(graph), "--port", str(port), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 60
    while True:
        try:
            if get_query(port, ASK, timeout=5)[0] == 200:
                return proc, port
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"mlkg serve did not start: {proc.communicate()}")
        time.sleep(0.2)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux only")
def test_kill_9_of_the_front_leaves_no_oxigraph_and_the_store_is_cleaned_next_time(graph, tmp_path):
    proc, port = _start_serve(graph, tmp_path)
    try:
        kids = _children(proc.pid)
        assert kids and len(list(tmp_path.glob("mlkg-serve-*"))) == 1
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
    deadline = time.monotonic() + 10
    while any(_running(k) for k in kids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_running(k) for k in kids)
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    stale = list(tmp_path.glob("mlkg-serve-*"))
    assert len(stale) == 1   # left by the kill; the next start removes it
    with Endpoint(graph, port=0, workdir=tmp_path):
        now = list(tmp_path.glob("mlkg-serve-*"))
        assert stale[0] not in now and len(now) == 1
    assert list(tmp_path.glob("mlkg-serve-*")) == []


def test_early_disconnects_are_quiet(graph, tmp_path):
    proc, port = _start_serve(graph, tmp_path, "--timeout", "2")
    try:
        for _ in range(5):   # big answers abandoned after the first bytes
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                q = urllib.parse.urlencode({"query": "CONSTRUCT WHERE { ?s ?p ?o }"})
                s.sendall(f"GET /query?{q} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: application/n-triples\r\n\r\n".encode())
                s.recv(100)
        for _ in range(3):   # requests cut inside the body, or inside the headers
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                s.sendall(f"POST /query HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 50\r\n\r\nASK".encode())
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                s.sendall(b"GET /query HTTP/1.1\r\nHo")
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:   # a query stopped at the deadline
            q = urllib.parse.urlencode({"query": CARTESIAN})
            s.sendall(f"GET /query?{q} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            s.recv(100)
        time.sleep(3)
        assert get_query(port, ASK)[0] == 200
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=30)
    assert "Traceback" not in err and err.strip() == "", err
    assert f"http://127.0.0.1:{port}/query" in out and f"http://127.0.0.1:{port}/graph" in out
