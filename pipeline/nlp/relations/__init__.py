"""Relation rules: sentence-level cue patterns between mentions, with paragraph context for "the paper", "this work".

A document is read twice, sentence by sentence: first for its papers and what they introduce (``papers``), then
for every other relation, one family per module (``venues``, ``affiliations``, ``demos``, ``methods``,
``evaluation``, ``hardware``), the discourse state (``..discourse``) carried from sentence to sentence; then
once as a whole (``document``).
"""

from __future__ import annotations

from spacy.tokens import Doc, Span

from .. import budget
from .affiliations import affiliated_with
from .demos import demos
from .document import event_post, own_benchmark
from .evaluation import evaluated_on
from .hardware import runs_on
from .methods import comparatives, dependency, method_cues, named_variant
from .papers import appositive_name, cue_verb, novel, paper_focus, teaser_subject, title_prefix, untitled_abstract
from .reader import Reader, first_pass_sentence, second_pass_sentence
from .venues import method_for_paper, part_of, presented_in_focus, presented_in_sentence, venue_line

__all__ = ["find_relations"]

_SENTENCE_FAMILIES = (part_of, presented_in_sentence, presented_in_focus, venue_line, method_for_paper, affiliated_with)
"""The relations of the second pass read before the demos, in order."""
_AFTER_DEMOS = (method_cues, comparatives, dependency, named_variant, evaluated_on, runs_on)
"""... and after them (they read whether the sentence is a demo's)."""


def find_relations(doc: Doc, finder) -> list[tuple]:
    """All relations in ``doc`` as ``(subject, property, object, sentence, rule, confidence)``."""
    rd = Reader(doc, finder)
    _read_papers(rd)
    _read_relations(rd)
    event_post(rd)
    own_benchmark(rd)
    if rd.new_spans:
        group = doc.spans["mlkg_mentions"]
        for s in rd.new_spans:
            group.append(s)
    return rd.out


def _read_papers(rd: Reader) -> None:
    """The first pass: papers and what they introduce."""
    for sent in rd.sents:
        budget.check(rd.doc, "the relation rules (papers)")
        sn = first_pass_sentence(rd, sent)
        paper_focus(rd, sn)
        title_prefix(rd, sn)
        if untitled_abstract(rd, sn):
            continue
        for family in (teaser_subject, appositive_name, novel, cue_verb):
            family(rd, sn)


def _read_relations(rd: Reader) -> None:
    """The second pass: every other relation."""
    st = rd.st
    st.cur_paper = st.cur_method = None
    prev_sent: Span | None = None
    for sent in rd.sents:
        budget.check(rd.doc, "the relation rules")
        sn = second_pass_sentence(rd, sent, prev_sent)
        for family in _SENTENCE_FAMILIES:
            family(rd, sn)
        sn.demo = demos(rd, sn)
        for family in _AFTER_DEMOS:
            family(rd, sn)
        if sn.methods and not sn.demo:
            st.cur_method = st.cur_method if st.cur_method is not None else sn.methods[0]
        prev_sent = sent
