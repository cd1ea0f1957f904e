"""`mlkg serve` in headless Chromium: Oxigraph's SPARQL editor works through the front, and a page on another
origin (a real local web server) can neither write, nor read, nor reach the network through the endpoint.

Every server is on 127.0.0.1, started here and stopped at the end of its test.
"""

import json
import os
import threading
import time
import urllib.parse

import pytest
from browser import ENABLE_HINT, find_chromium, launch
from local_http import LocalServer
from test_serve_hostile import get_query, listener

from pipeline.serve import Endpoint

pytestmark = pytest.mark.browser


def in_chromium(scenario):
    """Run ``scenario(context)`` in a fresh headless Chromium, on a thread of its own.

    Playwright's sync API allows one instance per thread, and the graph-page tests keep theirs open for the
    whole session; so these tests drive their own from another thread and hand back what it raised.
    """
    exe = find_chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    if exe is None or sync_playwright is None:
        message = f"browser tests need {'Playwright for Python' if sync_playwright is None else 'a Chromium binary'}: {ENABLE_HINT}"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message + " (CI=true: not skipping)")
        pytest.skip(message)
    failure = []

    def run():
        try:
            with sync_playwright() as p:
                browser = launch(p, exe)
                try:
                    ctx = browser.new_context()
                    scenario(ctx)
                    ctx.close()
                finally:
                    browser.close()
        except BaseException as exc:  # handed to the test's thread
            failure.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join(timeout=300)
    assert not worker.is_alive(), "the browser scenario did not finish within 300 s"
    if failure:
        raise failure[0]


def test_the_sparql_editor_runs_a_query_through_the_front(corpus_build):
    with Endpoint(corpus_build[1] / "graph.ttl", port=0) as ep:
        in_chromium(lambda context: _run_the_editor(context, ep.url))


def _run_the_editor(context, url):
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url + "/")
    page.wait_for_selector(".CodeMirror", timeout=30_000)
    page.evaluate("""q => document.querySelector('.CodeMirror').CodeMirror.setValue(q)""",
                  'SELECT ?v WHERE { ?v <http://www.w3.org/2000/01/rdf-schema#label> "ICLR 2025" }')
    page.click(".yasqe_queryButton")
    page.wait_for_function("() => document.querySelector('.yasr') && "
                           "document.querySelector('.yasr').innerText.includes('iclr')", timeout=30_000)
    assert errors == []
    page.goto(url + "/graph")
    assert "vis" in page.content().lower()


ATTACK = """<!doctype html><html><body>
<img src="{ep}/query?{service}">
<iframe name="sink"></iframe>
<form id="f" method="POST" action="{ep}/update" target="sink">
  <input type="hidden" name="update" value='{insert}'>
</form>
<script>
  document.getElementById("f").submit();
  fetch("{ep}/update", {{method: "POST", mode: "no-cors", headers: {{"Content-Type": "text/plain"}}, body: '{insert}'}});
  fetch("{ep}/query?query=ASK%7B%7D").then(r => r.text()).then(t => window.readBack = t,
                                                      e => window.readBack = "failed: " + e);
</script></body></html>"""


def attacker_site(html: str) -> LocalServer:
    """Another origin (another port) serving one page."""
    return LocalServer(lambda *_: (200, {"Content-Type": "text/html; charset=utf-8"}, html.encode("utf-8")))


def _visit(context, url):
    page = context.new_page()
    page.goto(url)
    deadline = time.monotonic() + 20
    while page.evaluate("window.readBack === undefined") and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1)   # let the form and the no-cors POST arrive
    assert page.evaluate("window.readBack").startswith("failed")   # no CORS: the answer is not readable


def test_a_page_on_another_origin_cannot_use_the_endpoint(corpus_build):
    probe = "ASK { <https://example.org/a> ?p ?o }"
    insert = "INSERT DATA { <https://example.org/a> <https://example.org/b> <https://example.org/c> }"
    with listener() as local, Endpoint(corpus_build[1] / "graph.ttl", port=0, allow_updates=True) as ep:
        service = urllib.parse.urlencode({"query": f"SELECT * {{ SERVICE <{local.url}> {{ ?s ?p ?o }} }}"})
        with attacker_site(ATTACK.format(ep=ep.url, service=service, insert=insert)) as site:
            in_chromium(lambda context: _visit(context, site.url))
        assert local.requests == []
        assert json.loads(get_query(ep.port, probe)[2])["boolean"] is False
