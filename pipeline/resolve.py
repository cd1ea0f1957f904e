"""Merge mentions into entities: canonical labels, alternative labels, merge log, relations between entity keys.

One counted name table (:class:`NameTable`) does it for every build: :func:`resolve` (a small build, in
memory), the streaming build of a large graph (``stream.py``) and the patched rebuild (``incremental.py``),
which takes a document's facts out again (:meth:`NameTable.remove`) and joins names again only where they may
have changed (:meth:`NameTable.regroup`).

Rules, in order: (1) mentions of one class whose canonical names normalise alike are one entity
("FlashAttention-2" = "FLASHATTENTION2"); (2) a mention whose other names (an acronym and its long form from
the text's own "Long Form (LF)") meet an entity's names joins it, but only within a class and only when the
acronym's long forms agree (two "RoPE" with different long forms stay two); (3) a name joins another name of
its class that it is a form of (``names.variants``: a plural, an organisation without its generic ending, a first
release without its version, a hardware name without its maker's word, the long form of an acronym of capitals),
but a first release only when no later version of the name is an entity and a long form only when no other long
form claims the acronym; (4) nothing merges across classes. The canonical label is the canonical name used most often, ties broken by the longer then
alphabetically first name (:func:`label_vote`), so the result does not depend on document order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import partial

from .facts import compact, mentions_of
from .model import MERGE_RULES, Entity, Extraction, MergeRecord, Relation, Resolution
from .names import (INITIALS, LEADING, ORG_SUFFIX, PLURAL, VARIANT, clean, entity_key, first_release, is_acronym_of,
                    looks_like_acronym, norm, variants)
from .vocab import local_name

__all__ = ["resolve", "NameTable", "Regrouped", "merge_rule", "label_vote", "alt_labels", "norm", "entity_key", "root"]

LABEL, SAME_NAME, OWN_PAIR, SHARED_ALIAS, *VARIANT_RULES = MERGE_RULES  # the rules' names, in the order tried
assert VARIANT_RULES == [PLURAL, ORG_SUFFIX, VARIANT, INITIALS, LEADING]  # the rules of ``names.variants``


def label_vote(votes: Counter | dict[str, int]) -> str:
    """The canonical label of a group of names: the most used, then the longest, then the first in order.

    >>> label_vote({"MF": 2, "Masked Flows": 2, "masked flows": 1})
    'Masked Flows'
    """
    return sorted(votes.items(), key=lambda kv: (-kv[1], -len(kv[0]), kv[0]))[0][0]


def alt_labels(surface: Iterable[str], label: str) -> tuple[str, ...]:
    """The other names of an entity: one spelling per normalised, case-folded form (the first in order), sorted.

    >>> alt_labels(["MF", "mf", "Masked Flows"], "Masked Flows")
    ('MF',)
    """
    by_norm: dict = {}
    for s in sorted(s for s in surface if s != label):
        by_norm.setdefault((norm(s), s.casefold()), s)
    return tuple(sorted(by_norm.values()))


def _names(name: str, aliases: Sequence[str]) -> list[str]:
    """A mention's names, cleaned: its name and aliases (an untitled paper's surface is no name at all)."""
    return [clean(n) for n in (name, *aliases) if n and norm(n)]


def merge_rule(name: str, aliases: Sequence[str], label: str, cls: str = "") -> str:
    """Why a mention of class ``cls`` read as ``name`` (with ``aliases``) belongs to the entity labelled ``label``
    (``model.MERGE_RULES``).

    >>> merge_rule("MF", (), "Masked Flows"), merge_rule("Masked Flows", ("MF",), "Masked Flows")
    ('shared-alias', 'label')
    >>> merge_rule("Zorblat", (), "Zorblat University", "https://w3id.org/mlkg/ontology#Organization")
    'organisation-suffix'
    """
    cname = clean(name)
    if cname == label:
        return LABEL
    target = norm(label)
    if norm(cname) == target:
        return SAME_NAME
    if any(norm(n) == target for n in _names(name, aliases)):
        return OWN_PAIR
    if cls:
        cls_name, own = local_name(cls), norm(cname)
        for rule, other, _ in variants(cls_name, cname):
            if other == target:
                return rule
        for rule, other, _ in variants(cls_name, label):
            if other == own:
                return rule
    return SHARED_ALIAS


def _name_parts(m: tuple) -> tuple:
    """What resolution reads from a compact mention (``facts.compact``): ``(class, normalised name, clean
    name, its names and aliases cleaned, the normalised acronyms among its aliases)``."""
    cls, text, _, _, _, can, aliases = m
    name = can or text
    nn = norm(name)
    cname = clean(name)
    if aliases:
        acronyms = [na for na in map(norm, aliases) if is_acronym_of(na, nn)]
        return cls, nn, cname, _names(name, aliases), acronyms
    return cls, nn, cname, [cname] if name and nn else [], ()


def root(parent, x):
    """The root of ``x`` in the union-find forest ``parent`` (a list or a dict: item -> parent), halving the path
    on the way up; the one union-find of the project (names joined here, components counted in ``analysis``)."""
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


class _Outside(Exception):
    """A link of the names being joined again leads to a name outside them (:meth:`NameTable._union`)."""


def _uncount(table, key, item) -> None:
    """One less ``item`` in the counts ``table[key]``; a dict table loses the key once its counts are empty."""
    counts = table[key]
    n = counts[item] - 1
    if n:
        counts[item] = n
        return
    del counts[item]
    if not counts and isinstance(table, dict):
        del table[key]


@dataclass(frozen=True, slots=True)
class Regrouped:
    """What :meth:`NameTable.regroup` changed: the names joined again and the entities and relations before."""

    region: frozenset[int]
    """The ids of the names joined again."""
    old_root: list
    """The root of each name before (by id; names new since have none)."""
    old_group: dict
    """``(label, key)`` of each root before."""
    old_relations: dict
    """Support count of each relation before."""
    old_keys: frozenset[str]
    """Keys of the entities of the region before."""
    new_keys: frozenset[str]
    """Keys of the entities of the region now that were not entities before."""
    moved: frozenset[tuple]
    """Relations ``(subject key, predicate, object key)`` that appeared, went, or changed support."""
    name_relations: tuple
    """``((name id, predicate, name id), documents)`` of the relations of the region's names."""


TABLES = ("long_forms", "ids", "votes", "surface", "docs", "links", "rel", "relation_mentions", "root", "group",
          "entities", "relations")
"""The attributes that make a :class:`NameTable` (what an incremental rebuild's state keeps)."""


class NameTable:
    """Names counted across documents, joined into entities by :meth:`finish`.

    Per normalised name (a "base": class and normalised canonical name), by a small integer id: its votes for
    the label, surface forms and documents, and the other names it links to; per acronym its long forms; per
    relation between names its documents. Names, links and long forms are counted, so that a document's facts
    can be taken out again (:meth:`remove`). After :meth:`finish`: ``root`` (id -> root id), ``group`` (root ->
    ``(label, key)``), ``entities`` (key -> ``(class, label, alt labels, documents)``) and ``relations``
    (``(subject key, predicate, object key)`` -> how many documents support it).
    """

    def __init__(self) -> None:
        self.long_forms: dict[tuple, dict[str, int]] = {}  # (cls, normalised acronym) -> normalised long forms
        self.ids: dict[tuple, int] = {}
        self.votes: list = []     # id -> the canonical name of each mention
        self.surface: list = []   # id -> names -> count
        self.docs: list = []      # id -> distinct document ids
        self.links: list = []     # id -> other normalised names it joins -> count, or None
        self.rel: dict[tuple, list[str]] = {}  # (id s, predicate, id o) -> distinct document ids
        self.relation_mentions = 0
        self.root: list = []
        self.group: dict[int, tuple[str, str]] = {}
        self.entities: dict[str, tuple] = {}
        self.relations: dict[tuple, int] = {}

    def restore(self, tables: dict) -> NameTable:
        """Set the tables (``TABLES``) kept by an earlier build; return self."""
        for name in TABLES:
            setattr(self, name, tables[name])
        return self

    def tables(self) -> dict:
        """The tables to keep (``TABLES``)."""
        return {name: getattr(self, name) for name in TABLES}

    # counting ---------------------------------------------------------------------------------------------
    def _base(self, doc_id: str, m: tuple) -> int:
        cls, nn, cname, names, acronyms = _name_parts(m)
        for na in acronyms:
            lf = self.long_forms.get((cls, na))
            if lf is None:
                self.long_forms[(cls, na)] = {nn: 1}
            else:
                lf[nn] = lf.get(nn, 0) + 1
        i = self.ids.get((cls, nn))
        if i is None:
            i = self.ids[(cls, nn)] = len(self.votes)
            self.votes.append([cname])
            sur = {}
            self.surface.append(sur)
            self.docs.append([doc_id])
            self.links.append(None)
        else:
            self.votes[i].append(cname)
            sur = self.surface[i]
            d = self.docs[i]
            if not d or d[-1] != doc_id:  # a document's mentions come together: a repeat is the last one
                d.append(doc_id)
        for n in names:
            sur[n] = sur.get(n, 0) + 1
            k = norm(n)
            if k != nn:
                ls = self.links[i]
                if ls is None:
                    self.links[i] = {k: 1}
                else:
                    ls[k] = ls.get(k, 0) + 1
        return i

    def _unbase(self, m: tuple) -> int:
        """Take one mention back out (the inverse of :meth:`_base`, but for its document); return its base id."""
        cls, nn, cname, names, acronyms = _name_parts(m)
        for na in acronyms:
            _uncount(self.long_forms, (cls, na), nn)
        i = self.ids[(cls, nn)]
        self.votes[i].remove(cname)
        for n in names:
            _uncount(self.surface, i, n)
            k = norm(n)
            if k != nn:
                _uncount(self.links, i, k)
        return i

    def add(self, doc_id: str, facts: tuple) -> None:
        """Take in one document's compact facts (any order of documents gives the same graph; each once)."""
        _, ms, rs = facts
        for m in ms:
            self._base(doc_id, m)
        for s, p, o, *_ in rs:
            k = (self._base(doc_id, s), p, self._base(doc_id, o))
            d = self.rel.get(k)
            if d is None:
                self.rel[k] = [doc_id]
            elif d[-1] != doc_id:
                d.append(doc_id)
            self.relation_mentions += 1

    def remove(self, doc_id: str, facts: tuple) -> set[int]:
        """Take out one document's facts, as :meth:`add` took them in; return the name ids they touched."""
        _, ms, rs = facts
        touched = {self._unbase(m) for m in ms}
        for s, p, o, *_ in rs:
            i, j = self._unbase(s), self._unbase(o)
            touched.update((i, j))
            d = self.rel.get((i, p, j))
            if d is not None and doc_id in d:
                d.remove(doc_id)
                if not d:
                    del self.rel[(i, p, j)]
            self.relation_mentions -= 1
        for i in touched:
            d = self.docs[i]
            if doc_id in d:
                d.remove(doc_id)
        return touched

    def name_ids(self, facts: tuple) -> set[int]:
        """The ids of the names a document's mentions give (after :meth:`add` of it)."""
        return {self.ids[_name_parts(m)[:2]] for m in mentions_of(facts)}

    @staticmethod
    def name_keys(facts: tuple) -> set[tuple]:
        """Every ``(class, normalised name)`` a document's mentions give or link to: names, aliases, acronyms."""
        out = set()
        for m in mentions_of(facts):
            cls, nn, _, names, acronyms = _name_parts(m)
            out.add((cls, nn))
            out.update((cls, norm(n)) for n in names)
            out.update((cls, na) for na in acronyms)
            cls_name = local_name(cls)
            out.update((cls, v[1]) for n in names[:1] for v in variants(cls_name, n))  # what its name may join
        return out

    # joining ----------------------------------------------------------------------------------------------
    def finish(self) -> None:
        """Merge names into entities and relations (every name)."""
        self.root = self._union(range(len(self.votes)))
        members: dict[int, list[int]] = {}
        for i, r in enumerate(self.root):
            members.setdefault(r, []).append(i)
        self.group, self.entities = {}, {}
        self._add_groups(members)
        self.relations = self._relations(self.rel.items())

    def entity_of(self, m: tuple) -> tuple[str, str]:
        """``(label, key)`` of the entity of a compact mention (after :meth:`finish`)."""
        return self.group[self.root[self.ids[(m[0], norm(m[5] or m[1]))]]]

    def regroup(self, touched: set[int], names: set[tuple]) -> Regrouped:
        """Join names again after :meth:`remove` and :meth:`add` of some documents, where that may change
        anything: the groups of the ``touched`` names and of the ``names`` (``(class, normalised name)``) the
        documents gave, and of every name linking to one of those; a group is closed under its links, so no
        other group can change. Updates ``root``, ``group``, ``entities`` and ``relations``."""
        n_old = len(self.root)
        old_root, old_group, old_relations = self.root, dict(self.group), dict(self.relations)
        ids, cls_of = self.ids, self._cls_of()
        seeds = set(touched)
        seeds.update(ids[k] for k in names if k in ids)
        for i, ls in enumerate(self.links):
            if ls and any((cls_of[i], k) in names for k in ls):
                seeds.add(i)
        roots = {old_root[i] for i in seeds if i < n_old}
        region = {i for i in range(n_old) if old_root[i] in roots} | set(range(n_old, len(self.votes))) | seeds
        claims = self._variant_claims(cls_of)  # the same for every try
        while True:
            try:
                joined = self._union(region, claims)
                break
            except _Outside as e:  # a link leads out of the region: take in that name's whole group
                roots.add(old_root[e.args[0]])
                region |= {i for i in range(n_old) if old_root[i] == old_root[e.args[0]]}
        old_keys = {old_group[rt][1] for rt in roots if rt in old_group}
        for rt in roots:
            self.group.pop(rt, None)
        for k in old_keys:
            del self.entities[k]
        root = list(old_root) + [None] * (len(self.votes) - n_old)
        members: dict[int, list[int]] = {}
        for i, rt in joined.items():
            root[i] = rt
            members.setdefault(rt, []).append(i)
        self.root = root
        before = set(self.entities)
        self._add_groups(members)
        new_keys = set(self.entities) - before
        self.relations = {k: n for k, n in self.relations.items() if k[0] not in old_keys and k[2] not in old_keys}
        name_relations = tuple((k, v) for k, v in self.rel.items() if k[0] in region or k[2] in region)
        fresh = self._relations(name_relations)
        self.relations.update(fresh)
        moved = {k for k in set(fresh) | {k for k in old_relations if k[0] in old_keys or k[2] in old_keys}
                 if old_relations.get(k) != self.relations.get(k)}
        return Regrouped(region=frozenset(region), old_root=old_root, old_group=old_group,
                         old_relations=old_relations, old_keys=frozenset(old_keys), new_keys=frozenset(new_keys),
                         moved=frozenset(moved), name_relations=name_relations)

    def _union(self, bases: Iterable[int], claims: dict | None = None) -> dict[int, int] | list[int]:
        """The root of each of ``bases`` (a name's id) once names that share a spelling or an acronym, or that are
        forms of one name (``claims``, :meth:`_variant_claims`), are joined; a list when ``bases`` is every id, else
        a dict. The links of ``bases`` must lead only to ``bases`` or to alias-only names (a component of names is
        closed under its links), and a name claimed by others is joined again with all of them or with none."""
        ids, long_forms, links = self.ids, self.long_forms, self.links
        everything = isinstance(bases, range)
        if everything:
            parent = list(range(len(self.votes)))
        else:
            parent = {i: i for i in bases}
        extra: dict[tuple, int] = {}  # names only ever given as another's alias
        cls_of = self._cls_of()

        find = partial(root, parent)

        top = len(self.votes)
        for i in bases:
            ls = links[i]
            if not ls:
                continue
            for nk in ls:
                k = (cls_of[i], nk)
                if len(long_forms.get(k, ())) > 1:
                    continue  # an acronym with two meanings joins nothing
                j = ids.get(k)
                if j is None:
                    j = extra.get(k)
                    if j is None:
                        j = extra[k] = top + len(extra)
                        if everything:
                            parent.append(j)
                        else:
                            parent[j] = j
                elif not everything and j not in parent:
                    raise _Outside(j)
                ra, rb = find(i), find(j)
                if ra != rb:
                    parent[max(ra, rb)] = min(ra, rb)  # a root is a name's id, never an alias-only one
        for j, cs in (self._variant_claims(cls_of) if claims is None else claims).items():
            if not everything:  # a name and every name claiming it are joined again together, or none of them
                outside = [x for x in (j, *(c[0] for c in cs)) if x not in parent]
                if len(outside) == 1 + len(cs):
                    continue
                if outside:
                    raise _Outside(outside[0])
            for i in self._variant_joins(j, cs, cls_of):
                ra, rb = find(i), find(j)
                if ra != rb:
                    parent[max(ra, rb)] = min(ra, rb)
        if everything:
            return [find(i) for i in range(top)]
        return {i: find(i) for i in bases}

    def warm(self) -> None:
        """Compute the forms of every spelling (``names.variants``, cached there), which :meth:`regroup` reads of
        every name whatever changed: a patched rebuild does it while it waits for its pipeline to load."""
        self._variant_claims(self._cls_of())

    def _variant_claims(self, cls_of: list) -> dict[int, list[tuple]]:
        """Per name that other names may be forms of (``names.variants`` of their spellings, a name of the
        same class with mentions): ``(id, rule, tag, normalised name)`` of each such claim."""
        claims: dict[int, list[tuple]] = {}
        ids, votes = self.ids, self.votes
        local: dict[str, str] = {}
        for (cls, nn), i in ids.items():
            spellings = votes[i]
            if not spellings:
                continue
            cls_name = local.get(cls)
            if cls_name is None:
                cls_name = local[cls] = local_name(cls)
            for spelling in (spellings[:1] if len(spellings) == 1 else sorted(set(spellings))):
                for rule, other, tag in variants(cls_name, spelling):
                    j = ids.get((cls, other))
                    if j is not None and j != i and votes[j]:
                        claims.setdefault(j, []).append((i, rule, tag, nn))
        return claims

    def _variant_joins(self, j: int, claims: list[tuple], cls_of: list) -> list[int]:
        """The names among ``claims`` (:meth:`_variant_claims`) that join name ``j``: a plural, an organisation's
        ending or a maker's word always; a version ending when it is a first release's and every version claiming
        ``j`` is that one; an acronym's long form when it is the only one, ``j`` is written as an acronym and the
        text pairs no other long form with it."""
        tags = {tag for _, rule, tag, _ in claims if rule == VARIANT}
        one_release = len(tags) == 1 and first_release(next(iter(tags)))
        long_forms = {nn for _, rule, _, nn in claims if rule == INITIALS}
        out = []
        for i, rule, _, nn in claims:
            if rule == VARIANT and not one_release:
                continue
            if rule == INITIALS:
                if len(long_forms) > 1 or not any(looks_like_acronym(v) for v in set(self.votes[j])):
                    continue
                paired = self.long_forms.get((cls_of[j], norm(self.votes[j][0])))
                if paired and nn not in paired:
                    continue
            out.append(i)
        return out

    def _cls_of(self) -> list:
        cls_of = getattr(self, "_classes", None)
        if cls_of is None or len(cls_of) != len(self.votes):
            cls_of = self._classes = [None] * len(self.votes)
            for base, i in self.ids.items():
                cls_of[i] = base[0]
        return cls_of

    def _add_groups(self, members: dict[int, list[int]]) -> None:
        """Make the entity of each group of names (root -> ids) into ``group`` and ``entities``."""
        cls_of = self._cls_of()
        for r, ids in members.items():
            if len(ids) == 1:  # most names: one spelling, its lists already distinct
                i = ids[0]
                votes, surface, docs = self.votes[i], self.surface[i], self.docs[i]
                if not votes:
                    continue  # a name whose every mention was taken out (incremental rebuild)
                label = votes[0] if len(set(votes)) == 1 else label_vote(Counter(votes))
            else:
                counts: Counter = Counter()
                surface, docs = set(), set()
                for i in ids:
                    counts.update(self.votes[i])
                    surface.update(self.surface[i])
                    docs.update(self.docs[i])
                if not counts:
                    continue
                label = label_vote(counts)
            cls = cls_of[r]
            key = entity_key(cls, label)
            if key in self.entities:  # the label is a name of the group, so its key is the group's own
                raise RuntimeError(f"two groups of names with one key {key!r}")
            self.entities[key] = (cls, label, alt_labels(surface, label), tuple(sorted(docs)))
            self.group[r] = (label, key)

    def _relations(self, rel: Iterable[tuple]) -> dict[tuple, int]:
        """Relations between entities, each with how many documents support it, from ``(ids, documents)`` of names."""
        relations: dict[tuple, set] = {}
        group, root = self.group, self.root
        for (i, p, j), docs in rel:
            ks, ko = group[root[i]][1], group[root[j]][1]
            if ks == ko:
                continue
            r = relations.get((ks, p, ko))
            if r is None:
                relations[(ks, p, ko)] = set(docs)
            else:
                r.update(docs)
        return {k: len(docs) for k, docs in relations.items()}


def resolve(extractions: Sequence[Extraction]) -> Resolution:
    """Merge the mentions of all documents into entities and their relations (a :class:`NameTable`), with
    each entity's merge log and each relation's evidence."""
    from rdflib import URIRef

    table = NameTable()
    facts = [(ex, compact(ex)) for ex in _by_document(extractions)]
    for ex, f in facts:
        table.add(ex.document.id, f)
    table.finish()
    logs: dict[str, set] = {}
    rel_ev: dict[tuple, set] = {}
    for ex, f in facts:
        doc_id = ex.document.id
        for m in mentions_of(f):
            label, key = table.entity_of(m)
            cls, text, a, b, _, can, aliases = m
            logs.setdefault(key, set()).add(MergeRecord(doc_id=doc_id, start_char=a, end_char=b, text=text,
                                                        name=clean(can or text), rule=merge_rule(can or text, aliases, label, cls)))
        for r, (s, p, o, *_) in zip(ex.relations, f[2]):
            ks, ko = table.entity_of(s)[1], table.entity_of(o)[1]
            if ks != ko:
                rel_ev.setdefault((ks, p, ko), set()).add((r.evidence, r.rule, r.confidence))
    entities = tuple(Entity(key=key, cls=URIRef(cls), label=label, alt_labels=frozenset(alts), doc_ids=docs,
                            merge_log=tuple(sorted(logs.get(key, ()))))
                     for key, (cls, label, alts, docs) in sorted(table.entities.items()))
    relations = tuple(
        Relation(subject=s, predicate=URIRef(p), object=o,
                 evidence=tuple(sorted(evs, key=lambda e: (e[0].doc_id, e[0].start_char, e[0].end_char, e[1], e[2]))))
        for (s, p, o), evs in sorted(rel_ev.items()))
    named = {d for e in entities for d in e.doc_ids}  # the documents that get a node in the graph
    documents = {ex.document.id: replace(ex.document, text="") for ex in extractions if ex.document.id in named}
    return Resolution(entities=entities, relations=relations, documents=documents)


def _by_document(extractions: Sequence[Extraction]) -> list[Extraction]:
    """The extractions, each of one document: a mention or relation is counted under its own document's id
    (an Extraction built by hand may hold another document's), and the table takes each document once."""
    import dataclasses

    def ids(ex: Extraction) -> set[str]:
        out = {m.doc_id for m in ex.mentions}
        for r in ex.relations:
            out.update((r.evidence.doc_id, r.subject.doc_id, r.object.doc_id))
        return out

    if all(ids(ex) <= {ex.document.id} for ex in extractions) and len({ex.document.id for ex in extractions}) == len(extractions):
        return list(extractions)
    parts: dict[str, tuple] = {}  # id -> (document, mentions, relations)
    for ex in extractions:
        for d in sorted(ids(ex) | {ex.document.id}):
            parts.setdefault(d, (dataclasses.replace(ex.document, id=d), [], []))
        for m in ex.mentions:
            parts[m.doc_id][1].append(m)
        for r in ex.relations:
            parts[r.evidence.doc_id][2].append(r)
    return [Extraction(document=doc, mentions=tuple(ms), relations=tuple(rs)) for doc, ms, rs in parts.values()]
