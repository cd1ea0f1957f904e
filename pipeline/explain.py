"""Why the graph says what it says about an entity: its merge log (which mentions became it, by which rule)
and every fact about it with the sentence it came from."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .resolve import norm

__all__ = ["Explanation", "explain"]


@dataclass(frozen=True, slots=True)
class Explanation:
    """The entities a name matches, their merge logs, and the facts about them."""

    entities: tuple[dict, ...]
    """Merge-log entries (``merges.json``) of the entities whose label, other name or merged text matches."""
    facts: tuple[tuple, ...]
    """Rows of the ``evidence`` query without the matched name: subject, property, object, document, sentence."""


def _matches(name: str, iri: str, entry: dict) -> bool:
    if name == iri:
        return True
    key = norm(name)
    return key == norm(entry["label"]) or any(key in (norm(m["text"]), norm(m["read_as"])) for m in entry["mentions"])


def explain(name: str, graph: Path) -> Explanation:
    """Explain ``name`` (a label, another name or an IRI) from ``graph`` and the ``merges.json`` beside it."""
    from .query import load_query, run_query

    entities: tuple[dict, ...] = ()
    log_path = Path(graph).with_name("merges.json")
    if log_path.is_file():
        log = json.loads(log_path.read_text(encoding="utf-8"))["entities"]
        entities = tuple({"iri": iri, **entry} for iri, entry in sorted(log.items()) if _matches(name, iri, entry))
    names = {name} | {e["label"] for e in entities}
    rows: set[tuple] = set()
    for n in sorted(names):
        rows.update(tuple(r)[:5] for r in run_query(load_query("evidence"), graph, {"name": n}).rows)
    return Explanation(entities=entities, facts=tuple(sorted(rows)))
