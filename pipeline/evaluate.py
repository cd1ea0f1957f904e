"""Score a built graph against a gold annotation (format of ``tests/data/eval/README.md``, "Gold format")."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from rdflib import Dataset, URIRef
from rdflib.namespace import RDF, RDFS, SKOS

from .names import norm as _norm
from .vocab import ENTITY_CLASSES, MLKG, RELATIONS, local_name

__all__ = ["evaluate", "load_gold", "format_scores"]

CLASSES = [local_name(c) for c in ENTITY_CLASSES]
PROPERTIES = [local_name(p) for p in RELATIONS]


def load_gold(path: Path) -> dict:
    """Read a gold file; a missing or malformed one is an ``InputError`` (exit 3)."""
    from .errors import InputError

    try:
        return json.loads(Path(path).read_text("utf-8"))
    except OSError as exc:
        raise InputError(f"{path}: cannot read the gold file ({exc.strerror or exc})") from exc
    except ValueError as exc:
        raise InputError(f"{path}: not a gold file in JSON ({exc})") from exc


def prf(tp: int, fp: int, fn: int) -> dict:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"tp": tp, "fp": fp, "fn": fn, "precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4)}


def _graph_entities(g: Dataset) -> dict[URIRef, tuple[str, set[str]]]:
    """Every typed entity of the graph: its class and its normalised names (label and alt labels)."""
    ents: dict[URIRef, tuple[str, set[str]]] = {}
    for cls in CLASSES:
        for e in g.subjects(RDF.type, MLKG[cls]):
            if isinstance(e, URIRef) and e not in ents:
                names = {_norm(str(o)) for p in (RDFS.label, SKOS.altLabel) for o in g.objects(e, p)}
                ents[e] = (cls, {n for n in names if n})
    return ents


def _gold_index(gold: dict) -> dict[tuple[str, str], list[str]]:
    """(class, normalised name) -> the ids of the titled gold entities called so (label or alias)."""
    index: dict[tuple[str, str], list[str]] = defaultdict(list)
    for e in gold["entities"]:
        if e.get("label") is None:
            continue
        for n in {_norm(e["label"]), *(_norm(a) for a in e.get("aliases", []))}:
            if n:
                index[(e["type"], n)].append(e["id"])
    return index


def _take(cands: list[str], iri: URIRef, to_gold: dict[URIRef, str], matched: dict[str, list[URIRef]]) -> None:
    """Match ``iri`` to the first free candidate (one-to-one), else to the first (a duplicate)."""
    if cands:
        free = [c for c in cands if not matched[c]]
        gid = (free or cands)[0]
        to_gold[iri] = gid
        matched[gid].append(iri)


def _match(g: Dataset, ents: dict, gold: dict) -> tuple[dict[URIRef, str], dict[str, list[URIRef]]]:
    """Graph entity -> gold id, and gold id -> graph entities: by name, then untitled papers by what they introduce."""
    index = _gold_index(gold)
    to_gold: dict[URIRef, str] = {}
    matched: dict[str, list[URIRef]] = defaultdict(list)
    for iri in sorted(ents, key=str):
        cls, names = ents[iri]
        _take(sorted({gid for n in names for gid in index.get((cls, n), [])}), iri, to_gold, matched)
    key_of = {e["id"]: e["key"] for e in gold["entities"] if e.get("label") is None and e.get("key")}
    for iri in sorted(ents, key=str):
        if iri in to_gold or ents[iri][0] != "Paper":
            continue
        introduced = {to_gold.get(o) for o in g.objects(iri, MLKG.introduces)}
        _take(sorted(gid for gid, key in key_of.items() if key in introduced), iri, to_gold, matched)
    return to_gold, matched


def _entity_counts(g: Dataset, ents: dict, gold: dict, to_gold: dict, matched: dict) -> tuple[dict, dict]:
    """Per class tp / fp / fn (optional gold entities count neither way), and the misses, false positives, duplicates."""
    ec = {c: {"tp": 0, "fp": 0, "fn": 0} for c in CLASSES}
    misses, fps, dups = [], [], []
    for e in gold["entities"]:
        if not e.get("core", True):
            continue
        if matched.get(e["id"]):
            ec[e["type"]]["tp"] += 1
            if len(matched[e["id"]]) > 1:
                ec[e["type"]]["fp"] += len(matched[e["id"]]) - 1
                dups.append(e["id"])
        else:
            ec[e["type"]]["fn"] += 1
            misses.append(f"{e['type']}: {e.get('label') or '(untitled, introduces ' + str(e.get('key')) + ')'}")
    for iri, (cls, _) in ents.items():
        if iri not in to_gold:
            ec[cls]["fp"] += 1
            fps.append(f"{cls}: {g.value(iri, RDFS.label)}")
    return ec, {"entity_misses": sorted(misses), "entity_false_positives": sorted(fps), "entity_duplicates": dups}


def _relation_counts(g: Dataset, ents: dict, gold: dict, to_gold: dict) -> tuple[dict, dict]:
    """Per property tp / fp / fn over the graph's relations between matched ends, and the misses and false positives."""
    by_id = {e["id"]: e for e in gold["entities"]}
    gold_rel = defaultdict(list)
    for r in gold["relations"]:
        gold_rel[(r["s"], r["p"], r["o"])].append(r)
    rc = {p: {"tp": 0, "fp": 0, "fn": 0} for p in PROPERTIES}
    found, rfps, rmiss = set(), [], []
    for p in PROPERTIES:
        for s, o in g.subject_objects(MLKG[p]):
            if s not in ents or o not in ents:
                continue
            key = (to_gold.get(s), p, to_gold.get(o))
            if key in gold_rel:
                found.add(key)
            else:
                rc[p]["fp"] += 1
                rfps.append(f"{p}: {g.value(s, RDFS.label)} -> {g.value(o, RDFS.label)}")
    for key, rs in gold_rel.items():
        if not any(r.get("core", True) for r in rs):
            continue
        if key in found:
            rc[key[1]]["tp"] += 1
        else:
            rc[key[1]]["fn"] += 1
            s, o = by_id[key[0]], by_id[key[2]]
            rmiss.append(f"{key[1]}: {s.get('label') or s['id']} -> {o.get('label') or o['id']}")
    return rc, {"relation_misses": sorted(rmiss), "relation_false_positives": sorted(rfps)}


def _total(counts: dict) -> dict:
    return prf(*(sum(v[k] for v in counts.values()) for k in ("tp", "fp", "fn")))


def evaluate(graph_path: Path, gold: dict) -> dict:
    """Precision, recall and F1 per class and property, and every miss and false positive.

    Matching follows the gold format's rules: normalised names, one-to-one entity matching (a second
    graph entity for one gold entity is a duplicate), untitled papers matched by what they introduce,
    optional gold items counted neither way.
    """
    from .errors import InputError

    if not Path(graph_path).is_file():
        raise InputError(f"{graph_path}: no graph there; run `mlkg build` first")
    g = Dataset(default_union=True)
    g.parse(str(graph_path), format="turtle")
    ents = _graph_entities(g)
    to_gold, matched = _match(g, ents, gold)
    ec, entity_explain = _entity_counts(g, ents, gold, to_gold, matched)
    rc, relation_explain = _relation_counts(g, ents, gold, to_gold)
    return {
        "entities": {"overall": _total(ec), **{c: prf(**v) for c, v in ec.items()}},
        "relations": {"overall": _total(rc), **{p: prf(**v) for p, v in rc.items()}},
        "explain": {**entity_explain, **relation_explain},
    }


def _measure(value: float, defined: int) -> str:
    """A score as the table prints it: ``n/a`` when it has nothing to be measured on (``defined``, its
    denominator's count, is 0: recall and F1 of a class the gold does not annotate, precision of one the graph
    has none of), not a 0.000 that would read as a failure."""
    return f"{value:.3f}" if defined else "n/a"


def format_scores(scores: dict, explain: bool = False) -> str:
    """The score tables as text, and with ``explain`` every miss and false positive; a score with nothing to
    be measured on is ``n/a`` (the JSON keeps prf's 0.0)."""
    lines = []
    for title in ("entities", "relations"):
        lines.append(f"{title:<16}{'P':>8}{'R':>8}{'F1':>8}{'tp':>6}{'fp':>6}{'fn':>6}")
        for name, m in scores[title].items():
            p, r, f = (_measure(m[k], defined) for k, defined in (
                ("precision", m["tp"] + m["fp"]), ("recall", m["tp"] + m["fn"]), ("f1", m["tp"] + m["fn"])))
            lines.append(f"  {name:<14}{p:>8}{r:>8}{f:>8}{m['tp']:>6}{m['fp']:>6}{m['fn']:>6}")
        lines.append("")
    if explain:
        for k, items in scores["explain"].items():
            for it in items:
                lines.append(f"{k}: {it}")
    return "\n".join(lines)
