"""graph.html: self-contained, and document text never becomes markup."""

import re

import pytest
from rdflib import Graph, Literal
from rdflib.namespace import RDF, RDFS

from pipeline.render import render_html
from pipeline.vocab import MLKG, RES

HOSTILE = ['<img src=x onerror=alert(1)>', '</script><script>alert(2)</script>', 'see href="x"']


def test_render_corpus_page_loads_nothing_from_the_network(corpus_build):
    html = (corpus_build[1] / "graph.html").read_text("utf-8")
    assert not re.search(r"""(?:src|href)\s*=\s*["']?https?:""", html)
    assert "vis.Network" in html


@pytest.mark.parametrize("label", HOSTILE)
def test_render_document_text_is_escaped(label):
    g = Graph()
    g.add((RES["method/x"], RDF.type, MLKG.Method))
    g.add((RES["method/x"], RDFS.label, Literal(label)))
    html = render_html(g)
    data = html.split('id="mlkg-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data and ">" not in data
    assert label not in html


def _page_data(html: str) -> dict:
    import json

    return json.loads(html.split('id="mlkg-data">', 1)[1].split("</script>", 1)[0])


def test_search_keys_use_full_case_folding_and_ship_the_table():
    from pipeline.render import fold, fold_table

    assert fold("Straße Net") == fold("STRASSE-NET") == "strassenet"
    assert fold("ΌΣΟΣ") == fold("όσος")
    table = fold_table()
    assert table["ß"] == "ss" and table["ς"] == "σ" and table["ﬁ"] == "fi"
    assert all(k.casefold() == v != k.lower() for k, v in table.items())
    g = Graph()
    g.add((RES["method/s"], RDF.type, MLKG.Method))
    g.add((RES["method/s"], RDFS.label, Literal("Straße Net")))
    data = _page_data(render_html(g))
    assert data["nodes"][0]["names"] == ["strassenet"]
    assert data["fold"]["ß"] == "ss"


def test_render_is_deterministic_with_degrees_components_and_communities():
    import sys
    from collections import Counter
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from browser import synthetic_graph

    g = synthetic_graph(400, 300)
    html = render_html(g)
    assert html == render_html(synthetic_graph(400, 300))
    # the same graph read back from Turtle (other insertion order) gives the same page, as build and view must
    assert html == render_html(Graph().parse(data=g.serialize(format="turtle"), format="turtle"))
    data = _page_data(html)
    nodes, edges = data["nodes"], data["edges"]
    ends = Counter(x for e in edges for x in e[:2])
    assert [n["degree"] for n in nodes] == [ends[i] for i in range(len(nodes))]
    sizes = data["components"]
    assert sizes == sorted(sizes, reverse=True) and sum(sizes) == len(nodes)
    assert Counter(n["comp"] for n in nodes) == dict(enumerate(sizes))
    for e in edges:
        assert nodes[e[0]]["comp"] == nodes[e[1]]["comp"]
    assert {n["comm"] for n in nodes if n["degree"] == 0} == {-1}
    comms = Counter(n["comm"] for n in nodes if n["degree"])
    assert len(comms) == data["communities"] > 1
    assert [comms[i] for i in range(len(comms))] == sorted(comms.values(), reverse=True)


def test_fold_table_is_every_character_whose_folding_differs_from_its_lower_case():
    """The table read a block of code points at a time is the one read character by character."""
    import sys

    from pipeline.render import fold_table

    reference = {}
    for cp in range(sys.maxunicode + 1):
        ch = chr(cp)
        if not 0xD800 <= cp < 0xE000 and ch.casefold() != ch.lower():
            reference[ch] = ch.casefold()
    assert list(fold_table().items()) == list(reference.items())


def test_a_patched_view_and_a_memo_give_the_page_of_the_whole_graph():
    """The page of a changed graph made as a patched rebuild makes it (the last page's view patched with the
    changed subjects' blocks, its components' layouts and communities from the last page's memo) is the page
    rendered from the whole new graph."""
    import random
    import sys
    from pathlib import Path

    from pipeline.render import GraphView, PageMemo
    from pipeline.write import turtle_bytes

    sys.path.insert(0, str(Path(__file__).parent))
    from browser import synthetic_graph

    old = synthetic_graph(400, 300)
    new = Graph()
    new += old
    rng = random.Random(5)
    subjects = sorted(set(old.subjects()))
    for s in rng.sample(subjects, 12):
        new.remove((s, None, None))  # a few subjects gone or with other statements
    for s in rng.sample(subjects, 6):
        new.add((s, RDFS.label, Literal(f"renamed {s[-6:]}")))
    a, b = rng.sample([s for s in subjects if (s, RDF.type, MLKG.Method) in new], 2)
    new.add((a, MLKG.extends, b))
    changed = {s for s, _, _ in set(old) ^ set(new)}
    view, memo = GraphView.of_turtle(turtle_bytes(old)), PageMemo()
    render_html(view, memo)
    assert view.patch(turtle_bytes(t for t in old if t[0] in changed), turtle_bytes(t for t in new if t[0] in changed))
    whole = GraphView.of_turtle(turtle_bytes(new))
    assert {p: {s: sorted(o) for s, o in t.items()} for p, t in view.items()} == \
        {p: {s: sorted(o) for s, o in t.items()} for p, t in whole.items()}
    reused = PageMemo(memo.used())
    assert render_html(view, reused) == render_html(whole) == render_html(new)
    kept = set(memo.used()) & set(reused.used())
    assert any(k[0] == "layout" for k in kept) and len(kept) < len(reused.used()), "some components kept, some new"


def test_the_nodes_encoded_from_the_kept_rows_are_what_json_writes(monkeypatch):
    """The nodes' JSON is written from each entity's fields encoded once (``render._Rows.node_json``) and its
    numbers: the text ``_json_for_script`` gives for the node list, with positions (a large graph) and without,
    and for labels the script must escape."""
    import sys
    from pathlib import Path

    from pipeline import render

    sys.path.insert(0, str(Path(__file__).parent))
    from browser import synthetic_graph

    real, checked = render._nodes_json, []

    def compared(view, order, nodes):
        got = real(view, order, nodes)
        checked.append((got == render._json_for_script(nodes), any("x" in n for n in nodes)))
        return got

    monkeypatch.setattr(render, "_nodes_json", compared)
    small = Graph()
    for i, label in enumerate([*HOSTILE, "Straße Ω\u2028", "-0.0"]):
        small.add((RES[f"method/m{i}"], RDF.type, MLKG.Method))
        small.add((RES[f"method/m{i}"], RDFS.label, Literal(label)))
    small.add((RES["method/m0"], MLKG.extends, RES["method/m1"]))
    render_html(synthetic_graph(400, 300))
    render_html(small)
    assert checked == [(True, True), (True, False)]


def test_a_patched_view_forgets_the_rows_that_hold_a_renamed_documents_label():
    """An entity's node row holds its documents' labels in order: when a patch renames a document, the rows of
    the entities it mentions are made again (the page is that of the whole new graph), the others kept."""
    from pipeline.render import GraphView, PageMemo
    from pipeline.write import turtle_bytes

    def graph(first_label: str) -> Graph:
        g = Graph()
        for d, label in (("a.md", first_label), ("b.md", "b.md")):
            g.add((RES[f"document/{d}"], RDF.type, MLKG.Document))
            g.add((RES[f"document/{d}"], RDFS.label, Literal(label)))
        for m, docs in (("x", ("a.md", "b.md")), ("y", ("b.md",))):
            g.add((RES[f"method/{m}"], RDF.type, MLKG.Method))
            g.add((RES[f"method/{m}"], RDFS.label, Literal(m.upper())))
            for d in docs:
                g.add((RES[f"method/{m}"], MLKG.mentionedIn, RES[f"document/{d}"]))
        return g

    old, new = graph("a.md"), graph("z.md")
    view = GraphView.of_turtle(turtle_bytes(old))
    view.warm()
    kept = view.rows().nodes[str(RES["method/y"])]
    doc = RES["document/a.md"]
    assert view.patch(turtle_bytes(t for t in old if t[0] == doc), turtle_bytes(t for t in new if t[0] == doc))
    assert str(RES["method/x"]) not in view.rows().nodes and view.rows().nodes[str(RES["method/y"])] is kept
    assert render_html(view, PageMemo()) == render_html(new)
    assert _page_data(render_html(new))["docs"] == ["b.md", "z.md"]


@pytest.mark.parametrize("how", ["beside", "no fork", "copy fails", "here"])
def test_the_igraph_work_done_beside_here_or_after_a_failed_copy_gives_the_same_page(how, monkeypatch):
    """The communities and layouts the memo lacks are computed in a forked copy while the evidence records are
    gathered (``executor.Beside``); where no copy can be made (no fork), when the copy fails, or below
    ``BESIDE_NODES``, they are computed in the build's process: the page is the same."""
    import sys
    import threading
    from pathlib import Path

    from pipeline import executor, render
    from pipeline.render import PageMemo

    sys.path.insert(0, str(Path(__file__).parent))
    from browser import synthetic_graph

    g = synthetic_graph(400, 300)
    monkeypatch.setattr(render, "BESIDE_NODES", 10**9)
    inline = PageMemo()
    reference = render_html(g, inline)
    if how == "here":
        assert render_html(g, PageMemo()) == reference
        return
    monkeypatch.setattr(render, "BESIDE_NODES", 0)
    if how == "no fork":
        monkeypatch.setattr(executor, "FORK", False)
    if how == "copy fails":
        import os

        parent, real = os.getpid(), render._igraph_jobs

        def dies_in_the_copy(jobs):
            if os.getpid() != parent:
                os._exit(3)
            return real(jobs)

        monkeypatch.setattr(render, "_igraph_jobs", dies_in_the_copy)
    copies = []

    class Counted(executor.Beside):
        def __init__(self, fn, *args):
            super().__init__(fn, *args)
            copies.append(self.proc is not None)

    monkeypatch.setattr(executor, "Beside", Counted)
    memo = PageMemo()
    assert render_html(g, memo) == reference
    assert copies == [executor.FORK and threading.active_count() == 1]
    assert memo.used() == inline.used()


def test_a_component_laid_out_on_igraphs_grid_is_deterministic_and_spread():
    # above GRID_ABOVE nodes the repulsion is reckoned on igraph's grid, the start positions centred on it
    import numpy as np

    from pipeline.layout import GRID_ABOVE, component_layout

    n = GRID_ABOVE + 200
    edges = [(i, (i * 7 + 3) % n) for i in range(n)] + [(i, i + 1) for i in range(n - 1)]  # one component
    a, b = component_layout(n, edges), component_layout(n, edges)
    assert a.shape == (n, 2) and np.isfinite(a).all() and a.tobytes() == b.tobytes()
    assert np.allclose(a.mean(axis=0), 0) and len({(round(x), round(y)) for x, y in a.tolist()}) > 0.95 * n
