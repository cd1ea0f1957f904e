"""graph.html driven in headless Chromium: offline, counts, search, edge evidence, hostile text, layout.

Every request to a URL that is not ``file:`` is aborted and recorded. Without a Chromium these tests skip
locally with a message saying how to enable them, and fail under CI (CI=true).
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from rdflib import Graph
from rdflib.namespace import RDF

from browser import ENABLE_HINT, find_chromium, launch, new_page, synthetic_graph, wait_until_still
from data import ROOT
from pipeline.render import LAYOUT_THRESHOLD, SUMMARY_SIZE, fold, render_html
from pipeline.vocab import ENTITY_CLASSES, MLKG, RELATIONS

pytestmark = pytest.mark.browser

SCREENSHOT = ROOT / "docs" / "graph.png"


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium for the whole session."""
    exe = find_chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    if exe is None or sync_playwright is None:
        missing = "Playwright for Python" if sync_playwright is None else "a Chromium binary"
        message = f"browser tests need {missing}: {ENABLE_HINT}"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message + " (CI=true: not skipping)")
        pytest.skip(message)
    with sync_playwright() as p:
        browser = launch(p, exe)
        yield browser
        browser.close()


@pytest.fixture()
def open_page(chromium):
    """open_page(path, **kw) -> (page, log) after the graph is still; contexts closed at the end."""
    contexts = []

    def _open(path: Path, **kw):
        ctx, page, log = new_page(chromium, **kw)
        contexts.append(ctx)
        page.goto(Path(path).resolve().as_uri())
        wait_until_still(page)
        return page, log

    yield _open
    for ctx in contexts:
        ctx.close()


def _values(items) -> str:
    return " ".join(f"<{i}>" for i in items)


def _sparql_counts(g: Graph) -> tuple[int, int]:
    q_nodes = f"SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE {{ VALUES ?c {{ {_values(ENTITY_CLASSES)} }} ?s a ?c }}"
    q_edges = f"SELECT (COUNT(*) AS ?n) WHERE {{ VALUES ?p {{ {_values(RELATIONS)} }} ?s ?p ?o }}"
    return int(next(iter(g.query(q_nodes)))[0]), int(next(iter(g.query(q_edges)))[0])


def _drawn_counts(page) -> dict:
    return page.evaluate("""() => ({
        dataNodes: mlkgData.nodes.length, dataEdges: mlkgData.edges.length,
        drawnNodes: mlkgNetwork.body.nodeIndices.length, drawnEdges: mlkgNetwork.body.edgeIndices.length })""")


def _positions(page) -> dict:
    return page.evaluate("() => mlkgNetwork.getPositions()")


def _info(page) -> str:
    return page.evaluate("() => document.getElementById('info').textContent")


@pytest.fixture()
def corpus_page(open_page, corpus_build):
    return open_page(corpus_build[1] / "graph.html")


def test_blocked_requests_are_recorded(open_page, tmp_path):
    """The guard the other tests rely on: a page asking for another host is seen and refused."""
    page_file = tmp_path / "net.html"
    page_file.write_text('<!DOCTYPE html><img src="http://example.invalid/x.png">'
                         '<script>window.mlkgStillAt = 1;</script>', "utf-8")
    page, log = open_page(page_file)
    page.wait_for_timeout(200)
    assert log.blocked == ["http://example.invalid/x.png"]


def test_corpus_page_loads_offline_without_console_errors(corpus_page):
    page, log = corpus_page
    assert log.console_errors == []
    assert log.blocked == []
    assert log.dialogs == []
    assert page.evaluate("() => document.body.dataset.stable") == "1"


def _linked(g: Graph, cls=None) -> set:
    """Entities (of ``cls``) with at least one relation: the ones drawn by default."""
    ents = set(g.subjects(RDF.type, cls)) if cls else {s for c in ENTITY_CLASSES for s in g.subjects(RDF.type, c)}
    ends = {x for p in RELATIONS for so in g.subject_objects(p) for x in so}
    return ents & ends


def test_drawn_nodes_and_edges_equal_entities_and_relations(corpus_page, corpus_graph):
    """The bundled graph is under the summary size: every linked entity and every relation is drawn; the
    isolated ones appear when the minimum number of relations is 0."""
    page, _ = corpus_page
    n_entities, n_relations = _sparql_counts(corpus_graph)
    assert n_entities > 50 and n_relations > 50
    assert page.evaluate("() => [mlkgData.all.length, mlkgData.allEdges.length]") == [n_entities, n_relations]
    assert _drawn_counts(page) == {"dataNodes": len(_linked(corpus_graph)), "dataEdges": n_relations,
                                   "drawnNodes": len(_linked(corpus_graph)), "drawnEdges": n_relations}
    page.fill("#min-degree", "0")
    page.dispatch_event("#min-degree", "change")
    assert _drawn_counts(page)["drawnNodes"] == n_entities


def test_class_filter_hides_and_shows_nodes(corpus_page, corpus_graph):
    page, _ = corpus_page
    n_linked, venues = len(_linked(corpus_graph)), len(_linked(corpus_graph, MLKG.Venue))
    assert venues > 3
    page.uncheck('input[data-filter="Venue"]')
    assert _drawn_counts(page)["drawnNodes"] == n_linked - venues
    page.check('input[data-filter="Venue"]')
    assert _drawn_counts(page)["drawnNodes"] == n_linked


def test_panel_clears_when_its_node_is_hidden(corpus_page):
    page, _ = corpus_page
    _search(page, "ICLR 2025")
    assert page.evaluate("() => document.querySelector('#info h2').textContent") == "ICLR 2025"
    page.uncheck('input[data-filter="Venue"]')
    assert "ICLR 2025" not in _info(page)
    assert "Click a node" in _info(page)


def test_layout_settles_and_stops_moving(corpus_page):
    page, _ = corpus_page
    before = _positions(page)
    page.wait_for_timeout(700)
    assert _positions(page) == before
    assert page.evaluate("() => mlkgNetwork.physics.physicsEnabled") is False


def _in_view(page, node_id: int) -> dict:
    return page.evaluate("""(id) => {
        const p = mlkgNetwork.getPositions([id])[id], d = mlkgNetwork.canvasToDOM(p);
        const r = document.getElementById('graph').getBoundingClientRect();
        return {dx: Math.abs(d.x - r.width / 2), dy: Math.abs(d.y - r.height / 2), w: r.width, h: r.height};
    }""", node_id)


def _search(page, text: str) -> list:
    page.fill("#search", text)
    page.press("#search", "Enter")
    return page.evaluate("() => mlkgNetwork.getSelectedNodes()")


def test_search_focuses_iclr_2025(corpus_page):
    page, _ = corpus_page
    page.evaluate("() => mlkgNetwork.moveTo({position: {x: 5000, y: 5000}, scale: 0.3})")
    selected = _search(page, "ICLR 2025")
    assert len(selected) == 1
    assert page.evaluate("(id) => mlkgData.nodes.get(id).fullLabel", selected[0]) == "ICLR 2025"
    assert page.evaluate("() => document.querySelector('#info h2').textContent") == "ICLR 2025"
    deadline = time.monotonic() + 5
    while (v := _in_view(page, selected[0]))["dx"] > 5 or v["dy"] > 5:
        assert time.monotonic() < deadline, f"ICLR 2025 not brought to the centre of the view: {v}"
        page.wait_for_timeout(50)


def test_search_finds_a_node_by_another_name(corpus_page, corpus_graph):
    page, _ = corpus_page
    from rdflib.namespace import RDFS, SKOS

    names: dict[str, set] = {}
    for s, p, o in corpus_graph.triples((None, None, None)):
        if p in (RDFS.label, SKOS.altLabel) and (s, RDF.type, MLKG.Document) not in corpus_graph:
            names.setdefault(fold(str(o)), set()).add(s)
    s, alt = next((s, str(o)) for s, o in sorted(corpus_graph.subject_objects(SKOS.altLabel))
                  if len(names[fold(str(o))]) == 1 and fold(str(o)) != fold(str(corpus_graph.value(s, RDFS.label))))
    selected = _search(page, alt)
    assert page.evaluate("(id) => mlkgData.nodes.get(id).iri", selected[0]) == str(s)
    assert _search(page, "no such name anywhere qqq") == selected  # nothing found: selection kept, status says so
    assert "No node is called" in page.evaluate("() => document.getElementById('status').textContent")


CLICKABLE_EDGE_JS = """() => {
    // the first edge whose midpoint, once centred in view, picks that edge and no node
    const net = mlkgNetwork, r = document.getElementById('graph').getBoundingClientRect();
    for (const id of net.body.edgeIndices) {
        const e = net.body.edges[id];
        const mid = e.edgeType.getPoint(0.5);
        net.moveTo({position: mid, scale: 1.5, animation: false});
        const d = net.canvasToDOM(mid);
        if (net.getNodeAt(d) === undefined && net.getEdgeAt(d) === id) {
            return {id: id, x: r.left + d.x, y: r.top + d.y};
        }
    }
    return null;
}"""


def test_clicking_an_edge_shows_its_evidence(corpus_page, corpus_graph):
    page, _ = corpus_page
    target = page.evaluate(CLICKABLE_EDGE_JS)
    assert target is not None
    page.wait_for_timeout(100)
    page.mouse.click(target["x"], target["y"])
    edge = page.evaluate("""(id) => { const e = mlkgData.edges.get(id);
        return {s: mlkgData.nodes.get(e.from).iri, p: e.label, o: mlkgData.nodes.get(e.to).iri}; }""", target["id"])
    from rdflib import URIRef

    s, p, o = URIRef(edge["s"]), MLKG[edge["p"]], URIRef(edge["o"])
    assert (s, p, o) in corpus_graph
    sentences = [str(corpus_graph.value(ev, MLKG.sentence)) for ev in corpus_graph.subjects(RDF.subject, s)
                 if corpus_graph.value(ev, RDF.predicate) == p and corpus_graph.value(ev, RDF.object) == o]
    assert sentences
    panel = _info(page)
    for sentence in sentences:
        assert sentence in panel
    assert page.evaluate("() => mlkgNetwork.getSelectedEdges()") == [target["id"]]


HOSTILE_DOC = """# Our papers at ICLR 2025

We present Href Attributes Considered Harmful: A Study of <img src=x onerror=alert(1)> at ICLR 2025.

QuillNet, a new method </script><script>window.mlkgPwned=1;alert(1)</script>, outperforms ResNet on ImageNet.

We will demo QuillNet <img src=x onerror="window.mlkgPwned=2"> on the iPhone 16 Pro at ICLR 2025.
"""
HOSTILE_NAME = "<img src=x onerror=alert(3)> href.txt"  # .txt: read as it is (a .md would drop its inline HTML as markup)


def test_hostile_document_shows_text_and_runs_nothing(open_page, tmp_path):
    from pipeline import BuildConfig, build

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / HOSTILE_NAME).write_text(HOSTILE_DOC, "utf-8")
    out = tmp_path / "out"
    report = build(BuildConfig(inputs=(docs,), out_dir=out))
    assert report.documents_read == 1 and not report.skipped
    g = Graph().parse(str(out / "graph.ttl"), format="turtle")
    hostile = sorted({str(o) for o in g.objects(None, MLKG.sentence) if "<" in str(o)})
    assert any("onerror=alert(1)" in h for h in hostile) and any("</script><script>" in h for h in hostile)
    assert any("href" in str(o).lower() for o in g.objects(None, MLKG.sentence))
    # the page's Content-Security-Policy is switched off: the escaping alone must keep the page safe
    page, log = open_page(out / "graph.html", bypass_csp=True)
    labels = page.evaluate("() => mlkgData.all.map(n => n.fullLabel)")
    shown = []
    for label in labels:
        _search(page, label)
        shown.append(_info(page))
    shown = "\n".join(shown)
    for text in hostile + [HOSTILE_NAME]:
        assert text in shown
    page.wait_for_timeout(300)
    assert log.dialogs == []
    assert page.evaluate("() => window.mlkgPwned === undefined")
    assert page.evaluate("() => [document.images.length, document.scripts.length]") == [0, 3]
    assert log.console_errors == [] and log.blocked == []


def test_large_graph_uses_python_layout_and_is_still_at_once(open_page, tmp_path):
    n, m = LAYOUT_THRESHOLD + 100, 3 * (LAYOUT_THRESHOLD + 100)
    g = synthetic_graph(n, m)
    path = tmp_path / "large.html"
    path.write_text(render_html(g), "utf-8")
    page, log = open_page(path)
    assert log.console_errors == [] and log.blocked == []
    linked = len(_linked(g))
    assert linked <= SUMMARY_SIZE
    assert _drawn_counts(page) == {"dataNodes": linked, "dataEdges": m, "drawnNodes": linked, "drawnEdges": m}
    before = _positions(page)
    expected = page.evaluate("() => Object.fromEntries(mlkgData.nodes.get().map(n => [n.id, {x: Math.trunc(n.x), y: Math.trunc(n.y)}]))")
    assert before == expected  # the positions computed in Python, unmoved (getPositions truncates)
    page.wait_for_timeout(500)
    assert _positions(page) == before


def test_small_graph_is_laid_out_the_same_at_every_opening(corpus_page, open_page, corpus_build):
    """Under the layout threshold the browser lays the graph out, from seeded starting positions: two openings
    (two contexts) settle on the same positions and the same view, so the README's picture is the one users see."""
    first, _ = corpus_page
    again, _ = open_page(corpus_build[1] / "graph.html")
    assert first.evaluate("() => mlkgData.nodes.length") <= LAYOUT_THRESHOLD
    assert _positions(first) == _positions(again)
    assert first.evaluate("() => mlkgNetwork.getScale()") == again.evaluate("() => mlkgNetwork.getScale()")


def test_screenshot_of_the_corpus_graph(corpus_page, tmp_path):
    """The picture in the README. MLKG_UPDATE_SCREENSHOT=1 writes it to docs/graph.png."""
    page, _ = corpus_page
    inked = page.evaluate("""() => {
        const c = document.querySelector('#graph canvas'), x = c.getContext('2d');
        const d = x.getImageData(0, 0, c.width, c.height).data; let n = 0;
        for (let i = 0; i < d.length; i += 4) { if (d[i + 3] > 0 && (d[i] < 240 || d[i + 1] < 240 || d[i + 2] < 240)) n++; }
        return n / (c.width * c.height);
    }""")
    assert inked > 0.01, f"the canvas is almost blank ({inked:.2%} drawn)"
    shot = tmp_path / "graph.png"
    page.screenshot(path=str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if os.environ.get("MLKG_UPDATE_SCREENSHOT"):
        SCREENSHOT.parent.mkdir(exist_ok=True)
        shutil.copyfile(shot, SCREENSHOT)


# ---- exploration at size: a graph above the summary size ----

def _big_graph(tmp_path, n=900, m=1400):
    g = synthetic_graph(n, m)
    path = tmp_path / "big.html"
    path.write_text(render_html(g), "utf-8")
    return g, path


def _drawn_ids(page) -> list:
    return page.evaluate("() => mlkgData.nodes.getIds()")


def test_big_graph_opens_on_the_most_connected(open_page, tmp_path):
    _, path = _big_graph(tmp_path)
    page, log = open_page(path)
    assert log.console_errors == [] and log.blocked == []
    degrees = page.evaluate("() => mlkgData.all.map(n => n.degree)")
    drawn = set(_drawn_ids(page))
    assert len(drawn) == SUMMARY_SIZE < len(degrees)
    assert degrees.index(max(degrees)) in drawn
    assert "most connected" in page.evaluate("() => document.getElementById('status').textContent")
    # every relation between two drawn nodes is drawn, and no other
    edges = page.evaluate("() => mlkgData.allEdges.map(e => [e.id, e.from, e.to])")
    assert set(page.evaluate("() => mlkgData.edges.getIds()")) == {i for i, a, b in edges if a in drawn and b in drawn}
    # grown from the top hub through neighbours: one connected piece, as the largest component exceeds the summary
    import networkx as nx

    sizes = page.evaluate("() => JSON.parse(document.getElementById('mlkg-data').textContent).components")
    assert sizes[0] > SUMMARY_SIZE
    assert nx.is_connected(nx.Graph([(a, b) for _, a, b in edges if a in drawn and b in drawn]))
    assert sum(degrees[i] for i in drawn) / len(drawn) > 1.5 * sum(degrees) / len(degrees)  # hubs, not a random sample


def test_search_as_you_type_lists_hits_and_a_hit_brings_its_node(open_page, tmp_path):
    _, path = _big_graph(tmp_path)
    page, _ = open_page(path)
    page.type("#search", "paper 8", delay=20)
    page.wait_for_timeout(300)
    hits = page.evaluate("() => [...document.querySelectorAll('#results button')].map(b => [+b.dataset.id, b.textContent])")
    assert len(hits) > 5 and all(t.startswith("Paper 8") for _, t in hits)
    assert page.evaluate("() => mlkgNetwork.getSelectedNodes()") == []  # typing alone moves nothing
    target = next(i for i, _ in hits if i not in _drawn_ids(page))
    page.click(f'#results button[data-id="{target}"]')
    assert target in _drawn_ids(page)
    assert page.evaluate("() => mlkgNetwork.getSelectedNodes()") == [target]
    label = page.evaluate("(id) => mlkgData.all[id].fullLabel", target)
    assert page.evaluate("() => document.querySelector('#info h2').textContent") == label


def test_expand_shows_the_neighbours_and_click_highlights_them(open_page, tmp_path):
    _, path = _big_graph(tmp_path)
    page, _ = open_page(path)
    nid = page.evaluate("""() => { const d = new Set(mlkgData.nodes.getIds());
        return mlkgData.all.find(n => d.has(n.id) && n.degree >= 3 &&
            mlkgData.allEdges.some(e => (e.from === n.id && !d.has(e.to)) || (e.to === n.id && !d.has(e.from)))).id; }""")
    neighbours = set(page.evaluate("""(id) => mlkgData.allEdges.filter(e => e.from === id || e.to === id)
        .map(e => e.from === id ? e.to : e.from)""", nid))
    page.evaluate("(id) => mlkgData.focusNode(id)", nid)
    page.click("#expand")
    drawn = set(_drawn_ids(page))
    assert neighbours <= drawn
    assert set(page.evaluate("() => mlkgData.highlighted()")) == (neighbours | {nid}) & drawn
    # a node outside the neighbourhood is veiled: its pixels are paler than without the highlight
    far = next(i for i in drawn if i not in neighbours and i != nid)
    page.evaluate("(id) => mlkgNetwork.focus(id, {scale: 1.5, animation: false})", far)
    veiled = _pixel_darkness(page, far)
    page.evaluate("() => mlkgData.setFocus(null)")
    assert _pixel_darkness(page, far) > veiled + 50
    page.evaluate("(id) => mlkgData.setFocus(id)", nid)
    # a click on empty canvas ends the highlight
    page.evaluate("() => mlkgNetwork.moveTo({position: {x: 1e6, y: 1e6}, animation: false})")
    box = page.evaluate("() => { const r = document.getElementById('graph').getBoundingClientRect(); return [r.left + 20, r.top + 20]; }")
    page.mouse.click(*box)
    assert page.evaluate("() => mlkgData.highlighted()") == []


def _pixel_darkness(page, node_id: int) -> int:
    """765 minus the sum of R, G and B at a node's centre on the canvas, after a redraw."""
    return page.evaluate("""async (id) => {
        const net = mlkgNetwork;
        await new Promise(r => { net.once('afterDrawing', r); net.redraw(); });
        const c = document.querySelector('#graph canvas'), p = net.canvasToDOM(net.getPositions([id])[id]);
        const k = c.width / c.clientWidth, d = c.getContext('2d').getImageData(Math.round(p.x * k), Math.round(p.y * k), 1, 1).data;
        return 765 - d[0] - d[1] - d[2];
    }""", node_id)


def test_degree_and_component_filters(open_page, tmp_path):
    _, path = _big_graph(tmp_path, n=400, m=300)
    page, _ = open_page(path)
    page.fill("#min-degree", "3")
    page.dispatch_event("#min-degree", "change")
    degrees = page.evaluate("() => mlkgData.all.map(n => n.degree)")
    drawn = _drawn_ids(page)
    assert drawn and min(degrees[i] for i in drawn) >= 3
    page.fill("#min-degree", "0")
    page.dispatch_event("#min-degree", "change")
    page.select_option("#component", "1")
    comps = page.evaluate("() => mlkgData.all.map(n => n.comp)")
    sizes = page.evaluate("() => mlkgData.all.length && JSON.parse(document.getElementById('mlkg-data').textContent).components")
    drawn = _drawn_ids(page)
    assert {comps[i] for i in drawn} == {1} and len(drawn) == sizes[1] > 1


def test_a_click_picks_the_node_aimed_at_among_overlapping_ones(open_page, tmp_path):
    _, path = _big_graph(tmp_path, n=400, m=600)
    page, _ = open_page(path)
    a, b = _drawn_ids(page)[:2]
    # b drawn over a, its centre 6 px (canvas units) to the right of a's
    page.evaluate("""([a, b]) => { const p = mlkgNetwork.getPositions([a])[a];
        mlkgNetwork.moveNode(b, p.x + 6, p.y); mlkgNetwork.moveTo({position: p, scale: 1, animation: false}); }""", [a, b])
    for target, dx in ((a, -2), (b, 8)):
        xy = page.evaluate("""([a, dx]) => { const p = mlkgNetwork.getPositions([a])[a], d = mlkgNetwork.canvasToDOM({x: p.x + dx, y: p.y});
            const r = document.getElementById('graph').getBoundingClientRect(); return [r.left + d.x, r.top + d.y]; }""", [a, dx])
        page.mouse.click(*xy)
        assert page.evaluate("() => mlkgNetwork.getSelectedNodes()") == [target]
        assert page.evaluate("() => document.querySelector('#info h2').textContent") == page.evaluate(
            "(id) => mlkgData.all[id].fullLabel", target)


FOLD_NAMES = ["Straße Net", "STRASSE-net", "ǅemal Ǉ", "ﬁLM ﬂow", "İstanbul Set", "ΌΣΟΣ σοφός", "Ωmega ὈΔΥΣ", "Ⅻ-Net", "ＡＢＣ Net",
              "ǰ-Transformer", "ŉ Model", "Ꭰ Cherokee", "𐐀 Deseret"]


def test_search_folds_case_as_python_does(open_page, tmp_path):
    from rdflib import Literal
    from rdflib.namespace import RDFS

    from pipeline.vocab import RES

    g = Graph()
    for i, name in enumerate(FOLD_NAMES):
        g.add((RES[f"method/f{i}"], RDF.type, MLKG.Method))
        g.add((RES[f"method/f{i}"], RDFS.label, Literal(name)))
    path = tmp_path / "fold.html"
    path.write_text(render_html(g), "utf-8")
    page, _ = open_page(path)
    assert page.evaluate("(xs) => xs.map(x => mlkgData.fold(x))", FOLD_NAMES) == [fold(x) for x in FOLD_NAMES]
    for query in ("strasse net", "Straße", "STRASSE NET"):
        hits = page.evaluate("(q) => mlkgData.find(q).map(n => n.fullLabel)", query)
        assert hits[:2] == ["STRASSE-net", "Straße Net"] or hits[:2] == ["Straße Net", "STRASSE-net"], (query, hits)
    assert page.evaluate("() => mlkgData.find('fiLM').map(n => n.fullLabel)") == ["ﬁLM ﬂow"]


def test_community_colours_toggle(open_page, tmp_path):
    _, path = _big_graph(tmp_path, n=400, m=600)
    page, _ = open_page(path)
    before = page.evaluate("() => mlkgData.nodes.get().map(v => v.color)")
    page.check("#communities")
    after = page.evaluate("() => mlkgData.nodes.get().map(v => v.color)")
    assert before != after and len(set(after)) > 3
    page.uncheck("#communities")
    assert page.evaluate("() => mlkgData.nodes.get().map(v => v.color)") == before
