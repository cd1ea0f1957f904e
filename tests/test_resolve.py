"""Merging rules: pairs that must merge and pairs that must not."""

import pytest

from pipeline.model import Document, Evidence, Extraction, Mention
from pipeline.resolve import resolve
from pipeline.vocab import MLKG


def _m(doc_id, text, cls=MLKG.Method, canonical="", aliases=()):
    ev = Evidence(doc_id=doc_id, sentence=text, start_char=0, end_char=len(text))
    return Mention(doc_id=doc_id, text=text, cls=cls, start_char=0, end_char=len(text), evidence=ev,
                   canonical=canonical, aliases=tuple(aliases))


def _ex(doc_id, *mentions):
    from pathlib import Path

    return Extraction(document=Document(id=doc_id, path=Path(doc_id), text=""), mentions=tuple(mentions), relations=())


@pytest.mark.parametrize("a,b", [
    (_m("d1", "FlashAttention-2"), _m("d2", "FLASHATTENTION2")),
    (_m("d1", "Cut Cross-Entropy (CCE)", canonical="Cut Cross-Entropy", aliases=("CCE",)), _m("d1", "CCE")),
    (_m("d1", "ICLR", MLKG.Venue, canonical="ICLR 2025"),
     _m("d2", "Thirteenth International Conference on Learning Representations", MLKG.Venue, canonical="ICLR 2025")),
    (_m("d1", "Kvarnby Universität Zürich", MLKG.Organization), _m("d2", "Kvarnby Universitat Zurich", MLKG.Organization)),
    (_m("d1", "Élan-Net"), _m("d2", "Elan-Net")),
])
def test_resolve_merges(a, b):
    res = resolve([_ex("d1", a), _ex("d2", b)])
    assert len(res.entities) == 1
    assert res.entities[0].doc_ids == tuple(sorted({a.doc_id, b.doc_id}))


@pytest.mark.parametrize("a,b", [
    (_m("d1", "robust posterior estimation (RoPE)", canonical="robust posterior estimation", aliases=("RoPE",)),
     _m("d2", "rotary position embedding (RoPE)", canonical="rotary position embedding", aliases=("RoPE",))),
    (_m("d1", "MNIST", MLKG.Dataset), _m("d1", "MNIST", MLKG.Method)),
    (_m("d1", "ICLR 2025", MLKG.Venue, canonical="ICLR 2025"), _m("d1", "ICLR 2026", MLKG.Venue, canonical="ICLR 2026")),
])
def test_resolve_keeps_apart(a, b):
    res = resolve([_ex("d1", a), _ex("d2", b)])
    assert len(res.entities) == 2


def test_resolve_is_independent_of_document_order():
    exs = [_ex("d1", _m("d1", "TarFlowX"), _m("d1", "Masked Flows (MF)", canonical="Masked Flows", aliases=("MF",))),
           _ex("d2", _m("d2", "MF"), _m("d2", "TARFLOWX"))]
    forward, backward = resolve(exs), resolve(list(reversed(exs)))
    assert forward == backward
    assert {e.key for e in forward.entities} == {"Method/tarflowx", "Method/maskedflows"}


def _rules(entity):
    return {(r.doc_id, r.text, r.rule) for r in entity.merge_log}


def test_merge_log_names_each_merged_form_and_its_rule():
    res = resolve([_ex("d1", _m("d1", "GigaNet"), _m("d1", "GigaNet")), _ex("d2", _m("d2", "GIGANET"))])
    (entity,) = res.entities
    assert entity.label == "GigaNet"
    assert _rules(entity) == {("d1", "GigaNet", "label"), ("d2", "GIGANET", "same-normalised-name")}


def test_merge_log_tells_an_acronym_pair_from_an_alias_learned_elsewhere():
    pair = _m("d1", "Masked Flows (MFS)", canonical="Masked Flows", aliases=("MFS",))  # not the initials (below)
    acronym_first = _m("d2", "MFS (Masked Flows)", canonical="MFS", aliases=("Masked Flows",))
    bare = _m("d3", "MFS")
    res = resolve([_ex("d1", pair), _ex("d2", acronym_first), _ex("d3", bare), _ex("d4", _m("d4", "Masked Flows"))])
    (entity,) = res.entities
    assert entity.label == "Masked Flows"
    assert _rules(entity) == {("d1", "Masked Flows (MFS)", "label"), ("d4", "Masked Flows", "label"),
                              ("d2", "MFS (Masked Flows)", "own-acronym-pair"), ("d3", "MFS", "shared-alias")}


def test_merge_log_rules_are_documented():
    from pipeline.model import MERGE_RULES

    res = resolve([_ex("d1", _m("d1", "Masked Flows (MF)", canonical="Masked Flows", aliases=("MF",)), _m("d1", "MF"))])
    assert {r.rule for e in res.entities for r in e.merge_log} <= set(MERGE_RULES)


def _rel(doc_id, s, p, o):
    from pipeline.model import RelationMention

    return RelationMention(subject=s, predicate=p, object=o, evidence=s.evidence, rule="test", confidence=0.5)


def _docs():
    """Three documents: an acronym pair, a bare acronym and a long form, and a relation between them."""
    from pipeline.facts import compact

    pair = _m("d1", "Masked Flows (MF)", canonical="Masked Flows", aliases=("MF",))
    bare = _m("d2", "MF")
    cifar = _m("d2", "CIFAR-10", MLKG.Dataset)
    other = _m("d3", "GigaNet")
    exs = [_ex("d1", pair),
           Extraction(document=_ex("d2").document, mentions=(bare, cifar), relations=(_rel("d2", bare, MLKG.evaluatedOn, cifar),)),
           _ex("d3", other, _m("d3", "GIGANET"))]
    return {ex.document.id: compact(ex) for ex in exs}


def _table(add, remove=(), readd=()):
    from pipeline.resolve import NameTable

    facts = _docs()
    t = NameTable()
    for d in add:
        t.add(d, facts[d])
    for d in remove:
        t.remove(d, facts[d])
    for d in readd:
        t.add(d, facts[d])
    t.finish()
    return t


@pytest.mark.parametrize("removed", ["d1", "d2", "d3"])
def test_name_table_remove_and_re_add_give_the_tables_of_never_removing(removed):
    """remove takes out exactly what add put in: removing a document gives the entities of never adding it,
    and adding it again gives those of adding it once (the label vote, alt labels and relations too)."""
    kept = [d for d in ("d1", "d2", "d3") if d != removed]
    without, direct = _table(kept), _table(["d1", "d2", "d3"])
    gone = _table(["d1", "d2", "d3"], [removed])
    assert (gone.entities, gone.relations) == (without.entities, without.relations)
    back = _table(["d1", "d2", "d3"], [removed], [removed])
    assert (back.entities, back.relations) == (direct.entities, direct.relations)


def test_name_table_regroup_after_a_change_equals_a_fresh_finish():
    """The patched rebuild's path: finish, take a document out, join again only where it mattered."""
    facts = _docs()
    t = _table(["d1", "d2", "d3"])
    assert t.entities["Method/mf"][2] == ("Masked Flows",)  # "MF" twice in d2 (a mention and a subject)
    touched = t.remove("d1", facts["d1"])  # the pair goes: "MF" no longer joins "Masked Flows"
    g = t.regroup(touched, t.name_keys(facts["d1"]))
    fresh = _table(["d2", "d3"])
    assert (t.entities, t.relations) == (fresh.entities, fresh.relations)
    assert t.entities["Method/mf"][2] == () and "Method/mf" in g.old_keys
    t.add("d1", facts["d1"])  # and back: one entity again
    g = t.regroup(t.name_ids(facts["d1"]), t.name_keys(facts["d1"]))
    again = _table(["d1", "d2", "d3"])
    assert (t.entities, t.relations) == (again.entities, again.relations)
    assert t.entities["Method/mf"][2] == ("Masked Flows",) and "Method/giganet" not in g.old_keys


# Variant rules (names.variants): forms of one name that the text never pairs -------------------------------------
_ORG = MLKG.Organization


@pytest.mark.parametrize("a,b,rule", [
    (_m("d1", "Zorblat University", _ORG), _m("d2", "Zorblat", _ORG), "organisation-suffix"),
    (_m("d1", "Brevik National Laboratories", _ORG), _m("d2", "Brevik", _ORG), "organisation-suffix"),
    (_m("d1", "Zorblat Systems", _ORG), _m("d2", "Zorblat", _ORG), "organisation-suffix"),
    (_m("d1", "Zorblat Group", _ORG), _m("d2", "Zorblat", _ORG), "organisation-suffix"),
    (_m("d1", "Zorblat Technologies", _ORG), _m("d2", "Zorblat", _ORG), "organisation-suffix"),
    (_m("d1", "GigaNets"), _m("d2", "GigaNet"), "plural"),
    (_m("d1", "Quokka 1.0"), _m("d2", "Quokka"), "variant-suffix"),
    (_m("d1", "FooBench v1.0", MLKG.Dataset), _m("d2", "FooBench", MLKG.Dataset), "variant-suffix"),
    (_m("d1", "Lattice Quantum Sampler"), _m("d2", "LQS"), "initials"),
    (_m("d1", "Wexford Institute of Robotics", _ORG), _m("d2", "WIR", _ORG), "initials"),
    (_m("d1", "Zentrix Vector Engine", MLKG.Hardware), _m("d2", "Vector Engine", MLKG.Hardware), "leading-word"),
    (_m("d1", "Zentrix Z9", MLKG.Hardware), _m("d2", "Z9", MLKG.Hardware), "leading-word"),
])
def test_variant_rules_merge_forms_of_one_name(a, b, rule):
    for docs in ([_ex("d1", a), _ex("d2", b)], [_ex("d2", b), _ex("d1", a)]):
        (entity,) = resolve(docs).entities
        assert {r.rule for r in entity.merge_log} == {"label", rule}


@pytest.mark.parametrize("mentions", [
    [_m("d1", "Quokka"), _m("d2", "Quokka v1"), _m("d3", "Quokka 1.0")],        # two endings: neither is the name
    [_m("d1", "Quokka"), _m("d2", "Quokka 2")],                               # a new version is another model
    [_m("d1", "Quokka"), _m("d2", "Quokka v2")],
    [_m("d1", "Quokka"), _m("d2", "Quokka V1"), _m("d3", "Quokka V2")],        # a first of several versions
    [_m("d1", "Quokka"), _m("d2", "Quokka 7B")],                              # a size is often another entity
    [_m("d1", "Zorblat", _ORG), _m("d2", "Zorblat Research", _ORG)],           # a lab is not its company
    [_m("d1", "GigaNet"), _m("d2", "GigaNets", MLKG.Dataset)],                # nothing merges across classes
    [_m("d1", "GPU", MLKG.Hardware), _m("d2", "Zentrix GPU", MLKG.Hardware)],  # a maker's GPUs are not all GPUs
    [_m("d1", "Vector Engine"), _m("d2", "Zentrix Vector Engine")],          # a hardware rule only
    [_m("d1", "LQS"), _m("d2", "Lattice Quantum Sampler"), _m("d3", "Linear Quadratic Solver")],  # two long forms
    [_m("d1", "Lqs"), _m("d2", "Lattice Quantum Sampler")],                  # not written as an acronym
    [_m("d1", "Lattice Quantum Sampler (LQS)", canonical="Lattice Quantum Sampler", aliases=("LQS",)),
     _m("d2", "Linear Quadratic Solver")],                                    # the text pairs the acronym elsewhere
])
def test_variant_rules_keep_apart(mentions):
    res = resolve([_ex(m.doc_id, m) for m in mentions])
    names = {m.canonical or m.text for m in mentions}
    assert len(res.entities) == len(names), [e.label for e in res.entities]


def _variant_docs():
    from pipeline.facts import compact

    exs = [_ex("d1", _m("d1", "Quokka"), _m("d1", "Zorblat University", _ORG)),
           _ex("d2", _m("d2", "Quokka v1.0"), _m("d2", "Zorblat", _ORG), _m("d2", "LQS")),
           _ex("d3", _m("d3", "Quokka 1.0"), _m("d3", "Lattice Quantum Sampler")),
           _ex("d4", _m("d4", "Linear Quadratic Solver"), _m("d4", "GigaNets"), _m("d4", "GigaNet"))]
    return {ex.document.id: compact(ex) for ex in exs}


def _finished(facts, docs):
    from pipeline.resolve import NameTable

    t = NameTable()
    for d in docs:
        t.add(d, facts[d])
    t.finish()
    return t


@pytest.mark.parametrize("changed", ["d1", "d2", "d3", "d4"])
def test_variant_merges_regroup_like_a_fresh_finish(changed):
    """Taking out a document can make a size the only one (or an acronym's long form the only one): the
    patched tables equal a fresh finish, on the way out and back in."""
    facts = _variant_docs()
    every = sorted(facts)
    t = _finished(facts, every)
    touched = t.remove(changed, facts[changed])
    t.regroup(touched, t.name_keys(facts[changed]))
    fresh = _finished(facts, [d for d in every if d != changed])
    assert (t.entities, t.relations) == (fresh.entities, fresh.relations)
    t.add(changed, facts[changed])
    t.regroup(t.name_ids(facts[changed]), t.name_keys(facts[changed]))
    again = _finished(facts, every)
    assert (t.entities, t.relations) == (again.entities, again.relations)


def test_variant_merges_depend_on_every_document():
    facts = _variant_docs()
    labels = lambda t: sorted(label for _, label, _, _ in t.entities.values())
    assert labels(_finished(facts, ["d1", "d2"])) == ["LQS", "Quokka v1.0", "Zorblat University"]
    assert labels(_finished(facts, ["d1", "d2", "d3"])) == ["Lattice Quantum Sampler", "Quokka", "Quokka 1.0",
                                                            "Quokka v1.0", "Zorblat University"]
    assert "LQS" in labels(_finished(facts, ["d2", "d3", "d4"]))  # two long forms: the acronym stays apart


def test_one_relation_named_two_ways_in_one_sentence_has_one_evidence_record():
    """"Lattice Quantum Sampler" and "LQS" merge (initials): the relation read once with each name in one sentence
    gets one evidence node with one confidence (the shapes allow one), the more confident record, in every plan."""
    from pipeline.model import RelationMention
    from pipeline.rdf import to_graph
    from pipeline.vocab import MLKG as V

    text = "Lattice Quantum Sampler (LQS) runs on the Zentrix Z9."
    ev = Evidence(doc_id="d1", sentence=text, start_char=0, end_char=len(text))
    long_form = Mention(doc_id="d1", text="Lattice Quantum Sampler", cls=MLKG.Method, start_char=0, end_char=23, evidence=ev)
    acronym = Mention(doc_id="d1", text="LQS", cls=MLKG.Method, start_char=25, end_char=28, evidence=ev)
    hw = Mention(doc_id="d1", text="Zentrix Z9", cls=MLKG.Hardware, start_char=42, end_char=52, evidence=ev)
    rels = (RelationMention(subject=long_form, predicate=MLKG.runsOn, object=hw, evidence=ev, rule="a", confidence=0.7),
            RelationMention(subject=acronym, predicate=MLKG.runsOn, object=hw, evidence=ev, rule="b", confidence=0.9))
    from pathlib import Path

    ex = Extraction(document=Document(id="d1", path=Path("d1"), text=text), mentions=(long_form, acronym, hw), relations=rels)
    g = to_graph(resolve([ex]))
    assert [float(c) for c in g.objects(None, V.confidence)] == [0.9]
    assert [str(r) for r in g.objects(None, V.rule)] == ["b"]
