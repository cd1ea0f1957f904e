"""Method to method: extends, outperforms and uses, by cue words, comparatives and the dependency parse."""

from __future__ import annotations

import re

from spacy.tokens import Span

from ..discourse import introduced
from ..rules import load_rules
from .common import (COMPARATIVE, change_sign, clause_subject, comparison_sign, mention_at, not_baselines,
                     subject_is_anaphor)
from .reader import Reader, Sentence

__all__ = ["method_cues", "comparatives", "dependency", "named_variant"]

_CUES = load_rules().cue_patterns["method_relations"]
_LIST_LINK = re.compile(_CUES["list_link"])
"""Between coordinated objects: "beats XMem and Cutie", "outperforms both PPO, SAC and the ..."."""
_AND_BEFORE = re.compile(_CUES["and_before"])
_PRONOUN_BEFORE = re.compile(_CUES["pronoun_before"])
"""A pronoun or "its X" just before a cue: "..., and it outperforms X"."""
_USING_FIRST = re.compile(_CUES["using_first"])
_PRONOUN_BEFORE_COMPARISON = re.compile(_CUES["pronoun_before_comparison"])
_VARIANT_AFTER = re.compile(_CUES["variant_after"])
"""The head noun after a name that makes it the extended one: "a Fourier Neural Operator variant"."""
_COPULA_ARTICLE_BEFORE = re.compile(_CUES["copula_article_before"])


def method_cues(rd: Reader, sn: Sentence) -> None:
    """"X extends Y", "X beats Y and Z", "X uses Y", "X trails Y": by the cue words of cues.json."""
    doc, dtext, cues, st, dep_by_sent, add, negated = rd.doc, rd.dtext, rd.cues, rd.st, rd.dep_by_sent, rd.add, rd.negated
    sent, ms, text, s0, methods, datasets, anaphor_method = sn.sent, sn.ms, sn.text, sn.s0, sn.methods, sn.datasets, sn.anaphor_method
    # ---- extends, outperforms, uses (method to method)
    for kind, pred, conf in (("extends", "extends", 0.8), ("outperforms", "outperforms", 0.8), ("uses", "uses", 0.7),
                             ("outperformed_by", "outperforms", 0.75)):
        if not methods and not (datasets and kind == "extends"):
            continue  # every object below is one of these: without them no cue can yield a relation
        for cm in cues[kind].finditer(text):
            c_start, c_end = s0 + cm.start(), s0 + cm.end()
            objs = [m for m in methods + (datasets if kind == "extends" else []) if m.start_char >= c_end
                    and len(dtext[c_end:m.start_char].split()) <= (4 if kind != "extends" else 3)]
            if not objs:
                continue
            obj = objs[0]
            # coordinated objects: "beats XMem and Cutie", "outperforms both PPO and ..."
            obj_list = [obj]
            for m in methods + (datasets if kind == "extends" else []):
                if m.start_char > obj_list[-1].end_char and m.label_ == obj.label_ and _LIST_LINK.fullmatch(dtext[obj_list[-1].end_char:m.start_char]):
                    obj_list.append(m)
            subs = [m for m in methods + (datasets if kind == "extends" else []) if m.end_char <= c_start]
            if kind == "extends":
                subs = [m for m in subs if m.label_ == obj.label_]
            subj = subs[-1] if subs else None
            # the parse names the verb's own subject where one stands between: "X, which builds on Y,
            # outperforms Z" is about X, not about Y, the name nearest the cue
            parsed = [mention_at(doc[sj], ms, {subj.label_} if subj is not None else {"Method"})
                      for rel, verb, sj, _ in dep_by_sent.get(sent.start, []) if rel == pred and c_start <= doc[verb].idx < c_end]
            if subj is not None and parsed and parsed[0] is not None and parsed[0] is not subj \
                    and parsed[0].end_char <= subj.start_char:
                subj = parsed[0]
            if kind != "extends" and subj is not None and _own_subject(doc, subj, c_start, c_end):
                subj = None  # "The teacher is X, and the student uses Y": not X (not for extends: there it lost three right ones)
            clause_subj = clause_subject(sent, methods, introduced(st))
            if subj is not None and clause_subj is not None and clause_subj.end_char <= subj.start_char and \
                    _AND_BEFORE.search(dtext[subj.end_char:c_start]):
                subj = clause_subj  # "MARLIN extends PPO with X and outperforms both PPO and Y": coordinated verbs
            if _PRONOUN_BEFORE.search(dtext[max(s0, c_start - 40):c_start]):
                # "..., and it outperforms X": the pronoun is the sentence's subject or the method in focus
                subj = clause_subj or anaphor_method or subj
            if subj is None and (kind == "uses" or subject_is_anaphor(sent)):
                if kind == "uses" and _USING_FIRST.match(text):
                    subj = st.cur_paper
                elif anaphor_method is not None:
                    subj = anaphor_method  # "The method outperforms X"
            if subj is not None and kind != "extends":
                subj = _winner(rd, sn, subj, clause_subj, c_start)  # "3.5x faster than CMT, 4.9x faster than EfficientNet": not CMT
            if subj is None:
                continue
            if negated(sent, subj.end_char, obj.start_char):
                continue
            for o in obj_list:
                if kind == "outperformed_by":  # "Tansy-VL trails InternVL3-2B": the object is the better one
                    add(o, pred, subj, sent, "outperforms.outperformed_by", conf)
                else:
                    add(subj, pred, o, sent, f"{pred}.cue", conf)



_RELATIVE_SUBJECTS = frozenset({"it", "they", "which", "that", "who"})
_RELATIVE_OWNERS = frozenset({"whose", "its", "their"})


def _own_subject(doc, subj: Span, c_start: int, c_end: int) -> bool:
    """Whether the verb of a cue ("relies on", "is built on", "uses") has a subject of its own by the parse that is
    not ``subj`` (the name nearest before the cue) nor holds it, nor is a pronoun or relative standing for it:
    "FogForge relies on X, and every detector in the paper is built on Y" does not say X is built on Y."""
    span = doc.char_span(c_start, c_end, alignment_mode="expand")
    if span is None or not len(span):
        return False
    verb = span[0]
    subjects = [t for t in verb.children if t.dep_ in {"nsubj", "nsubjpass"}]
    if not subjects or subjects[0].lower_ in _RELATIVE_SUBJECTS:
        return False
    t = subjects[0]
    if any(c.dep_ == "poss" and c.lower_ in _RELATIVE_OWNERS for c in t.children):
        return False  # "X, whose inference code is built on Y": the subject is X's own part
    return not t.left_edge.idx <= subj.start_char < t.right_edge.idx + len(t.right_edge)


def comparatives(rd: Reader, sn: Sentence) -> None:
    """"S reaches a lower FID than O": who is better depends on the metric."""
    dtext, rules, add, negated = rd.dtext, rd.rules, rd.add, rd.negated
    sent, text, s0, methods, anaphor_method = sn.sent, sn.text, sn.s0, sn.methods, sn.anaphor_method
    # "S reaches a lower FID than O", "S achieves higher Recall@10 than both O1 and O2", "S agrees with people
    # more often than O": who is better depends on the metric (a lower FID is better, a lower accuracy worse)
    if methods and rules is not None:
        for cm in COMPARATIVE.finditer(text):
            c_start, c_end = s0 + cm.start(), s0 + cm.end()
            if cm.group(1):
                sign = comparison_sign(cm.group(1), cm.group(2), rules.lower_is_better)
            else:  # "reduces temporal flicker by 38% compared with O", "reduces WER by 14% relative to O"
                sign = change_sign(cm.group(3), cm.group(4), rules.lower_is_better)
            objs = [m for m in methods if m.start_char >= c_end and len(dtext[c_end:m.start_char].split()) <= 2]
            subs = [m for m in methods if m.end_char <= c_start]
            subj = subs[-1] if subs else None
            if _PRONOUN_BEFORE_COMPARISON.search(dtext[max(s0, c_start - 60):c_start]) and anaphor_method is not None:
                subj = anaphor_method
            if subj is not None:
                subj = _winner(rd, sn, subj, clause_subject(sent, methods, introduced(rd.st)), c_start)
            if not sign or subj is None or not objs or negated(sent, subj.end_char if subj.end_char <= c_start else s0, objs[0].start_char):
                continue
            obj_list = [objs[0]] + [m for m in methods if m.start_char > objs[0].end_char and _LIST_LINK.fullmatch(dtext[objs[0].end_char:m.start_char])]
            for o in obj_list:
                if sign > 0:
                    add(subj, "outperforms", o, sent, "outperforms.comparative", 0.7)
                else:
                    add(o, "outperforms", subj, sent, "outperforms.comparative", 0.7)



def _winner(rd: Reader, sn: Sentence, subj, clause_subj, cue: int):
    """The method a comparison whose cue starts at ``cue`` is about: ``subj``, the one named nearest before the cue,
    unless it is itself compared against (:func:`~.common.not_baselines`: "It is 3.5x faster than A and 4.9x faster
    than B" is not about A)."""
    return next(iter(not_baselines(rd.dtext, sn, [subj], clause_subj, cue)), None)


def dependency(rd: Reader, sn: Sentence) -> None:
    """The same relations read from the parse: "X, trained on far less data, clearly outperforms Y"."""
    doc, dep_by_sent, add, negated = rd.doc, rd.dep_by_sent, rd.add, rd.negated
    sent, ms, anaphor_method = sn.sent, sn.ms, sn.anaphor_method
    # the same relations read from the parse: "X, trained on far less data, clearly outperforms Y and Z"
    for relation, _verb, subject, obj in dep_by_sent.get(sent.start, []):
        labels = {"Method", "Dataset"} if relation == "extends" else {"Method"}
        subj = mention_at(doc[subject], ms, labels)
        if subj is None and doc[subject].lower_ in {"it", "they"}:
            subj = anaphor_method
        if subj is None:
            continue
        for o_tok in (doc[obj], *doc[obj].conjuncts):
            o = mention_at(o_tok, ms, {subj.label_} if relation == "extends" else labels)
            if o is not None and not negated(sent, min(subj.end_char, o.start_char), o.start_char):
                add(subj, relation, o, sent, f"{relation}.dependency", 0.75)



def named_variant(rd: Reader, sn: Sentence) -> None:
    """"NeuralTide is a Fourier Neural Operator variant": the extended one named before the head noun."""
    dtext, add, negated = rd.dtext, rd.add, rd.negated
    sent, s0, methods, datasets = sn.sent, sn.s0, sn.methods, sn.datasets
    # "NeuralTide is a Fourier Neural Operator variant": the extended one named before the head noun
    if methods or datasets:
        for x in methods + datasets:
            before = dtext[max(s0, x.start_char - 40):x.start_char]
            after = dtext[x.end_char:x.end_char + 30]
            if not _VARIANT_AFTER.match(after):
                continue
            hm = _COPULA_ARTICLE_BEFORE.search(before)
            if not hm:
                continue
            subs = [m for m in methods + datasets if m.end_char <= x.start_char - len(before) + hm.start() + 1
                    and m.label_ == x.label_ and re.fullmatch(r"\s*", dtext[m.end_char:x.start_char - len(before) + hm.start()])]
            if subs and not negated(sent, subs[-1].end_char, x.start_char):
                add(subs[-1], "extends", x, sent, "extends.named_variant", 0.75)
