"""Merge mentions into entities: canonical labels, alternative labels, merge log, relations between entity keys."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Sequence

from .model import Entity, Extraction, MergeRecord, Mention, Relation, Resolution
from .names import clean as _clean
from .names import entity_key, norm

__all__ = ["resolve", "norm", "entity_key"]  # norm and entity_key: names.py's, re-exported


class _Group:
    __slots__ = ("cls", "names", "surface", "docs", "log", "canonical_votes")

    def __init__(self, cls) -> None:
        self.cls = cls
        self.names: set[str] = set()  # normalised names
        self.surface: set[str] = set()
        self.docs: set[str] = set()
        self.log: list[Mention] = []
        self.canonical_votes: dict[str, int] = defaultdict(int)


def _mention_names(m: Mention) -> list[str]:
    # the surface text is among the aliases when it differs from the canonical name; an untitled paper's
    # surface ("we propose") is not a name at all
    return [_clean(n) for n in (m.name, *m.aliases) if n and norm(n)]


def _merge_record(m: Mention, label: str) -> MergeRecord:
    """Why mention ``m`` belongs to the entity labelled ``label`` (see ``model.MERGE_RULES``)."""
    name = _clean(m.name)
    if name == label:
        rule = "label"
    elif norm(name) == norm(label):
        rule = "same-normalised-name"
    elif any(norm(n) == norm(label) for n in _mention_names(m)):
        rule = "own-acronym-pair"
    else:
        rule = "shared-alias"
    return MergeRecord(doc_id=m.doc_id, start_char=m.start_char, end_char=m.end_char, text=m.text, name=name, rule=rule)


def resolve(extractions: Sequence[Extraction]) -> Resolution:
    """Merge the mentions of all documents into entities and their relations.

    Rules, in order: (1) mentions of one class whose canonical names normalise alike are one entity
    ("FlashAttention-2" = "FLASHATTENTION2"); (2) a mention whose other names (an acronym and its long
    form from the text's own "Long Form (LF)") meet an entity's names joins it, but only within a class and
    only when the acronym's long forms agree (two "RoPE" with different long forms stay two); (3) nothing
    merges across classes. The canonical label is the canonical name used most often, ties broken by
    the longer then alphabetically first name, so the result does not depend on document order.
    """
    mentions: list[Mention] = []
    for ex in extractions:
        mentions.extend(ex.mentions)
        for r in ex.relations:
            mentions.extend((r.subject, r.object))
    mentions.sort(key=lambda m: (m.doc_id, m.start_char, m.end_char, str(m.cls), m.name))

    # union-find over (class, normalised name); acronyms only join names their own mention gives
    parent: dict[tuple, tuple] = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a, b):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    long_forms: dict[tuple, set[str]] = defaultdict(set)  # (cls, acronym) -> long forms naming it
    for m in mentions:
        if m.aliases:
            for a in m.aliases:
                if norm(a) != norm(m.name) and len(norm(a)) <= 8:
                    long_forms[(m.cls, norm(a))].add(norm(m.name))
    for m in mentions:
        base = (m.cls, norm(m.name))
        find(base)
        for n in _mention_names(m):
            k = (m.cls, norm(n))
            if len(long_forms.get(k, ())) > 1:
                continue  # an acronym with two meanings joins nothing
            union(base, k)

    groups: dict[tuple, _Group] = {}
    for m in mentions:
        root = find((m.cls, norm(m.name)))
        g = groups.setdefault(root, _Group(m.cls))
        g.docs.add(m.doc_id)
        g.canonical_votes[_clean(m.name)] += 1
        for n in _mention_names(m):
            g.surface.add(n)
        g.log.append(m)

    entities: dict[tuple, Entity] = {}
    for root, g in groups.items():
        label = sorted(g.canonical_votes.items(), key=lambda kv: (-kv[1], -len(kv[0]), kv[0]))[0][0]
        key = entity_key(g.cls, label)
        alts = {s for s in g.surface if s != label}
        # keep one spelling per normalised form among the alternatives, deterministically
        by_norm: dict[str, str] = {}
        for s in sorted(alts):
            by_norm.setdefault((norm(s), s.casefold()), s)
        log = tuple(sorted({_merge_record(m, label) for m in g.log}))
        entities[root] = Entity(key=key, cls=g.cls, label=label, alt_labels=frozenset(by_norm.values()),
                                doc_ids=tuple(sorted(g.docs)), merge_log=log)

    rel_ev: dict[tuple, list] = defaultdict(list)
    for ex in extractions:
        for r in ex.relations:
            s = entities[find((r.subject.cls, norm(r.subject.name)))]
            o = entities[find((r.object.cls, norm(r.object.name)))]
            if s.key == o.key:
                continue
            rel_ev[(s.key, str(r.predicate), o.key, r.predicate)].append((r.evidence, r.rule, r.confidence))
    relations = []
    for (s, _p, o, pred), evs in rel_ev.items():
        uniq = sorted(set(evs), key=lambda e: (e[0].doc_id, e[0].start_char, e[0].end_char, e[1], e[2]))
        relations.append(Relation(subject=s, predicate=pred, object=o, evidence=tuple(uniq)))
    relations.sort(key=lambda r: (r.subject, str(r.predicate), r.object))
    # merge entities with equal keys (different roots whose labels normalise alike)
    merged: dict[str, Entity] = {}
    for e in entities.values():
        if e.key in merged:
            old = merged[e.key]
            label = min(old.label, e.label)
            log = {dataclasses.replace(r, rule="same-normalised-name") if r.rule == "label" and r.name != label else r
                   for r in (*old.merge_log, *e.merge_log)}
            e = Entity(key=e.key, cls=e.cls, label=label, alt_labels=(old.alt_labels | e.alt_labels) - {label},
                       doc_ids=tuple(sorted(set(old.doc_ids) | set(e.doc_ids))), merge_log=tuple(sorted(log)))
        merged[e.key] = e
    ents = tuple(sorted(merged.values(), key=lambda e: e.key))
    return Resolution(entities=ents, relations=tuple(relations))
