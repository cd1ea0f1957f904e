"""Validation of a patched graph (validate.validate_patch): checked only where it changed, it finds exactly the
violations a validation of the whole graph finds, for every mutation of test_validate and after random patches."""

import random
import shutil

import pyoxigraph as ox
import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF, RDFS

from pipeline import BuildConfig, build, incremental
from pipeline import validate as V
from pipeline.vocab import MLKG

from test_incremental import _mixed_corpus
from test_validate import MUTATIONS, RES, _document, valid_graph  # noqa: F401 (a fixture)


_VALIDATE_PATCH = V.validate_patch  # the function itself, when a test spies on the module's


def _nt(triples) -> bytes:
    g = Graph()
    for t in triples:
        g.add(t)
    return g.serialize(format="nt", encoding="utf-8")


def _patch_of(old: Graph, new: Graph) -> tuple[bytes, bytes]:
    """The blocks of the subjects whose statements differ: before and after."""
    changed = {s for s, _, _ in set(old) ^ set(new)}
    return (_nt(t for t in old if t[0] in changed), _nt(t for t in new if t[0] in changed))


def _same(old: Graph, new: Graph) -> V.ValidationReport:
    data = new.serialize(format="nt", encoding="utf-8")
    removed, added = _patch_of(old, new)
    whole = V.validate_turtle(data)
    assert V.validate_patch(data, removed, added).violations == whole.violations
    _same_in_blocks(old, new, whole)
    return whole


def _same_in_blocks(old: Graph, new: Graph, whole: V.ValidationReport) -> None:
    """The same patch with the graph as the build writes it (``write.turtle_bytes``: sorted blocks), checked on
    its blocks without parsing it whole (``validate._patch_in_blocks``), when no blank node is in it."""
    from pipeline.write import turtle_bytes

    if any(not isinstance(t, URIRef) for t in new.subjects()):
        return
    changed = {s for s, _, _ in set(old) ^ set(new)}
    data = turtle_bytes(new)
    removed, added = (turtle_bytes(t for t in g if t[0] in changed) for g in (old, new))
    blocks = V._Blocks.of(data)
    assert blocks is not None
    before, after = (list(ox.parse(x, ox.RdfFormat.TURTLE)) for x in (removed, added))
    report = V._patch_in_blocks(data, blocks, before, after)
    if b"subClassOf" not in data:
        assert report is not None, "looked up by their text"
    if report is not None:
        assert report.violations == whole.violations
    assert _VALIDATE_PATCH(data, removed, added).violations == whole.violations


def _untype_document(g, doc):
    g.remove((doc, RDF.type, MLKG.Document))  # every entity mentioned in it now fails, none of them changed


def _retype(iri, cls):
    def mutate(g, doc):
        g.remove((iri, RDF.type, None))
        g.add((iri, RDF.type, MLKG[cls]))  # the relations that reach it from unchanged subjects now fail
    mutate.__name__ = f"retype_{iri.split('/')[-1]}_{cls}"
    return mutate


def _drop_evidence(name):
    def mutate(g, doc):
        g.remove((RES[f"evidence/{name}"], None, None))  # the relation, unchanged, loses its only record
    mutate.__name__ = f"drop_evidence_{name}"
    return mutate


def _drop_relation(s, p, o):
    def mutate(g, doc):
        g.remove((s, p, o))  # its record, unchanged, now dangles
    mutate.__name__ = f"drop_relation_{p.split('#')[-1]}"
    return mutate


def _unlabel_document(g, doc):
    g.remove((doc, RDFS.label, None))


ON_EXISTING = [_untype_document, _unlabel_document, _retype(RES["venue/presentedAt-o"], "Dataset"),
               _retype(RES["paper/presentedAt-s"], "Method"), _drop_evidence("uses"),
               _drop_relation(RES["method/runsOn-s"], MLKG.runsOn, RES["hardware/runsOn-o"])]


@pytest.mark.parametrize("mutate", MUTATIONS + ON_EXISTING, ids=lambda m: m.__name__)
def test_validate_patch_finds_what_the_whole_graph_validation_finds(valid_graph, mutate):
    new = Graph()
    new += valid_graph
    mutate(new, _document(new))
    assert not _same(valid_graph, new).conforms


def test_validate_patch_with_every_mutation_at_once(valid_graph):
    new = Graph()
    new += valid_graph
    for m in MUTATIONS + ON_EXISTING:
        m(new, _document(new))
    assert len(_same(valid_graph, new).violations) > len(MUTATIONS)


def _damage(rng: random.Random, data: bytes, added: bytes) -> list[tuple[bytes, bytes]]:
    """The patched graph and its added blocks, each with one changed subject broken: a predicate of it dropped,
    or its class changed (which breaks its unchanged neighbours)."""
    g, a = Graph().parse(data=data, format="turtle"), Graph().parse(data=added, format="turtle")
    subjects = sorted(set(a.subjects()))
    out = []
    for _ in range(3):
        s = rng.choice(subjects)
        p = rng.choice(sorted(set(a.predicates(s))))
        drop = {(s, p, o) for o in a.objects(s, p)}
        put = set()
        if p == RDF.type and rng.random() < 0.7:
            put = {(s, RDF.type, MLKG[rng.choice(["Paper", "Method", "Dataset", "Venue", "Hardware"])])}
        gg, aa = set(g) - drop | put, set(a) - drop | put
        out.append((_nt(gg), _nt(aa)))
    return out


def test_validate_patch_after_random_patched_rebuilds(tmp_path, monkeypatch):
    """Real patched rebuilds (the random edits of test_incremental): each patch is checked where it changed,
    and so is each patch with a changed subject broken; both as the whole graph's validation."""
    docs = tmp_path / "docs"
    files = _mixed_corpus(docs, 30)
    out = tmp_path / "out"
    seen = []
    real = V.validate_patch

    def spy(data, removed, added):
        seen.append((data, removed, added))
        return real(data, removed, added)

    monkeypatch.setattr(V, "validate_patch", spy)
    build(BuildConfig(inputs=(docs,), out_dir=out, html=False))
    rng = random.Random(3)
    broken = 0
    for step in range(6):
        a, b = rng.sample(files, 2)
        if step % 3 == 0 and b.exists():
            a.write_bytes(b.read_bytes())
        elif step % 3 == 1 and a.exists():
            a.write_bytes(a.read_bytes()[: len(a.read_bytes()) // 2])
        else:
            a.write_bytes(a.read_bytes() + b"\nWe also evaluate BERT on ImageNet.\n")
        report = build(BuildConfig(inputs=(docs,), out_dir=out, html=False))
        assert report.patched and len(seen) == step + 1
        data, removed, added = seen[-1]
        assert real(data, removed, added).violations == V.validate_turtle(data).violations == ()
        assert V._Blocks.of(data) is not None, "graph.ttl is checked on its blocks"
        for bad, bad_added in _damage(rng, data, added):
            whole = V.validate_turtle(bad)
            assert real(bad, removed, bad_added).violations == whole.violations
            bad_graph = Graph().parse(data=bad, format="nt")
            _same_in_blocks(Graph().parse(data=data, format="turtle") - Graph().parse(data=added, format="turtle")
                            + Graph().parse(data=removed, format="turtle"), bad_graph, whole)
            broken += not whole.conforms
    assert broken >= 6


def test_validate_patch_passes_over_blocks_rendered_again_as_they_were(valid_graph, monkeypatch):
    """A subject whose statements are the same before and after the patch is no change: nothing is checked
    around it (a hub entity rendered again would bring in every record that points at it)."""
    from pipeline.write import turtle_bytes

    data = turtle_bytes(valid_graph)
    same = turtle_bytes(valid_graph)  # every block "rendered again" as it was
    checked = []
    real = V._check_focus
    monkeypatch.setattr(V, "_check_focus", lambda focus, *a: checked.append(set(focus)) or real(focus, *a))
    assert V.validate_patch(data, same, same).conforms and checked in ([], [set()])
    doc = sorted(valid_graph.subjects(RDF.type, MLKG.Document))[0]
    new = Graph()
    for t in valid_graph:
        new.add(t)
    _unlabel_document(new, doc)
    checked.clear()
    whole = V.validate_turtle(turtle_bytes(new))
    report = V.validate_patch(turtle_bytes(new), same, turtle_bytes(new))
    assert report.violations == whole.violations and not whole.conforms
    assert checked and all(ox.NamedNode(str(doc)) in f for f in checked)
    assert all(len(f) < len(set(valid_graph.subjects())) for f in checked)


def _hub_graph(n: int) -> Graph:
    """A dataset named by ``n`` documents, each of which introduces a method evaluated on it (with its record)."""
    from test_validate import _entity, _relation

    g = Graph()
    docs = []
    for i in range(n):
        doc = RES[f"document/d{i:04d}.txt"]
        g.add((doc, RDF.type, MLKG.Document))
        g.add((doc, RDFS.label, Literal(f"d{i:04d}.txt")))
        docs.append(doc)
    hub = _entity(g, "Dataset", "hub", docs[0])
    for i, doc in enumerate(docs):
        g.add((hub, MLKG.mentionedIn, doc))
        _relation(g, _entity(g, "Method", f"m{i:04d}", doc), MLKG.evaluatedOn, hub, doc, f"ev{i:04d}")
    return g


def test_validate_patch_around_a_hub_checks_what_points_at_it_only_when_that_can_fail(monkeypatch):
    """A hub (a dataset named by 300 documents, 300 relations and their records pointing at it) rendered again
    for one more document that names it, with one more method evaluated on it: what points at the hub reads
    only its class (sh:class) and relations (a record's subject), which did not change, so the check stays the
    size of the change, and graph.ttl is searched for the changed subjects only. Giving the hub another class
    brings every relation and record that points at it into the check. Both find what the whole graph's
    validation finds."""
    from test_validate import _entity, _relation

    from pipeline.write import turtle_bytes

    old = _hub_graph(300)
    hub = RES["dataset/hub"]
    new = Graph()
    new += old
    doc = RES["document/new.txt"]
    new.add((doc, RDF.type, MLKG.Document))
    new.add((doc, RDFS.label, Literal("new.txt")))
    new.add((hub, MLKG.mentionedIn, doc))
    _relation(new, _entity(new, "Method", "newcomer", doc), MLKG.evaluatedOn, hub, doc, "ev-new")
    checked, searched = [], []
    real_check, real_pointing = V._check_focus, V._Blocks.pointing_at
    monkeypatch.setattr(V, "_check_focus", lambda focus, *a: checked.append(set(focus)) or real_check(focus, *a))
    monkeypatch.setattr(V._Blocks, "pointing_at", lambda self, nodes: searched.append(len(nodes)) or real_pointing(self, nodes))
    _same_in_blocks(old, new, V.validate_turtle(turtle_bytes(new)))
    assert checked and all(ox.NamedNode(str(hub)) in f for f in checked)
    assert max(len(f) for f in checked) < 10, "the hub's records and relations are not checked again"
    assert max(searched) < 10

    retyped = Graph()
    retyped += new
    retyped.remove((hub, RDF.type, MLKG.Dataset))
    retyped.add((hub, RDF.type, MLKG.Venue))  # now every evaluatedOn that ends at it fails
    checked.clear()
    whole = V.validate_turtle(turtle_bytes(retyped))
    assert len(whole.violations) > 300
    _same_in_blocks(new, retyped, whole)
    assert max(len(f) for f in checked) > 600, "every relation and record that points at the hub"
