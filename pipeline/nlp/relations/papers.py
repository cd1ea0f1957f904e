"""The papers of a document and what they introduce (the first pass over its sentences)."""

from __future__ import annotations

import re

from ..discourse import canon
from ..doc import span_value
from ..rules import load_rules, norm
from ..text import prefiltered
from .common import INTRO_CUE, LINE_TITLE_RULES, NOVEL, PAPER_ANAPHOR, UNTITLED_CUE
from .reader import Reader, Sentence

__all__ = ["paper_focus", "title_prefix", "untitled_abstract", "teaser_subject", "appositive_name", "novel", "cue_verb"]

_CUES = load_rules().cue_patterns["paper_relations"]
_APPOSITIVE = re.compile(_CUES["appositive"])
_CALLED = prefiltered(re.compile(_CUES["called"]))
_CALLED_NAME = prefiltered(re.compile(_CUES["called_name"]))
_TEASER_LEAD = re.compile(_CUES["teaser_lead"])
"""What may open a teaser's sentence before its coined name: "The method, OccluAvatar, builds on ..."."""
_SUBJECT_VERB_AFTER = re.compile(_CUES["subject_verb_after"])
"""A verb right after a name that makes it the sentence's subject: "PolyLoRA routes every token ..."."""



def paper_focus(rd: Reader, sn: Sentence) -> None:
    """The paper in focus moves to a titled paper of this sentence, or lapses after a paragraph."""
    st = rd.st
    pidx, papers = sn.pidx, sn.papers
    if papers:
        st.cur_paper, st.paper_para = papers[-1], pidx
        if span_value(papers[-1], "mlkg_rule", "") in LINE_TITLE_RULES:
            st.line_title, st.line_title_para = papers[-1], pidx
    if pidx - st.paper_para > 1 or (pidx != st.paper_para and st.cur_paper is not None and span_value(st.cur_paper, "mlkg_rule", "") == "paper.untitled_abstract"):
        st.cur_paper = None  # "the paper" refers to a paper of this paragraph or the one before


def title_prefix(rd: Reader, sn: Sentence) -> None:
    """A title "Name: Subtitle" introduces Name."""
    st, add = rd.st, rd.add
    sent, papers, things = sn.sent, sn.papers, sn.things
    # title prefix: "Name: Subtitle" introduces Name
    for p in papers:
        for t in things:
            if t.start_char == p.start_char and t.end_char < p.end_char:
                add(p, "introduces", t, sent, "introduces.title_prefix", 0.9)
                st.paper_methods.setdefault(norm(canon(p)), []).append(t)
                st.cur_method = t


def untitled_abstract(rd: Reader, sn: Sentence) -> bool:
    """"In this paper, we propose X": the paper of an abstract (a title line above, the paper named in this
    paragraph, else an untitled one) introduces X. True when the sentence is done with."""
    doc, dtext, para_of, st, new_spans, add = rd.doc, rd.dtext, rd.para_of, rd.st, rd.new_spans, rd.add
    sent, text, pidx, papers, things = sn.sent, sn.text, sn.pidx, sn.papers, sn.things
    # untitled papers of abstracts: "In this paper, we propose X"
    m = UNTITLED_CUE.search(text)
    if m and not papers:
        cue_end = sent.start_char + m.end()
        objs = [t for t in things if t.start_char >= cue_end and len(dtext[cue_end:t.start_char].split()) <= 6]
        if objs:
            pidx = para_of[sent.start]
            paper = st.untitled.get(pidx)
            known = st.paper_methods.get(norm(canon(st.line_title)), []) if st.line_title is not None else []
            if paper is None and st.line_title is not None and pidx - st.line_title_para <= 3 and (
                    not known or any(norm(canon(k)) == norm(canon(objs[0])) for k in known)):
                # "Title: ...\nAuthors: ...\nAbstract: We present X": the abstract of the titled entry above
                paper = st.untitled[pidx] = st.line_title
                st.line_title = None
            if paper is None and st.cur_paper is not None and st.paper_para == pidx and span_value(st.cur_paper, "mlkg_rule", "") != "paper.untitled_abstract":
                paper = st.cur_paper  # "... will share <Title>. We construct X ...": the paper named in this paragraph
            if paper is None:
                paper = doc.char_span(sent.start_char + m.start(), cue_end, label="Paper", alignment_mode="expand")
                paper._.mlkg_canonical = f"Paper introducing {canon(objs[0])}"
                paper._.mlkg_rule = "paper.untitled_abstract"
                st.untitled[pidx] = paper
                new_spans.append(paper)
            add(paper, "introduces", objs[0], sent, "introduces.we_propose", 0.85)
            st.paper_methods.setdefault(norm(canon(paper)), []).append(objs[0])
            st.cur_paper, st.cur_method, st.paper_para = paper, objs[0], pidx
            return True
    return False


def teaser_subject(rd: Reader, sn: Sentence) -> None:
    """A teaser under a title line names its method as the subject of a sentence."""
    dtext, known_names, st, add = rd.dtext, rd.known_names, rd.st, rd.add
    sent, text, pidx, papers, things = sn.sent, sn.text, sn.pidx, sn.papers, sn.things
    # a teaser under a title line that names its method without "we propose": "PolyLoRA routes every token
    # ...", "The method, OccluAvatar, builds on ...": the first coined name the paragraph makes the subject
    # of a sentence, unless the title's paper already introduces something or the name is a known one
    lt = st.line_title
    if lt is not None and not papers and pidx - st.line_title_para == 1 and not st.paper_methods.get(norm(canon(lt))) \
            and st.cur_paper is lt:
        lead = _TEASER_LEAD.match(text)
        first = [t for t in things if t.start_char == sent.start_char + lead.end() and norm(canon(t)) not in known_names
                 and _SUBJECT_VERB_AFTER.match(dtext[t.end_char:t.end_char + 20])]
        if first:
            add(lt, "introduces", first[0], sent, "introduces.teaser_subject", 0.7)
            st.paper_methods.setdefault(norm(canon(lt)), []).append(first[0])
            st.cur_method = first[0]


def appositive_name(rd: Reader, sn: Sentence) -> None:
    """"The method, OccluAvatar, builds on ...": the paper in focus names what it introduces."""
    st, add = rd.st, rd.add
    sent, text, pidx, papers, things = sn.sent, sn.text, sn.pidx, sn.papers, sn.things
    # "The method, OccluAvatar, builds on ...": the paper in focus names what it introduces
    am = _APPOSITIVE.match(text)
    if am and not papers and st.cur_paper is not None and pidx - st.paper_para <= 1:
        named = [t for t in things if t.start_char == sent.start_char + am.end()]
        if named:
            add(st.cur_paper, "introduces", named[0], sent, "introduces.appositive_name", 0.75)
            st.paper_methods.setdefault(norm(canon(st.cur_paper)), []).append(named[0])
            st.cur_method = named[0]


def novel(rd: Reader, sn: Sentence) -> None:
    """"a novel X" / "A new X" in an abstract whose paper is known."""
    dtext, para_of, st, add = rd.dtext, rd.para_of, rd.st, rd.add
    sent, pidx, things = sn.sent, sn.pidx, sn.things
    # "a novel X" / "A new X" in an abstract whose paper is known
    pidx = para_of[sent.start]
    if pidx in st.untitled:
        for t in things:
            if NOVEL.search(dtext[max(sent.start_char, t.start_char - 40):t.start_char]):
                add(st.untitled[pidx], "introduces", t, sent, "introduces.novel", 0.75)


def cue_verb(rd: Reader, sn: Sentence) -> None:
    """"The paper shares X", "which proposes X", "Called X, this technique"."""
    st, add, negated = rd.st, rd.add, rd.negated
    sent, text, papers, things = sn.sent, sn.text, sn.papers, sn.things
    # "The paper shares X", "which proposes X", "Called X, this technique"
    subj = papers[-1] if papers else (st.cur_paper if PAPER_ANAPHOR.search(text) or _CALLED.search(text) else None)
    if subj is not None:
        for cm in INTRO_CUE.finditer(text):
            cue_end = sent.start_char + cm.end()
            if negated(sent, subj.end_char if subj.start_char >= sent.start_char else sent.start_char, cue_end):
                continue
            objs = [t for t in things if t.start_char >= cue_end and not (subj.start_char <= t.start_char < subj.end_char)]
            if objs:
                add(subj, "introduces", objs[0], sent, "introduces.cue_verb", 0.8)
                st.paper_methods.setdefault(norm(canon(subj)), []).append(objs[0])
                st.cur_method = objs[0]
                break
        cm = _CALLED_NAME.search(text)
        if cm and st.cur_paper is not None:
            objs = [t for t in things if t.start_char == sent.start_char + cm.end()]
            if objs:
                add(st.cur_paper, "introduces", objs[0], sent, "introduces.called", 0.8)
                st.paper_methods.setdefault(norm(canon(st.cur_paper)), []).append(objs[0])
