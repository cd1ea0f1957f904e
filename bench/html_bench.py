"""How graph.html behaves at size, in headless Chromium: time to interactive, redraw of what is drawn, long
tasks during a scripted zoom and drag, memory, and search and expand times.

    .venv/bin/python bench/html_bench.py [--graph OUT/graph.ttl ...] [--html PAGE.html ...]
                                         [--sizes 500:1500,5000:15000] [--corpus] [--screenshots DIR] [--runs N]

``--graph`` renders a built graph with pipeline.render (timed); ``--html`` opens an existing page as it is
(an older page works too: only ``mlkgNetwork`` and ``mlkgStillAt`` are needed); ``--sizes`` renders synthetic
graphs (tests/browser.py synthetic_graph); ``--corpus`` the committed output/graph.html. Pages are opened from
a file with every non-file request blocked. Prints one row per page. Figures, not assertions: nothing here
fails on a slow machine.

- interactive: navigation start until the page has run its script and drawn its graph once, still;
- redraw: median of 5 redraws of what is drawn, fitted to the window and at 1:1;
- zoom+drag: 12 wheel steps in and out at the centre, then a 30-step drag of the canvas and one of a node,
  with a longtask PerformanceObserver: how many tasks over 50 ms, and the longest;
- heap: the page's used JS heap after all that.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from browser import ENABLE_HINT, find_chromium, launch, new_page, synthetic_graph, wait_until_still  # noqa: E402

LONGTASKS_INIT = """(() => {
    window.mlkgLongTasks = [];
    try {
        new PerformanceObserver(l => { for (const e of l.getEntries()) window.mlkgLongTasks.push(e.duration); })
            .observe({type: 'longtask', buffered: true});
    } catch (e) {}
})();"""

REDRAW_JS = """async () => {
    const net = mlkgNetwork, times = [];
    for (let i = 0; i < 5; i++) {
        const t0 = performance.now();
        await new Promise(r => { net.once('afterDrawing', r); net.redraw(); });
        times.push(performance.now() - t0);
    }
    return times;
}"""

NODE_ON_SCREEN_JS = """() => {
    const net = mlkgNetwork, r = document.getElementById('graph').getBoundingClientRect();
    const ids = net.body.nodeIndices;
    if (!ids.length) return null;
    const p = net.getPositions([ids[0]])[ids[0]], d = net.canvasToDOM(p);
    return {x: r.left + d.x, y: r.top + d.y};
}"""

EXPLORE_JS = """() => {
    if (!window.mlkgData || !mlkgData.find || !mlkgData.expand) return null;
    let t0 = performance.now();
    const hits = mlkgData.find('a');
    const search = performance.now() - t0;
    const hub = mlkgData.all.reduce((a, b) => (b.degree > a.degree ? b : a), mlkgData.all[0]);
    t0 = performance.now();
    const added = hub ? mlkgData.expand(hub.id) : 0;
    return {search: search, hits: hits.length, expand: performance.now() - t0, added: added};
}"""


def _zoom_and_drag(page) -> list[float]:
    """Scripted interaction; returns the long tasks (ms) it caused."""
    box = page.evaluate("() => { const r = document.getElementById('graph').getBoundingClientRect(); "
                        "return {x: r.left + r.width / 2, y: r.top + r.height / 2}; }")
    page.evaluate("() => { window.mlkgLongTasks = []; }")
    page.mouse.move(box["x"], box["y"])
    for dy in [-120] * 6 + [120] * 6:
        page.mouse.wheel(0, dy)
        page.wait_for_timeout(60)
    page.mouse.down()
    for i in range(30):
        page.mouse.move(box["x"] + 8 * i, box["y"] + 5 * i)
    page.mouse.up()
    node = page.evaluate(NODE_ON_SCREEN_JS)
    if node:
        page.mouse.move(node["x"], node["y"])
        page.mouse.down()
        for i in range(30):
            page.mouse.move(node["x"] + 4 * i, node["y"] - 3 * i)
        page.mouse.up()
    page.wait_for_timeout(500)
    return page.evaluate("() => window.mlkgLongTasks.slice()")


def measure(browser, path: Path, shot: Path | None) -> dict:
    ctx, page, log = new_page(browser)
    try:
        page.add_init_script(LONGTASKS_INIT)
        page.goto(path.resolve().as_uri(), timeout=600_000)
        still_ms = wait_until_still(page, timeout=300)
        load_tasks = page.evaluate("() => window.mlkgLongTasks.slice()")
        if shot is not None:
            page.wait_for_timeout(200)
            page.screenshot(path=str(shot))
        page.wait_for_timeout(500)
        redraw_fit = statistics.median(page.evaluate(REDRAW_JS))
        page.evaluate("() => mlkgNetwork.moveTo({scale: 1, animation: false})")
        redraw_zoomed = statistics.median(page.evaluate(REDRAW_JS))
        page.evaluate("() => mlkgNetwork.fit({animation: false})")
        tasks = _zoom_and_drag(page)
        drawn = page.evaluate("() => [mlkgNetwork.body.nodeIndices.length, mlkgNetwork.body.edgeIndices.length]")
        explore = page.evaluate(EXPLORE_JS)
        heap = page.evaluate("() => performance.memory ? performance.memory.usedJSHeapSize : 0")
        if shot is not None:
            page.evaluate("() => mlkgNetwork.fit({animation: false})")
            page.wait_for_timeout(200)
            page.screenshot(path=str(shot.with_name(shot.stem + "-expanded.png")))
        return {"still_ms": still_ms, "load_tasks": load_tasks, "redraw_fit_ms": redraw_fit,
                "redraw_zoomed_ms": redraw_zoomed, "tasks": tasks, "heap_mb": heap / 2**20, "drawn": drawn,
                "explore": explore, "errors": log.console_errors, "blocked": log.blocked}
    finally:
        ctx.close()


def _pages(args, tmp: Path) -> list[tuple[str, Path, float | None, int | None]]:
    """(name, page, render seconds, entity count) for every page asked for, rendering those that need it."""
    from rdflib import Graph

    from pipeline.render import render_html

    pages = []
    if args.corpus:
        pages.append(("bundled corpus", ROOT / "output" / "graph.html", None, None))
    for html in args.html or []:
        pages.append((html.parent.name + "/" + html.name, html, None, None))
    todo = [(str(p.parent.name), lambda p=p: Graph().parse(str(p), format="turtle")) for p in args.graph or []]
    if args.sizes:
        todo += [(f"synthetic {pair}", lambda pair=pair: synthetic_graph(*(int(x) for x in pair.split(":"))))
                 for pair in args.sizes.split(",")]
    for i, (name, load) in enumerate(todo):
        g = load()
        t0 = time.perf_counter()
        html = render_html(g)
        secs = time.perf_counter() - t0
        path = tmp / f"page{i}.html"
        path.write_text(html, "utf-8")
        pages.append((name, path, secs, None))
        print(f"# {name}: rendered in {secs:.1f}s", file=sys.stderr, flush=True)
    return pages


def _row(name: str, path: Path, render_s: float | None, r: dict) -> str:
    tasks = r["tasks"]
    ex = r["explore"]
    notes = [f"drew {r['drawn'][0]}/{r['drawn'][1]}"]
    if ex:
        notes.append(f"search 'a' {ex['search']:.0f} ms ({ex['hits']} hits), expand top hub {ex['expand']:.0f} ms (+{ex['added']})")
    if r["load_tasks"]:
        notes.append(f"longest task while loading {max(r['load_tasks']):.0f} ms")
    if r["errors"]:
        notes.append(f"{len(r['errors'])} console errors")
    if r["blocked"]:
        notes.append(f"{len(r['blocked'])} blocked requests")
    render = "" if render_s is None else f"{render_s:.1f}"
    return (f"{name:<20} {render:>8} {path.stat().st_size / 2**20:>6.1f} {r['still_ms']:>11.0f} "
            f"{r['redraw_fit_ms']:>7.0f} / {r['redraw_zoomed_ms']:<5.0f} {len(tasks):>6} / {max(tasks, default=0):<6.0f} "
            f"{r['heap_mb']:>7.0f}  {'; '.join(notes)}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--graph", type=Path, action="append", help="a built graph.ttl to render and open (repeatable)")
    ap.add_argument("--html", type=Path, action="append", help="an existing page to open as it is (repeatable)")
    ap.add_argument("--sizes", default="", help="synthetic NODES:EDGES pairs, comma separated (e.g. 5000:15000)")
    ap.add_argument("--corpus", action="store_true", help="also the committed output/graph.html")
    ap.add_argument("--screenshots", type=Path, help="save a screenshot of each page in this folder")
    ap.add_argument("--runs", type=int, default=1, help="open each page this many times, a row each (default 1)")
    args = ap.parse_args(argv)
    exe = find_chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    if exe is None or sync_playwright is None:
        print(f"no Chromium or Playwright: {ENABLE_HINT}", file=sys.stderr)
        return 3
    if args.screenshots:
        args.screenshots.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        pages = _pages(args, Path(tmp))
        browser = launch(p, exe)
        print(f"{'page':<20} {'render s':>8} {'MB':>6} {'interactive':>11} {'redraw ms fit/1:1':>17} "
              f"{'zoom+drag: long tasks / max ms':>30} {'heap MB':>7}  notes")
        for i, (name, path, render_s, _) in enumerate(pages):
            for run in range(args.runs):
                shot = args.screenshots / f"{i}-{path.stem}.png" if args.screenshots and run == 0 else None
                print(_row(name, path, render_s, measure(browser, path, shot)), flush=True)
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
