"""Headless Chromium for the browser tests and bench/html_bench.py, and synthetic graphs of a given size.

Chromium is the system's (Debian's ``chromium`` package), driven by Playwright for Python; Playwright's own
browser downloads are never used. Every request to a URL that is not ``file:`` is aborted and recorded.
"""

from __future__ import annotations

import os
import random
import shutil
import time
from pathlib import Path

ENABLE_HINT = (
    "install Debian's Chromium (`apt-get install chromium`, which .ci/run does) and Playwright for Python "
    "(`pip install -e '.[test]'`), or point MLKG_CHROMIUM at a Chromium or Chrome binary"
)


def find_chromium() -> str | None:
    """The Chromium binary to drive: $MLKG_CHROMIUM, else the first of the usual names on PATH."""
    env = os.environ.get("MLKG_CHROMIUM")
    if env:
        return env if Path(env).is_file() else None
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


def launch(playwright, executable: str):
    return playwright.chromium.launch(executable_path=executable, headless=True,
                                      args=["--disable-gpu", "--no-sandbox", "--disable-dev-shm-usage"])


class PageLog:
    """What a page did: console messages, uncaught errors, dialogs, and the requests we blocked."""

    def __init__(self) -> None:
        self.console: list[tuple[str, str]] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.blocked: list[str] = []

    @property
    def console_errors(self) -> list[str]:
        return [text for kind, text in self.console if kind in ("error", "warning", "assert")] + self.errors


def new_page(browser, *, viewport=(1400, 900), bypass_csp: bool = False):
    """A fresh context and page that may load only ``file:`` URLs: (context, page, log)."""
    ctx = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]}, bypass_csp=bypass_csp)
    log = PageLog()

    def route(r):
        url = r.request.url
        if url.startswith(("file:", "data:", "about:", "blob:")):
            r.continue_()
        else:
            log.blocked.append(url)
            r.abort()

    ctx.route("**/*", route)
    page = ctx.new_page()
    page.on("console", lambda m: log.console.append((m.type, m.text)))
    page.on("pageerror", lambda e: log.errors.append(str(e)))

    def on_dialog(d):
        log.dialogs.append(f"{d.type}: {d.message}")
        d.dismiss()

    page.on("dialog", on_dialog)
    return ctx, page, log


def wait_until_still(page, timeout: float = 300.0) -> float:
    """Wait until the page says its graph has stopped moving and been drawn; return that moment in ms after
    navigation start (the page's ``performance.now()``).

    Polled from Python: the page's Content-Security-Policy forbids the string evaluation
    ``page.wait_for_function`` relies on.
    """
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        t = page.evaluate("window.mlkgStillAt === undefined ? null : window.mlkgStillAt")
        if t is not None:
            return float(t)
        time.sleep(0.05)
    raise TimeoutError(f"the graph did not stop moving within {timeout:.0f}s")


def synthetic_graph(n_nodes: int, n_edges: int, seed: int = 7):
    """An rdflib graph shaped like a build's: typed entities with labels, other names and documents, and
    ``n_edges`` distinct relations, each with one evidence record. Deterministic for a seed."""
    from rdflib import Graph, Literal
    from rdflib.namespace import RDF, RDFS, SKOS, XSD

    from pipeline.vocab import ENTITY_CLASSES, MLKG, RELATIONS, RES, local_name

    rng = random.Random(seed)
    g = Graph()
    docs = [RES[f"document/doc{i}.md"] for i in range(max(1, n_nodes // 50))]
    for d in docs:
        g.add((d, RDF.type, MLKG.Document))
        g.add((d, RDFS.label, Literal(str(d).rsplit("/", 1)[1])))
    ents = []
    for i in range(n_nodes):
        cls = ENTITY_CLASSES[i % len(ENTITY_CLASSES)]
        iri = RES[f"{local_name(cls).lower()}/n{i}"]
        ents.append(iri)
        g.add((iri, RDF.type, cls))
        g.add((iri, RDFS.label, Literal(f"{local_name(cls)} {i}")))
        if i % 3 == 0:
            g.add((iri, SKOS.altLabel, Literal(f"N{i}")))
        g.add((iri, MLKG.mentionedIn, rng.choice(docs)))
    seen: set[tuple[int, int, int]] = set()
    # a few hubs, as real graphs have (venues, popular methods): preferential choice of one end
    hubs = rng.sample(range(n_nodes), min(n_nodes, 40))
    while len(seen) < n_edges:
        a = rng.randrange(n_nodes)
        b = rng.choice(hubs) if rng.random() < 0.3 else rng.randrange(n_nodes)
        p = rng.randrange(len(RELATIONS))
        if a == b or (a, p, b) in seen:
            continue
        seen.add((a, p, b))
        s, pred, o = ents[a], RELATIONS[p], ents[b]
        g.add((s, pred, o))
        ev = RES[f"evidence/e{len(seen)}"]
        for t in ((RDF.type, MLKG.Evidence), (RDF.subject, s), (RDF.predicate, pred), (RDF.object, o),
                  (MLKG.source, rng.choice(docs)),
                  (MLKG.sentence, Literal(f"Sentence {len(seen)} says that {a} {local_name(pred)} {b}.")),
                  (MLKG.rule, Literal("synthetic")), (MLKG.confidence, Literal("0.90", datatype=XSD.decimal))):
            g.add((ev, *t))
    return g
