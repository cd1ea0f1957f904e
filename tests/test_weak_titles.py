"""A paper's title the mention model doubts stays when the relation model is sure of two facts about it
(``classify.TITLE_WEAK_BAR``, ``TITLE_REL_BAR``, ``TITLE_RELATIONS``)."""

from __future__ import annotations

import numpy
import pytest

from pipeline.nlp.candidates import MentionCandidate, PairCandidate, Typed, layout, mention_candidates
from pipeline.nlp.classify import TITLE_REL_BAR, TITLE_WEAK_BAR, WEAK_BAR, _without_weak, select
from pipeline.nlp.extract import doc_of
from pipeline.train import CLASSES

TEXT = ("Tweet thread, layout generation\n"
        "8/ LayoutGAN: Generating Graphic Layouts with Wireframe Discriminators, ICLR 2019\n"
        "9/ Grid sizes matter more than you think\n")
TITLE = "LayoutGAN: Generating Graphic Layouts with Wireframe Discriminators"
HEADLINE = "Grid sizes matter more than you think"


@pytest.fixture(scope="module")
def entry(nlp):
    doc = nlp(doc_of(nlp, TEXT), disable=["mlkg_learned"])
    lay = layout(doc)
    cands = [c for c in mention_candidates(doc, lay) if not c.rule_cls]
    return lay, cands


def _probs(lay, cands, rated: dict[str, tuple[str, float]]) -> numpy.ndarray:
    """Each candidate rated 0.01 for every class but the ones in ``rated`` (surface: (class, probability))."""
    probs = numpy.full((len(cands), len(CLASSES)), 0.01)
    for k, c in enumerate(cands):
        got = rated.get(lay.text[c.start_char:c.end_char])
        if got:
            probs[k, CLASSES.index(got[0])] = got[1]
    return probs


def test_a_doubted_title_is_a_weak_pick_from_the_title_bar(entry):
    lay, cands = entry
    p = (TITLE_WEAK_BAR + WEAK_BAR) / 2  # under the weak bar of other classes, over the title bar
    picks = select(cands, _probs(lay, cands, {TITLE: ("Paper", p), HEADLINE: ("Method", p)}), CLASSES, weak=WEAK_BAR,
                   texts=lay.texts)
    got = {(lay.text[t.cand.start_char:t.cand.end_char], t.cls) for t in picks}
    assert (TITLE, "Paper") in got
    assert all(text != HEADLINE for text, _ in got)  # only a title has the lower bar
    assert select(cands, _probs(lay, cands, {TITLE: ("Paper", p)}), CLASSES, weak=None, texts=lay.texts) == []


def _typed(i, cls, prob, rule_cls=""):
    return Typed(MentionCandidate(i, i + 1, 10 * i, 10 * i + 5, "line", rule_cls, "rule" if rule_cls else ""), cls, prob)


def test_a_doubted_title_stays_with_two_sure_relations_to_names_not_doubted():
    """The title of "LayoutGAN: ..." (0.3) with its venue and its method, both sure: it stays with both relations;
    a headline (0.3) next to a venue only, however sure, goes; a weak method does not get the title's rule."""
    sure = max(TITLE_REL_BAR, 0.95)
    ts = [_typed(0, "Paper", 0.3), _typed(1, "Venue", 0.99, "Venue"), _typed(2, "Method", 0.95),
          _typed(3, "Paper", 0.3), _typed(4, "Method", 0.3), _typed(5, "Organization", 0.9)]
    rels = [(0, "presentedAt", 1, sure, PairCandidate(0, 1, "sentence")),
            (0, "introduces", 2, sure, PairCandidate(0, 2, "sentence")),
            (3, "presentedAt", 1, 1.0, PairCandidate(3, 1, "near")),
            (4, "uses", 2, sure, PairCandidate(4, 2, "sentence")),
            (5, "affiliatedWith", 4, sure, PairCandidate(5, 4, "sentence"))]
    d = _without_weak(ts, rels, 0.8, 0.5)
    assert [(t.cand.start, t.cls) for t in d.typed] == [(0, "Paper"), (1, "Venue"), (2, "Method"), (5, "Organization")]
    assert [(p, pair.s, pair.o) for _, p, _, _, pair in d.relations] == [("presentedAt", 0, 1), ("introduces", 0, 2)]


def test_relations_to_a_weak_name_do_not_count_for_a_doubted_title():
    sure = max(TITLE_REL_BAR, 0.95)
    ts = [_typed(0, "Paper", 0.3), _typed(1, "Organization", 0.6), _typed(2, "Venue", 0.99, "Venue")]
    rels = [(0, "affiliatedWith", 1, sure, PairCandidate(0, 1, "sentence")),
            (0, "presentedAt", 2, sure, PairCandidate(0, 2, "sentence"))]
    assert [t.cls for t in _without_weak(ts, rels, 0.8, 0.5).typed] == ["Venue"]


def test_two_mentions_of_one_name_are_one_fact_about_a_doubted_title():
    """A blog's section heading tied to the blog's organization through two of its mentions goes: one name."""
    sure = max(TITLE_REL_BAR, 0.98)

    def org(i):
        return Typed(MentionCandidate(i, i + 1, 10 * i, 10 * i + 5, "rule", "Organization", "org.lexicon", "Apple"),
                     "Organization", 1.0)

    ts = [_typed(0, "Paper", 0.3), org(1), org(2)]
    rels = [(0, "affiliatedWith", 1, sure, PairCandidate(0, 1, "entry")),
            (0, "affiliatedWith", 2, sure, PairCandidate(0, 2, "paragraph"))]
    assert [t.cls for t in _without_weak(ts, rels, 0.8, 0.5).typed] == ["Organization", "Organization"]
