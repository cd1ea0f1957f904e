"""How graph.html behaves at size: render time in Python, page size, and in headless Chromium the time from
navigation start until the graph is still (drawn, not moving), then the time of one redraw.

    .venv/bin/python bench/html_bench.py [--sizes 500:1500,5000:15000] [--corpus] [--screenshots DIR]

Graphs are synthetic (tests/browser.py synthetic_graph: typed entities with labels and documents, relations
with an evidence sentence each, a few hubs), rendered with pipeline.render.render_html, opened from a file
with every non-file request blocked. Prints one row per graph. Figures, not assertions: nothing here fails
on a slow machine.
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

REDRAW_JS = """async () => {
    const net = mlkgNetwork, times = [];
    for (let i = 0; i < 5; i++) {
        const t0 = performance.now();
        await new Promise(r => { net.once('afterDrawing', r); net.redraw(); });
        times.push(performance.now() - t0);
    }
    return times;
}"""


def measure(browser, path: Path, shot: Path | None) -> dict:
    ctx, page, log = new_page(browser)
    try:
        page.goto(path.resolve().as_uri())
        still_ms = wait_until_still(page, timeout=600)
        before = page.evaluate("() => mlkgNetwork.getPositions()")
        page.wait_for_timeout(1000)
        moved = page.evaluate("() => mlkgNetwork.getPositions()") != before
        load_ms = page.evaluate("() => performance.getEntriesByType('navigation')[0].loadEventEnd")
        redraw_fit = statistics.median(page.evaluate(REDRAW_JS))
        page.evaluate("() => mlkgNetwork.moveTo({scale: 1, animation: false})")
        redraw_zoomed = statistics.median(page.evaluate(REDRAW_JS))
        # a frame while dragging or zooming: hideEdgesOnDrag/Zoom (set above the layout threshold) skip edges
        page.evaluate("() => { mlkgNetwork.renderer.dragging = true; }")
        redraw_drag = statistics.median(page.evaluate(REDRAW_JS))
        page.evaluate("() => { mlkgNetwork.renderer.dragging = false; }")
        heap = page.evaluate("() => performance.memory ? performance.memory.usedJSHeapSize : 0")
        drawn = page.evaluate("() => [mlkgNetwork.body.nodeIndices.length, mlkgNetwork.body.edgeIndices.length]")
        if shot is not None:
            page.evaluate("() => mlkgNetwork.fit({animation: false})")
            page.screenshot(path=str(shot))
        return {"load_ms": load_ms, "still_ms": still_ms, "moved_after_still": moved, "redraw_fit_ms": redraw_fit,
                "redraw_zoomed_ms": redraw_zoomed, "redraw_drag_ms": redraw_drag, "heap_mb": heap / 2**20, "drawn": drawn,
                "errors": log.console_errors, "blocked": log.blocked}
    finally:
        ctx.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="150:450,500:1500,5000:15000",
                    help="NODES:EDGES pairs, comma separated (default %(default)s)")
    ap.add_argument("--corpus", action="store_true", help="also the committed output/graph.html")
    ap.add_argument("--screenshots", type=Path, help="save a screenshot of each page in this folder")
    args = ap.parse_args(argv)
    exe = find_chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    if exe is None or sync_playwright is None:
        print(f"no Chromium or Playwright: {ENABLE_HINT}", file=sys.stderr)
        return 3
    from pipeline.render import LAYOUT_THRESHOLD, render_html

    if args.screenshots:
        args.screenshots.mkdir(parents=True, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = launch(p, exe)
        pages = []
        if args.corpus:
            pages.append(("bundled corpus", ROOT / "output" / "graph.html", None, None))
        for pair in args.sizes.split(","):
            n, m = (int(x) for x in pair.split(":"))
            t0 = time.perf_counter()
            g = synthetic_graph(n, m)
            t1 = time.perf_counter()
            html = render_html(g)
            t2 = time.perf_counter()
            path = Path(tmp) / f"graph-{n}.html"
            path.write_text(html, "utf-8")
            pages.append((f"{n} nodes, {m} edges", path, t2 - t1, "python" if n > LAYOUT_THRESHOLD else "browser"))
            print(f"# generated {n}/{m} in {t1 - t0:.1f}s, rendered in {t2 - t1:.1f}s", file=sys.stderr)
        print(f"{'graph':<24} {'layout':>7} {'render s':>8} {'MB':>6} {'load ms':>8} {'still ms':>9} "
              f"{'redraw ms: fit/zoomed/dragging':>31} {'heap MB':>8}  notes")
        for name, path, render_s, layout in pages:
            shot = args.screenshots / (path.stem + ".png") if args.screenshots else None
            r = measure(browser, path, shot)
            notes = []
            if r["moved_after_still"]:
                notes.append("MOVED after still")
            if r["errors"]:
                notes.append(f"{len(r['errors'])} console errors")
            if r["blocked"]:
                notes.append(f"{len(r['blocked'])} blocked requests")
            notes.append(f"drew {r['drawn'][0]}/{r['drawn'][1]}")
            print(f"{name:<24} {layout or 'browser':>7} {'' if render_s is None else f'{render_s:.1f}':>8} "
                  f"{path.stat().st_size / 2**20:>6.1f} {r['load_ms']:>8.0f} {r['still_ms']:>9.0f} "
                  f"{r['redraw_fit_ms']:>13.0f} / {r['redraw_zoomed_ms']:>5.0f} / {r['redraw_drag_ms']:<8.0f} {r['heap_mb']:>8.0f}  {'; '.join(notes)}",
                  flush=True)
            rows.append(r)
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
