"""What methods (and studies) are evaluated on: evaluatedOn."""

from __future__ import annotations

import re

from ..discourse import canon, introduced
from ..rules import load_rules, norm
from ..text import prefiltered
from .common import (EVALUATE_VERB, PAPER_ANAPHOR, STUDY, TRAINING, WE, clause_subject, listed_before, not_baselines,
                     subject_is_anaphor, trained_not_evaluated, ends_in_word)
from .reader import Reader, Sentence

__all__ = ["evaluated_on"]

_CUES = load_rules().cue_patterns["evaluation"]
_FRONTED = re.compile(_CUES["fronted"])
"""A sentence that opens on its evaluation: "On X and Y, ...", "Benchmarked on X, ..."."""
_INTRODUCED_BEFORE = prefiltered(re.compile(_CUES["introduced_before"]))
_INCLUDING_AFTER = re.compile(_CUES["including_after"])
_ON_FIRST = re.compile(_CUES["on_first"])
_PRONOUN_FIRST = re.compile(_CUES["pronoun_first"])
_THE_AUTHORS = re.compile(_CUES["the_authors"])
_RESULTS_LINE = re.compile(_CUES["results_line"])
"""A line about results that names no method: "Experiments span X, Y and Z", "- FID results on X"."""


def evaluated_on(rd: Reader, sn: Sentence) -> None:
    """A dataset in an evaluation sentence, and its subject: the clause's method, a listed one, the method in
    focus, the paper."""
    dtext, cues, st, study_sents, add, negated = rd.dtext, rd.cues, rd.st, rd.study_sents, rd.add, rd.negated
    sent, text, s0, pidx, methods, datasets = sn.sent, sn.text, sn.s0, sn.pidx, sn.methods, sn.datasets
    if STUDY.search(text):
        study_sents.setdefault(pidx, sent)

    # ---- evaluatedOn
    fronted = _FRONTED.match(text)
    if datasets and (cues["evaluated"].search(text) or fronted):
        clause_subj = clause_subject(sent, methods, introduced(st))
        study_list = False
        # no training cue in the sentence: none before a dataset either (``ends_in_word``), read once, not per dataset
        trains = TRAINING.search(text) is not None
        study_verb = []  # whether the sentence says "we evaluate", "the authors compare"...: read once, when first asked
        for d in datasets:
            if _INTRODUCED_BEFORE.search(dtext[max(s0, d.start_char - 40):d.start_char]):
                continue
            if (trains or ends_in_word(dtext, d.start_char)) and trained_not_evaluated(dtext[s0:d.start_char], cues["evaluated"]) and \
                    EVALUATE_VERB.search(dtext[d.end_char:sent.end_char]):
                continue  # "We pretrain X on LibriSpeech mixed with noise from MUSAN, and evaluate it on Y"
            subjects = _named_subjects(rd, sn, d, fronted, clause_subj)
            subj = _subject(rd, sn, d, subjects)
            named = subjects if len(subjects) > 1 else [subj]
            first_named = min((x.start_char for x in named if x is not None), default=s0)
            for s_ in not_baselines(dtext, sn, named, clause_subj, first_named):
                if s_ is None or negated(sent, s_.end_char if s_.end_char <= d.start_char else s0, d.start_char):
                    continue
                add(s_, "evaluatedOn", d, sent, "evaluatedOn.cue", 0.75)
            study_list = study_list or len(subjects) >= 2
            if study_list:
                _study_evaluated_on(rd, sn, d, subjects, study_verb)


def _named_subjects(rd: Reader, sn: Sentence, d, fronted, clause_subj) -> list:
    """The methods an evaluation sentence names as evaluated on dataset ``d``: the main clause's subject after a fronted
    phrase, the methods listed before it, after a colon, the anaphor's method, the last method before it, or those
    after "including"; empty when none."""
    dtext, sent, methods, datasets, anaphor_method = rd.dtext, sn.sent, sn.methods, sn.datasets, sn.anaphor_method
    st = rd.st
    subjects = []
    if fronted and clause_subj is not None and clause_subj.start_char > d.start_char:
        subjects = [clause_subj]  # "Evaluated on X and Y, TAPO beats ...", "When training A on X, B reaches"
    elif fronted and anaphor_method is not None and subject_is_anaphor(sent):
        subjects = [anaphor_method]  # "Benchmarked on X and Y, it is 1.4x faster than Z"
    elif fronted and clause_subj is None:
        # no usable parse: the main clause starts after the fronted phrase's last dataset
        last = max(x.end_char for x in datasets)
        after = [m for m in methods if m.start_char > last]
        named = [m for m in after if norm(canon(m)) in introduced(st)]
        subjects = (named or after)[:1]
    if not subjects:
        subjects = listed_before(dtext, methods, d)  # "we benchmarked CLIP and DINOv2 on X"
    if not subjects:
        colon = [m for m in methods if m.start_char > d.end_char and re.match(r"\s*:", dtext[d.end_char:])]
        subjects = colon  # "three encoders on X: A, B and C"
    if not subjects and anaphor_method is not None and subject_is_anaphor(sent):
        subjects = [anaphor_method]  # "It is benchmarked on X", "The student model is evaluated on X"
    if not subjects:
        subs = [m for m in methods if m.end_char <= d.start_char]
        subjects = subs[:1]
    if not subjects:
        subjects = [m for m in methods if m.start_char > d.end_char
                    and _INCLUDING_AFTER.fullmatch(dtext[d.end_char:m.start_char])]  # "LLMs on X, including A and B"
    return subjects


def _subject(rd: Reader, sn: Sentence, d, subjects: list):
    """The one subject of ``d``'s evaluation: the first named, else the method after a leading "On", the method in focus
    for "It" / "They", the paper before it or in focus; a paper's method where it introduces one. None: no subject."""
    st, text, ms, methods, pidx = rd.st, sn.text, sn.ms, sn.methods, sn.pidx
    subj = subjects[0] if subjects else None
    if subj is None and _ON_FIRST.match(text):
        after = [m for m in methods if m.start_char > d.end_char]
        subj = after[0] if after else None
    if subj is None and _PRONOUN_FIRST.match(text):
        subj = st.cur_method
        if subj is None and st.cur_paper is not None and pidx - st.paper_para <= 1 \
                and not st.paper_methods.get(norm(canon(st.cur_paper))):
            subj = st.cur_paper  # "It reports results on X" of a study that introduces nothing
    if subj is None:
        ps = [m for m in ms if m.label_ == "Paper" and m.end_char <= d.start_char]
        if ps:
            subj = ps[-1]
        elif PAPER_ANAPHOR.search(text) and st.cur_paper is not None:
            subj = st.cur_paper  # "The paper reports results on X"
        elif (WE.search(text) or _THE_AUTHORS.search(text)) and pidx in st.untitled:
            subj = st.untitled[pidx]
        elif (WE.search(text) or _THE_AUTHORS.search(text)) and st.cur_paper is not None:
            subj = st.cur_paper  # "We report J&F scores on X" in the paragraph of a titled paper
        elif _RESULTS_LINE.match(text):
            subj = st.cur_paper or st.cur_method  # "Experiments span X, Y and Z", "- FID results on X"
    if subj is not None and subj.label_ == "Paper":
        # the subject is the method where one is named, else the paper
        intro = [m for m in st.paper_methods.get(norm(canon(subj)), []) if m.label_ == "Method"]
        subj = intro[0] if intro else subj
    return subj


def _study_evaluated_on(rd: Reader, sn: Sentence, d, subjects: list, study_verb: list) -> None:
    """A study comparing other people's models ("The authors benchmark A and B on X", "We compare A and B on X") is
    evaluated on X itself: the paper in focus, when it introduces no method of its own (called once the sentence has
    named two subjects for one of its datasets: a later dataset of the same list, "on A and B", counts with the first
    one's two subjects)."""
    st, text, sent, s0, pidx, add, negated = rd.st, sn.text, sn.sent, sn.s0, sn.pidx, rd.add, rd.negated
    study = st.untitled.get(pidx) or st.cur_paper
    if study is not None and study.label_ == "Paper" and (pidx - st.paper_para <= 1 or pidx in st.untitled) \
            and not [m for m in st.paper_methods.get(norm(canon(study)), []) if m.label_ == "Method"] \
            and _study_verb(text, study_verb) \
            and not any(norm(canon(x)) in introduced(st) for x in subjects) \
            and not negated(sent, s0, d.start_char):
        add(study, "evaluatedOn", d, sent, "evaluatedOn.study", 0.7)


_STUDY_VERB = re.compile(_CUES["study_verb"])


def _study_verb(text: str, memo: list) -> bool:
    """Whether ``text`` says "we evaluate", "the authors compare"...: searched once per sentence (``memo``)."""
    if not memo:
        memo.append(_STUDY_VERB.search(text) is not None)
    return memo[0]

