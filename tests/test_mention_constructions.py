"""Mention candidates and features for constructions the name-shape rules cannot see: a list after "the X tasks:",
an apposition that says what a name is, a longer organization over a lexicon's, a title line's authors, a
workshop's name inside a bracketed tag."""

from __future__ import annotations

import numpy
import pytest

from pipeline.nlp.candidates import MentionCandidate, Typed, layout, mention_candidates
from pipeline.nlp.classify import select
from pipeline.nlp.extract import doc_of
from pipeline.nlp.features import doc_context, mention_features


@pytest.fixture(scope="module")
def parse(nlp):
    def run(text):
        return nlp(doc_of(nlp, text), disable=["mlkg_learned"])
    return run


def _features(parse, text: str) -> dict[str, tuple[MentionCandidate, list[str]]]:
    doc = parse(text)
    lay = layout(doc)
    cands = mention_candidates(doc, lay)
    ctx = doc_context(doc, lay, cands)
    return {lay.text[c.start_char:c.end_char]: (c, mention_features(doc, lay, c, ctx)) for c in cands}


def test_a_lower_case_phrase_is_no_candidate(parse):
    """Lower-case technique phrases are not candidates: leave-one-set-out they found few names annotators list."""
    got = _features(parse, "The student is trained with knowledge distillation and 4-bit quantization.")
    assert "knowledge distillation" not in got and "distillation" not in got, sorted(got)


def test_a_list_after_a_colon_knows_its_intro_noun(parse):
    got = _features(parse, "We fine-tune on the eight GLUE tasks: MNLI, SST-2, QNLI and QQP.")
    for name in ("MNLI", "QNLI"):
        f = got[name][1]
        assert "intro=task" in f and "intro_class=Dataset" in f, f


def test_an_apposition_names_the_kind_of_thing(parse):
    got = _features(parse, "Kestrelware, a Canadian robotics start-up, showed the arm at the fair.")
    assert "appos_noun=start-up" in got["Kestrelware"][1]


def test_a_longer_organization_replaces_the_lexicon_name_it_starts_with(parse):
    doc = parse("Google AI Research released the model, and Apple ML researchers tested it.")
    lay = layout(doc)
    cands = mention_candidates(doc, lay)
    text = lay.text

    def row(c):
        surface = text[c.start_char:c.end_char]
        # the model is sure of both longer spans; only the one ending on an organization's word replaces "Google"
        sure = surface in {"Google AI Research", "Apple ML"}
        return [0.0, 0.0, 0.0, 0.0, 0.0, 0.95 if sure else (0.5 if c.rule_cls == "Organization" else 0.0)]

    labels = ("Paper", "Method", "Dataset", "Venue", "Hardware", "Organization")
    kept = {text[t.cand.start_char:t.cand.end_char] for t in
            select(cands, numpy.asarray([row(c) for c in cands]), labels, texts=lay.texts) if t.cls == "Organization"}
    assert "Google AI Research" in kept and "Google" not in kept
    assert "Apple" in kept and "Apple ML" not in kept


def test_a_lead_of_names_before_the_first_full_stop_is_a_byline(parse):
    text = ("> Skip-Steps for Efficient Video Processing\n"
            "Kestrel AI Research, Heron National University. Video models recompute every frame.\n")
    got = _features(parse, text)
    assert "in_lead_nw" in got["Kestrel AI Research"][1]
    assert "in_lead_nw" in got["Heron National University"][1]
    assert "next_lead_nw" in got["Skip-Steps for Efficient Video Processing"][1]
    assert not any(f.startswith("in_lead") for f in got["Skip-Steps for Efficient Video Processing"][1])


def test_a_speaker_line_is_a_labelled_line(parse):
    got = _features(parse, "Learning Rules with Language Models\nSpeaker: Ann Lee\n")
    assert "next_first=speaker" in got["Learning Rules with Language Models"][1]


def test_a_title_line_ends_before_its_authors_in_parentheses(parse):
    doc = parse("Papers at the conference:\n- Kite: Sparse Weights for Small Models (Ann Lee, Bo Chan, Cy Dunn)\n"
                "- Tern: Fast Decoding (Spotlight)\n")
    titles = {s.text for s in doc.spans["mlkg_mentions"] if s.label_ == "Paper"}
    assert "Kite: Sparse Weights for Small Models" in titles, titles


def test_a_workshop_name_ends_at_the_bracket_that_closes_its_tag(parse):
    doc = parse("* [Best paper, Workshop on Tiny Robots] Kite: Sparse Weights for Small Models\n")
    venues = {s.text for s in doc.spans["mlkg_mentions"] if s.label_ == "Venue"}
    assert "Workshop on Tiny Robots" in venues, venues
