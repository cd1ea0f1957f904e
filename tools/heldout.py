"""Score the held-out sets (``pipeline.train.HELD_OUT``) as a user's build would: ``mlkg build SET/docs --no-html
--no-cache`` with the committed weights, each graph scored against the set's gold, then pooled.

Usage::

    python tools/heldout.py OUT_DIR [--sets real-a6,real-b6]

writes ``OUT_DIR/<set>/graph.ttl``, ``OUT_DIR/<set>.json`` (its scores) and ``OUT_DIR/pooled.json``, and prints one
line per set, the pooled figures and the pooled F1 per class and property. A set's first run (before anything is
trained or tuned on it) is this command with ``--sets`` on the commit it was scored on.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from pipeline.evaluate import evaluate, load_gold  # noqa: E402
from pipeline.train import HELD_OUT, format_cross_validation, pool_scores  # noqa: E402


def score(name: str, out: Path) -> dict:
    """Build one set into ``out/name`` and score it."""
    folder = ROOT / "tests" / "data" / name
    target = out / name
    subprocess.run([sys.executable, "-m", "pipeline", "build", str(folder / "docs"), "--out", str(target),
                    "--no-html", "--no-cache"], cwd=ROOT, check=True, capture_output=True)
    scores = evaluate(target / "graph.ttl", load_gold(folder / "gold.json"))
    (out / f"{name}.json").write_text(json.dumps(scores, indent=1, sort_keys=True), "utf-8")
    return scores


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--sets", default="", help="comma-separated set names (default: every held-out set)")
    args = ap.parse_args(argv)
    names = [n for n in args.sets.split(",") if n] or sorted(HELD_OUT)
    args.out.mkdir(parents=True, exist_ok=True)
    results = {}
    for name in names:
        results[name] = score(name, args.out)
        e, r = results[name]["entities"]["overall"], results[name]["relations"]["overall"]
        print(f"{name:<14} entities {e['f1']:.3f}  relations {r['f1']:.3f}", flush=True)
    cv = {"sets": results, "pooled": pool_scores(results)}
    (args.out / "pooled.json").write_text(json.dumps(cv["pooled"], indent=1, sort_keys=True), "utf-8")
    print(format_cross_validation(cv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
