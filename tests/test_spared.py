"""A name-shape mention the model vetoes, spared because a rule relates it, stays only while a relation to it stands
that the relation model rates ``classify.SPARED_REL_BAR`` at least, or a rule's comparison (``classify.SPARED_BY_RULES``)."""

from __future__ import annotations

import pytest

from pipeline.nlp.candidates import PairCandidate, Typed, layout, mention_candidates
from pipeline.nlp.classify import SPARED_REL_BAR, VETO, _without_weak
from pipeline.nlp.extract import doc_of


@pytest.fixture(scope="module")
def rules_of(nlp):
    """The rules' mentions of a sentence (by surface) and their relations (subject, property, object, rule)."""

    def run(text: str):
        doc = nlp(doc_of(nlp, text), disable=["mlkg_learned"])
        lay = layout(doc)
        cands = {lay.text[c.start_char:c.end_char]: c for c in mention_candidates(doc, lay) if c.rule_cls}
        rels = [(s.text, p, o.text, rule) for s, p, o, _, rule, *_ in doc._.mlkg_relations]
        return cands, rels

    return run


def _decision(cands, rels, probs: dict[str, float], rel_probs: dict[str, float], spared_bar=SPARED_REL_BAR):
    """``_without_weak`` over the rules' mentions typed with ``probs`` and the rules' relations the model rates
    ``rel_probs`` (by property; a relation left out is one the decision did not keep): the kept surfaces and
    relations."""
    names = list(probs)
    typed = [Typed(cands[n], cands[n].rule_cls, probs[n]) for n in names]
    out = [(names.index(s), p, names.index(o), rel_probs[p], PairCandidate(names.index(s), names.index(o), "rule", ((p, rule),)))
           for s, p, o, rule in rels if p in rel_probs]
    d = _without_weak(typed, out, 0.8, 0.5, spared_bar)
    return ([d.typed[i].cand for i in range(len(d.typed))],
            {(d.typed[s].cand.start, p, d.typed[o].cand.start) for s, p, o, *_ in d.relations})


def test_a_doubted_name_goes_with_the_rule_relation_the_model_doubts(rules_of):
    """"PRS" rated under the veto, kept for the rules' evaluatedOn: it goes when the model rates the relation low,
    and stays when it is sure of it."""
    cands, rels = rules_of("The EEGNet model was evaluated on the PRS benchmark.")
    assert ("EEGNet", "evaluatedOn", "PRS", "evaluatedOn.cue") in rels
    probs = {"EEGNet": 0.95, "PRS": VETO / 2}
    kept, relations = _decision(cands, rels, probs, {"evaluatedOn": 0.1})
    assert [c.rule for c in kept] == ["name.shape_or_context"] and kept[0] == cands["EEGNet"]
    assert relations == set()
    kept, relations = _decision(cands, rels, probs, {"evaluatedOn": max(SPARED_REL_BAR, 0.9)})
    assert kept == [cands["EEGNet"], cands["PRS"]] and len(relations) == 1


def test_a_doubted_name_whose_rule_relation_was_vetoed_goes(rules_of):
    """"MSc students built Kestrel, which runs on the NXP board": the rules' runsOn from "MSc", vetoed by the
    model, spares nothing; the device, another rule's, stays."""
    cands, rels = rules_of("MSc students built Kestrel, which runs on the NXP board.")
    assert ("MSc", "runsOn", "NXP board", "runsOn.on_hardware") in rels
    kept, _ = _decision(cands, rels, {"MSc": 0.1, "NXP board": 0.9}, {})
    assert kept == [cands["NXP board"]]


def test_a_rules_comparison_keeps_its_doubted_names(rules_of):
    """The model cannot weigh a comparison's direction ("a higher error rate than"): the rules' outperforms keeps
    both names it relates, however low the model rates them and it."""
    cands, rels = rules_of("TernRank has a higher error rate than SASRec on long sessions.")
    assert ("SASRec", "outperforms", "TernRank", "outperforms.comparative") in rels
    kept, relations = _decision(cands, rels, {"TernRank": 0.2, "SASRec": 0.2}, {"outperforms": 0.03})
    assert kept == [cands["TernRank"], cands["SASRec"]]
    assert relations == {(cands["SASRec"].start, "outperforms", cands["TernRank"].start)}


def test_without_a_bar_every_spared_name_stays(rules_of):
    cands, rels = rules_of("The EEGNet model was evaluated on the PRS benchmark.")
    kept, relations = _decision(cands, rels, {"EEGNet": 0.95, "PRS": 0.1}, {"evaluatedOn": 0.1}, spared_bar=None)
    assert kept == [cands["EEGNet"], cands["PRS"]] and len(relations) == 1
