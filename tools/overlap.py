"""Which names of a new annotated set's gold also stand in the held-out sets' gold: the check before a set is trained
on (a set that shares a topic with a held-out set would teach the model that set's names, and the held-out figures
would no longer be held out).

Usage::

    python tools/overlap.py SET

prints, per held-out set, the gold names (labels and aliases of Papers, Methods, Datasets and Hardware; venues and
organisations recur across topics and are left out) that SET's gold shares with it. Generic names (GPU, Transformer,
BERT) recur everywhere; several topic names shared with one held-out set mean the two share a topic.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from pipeline.names import norm  # noqa: E402
from pipeline.train import HELD_OUT  # noqa: E402

_TOPICAL = ("Paper", "Method", "Dataset", "Hardware")


def gold_names(gold: Path) -> dict[str, str]:
    """Each normalised label or alias of the gold's topical entities -> the entity's label."""
    out = {}
    for e in json.loads(gold.read_text(encoding="utf-8"))["entities"]:
        if e["type"] in _TOPICAL:
            for name in (e.get("label"), *e.get("aliases", [])):
                if name:
                    out[norm(name)] = e.get("label") or name
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("set", help="the new set's folder name under tests/data (real-a9)")
    args = ap.parse_args(argv)
    data = ROOT / "tests" / "data"
    mine = gold_names(data / args.set / "gold.json")
    for name in sorted(HELD_OUT - {args.set}):
        theirs = gold_names(data / name / "gold.json")
        common = sorted({mine[k] for k in mine.keys() & theirs.keys()})
        if common:
            print(f"{name}: {len(common)}: {', '.join(common)}")


if __name__ == "__main__":
    main()
