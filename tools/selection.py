"""The selection protocol: how a change to extraction is judged before it is merged, never on the held-out sets.

Two measures, each with models trained here on the annotated sets (``pipeline.train.annotated_sets``, which
leaves out ``HELD_OUT``), so a change to features, rules or training is seen through a model trained with it:

- **two folds**: the trained ``real-*`` sets (other labs' styles), but the selection sets, split in two by their
  sorted order (even / odd); each half is scored by a model trained on every other set, and the two are pooled;
- **selection**: ``real-ff``, ``real-gg`` and ``real-hh``, each scored by a model trained on every other set, pooled.

A change is kept when the two folds' relation F1 rises by more than the noise (about 0.003) and the selection sets do
not fall beyond theirs. The held-out sets are measured only after a change is kept.

Usage::

    python tools/selection.py OUT.json [--decide '[{}, {"joint_bar": 0.4}]'] [--style-weight 3] [--keep DIR]

prints one line per measure (entity and relation F1, P, R) and writes every set's and the pooled scores, per class
and property, to OUT.json. About 12 minutes on two cores (one parse of every set, five trainings).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from pipeline import train  # noqa: E402

SELECTION = ("real-ff", "real-gg", "real-hh")


def folds(names: list[str]) -> tuple[list[str], list[str]]:
    """The trained real-* sets, but the selection sets, in two halves by sorted order."""
    readable = sorted(n for n in names if n.startswith("real-") and n not in SELECTION)
    return readable[0::2], readable[1::2]


def _score(prepared, left_out: list[str], decides: list[dict], style_weight: float, keep: Path | None) -> list[dict]:
    """Train without ``left_out`` and score each set of it, once per decision setting of ``decides`` with the same
    models (the first setting's graphs kept in ``keep/<set>.ttl`` when given)."""
    models = train.fit_models([d for d in prepared.docs if d.set_name not in left_out], style_weight)
    return [{name: train.score_set([d for d in prepared.docs if d.set_name == name], models, prepared.golds[name],
                                   keep=keep / f"{name}.ttl" if keep and i == 0 else None, **decide)
             for name in left_out}
            for i, decide in enumerate(decides)]


def _line(label: str, pooled: dict) -> str:
    e, r = pooled["entities"]["overall"], pooled["relations"]["overall"]
    return (f"{label:<10} entities {e['f1']:.4f} (P {e['precision']:.3f} R {e['recall']:.3f})  "
            f"relations {r['f1']:.4f} (P {r['precision']:.3f} R {r['recall']:.3f})")


def run(decides: list[dict], style_weight: float, keep: Path | None = None, log=print) -> list[dict]:
    """The two measures for each decision setting of ``decides`` (the same fits for all)."""
    sets = train.annotated_sets()
    prepared = train.prepare(sets, log=None)
    names = [s.name for s in sets]
    t = time.perf_counter()
    groups = {"two_folds": folds(names), "selection": [[n] for n in SELECTION if n in names]}
    out = [{} for _ in decides]
    for key, left_outs in groups.items():
        results = [{} for _ in decides]
        for left_out in left_outs:
            for i, scored in enumerate(_score(prepared, left_out, decides, style_weight, keep)):
                results[i].update(scored)
        for i, r in enumerate(results):
            out[i][key] = {"sets": r, "pooled": train.pool_scores(r)}
    for decide, o in zip(decides, out):
        log(json.dumps(decide, sort_keys=True))
        for key in groups:
            log("  " + _line(key, o[key]["pooled"]))
    log(f"({time.perf_counter() - t:.0f} s of training and scoring)")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="where to write the scores (JSON)")
    ap.add_argument("--decide", default="{}", help="keywords for classify.decide, as JSON (thresholds, bars), or a "
                    "list of such settings, each scored with the same models")
    ap.add_argument("--style-weight", type=float, default=train.STYLE_WEIGHT)
    ap.add_argument("--keep", type=Path, help="a folder to write each scored set's graph to (SET.ttl), to read misses")
    args = ap.parse_args(argv)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    decide = json.loads(args.decide)
    out = run(decide if isinstance(decide, list) else [decide], args.style_weight, args.keep)
    args.out.write_text(json.dumps(out, indent=1, sort_keys=True), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
