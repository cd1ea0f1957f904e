"""Graph in, graph.html out: a self-contained interactive view (vis-network inlined, no network access).

The page is made from a :class:`GraphView` of the graph: from an rdflib Graph (a build that holds one) or
from graph.ttl's bytes (a streamed or patched build, which never makes one). The page holds the whole graph as JSON data but draws only part of it: a summary (the most connected entities
under the filters) plus whatever the user finds or expands, so it stays fast at any size. Components, degrees,
communities (Leiden, fixed seed, per component) and positions (:mod:`pipeline.layout`) are computed here,
once, deterministically: a function of the graph alone.

Every string from a document reaches the page as JSON data read with ``textContent``: never as HTML.
"""

from __future__ import annotations

import bisect
import json
import random
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from rdflib import Graph
from rdflib.namespace import RDF, RDFS, SKOS

from .layout import component_layout, pack
from .vocab import ENTITY_CLASSES, MLKG, RELATIONS, local_name
from .write import atomic_write

__all__ = ["render_html", "render_file", "GraphView", "fold", "PageMemo", "CLASS_COLORS", "LAYOUT_THRESHOLD", "SUMMARY_SIZE"]

CLASS_COLORS = {
    "Paper": "#4e79a7", "Method": "#f28e2b", "Dataset": "#59a14f",
    "Venue": "#e15759", "Hardware": "#76b7b2", "Organization": "#b07aa1",
}
CLASS_SHAPES = {"Paper": "square", "Method": "dot", "Dataset": "hexagon", "Venue": "star", "Hardware": "triangle", "Organization": "diamond"}
LAYOUT_THRESHOLD = 150
"""Above this many nodes, positions are computed in Python (:mod:`pipeline.layout`) and browser physics is off."""
LAYOUT_SEED = 7
"""At or under the threshold the browser lays the graph out; from these starting positions, so every browser and
every opening of the page draws the same picture."""
SUMMARY_SIZE = 250
"""The page first draws at most this many nodes (the most connected under the filters); more on demand."""
COMMUNITY_SEED = 7


class PageMemo:
    """What rendering a page computed from one part of the graph alone, kept for the next page of a changed
    graph: each connected component's layout and communities (by a digest of the component's edges) and the
    fold table (by Python's Unicode version). A page rendered with a memo is the page rendered without one;
    :meth:`used` is what this page used, for the next."""

    def __init__(self, entries: dict | None = None) -> None:
        self._old = entries or {}
        self._used: dict = {}

    def get(self, kind: str, key, compute):
        """The memo of ``compute()`` under (``kind``, ``key``), computed when it has none."""
        k = (kind, key)
        if k not in self._used:
            self._used[k] = self._old[k] if k in self._old else compute()
        return self._used[k]

    def has(self, kind: str, key) -> bool:
        return (kind, key) in self._used or (kind, key) in self._old

    def put(self, entries: dict) -> None:
        """Take ``(kind, key) -> value`` entries computed elsewhere (:func:`_igraph_beside`): what
        :meth:`get`'s ``compute`` would give for them."""
        self._old = {**self._old, **entries}

    def used(self) -> dict:
        """The entries this page used (plain data: tuples, lists, bytes, strings, numbers)."""
        return dict(self._used)


def _digest(n: int, edges) -> bytes:
    import hashlib

    return hashlib.blake2b(f"{n}:{edges}".encode(), digest_size=16).digest()


def _vis_assets() -> tuple[str, str]:
    from importlib.util import find_spec

    # found, not imported: importing pyvis (Jinja, IPython's display hooks) costs more than reading the files
    lib = Path(find_spec("pyvis").submodule_search_locations[0]) / "templates" / "lib" / "vis-9.1.2"
    return (lib / "vis-network.min.js").read_text("utf-8"), (lib / "vis-network.css").read_text("utf-8")


_UNSAFE = "<>&\u2028\u2029"


def _script_safe(text: str) -> str:
    """JSON text made safe inside a <script> element: no "<", ">" or "&" survive literally."""
    # five scans for one character each: a fifth of the time of one scan for a class of characters (the page's
    # data is megabytes, scanned on the way of a patched build: 0.026 s -> 0.005 s at 1,000 documents)
    if not any(c in text for c in _UNSAFE):
        return text
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _json_for_script(obj) -> str:
    """JSON safe inside a <script> element (:func:`_script_safe`)."""
    return _script_safe(json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":")))


def fold(s: str) -> str:
    """The search key of a name: case-folded (Python's full folding, "Straße" -> "strasse"), letters and digits only.

    The page folds what is typed with the same table (:func:`fold_table`), so both sides agree.
    """
    return "".join(filter(str.isalnum, s.casefold()))



@lru_cache(maxsize=1)
def fold_table() -> dict[str, str]:
    """Every character whose full case folding differs from its lower case: the page applies these before
    ``toLowerCase`` so a query folds as :func:`fold` folds a name.

    Read a block of code points at a time, each character between NULs (which both mappings keep, and which
    keep a final sigma from seeing its neighbours; NUL itself folds to itself): only a block whose folded and lowered forms differ is
    compared character by character (``tests/test_render.py`` checks it against that comparison everywhere).
    Each block's string is decoded from its code points as UTF-32 (surrogates left out), not joined from a
    million ``chr`` calls: a third of the time (0.084 s -> 0.027 s of CPU), on the path of the first page a
    build writes."""
    import numpy

    table = {}
    step = 4096
    points = numpy.arange(sys.maxunicode + 1, dtype="<u4")
    kept = (points != 0) & ((points < 0xD800) | (points >= 0xE000))
    for start in range(0, len(points), step):
        block_points = points[start:start + step][kept[start:start + step]]
        if not len(block_points):
            continue
        spaced = numpy.zeros(2 * len(block_points) - 1, dtype="<u4")  # the characters, a NUL between each two
        spaced[::2] = block_points
        block = spaced.tobytes().decode("utf-32-le")
        folded = block.casefold()
        if folded == block.lower():
            continue
        for ch, f in zip(block[::2], folded.split("\0")):
            if f != ch.lower():
                table[ch] = f
    return table


_VIEWED = (RDF.type, RDFS.label, SKOS.altLabel, MLKG.mentionedIn, RDF.subject, RDF.predicate, RDF.object,
           MLKG.sentence, MLKG.source, MLKG.rule, MLKG.confidence, *RELATIONS)
"""The predicates the page is made of."""


class GraphView(dict):
    """What the page shows of a graph, as text: predicate IRI -> subject IRI -> the objects' IRIs or lexical
    forms. Made from an rdflib Graph (:meth:`of_graph`) or from Turtle (:meth:`of_turtle`, a graph.ttl
    rendered without an rdflib Graph): the page of a graph is the same either way."""

    @classmethod
    def of_graph(cls, graph: Graph) -> GraphView:
        view = cls()
        for p in _VIEWED:
            table = view[str(p)] = {}
            for s, o in graph.subject_objects(p):
                table.setdefault(str(s), []).append(str(o))
        return view

    @classmethod
    def of_turtle(cls, data: bytes) -> GraphView:
        import pyoxigraph as ox

        view = cls({str(p): {} for p in _VIEWED})
        view._add(ox.parse(data, format=ox.RdfFormat.TURTLE))
        return view

    def _add(self, quads) -> None:
        """Add the statements of the viewed predicates, each distinct string held once (an IRI is in several
        tables: the view is smaller, and so is its marshalled copy, ``incremental.save_page``)."""
        strings: dict[str, str] = {}
        for q in quads:
            table = self.get(q.predicate.value)
            if table is not None:
                s, o = q.subject.value, q.object.value
                table.setdefault(strings.setdefault(s, s), []).append(strings.setdefault(o, o))

    def patch(self, removed: bytes, added: bytes) -> bool:
        """Make this the view of the graph in which the subjects of ``removed`` (Turtle: every statement of
        each) have the statements of ``added`` instead (``incremental.ChangedBlocks``): what :meth:`of_turtle`
        gives for the patched graph.ttl. False, with the view unchanged, when a blank node is among them (its
        label is not the graph's). What is kept of each subject (:meth:`firsts`, :meth:`rows`) is updated
        for the subjects that changed."""
        import pyoxigraph as ox

        gone, new = (list(ox.parse(x, format=ox.RdfFormat.TURTLE)) for x in (removed, added))
        if any(isinstance(t, ox.BlankNode) for q in gone + new for t in (q.subject, q.object)):
            return False
        gone_subjects = {q.subject.value for q in gone}
        changed = gone_subjects | {q.subject.value for q in new}
        rows = self.__dict__.get("_rows")
        if rows is not None:
            rows.leave(self, changed)
        for s in gone_subjects:
            for table in self.values():
                table.pop(s, None)
        self._add(new)
        for p, firsts in self.__dict__.get("_firsts", {}).items():  # each subject's first object, where it changed
            for s in gone_subjects | {q.subject.value for q in new if q.predicate.value == p}:
                first = self.one(p, s)
                if first is None:
                    firsts.pop(s, None)
                else:
                    firsts[s] = first
        if rows is not None:
            rows.come(self, changed)
        return True

    def firsts(self, p) -> dict[str, str]:
        """Subject -> the object of its ``p`` (the first in order, as :meth:`one`), for every subject; kept, and
        kept up to date by :meth:`patch` (a patched build computes it before the patch: :meth:`warm`)."""
        cache = self.__dict__.setdefault("_firsts", {})
        got = cache.get(str(p))
        if got is None:
            got = cache[str(p)] = {s: os_[0] if len(os_) == 1 else min(os_) for s, os_ in self[str(p)].items() if os_}
        return got

    def warm(self) -> None:
        """Compute what the page reads of every subject (:meth:`firsts`, :meth:`rows`) before the view is
        patched: a patched build does it while the pipeline loads beside, and the patch then updates it for the
        subjects it changes."""
        for p in _FIRST_OF:
            self.firsts(p)
        rows, entities = self.rows(), [s for s, _ in _entity_order(self)]
        rows.node_rows(self, entities)
        rows.node_json(self, entities)
        rows.record_rows(self)

    def rows(self) -> _Rows:
        """What the page makes of each entity and evidence record alone (:class:`_Rows`); kept, and kept up to
        date by :meth:`patch`."""
        rows = self.__dict__.get("_rows")
        if rows is None:
            rows = self.__dict__["_rows"] = _Rows(self)
        return rows

    def saved_rows(self):
        """The rows as plain data (``incremental.save_page`` keeps them with the view), or None if none were made."""
        rows = self.__dict__.get("_rows")
        return None if rows is None else rows.saved()

    def restore_rows(self, saved) -> None:
        """Take the rows :meth:`saved_rows` gave for this view (as it was then): the page of the next patch
        makes only those of the subjects it changes."""
        self.__dict__["_rows"] = _Rows.restored(saved)

    def one(self, p, s: str) -> str | None:
        """The object of ``s``'s ``p`` (the first in order, if it has several), or None."""
        os_ = self[str(p)].get(s)
        return None if not os_ else min(os_)

    def all(self, p, s: str) -> list[str]:
        return self[str(p)].get(s, [])


_FIRST_OF = (RDFS.label, RDF.subject, RDF.predicate, RDF.object, MLKG.source, MLKG.sentence, MLKG.rule, MLKG.confidence)
"""The predicates of which the page reads each subject's first object (:meth:`GraphView.firsts`)."""


_string = json.encoder.encode_basestring
"""A string's JSON, as :func:`json.dumps` writes it with ``ensure_ascii=False``."""

_KINDS = (*ENTITY_CLASSES, MLKG.Evidence)
"""The classes whose subjects the page draws as nodes or reads as evidence records (:class:`_Rows`)."""


class _Rows:
    """What the page makes of each entity and each evidence record of a view from its own statements, kept with
    the view (:meth:`GraphView.rows`) so that the page of a patched view works out only the subjects the patch
    changed: the subjects of each class of :data:`_KINDS` in order (by IRI), each entity's node row (label, alt
    labels, its documents' labels in order, search names) and each evidence record's fields. Rows are made
    when first asked for; :meth:`leave` and :meth:`come` (around :meth:`GraphView.patch`) forget those of the
    subjects changed and of the entities mentioned in a document whose label changed."""

    def __init__(self, view: GraphView) -> None:
        kinds = [str(c) for c in _KINDS]
        self.of_class: dict[str, list[str]] = {c: [] for c in kinds}
        for s, classes in view[str(RDF.type)].items():
            for c in kinds:
                if c in classes:
                    self.of_class[c].append(s)
        for subjects in self.of_class.values():
            subjects.sort()
        self.nodes: dict[str, tuple] = {}
        self.encoded: dict[str, tuple[str, str, str]] = {}
        self.records: dict[str, tuple] = {}
        self._labels: dict[str, str | None] = {}

    def saved(self) -> tuple:
        """The rows as plain data for :meth:`restored` (not the nodes' JSON fields: made again while the pipeline
        loads)."""
        return self.of_class, self.nodes, self.records

    @classmethod
    def restored(cls, saved: tuple) -> _Rows:
        """The rows :meth:`saved` gave."""
        rows = cls.__new__(cls)
        rows.of_class, rows.nodes, rows.records = saved
        rows.encoded, rows._labels = {}, {}
        return rows

    def leave(self, view: GraphView, changed: set[str]) -> None:
        """Before ``view`` is patched: the ``changed`` subjects leave their classes and their rows go."""
        for s in changed:
            for c in view[str(RDF.type)].get(s, ()):
                subjects = self.of_class.get(c)
                if subjects is not None:
                    i = bisect.bisect_left(subjects, s)
                    if i < len(subjects) and subjects[i] == s:
                        del subjects[i]
            self.nodes.pop(s, None)
            self.encoded.pop(s, None)
            self.records.pop(s, None)
        self._labels = {s: view.one(RDFS.label, s) for s in changed}

    def come(self, view: GraphView, changed: set[str]) -> None:
        """Once ``view`` is patched: the ``changed`` subjects join their classes; the node rows of the entities
        mentioned in a document whose label changed go (they hold its label)."""
        for s in changed:
            for c in set(view[str(RDF.type)].get(s, ())):
                subjects = self.of_class.get(c)
                if subjects is not None:
                    bisect.insort(subjects, s)
        relabelled = {s for s, label in self._labels.items() if view.one(RDFS.label, s) != label}
        if relabelled:
            for s, docs in view[str(MLKG.mentionedIn)].items():
                if s in self.nodes and not relabelled.isdisjoint(docs):
                    del self.nodes[s]
                    self.encoded.pop(s, None)
        self._labels = {}

    def node_rows(self, view: GraphView, subjects: list[str]) -> list[tuple]:
        """Each entity's ``(label, alt labels, its documents' labels, search names)``, in order."""
        rows, out = self.nodes, []
        labels, alt_labels, mentioned = view.firsts(RDFS.label), view[str(SKOS.altLabel)], view[str(MLKG.mentionedIn)]
        for s in subjects:
            row = rows.get(s)
            if row is None:
                label = labels.get(s) or s
                alts = sorted(alt_labels.get(s, ()))
                row = rows[s] = (label, alts, sorted(labels.get(d) or d for d in mentioned.get(s, ())),
                                 sorted({fold(label), *(fold(a) for a in alts)} - {""}))
            out.append(row)
        return out

    def node_json(self, view: GraphView, subjects: list[str]) -> list[tuple[str, str, str]]:
        """Each entity's fields of its node row as JSON encodes them (:func:`_nodes_json`), in order: what comes
        before its community, between its documents and its class, and after its class."""
        encoded, out = self.encoded, []
        for s in subjects:
            parts = encoded.get(s)
            if parts is None:  # (a list of strings in JSON: each string's JSON, between commas)
                label, alts, _, names = self.nodes.get(s) or self.node_rows(view, [s])[0]
                parts = encoded[s] = ('{"altLabels":[' + ",".join(map(_string, alts)) + '],"comm":',
                                      ',"fullLabel":' + _string(label) + ',"group":',
                                      ',"iri":' + _string(s) + ',"names":[' + ",".join(map(_string, names)) + "]")
            out.append(parts)
        return out

    def record_rows(self, view: GraphView) -> list[tuple]:
        """Each evidence record's ``((s, p, o), sentence, source, rule, confidence)``, in order (by IRI)."""
        rows, out = self.records, []
        fields = None
        for ev in self.of_class[str(MLKG.Evidence)]:
            row = rows.get(ev)
            if row is None:
                if fields is None:
                    fields = [view.firsts(p) for p in (RDF.subject, RDF.predicate, RDF.object, MLKG.sentence,
                                                         MLKG.source, MLKG.rule, MLKG.confidence)]
                subject, predicate, object_, sentence, source, rule, confidence = fields
                row = rows[ev] = ((subject.get(ev), predicate.get(ev), object_.get(ev)), str(sentence.get(ev)),
                                  source.get(ev), str(rule.get(ev)), str(confidence.get(ev)))
            out.append(row)
        return out


def _entity_order(view: GraphView) -> list[tuple[str, str]]:
    """Each entity node's IRI and class name, in order (class order, then IRI): a node's position is its id."""
    of_class = view.rows().of_class
    return [(s, name) for c in ENTITY_CLASSES for name in (local_name(c),) for s in of_class[str(c)]]


def _entities(view: GraphView, order: list[tuple[str, str]]) -> tuple[list[dict], list[str]]:
    """The entity nodes of ``order`` (:func:`_entity_order`) and the table of document labels.

    The page shortens long labels itself."""
    nodes, doc_ids = [], {}
    for (s, cls), (label, alts, docs, names) in zip(order, view.rows().node_rows(view, [s for s, _ in order])):
        nodes.append({"iri": s, "fullLabel": label, "group": cls, "altLabels": alts,
                      "docs": [doc_ids.setdefault(d, len(doc_ids)) for d in docs], "names": names})
    return nodes, list(doc_ids)


def _nodes_json(view: GraphView, order: list[tuple[str, str]], nodes: list[dict]) -> str:
    """``_json_for_script(nodes)`` for the nodes of ``order`` once :func:`_structure` and :func:`_options` have
    numbered and placed them: each node's own fields are encoded once and kept (:meth:`_Rows.node_json`), so
    only its numbers are written here (as JSON writes them: ``str`` of an int, ``repr`` of a float), its keys
    in sorted order ("x" and "y", when it has a position, last)."""
    groups: dict[str, str] = {}
    out = []
    for (s, cls), (head, before_group, tail), n in zip(order, view.rows().node_json(view, [s for s, _ in order]), nodes):
        group = groups.get(cls) or groups.setdefault(cls, _json_for_script(cls))
        at = f',"x":{n["x"]!r},"y":{n["y"]!r}' if "x" in n else ""
        out.append(f'{head}{n["comm"]},"comp":{n["comp"]},"degree":{n["degree"]},"docs":[{",".join(map(str, n["docs"]))}]'
                   f'{before_group}{group}{tail}{at}}}')
    return _script_safe("[" + ",".join(out) + "]")


class _Table(dict):
    """Strings numbered in order of first use: the page gets the list once and numbers everywhere else."""

    def id(self, s: str) -> int:
        return self.setdefault(s, len(self))


def _evidence(view: GraphView, tables: dict[str, _Table]) -> dict[tuple, list]:
    """(s, p, o) -> evidence records ``[sentence, document, rule, confidence]``, each a number in ``tables``
    (numbered in the records' order, by IRI, so the same however the view was read)."""
    label = view.firsts(RDFS.label)
    sentence_id, doc_id, rule_id = tables["sentences"].id, tables["docs"].id, tables["rules"].id
    evidence: dict[tuple, list] = {}
    for key, sentence, src, rule, confidence in view.rows().record_rows(view):
        evidence.setdefault(key, []).append([
            sentence_id(sentence), doc_id(str(label.get(src) if src is not None else None)), rule_id(rule), confidence])
    return evidence


def _relations(view: GraphView, index: dict) -> tuple[list[list], list[tuple]]:
    """Relations between entities as ``[from, to, property number]``, in property order (their evidence
    records are added by :func:`_add_evidence`), and the ``(s, p, o)`` IRIs of each."""
    edges, keys = [], []
    for k, p in enumerate(RELATIONS):
        p = str(p)
        for s, o in sorted((s, o) for s, os_ in view[p].items() for o in os_):
            if s in index and o in index:
                edges.append([index[s], index[o], k])
                keys.append((s, p, o))
    return edges, keys


def _add_evidence(view: GraphView, edges: list[list], keys: list[tuple], tables: dict[str, _Table]) -> None:
    """Append to each edge its evidence records (:func:`_evidence`), in order."""
    evidence = _evidence(view, tables)
    docs, sentences = list(tables["docs"]), list(tables["sentences"])
    for e, key in zip(edges, keys):
        evs = evidence.get(key, [])
        if len(evs) > 1:
            evs = sorted(evs, key=lambda e: (docs[e[1]], sentences[e[0]], e[2], e[3]))
        e.append(evs)


@dataclass(frozen=True, slots=True)
class Structure:
    """The connected components and the communities of the page's graph, as node ids."""

    components: list[list[int]]
    """Each component's nodes in canonical order (by IRI), largest component first (ties: smallest node id)."""
    edges: list[list[tuple[int, int]]]
    """Each component's edges, as positions in its node list (sorted, distinct, no loops)."""
    keys: list[bytes]
    """Each component's key in the memo (:func:`_digest` of its size and edges)."""


def _components(iris: list[str], edges: list[list]) -> Structure:
    """The components of the graph of the nodes of ``iris`` (in node order) and ``edges``."""
    adjacent: list[set[int]] = [set() for _ in iris]
    for e in edges:
        if e[0] != e[1]:
            adjacent[e[0]].add(e[1])
            adjacent[e[1]].add(e[0])
    seen = [False] * len(iris)
    comps = []
    for start in range(len(iris)):
        if seen[start]:
            continue
        seen[start] = True
        comp, stack = [], [start]
        while stack:
            i = stack.pop()
            comp.append(i)
            for j in adjacent[i]:
                if not seen[j]:
                    seen[j] = True
                    stack.append(j)
        comps.append((-len(comp), start, comp))  # start: the component's smallest node id (found in order)
    comps.sort(key=lambda c: c[:2])
    canonical = [sorted(c, key=iris.__getitem__) for _, _, c in comps]
    at, rank = [0] * len(iris), [0] * len(iris)  # each node's position in its component, and the component's
    for r, comp in enumerate(canonical):
        for k, i in enumerate(comp):
            at[i], rank[i] = k, r
    local: list[set[tuple[int, int]]] = [set() for _ in canonical]
    for e in edges:
        if e[0] != e[1]:
            a, b = at[e[0]], at[e[1]]
            local[rank[e[0]]].add((a, b) if a < b else (b, a))
    local_edges = [sorted(es) for es in local]
    return Structure(canonical, local_edges, [_digest(len(c), es) for c, es in zip(canonical, local_edges)])


def _communities(n: int, es: list[tuple[int, int]]) -> list[list[int]]:
    """Leiden communities (igraph's, of most modularity, fixed seed) of one component in canonical order: a
    function of the component alone. Louvain's (igraph's multilevel) before: on the 4,553-node component of
    1,000 generated documents Leiden finds 35 communities of modularity 0.618 in 0.009 s of CPU time, Louvain 37
    of 0.606 in 0.045 s (a patch that changes the component finds them again); and each of Leiden's communities
    is connected."""
    if n <= 2:
        return [list(range(n))]
    import igraph as ig

    ig.set_random_number_generator(random.Random(COMMUNITY_SEED))
    try:
        return [list(c) for c in ig.Graph(n=n, edges=es).community_leiden(objective_function="modularity")]
    finally:
        ig.set_random_number_generator(random)


def _degrees(nodes: list[dict], edges: list[list]) -> None:
    """Each node's degree, in place (and no community yet)."""
    for n in nodes:
        n["degree"], n["comm"] = 0, -1
    for e in edges:
        nodes[e[0]]["degree"] += 1
        nodes[e[1]]["degree"] += 1


def _has_communities(nodes: list[dict], comp: list[int]) -> bool:
    return len(comp) > 1 or bool(nodes[comp[0]]["degree"])


def _structure(nodes: list[dict], st: Structure, memo: PageMemo) -> tuple[list[int], int]:
    """Component (0 = largest) and community (0 = largest) of each node (after :func:`_degrees`), in place: the
    component sizes and the number of communities. Ties are broken by the smallest node id, so the result is
    stable; communities are found in each component on its own."""
    comms = []
    for rank, (comp, es, key) in enumerate(zip(st.components, st.edges, st.keys)):
        for i in comp:
            nodes[i]["comp"] = rank
        if _has_communities(nodes, comp):
            found = memo.get("communities", key, lambda: _communities(len(comp), es))
            comms += [sorted(comp[k] for k in c) for c in found]
    comms.sort(key=lambda c: (-len(c), c[0]))
    for rank, comm in enumerate(comms):
        for i in comm:
            nodes[i]["comm"] = rank
    return [len(c) for c in st.components], len(comms)


def _layout_bytes(n: int, es: list[tuple[int, int]]) -> bytes:
    """One component's positions (``layout.component_layout``) as exact float64 bytes, as the memo keeps them."""
    return component_layout(n, es).astype("<f8").tobytes()


def _layout(n: int, es: list[tuple[int, int]], key: bytes, memo: PageMemo):
    """One component's positions, through the memo."""
    import numpy as np

    raw = memo.get("layout", key, lambda: _layout_bytes(n, es))
    return np.frombuffer(raw, dtype="<f8").reshape(n, 2)


BESIDE_NODES = 500
"""Nodes of the components whose layout the memo lacks from which these (and those components' communities) are
computed in a forked copy of the build (``executor.Beside``) while it makes the nodes and gathers the evidence
records: fewer cost less than the fork."""

_IGRAPH = {"communities": _communities, "layout": _layout_bytes}


def _igraph_jobs(jobs: list[tuple]) -> dict:
    """``(kind, key) -> value`` of each job ``(kind, key, n, edges)``: what :meth:`PageMemo.get` computes."""
    return {(kind, key): _IGRAPH[kind](n, es) for kind, key, n, es in jobs}


def _igraph_beside(st: Structure, memo: PageMemo, layout: bool):
    """The layouts the memo lacks (:func:`_options`; ``layout``: whether the page has positions), under way in a
    forked copy (``executor.Beside``) when they are of at least :data:`BESIDE_NODES` nodes, with the communities
    of the components of more than two nodes the memo lacks (:func:`_structure`: off this process's way too);
    else None (they are computed as they are needed)."""
    lacking = [(len(comp), es, key) for comp, es, key in zip(st.components, st.edges, st.keys)
               if layout and not memo.has("layout", key)]
    if sum(n for n, _, _ in lacking) < BESIDE_NODES:
        return None
    from .executor import Beside

    jobs = [("layout", key, n, es) for n, es, key in lacking]
    jobs += [("communities", key, len(comp), es) for comp, es, key in zip(st.components, st.edges, st.keys)
             if len(comp) > 2 and not memo.has("communities", key)]
    return Beside(_igraph_jobs, jobs)


def _options(nodes: list[dict], st: Structure, memo: PageMemo) -> dict:
    """vis-network options; above the layout threshold, positions from :mod:`pipeline.layout`, physics off."""
    options = {"physics": {"enabled": True, "stabilization": {"iterations": 150}, "solver": "forceAtlas2Based"},
               "layout": {"randomSeed": LAYOUT_SEED}, "interaction": {"hover": True, "tooltipDelay": 150},
               "nodes": {"scaling": {"min": 8, "max": 40}}, "edges": {"arrows": "to", "font": {"size": 10}}}
    if len(nodes) > LAYOUT_THRESHOLD:
        # labels appear as one zooms in (hubs' first): none in the overview, where they would only overlap
        options["nodes"]["scaling"]["label"] = {"enabled": True, "min": 12, "max": 24, "drawThreshold": 8, "maxVisible": 30}
        options["edges"]["scaling"] = {"label": {"drawThreshold": 8}}
        parts = pack([_layout(len(c), es, key, memo) for c, es, key in zip(st.components, st.edges, st.keys)])
        for comp, pos in zip(st.components, parts):
            for i, (x, y) in zip(comp, pos.tolist()):
                nodes[i]["x"], nodes[i]["y"] = round(x, 1), round(y, 1)
        options["physics"] = {"enabled": False}
        options["layout"] = {"improvedLayout": False}  # positions given: no seed needed
        options["edges"]["smooth"] = False
        options["interaction"].update({"hideEdgesOnDrag": True, "hideEdgesOnZoom": True})
    return options


def _page_data(view: GraphView, memo: PageMemo) -> str:
    """The page's data as JSON for its script (:func:`_json_for_script` of one object with sorted keys), each
    member encoded as soon as it is known: the communities and positions last, the rest while a forked copy
    computes what the memo lacks of them (:func:`_igraph_beside`)."""
    import unicodedata

    order = _entity_order(view)
    index = {s: i for i, (s, _) in enumerate(order)}
    edges, keys = _relations(view, index)
    st = _components([s for s, _ in order], edges)
    beside = _igraph_beside(st, memo, len(order) > LAYOUT_THRESHOLD)
    try:
        nodes, docs = _entities(view, order)
        tables = {"docs": _Table((d, i) for i, d in enumerate(docs)), "sentences": _Table(), "rules": _Table()}
        _degrees(nodes, edges)
        _add_evidence(view, edges, keys, tables)
        data = {"edges": edges, **{k: list(v) for k, v in tables.items()}, "colors": CLASS_COLORS,
                "shapes": CLASS_SHAPES, "properties": [local_name(p) for p in RELATIONS],
                "components": [len(c) for c in st.components], "summarySize": SUMMARY_SIZE,
                "fold": memo.get("fold", unicodedata.unidata_version, fold_table)}
        encoded = {k: _json_for_script(v) for k, v in data.items()}
        if beside is not None:
            memo.put(beside.result())
    finally:
        if beside is not None:
            beside.close()
    encoded["communities"] = _json_for_script(_structure(nodes, st, memo)[1])
    encoded["options"] = _json_for_script(_options(nodes, st, memo))
    encoded["nodes"] = _nodes_json(view, order, nodes)
    return "{" + ",".join(f"{_json_for_script(k)}:{encoded[k]}" for k in sorted(encoded)) + "}"


def render_html(graph: Graph | GraphView, memo: PageMemo | None = None) -> str:
    """The HTML page for ``graph`` (an rdflib Graph, or the :class:`GraphView` of one); ``memo``: what the last
    page of this graph computed (:class:`PageMemo`), the same page for less work."""
    memo = memo if memo is not None else PageMemo()
    view = graph if isinstance(graph, GraphView) else GraphView.of_graph(graph)
    data = _page_data(view, memo)
    js, css = _vis_assets()
    template = (Path(__file__).parent / "templates" / "graph.html").read_text("utf-8")
    return (template.replace("__VIS_CSS__", css).replace("__VIS_JS__", js.replace("</script", "<\\/script"))
            .replace("__DATA__", data))


def render_file(graph_path: Path, out: Path) -> Path:
    """Render an existing Turtle graph file to ``out`` without rebuilding."""
    from .errors import InputError

    try:
        g = Graph().parse(str(graph_path), format="turtle")
    except Exception as exc:  # rdflib raises several unrelated types for a bad file
        raise InputError(f"{graph_path}: not a readable Turtle graph ({type(exc).__name__}: {exc})") from exc
    atomic_write(out, render_html(g).encode("utf-8"))
    return out
